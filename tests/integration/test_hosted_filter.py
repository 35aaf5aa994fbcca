"""A hosted program's system calls pass the box's filter (docs/HOSTING.md,
"The system call filter"), with the real daemon as root: the calls that
give memory no cap counts or reach the kernel's larger attack surface
fail with EPERM in a boxed game and in a network = host one alike, and
the other ABIs are refused whole; a filter that cannot be loaded refuses
the start, saying so to the player and the log, and never runs the game
unfiltered."""
import ctypes
import ctypes.util
import errno
import os
import platform
import re
import subprocess

import pytest

from harness import unique_name
from test_hosted import new_player, start_hosted, toy_copy
from test_hosted_box import box  # noqa: F401 (a fixture)

if os.geteuid() != 0:  # the box is a root daemon's
    raise RuntimeError("the hosted filter tests run as root (as CI does)")

REFUSED = ["memfd_create", "userfaultfd", "io_uring_setup", "bpf", "unshare", "personality",
           "clone"]
OTHER_ABIS = ["x32", "int80"] if platform.machine() == "x86_64" else []
EPERM = os.strerror(errno.EPERM)
ENOSYS = os.strerror(errno.ENOSYS)


def refused_want(toy):
    """What each other ABI's call must give beneath the filter: EPERM, but
    for i386's int 0x80 on a kernel without that ABI, which kills the
    caller before any filter sees it (the toy then says ENOSYS), as the
    toy run here without the filter shows: nothing there to refuse."""
    out = subprocess.run([str(toy), "calls"], input=b"q", capture_output=True, timeout=30).stdout
    bare = dict(re.findall(r"call (\w+): ([^\r\n\x1b]*)", out.decode(errors="replace")))
    assert "int80" in bare or not OTHER_ABIS, out[-2000:]
    return {c: ENOSYS if c == "int80" and bare[c] == ENOSYS else EPERM for c in OTHER_ABIS}


def calls_of(t, name):
    """Registers name, plays the toy's calls (menu entry 1), and returns
    what each call printed: {NAME: "ok" or why not}."""
    t.register(name)
    t.send("1")
    t.wait_for("calls done")
    t.send("q")
    t.wait_for("has ended")
    return dict(re.findall(r"call (\w+): ([^\r\n\x1b]*)", t.raw.decode(errors="replace")))


@pytest.mark.parametrize("network", ["", "network = host\n"])
def test_the_calls_no_game_needs_are_refused_with_eperm(bindir, box, clients, network):  # noqa: F811
    """memfd_create (memory no cap counts: the attack that would drive the
    machine into the OOM killer), userfaultfd, io_uring, bpf, unshare,
    personality, a namespace by clone, and getpid through x32 and i386's
    int 0x80: each fails with EPERM, and the program goes on (no kill)."""
    d = start_hosted(bindir, box["root"], f"[game toy]\ncommand = {box['toy']} calls\n{network}")
    try:
        t = clients(d.port)
        got = calls_of(t, unique_name("sc"))
        want = dict({c: EPERM for c in REFUSED}, **refused_want(box["toy"]))
        for call, why in want.items():
            assert got.get(call) == why, (call, got)
        if not network:  # beneath the filter, the box's user namespace allows none inside
            assert b"user namespaces at most 0" in t.raw, t.raw[-2000:]
        d.wait_log(r"program exited user=\S+ game=toy pid=\d+ status=0")
    finally:
        d.stop_clean()


def no_seccomp():
    """In the daemon's process before exec: every later seccomp filter
    refused (prctl's PR_SET_SECCOMP and the seccomp call), as a machine
    whose kernel or container would not take one."""
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp"), use_errno=True)

    class Cmp(ctypes.Structure):
        _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                    ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]

    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    allow, refuse = 0x7fff0000, 0x00050000 | errno.EPERM
    ctx = lib.seccomp_init(allow)
    set_seccomp = Cmp(0, 4, 22, 0)  # arg 0 == PR_SET_SECCOMP
    ok = lib.seccomp_rule_add_array(ctx, refuse, lib.seccomp_syscall_resolve_name(b"prctl"), 1,
                                    ctypes.byref(set_seccomp)) == 0
    ok = ok and lib.seccomp_rule_add_array(
        ctx, refuse, lib.seccomp_syscall_resolve_name(b"seccomp"), 0, None) == 0
    if not ok or lib.seccomp_load(ctx) != 0:
        os._exit(121)


def test_a_filter_that_cannot_be_loaded_refuses_the_start(bindir, tmp_path, clients):
    """Where no filter can be loaded, the game does not start unfiltered:
    the player is told it cannot start, the log says why."""
    toy = toy_copy(bindir, tmp_path)
    d = start_hosted(bindir, tmp_path, f"[game toy]\ncommand = {toy} calls\n",
                     popen={"preexec_fn": no_seccomp})
    try:
        t, name = new_player(d, clients, "nf", "1")
        t.wait_for("cannot start")
        d.wait_log(rf"cannot start game=toy user={name}: system call filter: {EPERM}")
        assert b"calls done" not in t.raw and b"call memfd_create" not in t.raw
    finally:
        d.stop_clean()
