/* playerfs — the players' directories of hosted games and their rc files,
 * as the spawner (spawner.h) touches them.
 *
 * Layout: games-dir/ID/DIR, where games-dir and games-dir/ID belong to the
 * daemon's user with mode 0711 (the games' user may pass, not list or
 * write) and DIR, the player's directory, belongs to the game's user with
 * mode 0700. Owners and modes are set on open descriptors (fchown, fchmod)
 * and set right again when they differ (an older layout).
 *
 * A hosted program may plant anything in its player's directory: a link
 * where the rc file should be, a FIFO, a huge file. So everything below
 * games-dir is reached relative to directory descriptors (openat, mkdirat,
 * renameat) with O_NOFOLLOW, files with O_NONBLOCK and fstat'd as regular
 * files of a sane size, and the work inside a player's directory runs with
 * the file-system ids of the game's user (setfsuid/setfsgid: the spawner
 * is single-threaded), so even a link followed could reach only what that
 * user can. Files are created with explicit modes (0600), written to a
 * temporary name and renamed within the directory.
 *
 * Errors are -1 with a message meant for the player and the log. */
#ifndef WARREN_PLAYERFS_H
#define WARREN_PLAYERFS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "diskuse.h"
#include "hostfiles.h"

#define PLAYERFS_PATH_MAX 256  /* bytes of games-dir's real path */
#define PLAYERFS_RC_MAX   8192 /* bytes of an rc file (and of rc-default) */

/* Whose rights the work inside a player's directory has. */
typedef struct {
    uid_t uid; /* owner of the player's directory */
    gid_t gid;
    bool switch_ids; /* the spawner is root: fs ids become uid/gid for the work */
} playerfs_user_t;

typedef struct {
    int games_fd;                 /* games-dir, open; -1 when closed */
    uid_t owner;                  /* the daemon's user: games-dir and games-dir/ID */
    gid_t group;                  /* its group */
    bool root;                    /* owners can be set */
    char path[PLAYERFS_PATH_MAX]; /* games-dir's real path (for %d) */
} playerfs_t;

/* Makes games-dir (and its missing parents, 0711, the owner's) and opens
 * it. Returns 0, or -1 with err. */
int playerfs_open(playerfs_t *fs, const char *games_dir, uid_t owner, gid_t group, char *err,
                  size_t errlen);
void playerfs_close(playerfs_t *fs);

/* games-dir/game/dir's path into path (at most pathlen - 1 bytes), touching
 * nothing: 0, or -1 with err. */
int playerfs_path(const playerfs_t *fs, const char *game, const char *dir, char *path,
                  size_t pathlen, char *err, size_t errlen);

/* games-dir/game/dir, made as needed: returns its descriptor (O_DIRECTORY,
 * close-on-exec) and its path in path (for %d, at most pathlen - 1 bytes),
 * or -1 with err. game and dir are single components (spawnmsg.h checks
 * them). */
int playerfs_dir(playerfs_t *fs, const char *game, const char *dir, const playerfs_user_t *u,
                 char *path, size_t pathlen, char *err, size_t errlen);

/* Whether u can reach path (every parent searchable by it): 0, or -1 with
 * err. */
int playerfs_reachable(const char *path, const playerfs_user_t *u, char *err, size_t errlen);

/* The rc file name in the player's directory dirfd: when it is missing
 * and rc_default is not NULL, rc_default (an operator's file, read with
 * the spawner's rights, at most PLAYERFS_RC_MAX bytes) is copied to it
 * first. A default that cannot be read is logged and skipped. Returns 0,
 * or -1 with err. */
int playerfs_rc_first(int dirfd, const char *name, const char *rc_default, const playerfs_user_t *u,
                      char *err, size_t errlen);
/* Reads rc file name (made from rc_default first, as playerfs_rc_first)
 * into out (at most cap bytes: a larger file is an error); a missing file
 * reads as empty. Returns 0 with *len, or -1 with err. */
int playerfs_rc_load(int dirfd, const char *name, const char *rc_default, const playerfs_user_t *u,
                     char *out, size_t cap, size_t *len, char *err, size_t errlen);
/* Replaces rc file name with text (len bytes): written to name.new, then
 * renamed over name. Returns 0, or -1 with err. */
int playerfs_rc_save(int dirfd, const char *name, const playerfs_user_t *u, const char *text,
                     size_t len, char *err, size_t errlen);

/* A file of the player's own (path, names separated by '/', checked by
 * gamecfg.h) made, empty (0600), with its missing directories (0700), as
 * u, no step through a link, when missing. Returns 0, or -1 with err. */
int playerfs_file_first(int dirfd, const char *path, const playerfs_user_t *u, char *err,
                        size_t errlen);
/* The player's own xlogfile (path, as below) made as playerfs_file_first:
 * NetHack writes a row only to an xlogfile that exists. */
int playerfs_xlog_first(int dirfd, const char *path, const playerfs_user_t *u, char *err,
                        size_t errlen);
/* The player's own xlogfile (path: names separated by '/', checked by
 * gamecfg.h) below dirfd, as u, no step a link: its last cap bytes at
 * most, from a line's start, NUL bytes as '?', into out (*len). A missing
 * file reads as empty. Returns 0, or -1 with err (a link, not a regular
 * file, unreadable). */
int playerfs_xlog_tail(int dirfd, const char *path, const playerfs_user_t *u, char *out, size_t cap,
                       size_t *len, char *err, size_t errlen);

/* What games-dir/game/dir holds (diskuse.h), walked as u, stopping past
 * stop_bytes or stop_entries (0: never), each directory to dir_fn (NULL:
 * none) as diskuse_measure says: 0 with *use (all zero when the directory
 * does not exist yet), or -1 with err (the directory is a link or cannot
 * be opened). */
int playerfs_usage(const playerfs_t *fs, const char *game, const char *dir,
                   const playerfs_user_t *u, uint64_t stop_bytes, uint64_t stop_entries,
                   diskuse_dir_fn *dir_fn, void *ud, diskuse_t *use, char *err, size_t errlen);

/* What playerfs_files_collect returns, besides 0 and -1. */
#define PLAYERFS_OVER (-2) /* more than a bundle holds */
#define PLAYERFS_BUSY (-3) /* something changed too recently */

/* The player's files below dirfd (their directory), read as u into b
 * (hostfiles.h): every regular file, walked HOSTFILES_DEPTH deep, never
 * through a link, looking at HOSTFILES_WALK_MAX entries at most. What is
 * not copied (a link, a FIFO, a name a bundle may not hold) is counted
 * in *skipped, the first said in note. With quiet_ms, only a still set
 * is read: nothing below dirfd (nor dirfd itself) may have changed
 * (ctime, which no program can set back: a write, a new, removed or
 * renamed entry) within quiet_ms before the read began, nor while it
 * read. Returns 0; PLAYERFS_OVER with err: more than b's max bytes,
 * HOSTFILES_FILES_MAX files or HOSTFILES_WALK_MAX entries; PLAYERFS_BUSY
 * with err (what changed): not still; or -1 with err (the directory
 * cannot be read). */
int playerfs_files_collect(int dirfd, const playerfs_user_t *u, uint64_t quiet_ms,
                           hostfiles_buf_t *b, int *skipped, char *note, size_t notelen, char *err,
                           size_t errlen);
/* The player's directory dirfd made to hold bundle (len bytes, at most
 * max), as u: checked whole first (nothing is touched when it is bad),
 * what dirfd holds that the bundle does not removed (a link itself, never
 * its target), then each file written (0600, through a temporary name,
 * its directories made 0700, none a link). Returns 0, or -1 with err. */
int playerfs_files_unpack(int dirfd, const playerfs_user_t *u, const void *bundle, size_t len,
                          size_t max, char *err, size_t errlen);

#endif
