/* boxfilter — the system call filter of a boxed game (boxfilter.h). The
 * list and why each call is in it: docs/HOSTING.md. */
#include "boxfilter.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Refused with EPERM, by name (libseccomp's; a name unknown to it fails
 * the filter, a call the machine's ABI lacks is skipped). */
static const char *const REFUSED[] = {
    /* memory no cap counts (the memory cap is RLIMIT_AS: these grow
     * without a mapping, or pin kernel memory) */
    "memfd_create", "memfd_secret", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "io_setup", "mbind", "set_mempolicy", "set_mempolicy_home_node",
    "migrate_pages", "move_pages",
    /* the kernel's larger attack surface, of no use to a terminal game */
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "fanotify_init",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "kcmp", "ptrace",
    "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "modify_ldt", "iopl",
    "ioperm", "uselib", "ustat", "sysfs", "_sysctl", "syslog", "vhangup", "quotactl", "quotactl_fd",
    "nfsservctl",
    /* the box, made before the filter is loaded: no mount, no namespace */
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "unshare", "setns",
    /* the machine's, never a game's */
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "acct",
    "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname"};
#define NREFUSED (sizeof REFUSED / sizeof REFUSED[0])

/* clone's flags that make a namespace (CLONE_NEWTIME is clone's exit
 * signal byte: only unshare and clone3 take it, both refused). */
static const unsigned long CLONE_NS[] = {CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                         CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET};
#define NCLONE_NS (sizeof CLONE_NS / sizeof CLONE_NS[0])

static int rules_by_name(scmp_filter_ctx ctx, const char **bad)
{
    for (size_t i = 0; i < NREFUSED; i++) {
        int nr = seccomp_syscall_resolve_name(REFUSED[i]);
        if (nr == __NR_SCMP_ERROR) {
            *bad = REFUSED[i];
            return -ENOSYS;
        }
        int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        if (r < 0) {
            *bad = REFUSED[i];
            return r;
        }
    }
    return 0;
}

/* Unix sockets, the one kind that carries descriptors (SCM_RIGHTS): a
 * file removed while open, sent into a socket's queue and closed, is
 * held by no process, so the disk cap's measurer would not see it. */
static int rules_unix_sockets(scmp_filter_ctx ctx, const char **bad)
{
    int r;
    *bad = "socket";
    if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                              SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX))) < 0)
        return r;
    *bad = "socketpair";
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
                            SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX));
}

/* The calls refused by their arguments: personality but for the query
 * of the current one, clone making a namespace; clone3 (whose flags are
 * in memory a filter cannot read) with ENOSYS; a Unix socket. */
static int rules_by_argument(scmp_filter_ctx ctx, const char **bad)
{
    int r = rules_unix_sockets(ctx, bad);
    if (r < 0)
        return r;
    *bad = "personality";
    if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
                              SCMP_A0_32(SCMP_CMP_NE, 0xffffffffu))) < 0)
        return r;
    *bad = "clone";
    for (size_t i = 0; i < NCLONE_NS; i++)
        if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NS[i], CLONE_NS[i]))) < 0)
            return r;
    *bad = "clone3";
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
}

/* ctx's program read back into f through a pipe (libseccomp 2.5 writes
 * it to a descriptor only): 0, or -1 with errno. */
static int export_into(scmp_filter_ctx ctx, boxfilter_t *f)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    int r = seccomp_export_bpf(ctx, p[1]);
    close(p[1]);
    ssize_t n = r < 0 ? (errno = -r, -1) : read(p[0], f->code, sizeof f->code);
    char more;
    int saved = errno;
    if (n > 0 && read(p[0], &more, 1) > 0) /* longer than BOXFILTER_MAX */
        n = -1, saved = E2BIG;
    close(p[0]);
    if (n <= 0 || n % (ssize_t)sizeof f->code[0]) {
        errno = n < 0 ? saved : EINVAL;
        return -1;
    }
    f->len = (unsigned short)(n / (ssize_t)sizeof f->code[0]);
    return 0;
}

int boxfilter_make(boxfilter_t *f, char *err, size_t errlen)
{
    const char *bad = "the default";
    f->len = 0;
    /* the level of the kernel's API told, not probed: libseccomp would
     * probe with the seccomp call, which the unit's SystemCallFilter does
     * not hold (a kill); the filter needs nothing past level 1, and it is
     * exported, never loaded, here */
    if (seccomp_api_set(1) < 0) {
        snprintf(err, errlen, "system call filter: libseccomp refused its API level");
        return -1;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(err, errlen, "system call filter: libseccomp could not start");
        return -1;
    }
    /* another ABI's calls (int 0x80, x32) would pass every rule below */
    int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
    if (r == 0 && (r = rules_by_name(ctx, &bad)) == 0)
        r = rules_by_argument(ctx, &bad);
    if (r < 0)
        snprintf(err, errlen, "system call filter: %s: %s", bad, strerror(-r));
    else if (export_into(ctx, f) < 0)
        snprintf(err, errlen, "system call filter: export: %s", strerror(errno)), r = -1;
    seccomp_release(ctx);
    return r < 0 ? -1 : 0;
}

int boxfilter_load(const boxfilter_t *f)
{
    struct sock_fprog prog = {f->len, (struct sock_filter *)f->code};
    if (f->len == 0)
        return errno = EINVAL, -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
