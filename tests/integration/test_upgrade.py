"""A live game across a content upgrade, against the real daemon over telnet
with its SQLite file.

ulf plays a game under the shipped content; his session leaves (a snapshot)
and comes back for a few more keys (journal rows after it); warrend is then
killed and started again with another content directory (`content = DIR`
in its config): a copy of game/content under another version, with a
creature, an item and an effect declared before all the others, so every
shipped kind of those tables has another index. The game comes back from
its snapshot, read by the kinds' names, and its last rows played: same
screen (place, hit points, map), same inventory, nothing broken, the log
says it resumed across content versions, and its row keeps the version it
began under: ended, the records skip it ("skipped: content version"),
never replaying it under rules it was not played by. vera's game, whose
snapshot is made to say it was written before snapshots named their kinds,
cannot be read by the new content: it is kept as broken with that reason,
never rebuilt from its seed (under other rules, another game)."""
import re
import shutil
import signal
import struct
import time
import zlib

from harness import CTRL_X, ROOT, hook

EXTRA = """\
effect { name = "test glow", tag = "Glow", interval = 100 }
creature { name = "test mole", glyph = "m", fg = 3, hp = "1d4", attack = "1d2",
           size = "small", level = 1, weight = 0 }
item { name = "test pebble", class = "food", glyph = "*", fg = 7, weight = 1,
       use = "eat", nutrition = 1, freq = 0 }
"""


def next_content(dest, version):
    """game/content copied to dest under version, EXTRA loaded first."""
    shutil.copytree(ROOT / "game" / "content", dest)
    rules = (dest / "rules.lua").read_text()
    rules, n = re.subn(r'version = "[^"]*"', f'version = "{version}"', rules)
    assert n == 1
    (dest / "rules.lua").write_text(rules)
    modules = (dest / "modules.lua").read_text()
    (dest / "modules.lua").write_text(modules.replace("return {", 'return { "extra.lua",', 1))
    (dest / "extra.lua").write_text(EXTRA)


def older_format(d, game):
    """Every snapshot of game made to say format 8, before snapshots named
    their kinds (its CRC fixed: it covers the version)."""
    for seq, blob in d.db_rows("SELECT seq, blob FROM snapshots WHERE game = ?", game):
        b = bytearray(blob)
        struct.pack_into("<H", b, 4, 8)
        struct.pack_into("<I", b, 20, zlib.crc32(bytes(b[:20]) + bytes(b[24:])) & 0xFFFFFFFF)
        d.db_write(("UPDATE snapshots SET blob = ? WHERE game = ? AND seq = ?",
                    (bytes(b), game, seq)))


def until(check, timeout=15):
    """check() until it is true (writes land a moment later)."""
    end = time.time() + timeout
    while not check():
        assert time.time() < end, "never came true"
        time.sleep(0.05)


def stored(d, game, seq):
    """Every row up to seq is in the journal."""
    until(lambda: d.db_rows("SELECT max(seq) FROM journal WHERE game = ?", game) == [(seq,)])


def inventory(t):
    """The inventory screen's text (opened with i, closed with Escape)."""
    t.send("i")
    t.wait_for("Inventory")
    text = t.lines()
    t.send("\x1b")
    return text


def test_live_game_resumes_across_a_content_upgrade(tmp_path, start_daemon, clients):
    d = start_daemon()
    rules = (ROOT / "game" / "content" / "rules.lua").read_text()
    old_version = re.search(r'version = "([^"]*)"', rules).group(1)
    # vera's game, whose snapshot the new content will not be able to read
    w = clients(d.port).connected()
    w.register("vera")
    w.random_character("vera")
    vera = int(re.search(r"game start user=vera game=(\d+)", d.log()).group(1))
    w.play_keys("lk")
    w.send(CTRL_X)
    w.wait_for("Your choice")
    until(lambda: d.db_rows("SELECT count(*) FROM snapshots WHERE game = ?", vera) != [(0,)])
    t = clients(d.port).connected()
    t.register("ulf")
    t.random_character("ulf")
    game = int(re.search(r"game start user=ulf game=(\d+)", d.log()).group(1))
    t.play_keys("hjkl")
    t.send(CTRL_X)  # leaving writes a snapshot
    t.wait_for("Your choice")
    d.wait_log(r"detach user=ulf ")
    until(lambda: d.db_rows("SELECT count(*) FROM snapshots WHERE game = ?", game) != [(0,)])
    t.send("p")
    d.wait_log(r"attach user=ulf ")
    t.play_keys("lh.")  # rows after the snapshot
    items = inventory(t)
    t.pump()
    before = t.lines()
    seq = hook(d, t, "ulf")["seq"]
    stored(d, game, seq)
    d.kill(signal.SIGKILL)
    older_format(d, vera)

    content = tmp_path / "content-next"
    next_content(content, "warren-test-next")
    conf = tmp_path / "next.conf"
    conf.write_text(f"content = {content}\n")
    d.argv += ["--config", str(conf)]
    d.start()
    assert "content warren-test-next" in d.log()
    m = d.wait_log(rf"game resumed across content versions game={game} user=ulf from "
                   rf"{re.escape(old_version)} to warren-test-next: snapshot seq (\d+), "
                   rf"(\d+) rows after it played under warren-test-next")
    assert int(m.group(2)) > 0, m.group(0)
    # unreadable: kept as broken with the reason, never rebuilt from its seed
    why = (rf"content version {re.escape(old_version)}, this server has warren-test-next: "
           r"snapshot: made with other content than warren-test-next \(format 8 names no kinds\)")
    d.wait_log(r"recovery done: 1 games resumed, 1 broken")
    assert re.search(rf"game cannot be restored game={vera} user=vera: {why} \(kept as broken\)",
                     d.log()), d.log()[-3000:]
    assert "game rebuilt" not in d.log()
    until(lambda: d.db_rows("SELECT state FROM games WHERE id = ?", vera) == [("broken",)])

    u = clients(d.port).connected()
    u.login("ulf")
    u.send("p")
    d.wait_log(r"attach user=ulf ")
    u.pump()
    assert u.lines() == before
    assert hook(d, u, "ulf")["seq"] == seq
    assert inventory(u) == items
    assert d.db_rows("SELECT state, content_version FROM games WHERE id = ?",
                     game) == [("live", old_version)]
    assert f"cannot be restored game={game}" not in d.log()

    # the game goes on under the new content, and survives another restart
    u.play_keys("hj")
    after = hook(d, u, "ulf")
    stored(d, game, after["seq"])
    d.kill(signal.SIGKILL)
    d.start()
    d.wait_log(rf"game resumed across content versions game={game} user=ulf ")
    d.wait_log(r"recovery done: 1 games resumed, 0 broken")  # vera's is broken already
    v = clients(d.port).connected()
    v.login("ulf")
    v.send("p")
    d.wait_log(r"attach user=ulf ")
    assert hook(d, v, "ulf")["seq"] == after["seq"]

    # ended, it is never replayed under rules it was not played by
    v.send("Q")
    v.wait_for("Really quit?")
    v.send("y")
    d.wait_log(rf"verify game={game} skipped: content version {re.escape(old_version)}, this "
               rf"server has warren-test-next")
    assert f"verify game={game} mismatch" not in d.log()
    until(lambda: d.db_rows("SELECT state FROM games WHERE id = ?", game) != [("live",)])
