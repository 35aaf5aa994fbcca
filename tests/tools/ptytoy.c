/* ptytoy — a misbehaving terminal program for the hosted-game tests
 * (tests/unit/server_hosted_pty.c). One mode per argument:
 *
 *   exit N     exits at once with status N
 *   flood      writes coloured lines forever
 *   nohup      ignores SIGHUP, prints "nohup ready", sleeps
 *   noread     prints "noread ready" in raw mode, never reads its input
 *   draw       draws a small screen (colours, attributes, a wide
 *              character, cursor moves), asks the terminal for the cursor
 *              position and shows the answer, then echoes each key on
 *              row 7 until 'q'
 *   winsize    prints "size WxH" at start and on every SIGWINCH; exits
 *              on 'q'
 *   keys       prints "keys ready", then for each read of its input one
 *              line "got N: HH HH ..." (the bytes in hex, in raw mode), so
 *              a test sees exactly what the program received; exits on 'q'
 *   saver      a game with a save: prints "restored: [TEXT]" (save/state
 *              in its working directory, the player's) or "nothing saved", then
 *              adds each letter typed to TEXT, saves it at once and prints
 *              "state: [TEXT]"; exits on 'q'
 *   mapsaver   the same, its save written only through a shared mapping
 *              of save/state (64 bytes, NUL-padded; msync after each
 *              letter), never by write(2): prints "mapped: [TEXT]" first
 *   slowsaver  saver's game, its save written in place and slowly, as a
 *              big program writes a big save: save/state ("[TEXT]", then
 *              dots to SLOWSAVER_BYTES - 4 bytes, then "end\n") made
 *              empty, its first half written, "half" printed, a second of
 *              sleep, then the rest; prints "state: [TEXT]" once whole
 *   churn KB [quiet]
 *              a game that rewrites its files all the time: every 0.1 s
 *              writes save/big (KB kilobytes, all of them changed) and
 *              save/state ("N", the rewrites so far) and prints "churn N";
 *              with quiet it stops writing files for 2.5 s after every 10
 *              rewrites (still printing "churn N" every 0.1 s), so its
 *              files are still at times; on 'q' it writes save/state "end
 *              N" and exits
 *   slow N     writes nothing for N seconds (a big program loading its
 *              data), then runs as keys
 *   report     prints what it was given: "env NAME=VALUE", "fd N" per open
 *              descriptor, "uid U gid G groups N", "limit NAME VALUE",
 *              "cwd PATH", "tty" checks and "sig" checks, then "end" and
 *              exits 0
 *   setsid     leaves a process behind, as a daemon would: a child that
 *              calls setsid and forks a grandchild, then exits; the
 *              grandchild (in a session of its own, no terminal, its parent
 *              gone) sleeps forever. Prints "grandchild PID" (the pid
 *              its /proc gives it: a box's own), then waits for 'q'
 *   plant RC TARGET NEW
 *              in its working directory (the player's), makes RC a link to
 *              TARGET and RC.new a link to NEW, prints "planted", then waits
 *              for 'q' (what an escaped game could do to the rc editor)
 *   xlog FILE NAME
 *              appends to FILE a row for NAME whose death holds C1 controls
 *              (raw and in UTF-8), bytes that are not UTF-8 and a
 *              bidirectional override, then exits 0
 *   connect PORT
 *              connects to 127.0.0.1:PORT over TCP, prints "connect: ok"
 *              or "connect: " and why not, then waits for 'q'
 *   unix listen|connect NAME
 *              listens on (or connects to) the abstract unix socket NAME,
 *              prints "unix listen: ok" (or "unix connect: ok") or why
 *              not, then waits for 'q'
 *   peek       reads a pid typed on its terminal (digits, then Enter),
 *              tries to read its environment and to attach to it with
 *              ptrace, prints "environ: ok|no ptrace: ok|no", then waits
 *              for 'q'
 *   kill       reads a pid typed on its terminal (digits, then Enter;
 *              none: -1, every process it may signal), sends it SIGKILL,
 *              prints "kill PID: ok" or "kill PID: " and why not, then
 *              waits for 'q'
 *   snoop [DIR...]
 *              reads a path typed on its terminal (then Enter), another
 *              player's directory; prints "pids N: P P ..." (what /proc
 *              lists), "named: yes|no" (whether a command line there holds
 *              the path's last part, the player's name), "ls N: NAME ..."
 *              for the Nth DIR (or why not), "open dir: ok|why" and "open file: ok|why"
 *              (the path and PATH/secret), then waits for 'q'
 *   grab DIR   reads a file name typed on its terminal (then Enter), one
 *              of another player's files in DIR (a game's playground);
 *              prints "ls: NAME ..." (what DIR lists, or why not) and
 *              "grab NAME: ok|why" (opening DIR/NAME to write and adding
 *              a line "grabbed" at its end, as a game that would corrupt
 *              it), then waits for 'q'
 *   unmount DIR
 *              in a user and mount namespace of its own (as a program may
 *              make them), tries to take away what covers DIR and /proc
 *              and to mount a proc of its own; prints "umount DIR: ok|why",
 *              "umount proc: ok|why", "mount proc: ok|why", then "ls:
 *              NAME ..." (what DIR lists after) and "pids: P ..." (what
 *              /proc lists), then waits for 'q'
 *   fill files|bytes|dirs N [nohup] [late] [echo]
 *              fills its working directory (the player's), as a program
 *              that would fill the disk: N empty files ("files"), N
 *              files of 1 MB written ("bytes") or N empty directories
 *              ("dirs"), named fill-NNNNN; prints
 *              "fill ready" first and "filled N" (or "fill: " and why
 *              not) after, then waits for 'q'. With nohup it ignores
 *              SIGHUP and, once filled, sleeps until it is killed; with
 *              late it waits 3 seconds before it writes; with echo it
 *              prints "key N" for each key after (a game that draws)
 *   spill [DIR...]
 *              writes a byte to a new file in each DIR (removed at once),
 *              as a program that would write past its disk cap, then
 *              makes a user and mount namespace of its own and mounts a
 *              tmpfs there (memory no limit counts); prints "spill DIR:
 *              ok|why", "nested namespaces: ok|why", "nested tmpfs:
 *              ok|why" (when it has them), "spill done", then waits for 'q'
 *   hold removed|tmpfile|mapped N [child|orphan|undumpable|inflight]
 *              holds N files of 1 MB open in its working directory (the
 *              player's) that no name there shows, as a program that would
 *              fill the disk past its caps: each made, written and removed
 *              ("removed"), made with O_TMPFILE and written ("tmpfile"),
 *              or made, mapped shared, closed, removed and written
 *              through the mapping alone ("mapped");
 *              with child a child it forks makes and holds them (and
 *              sleeps), not itself; with orphan a grandchild, its parent
 *              gone (left to a subreaper, in the same session); with
 *              undumpable it first makes itself
 *              undumpable (its /proc closed to its own user, as a program
 *              that would hide what it holds); with inflight each
 *              descriptor is sent (SCM_RIGHTS) into the queue of a Unix
 *              socket of its own, never received, and closed, so that no
 *              process holds the file (a socketpair, else a datagram
 *              socket connected to itself; "inflight: ok" or "inflight: "
 *              and why not for each way, and when neither is had it keeps
 *              the descriptors). Prints "hold ready" first and "held N"
 *              (or "hold: " and why not) after, then waits for 'q'
 *   sysv       makes a System V shared memory segment of 1 MB, writes it
 *              and leaves it; prints "sysv shm ID" (or why not), then
 *              waits for 'q'
 *   calls      tries the calls the box's filter refuses (memfd_create,
 *              userfaultfd, io_uring_setup, bpf, unshare of nothing,
 *              personality, a namespace by clone) and getpid through the
 *              other ABIs (x32, i386's int 0x80); prints "call NAME: ok"
 *              or "call NAME: " and why not for each, "user namespaces at
 *              most N" (its /proc's limit, -1 unread), "calls done", then
 *              waits for 'q'
 * Only libc: no sanitizer runtime, so limits and descriptors are its own. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <sys/un.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <time.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static void out(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(1, s, n);
        if (w <= 0)
            exit(3);
        s += w;
        n -= (size_t)w;
    }
}

static void raw_mode(void)
{
    struct termios t;
    if (tcgetattr(0, &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(0, TCSANOW, &t);
    }
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

static int __attribute__((noreturn)) flood(void)
{
    char line[128];
    for (unsigned long i = 0;; i++) {
        snprintf(line, sizeof line, "\x1b[3%lumflood %012lu abcdefghijklmnopqrstuvwxyz\x1b[0m\r\n",
                 i % 8, i);
        out(line);
    }
}

static int draw(void)
{
    raw_mode();
    out("\x1b[?1049h\x1b[2J\x1b[H");
    out("\x1b[1;31mRED\x1b[0m");
    out("\x1b[2;1H\x1b[38;5;200mP\x1b[48;2;255;0;0mQ\x1b[0m");
    out("\x1b[3;1H\x1b[4;7mU\x1b[0m\x1b[5mB\x1b[0m");
    out("\x1b[4;1H\xe6\x97\xa5x");
    out("\x1b[5;1H\x1b[94mBRIGHT\x1b[0m");
    out("\x1b[10;20H\x1b[6n");
    char ans[32];
    size_t n = 0;
    while (n < sizeof ans - 1 && read(0, ans + n, 1) == 1 && ans[n] != 'R')
        n++;
    ans[n] = 0;
    char line[96];
    /* one write: the grid that shows the answer shows the cursor placed too */
    snprintf(line, sizeof line, "\x1b[8;1Hcpr:%s\x1b[10;20H\x1b[?25l",
             ans[0] == 0x1b ? ans + 2 : "?");
    out(line);
    char c;
    while (read(0, &c, 1) == 1 && c != 'q') {
        snprintf(line, sizeof line, "\x1b[7;1Hkey:%c\x1b[10;20H", c >= 0x20 && c < 0x7F ? c : '?');
        out(line);
    }
    return 0;
}

static volatile sig_atomic_t winched;

static void on_winch(int sig)
{
    (void)sig;
    winched = 1;
}

static void print_size(void)
{
    struct winsize ws;
    char line[64];
    if (ioctl(0, TIOCGWINSZ, &ws) < 0)
        ws.ws_col = ws.ws_row = 0;
    snprintf(line, sizeof line, "size %ux%u\r\n", ws.ws_col, ws.ws_row);
    out(line);
}

/* SIGWINCH is blocked but while waiting in ppoll, so a resize that comes
 * between two waits is seen at the next one, never lost. */
static int winsize(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    sigset_t winch, waiting;
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    sigprocmask(SIG_BLOCK, &winch, &waiting);
    sigdelset(&waiting, SIGWINCH);
    raw_mode();
    print_size();
    for (;;) {
        struct pollfd in = {0, POLLIN, 0};
        int r = ppoll(&in, 1, NULL, &waiting);
        if (winched) {
            winched = 0;
            print_size();
        }
        char c;
        if (r > 0 && read(0, &c, 1) == 1 && c == 'q')
            return 0;
        if (r > 0 && (in.revents & (POLLHUP | POLLERR)))
            return 1;
    }
}

/* Each read on a line of its own: how many bytes and each in hex. */
static int keys(void)
{
    raw_mode();
    out("keys ready\r\n");
    unsigned char b[64];
    ssize_t n;
    while ((n = read(0, b, sizeof b)) > 0) {
        char line[16 + 3 * sizeof b];
        int at = snprintf(line, sizeof line, "got %d:", (int)n);
        for (ssize_t i = 0; i < n; i++)
            at += snprintf(line + at, sizeof line - (size_t)at, " %02x", b[i]);
        snprintf(line + at, sizeof line - (size_t)at, "\r\n");
        out(line);
        if (n == 1 && b[0] == 'q')
            return 0;
    }
    return 1;
}

/* The game's state in save/state of its working directory (the
 * player's), made 0600 through a temporary name. */
static void saver_write(const char *state)
{
    mkdir("save", 0700);
    int fd = open("save/state.new", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, state, strlen(state)) != (ssize_t)strlen(state) || close(fd) < 0 ||
        rename("save/state.new", "save/state") < 0)
        out("cannot save\r\n");
}

/* save/state read into state (size bytes, NUL-ended; empty when there
 * is none): the bytes read, -1 when there is none. */
static ssize_t saver_read(char *state, size_t size)
{
    int fd = open("save/state", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, state, size - 1) : -1;
    if (fd >= 0)
        close(fd);
    state[n > 0 ? n : 0] = 0;
    return n;
}

/* The savers' game: "restored: [TEXT]" (saved) or "nothing saved", then
 * each letter typed added to text (size bytes with its NUL), saved by
 * save and "state: [TEXT]" printed after every key until 'q'. */
static int saver_play(char *text, size_t size, bool saved, void (*save)(const char *))
{
    raw_mode();
    char line[200];
    snprintf(line, sizeof line, "restored: [%s]\r\n", text);
    out(saved ? line : "nothing saved\r\n");
    unsigned char b;
    while (read(0, &b, 1) == 1 && b != 'q') {
        size_t len = strlen(text);
        if (b >= 'a' && b <= 'z' && len + 1 < size) {
            text[len] = (char)b;
            text[len + 1] = 0;
            save(text);
        }
        snprintf(line, sizeof line, "state: [%s]\r\n", text);
        out(line);
    }
    return 0;
}

static int saver(void)
{
    char state[128];
    bool saved = saver_read(state, sizeof state) >= 0;
    return saver_play(state, sizeof state, saved, saver_write);
}

/* saver's game, its state written through a shared mapping of
 * save/state alone (MAPSAVER_BYTES, NUL-padded), never by write(2):
 * synced (msync) after each change, as a program that wants its save
 * on disk does, so the kernel sets the file's mtime at the next. */
#define MAPSAVER_BYTES 64
static int mapsaver(void)
{
    mkdir("save", 0700);
    int fd = open("save/state", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    char *m = fd < 0 || ftruncate(fd, MAPSAVER_BYTES) < 0
                  ? MAP_FAILED
                  : mmap(NULL, MAPSAVER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED) {
        out("cannot map\r\n");
        return 1;
    }
    raw_mode();
    char line[200];
    size_t len = strnlen(m, MAPSAVER_BYTES - 1);
    snprintf(line, sizeof line, "mapped: [%.*s]\r\n", (int)len, m);
    out(line);
    unsigned char b;
    while (read(0, &b, 1) == 1 && b != 'q') {
        if (b >= 'a' && b <= 'z' && len + 1 < MAPSAVER_BYTES) {
            m[len++] = (char)b;
            msync(m, MAPSAVER_BYTES, MS_SYNC);
        }
        snprintf(line, sizeof line, "state: [%.*s]\r\n", (int)len, m);
        out(line);
    }
    return 0;
}

/* saver's game, its save/state rewritten in place in two halves a
 * second apart: a copy between them would be half a save. */
#define SLOWSAVER_BYTES 4096
static void slowsaver_write(const char *state)
{
    char buf[SLOWSAVER_BYTES];
    int at = snprintf(buf, sizeof buf, "[%s]", state);
    memset(buf + at, '.', sizeof buf - 4 - (size_t)at);
    memcpy(buf + sizeof buf - 4, "end\n", 4);
    mkdir("save", 0700);
    int fd = open("save/state", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, buf, sizeof buf / 2) == (ssize_t)sizeof buf / 2;
    out("half\r\n");
    sleep(1);
    ok = ok && write(fd, buf + sizeof buf / 2, sizeof buf / 2) == (ssize_t)sizeof buf / 2;
    if (fd < 0 || close(fd) < 0 || !ok)
        out("cannot save\r\n");
}

static int slowsaver(void)
{
    char state[SLOWSAVER_BYTES + 1], text[128] = "";
    bool saved = saver_read(state, sizeof state) >= 0;
    sscanf(state, "[%127[a-z]]", text);
    return saver_play(text, sizeof text, saved, slowsaver_write);
}

static int churn(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[2]) <= 0)
        return 2;
    bool quiet = argc > 3 && !strcmp(argv[3], "quiet");
    size_t len = (size_t)atoi(argv[2]) * 1024;
    char *big = malloc(len), state[64], line[64];
    if (!big)
        return 1;
    raw_mode();
    mkdir("save", 0700);
    for (unsigned n = 1, tick = 0;; tick++) {
        if (!quiet || tick % 35 < 10) { /* quiet: 10 rewrites, then 25 ticks still */
            memset(big, 'a' + (int)(n % 26), len);
            snprintf(big, len, "%u", n);
            int fd = open("save/big", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0 || write(fd, big, len) != (ssize_t)len || close(fd) < 0)
                out("cannot write\r\n");
            snprintf(state, sizeof state, "%u", n);
            saver_write(state);
            n++;
        }
        snprintf(line, sizeof line, "churn %u\r\n", n - 1);
        out(line);
        struct pollfd p = {.fd = 0, .events = POLLIN};
        unsigned char b;
        if (poll(&p, 1, 100) == 1 && read(0, &b, 1) == 1 && b == 'q') {
            snprintf(state, sizeof state, "end %u", n - 1);
            saver_write(state);
            free(big);
            return 0;
        }
    }
}

static void report_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        out("fd unknown\r\n");
        return;
    }
    struct dirent *e;
    char line[300];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
            continue;
        snprintf(line, sizeof line, "fd %s\r\n", e->d_name);
        out(line);
    }
    closedir(d);
}

static void report_limits(void)
{
    const struct {
        const char *name;
        int res;
    } lim[] = {{"cpu", RLIMIT_CPU},
               {"as", RLIMIT_AS},
               {"nofile", RLIMIT_NOFILE},
               {"nproc", RLIMIT_NPROC},
               {"fsize", RLIMIT_FSIZE}};
    char line[128];
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        struct rlimit r;
        getrlimit(lim[i].res, &r);
        if (r.rlim_cur == RLIM_INFINITY)
            snprintf(line, sizeof line, "limit %s inf\r\n", lim[i].name);
        else
            snprintf(line, sizeof line, "limit %s %llu\r\n", lim[i].name,
                     (unsigned long long)r.rlim_cur);
        out(line);
    }
}

/* Signals: none blocked, SIGPIPE and SIGINT at their defaults. */
static void report_signals(void)
{
    sigset_t set;
    sigprocmask(SIG_BLOCK, NULL, &set);
    int blocked = 0;
    for (int s = 1; s < 32; s++)
        blocked += sigismember(&set, s) == 1;
    struct sigaction pipe_sa, int_sa;
    sigaction(SIGPIPE, NULL, &pipe_sa);
    sigaction(SIGINT, NULL, &int_sa);
    char line[128];
    snprintf(line, sizeof line, "sig blocked %d pipe %s int %s\r\n", blocked,
             pipe_sa.sa_handler == SIG_DFL ? "default" : "changed",
             int_sa.sa_handler == SIG_DFL ? "default" : "changed");
    out(line);
}

static int report(void)
{
    char line[4200];
    for (char **e = environ; *e; e++) {
        snprintf(line, sizeof line, "env %s\r\n", *e);
        out(line);
    }
    report_fds();
    gid_t groups[64];
    int ng = getgroups(64, groups);
    snprintf(line, sizeof line, "uid %u gid %u groups %d\r\n", (unsigned)getuid(),
             (unsigned)getgid(), ng);
    out(line);
    report_limits();
    char cwd[1024];
    snprintf(line, sizeof line, "cwd %s\r\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    out(line);
    snprintf(line, sizeof line, "tty %s leader %s\r\n", isatty(0) ? "yes" : "no",
             getsid(0) == getpid() && tcgetpgrp(0) == getpgrp() ? "yes" : "no");
    out(line);
    report_signals();
    out("end\r\n");
    return 0;
}

/* Waits for 'q' on the terminal; a hangup ends it too. */
static int wait_q(void)
{
    raw_mode();
    char c;
    while (read(0, &c, 1) == 1)
        if (c == 'q')
            return 0;
    return 1;
}

/* This process's pid as its /proc shows it: in a game's box, the box's
 * (its /proc is its pid namespace's), so the tests map it to the
 * machine's. */
static pid_t proc_pid(void)
{
    char text[32];
    ssize_t n = readlink("/proc/self", text, sizeof text - 1);
    if (n <= 0)
        return getpid();
    text[n] = 0;
    return (pid_t)atoi(text);
}

static int leave_behind(void)
{
    int fds[2];
    if (pipe(fds) < 0)
        return 3;
    pid_t child = fork();
    if (child == 0) { /* the middle: a session of its own, then gone */
        setsid();
        pid_t g = fork();
        if (g == 0) {
            pid_t me = proc_pid();
            ssize_t n = write(fds[1], &me, sizeof me);
            (void)n;
            for (int fd = 0; fd < 1024; fd++)
                close(fd);
            sleep_forever();
        }
        _exit(g > 0 ? 0 : 1);
    }
    pid_t g = 0;
    ssize_t n = read(fds[0], &g, sizeof g);
    waitpid(child, NULL, 0);
    char line[64];
    snprintf(line, sizeof line, "grandchild %d\r\n", n == (ssize_t)sizeof g ? (int)g : -1);
    out(line);
    return wait_q();
}

static int plant(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    char new[4200];
    snprintf(new, sizeof new, "%s.new", argv[2]);
    unlink(argv[2]);
    unlink(new);
    if (symlink(argv[3], argv[2]) < 0 || symlink(argv[4], new) < 0) {
        out("plant failed\r\n");
        return 1;
    }
    out("planted\r\n");
    return wait_q();
}

static int xlog_row(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return 1;
    char row[512];
    int n = snprintf(row, sizeof row,
                     "version=3.6.6\tname=%s\tdeath=killed by \x9b"
                     "31mred\x9b"
                     "0m, \xc2\x9b"
                     "2J, \xff\xfe and \xe2\x80\xae"
                     "drow\xc3\tpoints=4242\tturns=7\t"
                     "endtime=%lld\n",
                     argv[3], (long long)time(NULL) + 5);
    ssize_t w = write(fd, row, (size_t)n);
    close(fd);
    return w == n ? 0 : 1;
}

static int connect_to(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    char line[160];
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
        snprintf(line, sizeof line, "connect: %s\r\n", strerror(errno));
    else
        snprintf(line, sizeof line, "connect: ok\r\n");
    out(line);
    return wait_q();
}

/* An abstract unix socket (one per network namespace: shared by the
 * processes in it unless the kernel scopes them). */
static int unix_abstract(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    bool listening = !strcmp(argv[2], "listen");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t n = strlen(argv[3]);
    if (n >= sizeof a.sun_path)
        return 2;
    memcpy(a.sun_path + 1, argv[3], n); /* sun_path[0] is 0: abstract */
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int r = s < 0       ? -1
            : listening ? (bind(s, (struct sockaddr *)&a, len) < 0 ? -1 : listen(s, 4))
                        : connect(s, (struct sockaddr *)&a, len);
    char line[160];
    snprintf(line, sizeof line, "unix %s: %s\r\n", argv[2], r == 0 ? "ok" : strerror(errno));
    out(line);
    return wait_q();
}

/* A pid typed on the terminal, then Enter; dflt when none is. */
static pid_t read_pid(pid_t dflt)
{
    char c, num[16];
    size_t n = 0;
    while (read(0, &c, 1) == 1 && c != '\r' && n < sizeof num - 1)
        num[n++] = c;
    num[n] = 0;
    return n ? (pid_t)atoi(num) : dflt;
}

/* What another program of the same user gives away: its environment, a
 * ptrace attach. */
static int peek(void)
{
    raw_mode();
    out("peek ready\r\n");
    pid_t pid = read_pid(0);
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool env = fd >= 0 && read(fd, buf, sizeof buf) > 0;
    if (fd >= 0)
        close(fd);
    bool traced = ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0;
    if (traced)
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
    char line[80];
    snprintf(line, sizeof line, "environ: %s ptrace: %s\r\n", env ? "ok" : "no",
             traced ? "ok" : "no");
    out(line);
    return wait_q();
}

/* What a program of the same user may do to another: kill it, or every
 * process it may signal (kill -9 -1). */
static int kill_pid(void)
{
    raw_mode();
    out("kill ready\r\n");
    pid_t pid = read_pid(-1);
    int r = kill(pid, SIGKILL);
    char line[80];
    snprintf(line, sizeof line, "kill %d: %s\r\n", (int)pid, r == 0 ? "ok" : strerror(errno));
    out(line);
    return wait_q();
}

/* A line typed on the terminal, up to Enter, into buf (cap bytes). */
static void read_line(char *buf, size_t cap)
{
    size_t n = 0;
    char c;
    while (read(0, &c, 1) == 1 && c != '\r' && n < cap - 1)
        buf[n++] = c;
    buf[n] = 0;
}

/* Appends " NAME" for each entry of path (digits only: pids) to line;
 * returns how many, or -1 with errno. */
static int list_names(const char *path, bool pids, char *line, size_t cap)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if ((pids && strspn(e->d_name, "0123456789") != strlen(e->d_name)) ||
            (!pids && e->d_name[0] == '.'))
            continue;
        size_t len = strlen(line);
        if (len + strlen(e->d_name) + 2 < cap)
            snprintf(line + len, cap - len, " %s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

/* Whether a command line in /proc holds word. */
static bool named_in_proc(const char *word)
{
    DIR *d = opendir("/proc");
    bool seen = false;
    for (struct dirent *e; d && !seen && (e = readdir(d));) {
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        for (ssize_t i = 0; i < n; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        seen = n > 0 && (buf[n] = 0, strstr(buf, word) != NULL);
    }
    if (d)
        closedir(d);
    return seen;
}

static void say_open(const char *what, const char *path, int flags)
{
    char line[300];
    int fd = open(path, flags | O_RDONLY | O_CLOEXEC);
    snprintf(line, sizeof line, "open %s: %s\r\n", what, fd >= 0 ? "ok" : strerror(errno));
    if (fd >= 0)
        close(fd);
    out(line);
}

/* What a program may learn of other players: the processes /proc shows,
 * other directories, another player's directory and file. */
static int snoop(int argc, char **argv)
{
    raw_mode();
    out("snoop ready\r\n");
    char path[512], file[600], line[2048] = "";
    read_line(path, sizeof path);
    int n = list_names("/proc", true, line, 400);
    char head[600];
    snprintf(head, sizeof head, "pids %d:", n);
    out(head);
    out(line);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    out(named_in_proc(name) ? "\r\nnamed: yes\r\n" : "\r\nnamed: no\r\n");
    for (int i = 2; i < argc; i++) {
        line[0] = 0;
        bool ok = list_names(argv[i], false, line, sizeof line) >= 0;
        snprintf(head, sizeof head, "ls %d:", i - 1);
        out(head);
        out(ok ? line : strerror(errno));
        out("\r\n");
    }
    say_open("dir", path, O_DIRECTORY);
    snprintf(file, sizeof file, "%s/secret", path);
    say_open("file", file, 0);
    return wait_q();
}

/* What a program may do to another player's files in a shared
 * directory: list them, open one to write. */
static int grab(const char *dir)
{
    raw_mode();
    out("grab ready\r\n");
    char name[256], path[800], line[2048] = "";
    read_line(name, sizeof name);
    bool ok = list_names(dir, false, line, sizeof line) >= 0;
    out("ls:");
    out(ok ? line : strerror(errno));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    bool wrote = fd >= 0 && write(fd, "grabbed\n", 8) == 8;
    snprintf(line, sizeof line, "\r\ngrab %s: %s\r\n", name, wrote ? "ok" : strerror(errno));
    if (fd >= 0)
        close(fd);
    out(line);
    return wait_q();
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
    if (fd >= 0)
        close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void say_result(const char *what, int r)
{
    char line[300];
    snprintf(line, sizeof line, "%s: %s\r\n", what, r == 0 ? "ok" : strerror(errno));
    out(line);
}

/* In a user namespace of its own (its ids root there), a mount namespace
 * of its own, where it has every right. */
static int own_namespaces(void)
{
    char map[64];
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
        return -1;
    snprintf(map, sizeof map, "0 %u 1", uid);
    if (write_file("/proc/self/uid_map", map) < 0 || write_file("/proc/self/setgroups", "deny") < 0)
        return -1;
    snprintf(map, sizeof map, "0 %u 1", gid);
    return write_file("/proc/self/gid_map", map);
}

/* What a program may undo of its box: the mounts over dir and /proc. */
static int unmount(const char *dir)
{
    raw_mode();
    char line[2048] = "";
    say_result("namespaces", own_namespaces());
    say_result("umount dir", umount2(dir, MNT_DETACH));
    say_result("umount proc", umount2("/proc", MNT_DETACH));
    say_result("mount proc", mount("proc", "/proc", "proc", 0, NULL));
    bool ok = list_names(dir, false, line, sizeof line) >= 0;
    out("ls:");
    out(ok ? line : strerror(errno));
    line[0] = 0;
    list_names("/proc", true, line, sizeof line);
    out("\r\npids:");
    out(line);
    out("\r\nunmount done\r\n");
    return wait_q();
}

/* Where a program could write past its disk cap: a file in each of
 * dirs (made and removed again at once), then a tmpfs of its own in
 * namespaces of its own (memory no cap counts). */
static int spill(int argc, char **argv)
{
    raw_mode();
    char path[600], what[200];
    for (int a = 2; a < argc; a++) {
        snprintf(path, sizeof path, "%s/ptytoy-spill-%d", argv[a], (int)getpid());
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        int r = fd < 0 || write(fd, "x", 1) != 1 ? -1 : 0;
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        errno = e;
        snprintf(what, sizeof what, "spill %.150s", argv[a]);
        say_result(what, r);
    }
    int r = own_namespaces();
    say_result("nested namespaces", r);
    if (r == 0)
        say_result("nested tmpfs", mount("spill", ".", "tmpfs", 0, "size=1m"));
    out("spill done\r\n");
    return wait_q();
}

/* A System V shared memory segment of 1 MB, written and left behind
 * (memory no limit of the program's counts, which would outlive it). */
static int sysv(void)
{
    raw_mode();
    char line[100];
    int id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
    char *p = id < 0 ? (char *)-1 : shmat(id, NULL, 0);
    if (p != (char *)-1) {
        memset(p, 'x', 1 << 20);
        shmdt(p);
        snprintf(line, sizeof line, "sysv shm %d\r\n", id);
    } else {
        snprintf(line, sizeof line, "sysv shm: %s\r\n", strerror(errno));
    }
    out(line);
    return wait_q();
}

/* getpid through i386's int 0x80, in a child (a kernel without the
 * i386 ABI kills it): 0, or -1 with errno. */
static long int80_getpid(void)
{
#if defined(__x86_64__)
    pid_t pid = fork();
    if (pid == 0) {
        long r = 20; /* i386's getpid */
        __asm__ volatile("int $0x80" : "+a"(r) : : "memory");
        _exit(r > 0 ? 0 : r == -EPERM ? 1 : 2);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) < 2)
        return WEXITSTATUS(st) ? (errno = EPERM, -1) : 0;
    return errno = ENOSYS, -1;
#else
    return errno = ENOSYS, -1;
#endif
}

/* A namespace by clone (raw: the C library's wrappers may use clone3):
 * 0 when it made one, -1 with errno. */
static long clone_newuts(void)
{
    long pid = syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, NULL, NULL, NULL, 0);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return pid < 0 ? -1 : 0;
}

static long try_memfd(void)
{
    return syscall(SYS_memfd_create, "toy", 0);
}

static long try_userfaultfd(void)
{
    return syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY: no right needed */);
}

static long try_io_uring(void)
{
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    return syscall(SYS_io_uring_setup, 4, &params);
}

static long try_bpf(void)
{
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.map_type = BPF_MAP_TYPE_ARRAY, attr.key_size = 4, attr.value_size = 4;
    attr.max_entries = 1;
    return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
}

static long try_unshare(void)
{
    return syscall(SYS_unshare, 0); /* of nothing: fine unless refused */
}

static long try_personality(void)
{
    return syscall(SYS_personality, ADDR_NO_RANDOMIZE);
}

static long try_x32(void)
{
    return syscall(0x40000000 | SYS_getpid);
}

static int calls(void)
{
    static const struct {
        const char *name;
        long (*call)(void);
    } CALLS[] = {{"memfd_create", try_memfd},      {"userfaultfd", try_userfaultfd},
                 {"io_uring_setup", try_io_uring}, {"bpf", try_bpf},
                 {"unshare", try_unshare},         {"personality", try_personality},
                 {"clone", clone_newuts},          {"x32", try_x32},
                 {"int80", int80_getpid}};
    char line[160];
    raw_mode();
    for (size_t i = 0; i < sizeof CALLS / sizeof CALLS[0]; i++) {
        errno = 0;
        long r = CALLS[i].call();
        snprintf(line, sizeof line, "call %s: %s\r\n", CALLS[i].name,
                 r >= 0 ? "ok" : strerror(errno));
        out(line);
    }
    /* the box's limit beneath the filter's unshare: none made inside */
    FILE *f = fopen("/proc/sys/user/max_user_namespaces", "r");
    long most = -1;
    if (f && fscanf(f, "%ld", &most) != 1)
        most = -1;
    if (f)
        fclose(f);
    snprintf(line, sizeof line, "user namespaces at most %ld\r\n", most);
    out(line);
    out("calls done\r\n");
    return wait_q();
}

/* One file of fill: empty, or of 1 MB written; or a directory. */
static int fill_one(int i, bool bytes, bool dirs)
{
    static char block[64 * 1024];
    char name[32];
    snprintf(name, sizeof name, "fill-%05d", i);
    if (dirs)
        return mkdir(name, 0700);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    memset(block, 'x', sizeof block);
    for (int k = 0; bytes && k < 16; k++)
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block) {
            close(fd);
            return -1;
        }
    return close(fd);
}

static int fill(int argc, char **argv)
{
    bool bytes = argc > 2 && !strcmp(argv[2], "bytes");
    bool dirs = argc > 2 && !strcmp(argv[2], "dirs");
    bool hup = true, late = false, echo = false;
    for (int a = 4; a < argc; a++) {
        hup = hup && strcmp(argv[a], "nohup");
        late = late || !strcmp(argv[a], "late");
        echo = echo || !strcmp(argv[a], "echo");
    }
    int n = argc > 3 ? atoi(argv[3]) : 0, i = 0;
    char line[300];
    if (!hup)
        signal(SIGHUP, SIG_IGN);
    raw_mode();
    out("fill ready\r\n");
    if (late)
        sleep(3);
    while (i < n && fill_one(i, bytes, dirs) == 0)
        i++;
    if (i < n)
        snprintf(line, sizeof line, "fill: %s after %d\r\n", strerror(errno), i);
    else
        snprintf(line, sizeof line, "filled %d\r\n", n);
    out(line);
    if (!hup)
        sleep_forever();
    char c;
    for (unsigned k = 1; echo && read(0, &c, 1) == 1 && c != 'q'; k++) {
        snprintf(line, sizeof line, "key %u\r\n", k);
        out(line);
    }
    return echo ? 0 : wait_q();
}

enum { HOLD_REMOVED, HOLD_TMPFILE, HOLD_MAPPED };

/* One file of 1 MB held by a shared mapping alone: made, mapped, its
 * descriptor closed, removed, then written through the mapping (and
 * synced: its blocks allocated). 0 or -1. */
static int map_one(const char *name)
{
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    char *m = ftruncate(fd, 1 << 20) < 0
                  ? MAP_FAILED
                  : mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED || unlink(name) < 0)
        return -1;
    memset(m, 'x', 1 << 20);
    return msync(m, 1 << 20, MS_SYNC);
}

/* A Unix socket whose sends queue on itself, never read: a socketpair's
 * end, else a datagram socket connected to its own (autobound) name; -1
 * when there is none, each try said. */
static int inflight_socket(void)
{
    int sv[2], s;
    char line[120];
    int r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    snprintf(line, sizeof line, "inflight: socketpair: %s\r\n", r < 0 ? strerror(errno) : "ok");
    out(line);
    if (r == 0)
        return sv[0];
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    socklen_t len = sizeof a.sun_family;
    s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    r = s < 0 || bind(s, (struct sockaddr *)&a, len) < 0 ? -1 : 0; /* autobind */
    len = sizeof a;
    if (r == 0 && (getsockname(s, (struct sockaddr *)&a, &len) < 0 ||
                   connect(s, (struct sockaddr *)&a, len) < 0))
        r = -1;
    snprintf(line, sizeof line, "inflight: socket: %s\r\n", r < 0 ? strerror(errno) : "ok");
    out(line);
    return r < 0 ? -1 : s;
}

/* fd sent into sock's queue and closed: 0, or -1 (fd kept). */
static int send_away(int sock, int fd)
{
    char byte = 'x', ctl[CMSG_SPACE(sizeof fd)] = {0};
    struct iovec iov = {&byte, 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fd);
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(sock, &m, 0) != 1)
        return -1;
    return close(fd);
}

static int inflight_sock = -1; /* hold's, with inflight */

/* One held file of 1 MB: open, written, with no name; its descriptor
 * (mapped, or sent away: 0, none left). */
static int hold_one(int i, int how)
{
    static char block[64 * 1024];
    char name[32];
    snprintf(name, sizeof name, "hold-%05d", i);
    if (how == HOLD_MAPPED)
        return map_one(name);
    bool tmpfile = how == HOLD_TMPFILE;
    int fd = tmpfile ? open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
                     : open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || (!tmpfile && unlink(name) < 0))
        return -1;
    memset(block, 'x', sizeof block);
    for (int k = 0; k < 16; k++)
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
            return -1;
    if (fsync(fd) < 0) /* its blocks allocated: st_blocks counts them */
        return -1;
    return inflight_sock >= 0 ? send_away(inflight_sock, fd) : fd;
}

/* The files held, and what to say of them, in line. */
static void hold_all(int n, int how, char *line, size_t len)
{
    int i = 0;
    while (i < n && hold_one(i, how) >= 0)
        i++;
    if (i < n)
        snprintf(line, len, "hold: %s after %d\r\n", strerror(errno), i);
    else
        snprintf(line, len, "held %d\r\n", n);
}

static int hold(int argc, char **argv)
{
    const char *kind = argc > 2 ? argv[2] : "";
    int how = !strcmp(kind, "tmpfile")  ? HOLD_TMPFILE
              : !strcmp(kind, "mapped") ? HOLD_MAPPED
                                        : HOLD_REMOVED;
    bool orphan = argc > 4 && !strcmp(argv[4], "orphan");
    bool child = orphan || (argc > 4 && !strcmp(argv[4], "child"));
    if (argc > 4 && !strcmp(argv[4], "undumpable") && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return 3;
    int n = argc > 3 ? atoi(argv[3]) : 0, told[2];
    char line[300] = "hold: the child said nothing\r\n";
    raw_mode();
    out("hold ready\r\n");
    if (argc > 4 && !strcmp(argv[4], "inflight"))
        inflight_sock = inflight_socket();
    if (!child)
        hold_all(n, how, line, sizeof line);
    else if (pipe(told) < 0)
        snprintf(line, sizeof line, "hold: pipe: %s\r\n", strerror(errno));
    else if (fork() == 0) { /* the child (or its child) holds them, tells, sleeps */
        if (orphan && fork() != 0)
            _exit(0);
        hold_all(n, how, line, sizeof line);
        if (write(told[1], line, strlen(line)) < 0)
            _exit(3);
        sleep_forever();
    } else {
        close(told[1]);
        ssize_t r = read(told[0], line, sizeof line - 1);
        if (r > 0)
            line[r] = 0;
    }
    out(line);
    return wait_q();
}

static int exit_with(int argc, char **argv)
{
    return argc > 2 ? atoi(argv[2]) : 0;
}

static int nohup(void)
{
    signal(SIGHUP, SIG_IGN);
    out("nohup ready\r\n");
    sleep_forever();
    return 0;
}

static int noread(void)
{
    raw_mode(); /* a full line buffer in canonical mode would discard, not fill */
    out("noread ready\r\n");
    sleep_forever();
    return 0;
}

static int grab_in(int argc, char **argv)
{
    return argc > 2 ? grab(argv[2]) : 2;
}

static int unmount_in(int argc, char **argv)
{
    return argc > 2 ? unmount(argv[2]) : 2;
}

static int slow(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    sleep((unsigned)atoi(argv[2]));
    return keys();
}

/* Each mode: its name and what it runs, without arguments or with argv
 * (each checks its own; 2 when they are missing). */
static const struct {
    const char *name;
    int (*plain)(void);
    int (*with)(int argc, char **argv);
} MODES[] = {
    {"exit", NULL, exit_with},      {"flood", flood, NULL},         {"nohup", nohup, NULL},
    {"noread", noread, NULL},       {"draw", draw, NULL},           {"winsize", winsize, NULL},
    {"report", report, NULL},       {"setsid", leave_behind, NULL}, {"plant", NULL, plant},
    {"keys", keys, NULL},           {"saver", saver, NULL},         {"mapsaver", mapsaver, NULL},
    {"xlog", NULL, xlog_row},       {"connect", NULL, connect_to},  {"unix", NULL, unix_abstract},
    {"peek", peek, NULL},           {"kill", kill_pid, NULL},       {"snoop", NULL, snoop},
    {"grab", NULL, grab_in},        {"unmount", NULL, unmount_in},  {"fill", NULL, fill},
    {"spill", NULL, spill},         {"sysv", sysv, NULL},           {"calls", calls, NULL},
    {"hold", NULL, hold},           {"slow", NULL, slow},           {"churn", NULL, churn},
    {"slowsaver", slowsaver, NULL},
};

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
        if (!strcmp(mode, MODES[i].name))
            return MODES[i].plain ? MODES[i].plain() : MODES[i].with(argc, argv);
    fprintf(
        stderr,
        "usage: ptytoy exit N|flood|nohup|noread|draw|winsize|report|setsid|"
        "plant RC TARGET NEW|keys|saver|mapsaver|xlog FILE NAME|connect PORT|unix listen|connect "
        "NAME|peek|kill|snoop [DIR...]|"
        "grab DIR|unmount DIR|fill files|bytes|dirs N [nohup] [late] [echo]|spill "
        "[DIR...]|sysv|calls|"
        "hold removed|tmpfile|mapped N [child|orphan|undumpable|inflight]|slow N|churn KB "
        "[quiet]|slowsaver\n");
    return 2;
}
