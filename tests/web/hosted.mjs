// Plays a hosted game (NetHack) in Debian's Chromium against the real
// warrend: registers through the form, finds the game's link in the
// lobby, opens /play/nethack, makes a character and reaches the map;
// then Ctrl-X (NetHack's attributes, not Warren's) and Ctrl-] x (leave).
//   node tests/web/hosted.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD
// The last line printed is one JSON object with what it saw.
import { mkdirSync } from 'node:fs';
import { finish, launch, termLines as lines } from './chromium.mjs';

const [base, artifacts, name, password] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };
const browser = await launch();
let page = null;
try {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(`page: ${e.message}`));
  await page.goto(`${base}/register?next=/`);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/?welcome=1`), page.click('button[type=submit]')]);
  // the lobby links every hosted game
  const link = page.locator('header nav a.hosted');
  await link.first().waitFor({ timeout: 15000 });
  out.link = { text: await link.first().textContent(), href: await link.first().getAttribute('href') };
  await Promise.all([page.waitForURL(`${base}/play/nethack`), link.first().click()]);
  await page.waitForFunction(() => window.warren && window.warren.term, null, { timeout: 15000 });
  await page.locator('#term').click();
  for (let i = 0; i < 200; i++) {
    const ls = (await lines(page)).join('\n');
    if (ls.includes('Dlvl:1')) break;
    if (ls.includes('Shall I pick') || ls.includes('Is this ok?')) await page.keyboard.type('y');
    else if (ls.includes('--More--')) await page.keyboard.press('Enter');
    await page.waitForTimeout(150);
  }
  out.lines = await lines(page);
  await page.screenshot({ path: `${artifacts}/hosted-nethack.png` });
  await page.keyboard.press('Escape'); // a --More-- left from a long welcome
  await page.waitForTimeout(300);
  await page.keyboard.press('Control+KeyX'); // NetHack's ^X: its attributes screen
  for (let i = 0; i < 100 && !out.attributes; i++) {
    out.attributes = (await lines(page)).some((l) => l.includes("'s attributes:"));
    await page.waitForTimeout(100);
  }
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Backslash'); // Warren's prefix, then x: leave
  await page.keyboard.type('x');
  await page.waitForURL(`${base}/`, { timeout: 15000 });
  out.left = true;
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
  if (page) out.errors.push(`screen:\n${(await lines(page).catch(() => [])).join('\n')}`);
}
await finish(browser, out);
