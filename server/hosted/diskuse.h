/* diskuse — what a player's directory of a hosted game holds in all:
 * bytes in use and entries, for the disk caps of a [game ID] section
 * (gamecfg.h: disk, disk-files).
 *
 * The walk is the spawner's (spawner.h), in a tree a hostile program may
 * have shaped: every step is relative to an open directory, with
 * O_NOFOLLOW and AT_SYMLINK_NOFOLLOW, so a link is counted as an entry
 * and never followed; it runs with whatever file-system ids the caller
 * set (playerfs.h: the game's user). It is bounded: it stops counting
 * once either total passes its stop value, and a directory nested deeper
 * than DISKUSE_DEPTH_MAX, or one it cannot open or list, makes the tree
 * count as over (deep set): no game needs either, and a program could
 * hide files behind them. Its stop values are capped too: past
 * DISKUSE_ENTRIES_MAX entries it stops whatever the caps (even with none),
 * the tree counting as over (huge set, and a line in the log), so no tree
 * a program made (millions of empty files) holds the spawner long.
 *
 * Bytes are st_blocks * 512 of every entry (a sparse file counts what
 * it uses, a directory its own blocks); entries are everything below the
 * directory, itself not counted. A file linked twice counts twice. */
#ifndef WARREN_DISKUSE_H
#define WARREN_DISKUSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISKUSE_DEPTH_MAX   32     /* directories below the player's */
#define DISKUSE_ENTRIES_MAX 100000 /* entries walked at most, 50 times the default cap */

typedef struct {
    uint64_t bytes, entries;
    bool cut;  /* it stopped counting past a stop value: both are at least this */
    bool deep; /* too deep, or a directory that could not be read: over */
    bool huge; /* past DISKUSE_ENTRIES_MAX entries: over, whatever the caps */
    /* The regular files' inode, size and mtime, hashed and summed: it
     * changes when one of them does, as when a program writes through a
     * shared mapping (the kernel sets mtime at the first such write after
     * each writeback), which no inotify event tells of. */
    uint64_t sig;
    /* Added by the caller, not the walk: of bytes, those of files the
     * running game holds open that no directory names (diskheld.h), and
     * whether some of its open files could not be looked at (over). */
    uint64_t held;
    bool unseen;
} diskuse_t;

/* Called with each directory of the tree as it is walked (dirfd's own
 * first): fd is open for the call only (spawndisk.h watches it). */
typedef void diskuse_dir_fn(int fd, void *ud);

/* The tree below dirfd (borrowed, not moved), into use, stopping once
 * bytes passes stop_bytes or entries stop_entries (0: never); each
 * directory to dir_fn (NULL: none). Returns 0; a failure inside the tree
 * is use->deep, not an error. */
int diskuse_measure(int dirfd, uint64_t stop_bytes, uint64_t stop_entries, diskuse_dir_fn *dir_fn,
                    void *ud, diskuse_t *use);

/* Whether use is over a cap of bytes or entries (0: no cap). */
bool diskuse_over(const diskuse_t *use, uint64_t cap_bytes, uint64_t cap_entries);

/* What use is, against its caps, for a player, one sentence without its
 * full stop ("They take 70.1 MB, over the 64 MB allowed", "They are at
 * least 4001 files and directories, over the 2000 allowed", ...): the
 * part that is over. */
void diskuse_say(const diskuse_t *use, uint64_t cap_bytes, uint64_t cap_entries, char *out,
                 size_t n);

#endif
