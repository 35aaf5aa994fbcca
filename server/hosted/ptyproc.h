/* ptyproc — a terminal program run under a pseudo-terminal on a libuv
 * loop, its screen kept by a vtgrid (vtgrid.h).
 *
 * The program is one of the config's hosted games, started for a player
 * by the spawner (spawner.h), which sets it up (its own session with the
 * pty as its terminal, nothing else open, default signals, the game's
 * limits, user and working directory) and passes the pty back. A failure
 * before exec (chdir, the user switch, exec itself...) is reported by
 * the started callback with its reason.
 *
 * Fairness: output is read at most PTYPROC_READ_BUDGET bytes per loop turn
 * and handed to the output callback at once (libvterm takes about half a
 * millisecond for 16 KB; the caller draws one frame of it), so a program
 * that floods cannot starve other handles on the loop; with an output rate set
 * (ptyproc_set_output_rate) a token bucket holds it to that many bytes a
 * second: out of tokens, the pty is not polled for output for
 * PTYPROC_RESUME_MS, so the program blocks on its own writes and every
 * other player's work runs meanwhile (one read, so one frame, per resume
 * while it floods). Input is written without blocking; up to
 * PTYPROC_INPUT_MAX bytes wait for a program that is slow to read, and
 * input past that is dropped (counted in the stats). Exits: the spawner
 * reaps the program and reports its wait status; the daemon has no
 * children to wait for.
 *
 * Starting is asynchronous: ptyproc_spawn returns at once with the object
 * starting (the spawner forks and execs meanwhile); started runs when the
 * program runs or could not start. Input written while it starts waits in
 * the input queue (the same cap), a resize meanwhile reaches the program
 * once it runs, and ptyproc_close meanwhile cancels the start.
 *
 * Lifetime: ptyproc_spawn returns an object; its callbacks run on the loop
 * until ptyproc_close. exited runs once, after the last output was read
 * and fed to the grid; the grid stays readable until ptyproc_close.
 * ptyproc_close stops all callbacks, has the spawner SIGKILL the process
 * group if it is still running, and frees the object once its handle is
 * closed (the loop must keep running for that). */
#ifndef WARREN_PTYPROC_H
#define WARREN_PTYPROC_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "spawner.h"
#include "vtgrid.h"

#define PTYPROC_READ_BUDGET (16 * 1024) /* output bytes read per loop turn: one output call */
#define PTYPROC_INPUT_MAX   (16 * 1024) /* input bytes queued for a slow reader */
#define PTYPROC_RESUME_MS   25          /* output paused by the rate: polled again after */
#define PTYPROC_BURST_MIN   (16 * 1024) /* the rate's burst: a second's worth, */
#define PTYPROC_BURST_MAX   (64 * 1024) /* within these bounds */

typedef struct ptyproc ptyproc_t;

/* Which game, for whom, in what window (spawner_spawn). */
typedef struct {
    const char *game; /* a [game ID] of the config */
    const char *name; /* the player's name in the game (%n) */
    const char *dir;  /* the account's game name (%u): its directory under games-dir/ID */
    int w, h;         /* window size, VTGRID_MIN_W..SCREEN_MAX_W x 1..SCREEN_MAX_H */
} ptyproc_opts_t;

typedef struct {
    /* Output as read (already in the grid); bytes are borrowed. */
    void (*output)(ptyproc_t *p, const char *bytes, size_t len, void *user);
    /* The program ended: status as from waitpid (WIFEXITED...). */
    void (*exited)(ptyproc_t *p, int status, void *user);
    /* The start's end: err NULL when the program runs, else why it does
     * not (the spawner's reason, a timeout); then no other callback comes. */
    void (*started)(ptyproc_t *p, const char *err, void *user);
    /* The spawner hung the program up or killed it on its own (its
     * player's directory over the disk cap): by how much, a sentence for
     * the player, borrowed; its exit follows. NULL: not told. */
    void (*stopped)(ptyproc_t *p, const char *why, void *user);
} ptyproc_cbs_t;

typedef struct {
    uint64_t bytes_out;     /* read from the program */
    uint64_t bytes_in;      /* written to the program */
    uint64_t bytes_dropped; /* input dropped: queue full or the pty gone */
    size_t queued;          /* input waiting */
    uint64_t last_output;   /* uv_now() of the last output; spawn time at first */
    uint64_t last_input;    /* uv_now() of the last ptyproc_write */
    uint64_t pauses;        /* times reading was paused by the output rate */
} ptyproc_stats_t;

/* Starts the program through sp (borrowed; it outlives the object)
 * without waiting for it. Returns 0 and *out (started comes later), or -1
 * with a reason in err (bad options, SPAWNER_STARTING_MAX games starting,
 * the spawner gone). cbs is copied; user is
 * passed back to the callbacks. */
int ptyproc_spawn(uv_loop_t *loop, spawner_t *sp, const ptyproc_opts_t *o, const ptyproc_cbs_t *cbs,
                  void *user, ptyproc_t **out, char *err, size_t errlen);
/* Queues input for the program. Returns the bytes accepted; the rest was
 * dropped (queue full, or the program has exited). Never blocks. */
size_t ptyproc_write(ptyproc_t *p, const void *bytes, size_t len);
/* New window size for the grid at once, and for the pty (TIOCSWINSZ: the
 * program gets SIGWINCH) at most once every PTYPROC_WINCH_MS, the newest
 * of those that came meanwhile (Crawl aborts on a shrink and a grow close
 * together). Returns 0, or -1 on a bad size. */
#define PTYPROC_WINCH_MS 250
int ptyproc_resize(ptyproc_t *p, int w, int h);
/* Holds the program's output to bytes_per_s (0: no limit, the default),
 * with a burst of a second's worth clamped to PTYPROC_BURST_MIN..MAX; the
 * bucket starts full. */
void ptyproc_set_output_rate(ptyproc_t *p, uint64_t bytes_per_s);
/* SIGHUP (then SIGCONT) to the program's process group now (while it
 * starts: as soon as it runs); SIGKILL to it after the game's
 * hangup-timeout if it has not exited by then (the spawner keeps that
 * time). Repeats are no-ops. */
void ptyproc_hangup(ptyproc_t *p);
void ptyproc_close(ptyproc_t *p);

vtgrid_t *ptyproc_grid(ptyproc_t *p); /* borrowed; valid until ptyproc_close */
pid_t ptyproc_pid(const ptyproc_t *p);
bool ptyproc_running(const ptyproc_t *p);  /* started and not yet reaped */
bool ptyproc_starting(const ptyproc_t *p); /* waiting for the spawner */
void ptyproc_stats(const ptyproc_t *p, ptyproc_stats_t *st);
/* Bytes this object holds on the daemon's side (its grid's libvterm state
 * included; the child process and the kernel's pty buffers not): what
 * tests/tools/hosted_bench reports per game. The input queue counts only
 * while input waits: it exists only then. */
size_t ptyproc_memory(const ptyproc_t *p);

#endif
