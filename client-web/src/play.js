import { openTerminal, keyRow } from './term.js';
import { chatPanel } from './chat.js';
import { showNotice } from './notice.js';

const status = document.getElementById('status');
const watchers = document.getElementById('watchers');
const chatOn = document.getElementById('chat-on');
// /play/ID is a hosted game (NetHack, Crawl): its arrows are h j k l, and
// on a phone its terminal is the size it lays out for (the section's
// phone-size, which the server puts in a meta element; 80x24 without
// one); /play/daily is Warren's
const warrens = ['/play/warren', '/play/daily'];
const hosted = /^\/play\/./.test(location.pathname) && !warrens.includes(location.pathname);
// its min-size, in another, is the least a desktop's font shrinks for
const sizeMeta = (name) => {
  const m = /^(\d+)x(\d+)$/.exec(document.querySelector(`meta[name="${name}"]`)?.content || '');
  return m ? [Number(m[1]), Number(m[2])] : [80, 24];
};
let t = null;
const chat = chatPanel(document.getElementById('chat'), (o) => t.sendJson(o), { player: true });

t = openTerminal(document.getElementById('term'), '/ws' + location.pathname, { // /play or /play/GAME
  programSize: hosted && sizeMeta('warren-phone-size'),
  minSize: hosted && sizeMeta('warren-min-size'),
  onState: (s) => { status.textContent = s; },
  onNotice: (m) => {
    if (chat.onMessage(m)) return;
    if (m.t === 'hello') chat.setUser(m.user);
    if (m.t === 'status' && typeof m.text === 'string') status.textContent = m.text;
    if (m.t === 'watchers' && Number.isInteger(m.n)) {
      watchers.textContent = `${m.n} watching`;
      chatOn.checked = m.chat !== false;
      chat.setOn(m.chat !== false);
    }
    if (m.t === 'chat_state') { chatOn.checked = !!m.on; chat.setOn(!!m.on); }
    if (m.t === 'login') location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
    if (m.t === 'left' && typeof m.text === 'string') {
      // the game went elsewhere (taken over, ended, saved): back to the lobby
      status.textContent = m.text;
      showNotice(document.getElementById('notice'), m.text);
      try { sessionStorage.setItem('warren.notice', m.text); } catch { /* private mode */ }
      setTimeout(() => { location.href = '/'; }, 1500);
    }
  },
});
chatOn.addEventListener('change', () => t.sendJson({ t: 'chat_off', off: !chatOn.checked }));
keyRow(document.getElementById('keys'), t, { viKeys: hosted });
window.warren = t; // tests read the terminal buffer through this
