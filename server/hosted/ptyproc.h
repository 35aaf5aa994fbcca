/* ptyproc — a terminal program run under a pseudo-terminal on a libuv
 * loop, its screen kept by a vtgrid (vtgrid.h).
 *
 * The program is exec'd directly (argv, no shell) with exactly the
 * environment given, in a new session whose controlling terminal is the
 * pty, with every other descriptor closed, default signal handling, the
 * given resource limits and, when the daemon runs as root and a user is
 * given, that user's uid, gid and groups. A failure before exec (chdir,
 * setuid, exec itself...) is reported by ptyproc_spawn with its reason.
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
 * input past that is dropped (counted in the stats). Reaping: a SIGCHLD handle (uv_signal) per process and
 * waitpid on that process's pid only, so statuses of children that libuv
 * (uv_spawn) or other code started are never taken.
 *
 * Lifetime: ptyproc_spawn returns an object; its callbacks run on the loop
 * until ptyproc_close. exited runs once, after the last output was read
 * and fed to the grid; the grid stays readable until ptyproc_close.
 * ptyproc_close stops all callbacks, SIGKILLs the process group if it is
 * still running, and frees the object once the child is reaped and the
 * handles are closed (the loop must keep running for that). */
#ifndef WARREN_PTYPROC_H
#define WARREN_PTYPROC_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>
#include "vtgrid.h"

#define PTYPROC_READ_BUDGET   (16 * 1024) /* output bytes read per loop turn: one output call */
#define PTYPROC_INPUT_MAX     (16 * 1024) /* input bytes queued for a slow reader */
#define PTYPROC_GROUPS_MAX    64
#define PTYPROC_KILL_AFTER_MS 10000       /* default SIGHUP -> SIGKILL delay */
#define PTYPROC_RESUME_MS     25          /* output paused by the rate: polled again after */
#define PTYPROC_BURST_MIN     (16 * 1024) /* the rate's burst: a second's worth, */
#define PTYPROC_BURST_MAX     (64 * 1024) /* within these bounds */

typedef struct ptyproc ptyproc_t;

/* Whom the program runs as: resolve it once (ptyproc_user_lookup), when the
 * config is loaded, not at every spawn. */
typedef struct {
    uid_t uid;
    gid_t gid;
    gid_t groups[PTYPROC_GROUPS_MAX];
    int ngroups;
} ptyproc_user_t;

/* Resource limits for the program (soft = hard); 0 leaves one unchanged.
 * processes (RLIMIT_NPROC) counts all processes of the real uid, so it is
 * meaningful with a user switch; root ignores it. */
typedef struct {
    uint64_t cpu_seconds;  /* RLIMIT_CPU */
    uint64_t memory_bytes; /* RLIMIT_AS */
    uint64_t files;        /* RLIMIT_NOFILE */
    uint64_t processes;    /* RLIMIT_NPROC */
    uint64_t file_bytes;   /* RLIMIT_FSIZE */
} ptyproc_limits_t;

typedef struct {
    char *const *argv; /* argv[0] an absolute path; NULL-terminated; borrowed */
    char *const *envp; /* the whole environment; NULL-terminated; borrowed */
    const char *dir;   /* working directory (NULL: "/"), entered as the user */
    int w, h;          /* window size, VTGRID_MIN_W..SCREEN_MAX_W x 1..SCREEN_MAX_H */
    ptyproc_limits_t limits;
    const ptyproc_user_t *user; /* NULL: no switch; used only when euid is 0 */
    unsigned kill_after_ms;     /* after ptyproc_hangup; 0: PTYPROC_KILL_AFTER_MS */
} ptyproc_opts_t;

typedef struct {
    /* Output as read (already in the grid); bytes are borrowed. */
    void (*output)(ptyproc_t *p, const char *bytes, size_t len, void *user);
    /* The program ended: status as from waitpid (WIFEXITED...). */
    void (*exited)(ptyproc_t *p, int status, void *user);
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

/* Starts the program. Returns 0 and *out, or -1 with a reason in err. cbs
 * is copied; user is passed back to the callbacks. */
int ptyproc_spawn(uv_loop_t *loop, const ptyproc_opts_t *o, const ptyproc_cbs_t *cbs, void *user,
                  ptyproc_t **out, char *err, size_t errlen);
/* Queues input for the program. Returns the bytes accepted; the rest was
 * dropped (queue full, or the program has exited). Never blocks. */
size_t ptyproc_write(ptyproc_t *p, const void *bytes, size_t len);
/* New window size for the pty (TIOCSWINSZ: the program gets SIGWINCH) and
 * the grid. Returns 0, or -1 on a bad size. */
int ptyproc_resize(ptyproc_t *p, int w, int h);
/* Holds the program's output to bytes_per_s (0: no limit, the default),
 * with a burst of a second's worth clamped to PTYPROC_BURST_MIN..MAX; the
 * bucket starts full. */
void ptyproc_set_output_rate(ptyproc_t *p, uint64_t bytes_per_s);
/* SIGHUP (then SIGCONT) to the program's process group now; SIGKILL to it
 * after kill_after_ms if it has not exited by then. Repeats are no-ops. */
void ptyproc_hangup(ptyproc_t *p);
void ptyproc_close(ptyproc_t *p);

vtgrid_t *ptyproc_grid(ptyproc_t *p); /* borrowed; valid until ptyproc_close */
pid_t ptyproc_pid(const ptyproc_t *p);
bool ptyproc_running(const ptyproc_t *p); /* not yet reaped */
void ptyproc_stats(const ptyproc_t *p, ptyproc_stats_t *st);
/* Bytes this object holds on the daemon's side (its grid's libvterm state
 * included; the child process and the kernel's pty buffers not). */
size_t ptyproc_memory(const ptyproc_t *p);

/* Looks a system user up by name (getpwnam, getgrouplist: may block on
 * NSS). Returns 0, or -1 with err. */
int ptyproc_user_lookup(const char *name, ptyproc_user_t *u, char *err, size_t errlen);

#endif
