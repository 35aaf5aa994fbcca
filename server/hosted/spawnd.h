/* spawnd — the spawner process itself (spawner.h): its loop and programs
 * (spawnd.c) and the start of one program under a pty (spawnexec.c).
 * Internal to the spawner's files. */
#ifndef WARREN_SPAWND_H
#define WARREN_SPAWND_H
#include <stdbool.h>
#include <sys/types.h>
#include "boxfilter.h"
#include "spawner.h"

/* The spawner's life, in the forked child: serves requests on sock until
 * warrend goes away, then ends its programs and exits. */
void spawnd_run(const spawner_cfg_t *cfg, int sock) __attribute__((noreturn));

/* The start's own work on the player's files, run first in the child
 * with the spawner's rights, so a directory that hangs (a dead mount)
 * holds that child only, killed at start-timeout, never the spawner:
 * returns the player's directory, open, or -1 with err (at most
 * SPAWNEXEC_PREP_MAX bytes), the start's failure word for word. */
typedef int spawnexec_prep_fn(void *ud, char *err, size_t errlen);
#define SPAWNEXEC_PREP_MAX 320

typedef struct {
    char *const *argv, *const *envp; /* argv[0] absolute; borrowed */
    int dirfd;                       /* the working directory (when no prepare) */
    spawnexec_prep_fn *prepare;      /* NULL, or what gives the working directory */
    void *prep_ud;                   /* its argument (the child's copy of the caller's) */
    int prep_fd; /* what prepare needs open (games-dir), or -1: nothing else is */
    int w, h;    /* the pty's size */
    const gamecfg_limits_t *limits;
    const spawner_user_t *user; /* its ids are taken when user->sw */
    bool network;               /* false: namespaces of its own, no network */
    /* Without network, a mount namespace of its own too, where games_dir
     * (games-dir's real path) holds only game/dir, the player's own
     * directory (dirfd), and playground, when not "", is the player's
     * directory's playground/ (save/ in it, made as needed) with each
     * name of shared (one space between them) bound from the real one
     * read-only, each of shared_rw writable. */
    const char *games_dir, *game, *dir, *playground, *shared, *shared_rw;
    /* NULL, or a program and arguments run in the box before the program
     * (as it runs, but in playground; 3 seconds in all), once for each
     * lock file "NAME.0" in playground, NAME.0 added; each that fails is
     * a note on the report pipe (spawnexec_result) */
    char *const *recover;
    int userns, netns;         /* without network: the games' shared ones (boxnet.h), or -1 */
    const boxfilter_t *filter; /* compiled once by the spawner; NULL or empty: refused */
} spawnexec_t;

/* Opens a pty and starts the program on it, under x->filter (loaded by
 * the program last before exec; without one it does not start): returns its pid with *master
 * (the pty's master, non-blocking, close-on-exec) and *report (the read
 * end of the child's report pipe, the same), or -1 with err. The child
 * runs on meanwhile: spawnexec_result says, once *report is readable,
 * whether it exec'd. Never runs a program as uid 0 when this process is
 * root. */
pid_t spawnexec_start(const spawnexec_t *x, int *master, int *report, char *err, size_t errlen);

/* In a child: nothing open but stdio and keep's n descriptors (-1:
 * none; keep is sorted). */
void spawnexec_close_all_but(int *keep, size_t n);

/* Keeps, permitted and effective, only those of keep's n capabilities
 * this process has now, and drops every other: 0, or -1 (errno). */
int spawnd_caps_keep(const int *keep, size_t n);

/* What the child's report pipe says: 0 it exec'd, -1 it failed before
 * (err: the step and why; the child exits, unreaped), 1 not yet, 2 a
 * note on the way (err: what, *status: a wait status or -1), the start
 * going on (a recover that failed: the next read says more). */
int spawnexec_result(int report, char *err, size_t errlen, int *status);

#endif
