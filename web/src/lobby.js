// The lobby: live games pushed over /ws/lobby as {"t":"lobby","games":[...]}.
// Every field is put in with textContent, so names can never become markup.
import { wsUrl } from './ws.js';
import './style.css';

const body = document.getElementById('games');
const status = document.getElementById('status');
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
    cell(tr, g.race);
    cell(tr, g.class);
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

let retry = 0;
function connect() {
  const ws = new WebSocket(wsUrl('/ws/lobby'));
  ws.onopen = () => { retry = 0; status.textContent = 'live'; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return;
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.t === 'lobby' && Array.isArray(m.games)) render(m.games);
  };
  ws.onclose = (ev) => {
    if (ev.code === 1008) { status.textContent = ev.reason || 'refused'; return; }
    const delay = Math.min(10000, 500 * 2 ** retry++);
    status.textContent = 'reconnecting…';
    setTimeout(connect, delay);
  };
}
connect();
