"""The layers hold: each folder compiles with its own and lower layers'
include paths only (the Makefile's INC_*), so a header of a higher layer
is not found and an upward include fails to compile, and the headers a
layer may use are found. The compiler's preprocessor, with the very flags
make gives each layer, tries every pair below; then a probe source is
compiled with make's own command for each layer's files, so the build
itself is shown to refuse an upward include and to take a lawful one."""
import os
import shlex
import subprocess

import pytest

from harness import ROOT

# A header of each layer (one is enough: the path is the folder's), none
# of a name the system's include directories have too (menu.h: ncurses).
HEADER = {
    "protocol": "screen.h",
    "game": "game.h",
    "db": "db.h",
    "core": "server.h",
    "screens": "screens.h",
    "telnet": "telnet.h",
    "web": "webgw.h",
    "hosted": "hostgame.h",
    "records": "records.h",
    "admin": "control.h",
}
# What each layer's files may include; every other layer's header is refused.
MAY = {
    "protocol": {"protocol"},
    "game": {"protocol", "game"},
    "db": {"protocol", "game", "db"},
    "core": {"protocol", "game", "db", "core"},
    "screens": {"protocol", "db", "core", "screens"},
    "telnet": {"protocol", "db", "core", "screens", "telnet"},
    "web": {"protocol", "db", "core", "screens", "web"},
    "hosted": {"protocol", "db", "core", "screens", "telnet", "web", "hosted"},
    "records": {"protocol", "game", "db", "core", "screens", "telnet", "web", "hosted",
                "records"},
    "admin": {"protocol", "db", "core", "screens", "telnet", "web", "admin"},
}
# A source of each layer: make's own command for it is the layer's.
SOURCE = {
    "protocol": "protocol/screen.c",
    "game": "game/game.c",
    "db": "db/db.c",
    "core": "server/core/conn.c",
    "screens": "server/screens/menu.c",
    "telnet": "server/telnet/telnet.c",
    "web": "server/web/webgw.c",
    "hosted": "server/hosted/hostgame.c",
    "records": "server/records/pages.c",
    "admin": "server/admin/control.c",
}
# The Makefile's variable of each layer's include path.
VAR = {"protocol": "INC_protocol", "game": "INC_game", "db": "INC_db", "server": "INC_server"}


def make_env():
    """make as from a shell, not under the make that may run these tests."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def inc_flags(layer):
    var = VAR.get(layer, f"INC_server_{layer}")
    out = subprocess.run(["make", "-s", "--no-print-directory", f"print-{var}"], cwd=ROOT,
                         capture_output=True, text=True, check=True,
                         env=make_env()).stdout.split()
    assert out, f"the Makefile has no {var}"
    return out


def test_no_probe_is_a_system_header():
    assert not any(found([], h) for h in HEADER.values())


def found(flags, header):
    """Whether #include "header" preprocesses with these flags."""
    r = subprocess.run(["cc", "-E", "-x", "c", *flags, "-o", "/dev/null", "-"],
                       input=f'#include "{header}"\n', cwd=ROOT, capture_output=True,
                       text=True)
    return r.returncode == 0


@pytest.mark.parametrize("layer", sorted(MAY))
def test_a_layer_sees_only_its_own_and_lower_headers(layer):
    flags = inc_flags(layer)
    for other, header in HEADER.items():
        want = other in MAY[layer]
        assert found(flags, header) == want, (
            f"{layer} {'cannot' if want else 'can'} include {header} ({other}): {flags}")


def test_the_top_sees_everything():
    flags = inc_flags("server")  # main.c and the route table
    assert all(found(flags, h) for h in HEADER.values())


PROBE_BODY = "int layer_probe(void);\nint layer_probe(void) { return 0; }\n"


def compile_command(layer):
    """The command make runs to compile the layer's source, as a list."""
    src = SOURCE[layer]
    obj = "build/rel/" + src[:-2] + ".o"
    out = subprocess.run(["make", "-s", "-n", "-B", "--no-print-directory", obj], cwd=ROOT,
                         capture_output=True, text=True, check=True, env=make_env()).stdout
    line = next(ln for ln in out.splitlines() if f" -c {src} " in ln)
    return shlex.split(line)


def compiles(command, src, probe, tmp_path):
    """Compiles probe with command in place of its source: (ok, errors)."""
    c = tmp_path / "probe.c"
    c.write_text(probe)
    args = []
    for a in command:
        if a == src:
            args.append(str(c))
        elif a not in ("-MMD", "-MP"):
            args.append(a)
    args[args.index("-o") + 1] = str(tmp_path / "probe.o")
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


@pytest.mark.parametrize("layer", sorted(MAY))
def test_an_upward_include_fails_to_compile(layer, tmp_path):
    """A probe source including another layer's header, compiled with the
    very command make gives the layer's own files (-Werror and all): a
    higher layer's header stops the compile, its own and the lower ones'
    compile."""
    command = compile_command(layer)
    for other, header in HEADER.items():
        probe = f'#include "{header}"\n' + PROBE_BODY
        ok, err = compiles(command, SOURCE[layer], probe, tmp_path)
        if other in MAY[layer]:
            assert ok, f"{layer}'s files cannot compile with {header} ({other}):\n{err}"
        else:
            assert not ok and f"{header}: No such file" in err, (
                f"{layer}'s files compile with {header} ({other}), a higher layer's")
