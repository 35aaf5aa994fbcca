"""The game through warrend and Debian's telnet: the character screen
(choices and the one-key random start), help's topics drawn from the
command table, look, the message history, the character sheet and the
discoveries, saving and leaving with the game's S, quitting with
confirmation, which ends the game with its cause, a death that waits
on its --More-- for the player's key before the end screen, walking
out of the town onto the overland and back, and the high scores' causes
whole at 80 columns."""
import re
import subprocess
import time

from harness import hook, new_game, program, replay

# A human wizard (a, c) who explores the town, takes the stairs down and
# then explores and waits: on most seeds level 1 kills it.
DYING = "ac" + ("o" * 12 + "_>." + ">") * 2 + ("o" + "s" * 6) * 120


def character_screen(daemon, clients, name):
    t = clients(daemon.port, cols=100, rows=30).connected()
    new_game(daemon, t, name)
    t.wait_for("who are you? Choose a race.")
    return t


def test_character_screen_help_look_and_quit(daemon, clients):
    t = character_screen(daemon, clients, "gimli")
    assert "a) human" in t.text() and "d) halfling" in t.text()
    t.send("b")  # a dwarf...
    t.wait_for("Choose a class.")
    t.send("a")  # ...fighter
    t.wait_for("gimli the dwarf fighter")
    assert "HP " in t.text() and "Town" in t.text()
    t.send("?")
    t.wait_for("Help: which topic?")
    t.send("a")  # the topic list names it too: wait for the page's own lines
    text = t.wait_for("look at something")
    for what in ("explore: to unvisited items, then unexplored", "travel: choose a spot",
                 "look at something", "HJKLYUBN  run: on that way"):
        assert what in text, text
    t.send("?")
    t.send("h")
    text = t.wait_for("quit the game for good")
    for what in ("save and return to the menu", "quit the game for good"):
        assert what in text, text
    t.send("\x1b")  # back one level: the topics, not the game
    t.wait_for("Help: which topic?")
    t.send("\x1b")
    t.wait_for("gimli the dwarf fighter")
    t.send(";")  # look at the player's own cell
    t.wait_for("That is you, gimli the dwarf fighter. (? keys)")
    assert "Esc leaves" not in t.text(), t.text()  # the bottom line stays the commands'
    t.send("?")  # look's own keys on the bottom line, look still up
    t.wait_for("Esc leaves")
    bottom = [ln for ln in t.lines() if "Esc leaves" in ln][0]
    assert "move the cursor" in bottom and "Tab" in bottom, bottom
    assert "move or attack" not in t.text(), t.text()
    assert "That is you" in t.text(), t.text()
    t.send("\x1b")
    assert "Esc leaves" not in t.text(), t.text()
    t.send("\x10")  # Ctrl-P
    t.wait_for("Message history")
    assert "Welcome, gimli the dwarf fighter!" in t.text()
    t.send(" ")
    t.send("Q")
    t.wait_for("Really quit?")
    t.send("n")
    t.wait_for("Never mind.")
    t.send("Q")
    t.wait_for("Really quit?")
    t.send("y")
    daemon.wait_log(r"game end user=gimli")
    t.wait_for("Game over: quit in the town.")


def test_any_other_key_is_a_random_character(daemon, clients):
    t = character_screen(daemon, clients, "frodo")
    t.send("l")  # not a choice: a random race and class at once
    t.wait_for("Welcome, frodo the ")
    assert any(f"frodo the {r} " in t.text() for r in ("human", "dwarf", "elf", "halfling"))


def test_s_saves_and_returns_to_the_menu(daemon, clients):
    """The game's S does what the daemon's Ctrl-X does: the game is saved
    and the menu comes back. The key is journalled and changes nothing
    else: the resumed game is one key further, at the same turn."""
    t = character_screen(daemon, clients, "samwise")
    t.send("l")
    t.wait_for("Welcome, samwise the ")
    t.play_keys("..")
    before = hook(daemon, t, "samwise")
    t.send("S")
    t.wait_for("Your game is saved. Press p to continue it.")
    daemon.wait_log(r"detach user=samwise")
    t.send("p")
    daemon.wait_log(r"attach user=samwise")
    after = hook(daemon, t, "samwise")
    assert after["seq"] == before["seq"] + 1 and after["turn"] == before["turn"], (before, after)


def test_sheet_and_discoveries_are_in_help(daemon, clients):
    t = character_screen(daemon, clients, "bilbo")
    t.send("l")
    t.wait_for("Welcome, bilbo the ")
    t.send("?")
    t.wait_for("Help: which topic?")
    t.send("f")
    text = t.wait_for("discoveries")
    assert "character sheet" in text and "discoveries" in text, text
    t.send("\x1b")  # the topics
    t.wait_for("Help: which topic?")
    t.send("\x1b")  # the game
    t.send("C")
    t.wait_for("Character sheet (any key returns)")
    assert "experience level 1" in t.text() and "Fort " in t.text()
    t.send(" ")
    t.send("\\")
    t.wait_for("Discoveries, page 1 of 1")
    assert "Potions: " in t.text() and "Amulets: " in t.text()


def dead_after(engine, tmp, seed, n):
    """Whether DYING's first n keys leave the seed's game dead."""
    f = tmp / "keys"
    f.write_text(DYING[:n])
    out = subprocess.run([str(engine), "play", "--seed", str(seed), "--keys", str(f)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return "You are dead." in out


def death_at(bindir, tmp):
    """A seed on which DYING kills, and how many of its keys it takes (the
    last of them the fatal one)."""
    engine = program(bindir, "warren-engine", "asan/warren-engine")
    for seed in range(1, 40):
        if not dead_after(engine, tmp, seed, len(DYING)):
            continue
        lo, hi = 2, len(DYING)  # dead after hi keys, alive after lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if dead_after(engine, tmp, seed, mid) else (mid, hi)
        return seed, hi
    raise AssertionError("no seed of 1..39 dies of DYING")


def resumed_at(daemon, clients, name, seed, keys, who):
    """name's game set to seed and keys (its row's seed and journal written
    while the daemon is stopped; no snapshot, so it is rebuilt from them),
    its player back in it, who (its race and class) on the status line;
    the client and the game's id."""
    t = clients(daemon.port, cols=100, rows=30).connected()
    game, _ = new_game(daemon, t, name)
    t.wait_for("who are you? Choose a race.")
    t.close()
    with daemon.stopped():
        daemon.db_write(("UPDATE games SET seed = ? WHERE id = ?", (seed, game)),
                        ("DELETE FROM snapshots WHERE game = ?", (game,)),
                        ("DELETE FROM journal WHERE game = ?", (game,)),
                        *[("INSERT INTO journal (game, seq, keys) VALUES (?, ?, ?)",
                           (game, i + 1, k.encode())) for i, k in enumerate(keys)])
    t = clients(daemon.port, cols=100, rows=30).connected()
    t.login(name)
    t.send("p")
    daemon.wait_log(rf"game resume user={name}")
    t.wait_for(f"{name} the {who}")
    return t, game


def one_key_from_death(daemon, clients, bindir, tmp_path, name):
    """A game set one key short of a death, its player back in it; the
    client, the fatal key and the game's id."""
    seed, n = death_at(bindir, tmp_path)
    t, game = resumed_at(daemon, clients, name, seed, DYING[:n - 1], "human wizard")
    assert "You are dead." not in t.text()
    return t, DYING[n - 1], game


def test_death_waits_on_more_for_the_players_key(daemon, clients, bindir, tmp_path):
    """The fatal key shows "You die..." with --More-- and the game waits:
    no end screen, no record, until the player's next key."""
    t, fatal, _ = one_key_from_death(daemon, clients, bindir, tmp_path, "mortal")
    t.send(fatal)
    t.wait_for("You die...")
    assert "--More--" in t.text(), t.text()
    time.sleep(1.0)  # the end screen used to replace it within 0.2 s
    t.pump()
    assert "Your game is over." not in t.text() and "You die..." in t.text(), t.text()
    assert "game end user=mortal" not in daemon.log()
    t.send(" ")
    daemon.wait_log(r"game end user=mortal game=\d+ kind=dead")
    t.wait_for("Your game is over.")
    assert "Game over: killed by" in t.text()


def test_leaving_on_deaths_more_ends_the_game(daemon, clients, bindir, tmp_path):
    """A player who hangs up on "You die... --More--" does not leave a dead
    game waiting through its grace period: it ends then, its record stored,
    as dead."""
    t, fatal, game = one_key_from_death(daemon, clients, bindir, tmp_path, "gone")
    t.send(fatal)
    t.wait_for("You die...")
    assert "game end user=gone" not in daemon.log()
    t.close()
    daemon.wait_log(r"game end user=gone game=\d+ kind=dead")
    (kind,) = daemon.db_rows("SELECT end_kind FROM games WHERE id = ?", game)[0]
    assert kind == "dead", kind


# A human fighter (a, a) who explores down two levels, then explores,
# walks every way (attacking what it walks into) and searches: on seed 4
# it reaches experience level 3 (a gift to choose).
FIGHTING = "aa" + ("o" * 12 + "_>." + ">") * 2 + ("o" + "hjklyubn" + "ss") * 200


def key_of_level_3(bindir, tmp):
    """How many of FIGHTING's keys on seed 4 bring experience level 3 (the
    last of them the one that earns it)."""
    engine = program(bindir, "warren-engine", "asan/warren-engine")

    def xl3_after(n):
        f = tmp / "keys"
        f.write_text(FIGHTING[:n])
        out = subprocess.run([str(engine), "play", "--seed", "4", "--keys", str(f)],
                             capture_output=True, text=True, check=True, timeout=60).stdout
        return "XL 3 " in out or "Experience level 3:" in out  # on the status line or its screen

    assert xl3_after(len(FIGHTING)), "seed 4 no longer reaches level 3"
    lo, hi = 2, len(FIGHTING)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if xl3_after(mid) else (mid, hi)
    return hi


def test_level_up_waits_on_more_so_typed_ahead_keys_cannot_choose(daemon, clients, bindir,
                                                                   tmp_path):
    """The key that earns a level, with more typed right after it (a move
    b, a gift's letter a): "Welcome to experience level 3!" waits on
    --More--, which those keys do not pass and the gift is not chosen; only
    Space (Enter, Esc) goes on to the gift screen, where b chooses."""
    n = key_of_level_3(bindir, tmp_path)
    t, _ = resumed_at(daemon, clients, "hasty", 4, FIGHTING[:n - 1], "human fighter")
    t.send(FIGHTING[n - 1] + "bab")
    t.wait_for("XL 3 ")
    time.sleep(0.5)
    t.pump()
    assert "--More--" in t.text() and "choose a gift" not in t.text(), t.text()
    for _ in range(5):
        if "Welcome to experience level 3!" in t.text():
            break
        t.send(" ")
        time.sleep(0.3)
        t.pump()
    assert "Welcome to experience level 3!" in t.text() and "--More--" in t.text(), t.text()
    t.send("a")
    time.sleep(0.3)
    t.pump()
    assert "choose a gift" not in t.text(), t.text()
    for _ in range(5):  # the --More-- pages, if more was said
        if "choose a gift" in t.text():
            break
        t.send(" ")
        time.sleep(0.3)
        t.pump()
    t.wait_for("Experience level 3: choose a gift")
    t.send("b")
    t.wait_for("Your aim grows keener.")


def test_firing_with_no_target_in_view_says_so(daemon, clients):
    """f in the town (no monster, keepers never targets): the cursor's line
    says "No target in view." and Enter there says it again (it used to
    say "You cannot aim at yourself.")."""
    t = character_screen(daemon, clients, "archer")
    t.send("aa")
    t.wait_for("Welcome, archer the human fighter!")
    t.send("f")
    t.wait_for("No target in view. [dirs move the cursor")
    t.send("\r")
    t.wait_for("No target in view.")
    time.sleep(0.3)
    t.pump()
    assert "cannot aim at yourself" not in t.text() and "[dirs move" not in t.text(), t.text()


def test_own_arrow_is_taken_up_by_walking_onto_it(daemon, clients):
    """An arrow shot three cells east in the town lands there; walking onto
    it takes it back into the quiver's stack ("arrows" said as a pickup,
    never "You see here an arrow.")."""
    t = character_screen(daemon, clients, "fletcher")
    t.send("aa")
    t.wait_for("Welcome, fletcher the human fighter!")
    t.send("f")
    t.wait_for("[dirs move")
    t.send("lll\r")
    t.wait_for("You shoot an arrow.")
    t.send("ll")
    time.sleep(0.3)
    t.send("l")
    t.wait_for(" arrows (in quiver).")
    assert "You see here" not in t.text(), t.text()


def test_an_arrow_into_a_tree_says_what_it_hit(daemon, clients):
    """An arrow shot at the tree beside the west gate stops there and says
    so ("The arrow hits the tree."), as one past its reach falls short."""
    t = character_screen(daemon, clients, "robin")
    t.send("aa")
    t.wait_for("Welcome, robin the human fighter!")
    t.send("f")
    t.wait_for("[dirs move")
    t.send("k\r")
    t.wait_for("You shoot an arrow.")
    t.wait_for("The arrow hits the tree.")


def test_the_home_town_is_known_from_the_first_turn(daemon, clients):
    """A newcomer knows the town's layout from the start: the stairs down
    at its far end are drawn, travel there (_>.) works on the first turn
    (it used to say "You have not found the staircase down here."), and >
    there goes down."""
    t = character_screen(daemon, clients, "homer")
    t.send("aa")
    t.wait_for("Welcome, homer the human fighter!")
    for _ in range(4):  # a walk stops when a shop's wares come into sight
        t.send("_>")
        assert "You have not found the staircase" not in t.text(), t.text()
        t.send(".")
    t.send(">")
    t.wait_for("You descend the stairs.")


def test_explore_goes_first_to_an_arrow_in_sight(daemon, clients):
    """An arrow shot four cells down the road lies in sight: explore (o)
    walks to it before the unexplored and takes it up, as any step onto
    one's own missile does (it used to head for the unexplored)."""
    t = character_screen(daemon, clients, "scout")
    t.send("aa")
    t.wait_for("Welcome, scout the human fighter!")
    t.send("f")
    t.wait_for("[dirs move")
    t.send("llll\r")
    t.wait_for("You shoot an arrow.")
    t.send("o")
    t.wait_for(" arrows (in quiver).")


def test_walking_out_of_town_onto_the_overland(daemon, clients, bindir, tmp_path):
    """A game starts on the town's west gate: < there leads out onto the
    overland of the seed's continent (the land's name on the status line,
    its towns drawn), > on the town's cell goes back in.
    The journal holds exactly those keys: a replay of them from the seed
    ends in the same state."""
    t = clients(daemon.port, cols=100, rows=30).connected()
    _, seed = new_game(daemon, t, "bilbo")
    t.wait_for("who are you? Choose a race.")
    t.send("l")
    t.wait_for("Welcome, bilbo the ")
    t.send("<")
    t.wait_for("You leave Burrowmouth for the wilds of")
    status = next(ln for ln in t.lines() if "bilbo the " in ln)
    assert "Town" not in status and "Depth" not in status, status
    assert t.text().count("*") >= 2, t.text()  # the other towns, drawn
    t.send(">")
    t.wait_for("You walk in at the gates of Burrowmouth")
    status = next(ln for ln in t.lines() if "bilbo the " in ln)
    assert "Town" in status, status
    now = hook(daemon, t, "bilbo")
    _, h = replay(bindir, tmp_path, seed, "bilbo", b"l<>", size="100x30")
    assert h == now["hash"], (h, now)


def test_high_scores_show_the_whole_cause_at_80_columns(daemon, clients):
    """At 80 columns the cause column has 26 characters: a longer cause
    ("killed by a kobold shaman on level 3") goes whole on a line under
    its row instead of being cut at the screen's edge."""
    t = clients(daemon.port).connected()
    game, _ = new_game(daemon, t, "scorer")
    t.wait_for("who are you? Choose a race.")
    t.send("l")
    t.wait_for("Welcome, scorer the ")
    t.send("Q")
    t.wait_for("Really quit?")
    t.send("y")
    daemon.wait_log(r"game end user=scorer")
    t.close()
    cause = "killed by a kobold shaman on level 3"
    with daemon.stopped():
        daemon.db_write(("UPDATE games SET cause = ? WHERE id = ?", (cause, game)))
    t = clients(daemon.port).connected()
    t.send("s")
    text = t.wait_for("Press any key.")
    assert cause in text, text
    row = next(line for line in text.splitlines() if "scorer" in line)
    assert "killed" not in row, row  # the row ends with its turns; the cause is below


def test_high_scores_show_a_long_cause_whole(daemon, clients):
    """A cause longer than 60 characters is not cut: one that fits the
    line under its row stands there whole, a longer one wraps at a space
    onto the next line."""
    causes = ["killed by a goblin on level 1 of the flooded mine of Fouskockreach",
              "killed by a kobold shaman on level 12 of the flooded mine of Fouskockreach"]
    games = []
    for who in ("longcause", "longercause"):
        t = clients(daemon.port).connected()
        game, _ = new_game(daemon, t, who)
        t.wait_for("who are you? Choose a race.")
        t.send("l")
        t.wait_for(f"Welcome, {who} the ")
        t.send("Q")
        t.wait_for("Really quit?")
        t.send("y")
        daemon.wait_log(rf"game end user={who}")
        t.close()
        games.append(game)
    with daemon.stopped():
        for cause, game in zip(causes, games):
            daemon.db_write(("UPDATE games SET cause = ? WHERE id = ?", (cause, game)))
    t = clients(daemon.port).connected()
    t.send("s")
    text = t.wait_for("Press any key.")
    lines = [line.strip() for line in text.splitlines()]
    assert causes[0] in lines, text
    head, tail = causes[1].rsplit(" ", 1)
    assert head in lines and tail in lines, text
    assert lines.index(tail) == lines.index(head) + 1, text


def test_a_travel_goes_out_as_one_frame(daemon, clients):
    """A travel across the town (_>.) from the west gate to the stairs
    down takes dozens of steps and one key: the player gets one frame for
    it, the player's @ drawn once, where the travel ended (a frame a step
    would draw it at every step), and the cursor left on it. The game's
    seed is random: a townsperson (an @ too) may be in view at the end."""
    t = clients(daemon.port).connected()
    new_game(daemon, t, "rover")
    t.wait_for("who are you? Choose a race.")
    t.send("aa")
    t.wait_for("Welcome, rover the human fighter!")
    t.send("_", settle=False)
    t.wait_for("Travel where?")
    t.pump(quiet=0.3)
    x0, y0 = t.screen.cursor.x, t.screen.cursor.y  # on the player
    t.send(">", settle=False)
    end = time.time() + 5
    while (t.screen.cursor.x, t.screen.cursor.y) == (x0, y0) and time.time() < end:
        t.pump(quiet=0.05, limit=0.2)  # the cursor goes to the stairs
    t.pump(quiet=0.3)
    before = len(t.raw)
    t.send(".", settle=False)
    end = time.time() + 10
    while t.screen.display[0].startswith("Travel where?") and time.time() < end:
        t.pump(quiet=0.05, limit=0.2)
    t.pump(quiet=0.3)
    sent, (x, y) = t.raw[before:], (t.screen.cursor.x, t.screen.cursor.y)
    assert t.screen.display[y][x] == "@", (x, y, t.text())
    assert max(abs(x - x0), abs(y - y0)) >= 10, (x0, y0, x, y, t.text())  # on the screen
    drawn = re.sub(rb"\x1b\[[0-9;?]*[ -/]*[@-~]", b"", sent)  # ICH's final byte is @ too
    # each @ on the screen drawn at most once: the player's, and the
    # town's people in view that the frame drew (a frame a step would draw
    # the player's at every one of its ten or more steps)
    shown = sum(row.count("@") for row in t.screen.display)
    assert 1 <= drawn.count(b"@") <= shown, (shown, sent)
