// Plays the daily game in Debian's Chromium against the real warrend:
// registers through the form, follows the navigation's Daily link to the
// board, presses its Play button and reaches the game's map in the
// terminal of /play/daily.
//   node tests/web/daily.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD
// The last line printed is one JSON object with what it saw.
import { mkdirSync } from 'node:fs';
import { finish, launch, termLines as lines, waitText } from './chromium.mjs';

const [base, artifacts, name, password] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };
const browser = await launch();
let page = null;
try {
  page = await (await browser.newContext({ viewport: { width: 1100, height: 700 } })).newPage();
  page.on('pageerror', (e) => out.errors.push(`page: ${e.message}`));
  await page.goto(`${base}/register?next=/`);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/?welcome=1`), page.click('button[type=submit]')]);
  await Promise.all([page.waitForURL(`${base}/daily`), page.click('nav.site a[href="/daily"]')]);
  out.heading = await page.locator('h2').first().textContent();
  const play = page.locator('a[href="/play/daily"]');
  out.button = await play.textContent();
  await Promise.all([page.waitForURL(`${base}/play/daily`), play.click()]);
  await waitText(page, 'HP ', 20000);
  out.lines = await lines(page);
  await page.screenshot({ path: `${artifacts}/daily-play.png` });
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
  if (page) out.errors.push(`screen:\n${(await lines(page).catch(() => [])).join('\n')}`);
}
await finish(browser, out);
