/* spawner — warrend's side: the fork, the requests, the exits (spawner.h). */
#include "spawner.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "spawnd.h"
#include "spawnmsg.h"

typedef struct {
    pid_t pid;
    spawner_exit_fn *fn; /* NULL: an exit that came before anyone watched (dropped) */
    spawner_stopped_fn *stopped;
    void *user;
} watch_t;

/* A report for a watcher: an exit, or why the spawner stopped it. */
typedef struct {
    pid_t pid;
    int status;
    char *why; /* a STOPPED report's reason (owned), else NULL */
} exit_t;

/* What a request waits for: a start, or an rc file read or written. */
typedef enum {
    REQ_START,
    REQ_RC_LOAD,
    REQ_RC_SAVE,
    REQ_XLOG,
    REQ_FILES_READ,
    REQ_FILES_WRITE
} req_kind_t;
#define KIND(k) (1u << (k)) /* kinds of requests, as bits (fail_starts) */
#define KINDS                                                                   \
    (KIND(REQ_START) | KIND(REQ_RC_LOAD) | KIND(REQ_RC_SAVE) | KIND(REQ_XLOG) | \
     KIND(REQ_FILES_READ) | KIND(REQ_FILES_WRITE))
#define FILES_KINDS (KIND(REQ_FILES_READ) | KIND(REQ_FILES_WRITE))

/* A request waiting for its answer, or answered and not delivered yet. */
typedef struct {
    uint32_t seq; /* 0: a free slot */
    req_kind_t kind;
    uint64_t deadline;
    spawner_started_fn *fn;     /* REQ_START */
    spawner_rc_fn *rc_fn;       /* the rc requests */
    spawner_files_fn *files_fn; /* the files requests */
    void *user;
    bool answered;
    bool ok;    /* an rc request worked (else err) */
    int master; /* a start answered: the pty (ours until delivered), or -1 with err; a
                   files read answered: its memfd, the same */
    pid_t pid;
    char *text; /* an rc file read: its bytes, ours until delivered (NULL: none) */
    size_t len;
    char err[200];
} starting_t;

#define REQ_SLOTS (SPAWNER_STARTING_MAX + SPAWNER_RC_MAX)

struct spawner {
    spawner_cfg_t cfg;
    uid_t uid; /* the spawner's own ids: its games' when it switches to none */
    gid_t gid;
    pid_t pid;
    int fd; /* warrend's end of the socketpair; -1 once closed */
    bool gone;
    uint32_t seq;
    uv_loop_t *loop;
    uv_poll_t poll;
    uv_timer_t later; /* exits and answers that came during a request, delivered after it */
    uv_timer_t clock; /* runs while starts wait: their deadlines */
    bool attached;
    starting_t starting[REQ_SLOTS];
    int nstarting; /* slots in use by starts */
    int nrc;       /* slots in use by rc requests */
    int nreads;    /* of those, files reads (cfg.copies_max at most) */
    watch_t *watches;
    int nwatch, capwatch;
    exit_t *exits; /* received, not delivered yet */
    int nexit, capexit;
    struct xlog_wait *xwait, **xwait_end; /* xlogfile reads waiting for a slot, oldest first */
    int nxwait;
    bool freed;                   /* answers or exits freed a place since place_fn was called */
    void (*place_fn)(void *user); /* spawner_on_place's; NULL: none */
    void *place_user;
};

/* An xlogfile read that found every rc slot taken: sent once one frees,
 * so that a game's end never loses its score to a busy moment. */
typedef struct xlog_wait {
    struct xlog_wait *next;
    spawnmsg_t req;
    spawner_rc_fn *fn;
    void *user;
} xlog_wait_t;

#define XLOG_WAIT_MAX 4096 /* one a game that ended (the spawner's KIDS_MAX) */

static void send_signal(spawner_t *sp, pid_t pid, spawnmsg_type_t type);
static void fail_starts(spawner_t *sp, uint64_t before, unsigned kinds, const char *why);
static bool take_answer(spawner_t *sp, const spawnmsg_t *m, int *fd);
static void deliver_answers(spawner_t *sp);
static uint32_t next_seq(spawner_t *sp);

/* ---- whom games run as --------------------------------------------------------------- */

int spawner_user_lookup(const char *name, spawner_user_t *u)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int e = getpwnam_r(name, &pw, buf, sizeof buf, &res);
    if (e || !res) {
        snprintf(u->why, sizeof u->why, "user %s: %s", name, e ? strerror(e) : "no such user");
        return -1;
    }
    u->uid = pw.pw_uid;
    u->gid = pw.pw_gid;
    int n = SPAWNER_GROUPS_MAX;
    if (getgrouplist(name, pw.pw_gid, u->groups, &n) < 0) {
        snprintf(u->why, sizeof u->why, "user %s: more than %d groups", name, SPAWNER_GROUPS_MAX);
        return -1;
    }
    u->ngroups = n;
    return 0;
}

/* A game of network = host is in no box: a program of it can enter the
 * namespaces of every boxed game of its user (it owns their user
 * namespaces), and with them their players' directories. Said once a
 * section, at start, when the ids are switched (else every game is
 * warrend's own user anyway). */
static void warn_shared_host_users(const spawner_cfg_t *cfg, const gamecfg_list_t *games)
{
    for (int i = 0; i < games->n; i++) {
        if (!games->games[i].network || !cfg->users[i].sw || !cfg->users[i].ok)
            continue;
        for (int j = 0; j < games->n; j++)
            if (!games->games[j].network && cfg->users[j].ok &&
                cfg->users[j].uid == cfg->users[i].uid) {
                log_warn("[game %s]: network = host runs as the user of boxed games "
                         "([game %s]): its programs can enter their boxes and reach their "
                         "players' files; give it a user of its own",
                         games->games[i].id, games->games[j].id);
                break;
            }
    }
}

int spawner_config(spawner_cfg_t *cfg, const gamecfg_list_t *games, const char *games_user,
                   const char *games_dir, uid_t owner, gid_t group, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->games = games;
    cfg->copies_max = SPAWNER_COPIES_MAX;
    cfg->jobs_max = SPAWNER_RC_MAX;
    cfg->owner = owner;
    cfg->group = group;
    if (snprintf(cfg->games_dir, sizeof cfg->games_dir, "%s", games_dir) >=
        (int)sizeof cfg->games_dir)
        return snprintf(err, errlen, "games-dir: the path is too long"), -1;
    bool root = geteuid() == 0;
    for (int i = 0; i < games->n; i++) {
        const gamecfg_t *g = &games->games[i];
        const char *name = g->user[0] ? g->user : games_user;
        spawner_user_t *u = &cfg->users[i];
        bool found = spawner_user_lookup(name, u) == 0;
        if (found && u->uid == 0)
            return snprintf(err, errlen,
                            "[game %s]: user %s has uid 0: hosted games never run "
                            "as root",
                            g->id, name),
                   -1;
        u->sw = root;
        u->ok = found || !root; /* not root: it runs as warrend's own user anyway */
        if (!found && root)
            snprintf(u->why, sizeof u->why, "%s is not available: its user %s does not exist",
                     g->name, name);
        if (!root) /* no switch: the ids are warrend's */
            u->uid = geteuid(), u->gid = getegid(), u->ngroups = 0;
    }
    warn_shared_host_users(cfg, games);
    return 0;
}

/* ---- the fork ------------------------------------------------------------------------ */

spawner_t *spawner_start(const spawner_cfg_t *cfg, char *err, size_t errlen)
{
    spawner_t *sp = calloc(1, sizeof *sp);
    int sv[2];
    if (!sp || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(err, errlen, "spawner: %s", sp ? strerror(errno) : "out of memory");
        free(sp);
        return NULL;
    }
    sp->cfg = *cfg;
    sp->uid = geteuid(); /* the fork's: warrend may drop its own later */
    sp->gid = getegid();
    void *gate = mmap(NULL, sizeof *sp->cfg.rc_gate, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    sp->cfg.rc_gate = gate == MAP_FAILED ? NULL : gate; /* zeroed: SPAWNER_RC_OPEN */
    fflush(NULL);                                       /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        spawnd_run(&sp->cfg, sv[1]);
    }
    close(sv[1]);
    if (pid < 0) {
        snprintf(err, errlen, "spawner: fork: %s", strerror(errno));
        close(sv[0]);
        if (sp->cfg.rc_gate)
            munmap((void *)sp->cfg.rc_gate, sizeof *sp->cfg.rc_gate);
        free(sp);
        return NULL;
    }
    sp->pid = pid;
    sp->fd = sv[0];
    log_info("spawner pid=%d started", (int)pid);
    return sp;
}

int spawner_game_ids(const spawner_t *sp, const char *game, uid_t *uid, gid_t *gid)
{
    const gamecfg_t *g = gamecfg_find(sp->cfg.games, game);
    if (!g)
        return -1;
    const spawner_user_t *u = &sp->cfg.users[g - sp->cfg.games->games];
    *uid = u->sw ? u->uid : sp->uid;
    *gid = u->sw ? u->gid : sp->gid;
    return 0;
}

pid_t spawner_pid(const spawner_t *sp)
{
    return sp->pid;
}

const char *spawner_unavailable(const spawner_t *sp, const char *game)
{
    const gamecfg_t *g = gamecfg_find(sp->cfg.games, game);
    if (!g)
        return "no such game";
    const spawner_user_t *u = &sp->cfg.users[g - sp->cfg.games->games];
    return u->ok ? NULL : u->why;
}

/* ---- exits ----------------------------------------------------------------------------- */

static watch_t *watch_find(spawner_t *sp, pid_t pid)
{
    for (int i = 0; i < sp->nwatch; i++)
        if (sp->watches[i].pid == pid)
            return &sp->watches[i];
    return NULL;
}

/* The poll keeps the loop alive only while programs run (shutdown waits
 * for them, and no longer). */
static void update_ref(spawner_t *sp)
{
    if (!sp->attached)
        return;
    if (sp->nwatch || sp->nstarting || sp->nrc)
        uv_ref((uv_handle_t *)&sp->poll);
    else
        uv_unref((uv_handle_t *)&sp->poll);
}

int spawner_watch(spawner_t *sp, pid_t pid, spawner_exit_fn *fn, spawner_stopped_fn *stopped,
                  void *user)
{
    if (sp->nwatch == sp->capwatch) {
        int cap = sp->capwatch ? sp->capwatch * 2 : 16;
        watch_t *w = realloc(sp->watches, sizeof *w * (size_t)cap);
        if (!w)
            return -1;
        sp->watches = w;
        sp->capwatch = cap;
    }
    sp->watches[sp->nwatch++] = (watch_t){pid, fn, stopped, user};
    update_ref(sp);
    return 0;
}

void spawner_unwatch(spawner_t *sp, pid_t pid)
{
    watch_t *w = watch_find(sp, pid);
    if (w)
        *w = sp->watches[--sp->nwatch];
    update_ref(sp);
}

/* Calls pid's watcher once (it is removed first: it may free itself). */
static void deliver(spawner_t *sp, pid_t pid, int status)
{
    watch_t *w = watch_find(sp, pid);
    if (!w)
        return;
    watch_t one = *w;
    spawner_unwatch(sp, pid);
    one.fn(pid, status, one.user);
}

static void deliver_queued(spawner_t *sp)
{
    while (sp->nexit) {
        exit_t e = sp->exits[0];
        memmove(sp->exits, sp->exits + 1, sizeof e * (size_t)--sp->nexit);
        sp->freed |= !e.why; /* its process gone: a place at the spawner */
        watch_t *w = e.why ? watch_find(sp, e.pid) : NULL;
        if (w && w->stopped)
            w->stopped(e.pid, e.why, w->user);
        if (!e.why)
            deliver(sp, e.pid, e.status);
        free(e.why);
    }
}

/* Whether answers or exits delivered freed a place: spawner_on_place's
 * fn, once. */
static void places_freed(spawner_t *sp)
{
    if (!sp->freed)
        return;
    sp->freed = false;
    if (sp->place_fn)
        sp->place_fn(sp->place_user);
}

void spawner_on_place(spawner_t *sp, void (*fn)(void *user), void *user)
{
    sp->place_fn = fn;
    sp->place_user = user;
}

/* Answers first: their callbacks watch the pids whose exits follow. */
static void xlog_waiting_run(spawner_t *sp, const char *why);

static void on_later(uv_timer_t *t)
{
    deliver_answers(t->data);
    xlog_waiting_run(t->data, NULL);
    deliver_queued(t->data);
    places_freed(t->data);
}

static void queue_exit(spawner_t *sp, pid_t pid, int status, char *why)
{
    if (sp->nexit == sp->capexit) {
        int cap = sp->capexit ? sp->capexit * 2 : 16;
        exit_t *e = realloc(sp->exits, sizeof *e * (size_t)cap);
        if (!e) { /* the report is lost; the program's pty still ends the session */
            log_error("spawner: out of memory: exit of pid=%d dropped", (int)pid);
            free(why);
            return;
        }
        sp->exits = e;
        sp->capexit = cap;
    }
    sp->exits[sp->nexit++] = (exit_t){pid, status, why};
    if (sp->attached)
        uv_timer_start(&sp->later, on_later, 0, 0);
}

/* The spawner ended: no report can come, so every program is given up. */
static void spawner_lost(spawner_t *sp, const char *why)
{
    if (sp->gone)
        return;
    sp->gone = true;
    log_error("spawner pid=%d is gone (%s): hosted games cannot start until warrend restarts",
              (int)sp->pid, why);
    if (sp->attached)
        uv_poll_stop(&sp->poll);
    for (int i = 0; i < sp->nwatch; i++)
        queue_exit(sp, sp->watches[i].pid, -1, NULL);
    fail_starts(sp, 0, KINDS,
                "the spawner is gone: hosted games cannot start until warrend restarts");
}

/* ---- the socket ------------------------------------------------------------------------ */

/* One message, if one is there. Returns 1, 0 when none is, -1 when the
 * spawner is gone. */
static int receive(spawner_t *sp, void *buf, spawnmsg_t *m, int *fd)
{
    if (sp->gone)
        return -1;
    char err[200];
    int r = spawnmsg_recv(sp->fd, buf, MSG_DONTWAIT, m, fd, err, sizeof err);
    if (r > 0)
        return 1;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (r < 0 && errno == EBADMSG) { /* a bug, not an attack: the spawner is ours */
        log_error("spawner: bad message: %s", err);
        return 0;
    }
    spawner_lost(sp, r == 0 ? "end of file" : strerror(errno));
    return -1;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Why the spawner stopped a program: queued as its exit is, so its
 * watcher, set once the start's answer is delivered, hears it before
 * the exit. */
static void stopped(spawner_t *sp, const spawnmsg_t *m)
{
    char *why = malloc(m->len + 1);
    if (!why)
        return;
    memcpy(why, m->text, m->len);
    why[m->len] = 0;
    queue_exit(sp, m->pid, 0, why);
}

/* A message no call waits for: an exit is queued; a program started for a
 * call that gave up waiting is killed (no one would ever hang it up). */
static void unasked(spawner_t *sp, const spawnmsg_t *m, int *fd)
{
    if (take_answer(sp, m, fd))
        return;
    if (m->type == SPAWNMSG_EXIT)
        queue_exit(sp, m->pid, m->status, NULL);
    else if (m->type == SPAWNMSG_STOPPED)
        stopped(sp, m);
    else if (m->type == SPAWNMSG_NOTE) /* the game starts all the same */
        log_warn("hosted recover failed game=%s player=%s status=%d: %.*s: the game starts "
                 "all the same",
                 m->game, m->dir, (int)m->status, (int)m->len, m->text);
    else if (m->type == SPAWNMSG_SPAWNED)
        send_signal(sp, m->pid, SPAWNMSG_KILL);
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* A FAILED answer's reason into err; anything else unexpected. */
static int answer(const spawnmsg_t *rep, spawnmsg_type_t want, char *err, size_t errlen)
{
    if (rep->type == want)
        return 0;
    if (rep->type == SPAWNMSG_FAILED)
        snprintf(err, errlen, "%.*s", (int)rep->len, rep->text);
    else
        snprintf(err, errlen, "the spawner answered %s", spawnmsg_type_name(rep->type));
    return -1;
}

/* ---- starts ---------------------------------------------------------------------------- */

static uint32_t next_seq(spawner_t *sp)
{
    return ++sp->seq ? sp->seq : ++sp->seq; /* 0 is no request's */
}

static starting_t *starting_find(spawner_t *sp, uint32_t seq)
{
    for (int i = 0; seq && i < REQ_SLOTS; i++)
        if (sp->starting[i].seq == seq)
            return &sp->starting[i];
    return NULL;
}

static void starting_free(spawner_t *sp, starting_t *st)
{
    st->seq = 0;
    st->text = NULL; /* delivered, or freed by whoever frees the slot */
    if (st->kind == REQ_START)
        sp->nstarting--;
    else
        sp->nrc--;
    if (st->kind == REQ_FILES_READ)
        sp->nreads--;
    if (sp->nstarting + sp->nrc == 0 && sp->attached)
        uv_timer_stop(&sp->clock);
    update_ref(sp);
}

/* Its callback runs on the next turn (never within a request's call). */
static void answered(spawner_t *sp, starting_t *st)
{
    st->answered = true;
    if (sp->attached)
        uv_timer_start(&sp->later, on_later, 0, 0);
}

/* An rc request's answer: what was read (copied: the message's buffer
 * is the receiver's), or done, or why not. */
static void rc_answer(starting_t *st, const spawnmsg_t *m, int *fd)
{
    spawnmsg_type_t want = st->kind == REQ_RC_SAVE || st->kind == REQ_FILES_WRITE ? SPAWNMSG_DONE
                           : st->kind == REQ_FILES_READ                           ? SPAWNMSG_FILES
                                                        : SPAWNMSG_RC_TEXT;
    if (answer(m, want, st->err, sizeof st->err) < 0)
        return;
    if (m->len && !(st->text = malloc(m->len))) {
        snprintf(st->err, sizeof st->err, "out of memory");
        return;
    }
    if (m->len)
        memcpy(st->text, m->text, m->len);
    st->len = m->len;
    st->ok = true;
    if (want == SPAWNMSG_FILES && m->fd_lost) {
        st->ok = false;
        snprintf(st->err, sizeof st->err,
                 "no descriptor left for the files (the open files limit)");
    } else if (want == SPAWNMSG_FILES) {
        st->master = *fd;
        *fd = -1;
    }
}

static void start_answer(spawner_t *sp, starting_t *st, const spawnmsg_t *m, int *fd)
{
    if (answer(m, SPAWNMSG_SPAWNED, st->err, sizeof st->err) == 0 && m->fd_lost) {
        /* it runs, but its terminal could not come in: no one could play it */
        send_signal(sp, m->pid, SPAWNMSG_KILL);
        snprintf(st->err, sizeof st->err,
                 "no descriptor left for its terminal (the open files limit)");
    } else if (m->type == SPAWNMSG_SPAWNED) {
        st->master = *fd;
        st->pid = m->pid;
        *fd = -1;
    }
}

/* A request's answer is kept for its callback: true when m was one. */
static bool take_answer(spawner_t *sp, const spawnmsg_t *m, int *fd)
{
    bool report =
        m->type == SPAWNMSG_EXIT || m->type == SPAWNMSG_STOPPED || m->type == SPAWNMSG_NOTE;
    starting_t *st = report ? NULL : starting_find(sp, m->seq);
    if (!st || st->answered)
        return false;
    if (st->kind == REQ_START)
        start_answer(sp, st, m, fd);
    else
        rc_answer(st, m, fd);
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    answered(sp, st);
    return true;
}

/* Requests of kinds (KIND bits) still waiting whose deadline is before
 * (0: every one) fail with why. */
static void fail_starts(spawner_t *sp, uint64_t before, unsigned kinds, const char *why)
{
    for (int i = 0; i < REQ_SLOTS; i++) {
        starting_t *st = &sp->starting[i];
        if (st->seq && !st->answered && (kinds & KIND(st->kind)) &&
            (!before || st->deadline <= before)) {
            snprintf(st->err, sizeof st->err, "%s", why);
            answered(sp, st);
        }
    }
}

static void on_clock(uv_timer_t *t)
{
    fail_starts(t->data, mono_ms(), KINDS, "the spawner did not answer in time");
}

/* A files request's answer to its callback (a read's memfd is the
 * callee's; one that failed has none). */
static void files_deliver(starting_t *one)
{
    char note[SPAWNMSG_TEXT_MAX + 1];
    snprintf(note, sizeof note, "%.*s", (int)one->len, one->text ? one->text : "");
    if (!one->ok && one->master >= 0)
        close(one->master), one->master = -1;
    one->files_fn(one->master, note, one->ok ? NULL : one->err, one->user);
}

/* Whether a request was answered that the spawner had no job for it. */
static bool refused_for_place(const starting_t *st)
{
    return !st->ok && (!strcmp(st->err, SPAWNER_FILES_FULL) || !strcmp(st->err, SPAWNER_JOBS_FULL));
}

/* Each answered request to its callback, once (its slot is free first:
 * the callback may make or cancel others). */
static void deliver_answers(spawner_t *sp)
{
    for (int i = 0; sp->nstarting + sp->nrc && i < REQ_SLOTS; i++) {
        starting_t *st = &sp->starting[i];
        if (!st->seq || !st->answered)
            continue;
        starting_t one = *st;
        starting_free(sp, st);
        sp->freed |= one.kind != REQ_START && !refused_for_place(&one);
        if (one.kind == REQ_START)
            one.fn(one.master, one.pid, one.master >= 0 ? NULL : one.err, one.user);
        else if (KIND(one.kind) & FILES_KINDS)
            files_deliver(&one);
        else
            one.rc_fn(one.text ? one.text : "", one.len, one.ok ? NULL : one.err, one.user);
        free(one.text);
    }
}

static const char GONE[] = "the spawner is gone: hosted games cannot start until warrend restarts";

/* A free slot for a request of kind, or NULL at its cap
 * (SPAWNER_STARTING_MAX starts, SPAWNER_RC_MAX rc requests). */
static starting_t *starting_slot(spawner_t *sp, req_kind_t kind)
{
    if (kind == REQ_START ? sp->nstarting >= SPAWNER_STARTING_MAX : sp->nrc >= SPAWNER_RC_MAX)
        return NULL;
    for (int i = 0; i < REQ_SLOTS; i++)
        if (!sp->starting[i].seq)
            return &sp->starting[i];
    return NULL;
}

/* Sends req (its seq given here) and keeps a slot st for its answer. 0,
 * or -1 with err (nothing is kept). */
static int request_fd(spawner_t *sp, starting_t *st, spawnmsg_t *req, int fd, char *err,
                      size_t errlen)
{
    req->seq = next_seq(sp);
    if (spawnmsg_send(sp->fd, req, fd) < 0) {
        if (errno == EINVAL) /* a field spawnmsg.h refuses: nothing was sent */
            return snprintf(err, errlen, "a bad name, directory, size or text"), -1;
        spawner_lost(sp, strerror(errno));
        return snprintf(err, errlen, "%s", GONE), -1;
    }
    *st = (starting_t){.seq = req->seq, .deadline = mono_ms() + SPAWNER_TIMEOUT_MS, .master = -1};
    if (sp->nstarting + sp->nrc == 0 && sp->attached)
        uv_timer_start(&sp->clock, on_clock, 250, 250);
    return 0;
}

static int request(spawner_t *sp, starting_t *st, spawnmsg_t *req, char *err, size_t errlen)
{
    return request_fd(sp, st, req, -1, err, errlen);
}

int spawner_spawn(spawner_t *sp, const char *game, const char *name, const char *dir, int w, int h,
                  spawner_started_fn *fn, void *user, uint32_t *ticket, char *err, size_t errlen)
{
    spawnmsg_t req = {.type = SPAWNMSG_SPAWN, .w = w, .h = h};
    starting_t *st = starting_slot(sp, REQ_START);
    if (strlen(game) >= sizeof req.game || strlen(name) >= sizeof req.name ||
        strlen(dir) >= sizeof req.dir)
        return snprintf(err, errlen, "a bad name or directory"), -1;
    if (sp->gone)
        return snprintf(err, errlen, "%s", GONE), -1;
    if (!st)
        return snprintf(err, errlen, "%d games are starting already", SPAWNER_STARTING_MAX), -1;
    snprintf(req.game, sizeof req.game, "%s", game);
    snprintf(req.name, sizeof req.name, "%s", name);
    snprintf(req.dir, sizeof req.dir, "%s", dir);
    if (request(sp, st, &req, err, errlen) < 0)
        return -1;
    st->kind = REQ_START;
    st->fn = fn;
    st->user = user;
    sp->nstarting++;
    update_ref(sp);
    *ticket = req.seq;
    return 0;
}

void spawner_spawn_cancel(spawner_t *sp, uint32_t ticket)
{
    starting_t *st = starting_find(sp, ticket);
    if (!st || st->kind != REQ_START)
        return; /* unknown or delivered; an answer still to come is killed (unasked) */
    if (st->answered && st->master >= 0) {
        close(st->master);
        send_signal(sp, st->pid, SPAWNMSG_KILL);
    }
    starting_free(sp, st);
}

int spawner_starting(const spawner_t *sp)
{
    return sp->nstarting;
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    spawner_t *sp = h->data;
    (void)events;
    if (status < 0) {
        spawner_lost(sp, uv_strerror(status));
        return;
    }
    uint8_t buf[SPAWNMSG_MAX];
    spawnmsg_t m;
    int fd;
    for (int i = 0; i < 64 && receive(sp, buf, &m, &fd) > 0; i++)
        unasked(sp, &m, &fd);
    deliver_answers(sp);
    deliver_queued(sp);
    places_freed(sp);
}

int spawner_attach(spawner_t *sp, uv_loop_t *loop)
{
    sp->loop = loop;
    if (uv_poll_init(loop, &sp->poll, sp->fd) < 0 || uv_timer_init(loop, &sp->later) < 0 ||
        uv_timer_init(loop, &sp->clock) < 0)
        return -1;
    sp->poll.data = sp->later.data = sp->clock.data = sp;
    uv_unref((uv_handle_t *)&sp->later);
    uv_unref((uv_handle_t *)&sp->clock);
    sp->attached = true;
    update_ref(sp);
    if (sp->gone)
        return 0;
    return uv_poll_start(&sp->poll, UV_READABLE, on_poll) < 0 ? -1 : 0;
}

void spawner_free(spawner_t *sp)
{
    if (!sp)
        return;
    if (sp->attached) {
        uv_close((uv_handle_t *)&sp->poll, NULL);
        uv_close((uv_handle_t *)&sp->later, NULL);
        uv_close((uv_handle_t *)&sp->clock, NULL);
        uv_run(sp->loop, UV_RUN_NOWAIT);
    }
    for (int i = 0; i < REQ_SLOTS; i++) { /* answered, never delivered */
        if (sp->starting[i].seq && sp->starting[i].master >= 0)
            close(sp->starting[i].master);
        if (sp->starting[i].seq)
            free(sp->starting[i].text);
    }
    close(sp->fd); /* the spawner hangs up what is left and exits */
    int status;
    for (int i = 0; i < 100 && waitpid(sp->pid, &status, WNOHANG) == 0; i++)
        usleep(10000); /* a moment; else it finishes its work alone */
    if (sp->cfg.rc_gate)
        munmap((void *)sp->cfg.rc_gate, sizeof *sp->cfg.rc_gate);
    for (xlog_wait_t *w = sp->xwait, *next; w; w = next) { /* after a stop, none */
        next = w->next;
        free(w);
    }
    free(sp->watches);
    for (int i = 0; i < sp->nexit; i++)
        free(sp->exits[i].why);
    free(sp->exits);
    free(sp);
}

/* ---- requests -------------------------------------------------------------------------- */

static void send_signal(spawner_t *sp, pid_t pid, spawnmsg_type_t type)
{
    spawnmsg_t m = {.type = type, .pid = pid};
    if (!sp->gone && spawnmsg_send(sp->fd, &m, -1) < 0)
        spawner_lost(sp, strerror(errno));
}

void spawner_hangup(spawner_t *sp, pid_t pid)
{
    send_signal(sp, pid, SPAWNMSG_HANGUP);
}

void spawner_kill(spawner_t *sp, pid_t pid)
{
    send_signal(sp, pid, SPAWNMSG_KILL);
}

#define STOP_WAIT_MS 200 /* for a save being made as warrend stops */

spawner_read_t spawner_read_kind(const char *err)
{
    static const struct {
        const char *code;
        bool prefix; /* the code begins err; else it is err whole */
        spawner_read_t kind;
    } CODES[] = {
        {SPAWNER_FILES_SAME, false, SPAWNER_READ_SAME},
        {SPAWNER_FILES_BUSY, true, SPAWNER_READ_BUSY},
        {SPAWNER_FILES_OVER, true, SPAWNER_READ_OVER},
        {SPAWNER_FILES_FULL, false, SPAWNER_READ_FULL},
    };
    if (!err)
        return SPAWNER_READ_OK;
    for (size_t i = 0; i < sizeof CODES / sizeof *CODES; i++) {
        size_t n = strlen(CODES[i].code);
        if (CODES[i].prefix ? !strncmp(err, CODES[i].code, n) : !strcmp(err, CODES[i].code))
            return CODES[i].kind;
    }
    return SPAWNER_READ_FAILED;
}

void spawner_stop(spawner_t *sp)
{
    if (!sp || !sp->cfg.rc_gate)
        return;
    uint32_t open = SPAWNER_RC_OPEN;
    for (int i = 0; !atomic_compare_exchange_strong(sp->cfg.rc_gate, &open, SPAWNER_RC_SHUT) &&
                    open != SPAWNER_RC_SHUT && i < STOP_WAIT_MS;
         i++) {
        open = SPAWNER_RC_OPEN;
        usleep(1000); /* a save being made: let it finish, its answer told as it is */
    }
    bool shut = atomic_load(sp->cfg.rc_gate) == SPAWNER_RC_SHUT;
    if (!shut)
        log_warn("spawner: an rc file save still being made at shutdown: waited for");
    fail_starts(sp, 0, KIND(REQ_RC_LOAD) | KIND(REQ_XLOG) | (shut ? KIND(REQ_RC_SAVE) : 0),
                "the server is shutting down");
    deliver_answers(sp); /* now: their players are about to be sent off */
    xlog_waiting_run(sp, "the server is shutting down");
    places_freed(sp);
}

/* An rc request of kind: sent now, its answer to fn later. */
static int rc_request(spawner_t *sp, spawnmsg_t *req, req_kind_t kind, spawner_rc_fn *fn,
                      void *user, char *err, size_t errlen)
{
    bool reads_full = kind == REQ_FILES_READ && sp->nreads >= sp->cfg.copies_max;
    starting_t *st = reads_full ? NULL : starting_slot(sp, kind);
    if (sp->gone)
        return snprintf(err, errlen, "%s", GONE), -1;
    if (!st)
        return snprintf(err, errlen,
                        "many rc files are being read or written: try again in a "
                        "moment"),
               -1;
    if (request(sp, st, req, err, errlen) < 0)
        return -1;
    st->kind = kind;
    st->rc_fn = fn;
    st->user = user;
    sp->nrc++;
    update_ref(sp);
    return 0;
}

/* game and dir into req; false when either is too long. */
static bool rc_names(spawnmsg_t *req, const char *game, const char *dir)
{
    snprintf(req->game, sizeof req->game, "%s", game);
    snprintf(req->dir, sizeof req->dir, "%s", dir);
    return strlen(game) < sizeof req->game && strlen(dir) < sizeof req->dir;
}

int spawner_rc_load(spawner_t *sp, const char *game, const char *dir, spawner_rc_fn *fn, void *user,
                    char *err, size_t errlen)
{
    spawnmsg_t req = {.type = SPAWNMSG_RC_LOAD};
    if (!rc_names(&req, game, dir))
        return snprintf(err, errlen, "a bad game or directory"), -1;
    return rc_request(sp, &req, REQ_RC_LOAD, fn, user, err, errlen);
}

int spawner_rc_save(spawner_t *sp, const char *game, const char *dir, const char *text, size_t len,
                    spawner_rc_fn *fn, void *user, char *err, size_t errlen)
{
    /* made only before the answer is given up on: never later, unasked */
    spawnmsg_t req = {.type = SPAWNMSG_RC_SAVE,
                      .text = text,
                      .len = len,
                      .deadline_ms = mono_ms() + SPAWNER_TIMEOUT_MS - SPAWNER_RC_MARGIN_MS};
    if (!rc_names(&req, game, dir))
        return snprintf(err, errlen, "a bad game or directory"), -1;
    return rc_request(sp, &req, REQ_RC_SAVE, fn, user, err, errlen);
}

int spawner_xlog_read(spawner_t *sp, const char *game, const char *dir, spawner_rc_fn *fn,
                      void *user, char *err, size_t errlen)
{
    spawnmsg_t req = {.type = SPAWNMSG_XLOG_READ};
    if (!rc_names(&req, game, dir))
        return snprintf(err, errlen, "a bad game or directory"), -1;
    if (sp->gone || sp->nrc < SPAWNER_RC_MAX || sp->nxwait >= XLOG_WAIT_MAX)
        return rc_request(sp, &req, REQ_XLOG, fn, user, err, errlen);
    xlog_wait_t *w = malloc(sizeof *w);
    if (!w)
        return snprintf(err, errlen, "out of memory"), -1;
    *w = (xlog_wait_t){NULL, req, fn, user};
    if (!sp->xwait)
        sp->xwait_end = &sp->xwait;
    *sp->xwait_end = w;
    sp->xwait_end = &w->next;
    sp->nxwait++;
    return 0;
}

/* A files request of kind, with fd (-1: none): an rc request's slot. */
static int files_request(spawner_t *sp, req_kind_t kind, const char *game, const char *dir, int fd,
                         spawner_files_fn *fn, void *user, char *err, size_t errlen)
{
    spawnmsg_t req = {.type = kind == REQ_FILES_READ ? SPAWNMSG_FILES_READ : SPAWNMSG_FILES_WRITE};
    if (!rc_names(&req, game, dir))
        return snprintf(err, errlen, "a bad game or directory"), -1;
    bool reads_full = kind == REQ_FILES_READ && sp->nreads >= sp->cfg.copies_max;
    starting_t *st = reads_full ? NULL : starting_slot(sp, kind);
    if (sp->gone)
        return snprintf(err, errlen, "%s", GONE), -1;
    if (!st)
        return snprintf(err, errlen, "%s", SPAWNER_FILES_FULL), -1;
    if (request_fd(sp, st, &req, fd, err, errlen) < 0)
        return -1;
    st->kind = kind;
    st->files_fn = fn;
    st->user = user;
    sp->nrc++;
    sp->nreads += kind == REQ_FILES_READ;
    update_ref(sp);
    return 0;
}

int spawner_files_read(spawner_t *sp, const char *game, const char *dir, spawner_files_fn *fn,
                       void *user, char *err, size_t errlen)
{
    return files_request(sp, REQ_FILES_READ, game, dir, -1, fn, user, err, errlen);
}

int spawner_files_write(spawner_t *sp, const char *game, const char *dir, int fd,
                        spawner_files_fn *fn, void *user, char *err, size_t errlen)
{
    return files_request(sp, REQ_FILES_WRITE, game, dir, fd, fn, user, err, errlen);
}

/* The xlogfile reads that waited, sent while slots are free, each told
 * why not when it cannot be (the spawner gone); with why, all told that. */
static void xlog_waiting_run(spawner_t *sp, const char *why)
{
    while (sp->xwait && (why || sp->gone || sp->nrc < SPAWNER_RC_MAX)) {
        xlog_wait_t *w = sp->xwait;
        char err[200];
        sp->xwait = w->next;
        sp->nxwait--;
        if (why)
            w->fn("", 0, why, w->user);
        else if (rc_request(sp, &w->req, REQ_XLOG, w->fn, w->user, err, sizeof err) < 0)
            w->fn("", 0, err, w->user);
        free(w);
    }
}
