/* spawndisk — the running games' directories, measured in turn
 * (spawndisk.h). */
#include "spawndisk.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"

/* What a change in a watched directory is: a write, a new entry. */
#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

void spawndisk_init(spawndisk_t *dk, const spawner_cfg_t *cfg, const playerfs_t *fs)
{
    *dk = (spawndisk_t){.cfg = cfg, .fs = fs};
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

/* Whether g watches the directory of inode ino already. */
static bool watched(const spawndisk_game_t *g, ino_t ino)
{
    for (const spawndisk_wd_t *w = g->wds; w; w = w->next)
        if (w->ino == ino)
            return true;
    return false;
}

/* Whether g watches SPAWNDISK_WATCH_MAX directories already. */
static bool watches_full(const spawndisk_game_t *g)
{
    int n = 0;
    for (const spawndisk_wd_t *w = g->wds; w && n < SPAWNDISK_WATCH_MAX; w = w->next)
        n++;
    return n >= SPAWNDISK_WATCH_MAX;
}

/* A directory the walk of dk->walking passes (open as fd) is watched
 * from now on, once (a walk that passes it again costs an fstat), up to
 * SPAWNDISK_WATCH_MAX a game: the kernel's watches are root's, shared
 * with every other program of root's, and a program could make
 * thousands of directories to spend them. */
static void watch_dir(int fd, void *ud)
{
    spawndisk_t *dk = ud;
    spawndisk_game_t *g = dk->walking;
    struct stat st;
    if (!g || dk->ifd < 0 || fstat(fd, &st) < 0 || watched(g, st.st_ino) || watches_full(g))
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* the directory itself */
    int wd = g && dk->ifd >= 0 ? inotify_add_watch(dk->ifd, path, WATCH_MASK) : -1;
    if (wd < 0 && g && dk->ifd >= 0 && !dk->watch_full) {
        dk->watch_full = true;
        log_warn("spawner: inotify watch: %s: a directory not watched is measured every %d ms "
                 "(fs.inotify.max_user_watches)",
                 strerror(errno), SPAWNDISK_EVERY_MS);
    }
    if (wd < 0 || wd_find(dk, wd))
        return;
    spawndisk_wd_t *w = malloc(sizeof *w);
    if (!w || hmap_add(&dk->by_wd, &w->hn, (uint64_t)wd) < 0) {
        free(w);
        inotify_rm_watch(dk->ifd, wd);
        return;
    }
    w->wd = wd;
    w->ino = st.st_ino;
    w->game = g;
    w->next = g->wds;
    g->wds = w;
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
 * directories passed watched for the running game run (NULL: none). */
static int measure(spawndisk_t *dk, int game, const char *dir, spawndisk_game_t *run, uint64_t stop,
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
    *g = (spawndisk_game_t){.pid = pid, .game = game};
    snprintf(g->dir, sizeof g->dir, "%s", dir);
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
    const spawndisk_game_t *g;
    LIST_FOREACH(g, &dk->games, link)
    if (!g->dead && (!due || g->due < due))
        due = g->due;
    return due;
}

/* Past half a cap: measured more often. */
static bool near(const diskuse_t *use, const gamecfg_t *g)
{
    return (g->disk_bytes && use->bytes > g->disk_bytes / 2) ||
           (g->disk_files && use->entries > g->disk_files / 2);
}

/* One game measured; fn told when it is over a cap. */
static void check_one(spawndisk_t *dk, spawndisk_game_t *dg, uint64_t now, spawndisk_fn *fn,
                      void *ud)
{
    const gamecfg_t *g = game_of(dk, dg->game);
    diskuse_t use;
    char err[200], why[160], what[300];
    dg->last = now;
    if (measure(dk, dg->game, dg->dir, dg, 2, &use, err, sizeof err) < 0) {
        log_warn("spawner: disk of game=%s dir=%s: %s", g->id, dg->dir, err);
        dg->due = tick(now + SPAWNDISK_EVERY_MS);
        return;
    }
    bool over = diskuse_over(&use, g->disk_bytes, g->disk_files);
    /* twice a cap: killed (a tree too deep or unreadable is hung up only) */
    diskuse_t counted = use;
    counted.deep = false;
    bool hard = diskuse_over(&counted, g->disk_bytes * 2, g->disk_files * 2);
    bool often = dg->hung || over || near(&use, g) || watches_full(dg); /* full: some unwatched */
    dg->due = tick(now + (often ? SPAWNDISK_NEAR_MS : SPAWNDISK_EVERY_MS));
    if (!over || (dg->hung && !hard))
        return;
    diskuse_say(&use, g->disk_bytes, g->disk_files, why, sizeof why);
    snprintf(what, sizeof what, "game=%s dir=%s pid=%d bytes=%llu entries=%llu%s", g->id, dg->dir,
             (int)dg->pid, (unsigned long long)use.bytes, (unsigned long long)use.entries,
             use.deep ? " (too deep or unreadable)" : "");
    if (!fn(ud, dg->pid, hard ? SPAWNDISK_KILL : SPAWNDISK_HANGUP, why, what))
        return; /* measured again at the next tick */
    dg->hung = true;
    dg->dead = hard;
}

void spawndisk_run(spawndisk_t *dk, uint64_t now, spawndisk_fn *fn, void *ud)
{
    int done = 0;
    spawndisk_game_t *dg;
    LIST_FOREACH(dg, &dk->games, link)
    {
        if (done >= SPAWNDISK_BATCH)
            break;
        if (dg->dead || dg->due > now)
            continue;
        check_one(dk, dg, now, fn, ud);
        done++;
    }
}
