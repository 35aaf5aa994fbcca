// A hosted game's min-size in a desktop window of Debian's Chromium
// against the real warrend: NAME plays /play/GAME (ptytoy winsize, which
// prints "size WxH" at its start and on each window change) in a
// WIDTHxHEIGHT window, then WATCHER watches it in one of the same size.
// For each page it reads the terminal's size, its font, the sizes the
// program said and whether the page was told the game needs a larger
// terminal.
//   node tests/web/desktop_size.mjs BASE_URL ARTIFACT_DIR NAME WATCHER PASSWORD GAME WIDTHxHEIGHT
// NAME and WATCHER are registered here. Prints one JSON object.
import { mkdirSync } from 'node:fs';
import { finish, launch, waitText } from './chromium.mjs';

const [base, artifacts, name, watcher, password, game, view] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const [vw, vh] = view.split('x').map(Number);
const out = { errors: [], pages: {} };

const browser = await launch();
const shape = (page) => page.evaluate(() => {
  const t = window.warren.term;
  const b = t.buffer.active;
  const said = [];
  let told = false;
  for (let i = 0; i < t.rows; i++) {
    const line = b.getLine(i)?.translateToString(true) ?? '';
    const m = /size (\d+x\d+)/.exec(line);
    if (m) said.push(m[1]);
    if (line.includes('needs a terminal')) told = true;
  }
  return { cols: t.cols, rows: t.rows, font: t.options.fontSize, said, told,
    meta: document.querySelector('meta[name="warren-min-size"]')?.content ?? null };
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
const open = async (who, path) => {
  const ctx = await browser.newContext({ viewport: { width: vw, height: vh } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => out.errors.push(e.message));
  await page.goto(`${base}/register?next=/`);
  await page.fill('input[name=name]', who);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/?welcome=1`), page.click('button[type=submit]')]);
  await page.goto(`${base}${path}`);
  await page.waitForFunction(() => window.warren && window.warren.state.connected, null, { timeout: 15000 });
  return page;
};

try {
  for (const [page, key] of [[await open(name, `/play/${game}`), 'play'], [null, 'watch']]) {
    const p = page || await open(watcher, `/watch/${name}`);
    await waitText(p, 'size ').catch(() => {}); // told instead: the shape says so
    await settle(p);
    out.pages[key] = await shape(p);
    await p.screenshot({ path: `${artifacts}/desktop-size-${game}-${key}.png` });
  }
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
}
await finish(browser, out);
