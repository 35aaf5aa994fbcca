import { openTerminal } from './term.js';
import { chatPanel } from './chat.js';
import { showNotice } from './notice.js';

// /watch/NAME (their game) or /watch/NAME/GAME (one of two they play)
const [, , rawName = '', rawGame = ''] = location.pathname.split('/');
const name = decodeURIComponent(rawName);
const game = decodeURIComponent(rawGame);
const status = document.getElementById('status');
document.getElementById('who').textContent = game ? `${name} (${game})` : name;
const wsPath = `/ws/watch/${encodeURIComponent(name)}${game ? `/${encodeURIComponent(game)}` : ''}`;
let t = null;
const chat = chatPanel(document.getElementById('chat'), (o) => t.sendJson(o));
t = openTerminal(document.getElementById('term'), wsPath, {
  readOnly: true,
  onState: (s) => { status.textContent = s; },
  onNotice: (m) => {
    if (chat.onMessage(m)) return;
    if (m.t === 'hello') chat.setUser(m.user);
    if (m.t === 'status' && typeof m.text === 'string') status.textContent = m.text;
    if (m.t === 'left' && typeof m.text === 'string') {
      status.textContent = m.text;
      showNotice(document.getElementById('notice'), m.text);
    }
    if (m.t === 'chat_state') chat.setOn(!!m.on);
    if (m.t === 'size' && Number.isInteger(m.w) && Number.isInteger(m.h)) t.setGameSize(m.w, m.h);
    if (m.t === 'watchers' && Number.isInteger(m.n)) {
      document.getElementById('watchers').textContent = `${m.n} watching`;
      chat.setOn(m.chat !== false);
    }
  },
});
window.warren = t;
