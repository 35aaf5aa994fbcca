/* spawndisk — the spawner's watch on the directories of the games it
 * runs: each [game ID]'s disk caps (gamecfg.h: disk, disk-files),
 * measured by diskuse.h as the game's user. Internal to the spawner's
 * files (spawnd.c).
 *
 * Before a start the player's directory is measured: over a cap, the
 * start is refused (SPAWNER_DISK_OVER and by how much, for the player). While a
 * game runs it is measured every SPAWNDISK_EVERY_MS, and every
 * SPAWNDISK_NEAR_MS once it holds more than half of a cap or has been
 * hung up: over a cap, the spawner hangs it up (SIGHUP, SIGKILL after
 * hangup-timeout) and tells warrend why; at twice a cap (a program
 * that goes on writing, or wrote that much between two measurements)
 * it is killed at once. A walk stops counting at twice the caps, so a
 * measurement costs at most that many entries' fstatat. At most
 * SPAWNDISK_BATCH games are measured in one turn of the spawner's loop,
 * the rest on the next, so requests are served between them. */
#ifndef WARREN_SPAWNDISK_H
#define WARREN_SPAWNDISK_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "cmdline.h"
#include "playerfs.h"
#include "spawner.h"

#define SPAWNDISK_EVERY_MS 2000 /* a game's directory is measured this often */
#define SPAWNDISK_NEAR_MS  250  /* ... past half a cap, or hung up */
#define SPAWNDISK_BATCH    64   /* games measured in one turn of the loop */

typedef struct {
    pid_t pid;
    int game; /* index into the config's games */
    char dir[CMDLINE_NAME_MAX + 1];
    uint64_t due;    /* the next measurement, CLOCK_MONOTONIC ms */
    bool hung, dead; /* hung up for its disk; killed for it */
} spawndisk_game_t;

typedef struct {
    const spawner_cfg_t *cfg; /* borrowed */
    const playerfs_t *fs;     /* borrowed: games-dir, open once a game started */
    spawndisk_game_t *games;  /* owned */
    int n, cap;
} spawndisk_t;

/* What the spawner does to a game over a cap: hang it up or kill it
 * now; why says by how much it is over (diskuse_say), for the player. */
typedef enum { SPAWNDISK_HANGUP, SPAWNDISK_KILL } spawndisk_act_t;
typedef void spawndisk_fn(void *ud, pid_t pid, spawndisk_act_t act, const char *why);

void spawndisk_init(spawndisk_t *dk, const spawner_cfg_t *cfg, const playerfs_t *fs);
void spawndisk_free(spawndisk_t *dk);

/* Before game starts for dir: 0, or -1 with err (SPAWNER_DISK_OVER and
 * by how much, diskuse_say, when over a cap; else why it could not be
 * measured). */
int spawndisk_check(const spawndisk_t *dk, int game, const char *dir, char *err, size_t errlen);

/* pid (game for dir) is watched from now on, until spawndisk_forget
 * (its exit, or its start failed). Returns 0 or -1 (memory: not
 * watched, logged). */
int spawndisk_watch(spawndisk_t *dk, pid_t pid, int game, const char *dir, uint64_t now);
void spawndisk_forget(spawndisk_t *dk, pid_t pid);

/* Measures the games due by now (SPAWNDISK_BATCH at most), calling fn
 * for each over a cap. */
void spawndisk_run(spawndisk_t *dk, uint64_t now, spawndisk_fn *fn, void *ud);
/* When the next measurement is due (0: none is watched). */
uint64_t spawndisk_next(const spawndisk_t *dk);

#endif
