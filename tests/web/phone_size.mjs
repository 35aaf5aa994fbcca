// A hosted game's phone-size on a phone in Debian's Chromium (mobile
// emulation) against the real warrend: /play/GAME (ptytoy winsize, which
// prints "size WxH" at its start and on each window change), in portrait
// and then landscape. For each it reads the terminal's size, its font,
// how wide the terminal is against the screen, and the sizes the
// program said.
//   node tests/web/phone_size.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD GAME
// NAME is registered here. Prints one JSON object.
import { mkdirSync } from 'node:fs';
import { finish, launch, waitText } from './chromium.mjs';

const [base, artifacts, name, password, game] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [], sizes: {} };
const PHONE = { isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

const browser = await launch();
const shape = (page) => page.evaluate(() => {
  const t = window.warren.term;
  const b = t.buffer.active;
  const said = [];
  for (let i = 0; i < t.rows; i++) {
    const m = /size (\d+x\d+)/.exec(b.getLine(i)?.translateToString(true) ?? '');
    if (m) said.push(m[1]);
  }
  const scr = document.querySelector('#term .xterm-screen').getBoundingClientRect();
  return { cols: t.cols, rows: t.rows, font: t.options.fontSize, said,
    width: scr.width, height: scr.height, view: [innerWidth, innerHeight],
    meta: document.querySelector('meta[name="warren-phone-size"]')?.content ?? null };
});
const settle = async (page) => {
  let last = '';
  for (let i = 0; i < 30; i++) {
    await page.waitForTimeout(150);
    const now = JSON.stringify(await shape(page));
    if (now === last) return;
    last = now;
  }
};

try {
  const ctx = await browser.newContext({ ...PHONE, viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(e.message));
  await page.goto(`${base}/register?next=/`);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/?welcome=1`), page.click('button[type=submit]')]);
  await page.goto(`${base}/play/${game}`);
  await page.waitForFunction(() => window.warren && window.warren.state.connected, null, { timeout: 15000 });
  await waitText(page, 'size ');
  for (const [w, h] of [[390, 844], [844, 390]]) {
    await page.setViewportSize({ width: w, height: h });
    await settle(page);
    out.sizes[`${w}x${h}`] = await shape(page);
    await page.screenshot({ path: `${artifacts}/phone-size-${game}-${w}x${h}.png` });
  }
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
