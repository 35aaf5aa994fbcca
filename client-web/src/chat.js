// Spectator chat beside a terminal: lines arrive as {"t":"chat",...} and are
// put in with textContent only, so nothing anyone types becomes markup.
const MAX = 200;

// opts.player: the page of the game's own player, who may chat while the
// chat is off to watchers.
export function chatPanel(el, sendJson, opts = {}) {
  let user = false;
  let on = true;
  const list = document.createElement('ol');
  list.className = 'chat-lines';
  const form = document.createElement('form');
  const input = document.createElement('input');
  input.name = 'text';
  input.maxLength = MAX;
  input.placeholder = 'Say something (logged-in viewers)';
  input.autocomplete = 'off';
  const btn = document.createElement('button');
  btn.type = 'submit';
  btn.textContent = 'Send';
  form.append(input, btn);
  const note = document.createElement('div');
  note.className = 'chat-note';
  el.append(list, note, form);

  function line(who, text, cls) {
    const li = document.createElement('li');
    if (cls) li.className = cls;
    if (who) {
      const b = document.createElement('b');
      b.textContent = who;
      li.append(b, ' ');
    }
    li.append(document.createTextNode(text));
    list.append(li);
    while (list.children.length > 100) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    sendJson({ t: 'chat', text });
    input.value = '';
  });

  return {
    onMessage(m) {
      if (m.t === 'chat' && typeof m.from === 'string' && typeof m.text === 'string') {
        line(m.from + (m.player ? ' (player)' : '') + ':', m.text, m.player ? 'player' : '');
        return true;
      }
      if (m.t === 'chat_error' && typeof m.text === 'string') {
        line('', m.text, 'error');
        return true;
      }
      return false;
    },
    // off: the player is told what it means, a watcher that the player
    // did it (and cannot type a line only to be refused)
    setOn(isOn) {
      on = isOn;
      note.textContent = on ? '' : opts.player ? 'Chat is off: watchers cannot write here.'
        : 'The player turned chat off.';
      this.setUser(user);
    },
    setUser(u) {
      user = u;
      input.disabled = btn.disabled = !user || (!on && !opts.player);
      input.placeholder = !user ? 'Log in to chat' : input.disabled ? 'Chat is off' : 'Say something';
    },
  };
}
