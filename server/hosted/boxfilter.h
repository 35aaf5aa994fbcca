/* boxfilter — the system call filter of a boxed game (docs/HOSTING.md,
 * "The system call filter"). The spawner compiles it once, when it
 * starts (again at a start, which it refuses meanwhile, if that failed),
 * and keeps it; each program loads that copy as its last step
 * before exec, with no new privileges, and the filter holds for it and
 * for all it starts. A call the filter refuses fails with EPERM (clone3
 * with ENOSYS, so the C library falls back to clone, whose flags the
 * filter can read): the program gets an errno, never a kill. Calls of
 * another ABI than the machine's own (i386's int 0x80 and x32 on
 * x86-64) are all refused. Internal to the spawner. */
#ifndef WARREN_BOXFILTER_H
#define WARREN_BOXFILTER_H
#include <linux/filter.h>
#include <stddef.h>

#define BOXFILTER_MAX 1024 /* instructions: the filter takes some 150 */

/* A compiled filter: no allocation of its own, copied with the struct. */
typedef struct {
    struct sock_filter code[BOXFILTER_MAX];
    unsigned short len;
} boxfilter_t;

/* The filter compiled into f: 0, or -1 with a sentence in err. */
int boxfilter_make(boxfilter_t *f, char *err, size_t errlen);

/* In the program, last before exec: no new privileges, then f. Allocates
 * nothing (the limits are set by now). 0, or -1 with errno. */
int boxfilter_load(const boxfilter_t *f);

#endif
