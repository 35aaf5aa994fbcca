// Drives Debian's Chromium (through playwright-core) to the end of a replay
// page (a Warren game's or a hosted recording's) and reads what the player
// says there, for a replay the server cut at its replay-max.
//   node tests/web/replay_end.mjs PAGE_URL ARTIFACT_DIR
// Prints one JSON object with what it saw; exits non-zero on failure.
import { mkdirSync } from 'node:fs';
import { finish, launch } from './chromium.mjs';

const [url, artifacts] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  page.on('pageerror', (e) => out.errors.push(`replay: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(`console: ${m.text()}`); });
  await page.goto(url);
  await page.waitForFunction(() => window.warren && (window.warren.ready || window.warren.error),
    null, { timeout: 30000 });
  out.loadError = await page.evaluate(() => window.warren.error || null);
  out.frames = await page.evaluate(() => window.warren.player.n);
  await page.evaluate(() => window.warren.player.seek(window.warren.player.n - 1));
  out.status = await page.locator('#status').textContent();
  out.last = await page.evaluate(() => {
    const t = window.warren.term;
    const r = [];
    for (let i = 0; i < t.rows; i++) r.push(t.buffer.active.getLine(i)?.translateToString(true) ?? '');
    return r;
  });
  await page.screenshot({ path: `${artifacts}/replay-truncated.png` });
} catch (e) {
  out.errors.push(`exception: ${e.message}`);
}
await finish(browser, out);
