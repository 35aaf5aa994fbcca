/* Unit tests: server/hosted/ptyproc and the spawner — real programs under
 * real ptys on a real libuv loop, started by a real spawner process (as
 * the games' user when the tests run as root): bin/tools/ptytoy in its
 * misbehaving modes, and Debian's NetHack (nethack-console) from its
 * opening screen through a hangup save, a restore and a quit that writes
 * an xlogfile row. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gamecfg.h"
#include "hosted/ptyproc.h"
#include "hosted/spawner.h"
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
    bool started;        /* the start's answer came */
    char start_err[256]; /* its error, "" when the program runs */
    screen_t *screen;
} toy_t;

/* The release build of tests/tools/ptytoy.c, beside this binary's bin/. */
static void toy_built(char *out, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = 0;
    snprintf(out, len, "%s/../tools/ptytoy", dirname(exe));
    ck_assert_msg(access(out, X_OK) == 0, "no %s", out);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod %o '%s'", from, to, (unsigned)mode, to);
    ck_assert_int_eq(system(cmd), 0);
}

/* A box: a directory the games' user can pass (0711) holding a copy of
 * ptytoy (the build may lie where that user cannot go) and games-dir; a
 * config of one game per toy mode; a spawner forked with it. */
typedef struct {
    char dir[64], toy[256];
    gamecfg_list_t games;
    spawner_t *sp;
} box_t;

static box_t BOX; /* one per test: Check forks each */

static void box_config(box_t *b, const char *extra)
{
    char cfg[4096], err[256];
    snprintf(cfg, sizeof cfg,
             "[game exit7]\ncommand = %s exit 7\n"
             "[game flood]\ncommand = %s flood\n"
             "[game nohup]\ncommand = %s nohup\nhangup-timeout = 1\n"
             "[game noread]\ncommand = %s noread\n"
             "[game draw]\ncommand = %s draw\n"
             "[game winsize]\ncommand = %s winsize\n"
             "[game setsid]\ncommand = %s setsid\n"
             "[game report]\ncommand = %s report\nenv = FOO=bar baz\ncpu = 100\n"
             "memory = 1024\nfiles = 64\nfile-size = 10\n"
             "[game asnobody]\ncommand = %s report\nuser = nobody\n"
             "[game missing]\ncommand = /nonexistent/ptytoy\n"
             "[game nouser]\ncommand = %s report\nuser = no-such-user-here\n%s",
             b->toy, b->toy, b->toy, b->toy, b->toy, b->toy, b->toy, b->toy, b->toy, b->toy, extra);
    ck_assert_msg(gamecfg_parse(&b->games, cfg, strlen(cfg), 1, err, sizeof err) == 0, "%s", err);
}

/* Starts the box's spawner for games (b->games when NULL). */
static void box_spawner(box_t *b, const gamecfg_list_t *games)
{
    spawner_cfg_t sc;
    char gdir[128], err[256];
    snprintf(gdir, sizeof gdir, "%s/games", b->dir);
    ck_assert_msg(spawner_config(&sc, games ? games : &b->games, "warren-games", gdir, getuid(),
                                 getgid(), err, sizeof err) == 0,
                  "%s", err);
    ck_assert_msg((b->sp = spawner_start(&sc, err, sizeof err)) != NULL, "%s", err);
}

/* The box's spawner with jobs jobs at most (spawner.h: SPAWNER_RC_MAX
 * in service). */
static void box_spawner_jobs(box_t *b, int jobs)
{
    spawner_cfg_t sc;
    char gdir[128], err[256];
    snprintf(gdir, sizeof gdir, "%s/games", b->dir);
    ck_assert_msg(spawner_config(&sc, &b->games, "warren-games", gdir, getuid(), getgid(), err,
                                 sizeof err) == 0,
                  "%s", err);
    sc.jobs_max = jobs;
    ck_assert_msg((b->sp = spawner_start(&sc, err, sizeof err)) != NULL, "%s", err);
}

/* The box's directory, ptytoy and config; no spawner yet. */
static box_t *box_make(void)
{
    box_t *b = &BOX;
    memset(b, 0, sizeof *b);
    snprintf(b->dir, sizeof b->dir, "/tmp/warren-pty-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(b->dir));
    ck_assert_int_eq(chmod(b->dir, 0711), 0);
    char built[4096];
    toy_built(built, sizeof built);
    snprintf(b->toy, sizeof b->toy, "%.63s/ptytoy", b->dir);
    copy_file(built, b->toy, 0755);
    box_config(b, "");
    return b;
}

static box_t *box_open(void)
{
    box_t *b = box_make();
    box_spawner(b, NULL);
    return b;
}

/* The spawner goes (it exits: nothing runs), then the box. */
static void box_close(box_t *b)
{
    spawner_free(b->sp);
    b->sp = NULL;
    gamecfg_list_free(&b->games);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
    ck_assert_int_eq(system(cmd), 0);
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

static void on_started(ptyproc_t *p, const char *err, void *user)
{
    toy_t *t = user;
    (void)p;
    t->started = true;
    snprintf(t->start_err, sizeof t->start_err, "%s", err ? err : "");
}

static const ptyproc_cbs_t CBS = {on_output, on_exited, on_started};

typedef bool pred_fn(void *arg);
static bool run_until(uv_loop_t *loop, pred_fn *pred, void *arg, uint64_t ms);

static bool toy_started(void *arg)
{
    return ((toy_t *)arg)->started;
}

/* Starts o and waits for the answer: 0, or -1 with err (refused at once
 * or by the spawner's answer). */
static int spawn_wait(uv_loop_t *loop, const ptyproc_opts_t *o, toy_t *t, char *err, size_t n)
{
    if (ptyproc_spawn(loop, BOX.sp, o, &CBS, t, &t->p, err, n) < 0)
        return -1;
    ck_assert(run_until(loop, toy_started, t, 15000));
    snprintf(err, n, "%s", t->start_err);
    return t->start_err[0] ? -1 : 0;
}

/* What a test runs: the box's game id for player "tester", 80x24. */
typedef struct {
    ptyproc_opts_t o;
} toy_spec_t;

static ptyproc_opts_t *toy_spec(toy_spec_t *s, const char *game)
{
    ptyproc_opts_t o = {game, "tester", "tester", 80, 24};
    s->o = o;
    return &s->o;
}

static void toy_start(toy_t *t, uv_loop_t *loop, const ptyproc_opts_t *o)
{
    memset(t, 0, sizeof *t);
    t->loop = loop;
    char err[256] = "";
    ck_assert_msg(spawn_wait(loop, o, t, err, sizeof err) == 0, "%s", err);
    t->screen = screen_new(o->w, o->h);
}

/* A loop with the box's spawner attached. */
static void loop_start(uv_loop_t *loop)
{
    uv_loop_init(loop);
    ck_assert_int_eq(spawner_attach(BOX.sp, loop), 0);
}

/* ---- driving the loop ----------------------------------------------------------- */

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

/* The loop ends, then the spawner and the box: nothing is left, not a
 * handle, not a child (the spawner is reaped: it exits when nothing runs). */
static void loop_done(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
    box_close(&BOX);
    ck_assert_int_eq(uv_loop_close(loop), 0);
    ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
    ck_assert_int_eq(errno, ECHILD);
}

/* ---- the toy's modes ---------------------------------------------------------------- */

START_TEST(exit_at_once_is_reported_and_reaped)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "exit7"));
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

/* spawn_wait for a start that should fail; the object (if any) closed. */
static int try_spawn(uv_loop_t *loop, const ptyproc_opts_t *o, char *err, size_t n)
{
    static toy_t t; /* 64 KB: not on the stack */
    memset(&t, 0, sizeof t);
    int r = spawn_wait(loop, o, &t, err, n);
    ptyproc_close(t.p);
    return r;
}

static bool all_started(void *arg)
{
    toy_t *t = arg;
    for (int i = 0; i < SPAWNER_STARTING_MAX; i++)
        if (!t[i].started)
            return false;
    return true;
}

/* Starts do not wait on the loop: with the spawner stopped, the loop turns
 * while SPAWNER_STARTING_MAX starts wait, the next is refused at once with
 * a message; once it goes on every one runs, and the one closed while it
 * started is killed (the spawner reaps it: no child is left). */
START_TEST(starts_wait_for_the_spawner_up_to_the_cap)
{
    enum { N = SPAWNER_STARTING_MAX };
    toy_t *t = calloc(N, sizeof *t); /* 4 MB: not a static every test's leak check scans */
    ck_assert_ptr_nonnull(t);
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "winsize");
    char err[256];
    ck_assert_int_eq(kill(spawner_pid(BOX.sp), SIGSTOP), 0);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(ptyproc_spawn(&loop, BOX.sp, o, &CBS, &t[i], &t[i].p, err, sizeof err), 0);
        ck_assert(ptyproc_starting(t[i].p));
    }
    ck_assert_int_eq(spawner_starting(BOX.sp), N);
    ptyproc_t *p = NULL;
    ck_assert_int_eq(ptyproc_spawn(&loop, BOX.sp, o, &CBS, NULL, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "64 games are starting already");
    run_until(&loop, never, NULL, 100);
    ck_assert(!t[1].started);
    ptyproc_write(t[1].p, "q", 1); /* waits for the program */
    ptyproc_close(t[0].p);         /* given up while it starts */
    t[0].started = true;
    ck_assert_int_eq(kill(spawner_pid(BOX.sp), SIGCONT), 0);
    ck_assert(run_until(&loop, all_started, t, 20000));
    for (int i = 1; i < N; i++) {
        ck_assert_str_eq(t[i].start_err, "");
        ck_assert(ptyproc_running(t[i].p) || i == 1);
    }
    ck_assert_int_eq(spawner_starting(BOX.sp), 0);
    ck_assert(run_until(&loop, toy_exited, &t[1], 5000)); /* the 'q' typed meanwhile */
    for (int i = 1; i < N; i++)
        ptyproc_close(t[i].p);
    loop_done(&loop);
    free(t);
}
END_TEST

/* The spawner traced, its forks too (PTRACE_O_TRACEFORK): before the
 * request whose child hold_next_child holds is sent. */
static void trace_forks(pid_t spawner)
{
    ck_assert_int_eq(ptrace(PTRACE_SEIZE, spawner, 0, PTRACE_O_TRACEFORK), 0);
}

/* The traced spawner's next child, held stopped before it can exec; the
 * spawner let go, the child left stopped untraced. */
static pid_t hold_next_child(pid_t spawner)
{
    pid_t child = 0;
    int st;
    while (!child) {
        ck_assert_int_eq(waitpid(spawner, &st, __WALL), spawner);
        ck_assert(WIFSTOPPED(st));
        unsigned long msg = 0;
        if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)) &&
            ptrace(PTRACE_GETEVENTMSG, spawner, 0, &msg) == 0)
            child = (pid_t)msg;
        else /* another stop: on with its signal */
            ck_assert_int_eq(ptrace(PTRACE_CONT, spawner, 0, WSTOPSIG(st)), 0);
    }
    ck_assert_int_eq(waitpid(child, &st, __WALL), child); /* its first stop, traced */
    ck_assert_int_eq(kill(child, SIGSTOP), 0);            /* stops it again once let go */
    ck_assert_int_eq(ptrace(PTRACE_DETACH, child, 0, 0), 0);
    ck_assert_int_eq(ptrace(PTRACE_DETACH, spawner, 0, 0), 0);
    return child;
}

/* A start is answered when its child execs or fails, and the spawner
 * serves other requests meanwhile: a start whose child is held stopped
 * before exec holds up neither a start that fails (its step's message
 * comes back) nor one that runs; it is answered once it goes on. */
START_TEST(a_start_holds_up_no_other)
{
    toy_t *t = calloc(3, sizeof *t);
    ck_assert_ptr_nonnull(t);
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec[3];
    const char *games[3] = {"winsize", "missing", "winsize"};
    char err[256];
    /* a first start: what the spawner makes once (boxnet.h) is made */
    ck_assert_int_eq(try_spawn(&loop, toy_spec(&spec[1], "missing"), err, sizeof err), -1);
    ck_assert_str_eq(err, "exec: No such file or directory");
    trace_forks(spawner_pid(BOX.sp));
    ck_assert_int_eq(ptyproc_spawn(&loop, BOX.sp, toy_spec(&spec[0], games[0]), &CBS, &t[0],
                                   &t[0].p, err, sizeof err),
                     0);
    pid_t held = hold_next_child(spawner_pid(BOX.sp));
    for (int i = 1; i < 3; i++)
        ck_assert_int_eq(ptyproc_spawn(&loop, BOX.sp, toy_spec(&spec[i], games[i]), &CBS, &t[i],
                                       &t[i].p, err, sizeof err),
                         0);
    bool others =
        run_until(&loop, toy_started, &t[1], 3000) && run_until(&loop, toy_started, &t[2], 3000);
    bool first_waited = !t[0].started;
    ck_assert_int_eq(kill(held, SIGCONT), 0); /* before any assert: nothing stays stopped */
    ck_assert_msg(others, "the other starts waited for the held one");
    ck_assert(first_waited);
    ck_assert_str_eq(t[1].start_err, "exec: No such file or directory");
    ck_assert_str_eq(t[2].start_err, "");
    ck_assert(ptyproc_running(t[2].p));
    ck_assert(run_until(&loop, toy_started, &t[0], 10000));
    ck_assert_str_eq(t[0].start_err, "");
    ck_assert(ptyproc_running(t[0].p));
    ck_assert_int_eq(ptyproc_pid(t[0].p), held);
    t[0].loop = &loop;
    wait_output(&t[0], "size 80x24");
    for (int i = 0; i < 3; i++)
        ptyproc_close(t[i].p);
    loop_done(&loop);
    free(t);
}
END_TEST

/* A start whose child never reaches its exec (held stopped, as a box
 * whose mount hangs on a dead file system) is killed at its game's
 * start-timeout and answered so, not by warrend's own wait; its slot is
 * free again and a later start of the same game runs. */
START_TEST(a_start_past_its_deadline_is_killed_and_answered)
{
    toy_t *t = calloc(2, sizeof *t);
    ck_assert_ptr_nonnull(t);
    uv_loop_t loop;
    box_t *b = box_make();
    char extra[512], err[256];
    snprintf(extra, sizeof extra, "[game slow]\ncommand = %s winsize\nstart-timeout = 1\n", b->toy);
    gamecfg_list_free(&b->games);
    box_config(b, extra);
    box_spawner(b, NULL);
    loop_start(&loop);
    toy_spec_t spec;
    ck_assert_int_eq(try_spawn(&loop, toy_spec(&spec, "missing"), err, sizeof err), -1);
    trace_forks(spawner_pid(BOX.sp));
    ck_assert_int_eq(ptyproc_spawn(&loop, BOX.sp, toy_spec(&spec, "slow"), &CBS, &t[0], &t[0].p,
                                   err, sizeof err),
                     0);
    uint64_t t0 = uv_hrtime();
    pid_t held = hold_next_child(spawner_pid(BOX.sp));
    bool answered = run_until(&loop, toy_started, &t[0], 8000);
    uint64_t took_ms = (uv_hrtime() - t0) / 1000000u;
    if (!answered)
        kill(held, SIGKILL); /* before any assert: nothing stays stopped */
    ck_assert_msg(answered, "no answer to the held start");
    ck_assert_str_eq(t[0].start_err, SPAWNER_LATE);
    ck_assert_uint_ge(took_ms, 900);
    ck_assert_int_eq(spawner_starting(BOX.sp), 0);
    for (int i = 0; i < 200 && kill(held, 0) == 0; i++)
        usleep(10000);
    ck_assert_msg(kill(held, 0) < 0 && errno == ESRCH, "pid %d lives on", (int)held);
    ck_assert_int_eq(spawn_wait(&loop, toy_spec(&spec, "slow"), &t[1], err, sizeof err), 0);
    t[1].loop = &loop;
    wait_output(&t[1], "size 80x24");
    ptyproc_close(t[0].p);
    ptyproc_close(t[1].p);
    loop_done(&loop);
    free(t);
}
END_TEST

/* warrend goes while a start's child has not exec'd yet: once it does,
 * the spawner hangs the program up (no one will play it) and exits when
 * it has ended; nothing is left. */
START_TEST(a_start_under_way_when_warrend_goes_is_hung_up)
{
    toy_t *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    char err[256];
    ck_assert_int_eq(try_spawn(&loop, toy_spec(&spec, "missing"), err, sizeof err), -1);
    pid_t spawner = spawner_pid(BOX.sp);
    trace_forks(spawner);
    ck_assert_int_eq(
        ptyproc_spawn(&loop, BOX.sp, toy_spec(&spec, "winsize"), &CBS, t, &t->p, err, sizeof err),
        0);
    pid_t held = hold_next_child(spawner);
    ptyproc_close(t->p);
    uv_run(&loop, UV_RUN_NOWAIT);
    spawner_free(BOX.sp); /* warrend's end of the socket closes */
    BOX.sp = NULL;
    int status;
    bool waited = waitpid(spawner, &status, WNOHANG) == 0; /* the start holds it */
    ck_assert_int_eq(kill(held, SIGCONT), 0);
    ck_assert(waited);
    uint64_t t0 = uv_hrtime();
    pid_t r;
    while ((r = waitpid(spawner, &status, WNOHANG)) == 0 && uv_hrtime() - t0 < 10000000000ull)
        usleep(20000);
    ck_assert_int_eq(r, spawner);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_msg(kill(held, 0) < 0 && errno == ESRCH, "pid %d lives on", (int)held);
    ck_assert(!t->started);
    loop_done(&loop);
    free(t);
}
END_TEST

/* rc requests' answers, as their callbacks get them. */
typedef struct {
    int answers;
    char err[200];
    char text[64];
} rc_got_t;

static void on_rc(const char *text, size_t len, const char *err, void *user)
{
    rc_got_t *g = user;
    g->answers++;
    snprintf(g->err, sizeof g->err, "%s", err ? err : "");
    snprintf(g->text, sizeof g->text, "%.*s", (int)len, text);
}

static void on_files_got(int fd, const char *note, const char *err, void *user)
{
    (void)note;
    if (fd >= 0)
        close(fd);
    on_rc("", 0, err, user);
}

static bool rc_all_answered(void *arg)
{
    rc_got_t *g = arg;
    for (int i = 0; i < SPAWNER_RC_MAX; i++)
        if (!g[i].answers)
            return false;
    return true;
}

static bool rc_answered(void *arg)
{
    return ((rc_got_t *)arg)->answers > 0;
}

START_TEST(rc_files_wait_for_the_spawner_up_to_the_cap)
{
    static rc_got_t got[SPAWNER_RC_MAX];
    uv_loop_t loop;
    box_t *b = box_make();
    gamecfg_list_free(&b->games);
    box_config(b, "[game rc]\ncommand = /bin/true\nrcfile = %d/rc\nxlogfile = %d/xlog\n");
    box_spawner(b, NULL);
    loop_start(&loop);
    char err[256];
    memset(got, 0, sizeof got);
    ck_assert_int_eq(kill(spawner_pid(BOX.sp), SIGSTOP), 0);
    for (int i = 0; i < SPAWNER_RC_MAX; i++) /* none waits: answered later, never in the call */
        ck_assert_int_eq(spawner_rc_load(BOX.sp, "rc", "ann", on_rc, &got[i], err, sizeof err), 0);
    ck_assert_int_eq(got[0].answers, 0);
    ck_assert_int_eq(spawner_rc_load(BOX.sp, "rc", "ann", on_rc, NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "many rc files are being read or written: try again in a moment");
    static rc_got_t xlog; /* a game's end waits for a slot: its score is not lost */
    memset(&xlog, 0, sizeof xlog);
    ck_assert_int_eq(spawner_xlog_read(BOX.sp, "rc", "ann", on_rc, &xlog, err, sizeof err), 0);
    ck_assert_int_eq(spawner_starting(BOX.sp), 0); /* starts have a cap of their own */
    run_until(&loop, never, NULL, 100);
    ck_assert_int_eq(got[0].answers, 0);
    ck_assert_int_eq(kill(spawner_pid(BOX.sp), SIGCONT), 0);
    ck_assert(run_until(&loop, rc_all_answered, got, 10000));
    for (int i = 0; i < SPAWNER_RC_MAX; i++) /* no rc-default: empty */
        ck_assert(got[i].answers == 1 && !got[i].err[0] && !got[i].text[0]);
    ck_assert(run_until(&loop, rc_answered, &xlog, 10000));
    ck_assert_int_eq(xlog.answers, 1);
    ck_assert_str_eq(xlog.err, ""); /* no xlogfile yet: read as empty */
    rc_got_t saved = {0}, read = {0};
    ck_assert_int_eq(
        spawner_rc_save(BOX.sp, "rc", "ann", "OPTIONS=time\n", 13, on_rc, &saved, err, sizeof err),
        0);
    ck_assert(run_until(&loop, rc_answered, &saved, 10000));
    ck_assert_str_eq(saved.err, "");
    ck_assert_int_eq(spawner_rc_load(BOX.sp, "rc", "ann", on_rc, &read, err, sizeof err), 0);
    ck_assert(run_until(&loop, rc_answered, &read, 10000));
    ck_assert_str_eq(read.text, "OPTIONS=time\n");
    loop_done(&loop);
}
END_TEST

static void on_place(void *user)
{
    (*(int *)user)++;
}

/* spawner_on_place: not told of requests refused for want of a job (the
 * spawner given none here), so what waits for a place is not asked again
 * in a loop; told once a program's exit freed a process. */
START_TEST(a_place_freed_is_told_a_refusal_is_not)
{
    static rc_got_t got[2];
    uv_loop_t loop;
    box_t *b = box_make();
    gamecfg_list_free(&b->games);
    box_config(b, "[game rc]\ncommand = /bin/true\nrcfile = %d/rc\n");
    box_spawner_jobs(b, 0);
    loop_start(&loop);
    int places = 0;
    spawner_on_place(BOX.sp, on_place, &places);
    char err[256];
    memset(got, 0, sizeof got);
    ck_assert_int_eq(spawner_rc_load(BOX.sp, "rc", "ann", on_rc, &got[0], err, sizeof err), 0);
    ck_assert(run_until(&loop, rc_answered, &got[0], 10000));
    ck_assert_str_eq(got[0].err, SPAWNER_JOBS_FULL);
    ck_assert_int_eq(
        spawner_files_read(BOX.sp, "rc", "ann", on_files_got, &got[1], err, sizeof err), 0);
    ck_assert(run_until(&loop, rc_answered, &got[1], 10000));
    ck_assert_str_eq(got[1].err, SPAWNER_FILES_FULL);
    run_until(&loop, never, NULL, 100);
    ck_assert_int_eq(places, 0);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "exit7"));
    ck_assert(run_until(&loop, toy_exited, &t, 10000));
    ck_assert_int_eq(places, 1);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(spawn_failures_say_why)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "nosuch");
    char err[256];
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "no game nosuch");
    o->game = "missing";
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "exec: No such file or directory");
    o->game = "report";
    o->w = 0;
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "bad window size");
    o->w = 80;
    o->name = "b b"; /* refused before it is sent */
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "a bad name, directory, size or text");
    o->name = "tester";
    o->dir = "..";
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "a bad name, directory, size or text");
    /* the player's directory replaced by a link: refused, not followed */
    char games[128], link[160];
    snprintf(games, sizeof games, "%s/games/report", BOX.dir);
    ck_assert_int_eq(mkdir(games, 0711), 0);
    snprintf(link, sizeof link, "%s/linked", games);
    ck_assert_int_eq(symlink("/tmp", link), 0);
    o->dir = "linked";
    ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
    ck_assert_str_eq(err, "your directory for this game is a link or not a directory: not used");
    o->dir = "tester";
    if (geteuid() == 0) { /* as root, a game whose user is missing cannot start */
        ck_assert_str_eq(spawner_unavailable(BOX.sp, "nouser"),
                         "nouser is not available: its user no-such-user-here does not exist");
        o->game = "nouser";
        ck_assert_int_eq(try_spawn(&loop, o, err, sizeof err), -1);
        ck_assert_str_eq(err, "nouser is not available: its user no-such-user-here does not exist");
    }
    ck_assert_ptr_null(spawner_unavailable(BOX.sp, "report"));
    spawner_user_t u;
    ck_assert_int_eq(spawner_user_lookup("no-such-user-here", &u), -1);
    ck_assert_str_eq(u.why, "user no-such-user-here: no such user");
    loop_done(&loop); /* failed children were reaped; handles closed */
}
END_TEST

/* Fairness: one flooding program, one quiet one and a timer on one loop. */
typedef struct {
    uint64_t last, last_waited, max_gap;
    int ticks;
} ticker_t;

/* The ms this thread has waited for a core (runnable, another task on
 * it): a busy machine's, not the loop's. */
static uint64_t waited_for_a_core_ms(void)
{
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%llu %llu", &run, &wait), 2);
    fclose(f);
    return wait / 1000000;
}

/* The longest gap between two ticks, less the time the thread waited for
 * a core meanwhile: what the loop itself kept the timer waiting. */
static void on_ticker(uv_timer_t *h)
{
    ticker_t *k = h->data;
    uint64_t now = uv_hrtime() / 1000000, waited = waited_for_a_core_ms();
    if (k->last) {
        uint64_t gap = now - k->last, off = waited - k->last_waited;
        gap = gap > off ? gap - off : 0;
        if (gap > k->max_gap)
            k->max_gap = gap;
    }
    k->last = now;
    k->last_waited = waited;
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
    box_open();
    loop_start(&loop);
    toy_spec_t fspec, qspec;
    toy_t flood, quiet;
    toy_start(&flood, &loop, toy_spec(&fspec, "flood"));
    toy_start(&quiet, &loop, toy_spec(&qspec, "winsize"));
    uv_prepare_t prep;
    uv_check_t check;
    uv_timer_t timer;
    ticker_t k = {0, 0, 0, 0};
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
    box_open();
    loop_start(&loop);
    toy_spec_t fspec, qspec;
    toy_t flood, quiet;
    toy_start(&flood, &loop, toy_spec(&fspec, "flood"));
    uv_update_time(&loop);                  /* the bucket's start and t0 are one time */
    ptyproc_set_output_rate(flood.p, RATE); /* before the loop reads it again */
    uint64_t t0 = uv_now(&loop);
    uint64_t before = flood.total; /* read in the turn that started it, before the rate */
    toy_start(&quiet, &loop, toy_spec(&qspec, "winsize"));
    wait_output(&quiet, "size 80x24");
    run_until(&loop, never, NULL, 1000);
    ck_assert_int_eq(ptyproc_resize(quiet.p, 90, 20), 0);
    wait_output(&quiet, "size 90x20");
    run_until(&loop, never, NULL, 1000);
    ptyproc_stats_t st;
    ptyproc_stats(flood.p, &st);
    uint64_t ms = uv_now(&loop) - t0, most = RATE + (uint64_t)RATE * ms / 1000;
    uint64_t read = flood.total - before;
    ck_assert_uint_eq(st.bytes_out, flood.total);
    ck_assert_msg(read <= most, "read %llu bytes in %llu ms: more than %llu",
                  (unsigned long long)read, (unsigned long long)ms, (unsigned long long)most);
    ck_assert_msg(read >= most / 2, "read only %llu bytes in %llu ms", (unsigned long long)read,
                  (unsigned long long)ms);
    ck_assert_uint_ge(st.pauses, 20); /* paused about every 25 ms, and resumed */
    ck_assert(grid_has(&flood, "flood "));
    ptyproc_set_output_rate(flood.p, 0); /* no limit: it floods at once */
    /* 4 MB more within half the minute the rate would take: not within a
     * fixed 10 s, which a sanitized build on a busy machine may need */
    flood.goal = flood.total + (4u << 20);
    ck_assert(run_until(&loop, past_total, &flood, (4u << 20) / RATE * 1000 / 2));
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
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "nohup"); /* hangup-timeout = 1 */
    toy_t t;
    toy_start(&t, &loop, o);
    wait_output(&t, "nohup ready");
    uint64_t t0 = uv_hrtime();
    ptyproc_hangup(t.p);
    ptyproc_hangup(t.p); /* a repeat changes nothing */
    ck_assert(run_until(&loop, toy_exited, &t, 10000));
    uint64_t ms = (uv_hrtime() - t0) / 1000000;
    ck_assert(WIFSIGNALED(t.status) && WTERMSIG(t.status) == SIGKILL);
    ck_assert_uint_ge(ms, 900);
    ck_assert_uint_lt(ms, 5000);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(a_program_that_never_reads_cannot_block_writes)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "noread"));
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
    ck_assert_uint_gt(st.queued, 0); /* the kernel's buffer filled first */
    size_t grid = vtgrid_memory(ptyproc_grid(t.p));
    ck_assert_uint_ge(ptyproc_memory(t.p) - grid, PTYPROC_INPUT_MAX); /* the queue is held */
    run_until(&loop, never, NULL, 200);                               /* the loop keeps turning */
    ck_assert_int_eq(t.exits, 0);
    toy_finish(&t); /* SIGKILL, reaped */
    loop_done(&loop);
}
END_TEST

/* A key the pty takes at once leaves no input queue behind: a thousand
 * hosted games do not each keep PTYPROC_INPUT_MAX bytes for nothing. */
START_TEST(input_is_queued_only_while_it_waits)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "winsize"));
    wait_output(&t, "size 80x24");
    size_t grid = vtgrid_memory(ptyproc_grid(t.p));
    ck_assert_uint_lt(ptyproc_memory(t.p) - grid, 1024);
    ck_assert_uint_eq(ptyproc_write(t.p, "ab", 2), 2);
    ptyproc_stats_t st;
    ptyproc_stats(t.p, &st);
    ck_assert_uint_eq(st.bytes_in, 2);
    ck_assert_uint_eq(st.queued, 0);
    ck_assert_uint_lt(ptyproc_memory(t.p) - vtgrid_memory(ptyproc_grid(t.p)), 1024);
    toy_finish(&t);
    loop_done(&loop);
}
END_TEST

START_TEST(resizes_reach_the_program)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "winsize"));
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
    ck_assert_msg(WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0, "status %#x:\n%s",
                  (unsigned)t->status, t->out);
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
    box_open();
    loop_start(&loop);
    toy_spec_t spec; /* env FOO=bar baz; cpu 100, memory 1024, files 64, file-size 10 */
    toy_t t;
    run_report(&t, &loop, toy_spec(&spec, "report"));
    char got[1024], home[256];
    snprintf(home, sizeof home, "%s/games/report/tester", BOX.dir);
    report_lines(t.out, "env ", got, sizeof got);
    char want_env[512];
    snprintf(want_env, sizeof want_env,
             "env TERM=xterm-256color|env HOME=%s|env PATH=/usr/local/bin:/usr/bin:/bin|env "
             "FOO=bar baz",
             home);
    ck_assert_str_eq(got, want_env);
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
    char want_cwd[300];
    snprintf(want_cwd, sizeof want_cwd, "cwd %s", home); /* its own directory */
    ck_assert_str_eq(got, want_cwd);
    report_lines(t.out, "tty ", got, sizeof got);
    ck_assert_str_eq(got, "tty yes leader yes");
    report_lines(t.out, "sig ", got, sizeof got);
    ck_assert_str_eq(got, "sig blocked 0 pipe default int default");
    toy_finish(&t);
    loop_done(&loop);
    close(leak);
}
END_TEST

/* The uid line a report must show for user (root switches to it; anyone
 * else runs the program as itself). */
static void want_uid(const char *user, char *want, size_t len)
{
    spawner_user_t u;
    ck_assert_msg(spawner_user_lookup(user, &u) == 0, "%s (make deps creates warren-games)", u.why);
    ck_assert_int_ne(u.uid, 0);
    if (geteuid() == 0)
        snprintf(want, len, "uid %u gid %u groups %d", (unsigned)u.uid, (unsigned)u.gid, u.ngroups);
    else
        snprintf(want, len, "uid %u gid %u groups ", (unsigned)getuid(), (unsigned)getgid());
}

START_TEST(the_child_runs_as_the_configured_user)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    static const struct {
        const char *game, *user;
    } cases[] = {{"asnobody", "nobody"}, {"report", "warren-games"}}; /* user =, else games-user */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        toy_spec_t spec;
        toy_t t;
        run_report(&t, &loop, toy_spec(&spec, cases[i].game));
        char got[256], want[256];
        report_lines(t.out, "uid ", got, sizeof got);
        want_uid(cases[i].user, want, sizeof want);
        ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "%s != %s", got, want);
        toy_finish(&t);
    }
    loop_done(&loop);
}
END_TEST

/* Whether pid is gone (not even a zombie). */
static bool gone(void *arg)
{
    return kill(*(pid_t *)arg, 0) < 0 && errno == ESRCH;
}

/* The parent and session of pid, from /proc/PID/stat. */
static void parent_session(pid_t pid, int *ppid, int *sid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_int_eq(sscanf(strrchr(line, ')') + 1, " %*c %d %*d %d", ppid, sid), 2);
}

/* The text of file path (at most cap - 1 bytes), or "" when unreadable. */
static void read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* The machine's pid of the child of the game's reaper (the only child of
 * its holder) that its box numbers boxed (its /proc being the box's, a
 * program knows only that): the last pid of its NSpid. -1 when none. */
static pid_t machine_pid_of(pid_t holder, pid_t boxed)
{
    char path[64], kids[4096], status[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)holder, (int)holder);
    read_text(path, kids, sizeof kids);
    int reaper = atoi(kids);
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", reaper, reaper);
    read_text(path, kids, sizeof kids);
    for (char *k = strtok(kids, " \n"); k; k = strtok(NULL, " \n")) {
        snprintf(path, sizeof path, "/proc/%s/status", k);
        read_text(path, status, sizeof status);
        char *ns = strstr(status, "NSpid:"), *end = ns ? strchr(ns, '\n') : NULL;
        if (!end)
            continue;
        *end = 0;
        if (atoi(strrchr(ns, '\t') + 1) == (int)boxed)
            return (pid_t)atoi(k);
    }
    return -1;
}

/* A grandchild that left its game's session (setsid, its parent gone) is
 * the child of its game's pid namespace's reaper now (the spawner's, for
 * a game without one), and dies when the game ends, whichever way. */
START_TEST(what_a_program_leaves_behind_ends_with_it)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    for (int way = 0; way < 2; way++) { /* quits; is hung up */
        toy_spec_t spec;
        toy_t t;
        toy_start(&t, &loop, toy_spec(&spec, "setsid"));
        wait_output(&t, "grandchild ");
        wait_output(&t, "\r\n");
        pid_t boxed = (pid_t)atoi(strstr(t.out, "grandchild ") + 11);
        ck_assert_int_gt(boxed, 2); /* its box's: 1 the reaper, 2 the program */
        pid_t g = machine_pid_of(ptyproc_pid(t.p), boxed);
        ck_assert_int_gt(g, 1);
        ck_assert_int_eq(kill(g, 0), 0);
        int ppid = 0, sid = 0, holder = 0, unused;
        parent_session(g, &ppid, &sid);
        parent_session(ppid, &holder, &unused);
        ck_assert_int_eq(holder, ptyproc_pid(t.p)); /* reparented to the game's reaper */
        ck_assert_int_ne(sid, ptyproc_pid(t.p));    /* out of its game's session */
        if (way == 0)
            toy_quit(&t);
        else {
            ptyproc_hangup(t.p);
            ck_assert(run_until(&loop, toy_exited, &t, 10000));
        }
        ck_assert_msg(run_until(&loop, gone, &g, 5000), "grandchild %d outlived its game", (int)g);
        toy_finish(&t);
    }
    loop_done(&loop);
}
END_TEST

/* What the "warrend" of the next test passes back before it dies. */
typedef struct {
    pid_t spawner, setsid, nohup, grandchild;
} victims_t;

/* A stand-in for warrend, in a child process: starts the two toys, says
 * who is who, and dies as a SIGKILL would leave it (nothing closed). */
static void __attribute__((noreturn)) doomed_daemon(int out)
{
    uv_loop_t loop;
    box_spawner(&BOX, NULL);
    if (uv_loop_init(&loop) < 0 || spawner_attach(BOX.sp, &loop) < 0)
        _exit(1);
    toy_spec_t s1, s2;
    toy_t a, b;
    toy_start(&a, &loop, toy_spec(&s1, "setsid"));
    toy_start(&b, &loop, toy_spec(&s2, "nohup"));
    wait_output(&a, "grandchild ");
    wait_output(&a, "\r\n");
    wait_output(&b, "nohup ready");
    victims_t v = {
        spawner_pid(BOX.sp), ptyproc_pid(a.p), ptyproc_pid(b.p),
        machine_pid_of(ptyproc_pid(a.p), (pid_t)atoi(strstr(a.out, "grandchild ") + 11))};
    _exit(write(out, &v, sizeof v) == (ssize_t)sizeof v ? 0 : 1);
}

/* warrend dies (its end of the socket closes): the spawner hangs every
 * program up, SIGKILLs the one that ignores it after its hangup-timeout,
 * kills what they left behind, and exits. */
START_TEST(the_spawner_ends_everything_when_warrend_dies)
{
    box_make();
    ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); /* the orphaned spawner comes here */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t daemon = fork();
    ck_assert_int_ge(daemon, 0);
    if (daemon == 0) {
        close(fds[0]);
        doomed_daemon(fds[1]);
    }
    close(fds[1]);
    victims_t v;
    ck_assert_int_eq(read(fds[0], &v, sizeof v), sizeof v);
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(daemon, &status, 0), daemon);
    uint64_t t0 = uv_hrtime();
    pid_t r;
    while ((r = waitpid(v.spawner, &status, WNOHANG)) == 0 && uv_hrtime() - t0 < 10000000000ull)
        usleep(20000);
    ck_assert_int_eq(r, v.spawner);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    uint64_t ms = (uv_hrtime() - t0) / 1000000;
    ck_assert_msg(ms >= 800, "exited after %llu ms: before nohup's SIGKILL was due",
                  (unsigned long long)ms);
    pid_t all[3] = {v.setsid, v.nohup, v.grandchild};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(kill(all[i], 0) < 0 && errno == ESRCH, "pid %d lives on", (int)all[i]);
    box_close(&BOX);
}
END_TEST

START_TEST(a_drawn_screen_lands_in_the_grid)
{
    uv_loop_t loop;
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "draw"));
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
    box_open();
    loop_start(&loop);
    toy_spec_t spec;
    toy_t t;
    toy_start(&t, &loop, toy_spec(&spec, "noread"));
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
    char pg[128];
    gamecfg_list_t games;
} nethack_t;

/* A private playground (NetHack's data linked, its score files empty) and a
 * player directory with an rc file, so the test needs no setgid games. */
/* The games' user owns what NetHack writes (as root; else this process). */
static void games_own(const char *path)
{
    spawner_user_t u;
    if (geteuid() != 0)
        return;
    ck_assert_msg(spawner_user_lookup("warren-games", &u) == 0, "%s", u.why);
    ck_assert_int_eq(chown(path, u.uid, u.gid), 0);
}

/* A private playground in the box (NetHack's data linked, its score files
 * empty, all the games' user's), so the test needs no setgid games; the
 * player's rc file comes from rc-default. */
static void nethack_setup(nethack_t *nh)
{
    box_make();
    snprintf(nh->pg, sizeof nh->pg, "%s/nethack", BOX.dir);
    ck_assert_int_eq(mkdir(nh->pg, 0755), 0);
    games_own(nh->pg);
    char p[256], q[256];
    const char *data[] = {"nhdat", "symbols", "license"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "/usr/lib/games/nethack/%s", data[i]);
        snprintf(q, sizeof q, "%s/%s", nh->pg, data[i]);
        ck_assert_msg(symlink(p, q) == 0, "%s: %s", q, strerror(errno));
    }
    const char *files[] = {"record", "logfile", "xlogfile", "perm", "save"};
    for (int i = 0; i < 5; i++) {
        snprintf(q, sizeof q, "%s/%s", nh->pg, files[i]);
        FILE *f = i < 4 ? fopen(q, "w") : NULL;
        ck_assert(i < 4 ? f != NULL : mkdir(q, 0700) == 0);
        if (f)
            fclose(f);
        games_own(q);
    }
    snprintf(q, sizeof q, "%s/nethackrc", BOX.dir);
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
             "command = /usr/games/nethack -d %s -u %%u\n"
             "env = NETHACKOPTIONS=@%%r\n"
             "rcfile = %%d/nethackrc\n"
             "rc-default = %s\n"
             "xlogfile = %s/xlogfile\n",
             nh->pg, q, nh->pg);
    memset(&nh->games, 0, sizeof nh->games);
    ck_assert_msg(gamecfg_parse(&nh->games, cfg, strlen(cfg), 1, err, sizeof err) == 0, "%s", err);
    box_spawner(&BOX, &nh->games);
}

static void nethack_start(nethack_t *nh, toy_t *t, uv_loop_t *loop)
{
    (void)nh;
    toy_spec_t spec;
    ptyproc_opts_t *o = toy_spec(&spec, "nethack");
    o->name = o->dir = "hostedtest";
    toy_start(t, loop, o);
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
    char path[160];
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
    loop_start(&loop);
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
    loop_done(&loop); /* the spawner goes before the config it was given */
    gamecfg_list_free(&nh.games);
}
END_TEST

Suite *suite_server_hosted_pty(void)
{
    Suite *s = suite_create("server.hosted_pty");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, exit_at_once_is_reported_and_reaped);
    tcase_add_test(t, spawn_failures_say_why);
    tcase_add_test(t, starts_wait_for_the_spawner_up_to_the_cap);
    tcase_add_test(t, a_start_holds_up_no_other);
    tcase_add_test(t, a_start_past_its_deadline_is_killed_and_answered);
    tcase_add_test(t, a_start_under_way_when_warrend_goes_is_hung_up);
    tcase_add_test(t, rc_files_wait_for_the_spawner_up_to_the_cap);
    tcase_add_test(t, a_place_freed_is_told_a_refusal_is_not);
    tcase_add_test(t, a_flood_cannot_starve_the_loop);
    tcase_add_test(t, a_flood_is_held_to_its_output_rate);
    tcase_add_test(t, ignoring_sighup_gets_sigkill);
    tcase_add_test(t, a_program_that_never_reads_cannot_block_writes);
    tcase_add_test(t, input_is_queued_only_while_it_waits);
    tcase_add_test(t, resizes_reach_the_program);
    tcase_add_test(t, the_child_gets_only_what_is_configured);
    tcase_add_test(t, the_child_runs_as_the_configured_user);
    tcase_add_test(t, what_a_program_leaves_behind_ends_with_it);
    tcase_add_test(t, the_spawner_ends_everything_when_warrend_dies);
    tcase_add_test(t, a_drawn_screen_lands_in_the_grid);
    tcase_add_test(t, closing_a_running_program_reaps_it);
    tcase_add_test(t, nethack_plays_hangs_up_restores_and_quits);
    suite_add_tcase(s, t);
    return s;
}
