// Drives Debian's Chromium (through playwright-core, never a downloaded
// browser) against a running web gateway: plays keys on /play, checks the
// terminal buffer and screenshots, the phone key row, a watcher in a second
// browser context, reconnection after a dropped socket, and that markup in
// lobby names stays text.
//   node tests/web/browser.mjs BASE_URL ARTIFACT_DIR
// Prints one JSON object with what it saw; exits non-zero on failure.
import { mkdirSync } from 'node:fs';
import { finish, launch, termLines as lines, waitText } from './chromium.mjs';

const [base, artifacts] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };

const browser = await launch();

const atPos = (ls) => {
  for (let y = 0; y < ls.length; y++) { const x = ls[y].indexOf('@'); if (x >= 0 && ls[y].startsWith('.') || ls[y].startsWith('@')) if (x >= 0) return [x, y]; }
  return null;
};

try {
  // --- play on a desktop-sized page
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(`play: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(`play console: ${m.text()}`); });
  await page.goto(`${base}/play`);
  await waitText(page, 'Warren harness');
  out.before = atPos(await lines(page));
  await page.locator('#term').click();
  await page.keyboard.type('llj');
  await waitText(page, 'moves 3');
  const after = await lines(page);
  out.after = atPos(after);
  out.typed = after.find((l) => l.startsWith('typed:'));
  out.size = await page.evaluate(() => [window.warren.term.cols, window.warren.term.rows]);
  out.sizeLine = after[0];
  await page.locator('#term').screenshot({ path: `${artifacts}/web-play-term.png` });
  await page.screenshot({ path: `${artifacts}/web-play.png` });

  // --- the window shrinks: the game hears the new size
  const rowsBefore = await page.evaluate(() => window.warren.term.rows);
  await page.setViewportSize({ width: 700, height: 500 });
  await page.waitForFunction((r) => window.warren.term.rows < r && window.warren.term.cols >= 80,
    rowsBefore, { timeout: 5000 });
  const cols = await page.evaluate(() => window.warren.term.cols);
  const rows = await page.evaluate(() => window.warren.term.rows);
  await waitText(page, `size ${cols}x${rows}`);
  out.resized = [cols, rows];

  // --- a watcher in a second browser context sees the same screen
  const wctx = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  const watch = await wctx.newPage();
  watch.on('pageerror', (e) => out.errors.push(`watch: ${e.message}`));
  await watch.goto(`${base}/watch/bob`);
  await waitText(watch, 'Warren harness');
  await page.keyboard.type('k');
  await waitText(page, 'moves 4');
  await waitText(watch, 'moves 4');
  const pl = await lines(page), wl = await lines(watch);
  out.watchSame = JSON.stringify(pl.slice(0, 12)) === JSON.stringify(wl.slice(0, 12));
  out.watchWho = await watch.locator('#who').textContent();
  await watch.screenshot({ path: `${artifacts}/web-watch.png` });

  // --- a dropped socket: the page reconnects by itself
  await page.evaluate(() => window.warren.sendJson({ t: 'kick' }));
  await page.waitForFunction(() => window.warren.state.reconnects >= 1 && window.warren.state.connected,
    null, { timeout: 10000 });
  await waitText(page, 'moves 4');
  await page.keyboard.type('h');
  await waitText(page, 'moves 5');
  out.reconnected = true;

  // --- a phone: the key row shows and its keys reach the game
  const phone = await browser.newContext({ viewport: { width: 390, height: 700 }, isMobile: true, hasTouch: true });
  const pp = await phone.newPage();
  pp.on('pageerror', (e) => out.errors.push(`phone: ${e.message}`));
  await pp.goto(`${base}/play`);
  await waitText(pp, 'Warren harness');
  out.keyRowVisible = await pp.locator('#keys button[data-key="Esc"]').isVisible();
  await pp.locator('#keys button[data-key="Esc"]').tap();
  await pp.locator('#keys button[data-key="\u2192"]').tap();
  await waitText(pp, 'moves 6');
  out.phoneTyped = (await lines(pp)).find((l) => l.startsWith('typed:'));
  await pp.screenshot({ path: `${artifacts}/web-phone.png` });

  // --- the lobby: a name full of markup stays text
  const lp = await ctx.newPage();
  let dialogs = 0;
  lp.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
  await lp.goto(`${base}/`);
  await lp.waitForSelector('#games a[href^="/watch/"]', { timeout: 10000 });
  out.lobbyName = await lp.locator('#games tr td').first().textContent();
  out.lobbyImgs = await lp.locator('#games img, #games b').count();
  out.lobbyHref = await lp.locator('#games a').first().getAttribute('href');
  await lp.waitForTimeout(300);
  out.dialogs = dialogs;
  await lp.screenshot({ path: `${artifacts}/web-lobby.png` });
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
