/* ptyproc — spawn a program under a pty, read it fairly, reap it. */
#include "ptyproc.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pty.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define READ_CHUNK 16384
/* after the program exits: what is left in the pty, at most this much */
#define DRAIN_MAX  (256 * 1024)

struct ptyproc {
    uv_loop_t *loop;
    uv_poll_t poll; /* the master fd; closing it closes the fd */
    uv_signal_t sigchld;
    uv_timer_t killer; /* SIGKILL after a hangup */
    uv_timer_t resume; /* output paused by the rate: polls again */
    int master;
    pid_t pid;
    int status;
    bool running;    /* not reaped yet */
    bool master_eof; /* read gave EOF or EIO: the slave side is closed */
    bool hungup;
    bool closing;         /* ptyproc_close was called: no more callbacks */
    bool paused;          /* out of output tokens: not polled for output until resume */
    uint64_t rate, burst; /* output bytes a second (0: no limit) and the bucket's size */
    uint64_t tokens;      /* in the bucket, in thousandths of a byte */
    uint64_t tokens_at;   /* uv_now() when they were counted */
    int handles_open;
    unsigned kill_after_ms;
    ptyproc_cbs_t cbs;
    void *user;
    vtgrid_t *grid;
    ptyproc_stats_t st;
    size_t qhead, qlen; /* input waiting: q[qhead .. qhead + qlen) */
    char q[PTYPROC_INPUT_MAX];
};

/* ---- lifetime ------------------------------------------------------------------ */

static void maybe_free(ptyproc_t *p)
{
    if (!p->closing || p->handles_open > 0)
        return;
    vtgrid_free(p->grid);
    free(p);
}

static void on_handle_closed(uv_handle_t *h)
{
    ptyproc_t *p = h->data;
    if (h == (uv_handle_t *)&p->poll && p->master >= 0) {
        close(p->master);
        p->master = -1;
    }
    p->handles_open--;
    maybe_free(p);
}

static void close_handle(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, on_handle_closed);
}

/* ---- input --------------------------------------------------------------------- */

static void on_poll(uv_poll_t *h, int status, int events);

/* Readable while the pty is open and the rate allows; writable too while
 * input waits. */
static void update_poll(ptyproc_t *p)
{
    if (uv_is_closing((uv_handle_t *)&p->poll))
        return;
    int ev = p->master_eof ? 0 : (p->paused ? 0 : UV_READABLE) | (p->qlen ? UV_WRITABLE : 0);
    if (ev)
        uv_poll_start(&p->poll, ev, on_poll);
    else
        uv_poll_stop(&p->poll);
}

static void flush_input(ptyproc_t *p)
{
    while (p->qlen) {
        ssize_t n = write(p->master, p->q + p->qhead, p->qlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) { /* EIO: the program closed its terminal */
            p->st.bytes_dropped += p->qlen;
            p->qlen = 0;
            break;
        }
        p->st.bytes_in += (uint64_t)n;
        p->qhead += (size_t)n;
        p->qlen -= (size_t)n;
    }
    if (!p->qlen)
        p->qhead = 0;
}

size_t ptyproc_write(ptyproc_t *p, const void *bytes, size_t len)
{
    p->st.last_input = uv_now(p->loop);
    bool open = p->running && !p->master_eof && !p->closing;
    size_t room = open ? PTYPROC_INPUT_MAX - p->qlen : 0;
    size_t take = len < room ? len : room;
    p->st.bytes_dropped += len - take;
    if (!take)
        return 0;
    if (p->qhead + p->qlen + take > PTYPROC_INPUT_MAX) {
        memmove(p->q, p->q + p->qhead, p->qlen);
        p->qhead = 0;
    }
    memcpy(p->q + p->qhead + p->qlen, bytes, take);
    p->qlen += take;
    bool was_waiting = p->qlen > take;
    if (!was_waiting)
        flush_input(p);
    update_poll(p);
    return take;
}

/* The terminal's answers (device attributes...) are input to the program. */
static void on_reply(const char *bytes, size_t len, void *user)
{
    ptyproc_write(user, bytes, len);
}

/* ---- output -------------------------------------------------------------------- */

/* Fills buf with up to want bytes, as many reads as the kernel cuts them
 * into (a pty hands out about 4 KB a read). Returns the bytes read; sets
 * master_eof at EOF or EIO (every slave descriptor is closed). */
static size_t read_into(ptyproc_t *p, char *buf, size_t want)
{
    size_t got = 0;
    while (got < want && !p->master_eof) {
        ssize_t n = read(p->master, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            p->master_eof = true;
            update_poll(p);
            break;
        }
        got += (size_t)n;
    }
    return got;
}

/* Reads at most budget bytes into the grid. The output callback gets them
 * in pieces of READ_CHUNK, so one loop turn's read (PTYPROC_READ_BUDGET)
 * is one call, one frame, however the kernel cut it. Returns the bytes
 * read. */
static size_t read_some(ptyproc_t *p, size_t budget)
{
    char buf[READ_CHUNK];
    size_t total = 0;
    while (total < budget && !p->master_eof) {
        size_t want = budget - total < sizeof buf ? budget - total : sizeof buf;
        size_t n = read_into(p, buf, want);
        if (!n)
            break;
        total += n;
        p->st.bytes_out += n;
        p->st.last_output = uv_now(p->loop);
        vtgrid_write(p->grid, buf, n);
        if (!p->closing && p->cbs.output)
            p->cbs.output(p, buf, n, p->user);
        if (n < want)
            break; /* nothing more for now */
    }
    return total;
}

/* ---- the output rate: a token bucket ------------------------------------------- */

/* Bytes the bucket holds at now (refilled first); SIZE_MAX with no rate. */
static size_t bucket_room(ptyproc_t *p, uint64_t now)
{
    if (!p->rate)
        return SIZE_MAX;
    uint64_t ms = now - p->tokens_at, cap = p->burst * 1000;
    if (ms > 60000)
        ms = 60000;              /* a minute refills any bucket; no overflow */
    uint64_t add = ms * p->rate; /* ms times bytes a second: thousandths of a byte */
    p->tokens = cap - p->tokens <= add ? cap : p->tokens + add;
    p->tokens_at = now;
    return (size_t)(p->tokens / 1000);
}

/* A read worth a frame: what the rate brings in PTYPROC_RESUME_MS. */
static size_t bucket_slice(const ptyproc_t *p)
{
    uint64_t slice = p->rate * PTYPROC_RESUME_MS / 1000;
    return (size_t)(slice < 1 ? 1 : slice > p->burst ? p->burst : slice);
}

void ptyproc_set_output_rate(ptyproc_t *p, uint64_t bytes_per_s)
{
    if (bytes_per_s > (1u << 30))
        bytes_per_s = 1u << 30; /* no terminal is that fast; the sums stay in 64 bits */
    p->rate = bytes_per_s;
    p->burst = bytes_per_s < PTYPROC_BURST_MIN   ? PTYPROC_BURST_MIN
               : bytes_per_s > PTYPROC_BURST_MAX ? PTYPROC_BURST_MAX
                                                 : bytes_per_s;
    p->tokens = p->burst * 1000;
    p->tokens_at = uv_now(p->loop);
    if (!bytes_per_s && p->paused) {
        p->paused = false;
        uv_timer_stop(&p->resume);
        update_poll(p);
    }
}

static void on_resume(uv_timer_t *t)
{
    ptyproc_t *p = t->data;
    p->paused = false;
    update_poll(p);
}

/* Reads what the budget and the rate allow. Out of tokens, the pty is left
 * unread for PTYPROC_RESUME_MS: the program's writes block meanwhile. */
static void read_fairly(ptyproc_t *p)
{
    size_t room = bucket_room(p, uv_now(p->loop));
    if (room < bucket_slice(p) && !p->closing) {
        p->paused = true;
        p->st.pauses++;
        uv_timer_start(&p->resume, on_resume, PTYPROC_RESUME_MS, 0);
        return;
    }
    size_t got = read_some(p, room < PTYPROC_READ_BUDGET ? room : PTYPROC_READ_BUDGET);
    if (p->rate)
        p->tokens -= (uint64_t)got * 1000;
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    ptyproc_t *p = h->data;
    if (status < 0) {
        p->master_eof = true;
        update_poll(p);
        return;
    }
    if (events & UV_WRITABLE)
        flush_input(p);
    if (events & UV_READABLE)
        read_fairly(p);
    update_poll(p);
}

/* ---- exit and signals ---------------------------------------------------------- */

static void finish(ptyproc_t *p, int status)
{
    p->running = false;
    p->status = status;
    read_some(p, DRAIN_MAX);
    p->master_eof = true;
    p->st.bytes_dropped += p->qlen;
    p->qlen = 0;
    /* closing the master hangs up anything the program left holding the pty */
    close_handle((uv_handle_t *)&p->poll);
    close_handle((uv_handle_t *)&p->sigchld);
    uv_timer_stop(&p->killer);
    if (!p->closing && p->cbs.exited)
        p->cbs.exited(p, status, p->user);
}

/* Every SIGCHLD in the process wakes this handle; only our pid is waited. */
static void on_sigchld(uv_signal_t *h, int signum)
{
    (void)signum;
    ptyproc_t *p = h->data;
    if (!p->running)
        return;
    int status = 0;
    pid_t r;
    do
        r = waitpid(p->pid, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == p->pid)
        finish(p, status);
    else if (r < 0) /* ECHILD: reaped elsewhere (a bug there); stop waiting */
        finish(p, -1);
}

static void signal_group(ptyproc_t *p, int sig)
{
    if (!p->running) /* a reaped pid may belong to someone else by now */
        return;
    if (kill(-p->pid, sig) < 0)
        kill(p->pid, sig);
}

static void on_kill_timer(uv_timer_t *t)
{
    signal_group(t->data, SIGKILL);
}

void ptyproc_hangup(ptyproc_t *p)
{
    if (!p->running || p->hungup)
        return;
    p->hungup = true;
    signal_group(p, SIGHUP);
    signal_group(p, SIGCONT); /* a stopped program must see its SIGHUP */
    uv_timer_start(&p->killer, on_kill_timer, p->kill_after_ms, 0);
}

void ptyproc_close(ptyproc_t *p)
{
    if (!p || p->closing)
        return;
    p->closing = true;
    p->master_eof = true; /* the fd closes with the poll handle: no more reads */
    signal_group(p, SIGKILL);
    close_handle((uv_handle_t *)&p->poll);
    close_handle((uv_handle_t *)&p->killer);
    close_handle((uv_handle_t *)&p->resume);
    if (!p->running) /* else on_sigchld reaps it and closes the handle */
        close_handle((uv_handle_t *)&p->sigchld);
    maybe_free(p);
}

/* ---- the child ----------------------------------------------------------------- */

/* What failed in the child before exec, sent back through a pipe. */
typedef enum { STEP_TTY, STEP_LIMITS, STEP_USER, STEP_CHDIR, STEP_EXEC } step_t;
static const char *const STEP_NAMES[] = {"terminal setup", "resource limits", "user switch",
                                         "chdir", "exec"};

typedef struct {
    int step, err;
} child_report_t;

typedef struct {
    char *const *argv, *const *envp;
    const char *dir;
    const ptyproc_limits_t *limits;
    const ptyproc_user_t *user; /* NULL: no switch */
    int slave, report;          /* both >= 3 */
    long maxfd;                 /* for closing descriptors without close_range */
} child_t;

static void child_fail(step_t step)
{
    child_report_t r = {(int)step, errno};
    ssize_t n = write(3, &r, sizeof r);
    (void)n;
    _exit(127);
}

static void child_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            sigaction(s, &dfl, NULL); /* ignored ones stay ignored across exec */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The pty on 0, 1 and 2; the report pipe on 3; nothing else open. */
static void child_fds(const child_t *c)
{
    if (setsid() < 0 || ioctl(c->slave, TIOCSCTTY, 0) < 0)
        child_fail(STEP_TTY);
    for (int fd = 0; fd < 3; fd++)
        if (dup2(c->slave, fd) < 0)
            child_fail(STEP_TTY);
    if (dup2(c->report, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
        child_fail(STEP_TTY);
    if (close_range(4, ~0U, 0) < 0)
        for (long fd = 4; fd < c->maxfd; fd++)
            close((int)fd);
}

static void child_limits(const ptyproc_limits_t *l)
{
    const struct {
        int res;
        uint64_t v;
    } set[] = {{RLIMIT_CPU, l->cpu_seconds},
               {RLIMIT_AS, l->memory_bytes},
               {RLIMIT_NOFILE, l->files},
               {RLIMIT_NPROC, l->processes},
               {RLIMIT_FSIZE, l->file_bytes}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        struct rlimit r = {(rlim_t)set[i].v, (rlim_t)set[i].v};
        if (set[i].v && setrlimit(set[i].res, &r) < 0)
            child_fail(STEP_LIMITS);
    }
}

static void child_user(const ptyproc_user_t *u)
{
    if (setgroups((size_t)u->ngroups, u->groups) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
        child_fail(STEP_USER);
    if (u->uid != 0 && setuid(0) == 0) { /* root must be gone for good */
        errno = EPERM;
        child_fail(STEP_USER);
    }
}

/* Only async-signal-safe calls: the daemon has threads. */
static void __attribute__((noreturn)) child_run(const child_t *c)
{
    child_signals();
    child_fds(c);
    child_limits(c->limits);
    if (c->user)
        child_user(c->user);
    if (chdir(c->dir ? c->dir : "/") < 0)
        child_fail(STEP_CHDIR);
    execve(c->argv[0], c->argv, c->envp);
    child_fail(STEP_EXEC);
    _exit(127);
}

/* ---- spawning ------------------------------------------------------------------ */

static int opts_check(const ptyproc_opts_t *o, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!o->argv || !o->argv[0] || o->argv[0][0] != '/')
        why = "argv[0] must be an absolute path";
    else if (!o->envp)
        why = "no environment";
    else if (o->w < VTGRID_MIN_W || o->h < 1 || o->w > SCREEN_MAX_W || o->h > SCREEN_MAX_H)
        why = "bad window size";
    if (why)
        snprintf(err, errlen, "%s", why);
    return why ? -1 : 0;
}

/* A descriptor moved to 3 or above, close-on-exec; the old one is closed. */
static int fd_high(int fd)
{
    if (fd >= 3)
        return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return n;
}

/* Forks the child; returns its pid (the report pipe tells how it went), or
 * -1. Signals stay blocked across fork so no handler of the daemon's runs
 * in the child before it resets them. */
static pid_t fork_child(const child_t *c)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        child_run(c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return pid;
}

/* Waits for exec (the pipe closes) or the child's report. */
static int child_result(int rfd, pid_t pid, char *err, size_t errlen)
{
    child_report_t r;
    ssize_t n;
    do
        n = read(rfd, &r, sizeof r);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return 0;
    if (n == (ssize_t)sizeof r && r.step >= 0 && r.step <= STEP_EXEC)
        snprintf(err, errlen, "%s: %s", STEP_NAMES[r.step], strerror(r.err));
    else
        snprintf(err, errlen, "the child failed before exec");
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return -1;
}

static ptyproc_t *proc_new(uv_loop_t *loop, const ptyproc_opts_t *o, const ptyproc_cbs_t *cbs,
                           void *user)
{
    ptyproc_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->grid = vtgrid_new(o->w, o->h, on_reply, p);
    if (!p->grid) {
        free(p);
        return NULL;
    }
    p->loop = loop;
    p->master = -1;
    p->cbs = *cbs;
    p->user = user;
    p->kill_after_ms = o->kill_after_ms ? o->kill_after_ms : PTYPROC_KILL_AFTER_MS;
    p->st.last_output = p->st.last_input = uv_now(loop);
    uv_timer_init(loop, &p->killer);
    uv_timer_init(loop, &p->resume);
    uv_signal_init(loop, &p->sigchld);
    p->killer.data = p->resume.data = p->sigchld.data = p;
    p->handles_open = 3;
    return p;
}

/* Opens the pty and the report pipe, all at fd 3 or above, close-on-exec
 * except the slave (which the child needs). Returns 0 or -1. */
static int open_fds(const ptyproc_opts_t *o, int *master, int *slave, int pipefd[2])
{
    struct winsize ws = {(unsigned short)o->h, (unsigned short)o->w, 0, 0};
    if (openpty(master, slave, NULL, NULL, &ws) < 0)
        return -1;
    *master = fd_high(*master);
    *slave = fd_high(*slave);
    if (*master < 0 || *slave < 0 || fcntl(*master, F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(*master, F_SETFL, O_NONBLOCK) < 0 || pipe2(pipefd, O_CLOEXEC) < 0)
        goto fail;
    pipefd[0] = fd_high(pipefd[0]);
    pipefd[1] = fd_high(pipefd[1]);
    if (pipefd[0] >= 0 && pipefd[1] >= 0)
        return 0;
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
fail:
    if (*master >= 0)
        close(*master);
    if (*slave >= 0)
        close(*slave);
    return -1;
}

static int start(ptyproc_t *p, const ptyproc_opts_t *o, char *err, size_t errlen)
{
    int master, slave, pipefd[2];
    if (open_fds(o, &master, &slave, pipefd) < 0) {
        snprintf(err, errlen, "openpty: %s", strerror(errno));
        return -1;
    }
    child_t c = {o->argv,
                 o->envp,
                 o->dir,
                 &o->limits,
                 geteuid() == 0 ? o->user : NULL,
                 slave,
                 pipefd[1],
                 sysconf(_SC_OPEN_MAX)};
    if (c.maxfd < 0 || c.maxfd > 65536)
        c.maxfd = 65536;
    /* before fork: a program that exits at once must not be missed */
    uv_signal_start(&p->sigchld, on_sigchld, SIGCHLD);
    pid_t pid = fork_child(&c);
    int fork_errno = errno;
    close(slave);
    close(pipefd[1]);
    int rc = pid < 0 ? -1 : child_result(pipefd[0], pid, err, errlen);
    close(pipefd[0]);
    if (pid < 0)
        snprintf(err, errlen, "fork: %s", strerror(fork_errno));
    if (rc < 0) {
        close(master);
        return -1;
    }
    p->pid = pid;
    p->running = true;
    p->master = master;
    uv_poll_init(p->loop, &p->poll, master);
    p->poll.data = p;
    p->handles_open++;
    update_poll(p);
    return 0;
}

int ptyproc_spawn(uv_loop_t *loop, const ptyproc_opts_t *o, const ptyproc_cbs_t *cbs, void *user,
                  ptyproc_t **out, char *err, size_t errlen)
{
    if (opts_check(o, err, errlen) < 0)
        return -1;
    ptyproc_t *p = proc_new(loop, o, cbs, user);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (start(p, o, err, errlen) < 0) {
        p->closing = true;
        close_handle((uv_handle_t *)&p->sigchld);
        close_handle((uv_handle_t *)&p->killer);
        close_handle((uv_handle_t *)&p->resume);
        return -1;
    }
    *out = p;
    return 0;
}

/* ---- the rest ------------------------------------------------------------------ */

int ptyproc_resize(ptyproc_t *p, int w, int h)
{
    if (vtgrid_resize(p->grid, w, h) < 0)
        return -1;
    struct winsize ws = {(unsigned short)h, (unsigned short)w, 0, 0};
    if (p->running && p->master >= 0 && !uv_is_closing((uv_handle_t *)&p->poll))
        ioctl(p->master, TIOCSWINSZ, &ws);
    return 0;
}

vtgrid_t *ptyproc_grid(ptyproc_t *p)
{
    return p->grid;
}

pid_t ptyproc_pid(const ptyproc_t *p)
{
    return p->pid;
}

bool ptyproc_running(const ptyproc_t *p)
{
    return p->running;
}

size_t ptyproc_memory(const ptyproc_t *p)
{
    return sizeof *p + vtgrid_memory(p->grid);
}

void ptyproc_stats(const ptyproc_t *p, ptyproc_stats_t *st)
{
    *st = p->st;
    st->queued = p->qlen;
}

int ptyproc_user_lookup(const char *name, ptyproc_user_t *u, char *err, size_t errlen)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int e = getpwnam_r(name, &pw, buf, sizeof buf, &res);
    if (e || !res) {
        snprintf(err, errlen, "user %s: %s", name, e ? strerror(e) : "no such user");
        return -1;
    }
    memset(u, 0, sizeof *u);
    u->uid = pw.pw_uid;
    u->gid = pw.pw_gid;
    int n = PTYPROC_GROUPS_MAX;
    if (getgrouplist(name, pw.pw_gid, u->groups, &n) < 0) {
        snprintf(err, errlen, "user %s: more than %d groups", name, PTYPROC_GROUPS_MAX);
        return -1;
    }
    u->ngroups = n;
    return 0;
}
