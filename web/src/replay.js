// The replay player: frames of a finished game (/api/game/ID/replay) drawn
// into xterm.js. Frame 0 is the first screen, frame i the screen after the
// i-th key. Every frame carries the ANSI bytes from the previous one; some
// also carry a keyframe, so seeking draws the nearest keyframe at or before
// the target and only the diffs after it.
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './style.css';

const FPS = 10; // frames per second at 1x
const id = document.body.dataset.game;
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

const write = (s) => new Promise((resolve) => term.write(s, resolve));

function makePlayer(data) {
  const frames = data.frames;
  const last = frames.length - 1;
  const p = { pos: -1, playing: false, speed: 1, done: false, n: frames.length, turns: data.turns };
  let timer = null;

  const show = () => {
    $('seek').value = String(Math.max(p.pos, 0));
    $('pos').textContent = `frame ${Math.max(p.pos, 0)} / ${last} · turn ${frames[Math.max(p.pos, 0)][0]}`;
    $('play').textContent = p.playing ? 'Pause' : p.pos >= last ? 'Replay' : 'Play';
    status.textContent = p.pos >= last ? 'end of game' : p.playing ? 'playing' : 'paused';
  };
  const step = async () => {
    if (p.pos >= last) { p.pause(); p.done = true; show(); return; }
    p.pos++;
    await write(frames[p.pos][1]);
    show();
  };
  p.seek = async (target) => {
    target = Math.max(0, Math.min(last, target | 0));
    let k = target;
    while (k > 0 && frames[k].length < 3) k--;
    term.reset();
    let out = frames[k].length > 2 ? frames[k][2] : frames[0][1];
    for (let i = k + 1; i <= target; i++) out += frames[i][1];
    await write(out);
    p.pos = target;
    p.done = target >= last;
    show();
  };
  p.play = () => {
    if (p.pos >= last) p.seek(0);
    p.playing = true;
    clearInterval(timer);
    let busy = false;
    timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      // at high speed several frames per tick; the writes are batched by xterm
      const n = Math.max(1, Math.round(p.speed * FPS / 20));
      for (let i = 0; i < n && p.playing; i++) await step();
      busy = false;
    }, 1000 / Math.min(20, FPS * p.speed));
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
  const res = await fetch(`/api/game/${encodeURIComponent(id)}/replay`);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  term.resize(data.w, data.h);
  const player = makePlayer(data);
  await player.seek(0);
  window.warren.player = player;
  window.warren.ready = true;
}

window.warren = { term, ready: false };
load().catch((e) => { status.textContent = `cannot load the replay: ${e.message}`; window.warren.error = e.message; });
