// The lobby page's own drawing of a long list (lobby.js): once its socket
// is live, the rows the server wrote are cleared and the script must draw
// them again from the next lobby message, "more" row included.
//   node tests/web/lobby_more.mjs BASE_URL
// Prints one JSON object: the rows drawn and the text of the last one.
import { launch } from './chromium.mjs';

const [base] = process.argv.slice(2);
const out = { errors: [] };
const browser = await launch();
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => out.errors.push(e.message));
  await page.goto(`${base}/`);
  await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live',
    null, { timeout: 15000 });
  await page.evaluate(() => document.getElementById('games').replaceChildren());
  await page.waitForFunction(() => document.querySelectorAll('#games tr').length > 0,
    null, { timeout: 15000 });
  Object.assign(out, await page.evaluate(() => {
    const rows = [...document.querySelectorAll('#games tr')];
    const last = rows[rows.length - 1];
    return { rows: rows.length, last: last.textContent, lastClass: last.className };
  }));
} catch (e) {
  out.errors.push(String(e));
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
