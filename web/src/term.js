// A terminal bound to a websocket: ANSI frames in (binary messages), key
// bytes out (binary), size changes out ({"t":"resize"}), JSON notices in
// (text). Reconnects with backoff after the connection drops.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import './style.css';
import { wsUrl } from './ws.js';

const enc = new TextEncoder();
const FONT = 15;
const MIN_COLS = 80;

export { wsUrl };

// Opens a terminal in `el` talking to websocket `path`.
// opts.readOnly: watchers do not type into the game.
// opts.onNotice(msg): JSON text messages from the server.
// opts.onState(text): connection state for the status line.
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
  // The game needs 80 columns: on narrow screens (phones) the font shrinks
  // until 80 fit, rather than showing "please enlarge".
  const fitTerm = () => {
    if (term.options.fontSize !== FONT) term.options.fontSize = FONT;
    fit.fit();
    if (term.cols < MIN_COLS) {
      const size = Math.max(4, Math.floor((FONT * term.cols) / MIN_COLS));
      term.options.fontSize = size;
      fit.fit();
    }
  };
  fitTerm();

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
    ws = new WebSocket(wsUrl(path));
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
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(fitTerm, 80);
  });

  connect();
  return {
    term,
    state,
    send: sendKeys,
    sendJson,
    armCtrl(on) { ctrlArmed = on; },
    get ctrlArmed() { return ctrlArmed; },
    get ws() { return ws; }, // the current socket (tests drop it to fake a blip)
    fit: fitTerm,
  };
}

// The on-screen key row for phones: Esc, Ctrl (sticky), Tab, arrows, Enter.
const KEYS = [
  ['Esc', '\x1b'], ['Ctrl', null], ['Tab', '\t'],
  ['\u2190', '\x1b[D'], ['\u2191', '\x1b[A'], ['\u2193', '\x1b[B'], ['\u2192', '\x1b[C'],
  ['Enter', '\r'],
];

export function keyRow(el, t) {
  for (const [label, seq] of KEYS) {
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
    el.appendChild(b);
  }
}
