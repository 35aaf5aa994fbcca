// Opens warrend's pages on a phone (390x844, as a phone's browser lays a
// page out: wider content widens the page and shrinks it to fit) in
// Debian's Chromium through playwright-core: for each, how wide the page
// came out; for the replay, where its terminal's screen lies in the window.
//   node tests/web/narrow.mjs BASE_URL GAME_ID PLAYER ARTIFACT_DIR
// Prints one JSON object with what it saw; exits non-zero on failure.
import { mkdirSync } from 'node:fs';
import { finish, launch } from './chromium.mjs';

const [base, game, player, artifacts] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [], widths: {} };
const browser = await launch();
try {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true,
    hasTouch: true });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(`${page.url()}: ${e.message}`));
  const pages = ['/', '/scores', `/player/${player}`, `/game/${game}`, '/daily', `/game/${game}/replay`];
  for (const p of pages) {
    await page.goto(`${base}${p}`);
    if (p.endsWith('/replay')) {
      await page.waitForFunction(() => window.warren && (window.warren.ready || window.warren.error),
        null, { timeout: 20000 });
      out.replayFont = await page.evaluate(() => window.warren.term.options.fontSize);
      out.replayBox = await page.evaluate(() => {
        const r = document.querySelector('#term .xterm-screen').getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: innerWidth, height: innerHeight };
      });
    }
    out.widths[p] = await page.evaluate(() => document.documentElement.scrollWidth);
    await page.screenshot({ path: `${artifacts}/narrow${p.replace(/[^a-z0-9]+/gi, '-')}.png` });
  }
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
