import { openTerminal } from './term.js';

const name = decodeURIComponent(location.pathname.split('/')[2] || '');
const status = document.getElementById('status');
document.getElementById('who').textContent = name;
const t = openTerminal(document.getElementById('term'), `/ws/watch/${encodeURIComponent(name)}`, {
  readOnly: true,
  onState: (s) => { status.textContent = s; },
  onNotice: (m) => {
    if (m.t === 'status' && typeof m.text === 'string') status.textContent = m.text;
    if (m.t === 'watchers' && Number.isInteger(m.n)) {
      document.getElementById('watchers').textContent = `${m.n} watching`;
    }
  },
});
window.warren = t;
