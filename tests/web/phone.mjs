// A phone in Debian's Chromium (mobile emulation: touch, device pixels,
// no hover) against the real warrend: /play/nethack (Debian's NetHack),
// /play (Warren's own game) and /watch of an 80x24 NetHack game, each in
// portrait and landscape at 360x640 and 390x844. At every size it reads
// where each terminal row is drawn and whether that lies inside what the
// phone shows; it taps the on-screen Esc, Ctrl and arrow keys and reads
// what the game did with them.
//   node tests/web/phone.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD WATCHED
// NAME and NAME2 (NAME with a 2) are registered here; WATCHED plays NetHack
// at 80x24 (the Python side keeps it open). Prints one JSON object.
import { mkdirSync } from 'node:fs';
import { finish, launch, termLines as lines, waitText } from './chromium.mjs';

const [base, artifacts, name, password, watched] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [], play: {}, warren: {}, watch: {}, keys: {}, warrenKeys: {} };
const SIZES = [[390, 844], [360, 640], [844, 390], [640, 360]];
const PHONE = { isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

const browser = await launch();
const listen = (page, tag) => {
  page.on('pageerror', (e) => out.errors.push(`${tag}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(`${tag} console: ${m.text()}`); });
};
// Where each terminal row is drawn, against the phone's visible area and
// the terminal's box (which clips what overflows it).
const rows = (page) => page.evaluate(() => {
  const t = window.warren.term;
  const vv = window.visualViewport;
  const view = { left: vv.offsetLeft, top: vv.offsetTop, right: vv.offsetLeft + vv.width,
    bottom: vv.offsetTop + vv.height };
  const box = document.getElementById('term').getBoundingClientRect();
  const b = t.buffer.active;
  const divs = [...document.querySelectorAll('#term .xterm-rows > div')];
  const r = divs.slice(0, t.rows).map((d, i) => {
    const rc = d.getBoundingClientRect();
    // the drawn row is as wide as the terminal's columns, not the div
    const scr = document.querySelector('#term .xterm-screen').getBoundingClientRect();
    const right = rc.left + scr.width;
    const inside = (a) => rc.top >= a.top - 0.5 && rc.bottom <= a.bottom + 0.5 &&
      rc.left >= a.left - 0.5 && right <= a.right + 0.5;
    return { i, top: rc.top, bottom: rc.bottom, left: rc.left, right,
      visible: inside(view) && inside(box), text: b.getLine(i)?.translateToString(true) ?? '' };
  });
  const scr = document.querySelector('#term .xterm-screen').getBoundingClientRect();
  return { cols: t.cols, rows: t.rows, font: t.options.fontSize, view, rowList: r,
    screen: [scr.width, scr.height],
    box: [box.left, box.top, box.width, box.height],
    keys: (() => { const k = document.getElementById('keys'); if (!k) return null;
      const kr = k.getBoundingClientRect();
      return { top: kr.top, bottom: kr.bottom, shown: kr.height > 0 && getComputedStyle(k).display !== 'none' }; })(),
    turn: (() => { const p = document.getElementById('turn'); if (!p) return null;
      const pr = p.getBoundingClientRect();
      return { top: pr.top, bottom: pr.bottom, shown: pr.height > 0, text: p.textContent }; })() };
});
const settle = async (page) => {
  let last = '';
  for (let i = 0; i < 30; i++) {
    await page.waitForTimeout(150);
    const now = await page.evaluate(() => {
      const t = window.warren.term;
      const s = document.querySelector('#term .xterm-screen').getBoundingClientRect();
      return `${t.cols}x${t.rows}@${t.options.fontSize} ${s.width}x${s.height} ${innerWidth}x${innerHeight}`;
    });
    if (now === last) return;
    last = now;
  }
};
// NetHack's first questions answered until the map shows. The terminal
// is focused before each answer (a key typed while the page has moved the
// focus elsewhere would be lost), and a copyright screen with no question
// for 3 s gets the answer anyway (a resize while NetHack starts may have
// redrawn the screen without it).
const toMap = async (page) => {
  for (let i = 0; i < 200; i++) {
    const ls = (await lines(page)).join('\n');
    if (ls.includes('Dlvl:1') && !ls.includes('--More--')) return;
    await page.evaluate(() => window.warren.term.focus());
    if (ls.includes('Shall I pick') || ls.includes('Is this ok?')) await page.keyboard.type('y');
    else if (ls.includes('--More--')) await page.keyboard.press('Enter');
    else if (i >= 20 && i % 10 === 0 && ls.includes('Copyright')) await page.keyboard.type('y');
    await page.waitForTimeout(150);
  }
  throw new Error(`NetHack never showed its map:\n${(await lines(page)).join('\n')}`);
};
const register = async (ctx, who) => {
  const page = await ctx.newPage();
  listen(page, who);
  await page.goto(`${base}/register?next=/`);
  await page.fill('input[name=name]', who);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/?welcome=1`), page.click('button[type=submit]')]);
  return page;
};
// the player: both games leave the cursor on its '@'; [x, y] or null
const at = (page) => page.evaluate(() => {
  const b = window.warren.term.buffer.active;
  const ch = b.getLine(b.cursorY)?.getCell(b.cursorX)?.getChars();
  return ch === '@' ? [b.cursorX, b.cursorY] : null;
});
const tap = (page, key) => page.locator(`#keys button[data-key="${key}"]`).tap();
// A step may start a fight or meet a peaceful: the on-screen Enter
// passes NetHack's --More--, Esc says no to a question.
const settleGame = async (page) => {
  for (let i = 0; i < 8; i++) {
    const ls = await lines(page);
    if (ls.some((l) => l.includes('--More--'))) await tap(page, 'Enter');
    else if (/\[yn/.test(ls[0])) await tap(page, 'Esc');
    else return;
    await page.waitForTimeout(300);
  }
};
// The game's answer is all in: the screen and its cursor unchanged for
// 300 ms (at most 12 s; a loaded machine answers a key late)
const quiet = async (page) => {
  let last = null;
  for (let i = 0; i < 40; i++) {
    const now = await page.evaluate(() => {
      const t = window.warren.term;
      const b = t.buffer.active;
      const rows = [];
      for (let y = 0; y < t.rows; y++) rows.push(b.getLine(b.viewportY + y)?.translateToString());
      return `${b.cursorX},${b.cursorY}\n${rows.join('\n')}`;
    });
    if (now === last) return;
    last = now;
    await page.waitForTimeout(300);
  }
};
// Taps each arrow; what the '@' did and what the screen's first row said
const arrows = async (page) => {
  const moves = {};
  for (const k of ['\u2190', '\u2192', '\u2191', '\u2193', '\u2190', '\u2192']) {
    await settleGame(page);
    await quiet(page);
    const before = await at(page);
    await tap(page, k);
    await quiet(page);
    await settleGame(page);
    await quiet(page);
    const after = await at(page);
    (moves[k] ||= []).push({ before, after, top: (await lines(page))[0] });
  }
  return moves;
};
const shootAll = async (page, tag, store) => {
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await settle(page);
    store[`${w}x${h}`] = await rows(page);
    await page.screenshot({ path: `${artifacts}/phone-${tag}-${w}x${h}.png` });
  }
};

try {
  // --- NetHack in the phone's browser
  const ctx = await browser.newContext({ ...PHONE, viewport: { width: 390, height: 844 } });
  const page = await register(ctx, name);
  await page.goto(`${base}/play/nethack`);
  await page.waitForFunction(() => window.warren && window.warren.state.connected, null, { timeout: 15000 });
  await page.locator('#term').tap();
  await toMap(page);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await settle(page);
    // ^R through the on-screen Ctrl: NetHack redraws at the new size
    await tap(page, 'Ctrl');
    await page.keyboard.type('r');
    await waitText(page, 'Dlvl:1');
    await settle(page);
    out.play[`${w}x${h}`] = await rows(page);
    await page.screenshot({ path: `${artifacts}/phone-nethack-${w}x${h}.png` });
  }
  // the keys: arrows walk, Ctrl then x is NetHack's ^X, Esc closes it
  out.keys.arrows = await arrows(page);
  await tap(page, 'Ctrl');
  await page.keyboard.type('x');
  await page.waitForTimeout(800);
  out.keys.ctrlX = (await lines(page)).join('\n');
  out.keys.ctrlStillArmed = await page.locator('#keys button[data-key="Ctrl"]')
    .evaluate((b) => b.classList.contains('armed'));
  await tap(page, 'Esc');
  await page.waitForTimeout(200);
  await tap(page, 'Esc');
  await page.waitForTimeout(800);
  out.keys.afterEsc = (await lines(page)).join('\n');

  // --- Warren's own game
  const wctx = await browser.newContext({ ...PHONE, viewport: { width: 390, height: 844 } });
  const wpage = await register(wctx, `${name}2`);
  await wpage.goto(`${base}/play`);
  await wpage.waitForFunction(() => window.warren && window.warren.state.connected, null, { timeout: 15000 });
  await wpage.locator('#term').tap();
  await wpage.keyboard.type('*');
  await waitText(wpage, `${name}2 the`);
  await shootAll(wpage, 'warren', out.warren);
  out.warrenKeys.arrows = await arrows(wpage);

  // --- watching an 80x24 NetHack game
  const vctx = await browser.newContext({ ...PHONE, viewport: { width: 390, height: 844 } });
  const vpage = await vctx.newPage();
  listen(vpage, 'watch');
  await vpage.goto(`${base}/watch/${watched}`);
  await waitText(vpage, 'Dlvl:');
  await shootAll(vpage, 'watch', out.watch);
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
