// The lobby: live games pushed over /ws/lobby as {"t":"lobby","games":[...]}.
// Every field is put in with textContent, so names can never become markup.
import { wsUrl } from './ws.js';
import { showNotice } from './notice.js';
import './style.css';

const body = document.getElementById('games');
const status = document.getElementById('status');
const previews = document.getElementById('previews');
const notice = document.getElementById('notice');
try {
  const n = sessionStorage.getItem('warren.notice');
  if (n) { showNotice(notice, n); sessionStorage.removeItem('warren.notice'); }
} catch { /* private mode */ }

// Small live pictures of the games, drawn from JSON keyframes as the real
// text at a small font: a <pre> of the game's screen, one span per run of
// cells in the same colours, every character put in as text.
const PALETTE16 = ['#000', '#a00', '#0a0', '#a50', '#00a', '#a0a', '#0aa', '#aaa',
  '#555', '#f55', '#5f5', '#ff5', '#55f', '#f5f', '#5ff', '#fff'];
function colour(n) {
  if (n < 0) return '#bbb';
  if (n < 16) return PALETTE16[n];
  if (n >= 232) { const v = 8 + (n - 232) * 10; return `rgb(${v},${v},${v})`; }
  const i = n - 16; const c = (x) => (x ? 55 + x * 40 : 0);
  return `rgb(${c(Math.floor(i / 36))},${c(Math.floor(i / 6) % 6)},${c(i % 6)})`;
}
// keyed by player and game: a player may be live in two
const figures = new Map();
const figKey = (name, game) => `${name}/${game || 'warren'}`;
function previewFigure(name, game) {
  let fig = figures.get(figKey(name, game));
  if (fig) return fig;
  fig = document.createElement('figure');
  const a = document.createElement('a');
  a.href = game ? `/watch/${encodeURIComponent(name)}/${encodeURIComponent(game)}`
    : `/watch/${encodeURIComponent(name)}`;
  a.title = `watch ${name}`;
  const pre = document.createElement('pre');
  pre.setAttribute('aria-label', `${name}'s screen`);
  a.append(pre);
  const cap = document.createElement('figcaption');
  cap.textContent = name;
  fig.append(a, cap);
  previews.append(fig);
  figures.set(figKey(name, game), fig);
  return fig;
}
// A w x h grid of [char, fg, bg, attr] from a keyframe's runs.
function gridOf(f) {
  const W = Math.min(f.w | 0, 400), H = Math.min(f.h | 0, 200);
  const rows = Array.from({ length: H }, () => Array.from({ length: W }, () => [' ', -1, -1, 0]));
  for (const r of f.runs) {
    const [y, x, text, fg, bg, attr] = r;
    if (typeof text !== 'string' || !(y >= 0 && y < H)) continue;
    let i = x | 0;
    for (const ch of text) {
      if (i >= 0 && i < W) rows[y][i] = [ch, fg | 0, bg | 0, attr | 0];
      i++;
    }
  }
  return rows;
}
function styleKey(c) { return `${c[1]},${c[2]},${c[3]}`; }
function span(cell, text) {
  const s = document.createElement('span');
  let [, fg, bg, attr] = cell;
  if (attr & 8) [fg, bg] = [bg < 0 ? 0 : bg, fg < 0 ? 7 : fg]; // reverse
  if (fg >= 0) s.style.color = colour(fg);
  if (bg >= 0) s.style.backgroundColor = colour(bg);
  s.className = [attr & 1 ? 'b' : '', attr & 2 ? 'd' : '', attr & 4 ? 'u' : ''].join(' ').trim();
  s.textContent = text;
  return s;
}
function drawPreview(name, game, f) {
  if (typeof name !== 'string' || !f || !Array.isArray(f.runs)) return;
  const pre = previewFigure(name, typeof game === 'string' ? game : '').querySelector('pre');
  const out = [];
  for (const row of gridOf(f)) {
    let run = '', at = row[0];
    for (const c of row) {
      if (styleKey(c) !== styleKey(at)) { out.push(span(at, run)); run = ''; at = c; }
      run += c[0];
    }
    out.push(span(at, run + '\n'));
  }
  pre.replaceChildren(...out);
}
function prunePreviews(games) {
  const live = new Set(games.map((g) => figKey(String(g.name), g.game)));
  for (const [key, fig] of figures) if (!live.has(key)) { fig.remove(); figures.delete(key); }
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

// more: live games the list leaves out (it shows the most watched 100)
function render(games, more) {
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
    cell(tr, g.detached ? 'detached' : g.w && g.h ? `${g.w}x${g.h}` : '');
    const a = document.createElement('a'); // the game too: a player may be live in two
    a.href = `/watch/${encodeURIComponent(String(g.name))}/${encodeURIComponent(String(g.game || 'warren'))}`;
    a.textContent = 'watch';
    const td = document.createElement('td');
    td.appendChild(a);
    tr.appendChild(td);
    body.appendChild(tr);
  }
  if (more > 0) {
    const tr = document.createElement('tr');
    tr.className = 'more';
    const td = cell(tr, `and ${more} more games`);
    td.colSpan = COLS.length + 1;
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

// A Copy button beside each way to connect (the server's lines).
for (const input of document.querySelectorAll('#connect input.copy')) {
  input.addEventListener('focus', () => input.select());
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = 'Copy';
  b.addEventListener('click', async () => {
    input.select();
    try { await navigator.clipboard.writeText(input.value); b.textContent = 'Copied'; } catch { b.textContent = 'Select and copy'; }
  });
  input.after(' ', b);
}

// The feed of recent ends below the games, read again every FEED_POLL_MS
// from /api/feed, so a death or a win shows without a reload. The server
// writes its list (names escaped there); a hidden tab does not ask.
const FEED_POLL_MS = 15000;
const feed = document.getElementById('feed');
let feedHtml = null;
async function refreshFeed() {
  if (!feed || document.hidden) return;
  try {
    const r = await fetch('/api/feed', { cache: 'no-store' });
    const { html } = r.ok ? await r.json() : {};
    if (typeof html !== 'string' || html === feedHtml) return;
    feedHtml = html;
    const doc = new DOMParser().parseFromString(html, 'text/html');
    feed.replaceChildren(...[...feed.children].filter((e) => e.tagName === 'H2'),
      ...doc.body.childNodes);
  } catch { /* offline or a bad answer: the next round asks again */ }
}
setInterval(refreshFeed, FEED_POLL_MS);
document.addEventListener('visibilitychange', refreshFeed);

let retry = 0;
function connect() {
  const ws = new WebSocket(wsUrl('/ws/lobby'));
  ws.onopen = () => { retry = 0; status.textContent = 'live'; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return;
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.t === 'lobby' && Array.isArray(m.games)) {
      render(m.games, Number(m.more) || 0);
      prunePreviews(m.games);
    }
    if (m.t === 'lobby' && Array.isArray(m.hosted)) playLinks(m.hosted);
    if (m.t === 'preview') drawPreview(m.name, m.game, m.frame);
  };
  ws.onclose = (ev) => {
    if (ev.code === 1008) { status.textContent = ev.reason || 'refused'; return; }
    const delay = Math.min(10000, 500 * 2 ** retry++);
    status.textContent = 'reconnecting…';
    setTimeout(connect, delay);
  };
}
connect();
