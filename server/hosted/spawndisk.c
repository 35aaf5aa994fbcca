/* spawndisk — the running games' directories, measured in turn
 * (spawndisk.h). */
#include "spawndisk.h"
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diskheld.h"
#include "diskreq.h"
#include "log.h"
#include "spawnd.h"

#define WDS_MAX SPAWNDISK_WATCH_MAX /* new watches one report carries */
_Static_assert(DISKREQ_WATCH_MAX == SPAWNDISK_WATCH_MAX, "a request carries a game's watches");

/* What the measurer answers for one game, one message. */
typedef struct spawndisk_report {
    uint32_t batch, i; /* the request's */
    bool ok, full;     /* measured (else err); the kernel refused a watch */
    diskuse_t use;
    char err[200];
    int nwds;
    struct {
        int wd;
        ino_t ino;
    } wds[WDS_MAX]; /* the directories it began to watch */
} report_t;

/* What a change in a watched directory is: a write, a new entry. */
#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR)

void spawndisk_init(spawndisk_t *dk, const spawner_cfg_t *cfg, const playerfs_t *fs)
{
    *dk = (spawndisk_t){.cfg = cfg, .fs = fs, .meter_fd = -1};
    LIST_INIT(&dk->games);
    hmap_init(&dk->by_wd);
    dk->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (dk->ifd < 0)
        log_warn("spawner: inotify: %s: the games' directories are only measured every %d ms",
                 strerror(errno), SPAWNDISK_EVERY_MS);
}

void spawndisk_free(spawndisk_t *dk)
{
    while (!LIST_EMPTY(&dk->games))
        spawndisk_forget(dk, LIST_FIRST(&dk->games));
    if (dk->meter > 0)
        kill(dk->meter, SIGKILL); /* its zombie is the caller's to reap */
    if (dk->meter_fd >= 0)
        close(dk->meter_fd);
    dk->meter = 0;
    dk->meter_fd = -1;
    dk->nin = dk->sent = dk->got = 0;
    hmap_fini(&dk->by_wd);
    if (dk->ifd >= 0)
        close(dk->ifd);
    dk->ifd = -1;
}

int spawndisk_fd(const spawndisk_t *dk)
{
    return dk->ifd;
}

static spawndisk_wd_t *wd_find(spawndisk_t *dk, int wd)
{
    HMAP_EACH(it, &dk->by_wd, (uint64_t)wd)
    {
        spawndisk_wd_t *w = HMAP_ITEM(it, spawndisk_wd_t, hn);
        if (w->wd == wd)
            return w;
    }
    return NULL;
}

/* In the measurer: whether the game of request q watches the directory
 * of inode ino already, or its walk began to (r). */
static bool watched(const diskreq_t *q, const report_t *r, ino_t ino)
{
    for (uint32_t i = 0; i < q->nwatched; i++)
        if (q->watched[i] == (uint64_t)ino)
            return true;
    for (int i = 0; i < r->nwds; i++)
        if (r->wds[i].ino == ino)
            return true;
    return false;
}

/* Whether g watches SPAWNDISK_WATCH_MAX directories already, with more
 * new ones. */
static bool watches_full(const spawndisk_game_t *g, int more)
{
    int n = more;
    for (const spawndisk_wd_t *w = g->wds; w && n < SPAWNDISK_WATCH_MAX; w = w->next)
        n++;
    return n >= SPAWNDISK_WATCH_MAX;
}

/* In the measurer: a directory the walk of dk->walking passes (open
 * as fd) is watched from now on, once (a walk that passes it again
 * costs an fstat), and its watch told in the game's report; up to
 * SPAWNDISK_WATCH_MAX a game: the kernel's watches are root's, shared
 * with every other program of root's, and a program could make
 * thousands of directories to spend them. */
static void watch_dir(int fd, void *ud)
{
    spawndisk_t *dk = ud;
    const diskreq_t *q = dk->walking;
    report_t *r = dk->report;
    struct stat st;
    if (!q || !r || dk->ifd < 0 || q->nwatched + (uint32_t)r->nwds >= SPAWNDISK_WATCH_MAX ||
        fstat(fd, &st) < 0 || watched(q, r, st.st_ino))
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* the directory itself */
    int wd = inotify_add_watch(dk->ifd, path, WATCH_MASK);
    if (wd < 0 && !dk->watch_full) {
        dk->watch_full = r->full = true;
        log_warn("spawner: inotify watch: %s: a directory not watched is measured every %d ms "
                 "(fs.inotify.max_user_watches)",
                 strerror(errno), SPAWNDISK_EVERY_MS);
    }
    if (wd >= 0) {
        r->wds[r->nwds].wd = wd;
        r->wds[r->nwds++].ino = st.st_ino;
    }
}

/* The watches a report tells kept for g (NULL: forgotten meanwhile, so
 * they go). */
static void add_watches(spawndisk_t *dk, spawndisk_game_t *g, const report_t *r)
{
    for (int i = 0; i < r->nwds; i++) {
        int wd = r->wds[i].wd;
        if (wd_find(dk, wd))
            continue;
        spawndisk_wd_t *w = g ? malloc(sizeof *w) : NULL;
        if (!w || hmap_add(&dk->by_wd, &w->hn, (uint64_t)wd) < 0) {
            free(w);
            inotify_rm_watch(dk->ifd, wd);
            continue;
        }
        w->wd = wd;
        w->ino = r->wds[i].ino;
        w->game = g;
        w->next = g->wds;
        g->wds = w;
        g->changed = true; /* what it held before it was watched: copied */
    }
}

/* w, which the kernel dropped (its directory went) or we let go. */
static void wd_drop(spawndisk_t *dk, spawndisk_game_t *g, spawndisk_wd_t *w)
{
    for (spawndisk_wd_t **p = g ? &g->wds : NULL; p && *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    hmap_del(&dk->by_wd, &w->hn);
    free(w);
}

static const gamecfg_t *game_of(const spawndisk_t *dk, int game)
{
    return &dk->cfg->games->games[game];
}

static playerfs_user_t user_of(const spawndisk_t *dk, int game)
{
    const spawner_user_t *u = &dk->cfg->users[game];
    return (playerfs_user_t){u->uid, u->gid, u->sw};
}

/* Measured up to stop times the caps (a cap of 0 never stops); the
 * directories passed watched for the running game asked of by run (NULL:
 * none). */
static int measure(spawndisk_t *dk, int game, const char *dir, const diskreq_t *run, uint64_t stop,
                   diskuse_t *use, char *err, size_t errlen)
{
    const gamecfg_t *g = game_of(dk, game);
    playerfs_user_t u = user_of(dk, game);
    dk->walking = run;
    return playerfs_usage(dk->fs, g->id, dir, &u, g->disk_bytes * stop, g->disk_files * stop,
                          run ? watch_dir : NULL, dk, use, err, errlen);
}

static bool capped(const gamecfg_t *g)
{
    return g->disk_bytes || g->disk_files;
}

int spawndisk_check(spawndisk_t *dk, int game, const char *dir, char *err, size_t errlen)
{
    const gamecfg_t *g = game_of(dk, game);
    diskuse_t use;
    char what[160];
    if (!capped(g))
        return 0;
    if (measure(dk, game, dir, NULL, 2, &use, err, errlen) < 0)
        return -1;
    if (!diskuse_over(&use, g->disk_bytes, g->disk_files))
        return 0;
    diskuse_say(&use, g->disk_bytes, g->disk_files, what, sizeof what);
    log_warn("spawner: disk over game=%s dir=%s bytes=%llu entries=%llu%s: start refused", g->id,
             dir, (unsigned long long)use.bytes, (unsigned long long)use.entries,
             use.deep ? " (too deep or unreadable)" : "");
    snprintf(err, errlen, SPAWNER_DISK_OVER "%s", what);
    return -1;
}

/* t rounded up to a tick: games due at once are measured in one turn of
 * the loop, which wakes at most every SPAWNDISK_TICK_MS for them. */
static uint64_t tick(uint64_t t)
{
    return (t + SPAWNDISK_TICK_MS - 1) / SPAWNDISK_TICK_MS * SPAWNDISK_TICK_MS;
}

void spawndisk_game(spawndisk_game_t *g, pid_t pid, int game, const char *dir)
{
    *g = (spawndisk_game_t){.pid = pid, .game = game, .changed = true};
    snprintf(g->dir, sizeof g->dir, "%s", dir);
}

bool spawndisk_changed(spawndisk_t *dk, spawndisk_game_t *g, uint64_t now)
{
    spawndisk_events(dk, now);
    return g->changed || !g->watched || !g->wds || dk->ifd < 0 || dk->watch_full ||
           watches_full(g, 0);
}

void spawndisk_copying(spawndisk_game_t *g)
{
    g->changed = false;
}

void spawndisk_watch(spawndisk_t *dk, spawndisk_game_t *g, uint64_t now)
{
    if (g->watched || !capped(game_of(dk, g->game)))
        return;
    g->due = tick(now + SPAWNDISK_NEAR_MS);
    g->watched = true;
    LIST_INSERT_HEAD(&dk->games, g, link);
}

void spawndisk_forget(spawndisk_t *dk, spawndisk_game_t *g)
{
    if (!g->watched)
        return;
    for (int i = 0; i < dk->nin; i++) /* asked: its report, when it comes, is dropped */
        if (dk->in[i] == g && i < dk->sent)
            dk->in[i] = NULL;
        else if (dk->in[i] == g) { /* not asked yet: never will be */
            memmove(&dk->in[i], &dk->in[i + 1], (size_t)(dk->nin - i - 1) * sizeof dk->in[0]);
            dk->nin--;
            break;
        }
    if (dk->nin && dk->got == dk->nin)
        dk->nin = dk->sent = dk->got = 0; /* the batch is over */
    while (g->wds) {
        inotify_rm_watch(dk->ifd, g->wds->wd);
        wd_drop(dk, g, g->wds);
    }
    LIST_REMOVE(g, link);
    g->watched = false;
}

/* Something changed in g's directory: measured soon, not more often than
 * every SPAWNDISK_GAP_MS. */
static void soon(spawndisk_game_t *g, uint64_t now)
{
    g->changed = true;
    uint64_t at = g->last + SPAWNDISK_GAP_MS > now ? g->last + SPAWNDISK_GAP_MS : now;
    if (!g->dead && at < g->due)
        g->due = at;
}

/* One event: its game measured soon (all, when events were lost). */
static void on_event(spawndisk_t *dk, const struct inotify_event *e, uint64_t now)
{
    spawndisk_game_t *g;
    if (e->mask & IN_Q_OVERFLOW) {
        LIST_FOREACH(g, &dk->games, link)
        soon(g, now);
        return;
    }
    spawndisk_wd_t *w = wd_find(dk, e->wd);
    g = w ? w->game : NULL;
    if (w && (e->mask & IN_IGNORED))
        wd_drop(dk, g, w);
    else if (g)
        soon(g, now);
}

void spawndisk_events(spawndisk_t *dk, uint64_t now)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    int last = -1;
    for (ssize_t n; dk->ifd >= 0 && (n = read(dk->ifd, buf, sizeof buf)) > 0;)
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            if (e->wd != last || (e->mask & (IN_IGNORED | IN_Q_OVERFLOW)))
                on_event(dk, e, now); /* a run of one directory's: once */
            last = e->wd;
            p += sizeof *e + e->len;
        }
}

uint64_t spawndisk_next(const spawndisk_t *dk)
{
    uint64_t due = 0;
    if (dk->nin) /* nothing more is measured until the batch is over */
        return dk->batch_end;
    const spawndisk_game_t *g;
    LIST_FOREACH(g, &dk->games, link)
    if (!g->dead && (!due || g->due < due))
        due = g->due;
    uint64_t start = dk->meter ? 0 : dk->meter_at + SPAWNDISK_RESTART_MS;
    if (due && due < dk->next_batch)
        due = dk->next_batch;
    return due && dk->meter_at && due < start ? start : due;
}

/* Past half a cap: measured more often. */
static bool near(const diskuse_t *use, const gamecfg_t *g)
{
    return (g->disk_bytes && use->bytes > g->disk_bytes / 2) ||
           (g->disk_files && use->entries > g->disk_files / 2);
}

/* g's next measurement by t at the latest (a change inotify saw while
 * its batch was at work may have asked for it sooner). */
static void due_by(spawndisk_game_t *g, uint64_t t)
{
    if (t < g->due)
        g->due = t;
}

/* One game's report judged; fn told when it is over a cap. */
static void judge(spawndisk_t *dk, spawndisk_game_t *dg, const report_t *r, uint64_t now,
                  spawndisk_fn *fn, void *ud)
{
    const gamecfg_t *g = game_of(dk, dg->game);
    const diskuse_t *use = &r->use;
    char why[160], what[300];
    dg->stuck = false;
    if (!r->ok) {
        log_warn("spawner: disk of game=%s dir=%s: %.*s", g->id, dg->dir, (int)sizeof r->err,
                 r->err);
        due_by(dg, tick(now + SPAWNDISK_EVERY_MS));
        return;
    }
    /* a write no watch saw (a shared mapping's), or one before the first
     * measurement, which nothing compares with: copied */
    if (!dg->sig_known || use->sig != dg->sig)
        dg->changed = true;
    dg->sig = use->sig;
    dg->sig_known = true;
    bool over = diskuse_over(use, g->disk_bytes, g->disk_files);
    /* twice a cap: killed (a tree too deep, unreadable or past the ceiling is hung up only) */
    diskuse_t counted = *use;
    counted.deep = counted.huge = counted.unseen = false;
    bool hard = diskuse_over(&counted, g->disk_bytes * 2, g->disk_files * 2);
    /* full: some unwatched; held: files no inotify event tells of */
    bool often = dg->hung || over || near(use, g) || watches_full(dg, 0) || use->held;
    due_by(dg, tick(now + (often ? SPAWNDISK_NEAR_MS : SPAWNDISK_EVERY_MS)));
    if (!over || (dg->hung && !hard))
        return;
    diskuse_say(use, g->disk_bytes, g->disk_files, why, sizeof why);
    char held[64] = "";
    if (use->held)
        snprintf(held, sizeof held, " held=%llu", (unsigned long long)use->held);
    snprintf(what, sizeof what, "game=%s dir=%s pid=%d bytes=%llu entries=%llu%s%s%s", g->id,
             dg->dir, (int)dg->pid, (unsigned long long)use->bytes,
             (unsigned long long)use->entries, held, use->deep ? " (too deep or unreadable)" : "",
             use->unseen ? " (open files not all seen)" : "");
    if (!fn(ud, dg->pid, hard ? SPAWNDISK_KILL : SPAWNDISK_HANGUP, why, what))
        return; /* measured again at the next tick */
    dg->hung = true;
    dg->dead = hard;
}

/* ---- the measurer ---------------------------------------------------------------------- */

/* In the measurer, with the game's user's ids (whose change took every
 * capability out of the effective set): CAP_CHECKPOINT_RESTORE alone
 * raised again, when it has it, for the links of the files its
 * processes map (diskheld.h); without it those count as unseen. Root's
 * ids, taken back, bring the others. */
static void raise_map_files(void)
{
    cap_value_t v = CAP_CHECKPOINT_RESTORE;
    cap_flag_value_t have = CAP_CLEAR;
    cap_t c = cap_get_proc();
    if (c && cap_get_flag(c, v, CAP_PERMITTED, &have) == 0 && have == CAP_SET &&
        cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET) == 0 && cap_set_proc(c) < 0)
        log_warn("spawner: cannot raise CAP_CHECKPOINT_RESTORE to measure: %s", strerror(errno));
    if (c)
        cap_free(c);
}

/* In the measurer: the ids the game's processes are looked at with, the
 * game's user's as the effective ones, when the spawner switches (root):
 * the owner of its box's user namespace may read what its processes
 * hold; the real and saved ids stay root's, to come back (and so that no
 * game's user may trace or signal the measurer meanwhile). 0 or -1. */
static int as_owner(const diskreq_t *q)
{
    if (!q->sw)
        return 0;
    if (setresgid((gid_t)-1, q->gid, (gid_t)-1) < 0 || setresuid((uid_t)-1, q->uid, (uid_t)-1) < 0)
        return -1;
    raise_map_files();
    return 0;
}

static int as_spawner(const diskreq_t *q)
{
    if (!q->sw)
        return 0;
    return setresuid((uid_t)-1, getuid(), (uid_t)-1) < 0 ||
                   setresgid((gid_t)-1, getgid(), (gid_t)-1) < 0
               ? -1
               : 0;
}

/* In the measurer: the games' orphans (spawner's children that lead no
 * session), looked up again at the first request of a batch. */
typedef struct {
    diskheld_orphan_t of[DISKHELD_ORPHANS_MAX];
    int n;
} orphans_t;

/* In the measurer: the files the processes of q's game hold open with
 * no name (diskheld.h) added to use. */
static void add_held(spawndisk_t *dk, const diskreq_t *q, const orphans_t *o, diskuse_t *use)
{
    diskheld_t h = {.unseen = true};
    pid_t more[DISKHELD_ORPHANS_MAX];
    int nmore = 0;
    for (int i = 0; i < o->n; i++)
        if (o->of[i].sid == q->pid)
            more[nmore++] = o->of[i].pid;
    struct stat games; /* the file system a mapped file counts on */
    if (fstat(dk->fs->games_fd, &games) == 0 && as_owner(q) == 0)
        diskheld_measure(q->pid, !game_of(dk, q->game)->network, more, nmore, games.st_dev, &h);
    if (as_spawner(q) < 0) /* it cannot go on measuring others: the spawner starts another */
        _exit(1);
    use->bytes += h.bytes;
    use->held = h.bytes;
    use->unseen = use->unseen || h.unseen;
}

/* In the measurer: the capabilities measuring needs, of those the
 * spawner kept, and no others (none to signal, own or change files):
 * switching ids, reaching the players' directories, following the links
 * of the files a game maps. */
static void meter_caps(void)
{
    static const int KEEP[] = {CAP_SETUID, CAP_SETGID, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
                               CAP_CHECKPOINT_RESTORE};
    if (spawnd_caps_keep(KEEP, sizeof KEEP / sizeof KEEP[0]) < 0)
        _exit(1); /* more than it needs: not measuring with it */
}

/* In the measurer: the answer to one request of n bytes in buf. */
static void meter_one(spawndisk_t *dk, const void *buf, size_t n, orphans_t *orphans, report_t *r)
{
    diskreq_t q;
    if (diskreq_parse(buf, n, dk->cfg->users, dk->cfg->games->n, &q, r->err, sizeof r->err) < 0) {
        if (n >= offsetof(diskreq_t, flags)) /* its numbers, for the spawner to match */
            memcpy(&r->batch, (const char *)buf + offsetof(diskreq_t, batch), 2 * sizeof r->batch);
        return;
    }
    r->batch = q.batch;
    r->i = q.i;
    if (q.flags & DISKREQ_ORPHANS) {
        orphans->n = 0;
        for (int g = 0; g < dk->cfg->games->n && !orphans->n; g++)
            if (game_of(dk, g)->network) /* a box's orphans are its own, in the box */
                orphans->n = diskheld_orphans(getppid(), orphans->of, DISKHELD_ORPHANS_MAX);
    }
    r->ok = measure(dk, q.game, q.dir, &q, 2, &r->use, r->err, sizeof r->err) == 0;
    dk->walking = NULL;
    if (r->ok)
        add_held(dk, &q, orphans, &r->use);
}

/* The measurer: requests read from fd and answered, one at a time, until
 * the spawner closes its end or dies. */
static void __attribute__((noreturn)) meter_run(spawndisk_t *dk, int fd, pid_t spawner)
{
    int keep[] = {fd, dk->ifd, dk->fs->games_fd};
    spawnexec_close_all_but(keep, sizeof keep / sizeof keep[0]);
    prctl(PR_SET_NAME, "warren-measurer");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != spawner ||
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        _exit(1);
    if (geteuid() == 0)
        meter_caps();
    static orphans_t orphans; /* the games' without a box only: theirs is the box's */
    for (;;) {
        unsigned char buf[DISKREQ_SIZE + 1]; /* one more: a longer request is seen as such */
        ssize_t n = recv(fd, buf, sizeof buf, MSG_TRUNC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(n == 0 ? 0 : 1);
        report_t r = {0};
        dk->report = &r;
        meter_one(dk, buf, (size_t)n, &orphans, &r);
        dk->report = NULL;
        size_t len = offsetof(report_t, wds) + (size_t)r.nwds * sizeof r.wds[0];
        if (send(fd, &r, len, MSG_NOSIGNAL) != (ssize_t)len)
            _exit(1);
    }
}

/* A new measurer, with a socket of its own: 0, or -1 (said in the log;
 * tried again at the next batch). */
static int meter_start(spawndisk_t *dk, uint64_t now)
{
    int sv[2];
    pid_t self = getpid();
    dk->meter_at = now;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        log_warn("spawner: cannot start the disk measurer: socketpair: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        meter_run(dk, sv[1], self);
    }
    close(sv[1]);
    if (pid < 0) {
        log_warn("spawner: cannot start the disk measurer: fork: %s", strerror(errno));
        close(sv[0]);
        return -1;
    }
    dk->meter = pid;
    dk->meter_fd = sv[0];
    log_info("spawner: disk measurer pid=%d started", (int)pid);
    return 0;
}

/* The measurer is gone (why: it ended, it answered wrong, or it was
 * late, killed): the game it was at (its first unanswered) measured
 * alone from now on, those after it due now, for a new measurer. */
static void meter_lost(spawndisk_t *dk, uint64_t now, const char *why, bool late)
{
    spawndisk_game_t *dg = dk->got < dk->nin ? dk->in[dk->got] : NULL;
    kill(dk->meter, SIGKILL); /* its zombie is the spawner's reap's */
    close(dk->meter_fd);
    log_warn("spawner: disk measurer pid=%d %s: a new one takes over", (int)dk->meter, why);
    if (dg) {
        dg->stuck = true;
        dg->due = tick(now + SPAWNDISK_STUCK_MS);
        char what[80] = "its measurer ended at it";
        if (late)
            snprintf(what, sizeof what, "no answer in %d ms (a file system that hangs?)",
                     SPAWNDISK_LATE_MS);
        log_warn("spawner: disk of game=%s dir=%s: %s: measured alone every %d s",
                 game_of(dk, dg->game)->id, dg->dir, what, SPAWNDISK_STUCK_MS / 1000);
    }
    for (int i = dk->got + 1; i < dk->nin; i++)
        if (dk->in[i])
            dk->in[i]->due = now;
    dk->meter = 0;
    dk->meter_fd = -1;
    dk->nin = dk->sent = dk->got = 0;
}

/* As many of the batch's games asked as the window lets: 0, or -1
 * when the measurer cannot be written to (it is gone). */
static int ask(spawndisk_t *dk)
{
    while (dk->sent < dk->nin && dk->sent - dk->got < SPAWNDISK_WINDOW) {
        const spawndisk_game_t *dg = dk->in[dk->sent];
        diskreq_t q;
        uint32_t flags = dk->sent ? 0 : DISKREQ_ORPHANS;
        diskreq_make(&q, dk->batch, (uint32_t)dk->sent, flags, dg->game, dg->pid,
                     &dk->cfg->users[dg->game], dg->dir);
        for (const spawndisk_wd_t *w = dg->wds; w && q.nwatched < DISKREQ_WATCH_MAX; w = w->next)
            q.watched[q.nwatched++] = (uint64_t)w->ino;
        ssize_t n = send(dk->meter_fd, &q, sizeof q, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0; /* asked when an answer makes room */
        if (n != (ssize_t)sizeof q)
            return -1;
        dk->sent++;
    }
    return 0;
}

/* The games due into dk->in: the first stuck one (stuck), or up to
 * SPAWNDISK_BATCH others. */
static void batch_pick(spawndisk_t *dk, uint64_t now, bool stuck)
{
    spawndisk_game_t *dg;
    dk->nin = dk->sent = dk->got = 0;
    LIST_FOREACH(dg, &dk->games, link)
    {
        if (dk->nin == (stuck ? 1 : SPAWNDISK_BATCH))
            break;
        if (dg->dead || dg->due > now || dg->stuck != stuck)
            continue;
        dk->in[dk->nin++] = dg;
        dg->last = now;
        dg->due = tick(now + (stuck ? SPAWNDISK_STUCK_MS : SPAWNDISK_EVERY_MS)); /* till told */
    }
}

static bool any_due(const spawndisk_t *dk, uint64_t now)
{
    const spawndisk_game_t *dg;
    LIST_FOREACH(dg, &dk->games, link)
    if (!dg->dead && dg->due <= now)
        return true;
    return false;
}

/* The games due (SPAWNDISK_BATCH at most; a stuck one alone) asked of
 * the measurer, started first when there is none. */
static void batch_start(spawndisk_t *dk, uint64_t now)
{
    if (!any_due(dk, now) || dk->fs->games_fd < 0)
        return;
    if (!dk->meter && (now < dk->meter_at + SPAWNDISK_RESTART_MS && dk->meter_at))
        return;
    if (!dk->meter && meter_start(dk, now) < 0)
        return;
    batch_pick(dk, now, true); /* a stuck one due first, alone */
    if (!dk->nin)
        batch_pick(dk, now, false);
    if (!dk->nin)
        return;
    dk->batch++;
    dk->batch_end = now + SPAWNDISK_LATE_MS;
    dk->next_batch = now + SPAWNDISK_PACE_MS;
    if (ask(dk) < 0)
        meter_lost(dk, now, "cannot be asked", false);
}

int spawndisk_meter_fd(const spawndisk_t *dk)
{
    return dk->meter_fd;
}

pid_t spawndisk_meter_pid(const spawndisk_t *dk)
{
    return dk->meter;
}

/* Whether n bytes of r are an answer to the next request unanswered. */
static bool answer_ok(const spawndisk_t *dk, const report_t *r, ssize_t n)
{
    return n >= (ssize_t)offsetof(report_t, wds) && dk->got < dk->sent && r->batch == dk->batch &&
           r->i == (uint32_t)dk->got && r->nwds >= 0 && r->nwds <= WDS_MAX &&
           (size_t)n >= offsetof(report_t, wds) + (size_t)r->nwds * sizeof r->wds[0];
}

void spawndisk_reports(spawndisk_t *dk, uint64_t now, spawndisk_fn *fn, void *ud)
{
    report_t r;
    ssize_t n;
    while (dk->meter && (n = recv(dk->meter_fd, &r, sizeof r, MSG_DONTWAIT)) != 0) {
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (!answer_ok(dk, &r, n)) {
            meter_lost(dk, now, n < 0 ? strerror(errno) : "answered out of turn", false);
            return;
        }
        spawndisk_game_t *dg = dk->in[dk->got++];
        dk->batch_end = now + SPAWNDISK_LATE_MS; /* each game has its time */
        dk->watch_full |= r.full;
        add_watches(dk, dg, &r);
        if (dg)
            judge(dk, dg, &r, now, fn, ud);
        if (dk->got == dk->nin)
            dk->nin = dk->sent = dk->got = 0; /* the batch is over */
        else if (ask(dk) < 0)
            meter_lost(dk, now, "cannot be asked", false);
    }
    if (dk->meter)
        meter_lost(dk, now, "ended", false);
}

void spawndisk_run(spawndisk_t *dk, uint64_t now)
{
    char why[64];
    snprintf(why, sizeof why, "gave no answer in %d ms: killed", SPAWNDISK_LATE_MS);
    if (dk->nin && now >= dk->batch_end)
        meter_lost(dk, now, why, true);
    if (!dk->nin && now >= dk->next_batch)
        batch_start(dk, now);
}
