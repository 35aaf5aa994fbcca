// A terminal bound to a websocket: ANSI frames in (binary messages), key
// bytes out (binary), size changes out ({"t":"resize"}), JSON notices in
// (text). Reconnects with backoff after the connection drops.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import './style.css';
import { wsUrl } from './ws.js';

const enc = new TextEncoder();
const FONT = 15;     // the font size a desktop window starts from
const MIN_FONT = 4;
const LEGIBLE_FONT = 10; // a desktop shrinks no further for a game's min-size
const MAX_FONT = 32;
const MIN_COLS = 80; // the game needs at least 80x24
const MIN_ROWS = 24;
const MAX_COLS = 160; // past this a big window gets a bigger font, not more cells

export { wsUrl };

// Opens a terminal in `el` talking to websocket `path`.
// opts.readOnly: watchers do not type into the game.
// opts.onNotice(msg): JSON text messages from the server.
// opts.onState(text): connection state for the status line.
// The terminal always fills `el`: a player's is as many cells as fit at a
// font between MIN_FONT and MAX_FONT (at least 80x24, at most about 160
// columns); a watcher's is the game's size (setGameSize) at the largest
// font that fits, centred.
// opts.programSize: [w, h], a hosted program's terminal on a phone
// (NetHack lays out for 80x24 and leaves the rest blank; Crawl uses more
// rows): on a screen where 80x24 do not fit at the starting font (a
// phone) it is exactly w x h, as large as fits, and the page gets the
// class `fitted` (the key row takes the rest).
// opts.minSize: [w, h], a hosted game's min-size (80x24 without one): a
// desktop window where it does not fit at the starting font gets a
// smaller one, down to LEGIBLE_FONT, until it does.
export function openTerminal(el, path, opts = {}) {
  const term = new Terminal({
    cursorBlink: !opts.readOnly,
    disableStdin: !!opts.readOnly,
    fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace',
    fontSize: FONT,
    scrollback: 0,
    theme: { background: '#000000', foreground: '#d0d0d0' },
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(el);
  // [w, h] a watcher shows (80x24 until the game says its size), null: as
  // many cells as fit
  let game = opts.readOnly ? [MIN_COLS, MIN_ROWS] : null;

  // Cells that fit in el at font size f (the fit addon's proposal).
  const cellsAt = (f) => {
    if (term.options.fontSize !== f) term.options.fontSize = f;
    return fit.proposeDimensions() || { cols: 0, rows: 0 };
  };
  const clampFont = (f) => Math.max(MIN_FONT, Math.min(MAX_FONT, Math.floor(f)));
  // The largest font at which w x h cells fit, from a first guess down.
  const fontFor = (w, h) => {
    const at = cellsAt(FONT);
    if (!at.cols || !at.rows) return FONT;
    let f = clampFont(FONT * Math.min(at.cols / w, at.rows / h));
    for (let d = cellsAt(f); f > MIN_FONT && (d.cols < w || d.rows < h); d = cellsAt(f)) f--;
    for (let d = cellsAt(f + 1); f < MAX_FONT && d.cols >= w && d.rows >= h; d = cellsAt(f + 1)) f++;
    return f;
  };
  const fitSize = (w, h) => {
    term.options.fontSize = fontFor(w, h);
    if (term.cols !== w || term.rows !== h) term.resize(w, h);
  };
  const need = opts.minSize || [MIN_COLS, MIN_ROWS];
  // The font of a terminal below the game's size at FONT: small enough for
  // 80x24 (a phone's however small), and for a larger min-size as small as
  // it takes but not below LEGIBLE_FONT.
  const shrunkFont = () => {
    const f = fontFor(MIN_COLS, MIN_ROWS);
    if (need[0] <= MIN_COLS && need[1] <= MIN_ROWS) return f;
    return Math.min(f, Math.max(LEGIBLE_FONT, fontFor(need[0], need[1])));
  };
  // Fits the terminal to el; true when it is a program's size on a small
  // screen (el may then shrink to it).
  const fitTerm = () => {
    if (game) {
      fitSize(game[0], game[1]);
      return false;
    }
    const at = cellsAt(FONT);
    if (opts.programSize && (at.cols < MIN_COLS || at.rows < MIN_ROWS)) {
      fitSize(opts.programSize[0], opts.programSize[1]);
      return true;
    }
    // small screens (phones): shrink until 80x24 fit, and a desktop until
    // the game's min-size does; big ones: grow past 160 columns
    const [w, h] = need;
    const most = Math.max(MAX_COLS, w);
    let f = at.cols < w || at.rows < h ? shrunkFont()
      : at.cols > most ? Math.min(fontFor(w, h), clampFont(FONT * at.cols / most))
        : FONT;
    term.options.fontSize = f;
    fit.fit();
    return false;
  };
  // The cells are whole pixels of a font, so a box between two font sizes,
  // or one that changed since the fit, may leave the screen a little too
  // big: scale it down to fit, so no row is ever cut off.
  const scaleToBox = () => {
    const scr = el.querySelector('.xterm-screen');
    if (!scr || !term.element) return;
    term.element.style.transform = '';
    const s = Math.min(1, el.clientWidth / scr.offsetWidth, el.clientHeight / scr.offsetHeight);
    if (s > 0 && s < 1) term.element.style.transform = `scale(${s})`;
  };
  // Measured in the page's own layout each time (synchronously: no frame
  // shows it), then a program's terminal on a small screen gets a box of
  // its height, so what is below it (the key row) takes the rest.
  const refit = () => {
    document.body.classList.remove('fitted');
    el.style.height = '';
    if (fitTerm()) {
      const scr = el.querySelector('.xterm-screen');
      if (scr && scr.offsetHeight > 0 && scr.offsetHeight < el.clientHeight) {
        el.style.height = `${scr.offsetHeight}px`;
        document.body.classList.add('fitted');
      }
    }
    scaleToBox();
  };
  refit();

  let ws = null;
  let retry = 0;
  let closedByServer = false;
  let ctrlArmed = false;
  const state = { connected: false, frames: 0, reconnects: 0 };

  const setState = (s) => opts.onState && opts.onState(s);
  const sendJson = (o) => { if (ws && ws.readyState === 1) ws.send(JSON.stringify(o)); };
  const sendSize = () => sendJson({ t: 'resize', w: term.cols, h: term.rows });
  const sendKeys = (s) => { if (ws && ws.readyState === 1) ws.send(enc.encode(s)); };

  function connect() {
    setState(retry ? 'reconnecting…' : 'connecting…');
    // the size rides in the address too: a hosted program starts at it
    ws = new WebSocket(wsUrl(`${path}?w=${term.cols}&h=${term.rows}`));
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      retry = 0;
      state.connected = true;
      setState('connected');
      term.reset();
      sendSize();
      if (!opts.readOnly) term.focus();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') {
        let msg;
        try { msg = JSON.parse(ev.data); } catch { return; }
        if (opts.onNotice) opts.onNotice(msg);
        return;
      }
      state.frames++;
      term.write(new Uint8Array(ev.data));
    };
    ws.onclose = (ev) => {
      state.connected = false;
      // 1000 (done) and 1008 (refused) are answers, not blips: do not retry.
      if (ev.code === 1000 || ev.code === 1008 || closedByServer) {
        setState(ev.reason || 'disconnected');
        return;
      }
      const delay = Math.min(10000, 250 * 2 ** retry);
      retry++;
      state.reconnects++;
      setState(`connection lost; retrying in ${Math.round(delay / 100) / 10}s`);
      setTimeout(connect, delay);
    };
  }

  term.onData((data) => {
    if (opts.readOnly) return;
    if (ctrlArmed && data.length === 1) {
      const c = data.toUpperCase().charCodeAt(0);
      if (c >= 0x40 && c <= 0x5f) data = String.fromCharCode(c & 0x1f);
      ctrlArmed = false;
      if (opts.onCtrl) opts.onCtrl(false);
    }
    sendKeys(data);
  });
  term.onResize(() => sendSize());
  // Refit when the box changes, not only the window: a header that wraps
  // or a key row that appears shrinks the box with no window resize.
  let resizeTimer = null;
  const later = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(refit, 80);
  };
  window.addEventListener('resize', later);
  if (window.ResizeObserver) new ResizeObserver(later).observe(el);

  connect();
  return {
    term,
    state,
    send: sendKeys,
    sendJson,
    armCtrl(on) { ctrlArmed = on; },
    get ctrlArmed() { return ctrlArmed; },
    get ws() { return ws; }, // the current socket (tests drop it to fake a blip)
    fit: refit,
    // A watcher's terminal takes the game's size; the font scales to fill.
    setGameSize(w, h) {
      if (!(w > 0 && h > 0) || (game && game[0] === w && game[1] === h)) return;
      game = [w, h];
      refit();
    },
  };
}

// The on-screen key row for phones: Esc, Ctrl (sticky), Tab, arrows, Enter.
// Warren's game reads the arrows' escape sequences; a hosted game gets
// h j k l instead (opts.viKeys), the moves NetHack's tty (which reads
// ESC [ D as Esc, '[', 'D') and Crawl both take.
const KEYS = [
  ['Esc', '\x1b'], ['Ctrl', null], ['Tab', '\t'],
  ['\u2190', '\x1b[D', 'h'], ['\u2191', '\x1b[A', 'k'], ['\u2193', '\x1b[B', 'j'],
  ['\u2192', '\x1b[C', 'l'], ['Enter', '\r'],
];

export function keyRow(el, t, opts = {}) {
  for (const [label, ansi, vi] of KEYS) {
    const seq = opts.viKeys && vi ? vi : ansi;
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.key = label;
    b.addEventListener('click', (ev) => {
      ev.preventDefault();
      if (seq === null) {
        t.armCtrl(!t.ctrlArmed);
        b.classList.toggle('armed', t.ctrlArmed);
      } else {
        t.send(seq);
      }
      t.term.focus();
    });
    // a key typed after Ctrl disarms it (term.onData, above): show that
    if (seq === null) t.term.onData(() => b.classList.toggle('armed', t.ctrlArmed));
    el.appendChild(b);
  }
}
