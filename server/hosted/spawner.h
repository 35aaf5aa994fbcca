/* spawner — the small privileged process that starts hosted programs and
 * touches players' files, and warrend's side of it (privilege separation:
 * OpenSSH's monitor, Postfix's small daemons).
 *
 * warrend forks it at start, before any thread exists and before it drops
 * its own privileges (run-as); when warrend runs as root, the spawner keeps
 * root's rights (only the capabilities it needs: set ids, kill, chown, file
 * access) to start programs as the games' users. They talk over a
 * socketpair in spawnmsg.h's messages; the spawner checks every field of
 * every request and acts only on the games of the config it was forked
 * with, for players' names and directories of the allowed characters.
 *
 * The spawner:
 *   - starts a game's program for a player: opens a pty, forks; the
 *     child first makes the player's directory, rc file, xlogfile and
 *     playground files (playerfs.h) and measures the directory against
 *     the disk caps (so a directory that hangs, on a dead network mount,
 *     holds that start alone, killed at start-timeout), then gets a new
 *     session with the pty as its terminal, nothing else open, default
 *     signals, the section's rlimits, the game's user's groups, gid and uid
 *     (never uid 0 when the spawner is root), the player's directory as its
 *     working directory, and execs; a failure before exec comes back with
 *     its reason. The pty's master is passed back (SCM_RIGHTS) with the
 *     pid;
 *   - signals its own programs' process groups on request: a hangup is
 *     SIGHUP and SIGCONT, then SIGKILL after the game's hangup-timeout;
 *   - reports each program's exit (pid, wait status);
 *   - is a child subreaper: what a program leaves behind (a double fork, a
 *     setsid grandchild) becomes its child. When a program ends, its group
 *     and every orphan in its session are killed, so the whole tree ends
 *     with the game; an orphan in no running game's session (it left with
 *     setsid) is killed then too, and at the latest within 30 seconds;
 *   - when warrend goes away (end of file on the socket: an exit, a crash,
 *     SIGKILL) hangs every program up as above and exits once all are gone;
 *   - reads and replaces players' rc files (playerfs.h), and reads the
 *     tail of a player's own xlogfile, as the game's user, each request
 *     in a child of its own, killed at the game's start-timeout (a save
 *     at its deadline if sooner), so a directory that hangs holds that
 *     request alone;
 *   - reads a player's files as a bundle (hostfiles.h) into a memfd it
 *     passes back, and writes one warrend passes in into the player's
 *     directory (playerfs_files_collect, _unpack), each as a job like an
 *     rc request, as the game's user, no link followed (hostcopy.h);
 *   - keeps each game to its section's disk caps (spawndisk.h): a start
 *     over one is refused (its reason begins with SPAWNER_DISK_OVER), a
 *     running game over one is hung up (killed at twice a cap) and
 *     warrend told why (spawner_watch's stopped).
 *
 * warrend's side runs on the home loop. Starting a program is
 * asynchronous: the request is sent and its answer (the pty's master with
 * the pid, or why not) comes to a callback on the loop, so a spawner slow
 * to fork and exec (a busy machine, a thousand games starting) never holds
 * up the other players; at most SPAWNER_STARTING_MAX starts wait at once
 * (more are refused with a message), each at most SPAWNER_TIMEOUT_MS (and
 * the spawner kills one whose child has not exec'd by its game's
 * start-timeout, answering SPAWNER_LATE, so none holds a place for
 * good). rc
 * files are read and written the same way (SPAWNER_RC_MAX at once); a
 * save not answered in time is refused by the spawner if it comes to it
 * later (its deadline travels with it), so a save the player was told
 * failed is never made behind their back. Signals and exits are
 * asynchronous too: the loop never waits for the spawner.
 *
 * Ownership: spawner_start returns a spawner_t freed by spawner_free. */
#ifndef WARREN_SPAWNER_H
#define WARREN_SPAWNER_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "gamecfg.h"

#define SPAWNER_GROUPS_MAX   64
#define SPAWNER_TIMEOUT_MS   10000 /* a request's answer, at most */
#define SPAWNER_STARTING_MAX 64    /* programs starting at once (waiting for their answer) */
#define SPAWNER_RC_MAX       64    /* rc files being read or written at once */
/* of those, the running games' copies (spawner_files_read) at most: the
 * rest stay for rc files, xlogfiles and the restores before a start */
#define SPAWNER_COPIES_MAX   (SPAWNER_RC_MAX / 2)
/* an rc save's deadline at the spawner is this much before warrend gives
 * up on its answer: one made just in time is still answered in time */
#define SPAWNER_RC_MARGIN_MS 2000
/* the spawner's answer to a start whose child did not reach its exec by
 * the game's start-timeout (gamecfg.h): it was killed */
#define SPAWNER_LATE         "the game did not start in time"
_Static_assert(GAMECFG_START_MAX * 1000 < SPAWNER_TIMEOUT_MS, "a late start is answered in time");

/* A start's reason that begins with this: the player's files are over
 * the game's disk cap, and the rest of it, a sentence for the player,
 * says by how much. */
#define SPAWNER_DISK_OVER "disk over: "

/* A read's answer (its err) when the player's game runs and nothing in
 * its directory changed since the last read began (inotify, spawndisk.h):
 * nothing was read, no child forked. */
#define SPAWNER_FILES_SAME "unchanged since the last read"
/* The err of a read not asked as copies_max reads (or SPAWNER_RC_MAX
 * requests) wait already, or its answer when the spawner had no job for
 * it (jobs_max at work, a fork failed): ask again later. */
#define SPAWNER_FILES_FULL "many players' files are being copied: later"
/* The answer to another files, rc file or xlogfile request when the
 * spawner had no job for it: try again later. */
#define SPAWNER_JOBS_FULL  "many players' files are being read: try again in a moment"

/* A read's answer (its err) that begins with this: the player's game
 * runs and something in its directory changed within the last
 * SPAWNER_FILES_QUIET_MS before the read, or while it read (a save
 * being written): nothing is copied, the rest says what changed. Ask
 * again later: only a set that stayed still that long is copied while
 * its program runs (once it ended, everything is read). */
#define SPAWNER_FILES_BUSY     "put off: "
#define SPAWNER_FILES_QUIET_MS 2000
/* A read's answer that begins with this: the files are more than a copy
 * holds (copy-max bytes, HOSTFILES_FILES_MAX files, or a directory of
 * more than HOSTFILES_WALK_MAX entries to look through); the rest says
 * which. */
#define SPAWNER_FILES_OVER     "over copy-max: "

/* What a read's answer (its err, NULL: the files came) says, told by the
 * spawner's own codes above alone: the rest of an err may name a file of
 * the player's (the hosted program's choice), so no other words count. */
typedef enum {
    SPAWNER_READ_OK,     /* the files came */
    SPAWNER_READ_SAME,   /* SPAWNER_FILES_SAME */
    SPAWNER_READ_BUSY,   /* SPAWNER_FILES_BUSY... */
    SPAWNER_READ_OVER,   /* SPAWNER_FILES_OVER... */
    SPAWNER_READ_FULL,   /* SPAWNER_FILES_FULL */
    SPAWNER_READ_FAILED, /* anything else */
} spawner_read_t;
spawner_read_t spawner_read_kind(const char *err);

/* Whom a game's program runs as. */
typedef struct {
    bool ok;       /* the game may start; else why says why not */
    char why[200]; /* for the log and the player */
    bool sw;       /* the spawner is root: switch to the ids below */
    uid_t uid;
    gid_t gid;
    gid_t groups[SPAWNER_GROUPS_MAX];
    int ngroups;
} spawner_user_t;

/* Looks a system user up by name (getpwnam, getgrouplist: NSS may block,
 * so only at start): 0 with its ids and groups in u, or -1 with u->why. */
int spawner_user_lookup(const char *name, spawner_user_t *u);

/* What the spawner is forked with. */
typedef struct {
    const gamecfg_list_t *games;         /* borrowed; lives as long as the spawner_t */
    spawner_user_t users[GAMECFG_GAMES]; /* games->games[i]'s user */
    char games_dir[256];                 /* players' directories (playerfs.h) */
    uid_t owner;                         /* the daemon's user: owns games-dir */
    gid_t group;
    int copies_max; /* files reads waiting at once: SPAWNER_COPIES_MAX (fewer in tests) */
    int jobs_max;   /* the spawner's jobs at once: SPAWNER_RC_MAX (fewer in tests) */
    /* private: set by spawner_start. The rc saves' gate, shared by both
     * processes (one page, MAP_SHARED): the spawner makes a save only
     * while it is open (OPEN to SAVING, back when made), warrend shuts it
     * at shutdown (OPEN to SHUT: spawner_stop). NULL: no gate (no page). */
    _Atomic uint32_t *rc_gate;
} spawner_cfg_t;
enum { SPAWNER_RC_OPEN, SPAWNER_RC_SAVING, SPAWNER_RC_SHUT };

/* Fills cfg: each game's user (its section's user, else games_user) is
 * looked up (getpwnam: at start, never on the loop). As root, a missing
 * user leaves the game unavailable (its why says so); as another user,
 * programs run as that one and no lookup is needed. Returns 0, or -1 with
 * err when a user has uid 0 (hosted games never run as root). */
int spawner_config(spawner_cfg_t *cfg, const gamecfg_list_t *games, const char *games_user,
                   const char *games_dir, uid_t owner, gid_t group, char *err, size_t errlen);

typedef struct spawner spawner_t;

/* Forks the spawner. Call before any thread is started (the child is a
 * copy of this process) and before privileges are dropped. Returns the
 * spawner, or NULL with err. */
spawner_t *spawner_start(const spawner_cfg_t *cfg, char *err, size_t errlen);
/* Reads exits on loop from now on. Returns 0 or -1. */
int spawner_attach(spawner_t *sp, uv_loop_t *loop);
/* Closes warrend's end (the spawner hangs up what still runs and exits)
 * and reaps the spawner if it ends within a moment. Call once the loop has
 * ended; NULL is fine. */
void spawner_free(spawner_t *sp);
/* Shutdown (home, as warrend begins to stop): the rc saves' gate is shut,
 * so the spawner makes no save from now on, not even one already sent,
 * and every rc request still waiting is answered as failed ("the server
 * is shutting down"), its callback called within this call, before the
 * players are sent off: the loop does not wait for them, and a player
 * told "Not saved" never has the file changed. A save the spawner is
 * making at that very moment is let finish (a small file's write, waited
 * for a moment); if it does not finish, the saves keep waiting for their
 * answers as before. No-op on NULL or without a gate. */
void spawner_stop(spawner_t *sp);
/* The spawner's process (the unit tests watch it end). */
pid_t spawner_pid(const spawner_t *sp);

/* The ids game's programs run as (and its players' files are read and
 * written as): its user's when the spawner switches, else the
 * spawner's own. 0, or -1 when there is no such game. */
int spawner_game_ids(const spawner_t *sp, const char *game, uid_t *uid, gid_t *gid);

/* Why game cannot start for anyone (its user is missing), or NULL. */
const char *spawner_unavailable(const spawner_t *sp, const char *game);

/* A start's answer: master (the pty, non-blocking, close-on-exec: the
 * callee owns it) and pid, or master -1 with err (the spawner's reason, no
 * answer within SPAWNER_TIMEOUT_MS, the spawner gone). */
typedef void spawner_started_fn(int master, pid_t pid, const char *err, void *user);

/* Starts game for the player name (%n) whose directory is games-dir/game/
 * dir, in a w x h window, without waiting: 0 with *ticket, the answer to
 * come to fn on the loop once (never within this call), or -1 with err
 * (SPAWNER_STARTING_MAX starts wait already, a bad field, the spawner
 * gone; fn is not called). */
int spawner_spawn(spawner_t *sp, const char *game, const char *name, const char *dir, int w, int h,
                  spawner_started_fn *fn, void *user, uint32_t *ticket, char *err, size_t errlen);
/* The start of ticket is no one's now: fn is not called, and a program
 * that starts anyway is killed. An unknown or answered ticket is fine. */
void spawner_spawn_cancel(spawner_t *sp, uint32_t ticket);
/* Starts waiting for their answer (the bench and the tests read it). */
int spawner_starting(const spawner_t *sp);

/* pid's exit is reported once to fn, on the loop, after its start's
 * answer was delivered; a program whose report cannot come (the spawner
 * ended) is reported with status -1. Before it, stopped (NULL: none)
 * hears why, should the spawner hang the program up or kill it on its
 * own (its directory over the disk cap): why says by how much, a
 * sentence for the player, borrowed for the call. */
typedef void spawner_exit_fn(pid_t pid, int status, void *user);
typedef void spawner_stopped_fn(pid_t pid, const char *why, void *user);
int spawner_watch(spawner_t *sp, pid_t pid, spawner_exit_fn *fn, spawner_stopped_fn *stopped,
                  void *user);
void spawner_unwatch(spawner_t *sp, pid_t pid);
/* SIGHUP and SIGCONT to pid's group, SIGKILL after the game's
 * hangup-timeout; or SIGKILL now. Only the spawner's own programs. */
void spawner_hangup(spawner_t *sp, pid_t pid);
void spawner_kill(spawner_t *sp, pid_t pid);

/* An rc request's answer, on the loop, once: err NULL when it worked
 * (a read's text: len bytes, borrowed for the call; a save's: ""), else
 * why not (the spawner's reason, no answer within SPAWNER_TIMEOUT_MS, the
 * spawner gone). */
typedef void spawner_rc_fn(const char *text, size_t len, const char *err, void *user);

/* The rc file of game (its rcfile) in the player's directory dir, read
 * (made from rc-default first when missing; empty when there is no
 * default), or replaced by text, without waiting: 0, the answer to come
 * to fn (never within this call), or -1 with err for the player
 * (SPAWNER_RC_MAX requests wait already, a bad field, the spawner gone;
 * fn is not called). There is no cancel: the caller keeps user alive
 * until fn. */
int spawner_rc_load(spawner_t *sp, const char *game, const char *dir, spawner_rc_fn *fn, void *user,
                    char *err, size_t errlen);
int spawner_rc_save(spawner_t *sp, const char *game, const char *dir, const char *text, size_t len,
                    spawner_rc_fn *fn, void *user, char *err, size_t errlen);

/* The newest rows of game's own xlogfile ("xlogfile = %d/PATH") in the
 * player's directory dir, read as the game's user, no link followed: its
 * last SPAWNMSG_TEXT_MAX bytes at most, from a line's start (empty when
 * missing), to fn as spawner_rc_load's text; an rc request's slot and
 * rules, answered as failed at shutdown, except that with every rc slot
 * taken it waits for one (up to 4,096 waiting) instead of failing: a
 * game's end keeps its score through a busy moment. */
int spawner_xlog_read(spawner_t *sp, const char *game, const char *dir, spawner_rc_fn *fn,
                      void *user, char *err, size_t errlen);

/* A files request's answer, on the loop, once: err NULL when it worked
 * (a read's fd: a memfd holding the bundle, hostfiles.h, the callee's to
 * close; note: what was not copied, "" when nothing), else why not (fd
 * -1). */
typedef void spawner_files_fn(int fd, const char *note, const char *err, void *user);
/* The player's files of game (dir, their directory) read as a bundle of
 * at most the section's copy-max, as the game's user, no link followed
 * (playerfs_files_collect); or the bundle in fd (a memfd, borrowed: the
 * caller closes it after this call) written into that directory
 * (playerfs_files_unpack). A read of a running game's directory in
 * which nothing changed since its last read began is answered
 * SPAWNER_FILES_SAME at once (no child), one of a running game's in which
 * something changed within SPAWNER_FILES_QUIET_MS SPAWNER_FILES_BUSY
 * (nothing copied), one of too many files SPAWNER_FILES_OVER; at most
 * SPAWNER_COPIES_MAX reads
 * wait at once. An rc request's slot and rules: 0, the answer
 * to come to fn (never within this call), or -1 with err (fn is not
 * called). */
int spawner_files_read(spawner_t *sp, const char *game, const char *dir, spawner_files_fn *fn,
                       void *user, char *err, size_t errlen);
int spawner_files_write(spawner_t *sp, const char *game, const char *dir, int fd,
                        spawner_files_fn *fn, void *user, char *err, size_t errlen);

/* fn(user) on the loop after answers or exits that freed a place for a
 * request (an rc file, xlogfile or files request answered, unless
 * refused for want of a place, SPAWNER_FILES_FULL or SPAWNER_JOBS_FULL;
 * a program's exit), once a turn, after their callbacks: what waits for
 * a place asks again then (hostcopy.c's last copies). NULL: none. */
void spawner_on_place(spawner_t *sp, void (*fn)(void *user), void *user);

#endif
