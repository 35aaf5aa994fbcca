// A notice from the daemon (a game taken over, saved or ended) shown as
// text, line by line; the address of a game's page ("Its page: URL") becomes
// a link. Only text nodes and one <a> with an http(s) or local href are
// made, so nothing in a notice can become markup.
const PAGE = /^(Its page: )(https?:\/\/\S+|\/\S+)$/;

export function showNotice(el, text) {
  el.replaceChildren();
  text.split('\n').forEach((line, i) => {
    if (i) el.append(document.createElement('br'));
    const m = line.match(PAGE);
    if (!m) { el.append(line); return; }
    const a = document.createElement('a');
    a.href = m[2];
    a.textContent = m[2];
    el.append(m[1], a);
  });
}
