// Drives Debian's Chromium (playwright-core, never a downloaded browser)
// against the real warrend: registers through the form, plays keys on /play,
// reloads and resumes, watches from a second browser context, chats, and
// hands the game to and from a telnet client that the Python test drives.
//   node tests/web/daemon.mjs BASE_URL ARTIFACT_DIR NAME PASSWORD
// Steps that need the telnet side print "STEP name" and wait for one line
// on stdin. The last line printed is one JSON object with what it saw.
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { finish, launch, termLines as lines, waitText } from './chromium.mjs';

const [base, artifacts, name, password] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const out = { errors: [] };
const stdin = createInterface({ input: process.stdin });
const inbox = [];
let waiter = null;
stdin.on('line', (l) => { if (waiter) { const w = waiter; waiter = null; w(l); } else inbox.push(l); });
const step = (what) => {
  console.log(`STEP ${what}`);
  return inbox.length ? Promise.resolve(inbox.shift()) : new Promise((r) => { waiter = r; });
};

const browser = await launch();

// Waits until no frame has come for 400 ms: every key typed so far is answered.
const settle = async (page) => {
  for (let i = 0; i < 50; i++) {
    const f0 = await page.evaluate(() => window.warren.state.frames);
    await page.waitForTimeout(400);
    if (f0 === await page.evaluate(() => window.warren.state.frames)) return;
  }
};
const turnOf = (ls) => {
  for (const l of ls) { const m = l.match(/Turn (\d+)/); if (m) return Number(m[1]); }
  return -1;
};
const atOf = (ls) => {
  for (let y = 0; y < ls.length; y++) { const x = ls[y].indexOf('@'); if (x >= 0) return [x, y]; }
  return null;
};
const watch = (page, tag) => {
  page.on('pageerror', (e) => out.errors.push(`${tag}: ${e.message}`));
  page.on('console', (m) => {
    // the reconnect attempts made while offline (the blip below) fail, as they should
    if (m.type() === 'error' && !m.text().includes('ERR_INTERNET_DISCONNECTED')) {
      out.errors.push(`${tag} console: ${m.text()}`);
    }
  });
};

let shown = null; // the page whose screen a failure reports
try {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const page = await ctx.newPage();
  shown = page;
  watch(page, 'play');
  // --- register with the plain form; it leads to /play
  await page.goto(`${base}/register?next=/play`);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await Promise.all([page.waitForURL(`${base}/play?welcome=1`), page.click('button[type=submit]')]);
  out.cookieFlags = (await ctx.cookies()).filter((c) => c.name === 'warren_session')
    .map((c) => ({ httpOnly: c.httpOnly, sameSite: c.sameSite }));
  out.cookieFromScript = await page.evaluate(() => document.cookie);
  // the turn counter on (off by default): the steps below compare turns
  await page.goto(`${base}/options`);
  await page.check('input[name=turns][value="1"]');
  await Promise.all([page.waitForSelector('#msg'),
    page.click('form[action="/options"] button[type=submit]')]);
  await page.goto(`${base}/play`);
  // a new game opens on the character screen: any key but a-d picks at random
  await waitText(page, 'who are you');
  await page.locator('#term').click();
  await page.keyboard.type('*');
  await waitText(page, `${name} the`);
  const first = await lines(page);
  out.before = atOf(first);
  out.turnBefore = turnOf(first);
  // --- keys move the '@': try each direction until the map changes
  await page.locator('#term').click();
  for (const k of 'lhjkyubn') {
    await page.keyboard.type(k);
    await page.waitForTimeout(150);
    const ls = await lines(page);
    const at = atOf(ls);
    if (at && (at[0] !== out.before[0] || at[1] !== out.before[1])) break;
  }
  // three turns of waiting; a --More-- the moves left is paged first
  for (let i = 0; i < 30 && turnOf(await lines(page)) < out.turnBefore + 3; i++) {
    const more = (await lines(page)).some((l) => l.includes('--More--'));
    await page.keyboard.type(more ? ' ' : '.');
    await page.waitForTimeout(100);
  }
  await page.waitForFunction((t) => {
    const b = window.warren.term.buffer.active;
    for (let i = 0; i < window.warren.term.rows; i++) {
      const m = (b.getLine(i)?.translateToString(true) ?? '').match(/Turn (\d+)/);
      if (m) return Number(m[1]) >= t + 3;
    }
    return false;
  }, out.turnBefore, { timeout: 10000 });
  await settle(page);
  const after = await lines(page);
  out.after = atOf(after);
  out.turnAfter = turnOf(after);
  out.size = await page.evaluate(() => [window.warren.term.cols, window.warren.term.rows]);
  await page.locator('#term').screenshot({ path: `${artifacts}/daemon-play-term.png` });
  await page.screenshot({ path: `${artifacts}/daemon-play.png` });

  // --- reload: the same game at the same turn
  await page.reload();
  await waitText(page, `Turn ${out.turnAfter}`);
  await settle(page); // the terminal fits its box, then the game redraws at that size
  out.turnReloaded = turnOf(await lines(page));
  out.atReloaded = atOf(await lines(page));
  out.sizeReloaded = await page.evaluate(() => [window.warren.term.cols, window.warren.term.rows]);

  // --- a network blip: the page reconnects by itself, same game, same turn
  await ctx.setOffline(true);
  await page.evaluate(() => window.warren.ws && window.warren.ws.close(4000, 'blip'));
  await page.waitForFunction(() => !window.warren.state.connected, null, { timeout: 10000 });
  await page.waitForTimeout(300);
  await ctx.setOffline(false);
  await page.waitForFunction(() => window.warren.state.connected && window.warren.state.reconnects >= 1,
    null, { timeout: 20000 });
  await waitText(page, `Turn ${out.turnAfter}`);
  out.blipReconnects = await page.evaluate(() => window.warren.state.reconnects);

  // --- a second browser context watches the same game
  const wctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const wpage = await wctx.newPage();
  watch(wpage, 'watch');
  await wpage.goto(`${base}/watch/${name}`);
  await waitText(wpage, `Turn ${out.turnAfter}`);
  await waitText(page, '[1 watching]');
  await page.locator('#term').click();
  await page.keyboard.type('.');
  await waitText(page, `Turn ${out.turnAfter + 1}`);
  await waitText(wpage, `Turn ${out.turnAfter + 1}`);
  await settle(page);
  await settle(wpage);
  await wpage.waitForFunction(() => document.getElementById('watchers').textContent === '1 watching',
    null, { timeout: 5000 });
  const pl = await lines(page), wl = await lines(wpage);
  out.playLines = pl;
  out.watchSame = pl.slice(0, out.size[1]).every((l, i) => (wl[i] ?? '').slice(0, out.size[0]).trimEnd() === l.trimEnd());
  out.watchersText = await wpage.locator('#watchers').textContent();
  await wpage.screenshot({ path: `${artifacts}/daemon-watch.png` });

  // --- chat: the anonymous watcher cannot, the player can; markup stays text
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
  wpage.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
  out.watcherChatDisabled = await wpage.locator('#chat input').isDisabled();
  await page.fill('#chat input', '<img src=x onerror=alert(1)> hello');
  await page.press('#chat input', 'Enter');
  await wpage.waitForSelector('#chat li', { timeout: 10000 });
  out.chatSeen = await wpage.locator('#chat li').first().textContent();
  out.chatImgs = await wpage.locator('#chat img').count() + await page.locator('#chat img').count();
  await page.waitForTimeout(200);
  out.dialogs = dialogs;
  // --- the player turns chat off: each side is told once, in its own words
  const note = (p) => p.locator('#chat .chat-note').textContent();
  await page.locator('#chat-on').uncheck();
  for (const p of [page, wpage]) {
    await p.waitForFunction(() => document.querySelector('#chat .chat-note').textContent !== '',
      null, { timeout: 10000 });
  }
  out.chatOffNotes = { play: await note(page), watch: await note(wpage),
    playInput: await page.locator('#chat input').isDisabled() };
  await page.locator('#chat-on').check();
  await wpage.waitForFunction(() => document.querySelector('#chat .chat-note').textContent === '',
    null, { timeout: 10000 });

  // --- the lobby lists the game with a preview: its screen as text, small but readable
  const lp = await wctx.newPage();
  watch(lp, 'lobby');
  await lp.goto(`${base}/`);
  await lp.waitForSelector(`#games a[href="/watch/${name}/warren"]`, { timeout: 10000 });
  await lp.waitForFunction((n) => (document.querySelector('#previews pre')?.textContent ?? '').includes(`${n} the`),
    name, { timeout: 10000 });
  out.preview = await lp.evaluate(() => {
    const pre = document.querySelector('#previews pre');
    const r = pre.getBoundingClientRect();
    return { text: pre.textContent, font: parseFloat(getComputedStyle(pre).fontSize),
      rows: pre.textContent.split('\n').length - 1, w: r.width, h: r.height,
      href: pre.closest('a').getAttribute('href') };
  });
  await lp.locator('#previews figure').first().screenshot({ path: `${artifacts}/daemon-preview.png` });
  out.lobbyRow = await lp.locator('#games tr').first().textContent();
  await lp.screenshot({ path: `${artifacts}/daemon-lobby.png` });

  // --- telnet takes the game: the browser is told and sent to the lobby
  await step('telnet-take');
  await page.waitForURL(`${base}/`, { timeout: 15000 });
  await page.waitForSelector('#notice:not(:empty)', { timeout: 5000 });
  out.takenNotice = await page.locator('#notice').textContent();
  // --- the browser takes it back: telnet goes back to its menu
  await page.goto(`${base}/play`);
  await waitText(page, `${name} the`);
  out.takenBackTurn = turnOf(await lines(page));
  await step('browser-took');
  await page.screenshot({ path: `${artifacts}/daemon-takeback.png` });
  // --- the game ends in the browser: the lobby shows the last words, with
  // a link to the game's page
  await page.keyboard.press('Escape');
  await page.keyboard.type('Q');
  await waitText(page, 'Really quit');
  await page.keyboard.type('y');
  await page.waitForURL(`${base}/`, { timeout: 15000 });
  await page.waitForSelector('#notice a', { timeout: 5000 });
  out.endNotice = await page.locator('#notice').innerText();
  out.endLink = await page.locator('#notice a').getAttribute('href');
  await page.screenshot({ path: `${artifacts}/daemon-gameover.png` });
} catch (e) {
  out.errors.push(`fatal: ${e.stack || e}`);
  if (shown) out.errors.push(`screen:\n${(await lines(shown).catch(() => [])).join('\n')}`);
}
await finish(browser, out);
