// Drives Debian's Chromium (through playwright-core) against warrend's
// replay page: plays a finished game to the end at high speed, reads the
// terminal buffer and takes a screenshot, checks pause, seeks with the
// slider, and opens the game page to see that injected markup stays text.
// At 1x it times the wait before GAP_FRAME, a frame recorded after a pause.
//   node tests/web/replay.mjs BASE_URL GAME_ID SEEK_FRAME ARTIFACT_DIR GAP_FRAME
// Prints one JSON object with what it saw; exits non-zero on failure.
import { mkdirSync } from 'node:fs';
import { finish, launch, termLines as lines } from './chromium.mjs';

const [base, game, seekTo, artifacts, gapFrame] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };

const browser = await launch();

const pos = (page) => page.evaluate(() => window.warren.player.pos);
// Clicks Play/Pause and waits until the player is in that state (or at the end).
const toggle = async (page, playing) => {
  await page.locator('#play').click();
  await page.waitForFunction((want) => window.warren.player.playing === want || window.warren.player.done,
    playing, { timeout: 5000 });
};
const state = (page) => page.evaluate(() => {
  const p = window.warren.player;
  return { pos: p.pos, n: p.n, playing: p.playing, done: p.done, speed: p.speed };
});

try {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(`replay: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(`console: ${m.text()}`); });
  page.on('dialog', (d) => { out.errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(`${base}/game/${game}/replay`);
  await page.waitForFunction(() => window.warren && (window.warren.ready || window.warren.error),
    null, { timeout: 20000 });
  out.loadError = await page.evaluate(() => window.warren.error || null);
  out.frames = await page.evaluate(() => window.warren.player.n);
  out.size = await page.evaluate(() => [window.warren.term.cols, window.warren.term.rows]);
  out.first = await lines(page);

  // play at 1x for a moment, pause: the position stops moving
  await toggle(page, true);
  await page.waitForFunction(() => window.warren.player.pos >= 3, null, { timeout: 10000 });
  await toggle(page, false);
  const paused = await pos(page);
  await page.waitForTimeout(600);
  out.pauseHeld = (await pos(page)) === paused && paused >= 3;

  // real speed: from the frame before GAP_FRAME, play at 1x and time the wait
  const gf = Number(gapFrame);
  await page.evaluate((f) => window.warren.player.seek(f - 1), gf);
  out.gapPos = await pos(page);
  const t0 = Date.now();
  await page.locator('#play').click();
  await page.waitForFunction((f) => window.warren.player.pos >= f, gf, { timeout: 10000, polling: 10 });
  out.gapMs = Date.now() - t0;
  await toggle(page, false);

  // the fastest speed, to the end
  await page.locator('#speed').selectOption('32');
  await page.waitForFunction(() => window.warren.player.speed === 32, null, { timeout: 5000 });
  await toggle(page, true);
  try {
    await page.waitForFunction(() => window.warren.player.done, null, { timeout: 60000 });
  } catch (e) {
    out.stuck = await state(page); // what the player was doing when it did not end
    throw e;
  }
  out.endPos = await pos(page);
  out.last = await lines(page);
  out.status = await page.locator('#status').textContent();
  await page.locator('#term').screenshot({ path: `${artifacts}/replay-end-term.png` });
  await page.screenshot({ path: `${artifacts}/replay-end.png` });

  // seek with the slider
  await page.locator('#seek').evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, seekTo);
  await page.waitForFunction((v) => window.warren.player.pos === v, Number(seekTo), { timeout: 10000 });
  await page.waitForTimeout(200);
  out.seekPos = await pos(page);
  out.seek = await lines(page);
  out.posText = await page.locator('#pos').textContent();
  // and back to the start
  await page.evaluate(() => window.warren.player.seek(0));
  out.back = await lines(page);

  // the game page: markup from names and content shows as text
  await page.goto(`${base}/game/${game}`);
  out.gameScripts = await page.evaluate(() => document.querySelectorAll('script, img').length);
  out.gameCause = await page.locator('td.cause').textContent();
  out.gameName = await page.locator('h2 a').textContent();
  await page.screenshot({ path: `${artifacts}/records-game-page.png` });
  await ctx.close();
} catch (e) {
  out.errors.push(`exception: ${e.message}`);
}
await finish(browser, out);
