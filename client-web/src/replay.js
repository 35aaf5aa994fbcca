// The replay player: frames of a finished game (/api/game/ID/replay) drawn
// into xterm.js. Frame 0 is the first screen, frame i the screen after the
// i-th key. Every frame carries the ANSI bytes from the previous one; some
// also carry a keyframe, so seeking draws the nearest keyframe at or before
// the target and only the diffs after it. Frames are [turn, ms, diff(,
// keyframe)]: ms is the frame's time from frame 0 as it was played (idle gaps
// already capped by the server), so playing shows each frame when
// (ms - ms at the start) / speed has passed.
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './style.css';

const TICK = 16; // ms between checks for due frames while playing
const id = document.body.dataset.game;
// the frames' address: a Warren game's, or a hosted game's recording
const framesUrl = document.body.dataset.frames || `/api/game/${encodeURIComponent(id)}/replay`;
const $ = (s) => document.getElementById(s);
const status = $('status');

const term = new Terminal({
  fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace',
  fontSize: 15,
  scrollback: 0,
  disableStdin: true,
  cursorBlink: false,
  theme: { background: '#000000', foreground: '#d0d0d0' },
});
term.open($('term'));

// The screen fits its box, as a player's does (term.js): a smaller font on
// a narrow one (a phone), then a scale for what whole-pixel cells leave over.
function fit() {
  const box = $('term');
  const scr = box.querySelector('.xterm-screen');
  if (!scr || !term.element) return;
  term.element.style.transform = '';
  const ratio = () => Math.min(1, box.clientWidth / scr.offsetWidth, box.clientHeight / scr.offsetHeight);
  term.options.fontSize = 15;
  const r = ratio();
  if (r > 0 && r < 1) term.options.fontSize = Math.max(4, Math.floor(15 * r));
  const s = ratio();
  if (s > 0 && s < 1) term.element.style.transform = `scale(${s})`;
}
window.addEventListener('resize', fit);

const write = (s) => new Promise((resolve) => term.write(s, resolve));

function makePlayer(data) {
  const frames = data.frames;
  const last = frames.length - 1;
  const p = { pos: -1, playing: false, speed: 1, done: false, n: frames.length, turns: data.turns };
  let timer = null;

  const show = () => {
    $('seek').value = String(Math.max(p.pos, 0));
    const turn = data.hash === undefined ? '' : // hosted recordings have no turns
      ` · turn ${frames[Math.max(p.pos, 0)][0]}`;
    $('pos').textContent = `frame ${Math.max(p.pos, 0)} / ${last}${turn}`;
    $('play').textContent = p.playing ? 'Pause' : p.pos >= last ? 'Replay' : 'Play';
    // a replay cut at the server's replay-max says so where it stops
    const end = data.truncated ? 'end of the replay: truncated at the server\'s replay-max' : 'end of game';
    status.textContent = p.pos >= last ? end : p.playing ? 'playing' : 'paused';
  };
  // the frames due by now since play started at frame `from` (wall time t0)
  let from = 0;
  let t0 = 0;
  const due = () => {
    const at = frames[from][1] + (performance.now() - t0) * p.speed;
    let n = p.pos;
    while (n < last && frames[n + 1][1] <= at) n++;
    return n;
  };
  const advance = async () => {
    const to = due();
    if (to > p.pos) {
      let out = '';
      for (let i = p.pos + 1; i <= to; i++) out += frames[i][2];
      p.pos = to;
      await write(out);
    }
    if (p.pos >= last) { p.pause(); p.done = true; }
    show();
  };
  p.seek = async (target) => {
    target = Math.max(0, Math.min(last, target | 0));
    let k = target;
    while (k > 0 && frames[k].length < 4) k--;
    term.reset();
    let out = frames[k].length > 3 ? frames[k][3] : frames[0][2];
    for (let i = k + 1; i <= target; i++) out += frames[i][2];
    await write(out);
    p.pos = target;
    p.done = target >= last;
    show();
  };
  p.play = async () => {
    if (p.pos >= last) await p.seek(0);
    p.playing = true;
    clearInterval(timer);
    from = Math.max(p.pos, 0);
    t0 = performance.now();
    let busy = false;
    timer = setInterval(async () => {
      if (busy || !p.playing) return;
      busy = true;
      await advance(); // every frame due since the last tick, in one write
      busy = false;
    }, TICK);
    show();
  };
  p.pause = () => { p.playing = false; clearInterval(timer); show(); };
  p.setSpeed = (s) => { p.speed = s; if (p.playing) p.play(); };

  $('play').addEventListener('click', () => (p.playing ? p.pause() : p.play()));
  $('speed').addEventListener('change', (e) => p.setSpeed(Number(e.target.value) || 1));
  $('seek').addEventListener('input', (e) => {
    const to = Number(e.target.value); // before pause() redraws the slider
    p.pause();
    p.seek(to);
  });
  $('seek').max = String(last);
  $('seek').disabled = false;
  $('play').disabled = false;
  return p;
}

async function load() {
  const res = await fetch(framesUrl);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  term.resize(data.w, data.h);
  fit();
  const player = makePlayer(data);
  await player.seek(0);
  window.warren.player = player;
  window.warren.ready = true;
}

window.warren = { term, ready: false };
load().catch((e) => { status.textContent = `cannot load the replay: ${e.message}`; window.warren.error = e.message; });
