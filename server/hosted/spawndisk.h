/* spawndisk — the spawner's watch on the directories of the games it
 * runs: each [game ID]'s disk caps (gamecfg.h: disk, disk-files),
 * measured by diskuse.h as the game's user, and, once it runs, the files
 * its processes hold open with no name added (diskheld.h, looked at with
 * the game's user's ids as the effective ones: measured every
 * SPAWNDISK_NEAR_MS while it holds any, as no inotify event tells of
 * them). Internal to the spawner's files (spawnd.c).
 *
 * Before a start the player's directory is measured, in the start's
 * child (spawnd.c): over a cap, the start is refused (SPAWNER_DISK_OVER
 * and by how much, for the player). Once a game runs (its exec) it is
 * measured by the spawner every SPAWNDISK_EVERY_MS, every
 * SPAWNDISK_NEAR_MS once it holds more than half of a cap or has been
 * hung up, and SPAWNDISK_GAP_MS after inotify(7) says something in it
 * changed (each directory a walk passes is watched, SPAWNDISK_WATCH_MAX
 * a game at most: a write, a new entry, a rename into it; a game with
 * more is measured every SPAWNDISK_NEAR_MS instead), so a program that writes is measured as it
 * writes while an idle one costs only its periodic measurement, which
 * catches what inotify does not see (writes through a shared mapping:
 * for the disk caps, and, by a change of its files' sizes and mtimes,
 * for the copies of spawndisk_changed).
 * The measurements are made by the measurer, one long-lived child of
 * the spawner's ("warren-measurer", started with the first game to
 * measure), asked over a socket pair one fixed-size request a game
 * (diskreq.h, each field checked before it acts: a bad one is answered
 * with an error), SPAWNDISK_WINDOW at a time, a batch of games in turn,
 * and answering each as it goes. Its real and saved ids stay root's and
 * it is not dumpable, so no game's user can trace or signal it, though it
 * takes that user's effective ids for each game's processes (and back);
 * it keeps only the capabilities measuring needs (switching ids,
 * reaching the players' directories, CAP_CHECKPOINT_RESTORE) and dies
 * with the spawner. A directory that hangs (a dead network mount) holds
 * the measurer, killed after SPAWNDISK_LATE_MS without an answer, never
 * the spawner; that game is then measured alone every SPAWNDISK_STUCK_MS
 * until its directory answers again, and so is the game a measurer was
 * at when it ended; the games it had not answered yet are measured again
 * at once by a new measurer, started at most every SPAWNDISK_RESTART_MS
 * (with a line in the log each time).
 * When the kernel's inotify watches run out, the periodic measurement
 * is all there is (logged once). Over a cap, the spawner hangs it up (SIGHUP, SIGKILL after
 * hangup-timeout) and tells warrend why; at twice a cap (a program
 * that goes on writing, or wrote that much between two measurements)
 * it is killed at once. A walk stops counting at twice the caps, so a
 * measurement costs at most that many entries' fstatat. At most
 * SPAWNDISK_BATCH games are measured in one batch, the rest in the
 * next, while the spawner serves its requests; a batch starts at most
 * every SPAWNDISK_PACE_MS; periodic
 * ones fall on ticks of SPAWNDISK_TICK_MS, so the loop wakes for them at
 * most that often however many games run. */
#ifndef WARREN_SPAWNDISK_H
#define WARREN_SPAWNDISK_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include "cmdline.h"
#include "hmap.h"
#include "playerfs.h"
#include "spawner.h"

#define SPAWNDISK_EVERY_MS   2000  /* a game's directory is measured this often */
#define SPAWNDISK_NEAR_MS    250   /* ... past half a cap, or hung up */
#define SPAWNDISK_GAP_MS     100   /* ... after a change inotify saw, at most this often */
#define SPAWNDISK_TICK_MS    250   /* periodic measurements fall on these ticks */
#define SPAWNDISK_BATCH      256   /* games measured in one batch */
#define SPAWNDISK_WINDOW     16    /* requests the measurer has unanswered at most */
#define SPAWNDISK_PACE_MS    100   /* batches start at most this often */
#define SPAWNDISK_RESTART_MS 1000  /* a measurer is started at most this often */
#define SPAWNDISK_WATCH_MAX  64    /* directories a game has watched (inotify) at most */
#define SPAWNDISK_LATE_MS    1000  /* a measurer silent this long is killed */
#define SPAWNDISK_STUCK_MS   10000 /* a game whose directory did not answer: alone, this often */

/* A directory watched (inotify), found by its watch descriptor. */
typedef struct spawndisk_wd {
    hnode_t hn; /* in spawndisk_t.by_wd, by wd */
    int wd;
    ino_t ino;                   /* the directory's */
    struct spawndisk_game *game; /* the game it belongs to */
    struct spawndisk_wd *next;   /* the game's next */
} spawndisk_wd_t;

/* One game's measurements: a part of the spawner's record of its child
 * (spawnd.c's kid_t), which owns it; filled by spawndisk_game, and in
 * spawndisk_t's list from spawndisk_watch until spawndisk_forget. */
typedef struct spawndisk_game {
    LIST_ENTRY(spawndisk_game) link; /* private: in spawndisk_t.games while watched */
    bool watched;                    /* read-only: in the list (its game has caps) */
    pid_t pid;
    int game; /* index into the config's games */
    char dir[CMDLINE_NAME_MAX + 1];
    uint64_t due;        /* the next measurement, CLOCK_MONOTONIC ms */
    uint64_t last;       /* the last one */
    bool hung, dead;     /* hung up for its disk; killed for it */
    bool stuck;          /* its directory did not answer the last batch */
    bool changed;        /* something in it changed since its last copy began (or unknown) */
    uint64_t sig;        /* its files' signature at the last measurement (diskuse_t.sig) */
    bool sig_known;      /* measured once at least */
    spawndisk_wd_t *wds; /* its directories watched (owned) */
} spawndisk_game_t;

typedef struct {
    const spawner_cfg_t *cfg;          /* borrowed */
    const playerfs_t *fs;              /* borrowed: games-dir, open once a game started */
    LIST_HEAD(, spawndisk_game) games; /* the games watched (borrowed) */
    int ifd;                           /* inotify, non-blocking; -1 without */
    hmap_t by_wd;                      /* spawndisk_wd_t */
    bool watch_full;                   /* the kernel refused a watch: said once */
    pid_t meter;                       /* the measurer; 0: none */
    int meter_fd;                      /* its socket, -1: none */
    uint64_t meter_at;                 /* when the last one was started */
    uint32_t batch;                    /* the batch at work's number */
    uint64_t batch_end;                /* the measurer is killed if it answers no more by then */
    uint64_t next_batch;               /* the next may start then */
    spawndisk_game_t *in[SPAWNDISK_BATCH]; /* its games (NULL: forgotten since asked) */
    int nin, sent, got;                    /* how many, how many asked, how many answered */
    /* In the measurer only: the request at work and its answer. */
    const struct diskreq *walking;
    struct spawndisk_report *report;
} spawndisk_t;

/* What the spawner does to a game over a cap: hang it up or kill it
 * now; why says by how much it is over (diskuse_say), for the player,
 * and what the figures for the log ("game=ID dir=NAME pid=P bytes=B
 * entries=E"), which fn writes before it acts, so the log has it before
 * warrend's line. false: not yet (its start is not answered): measured
 * again at the next tick. */
typedef enum { SPAWNDISK_HANGUP, SPAWNDISK_KILL } spawndisk_act_t;
typedef bool spawndisk_fn(void *ud, pid_t pid, spawndisk_act_t act, const char *why,
                          const char *what);

void spawndisk_init(spawndisk_t *dk, const spawner_cfg_t *cfg, const playerfs_t *fs);
/* Forgets every game still watched (their records stay their owner's);
 * the measurer is killed (its zombie is the caller's to reap). */
void spawndisk_free(spawndisk_t *dk);
/* The inotify descriptor to poll for reading (-1: none), and what to do
 * when it is readable: the games changed are measured soon. */
int spawndisk_fd(const spawndisk_t *dk);
void spawndisk_events(spawndisk_t *dk, uint64_t now);

/* Before game starts for dir: 0, or -1 with err (SPAWNER_DISK_OVER and
 * by how much, diskuse_say, when over a cap; else why it could not be
 * measured). */
int spawndisk_check(spawndisk_t *dk, int game, const char *dir, char *err, size_t errlen);

/* Whether g's directory changed since its last copy began (a read of
 * its files: spawner_files_read), as far as the watches tell (the events
 * queued are read first): true while not all of it is watched, or the
 * kernel lost events. spawndisk_copying: a copy begins now. A write
 * through a shared mapping tells no watch: the periodic measurement
 * (SPAWNDISK_EVERY_MS) sees it in the files' sizes and mtimes
 * (diskuse_t.sig) when the file system sets mtime on such writes (ext4,
 * xfs, btrfs: at the first write after each writeback; tmpfs does not),
 * and the copy at the game's end, once no program runs, reads it all. */
bool spawndisk_changed(spawndisk_t *dk, spawndisk_game_t *g, uint64_t now);
void spawndisk_copying(spawndisk_game_t *g);

/* g (the caller's) filled for pid, game for dir: not watched yet. */
void spawndisk_game(spawndisk_game_t *g, pid_t pid, int game, const char *dir);
/* g, filled, watched from now on when its game has caps (once it runs:
 * a start's directory is the start's child's to measure, spawndisk_check,
 * so one that hangs holds that child only), until spawndisk_forget (its
 * exit), which takes any g filled, watched or not. */
void spawndisk_watch(spawndisk_t *dk, spawndisk_game_t *g, uint64_t now);
void spawndisk_forget(spawndisk_t *dk, spawndisk_game_t *g);

/* The games due by now (SPAWNDISK_BATCH at most) given to the measurer,
 * when no batch is at work (the measurer started first when there is
 * none); one that has not answered for SPAWNDISK_LATE_MS killed. */
void spawndisk_run(spawndisk_t *dk, uint64_t now);
/* The measurer's socket to poll for reading (-1: none), and what to do
 * when it is readable: each game's measurement judged, fn called for
 * each over a cap; the measurer gone (it ended, or answered wrong) is
 * said in the log and a new one started for the next batch. */
int spawndisk_meter_fd(const spawndisk_t *dk);
void spawndisk_reports(spawndisk_t *dk, uint64_t now, spawndisk_fn *fn, void *ud);
/* The measurer (0: none): the spawner's own child, not an orphan; its
 * zombie, once it ended or was killed, is the spawner's to reap. */
pid_t spawndisk_meter_pid(const spawndisk_t *dk);
/* When the next measurement is due (0: none is watched). */
uint64_t spawndisk_next(const spawndisk_t *dk);

#endif
