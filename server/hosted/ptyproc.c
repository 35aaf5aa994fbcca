/* ptyproc — a program the spawner started under a pty, read fairly. */
#include "ptyproc.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define READ_CHUNK 16384
/* after the program exits: what is left in the pty, at most this much */
#define DRAIN_MAX  (256 * 1024)

struct ptyproc {
    uv_loop_t *loop;
    spawner_t *sp;     /* borrowed: started it, reports its exit */
    uv_poll_t poll;    /* the master fd; closing it closes the fd */
    uv_timer_t resume; /* output paused by the rate: polls again */
    uv_timer_t winch;  /* a resize held back (PTYPROC_WINCH_MS): passed on */
    uint64_t winch_at; /* uv_now() of the last size passed on */
    int master;
    pid_t pid;
    int status;
    uint32_t ticket; /* the spawner's start, while starting */
    bool starting;   /* waiting for the spawner's answer: input is queued */
    bool polling;    /* poll is initialized (once started) */
    int w0, h0;      /* the window the start asked for */
    bool running;    /* not reaped yet */
    bool master_eof; /* read gave EOF or EIO: the slave side is closed */
    bool hungup;
    bool closing;         /* ptyproc_close was called: no more callbacks */
    bool paused;          /* out of output tokens: not polled for output until resume */
    uint64_t rate, burst; /* output bytes a second (0: no limit) and the bucket's size */
    uint64_t tokens;      /* in the bucket, in thousandths of a byte */
    uint64_t tokens_at;   /* uv_now() when they were counted */
    int handles_open;
    ptyproc_cbs_t cbs;
    void *user;
    vtgrid_t *grid;
    ptyproc_stats_t st;
    /* input waiting: q[qhead .. qhead + qlen); q (PTYPROC_INPUT_MAX bytes)
     * exists only while some waits, as a key is almost always written at once */
    size_t qhead, qlen;
    char *q;
};

/* ---- lifetime ------------------------------------------------------------------ */

static void maybe_free(ptyproc_t *p)
{
    if (!p->closing || p->handles_open > 0)
        return;
    vtgrid_free(p->grid);
    free(p->q);
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
    if (!p->polling || uv_is_closing((uv_handle_t *)&p->poll))
        return;
    int ev = p->master_eof ? 0 : (p->paused ? 0 : UV_READABLE) | (p->qlen ? UV_WRITABLE : 0);
    if (ev)
        uv_poll_start(&p->poll, ev, on_poll);
    else
        uv_poll_stop(&p->poll);
}

static void drop_queue(ptyproc_t *p)
{
    free(p->q);
    p->q = NULL;
    p->qhead = p->qlen = 0;
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
        drop_queue(p);
}

size_t ptyproc_write(ptyproc_t *p, const void *bytes, size_t len)
{
    p->st.last_input = uv_now(p->loop);
    bool open = (p->running || p->starting) && !p->master_eof && !p->closing;
    size_t room = open ? PTYPROC_INPUT_MAX - p->qlen : 0;
    size_t take = len < room ? len : room;
    if (take && !p->q && !(p->q = malloc(PTYPROC_INPUT_MAX)))
        take = 0; /* out of memory: dropped, as past the cap */
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
    if (!was_waiting && p->polling)
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
    drop_queue(p);
    /* closing the master hangs up anything the program left holding the pty */
    close_handle((uv_handle_t *)&p->poll);
    if (!p->closing && p->cbs.exited)
        p->cbs.exited(p, status, p->user);
}

/* The spawner stopped it on its own, and says why. */
static void on_stopped_report(pid_t pid, const char *why, void *user)
{
    ptyproc_t *p = user;
    (void)pid;
    p->hungup = true; /* a hangup asked now would be a repeat */
    if (!p->closing && p->cbs.stopped)
        p->cbs.stopped(p, why, p->user);
}

/* The spawner reaped it. */
static void on_exit_report(pid_t pid, int status, void *user)
{
    (void)pid;
    finish(user, status);
}

void ptyproc_hangup(ptyproc_t *p)
{
    if (p->hungup || (!p->running && !p->starting))
        return;
    p->hungup = true;
    if (p->running) /* starting: once it runs (proc_run) */
        spawner_hangup(p->sp, p->pid);
}

void ptyproc_close(ptyproc_t *p)
{
    if (!p || p->closing)
        return;
    p->closing = true;
    p->master_eof = true; /* the fd closes with the poll handle: no more reads */
    if (p->starting)      /* a program that starts anyway is killed */
        spawner_spawn_cancel(p->sp, p->ticket);
    if (p->running) { /* its exit report is no one's now */
        spawner_unwatch(p->sp, p->pid);
        spawner_kill(p->sp, p->pid);
    }
    if (p->polling)
        close_handle((uv_handle_t *)&p->poll);
    close_handle((uv_handle_t *)&p->resume);
    close_handle((uv_handle_t *)&p->winch);
    maybe_free(p);
}

/* ---- spawning ------------------------------------------------------------------ */

static int opts_check(const ptyproc_opts_t *o, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!o->game || !o->name || !o->dir)
        why = "no game, name or directory";
    else if (o->w < VTGRID_MIN_W || o->h < 1 || o->w > SCREEN_MAX_W || o->h > SCREEN_MAX_H)
        why = "bad window size";
    if (why)
        snprintf(err, errlen, "%s", why);
    return why ? -1 : 0;
}

static ptyproc_t *proc_new(uv_loop_t *loop, spawner_t *sp, const ptyproc_opts_t *o,
                           const ptyproc_cbs_t *cbs, void *user)
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
    p->sp = sp;
    p->master = -1;
    p->w0 = o->w;
    p->h0 = o->h;
    p->cbs = *cbs;
    p->user = user;
    p->st.last_output = p->st.last_input = uv_now(loop);
    uv_timer_init(loop, &p->resume);
    p->resume.data = p;
    uv_timer_init(loop, &p->winch);
    p->winch.data = p;
    p->handles_open = 2;
    return p;
}

/* The program runs: its pty polled, the input that waited written, a
 * resize made while it started passed on. Returns 0, or -1 (memory). */
static int proc_run(ptyproc_t *p, int master, pid_t pid)
{
    if (spawner_watch(p->sp, pid, on_exit_report, on_stopped_report, p) < 0)
        return -1;
    if (uv_poll_init(p->loop, &p->poll, master) < 0) {
        spawner_unwatch(p->sp, pid);
        return -1;
    }
    p->pid = pid;
    p->running = p->polling = true;
    p->master = master;
    p->poll.data = p;
    p->handles_open++;
    int w, h;
    vtgrid_size(p->grid, &w, &h);
    struct winsize ws = {(unsigned short)h, (unsigned short)w, 0, 0};
    if (w != p->w0 || h != p->h0)
        ioctl(master, TIOCSWINSZ, &ws);
    p->winch_at = uv_now(p->loop); /* its first size: the next one waits its turn */
    if (p->qlen)
        flush_input(p);
    update_poll(p);
    if (p->hungup) /* hung up while it started */
        spawner_hangup(p->sp, pid);
    return 0;
}

/* The spawner's answer (never after ptyproc_close: it cancels). */
static void on_started(int master, pid_t pid, const char *err, void *user)
{
    ptyproc_t *p = user;
    p->starting = false;
    if (master >= 0 && proc_run(p, master, pid) < 0) {
        spawner_kill(p->sp, pid);
        close(master);
        err = "out of memory";
    }
    if (err) { /* what was typed meanwhile goes nowhere */
        p->st.bytes_dropped += p->qlen;
        drop_queue(p);
    }
    if (p->cbs.started)
        p->cbs.started(p, err, p->user);
}

int ptyproc_spawn(uv_loop_t *loop, spawner_t *sp, const ptyproc_opts_t *o, const ptyproc_cbs_t *cbs,
                  void *user, ptyproc_t **out, char *err, size_t errlen)
{
    if (opts_check(o, err, errlen) < 0)
        return -1;
    ptyproc_t *p = proc_new(loop, sp, o, cbs, user);
    if (!p)
        return snprintf(err, errlen, "out of memory"), -1;
    if (spawner_spawn(sp, o->game, o->name, o->dir, o->w, o->h, on_started, p, &p->ticket, err,
                      errlen) < 0) {
        p->closing = true; /* freed once its timers are closed */
        close_handle((uv_handle_t *)&p->resume);
        close_handle((uv_handle_t *)&p->winch);
        return -1;
    }
    p->starting = true;
    *out = p;
    return 0;
}

/* ---- the rest ------------------------------------------------------------------ */

/* The grid's size to the program (TIOCSWINSZ: its SIGWINCH), now. */
static void winch_now(ptyproc_t *p)
{
    int w, h;
    vtgrid_size(p->grid, &w, &h);
    struct winsize ws = {(unsigned short)h, (unsigned short)w, 0, 0};
    if (p->running && p->polling && !uv_is_closing((uv_handle_t *)&p->poll))
        ioctl(p->master, TIOCSWINSZ, &ws); /* while starting: once it started */
    p->winch_at = uv_now(p->loop);
}

static void on_winch(uv_timer_t *t)
{
    winch_now(t->data);
}

/* The grid takes the size at once; the program gets it at most once every
 * PTYPROC_WINCH_MS, the last of a burst (a window dragged, a page
 * reloaded): some programs abort on two resizes close together. */
int ptyproc_resize(ptyproc_t *p, int w, int h)
{
    if (vtgrid_resize(p->grid, w, h) < 0)
        return -1;
    uint64_t now = uv_now(p->loop), next = p->winch_at + PTYPROC_WINCH_MS;
    if (p->closing || uv_is_active((uv_handle_t *)&p->winch))
        return 0; /* the timer passes the newest size on */
    if (!p->winch_at || now >= next)
        winch_now(p);
    else
        uv_timer_start(&p->winch, on_winch, next - now, 0);
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

bool ptyproc_starting(const ptyproc_t *p)
{
    return p->starting;
}

size_t ptyproc_memory(const ptyproc_t *p)
{
    return sizeof *p + (p->q ? PTYPROC_INPUT_MAX : 0) + vtgrid_memory(p->grid);
}

void ptyproc_stats(const ptyproc_t *p, ptyproc_stats_t *st)
{
    *st = p->st;
    st->queued = p->qlen;
}
