/* diskheld — the files a running game's processes hold open that no
 * directory names: removed while open, or made with O_TMPFILE (st_nlink
 * 0). Their blocks are the game's as much as its directory's are, but no
 * walk of the directory finds them, so a program could hold file-size
 * times its descriptors times its processes that way; the disk caps
 * count them with the directory (spawndisk.h).
 *
 * The game's processes are, in a box (a pid namespace of its own), every
 * process its /proc lists, reached through the box's pid 1's root (the
 * child of the process the spawner started, outside it): a listing in
 * pid order, so a process that forks and exits to move away from the
 * walk is found again further on. Without a box (network = host), the
 * process the spawner started and its descendants, as the kernel lists
 * each thread's children, and the spawner's children in its session
 * (its orphans: the spawner is their subreaper, and spares them while the
 * game runs), DISKHELD_ORPHANS_MAX a measurement at most; an orphan that
 * left the session is not seen, and lives until the spawner's next look
 * for orphans (spawnd.c: at a reap, or every 30 s). Each thread's descriptors are looked at (a
 * thread may have a table of its own), each through /proc's link with
 * stat(2) alone: nothing is opened, read or written through them. Each
 * file counts once (by device and inode), st_blocks * 512 as the walk
 * counts. A removed file may also be held by a memory mapping alone,
 * its descriptor closed: each process's maps lists those (" (deleted)",
 * with device and inode), each stat(2)ed through /proc's map_files link,
 * which the kernel follows only for CAP_CHECKPOINT_RESTORE (the caller
 * raises it): counted when it is the caller's effective user's (the
 * game's: a library an upgrade replaced is root's) and on the file
 * system dev (the games' directories': shared memory lies elsewhere).
 * Where the link cannot be followed, a removed file mapped on dev (as
 * maps gives its device) is unseen, whoever's it is.
 *
 * Bounded: DISKHELD_TASKS_MAX threads, DISKHELD_FDS_MAX descriptors,
 * DISKHELD_MAPS_MAX mappings and DISKHELD_FILES_MAX nameless files a
 * measurement; past any, or where a
 * process's descriptors cannot be read (a program that made itself
 * undumpable, outside a box), the game counts as over its caps (unseen),
 * as a directory that cannot be listed does. A process or descriptor
 * gone meanwhile is not counted. It runs with the caller's ids: they
 * must be allowed to read the game's /proc (the game's user, whose user
 * namespace holds the box). Internal to the spawner's files. */
#ifndef WARREN_DISKHELD_H
#define WARREN_DISKHELD_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define DISKHELD_TASKS_MAX   1024  /* threads of the game's looked at, a measurement */
#define DISKHELD_FDS_MAX     16384 /* descriptors looked at, a measurement */
#define DISKHELD_FILES_MAX   4096  /* nameless files counted, a measurement */
#define DISKHELD_MAPS_MAX    16384 /* mappings looked at, a measurement */
#define DISKHELD_ORPHANS_MAX 256   /* the games' orphans looked at, a batch */

typedef struct {
    uint64_t bytes, files; /* the nameless files' blocks (* 512), how many */
    bool unseen;           /* some could not be looked at, or too many: over */
} diskheld_t;

/* The files with no name the processes of the game started as pid hold
 * open or mapped (those mapped: on the file system dev), into out
 * (boxed: pid holds the box, its child being the box's pid 1; else the
 * game is pid, the nmore processes of more, its orphans, and their
 * descendants). Always fills out; 0, or -1 when pid is gone (out all
 * 0). */
int diskheld_measure(pid_t pid, bool boxed, const pid_t *more, int nmore, dev_t dev,
                     diskheld_t *out);

/* A child of the subreaper's that leads no session: left behind by the
 * game whose session it is in. */
typedef struct {
    pid_t pid, sid;
} diskheld_orphan_t;

/* The children of adopter (a subreaper: the spawner) that lead no
 * session, at most max of them, into out: how many. */
int diskheld_orphans(pid_t adopter, diskheld_orphan_t *out, int max);

#endif
