"""A hosted section's sizes, with the real daemon, a real program under
the pty (tests/tools/ptytoy winsize, which prints the size its terminal
has, as `stty size` would) and real telnet and Chromium: min-size is the
smallest terminal the program gets, however small the player's; a
phone's browser gives the program the section's phone-size (the page
learns it from the server), the terminal as wide as the screen in
portrait."""
from harness import browser_script, unique_name
from test_hosted import new_player, start_hosted, toy_copy

PW = "correct horse"


def test_a_sections_min_size_holds_for_a_small_terminal(bindir, tmp_path, clients):
    """An 80x24 telnet terminal in a game of min-size 100x30: the program
    starts at 100x30; a terminal that grows past it in one way gets that
    way, never below the minimum in the other; the default section keeps
    80x24."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                       "min-size = 100x30\n"
                                       f"[game plain]\ncommand = {toy} winsize\n")
    try:
        t, _ = new_player(d, clients, "ms", "1")
        t.wait_for("size 100x30")
        t.resize(120, 26)
        t.wait_for("size 120x30")
        t.resize(90, 40)
        t.wait_for("size 100x40")
        t.send("q")
        t.wait_for("has ended")
        p, _ = new_player(d, clients, "mp", "2")
        p.wait_for("size 80x24")
        p.send("q")
        p.wait_for("has ended")
    finally:
        d.stop_clean()


def test_a_phone_gives_the_program_the_sections_phone_size(bindir, tmp_path):
    """/play/tall on a phone: the page's terminal is the section's
    phone-size, 80x34, and the program under the pty has that size; in
    portrait the terminal is as wide as the screen. A section without one
    gets 80x24 as before."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game tall]\ncommand = {toy} winsize\n"
                                       "phone-size = 80x34\n"
                                       f"[game plain]\ncommand = {toy} winsize\n", http=True)
    try:
        art = tmp_path / "screens"
        for game, want in (("tall", "80x34"), ("plain", "80x24")):
            r, out = browser_script("phone_size.mjs", f"http://127.0.0.1:{d.http}", art,
                                    unique_name("ps"), PW, game, timeout=120)
            assert r.returncode == 0 and not out["errors"], (out["errors"], r.stderr[-2000:])
            for size, g in out["sizes"].items():
                assert f"{g['cols']}x{g['rows']}" == want, (game, size, g)
                assert g["said"] and g["said"][-1] == want, (game, size, g)
            portrait = out["sizes"]["390x844"]
            assert portrait["width"] > 0.9 * portrait["view"][0], portrait
            assert portrait["width"] <= portrait["view"][0] + 0.5, portrait
    finally:
        d.stop_clean()
