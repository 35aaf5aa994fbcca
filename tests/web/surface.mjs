// Drives Debian's Chromium (playwright-core, never a downloaded browser)
// against the real warrend over what a visitor meets on the site: logging
// in from a page and landing back on it, the play page's terminal filling
// the window at two sizes, a watch page scaling an 80x24 game to the window
// (wide and phone-sized), the lobby's readable previews, the lobby with
// JavaScript off, and the one navigation on every page.
//   node tests/web/surface.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD WATCHED
// NAME is a registered account without a game; WATCHED plays at 80x24
// (the Python side keeps its game open). Prints one JSON object.
import { mkdirSync } from 'node:fs';
import { finish, launch, waitText } from './chromium.mjs';

const [base, artifacts, name, password, watched] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };

const browser = await launch();

const listen = (page, tag) => {
  page.on('pageerror', (e) => out.errors.push(`${tag}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(`${tag} console: ${m.text()}`); });
};
// Where the terminal's drawn cells are against the box they live in.
const geometry = (page) => page.evaluate(() => {
  const box = document.getElementById('term').getBoundingClientRect();
  const scr = document.querySelector('#term .xterm-screen').getBoundingClientRect();
  const t = window.warren.term;
  return {
    box: [box.left, box.top, box.width, box.height],
    screen: [scr.left, scr.top, scr.width, scr.height],
    cols: t.cols, rows: t.rows, font: t.options.fontSize,
    viewport: [window.innerWidth, window.innerHeight],
  };
});
const settleSize = async (page, pred, arg) => {
  await page.waitForFunction(pred, arg, { timeout: 10000 });
  await page.waitForTimeout(300); // the fit runs 80 ms after a resize
};
const navOf = (page) => page.evaluate(() => {
  const nav = document.querySelector('header nav.site');
  if (!nav) return null;
  return {
    links: [...nav.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]),
    logout: !!nav.querySelector('form[action="/logout"][method="post"] button'),
  };
});

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  listen(page, 'site');

  // --- log in from the scores page: the nav's link brings you back there
  await page.goto(`${base}/scores`);
  await Promise.all([page.waitForURL(/\/login\?/), page.click('nav.site a:text("Log in")')]);
  out.loginUrl = page.url().slice(base.length);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')),
    page.click('button[type=submit]')]);
  out.loginLanded = page.url().slice(base.length);

  // --- the navigation on every page, the same links
  out.navs = {};
  for (const path of ['/', '/scores', `/player/${name}`, '/options', '/password']) {
    await page.goto(`${base}${path}`);
    out.navs[path] = await navOf(page);
    const shot = path === '/' ? 'lobby-user' : path.split('/')[1];
    await page.screenshot({ path: `${artifacts}/surface-${shot}.png` });
  }

  // --- play: the terminal fills the window, desktop then phone-sized
  await page.goto(`${base}/play`);
  out.navs['/play'] = await navOf(page);
  await page.waitForFunction(() => window.warren && window.warren.state.connected, null, { timeout: 10000 });
  await page.locator('#term').click();
  await page.keyboard.type('*'); // a new game: a random character
  await waitText(page, `${name} the`);
  await settleSize(page, () => true);
  out.playDesktop = await geometry(page);
  await page.locator('#term').screenshot({ path: `${artifacts}/surface-play-desktop.png` });
  await page.setViewportSize({ width: 390, height: 740 });
  await settleSize(page, () => window.warren.term.cols < 100);
  await waitText(page, `${name} the`);
  out.playPhone = await geometry(page);
  await page.screenshot({ path: `${artifacts}/surface-play-phone.png` });

  // --- watch an 80x24 game: the font scales until it fills the window
  const wctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const wp = await wctx.newPage();
  listen(wp, 'watch');
  await wp.goto(`${base}/watch/${watched}`);
  await waitText(wp, `${watched} the`);
  await settleSize(wp, () => window.warren.term.cols === 80 && window.warren.term.rows === 24);
  out.navs['/watch'] = await navOf(wp);
  out.watchWide = await geometry(wp);
  await wp.locator('#term').screenshot({ path: `${artifacts}/surface-watch-wide.png` });
  await wp.screenshot({ path: `${artifacts}/surface-watch-wide-page.png` });
  await wp.setViewportSize({ width: 390, height: 700 });
  await settleSize(wp, (w) => window.warren.term.options.fontSize < w, out.watchWide.font);
  out.watchPhone = await geometry(wp);
  await wp.screenshot({ path: `${artifacts}/surface-watch-phone.png` });

  // --- the lobby: previews are the games' text at a small font
  const lp = await wctx.newPage();
  listen(lp, 'lobby');
  await lp.setViewportSize({ width: 1400, height: 900 });
  await lp.goto(`${base}/`);
  await lp.waitForFunction((n) => [...document.querySelectorAll('#previews figure')]
    .some((f) => f.textContent.includes(`${n} the`)), watched, { timeout: 10000 });
  out.previews = await lp.evaluate(() => [...document.querySelectorAll('#previews figure')].map((f) => {
    const pre = f.querySelector('pre');
    return { name: f.querySelector('figcaption').textContent, text: pre.textContent,
      font: parseFloat(getComputedStyle(pre).fontSize), width: pre.getBoundingClientRect().width };
  }));
  await lp.screenshot({ path: `${artifacts}/surface-lobby.png` });

  // --- the lobby without JavaScript: the server's list
  const nojs = await browser.newContext({ viewport: { width: 1000, height: 600 }, javaScriptEnabled: false });
  const np = await nojs.newPage();
  await np.goto(`${base}/`);
  out.noJsRows = await np.locator('#games tr').evaluateAll((trs) => trs.map((tr) => tr.textContent));
  out.noJsWatch = await np.locator('#games a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  await np.screenshot({ path: `${artifacts}/surface-lobby-nojs.png` });
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
