/* Unit tests: server/hosted/ptyproc — real programs under real ptys on a
 * real libuv loop: bin/tools/ptytoy in its misbehaving modes, and Debian's
 * NetHack (nethack-console) from its opening screen through a hangup save,
 * a restore and a quit that writes an xlogfile row. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hosted/gamecfg.h"
#include "hosted/ptyproc.h"
#include "hosted/xlog.h"

typedef struct {
    uv_loop_t *loop;
    ptyproc_t *p;
    char out[1 << 16]; /* the first 64 KB of output, NUL-terminated */
    size_t outlen;
    uint64_t total;
    uint64_t turn_bytes, max_turn; /* output per loop turn */
    int turn_calls, max_calls;     /* output calls per loop turn */
    uint64_t goal;                 /* past_total's */
    int exits, status;
    screen_t *screen;
} toy_t;

static char *const TOY_ENV[] = {"TERM=xterm-256color", "HOME=/tmp", NULL};

/* The release build of tests/tools/ptytoy.c, beside this binary's bin/. */
static void toy_path(char *out, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = 0;
    snprintf(out, len, "%s/../tools/ptytoy", dirname(exe));
    ck_assert_msg(access(out, X_OK) == 0, "no %s", out);
}

static void on_output(ptyproc_t *p, const char *b, size_t n, void *user)
{
    toy_t *t = user;
    ck_assert_ptr_eq(p, t->p);
    ck_assert_uint_le(n, PTYPROC_READ_BUDGET);
    size_t room = sizeof t->out - 1 - t->outlen;
    size_t take = n < room ? n : room;
    memcpy(t->out + t->outlen, b, take);
    t->outlen += take;
    t->out[t->outlen] = 0;
    t->total += n;
    t->turn_bytes += n;
    t->turn_calls++;
}

static void on_exited(ptyproc_t *p, int status, void *user)
{
    toy_t *t = user;
    ck_assert(!ptyproc_running(p));
    t->exits++;
    t->status = status;
}

static const ptyproc_cbs_t CBS = {on_output, on_exited};

/* What a test runs: ptytoy MODE [ARG] in /tmp, 80x24, TOY_ENV. */
typedef struct {
    char path[4096];
    char *argv[4];
    ptyproc_opts_t o;
} toy_spec_t;

static ptyproc_opts_t *toy_spec(toy_spec_t *s, const char *mode, const char *arg)
{
    toy_path(s->path, sizeof s->path);
    s->argv[0] = s->path;
    s->argv[1] = (char *)mode;
    s->argv[2] = (char *)arg;
    s->argv[3] = NULL;
    ptyproc_opts_t o = {s->argv, TOY_ENV, "/tmp", 80, 24, {0, 0, 0, 0, 0}, NULL, 0};
    s->o = o;
    return &s->o;
}

static void toy_start(toy_t *t, uv_loop_t *loop, const ptyproc_opts_t *o)
{
    memset(t, 0, sizeof *t);
    t->loop = loop;
    char err[256] = "";
    ck_assert_msg(ptyproc_spawn(loop, o, &CBS, t, &t->p, err, sizeof err) == 0, "%s", err);
    t->screen = screen_new(o->w, o->h);
}

/* ---- driving the loop ----------------------------------------------------------- */

typedef bool pred_fn(void *arg);

static void on_tick(uv_timer_t *t)
{
    (void)t; /* only keeps the loop turning */
}

/* Runs the loop until pred holds or ms pass. Returns whether it held. */
static bool run_until(uv_loop_t *loop, pred_fn *pred, void *arg, uint64_t ms)
{
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, 10, 10);
    uv_update_time(loop);
    uint64_t end = uv_now(loop) + ms;
    bool ok;
    while (!(ok = pred(arg)) && uv_now(loop) < end)
        uv_run(loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return ok;
}

static bool toy_exited(void *arg)
{
    return ((toy_t *)arg)->exits > 0;
}

static bool never(void *arg)
{
    (void)arg;
    return false;
}

typedef struct {
    toy_t *t;
    const char *text;
} seek_t;

static bool out_has(void *arg)
{
    seek_t *s = arg;
    return strstr(s->t->out, s->text) != NULL;
}

static void wait_output(toy_t *t, const char *text)
{
    seek_t s = {t, text};
    ck_assert_msg(run_until(t->loop, out_has, &s, 10000), "no \"%s\" in output: %s", text, t->out);
}

/* Whether the grid (synced now) shows text on some row. */
static bool grid_has(toy_t *t, const char *text)
{
    vtgrid_sync(ptyproc_grid(t->p), t->screen, false);
    size_t n = strlen(text);
    char row[SCREEN_MAX_W + 1];
    for (int y = 0; y < t->screen->h; y++) {
        for (int x = 0; x < t->screen->w; x++) {
            uint32_t ch = screen_at(t->screen, x, y)->ch;
            row[x] = ch < 0x80 ? (char)ch : '?';
        }
        row[t->screen->w] = 0;
        if (n <= (size_t)t->screen->w && strstr(row, text))
            return true;
    }
    return false;
}

static bool grid_seek(void *arg)
{
    seek_t *s = arg;
    return grid_has(s->t, s->text);
}

static void wait_grid(toy_t *t, const char *text)
{
    seek_t s = {t, text};
    ck_assert_msg(run_until(t->loop, grid_seek, &s, 15000), "no \"%s\" on the screen", text);
}

/* 'q' ends the interactive modes with status 0. */
static void toy_quit(toy_t *t)
{
    ck_assert_uint_eq(ptyproc_write(t->p, "q", 1), 1);
    ck_assert(run_until(t->loop, toy_exited, t, 10000));
    ck_assert(WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0);
}

static bool reaped(void *arg)
{
    return kill(*(pid_t *)arg, 0) < 0 && errno == ESRCH;
}

/* Closes the toy, lets the loop finish, and checks nothing is left: no
 * child of this process (no zombie), no handle on the loop. */
static void toy_finish(toy_t *t)
{
    pid_t pid = ptyproc_pid(t->p);
    ptyproc_close(t->p);
    ck_assert(run_until(t->loop, reaped, &pid, 10000));
    uv_run(t->loop, UV_RUN_DEFAULT);
    screen_free(t->screen);
    t->screen = NULL;
}

static void loop_done(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(loop), 0);
    ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
    ck_assert_int_eq(errno, ECHILD);
}

/* ---- the toy's modes ---------------------------------------------------------------- */

START_TEST(exit_at_once_is_reported_and_reaped)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "exit", "7"));
    ck_assert(run_until(&loop, toy_exited, &t, 10000));
    ck_assert_int_eq(t.exits, 1);
    ck_assert(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 7);
    ck_assert_int_eq(waitpid(ptyproc_pid(t.p), NULL, WNOHANG), -1); /* no zombie */
    ck_assert_int_eq(errno, ECHILD);
    /* after the end: input is dropped, a resize only reaches the grid */
    ck_assert_uint_eq(ptyproc_write(t.p, "x", 1), 0);
    ck_assert_int_eq(ptyproc_resize(t.p, 90, 30), 0);
    ptyproc_hangup(t.p);
    ptyproc_stats_t st;
    ptyproc_stats(t.p, &st);
    ck_assert_uint_eq(st.bytes_dropped, 1);
    run_until(&loop, never, NULL, 50);
    ck_assert_int_eq(t.exits, 1); /* exactly once */
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(spawn_failures_say_why)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "exit", "0");
    ptyproc_t *p = NULL;
    char err[256];
    spec.argv[0] = "ptytoy";
    ck_assert_int_eq(ptyproc_spawn(&loop, o, &CBS, NULL, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "argv[0] must be an absolute path");
    spec.argv[0] = "/nonexistent/ptytoy";
    ck_assert_int_eq(ptyproc_spawn(&loop, o, &CBS, NULL, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "exec: No such file or directory");
    spec.argv[0] = spec.path;
    o->dir = "/nonexistent-dir";
    ck_assert_int_eq(ptyproc_spawn(&loop, o, &CBS, NULL, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "chdir: No such file or directory");
    o->dir = "/tmp";
    o->w = 0;
    ck_assert_int_eq(ptyproc_spawn(&loop, o, &CBS, NULL, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "bad window size");
    ck_assert_ptr_null(p);
    ptyproc_user_t u;
    ck_assert_int_eq(ptyproc_user_lookup("no-such-user-here", &u, err, sizeof err), -1);
    loop_done(&loop); /* failed children were reaped; handles closed */
}
END_TEST

/* Fairness: one flooding program, one quiet one and a timer on one loop. */
typedef struct {
    uint64_t last, max_gap;
    int ticks;
} ticker_t;

static void on_ticker(uv_timer_t *h)
{
    ticker_t *k = h->data;
    uint64_t now = uv_hrtime() / 1000000;
    if (k->last && now - k->last > k->max_gap)
        k->max_gap = now - k->last;
    k->last = now;
    k->ticks++;
}

static void on_prepare(uv_prepare_t *h)
{
    ((toy_t *)h->data)->turn_bytes = 0;
    ((toy_t *)h->data)->turn_calls = 0;
}

static void on_check(uv_check_t *h)
{
    toy_t *t = h->data;
    if (t->turn_bytes > t->max_turn)
        t->max_turn = t->turn_bytes;
    if (t->turn_calls > t->max_calls)
        t->max_calls = t->turn_calls;
}

static bool flooded(void *arg)
{
    return ((toy_t *)arg)->total >= (8u << 20);
}

START_TEST(a_flood_cannot_starve_the_loop)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t fspec, qspec;
    toy_t flood, quiet;
    toy_start(&flood, &loop, toy_spec(&fspec, "flood", NULL));
    toy_start(&quiet, &loop, toy_spec(&qspec, "winsize", NULL));
    uv_prepare_t prep;
    uv_check_t check;
    uv_timer_t timer;
    ticker_t k = {0, 0, 0};
    uv_prepare_init(&loop, &prep);
    uv_check_init(&loop, &check);
    uv_timer_init(&loop, &timer);
    prep.data = check.data = &flood;
    timer.data = &k;
    uv_prepare_start(&prep, on_prepare);
    uv_check_start(&check, on_check);
    uv_timer_start(&timer, on_ticker, 20, 20);
    wait_output(&quiet, "size 80x24");
    ck_assert_int_eq(ptyproc_resize(quiet.p, 90, 20), 0);
    wait_output(&quiet, "size 90x20"); /* input and resizes still get through */
    run_until(&loop, flooded, &flood, 3000);
    ck_assert_uint_gt(flood.total, 1u << 20); /* it did flood */
    ck_assert_uint_le(flood.max_turn, PTYPROC_READ_BUDGET);
    ck_assert_int_eq(flood.max_calls, 1); /* one piece a turn, so one frame */
    ck_assert_int_gt(k.ticks, 10);
    ck_assert_msg(k.max_gap < 250, "the timer waited %llu ms", (unsigned long long)k.max_gap);
    ck_assert(grid_has(&flood, "flood ")); /* the grid follows the flood */
    ptyproc_hangup(flood.p);
    ck_assert(run_until(&loop, toy_exited, &flood, 10000));
    ck_assert(WIFSIGNALED(flood.status) && WTERMSIG(flood.status) == SIGHUP);
    toy_quit(&quiet);
    uv_close((uv_handle_t *)&prep, NULL);
    uv_close((uv_handle_t *)&check, NULL);
    uv_close((uv_handle_t *)&timer, NULL);
    toy_finish(&flood);
    toy_finish(&quiet);
    loop_done(&loop);
}
END_TEST

static bool past_total(void *arg)
{
    toy_t *t = arg;
    return t->total >= t->goal;
}

/* With an output rate the flood is read at that rate, no faster (a full
 * bucket to begin with), and still read: the pty is polled again after
 * each pause; the other program's input gets through meanwhile; without
 * the rate it floods again. */
START_TEST(a_flood_is_held_to_its_output_rate)
{
    enum { RATE = 64 * 1024 };
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t fspec, qspec;
    toy_t flood, quiet;
    toy_start(&flood, &loop, toy_spec(&fspec, "flood", NULL));
    toy_start(&quiet, &loop, toy_spec(&qspec, "winsize", NULL));
    ptyproc_set_output_rate(flood.p, RATE);
    uv_update_time(&loop);
    uint64_t t0 = uv_now(&loop);
    wait_output(&quiet, "size 80x24");
    run_until(&loop, never, NULL, 1000);
    ck_assert_int_eq(ptyproc_resize(quiet.p, 90, 20), 0);
    wait_output(&quiet, "size 90x20");
    run_until(&loop, never, NULL, 1000);
    ptyproc_stats_t st;
    ptyproc_stats(flood.p, &st);
    uint64_t ms = uv_now(&loop) - t0, most = RATE + (uint64_t)RATE * ms / 1000;
    ck_assert_uint_eq(st.bytes_out, flood.total);
    ck_assert_msg(flood.total <= most, "read %llu bytes in %llu ms: more than %llu",
                  (unsigned long long)flood.total, (unsigned long long)ms,
                  (unsigned long long)most);
    ck_assert_msg(flood.total >= most / 2, "read only %llu bytes in %llu ms",
                  (unsigned long long)flood.total, (unsigned long long)ms);
    ck_assert_uint_ge(st.pauses, 20); /* paused about every 25 ms, and resumed */
    ck_assert(grid_has(&flood, "flood "));
    ptyproc_set_output_rate(flood.p, 0); /* no limit: it floods at once */
    flood.goal = flood.total + (4u << 20);
    ck_assert(run_until(&loop, past_total, &flood, 10000));
    ptyproc_hangup(flood.p);
    ck_assert(run_until(&loop, toy_exited, &flood, 10000));
    toy_quit(&quiet);
    toy_finish(&flood);
    toy_finish(&quiet);
    loop_done(&loop);
}
END_TEST

START_TEST(ignoring_sighup_gets_sigkill)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "nohup", NULL);
    o->kill_after_ms = 300;
    toy_t t;
    toy_start(&t, &loop, o);
    wait_output(&t, "nohup ready");
    uint64_t t0 = uv_hrtime();
    ptyproc_hangup(t.p);
    ptyproc_hangup(t.p); /* a repeat changes nothing */
    ck_assert(run_until(&loop, toy_exited, &t, 10000));
    uint64_t ms = (uv_hrtime() - t0) / 1000000;
    ck_assert(WIFSIGNALED(t.status) && WTERMSIG(t.status) == SIGKILL);
    ck_assert_uint_ge(ms, 250);
    ck_assert_uint_lt(ms, 5000);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(a_program_that_never_reads_cannot_block_writes)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "noread", NULL));
    wait_output(&t, "noread ready");
    char chunk[1024];
    memset(chunk, 'k', sizeof chunk);
    size_t accepted = 0, sent = 0;
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < 1024; i++, sent += sizeof chunk)
        accepted += ptyproc_write(t.p, chunk, sizeof chunk);
    uint64_t ms = (uv_hrtime() - t0) / 1000000;
    ck_assert_msg(ms < 1000, "1 MB of writes took %llu ms", (unsigned long long)ms);
    ptyproc_stats_t st;
    ptyproc_stats(t.p, &st);
    ck_assert_uint_lt(accepted, sent);
    ck_assert_uint_eq(st.bytes_dropped, sent - accepted);
    ck_assert_uint_le(st.queued, PTYPROC_INPUT_MAX);
    ck_assert_uint_eq(st.bytes_in + st.queued, accepted);
    ck_assert_uint_gt(st.queued, 0);    /* the kernel's buffer filled first */
    run_until(&loop, never, NULL, 200); /* the loop keeps turning */
    ck_assert_int_eq(t.exits, 0);
    toy_finish(&t); /* SIGKILL, reaped */
    loop_done(&loop);
}
END_TEST

START_TEST(resizes_reach_the_program)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "winsize", NULL));
    wait_output(&t, "size 80x24");
    ck_assert_int_eq(ptyproc_resize(t.p, 0, 10), -1);
    ck_assert_int_eq(ptyproc_resize(t.p, 132, 43), 0);
    wait_output(&t, "size 132x43");
    vtgrid_sync(ptyproc_grid(t.p), t.screen, false);
    ck_assert(t.screen->w == 132 && t.screen->h == 43);
    toy_quit(&t);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

/* Lines of the report that start with prefix, joined by '|'. */
static void report_lines(const char *out, const char *prefix, char *dst, size_t len)
{
    dst[0] = 0;
    size_t n = strlen(prefix);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, prefix, n) != 0)
            continue;
        size_t e = strcspn(l, "\r\n");
        if (dst[0])
            strncat(dst, "|", len - strlen(dst) - 1);
        strncat(dst, l, e < len - strlen(dst) - 1 ? e : len - strlen(dst) - 1);
    }
}

static void run_report(toy_t *t, uv_loop_t *loop, const ptyproc_opts_t *o)
{
    toy_start(t, loop, o);
    ck_assert(run_until(loop, toy_exited, t, 10000));
    ck_assert(WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0);
    ck_assert_msg(strstr(t->out, "\nend\r"), "%s", t->out); /* read to the end */
}

START_TEST(the_child_gets_only_what_is_configured)
{
    /* what a daemon has: SIGPIPE ignored, a signal blocked, an fd open */
    signal(SIGPIPE, SIG_IGN);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    int leak = open("/dev/null", O_RDONLY); /* not close-on-exec */
    ck_assert_int_ge(leak, 3);
    uv_loop_t loop;
    uv_loop_init(&loop);
    char *env[] = {"TERM=xterm-256color", "HOME=/tmp", "FOO=bar baz", NULL};
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "report", NULL);
    o->envp = env;
    o->limits.cpu_seconds = 100;
    o->limits.memory_bytes = 1ull << 30;
    o->limits.files = 64;
    o->limits.file_bytes = 10 << 20;
    toy_t t;
    run_report(&t, &loop, o);
    char got[1024];
    report_lines(t.out, "env ", got, sizeof got);
    ck_assert_str_eq(got, "env TERM=xterm-256color|env HOME=/tmp|env FOO=bar baz");
    report_lines(t.out, "fd ", got, sizeof got);
    ck_assert_str_eq(got, "fd 0|fd 1|fd 2");
    report_lines(t.out, "limit ", got, sizeof got);
    struct rlimit nproc; /* not set: inherited */
    getrlimit(RLIMIT_NPROC, &nproc);
    char want[256], np[32] = "inf";
    if (nproc.rlim_cur != RLIM_INFINITY)
        snprintf(np, sizeof np, "%llu", (unsigned long long)nproc.rlim_cur);
    snprintf(want, sizeof want,
             "limit cpu 100|limit as 1073741824|limit nofile 64|limit nproc %s|limit fsize "
             "10485760",
             np);
    ck_assert_str_eq(got, want);
    report_lines(t.out, "cwd ", got, sizeof got);
    ck_assert_str_eq(got, "cwd /tmp");
    report_lines(t.out, "tty ", got, sizeof got);
    ck_assert_str_eq(got, "tty yes leader yes");
    report_lines(t.out, "sig ", got, sizeof got);
    ck_assert_str_eq(got, "sig blocked 0 pipe default int default");
    toy_finish(&t);
    loop_done(&loop);
    close(leak);
}
END_TEST

START_TEST(the_child_runs_as_the_configured_user)
{
    char err[256];
    ptyproc_user_t nobody;
    ck_assert_msg(ptyproc_user_lookup("nobody", &nobody, err, sizeof err) == 0, "%s", err);
    ck_assert_int_ne(nobody.uid, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "report", NULL);
    o->user = &nobody;
    o->dir = "/";
    toy_t t;
    run_report(&t, &loop, o);
    char got[256], want[256];
    report_lines(t.out, "uid ", got, sizeof got);
    /* only root can switch; anyone else runs the program as itself */
    if (geteuid() == 0)
        snprintf(want, sizeof want, "uid %u gid %u groups %d", (unsigned)nobody.uid,
                 (unsigned)nobody.gid, nobody.ngroups);
    else
        snprintf(want, sizeof want, "uid %u gid %u groups ", (unsigned)getuid(),
                 (unsigned)getgid());
    ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "%s != %s", got, want);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(a_drawn_screen_lands_in_the_grid)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "draw", NULL));
    wait_grid(&t, "cpr:10;20"); /* the terminal's answer reached the program */
    const screen_t *s = t.screen;
    ck_assert_uint_eq(screen_at(s, 0, 0)->ch, 'R');
    ck_assert_uint_eq(screen_at(s, 0, 0)->fg, 1);
    ck_assert_uint_eq(screen_at(s, 0, 0)->attr, ATTR_BOLD);
    ck_assert_uint_eq(screen_at(s, 0, 1)->fg, 200);
    ck_assert_uint_eq(screen_at(s, 1, 1)->bg, 196);
    ck_assert_uint_eq(screen_at(s, 0, 2)->attr, ATTR_UNDERLINE | ATTR_REVERSE);
    ck_assert_uint_eq(screen_at(s, 1, 2)->attr, ATTR_BLINK);
    ck_assert_uint_eq(screen_at(s, 0, 3)->ch, 0x65E5);
    ck_assert_uint_eq(screen_at(s, 2, 3)->ch, 'x');
    ck_assert_uint_eq(screen_at(s, 0, 4)->fg, 12);
    ck_assert(s->cur_x == 19 && s->cur_y == 9 && !s->cur_visible);
    ptyproc_write(t.p, "a", 1);
    wait_grid(&t, "key:a");
    toy_quit(&t);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(closing_a_running_program_reaps_it)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "noread", NULL));
    toy_finish(&t);               /* at once, before it printed anything */
    ck_assert_int_eq(t.exits, 0); /* no callback after close */
    loop_done(&loop);
}
END_TEST

/* ---- NetHack ------------------------------------------------------------------------- */

/* NetHack's prompts and what a player answers, as seen on the grid. */
static const struct {
    const char *seen, *keys;
} NH_ANSWERS[] = {
    {"Shall I pick", "y"},
    {"Is this ok?", "y"},
    {"Really quit?", "y"},
    {"--More--", "\r"},
};

typedef struct {
    toy_t *t;
    const char *goal_keys; /* sent once the map shows; NULL: stop there */
    bool goal_sent, at_goal;
    uint64_t seen_out, sent_at;
} nh_play_t;

/* One step of play: answer what the screen asks, once output followed the
 * last key (or a second passed). Holds when the map shows (no goal) or
 * the game ended. */
static bool nh_step(void *arg)
{
    nh_play_t *n = arg;
    toy_t *t = n->t;
    if (t->exits)
        return true;
    uint64_t now = uv_now(t->loop);
    if (t->total == n->seen_out && now - n->sent_at < 1000)
        return false;
    for (size_t i = 0; i < sizeof NH_ANSWERS / sizeof NH_ANSWERS[0]; i++) {
        if (grid_has(t, NH_ANSWERS[i].seen)) {
            ptyproc_write(t->p, NH_ANSWERS[i].keys, strlen(NH_ANSWERS[i].keys));
            n->seen_out = t->total;
            n->sent_at = now;
            return false;
        }
    }
    if (!grid_has(t, "Dlvl:1"))
        return false;
    if (!n->goal_keys)
        return n->at_goal = true;
    if (!n->goal_sent || now - n->sent_at > 3000) { /* retry a lost command */
        ptyproc_write(t->p, n->goal_keys, strlen(n->goal_keys));
        n->goal_sent = true;
        n->seen_out = t->total;
        n->sent_at = now;
    }
    return false;
}

typedef struct {
    char pg[64], dir[128];
    gamecfg_list_t games;
} nethack_t;

/* A private playground (NetHack's data linked, its score files empty) and a
 * player directory with an rc file, so the test needs no setgid games. */
static void nethack_setup(nethack_t *nh)
{
    snprintf(nh->pg, sizeof nh->pg, "/tmp/warren-nh-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(nh->pg));
    char p[256], q[256];
    const char *data[] = {"nhdat", "symbols", "license"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "/usr/lib/games/nethack/%s", data[i]);
        snprintf(q, sizeof q, "%s/%s", nh->pg, data[i]);
        ck_assert_msg(symlink(p, q) == 0, "%s: %s", q, strerror(errno));
    }
    const char *files[] = {"record", "logfile", "xlogfile", "perm"};
    for (int i = 0; i < 4; i++) {
        snprintf(q, sizeof q, "%s/%s", nh->pg, files[i]);
        FILE *f = fopen(q, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    snprintf(q, sizeof q, "%s/save", nh->pg);
    ck_assert_int_eq(mkdir(q, 0700), 0);
    snprintf(q, sizeof q, "%s/players", nh->pg);
    ck_assert_int_eq(mkdir(q, 0700), 0);
    snprintf(nh->dir, sizeof nh->dir, "%s/players/hostedtest", nh->pg);
    ck_assert_int_eq(mkdir(nh->dir, 0700), 0);
    snprintf(q, sizeof q, "%s/nethackrc", nh->dir);
    FILE *f = fopen(q, "w");
    ck_assert_ptr_nonnull(f);
    fputs("OPTIONS=windowtype:tty,color,!legacy,!tombstone,!toptenwin,!news,!autopickup\n"
          "OPTIONS=disclose:-i -a -v -g -c -o\n",
          f);
    fclose(f);
    char cfg[1024], err[256];
    snprintf(cfg, sizeof cfg,
             "[game nethack]\n"
             "name = NetHack 3.6.6\n"
             "command = /usr/games/nethack -d %s -u %%n\n"
             "env = NETHACKOPTIONS=@%%r\n"
             "rcfile = %%d/nethackrc\n"
             "xlogfile = %s/xlogfile\n",
             nh->pg, nh->pg);
    memset(&nh->games, 0, sizeof nh->games);
    ck_assert_msg(gamecfg_parse(&nh->games, cfg, strlen(cfg), 1, err, sizeof err) == 0, "%s", err);
}

static void nethack_start(nethack_t *nh, toy_t *t, uv_loop_t *loop)
{
    gamecfg_launch_t la;
    char err[256];
    ck_assert_msg(gamecfg_launch(&nh->games.games[0], "hostedtest", nh->dir, 80, 24, &la, err,
                                 sizeof err) == 0,
                  "%s", err);
    toy_start(t, loop, &la.opts);
    gamecfg_launch_free(&la); /* spawn copied what it needed */
}

static void nethack_play(toy_t *t, const char *goal_keys)
{
    nh_play_t n = {t, goal_keys, false, false, 0, 0};
    ck_assert_msg(run_until(t->loop, nh_step, &n, 30000), "stuck; output: %s", t->out);
}

/* The last row of the playground's xlogfile. */
static void nethack_xlog(const nethack_t *nh, xlog_row_t *row)
{
    char line[XLOG_LINE_MAX + 2], last[XLOG_LINE_MAX + 2] = "", err[128];
    FILE *f = fopen(nh->games.games[0].xlogfile, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f))
        memcpy(last, line, sizeof line);
    fclose(f);
    ck_assert_msg(xlog_parse(last, strlen(last), row, err, sizeof err) == 0, "%s: %s", err, last);
}

/* Whether NetHack's save directory holds a file. */
static bool saved(const nethack_t *nh)
{
    char path[128];
    snprintf(path, sizeof path, "%s/save", nh->pg);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    bool any = false;
    while ((e = readdir(d)))
        any = any || e->d_name[0] != '.';
    closedir(d);
    return any;
}

START_TEST(nethack_plays_hangs_up_restores_and_quits)
{
    nethack_t nh;
    nethack_setup(&nh);
    uv_loop_t loop;
    uv_loop_init(&loop);
    toy_t t;
    nethack_start(&nh, &t, &loop);
    wait_grid(&t, "NetHack, Copyright 1985-2020");
    wait_grid(&t, "Shall I pick character's race, role, gender and alignment");
    nethack_play(&t, NULL); /* through character creation to the map */
    ck_assert(grid_has(&t, "Dlvl:1"));
    ck_assert(!saved(&nh));
    /* a detached game's end: SIGHUP, and NetHack saves */
    ptyproc_hangup(t.p);
    ck_assert(run_until(&loop, toy_exited, &t, 15000));
    ck_assert_msg(!WIFSIGNALED(t.status) || WTERMSIG(t.status) != SIGKILL, "killed, not saved");
    ck_assert(saved(&nh));
    toy_finish(&t);
    /* the next start restores the save, then the player quits */
    nethack_start(&nh, &t, &loop);
    nethack_play(&t, "#quit\r");
    ck_assert(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 0);
    ck_assert(!saved(&nh));
    toy_finish(&t);
    xlog_row_t row;
    nethack_xlog(&nh, &row);
    ck_assert_str_eq(row.version, "3.6.6");
    ck_assert_str_eq(row.name, "hostedtest");
    ck_assert_str_eq(row.death, "quit");
    ck_assert_int_eq(row.deathlev, 1);
    ck_assert(row.role[0] && row.race[0] && row.gender[0] && row.align[0]);
    ck_assert_int_ge(row.endtime, row.starttime);
    gamecfg_list_free(&nh.games);
    loop_done(&loop);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", nh.pg);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_server_hosted_pty(void)
{
    Suite *s = suite_create("server.hosted_pty");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, exit_at_once_is_reported_and_reaped);
    tcase_add_test(t, spawn_failures_say_why);
    tcase_add_test(t, a_flood_cannot_starve_the_loop);
    tcase_add_test(t, a_flood_is_held_to_its_output_rate);
    tcase_add_test(t, ignoring_sighup_gets_sigkill);
    tcase_add_test(t, a_program_that_never_reads_cannot_block_writes);
    tcase_add_test(t, resizes_reach_the_program);
    tcase_add_test(t, the_child_gets_only_what_is_configured);
    tcase_add_test(t, the_child_runs_as_the_configured_user);
    tcase_add_test(t, a_drawn_screen_lands_in_the_grid);
    tcase_add_test(t, closing_a_running_program_reaps_it);
    tcase_add_test(t, nethack_plays_hangs_up_restores_and_quits);
    suite_add_tcase(s, t);
    return s;
}
