import { openTerminal, keyRow } from './term.js';

const status = document.getElementById('status');
const t = openTerminal(document.getElementById('term'), '/ws/play', {
  onState: (s) => { status.textContent = s; },
  onNotice: (m) => {
    if (m.t === 'status' && typeof m.text === 'string') status.textContent = m.text;
    if (m.t === 'login') location.href = '/login?next=/play';
  },
});
const row = document.getElementById('keys');
keyRow(row, t);
window.warren = t; // tests read the terminal buffer through this
