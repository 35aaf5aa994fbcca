// The lobby's feed reads itself again (lobby.js asks /api/feed every 15 s):
// a game that ends after the page loaded shows in it without a reload.
//   node tests/web/lobby_feed.mjs BASE_URL NAME
// The page's clock is Playwright's, so 15 s pass at once. Prints
// {"loaded": true, "feed": TEXT} once the page is up, then waits for a line
// on stdin (NAME's game has ended) and lets 15 s pass at a time until NAME
// is in the feed. Prints one JSON object last: the feed's text, whether
// NAME was found, in how many rounds, and whether the page was reloaded.
import { createInterface } from 'node:readline';
import { launch } from './chromium.mjs';

const [base, name] = process.argv.slice(2);
const out = { errors: [], found: false, rounds: 0 };
const feedText = (page) => page.evaluate(() => document.getElementById('feed')?.textContent ?? '');
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const browser = await launch();
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => out.errors.push(e.message));
  await page.clock.install();
  await page.goto(`${base}/`);
  await page.evaluate(() => { window.sameLoad = true; });
  console.log(JSON.stringify({ loaded: true, feed: await feedText(page) }));
  await lines.next();
  for (let round = 1; round <= 8 && !out.found; round++) {
    out.rounds = round;
    await page.clock.runFor(15000);
    for (let i = 0; i < 10 && !out.found; i++) { // the answer comes in real time
      await sleep(200);
      out.found = (await feedText(page)).includes(name);
    }
  }
  out.feed = await feedText(page);
  out.reloaded = !(await page.evaluate(() => window.sameLoad === true));
} catch (e) {
  out.errors.push(String(e));
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
process.exit(0);
