// The lobby: live games pushed over /ws/lobby as {"t":"lobby","games":[...]}.
// Every field is put in with textContent, so names can never become markup.
import { wsUrl } from './ws.js';
import './style.css';

const body = document.getElementById('games');
const status = document.getElementById('status');
const user = document.getElementById('user');
const previews = document.getElementById('previews');
const notice = document.getElementById('notice');
try {
  const n = sessionStorage.getItem('warren.notice');
  if (n) { notice.textContent = n; sessionStorage.removeItem('warren.notice'); }
} catch { /* private mode */ }

// Who is logged in: links to log in and register, or a log-out form.
function showUser(name) {
  user.replaceChildren();
  if (typeof name === 'string') {
    user.append(`${name} · `);
    const f = document.createElement('form');
    f.method = 'post';
    f.action = '/logout';
    const b = document.createElement('button');
    b.type = 'submit';
    b.textContent = 'Log out';
    f.append(b);
    user.append(f);
    return;
  }
  for (const [href, text] of [['/login', 'Log in'], ['/register', 'Register']]) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    user.append(a, ' ');
  }
}

// Small live pictures of the games, drawn from JSON keyframes: one 2x3
// pixel block per cell that is not blank, in its foreground colour.
const PALETTE16 = ['#000', '#a00', '#0a0', '#a50', '#00a', '#a0a', '#0aa', '#aaa',
  '#555', '#f55', '#5f5', '#ff5', '#55f', '#f5f', '#5ff', '#fff'];
function colour(n) {
  if (n < 0) return '#bbb';
  if (n < 16) return PALETTE16[n];
  if (n >= 232) { const v = 8 + (n - 232) * 10; return `rgb(${v},${v},${v})`; }
  const i = n - 16; const c = (x) => (x ? 55 + x * 40 : 0);
  return `rgb(${c(Math.floor(i / 36))},${c(Math.floor(i / 6) % 6)},${c(i % 6)})`;
}
const canvases = new Map();
function drawPreview(name, f) {
  if (typeof name !== 'string' || !f || !Array.isArray(f.runs)) return;
  let fig = canvases.get(name);
  if (!fig) {
    fig = document.createElement('figure');
    const a = document.createElement('a');
    a.href = `/watch/${encodeURIComponent(name)}`;
    const cv = document.createElement('canvas');
    a.append(cv);
    const cap = document.createElement('figcaption');
    cap.textContent = name;
    fig.append(a, cap);
    previews.append(fig);
    canvases.set(name, fig);
  }
  const cv = fig.querySelector('canvas');
  const W = Math.min(f.w | 0, 200), H = Math.min(f.h | 0, 100);
  cv.width = W * 2; cv.height = H * 3;
  const g = cv.getContext('2d');
  g.fillStyle = '#000';
  g.fillRect(0, 0, cv.width, cv.height);
  for (const r of f.runs) {
    const [y, x, text, fg] = r;
    if (typeof text !== 'string') continue;
    g.fillStyle = colour(fg);
    let i = 0;
    for (const ch of text) {
      if (ch !== ' ') g.fillRect((x + i) * 2, y * 3, 2, 3);
      i++;
    }
  }
}
function prunePreviews(games) {
  const live = new Set(games.map((g) => String(g.name)));
  for (const [name, fig] of canvases) if (!live.has(name)) { fig.remove(); canvases.delete(name); }
}
const COLS = ['name', 'race', 'class', 'depth', 'turn', 'idle', 'watchers', 'size'];

function fmtIdle(s) {
  if (!Number.isFinite(s)) return '';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h`;
}

function cell(tr, text) {
  const td = document.createElement('td');
  td.textContent = text == null ? '' : String(text);
  tr.appendChild(td);
  return td;
}

function render(games) {
  body.replaceChildren();
  if (!games.length) {
    const tr = document.createElement('tr');
    const td = cell(tr, 'No games right now.');
    td.colSpan = COLS.length + 1;
    body.appendChild(tr);
    return;
  }
  for (const g of games) {
    const tr = document.createElement('tr');
    cell(tr, g.name);
    const hosted = g.game && g.game !== 'warren';
    cell(tr, hosted ? g.game_name : g.race); // a hosted game shows its name
    cell(tr, hosted ? '' : g.class);
    cell(tr, g.depth);
    cell(tr, g.turn);
    cell(tr, fmtIdle(g.idle));
    cell(tr, g.watchers);
    cell(tr, g.w && g.h ? `${g.w}x${g.h}` : '');
    const a = document.createElement('a');
    a.href = `/watch/${encodeURIComponent(String(g.name))}`;
    a.textContent = 'watch';
    const td = document.createElement('td');
    td.appendChild(a);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

// one Play link per hosted game ([game ID] of the server's config)
function playLinks(hosted) {
  const nav = document.querySelector('header nav');
  for (const a of nav.querySelectorAll('a.hosted')) a.remove();
  for (const h of hosted) {
    const a = document.createElement('a');
    a.className = 'hosted';
    a.href = `/play/${encodeURIComponent(String(h.id))}`;
    a.textContent = `Play ${h.name}`;
    nav.insertBefore(a, nav.querySelector('a[href="/scores"]'));
  }
}

let retry = 0;
function connect() {
  const ws = new WebSocket(wsUrl('/ws/lobby'));
  ws.onopen = () => { retry = 0; status.textContent = 'live'; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return;
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.t === 'lobby' && Array.isArray(m.games)) { render(m.games); prunePreviews(m.games); }
    if (m.t === 'lobby' && Array.isArray(m.hosted)) playLinks(m.hosted);
    if (m.t === 'preview') drawPreview(m.name, m.frame);
    if (m.t === 'hello') showUser(m.user);
  };
  ws.onclose = (ev) => {
    if (ev.code === 1008) { status.textContent = ev.reason || 'refused'; return; }
    const delay = Math.min(10000, 500 * 2 ** retry++);
    status.textContent = 'reconnecting…';
    setTimeout(connect, delay);
  };
}
connect();
