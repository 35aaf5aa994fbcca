#!/usr/bin/python3
"""Web fan-out figures against the real warrend.

  tests/web/fanout.py BINDIR [N] [KEYS]

Starts warrend with the web gateway, registers two players, and
1. runs bin/tools/web_fanout: one game played over /ws/play and watched by
   N websocket clients (ANSI frames, as the watch page takes them); the
   player sends a key, waits for its own frame, sends the next. Prints
     web.fanout.frames_per_s    frames delivered to all watchers per second
     web.fanout.watchers        N
     web.fanout.player.p50.us   key -> the player's own frame, meanwhile
     web.fanout.player.p99.us
   and fails unless every watcher got every frame or a resync keyframe;
2. plays 200 bot keys (moves and rests) in a second game with one JSON
   watcher and prints the median frame per key in each format:
     web.frame.ansi.bytes       web.frame.json.bytes
With two cores or more, the daemon runs on one and the load tool on another
(see pinned).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
from harness import WS, Daemon, Web, play_socket, program  # noqa: E402


def pinned(core):
    """taskset prefix: with two cores or more the daemon (loop and database
    writer) runs on core 0 and the load tool on core 1, as on a real server
    whose watchers are other machines; otherwise the two would take turns on
    the same core, and the scheduler's wake-up delay (about a millisecond)
    would be counted as the daemon's latency."""
    return ["taskset", "-c", str(core)] if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") else []


def register(port, name):
    """A new account through the web form; returns its session token."""
    r = Web(port).register(name, "benchpass1")
    assert r.status == 303 and r.session, r.head
    return r.session


def frame_sizes(port, keys):
    """Bytes per key: the player's ANSI frame and a JSON watcher's."""
    player = play_socket(port, register(port, "bot"), 80, 24)
    watcher = WS(port, "/ws/watch/bot", timeout=10)
    watcher.text(b'{"t":"frames","format":"json"}')
    watcher.until(lambda op, p: op == 1 and b'"key":true' in p, timeout=10)
    ansi, js = [], []
    moves = b"hjklyubn."
    for i in range(keys):
        player.binary(moves[(i * 7) % len(moves):][:1])
        op, p = player.until(lambda op, p: op == 2 or (op == 1 and b'"left"' in p), timeout=10)
        if op == 1:  # the bot's game ended: enough
            return ansi, js
        ansi.append(len(p))
        op, p = watcher.until(lambda op, p: op == 1 and p.startswith(b'{"t":"f"'), timeout=10)
        js.append(len(p))
    return ansi, js


def main():
    bindir = pathlib.Path(sys.argv[1]).resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    keys = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="warren-fanout-"))
    d = Daemon(bindir, tmp, http=True, exe=program(bindir, "warrend"), wrap=pinned(0),
               extra=["--input-rate", "1000000", "--max-per-ip", "5000",
                      "--max-connections", "5000"])
    try:
        d.start()
        port = d.http
        cookie = "warren_session=" + register(port, "fan")
        r = subprocess.run(pinned(1) + [str(bindir / "tools" / "web_fanout"), "--port", str(port),
                            "--cookie", cookie, "--name", "fan", "--watchers", str(n),
                            "--keys", str(keys)], capture_output=True, text=True, timeout=600)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit(1)
        ansi, js = frame_sizes(port, 200)
        ansi.sort()
        js.sort()
        print(f"# frame sizes over {len(ansi)} bot keys")
        print(f"BENCH web.frame.ansi.bytes {ansi[len(ansi) // 2]}")
        print(f"BENCH web.frame.json.bytes {js[len(js) // 2]}")
    finally:
        d.stop()
        if os.environ.get("DBG"):
            print(d.log()[-300:])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
