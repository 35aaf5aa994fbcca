// Spectator chat beside a terminal: lines arrive as {"t":"chat",...} and are
// put in with textContent only, so nothing anyone types becomes markup.
const MAX = 200;

export function chatPanel(el, sendJson) {
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
    setOn(on) {
      note.textContent = on ? '' : 'The player turned chat off.';
    },
    setUser(user) {
      input.disabled = btn.disabled = !user;
      input.placeholder = user ? 'Say something' : 'Log in to chat';
    },
  };
}
