/* spawndisk — the running games' directories, measured in turn
 * (spawndisk.h). */
#include "spawndisk.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"

void spawndisk_init(spawndisk_t *dk, const spawner_cfg_t *cfg, const playerfs_t *fs)
{
    *dk = (spawndisk_t){.cfg = cfg, .fs = fs};
}

void spawndisk_free(spawndisk_t *dk)
{
    free(dk->games);
    dk->games = NULL;
    dk->n = dk->cap = 0;
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

/* Measured up to stop times the caps (a cap of 0 never stops). */
static int measure(const spawndisk_t *dk, int game, const char *dir, uint64_t stop, diskuse_t *use,
                   char *err, size_t errlen)
{
    const gamecfg_t *g = game_of(dk, game);
    playerfs_user_t u = user_of(dk, game);
    return playerfs_usage(dk->fs, g->id, dir, &u, g->disk_bytes * stop, g->disk_files * stop, use,
                          err, errlen);
}

static bool capped(const gamecfg_t *g)
{
    return g->disk_bytes || g->disk_files;
}

int spawndisk_check(const spawndisk_t *dk, int game, const char *dir, char *err, size_t errlen)
{
    const gamecfg_t *g = game_of(dk, game);
    diskuse_t use;
    char what[160];
    if (!capped(g))
        return 0;
    if (measure(dk, game, dir, 2, &use, err, errlen) < 0)
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

int spawndisk_watch(spawndisk_t *dk, pid_t pid, int game, const char *dir, uint64_t now)
{
    if (!capped(game_of(dk, game)))
        return 0;
    if (dk->n == dk->cap) {
        int cap = dk->cap ? dk->cap * 2 : 16;
        spawndisk_game_t *g = realloc(dk->games, sizeof *g * (size_t)cap);
        if (!g) {
            log_error("spawner: out of memory: the directory of pid=%d is not measured", (int)pid);
            return -1;
        }
        dk->games = g;
        dk->cap = cap;
    }
    spawndisk_game_t *g = &dk->games[dk->n++];
    *g = (spawndisk_game_t){.pid = pid, .game = game, .due = now + SPAWNDISK_NEAR_MS};
    snprintf(g->dir, sizeof g->dir, "%s", dir);
    return 0;
}

void spawndisk_forget(spawndisk_t *dk, pid_t pid)
{
    for (int i = 0; i < dk->n; i++)
        if (dk->games[i].pid == pid) {
            dk->games[i] = dk->games[--dk->n];
            return;
        }
}

uint64_t spawndisk_next(const spawndisk_t *dk)
{
    uint64_t due = 0;
    for (int i = 0; i < dk->n; i++)
        if (!dk->games[i].dead && (!due || dk->games[i].due < due))
            due = dk->games[i].due;
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
    char err[200], what[160];
    if (measure(dk, dg->game, dg->dir, 2, &use, err, sizeof err) < 0) {
        log_warn("spawner: disk of game=%s dir=%s: %s", g->id, dg->dir, err);
        dg->due = now + SPAWNDISK_EVERY_MS;
        return;
    }
    bool over = diskuse_over(&use, g->disk_bytes, g->disk_files);
    bool hard = diskuse_over(&use, g->disk_bytes * 2, g->disk_files * 2);
    dg->due = now + (dg->hung || over || near(&use, g) ? SPAWNDISK_NEAR_MS : SPAWNDISK_EVERY_MS);
    if (!over || (dg->hung && !hard))
        return;
    diskuse_say(&use, g->disk_bytes, g->disk_files, what, sizeof what);
    log_warn("spawner: disk over game=%s dir=%s pid=%d bytes=%llu entries=%llu%s: %s", g->id,
             dg->dir, (int)dg->pid, (unsigned long long)use.bytes, (unsigned long long)use.entries,
             use.deep ? " (too deep or unreadable)" : "", hard ? "killed" : "hung up");
    dg->hung = true;
    dg->dead = hard;
    fn(ud, dg->pid, hard ? SPAWNDISK_KILL : SPAWNDISK_HANGUP, what);
}

void spawndisk_run(spawndisk_t *dk, uint64_t now, spawndisk_fn *fn, void *ud)
{
    int done = 0;
    for (int i = 0; i < dk->n && done < SPAWNDISK_BATCH; i++) {
        spawndisk_game_t *dg = &dk->games[i];
        if (dg->dead || dg->due > now)
            continue;
        check_one(dk, dg, now, fn, ud);
        done++;
    }
}
