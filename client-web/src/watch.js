import { openTerminal } from './term.js';
import { chatPanel } from './chat.js';
import { showNotice } from './notice.js';

const name = decodeURIComponent(location.pathname.split('/')[2] || '');
const status = document.getElementById('status');
document.getElementById('who').textContent = name;
let t = null;
const chat = chatPanel(document.getElementById('chat'), (o) => t.sendJson(o));
t = openTerminal(document.getElementById('term'), `/ws/watch/${encodeURIComponent(name)}`, {
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
