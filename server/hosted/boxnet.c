/* boxnet — the network namespace games without network share (boxnet.h). */
#include "boxnet.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Linux 6.12's Landlock scopes (ABI 6), newer than some -dev headers. */
#define BOXNET_LANDLOCK_SCOPE_ABI              6
#define BOXNET_LANDLOCK_SCOPE_ABSTRACT_UNIX    (1ULL << 0)
#define BOXNET_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

typedef struct {
    uint64_t handled_access_fs, handled_access_net, scoped;
} ruleset_attr_t; /* struct landlock_ruleset_attr as of ABI 6 */

static bool kernel_scopes(void)
{
    long abi =
        syscall(SYS_landlock_create_ruleset, NULL, 0, BOXNET_LANDLOCK_CREATE_RULESET_VERSION);
    return abi >= BOXNET_LANDLOCK_SCOPE_ABI;
}

int boxnet_scope_self(void)
{
    ruleset_attr_t attr = {0, 0, BOXNET_LANDLOCK_SCOPE_ABSTRACT_UNIX};
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (fd < 0)
        return -1;
    int r = (int)syscall(SYS_landlock_restrict_self, fd, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

/* Writes text into /proc/self/NAME, whole. */
static int write_self(const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

int boxnet_map_ids(uid_t uid, gid_t gid)
{
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if (write_self("uid_map", map) < 0 || write_self("setgroups", "deny") < 0)
        return -1;
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    return write_self("gid_map", map);
}

/* In the maker, a fork of the spawner: as uid/gid, a user namespace of
 * that id alone and in it a network namespace (loopback down). */
static int make_namespaces(uid_t uid, gid_t gid)
{
    if (geteuid() != uid && (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0))
        return -1;
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
        return -1;
    if (boxnet_map_ids(uid, gid) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return -1;
    return 0;
}

/* The maker's end: its namespaces' descriptors sent to the spawner, or
 * its errno. */
static void __attribute__((noreturn)) maker_run(int sock, uid_t uid, gid_t gid)
{
    int fds[2] = {-1, -1}, err = 0;
    if (make_namespaces(uid, gid) < 0 ||
        (fds[0] = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) < 0 ||
        (fds[1] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
        err = errno ? errno : EPERM;
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } u;
    struct iovec iov = {&err, sizeof err};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (!err) {
        mh.msg_control = u.buf;
        mh.msg_controllen = sizeof u.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof fds);
        memcpy(CMSG_DATA(c), fds, sizeof fds);
    }
    _exit(sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? 1 : 0);
}

/* The maker's answer: its two descriptors, or -1 with errno. */
static int maker_answer(int sock, int fds[2])
{
    int err = 0;
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {&err, sizeof err};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    struct cmsghdr *c = n == (ssize_t)sizeof err ? CMSG_FIRSTHDR(&mh) : NULL;
    if (c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
        memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
        return 0;
    }
    errno = n == (ssize_t)sizeof err && err ? err : EPROTO;
    return -1;
}

/* Makes uid/gid's namespaces in a child of this process, which sends
 * their descriptors back and exits. */
static int make(uid_t uid, gid_t gid, int fds[2])
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        maker_run(sv[1], uid, gid);
    }
    int saved = errno;
    close(sv[1]);
    int r = pid < 0 ? -1 : maker_answer(sv[0], fds);
    saved = pid < 0 ? saved : errno;
    close(sv[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    errno = saved;
    return r;
}

static boxnet_t *boxnet_find(boxnets_t *b, uid_t uid, gid_t gid)
{
    for (int i = 0; i < b->n; i++)
        if (b->v[i].uid == uid && b->v[i].gid == gid)
            return &b->v[i];
    return NULL;
}

int boxnet_get(boxnets_t *b, uid_t uid, gid_t gid, int *userns, int *netns, char *err,
               size_t errlen)
{
    if (b->scope < 0)
        b->scope = kernel_scopes();
    if (!b->scope)
        return 1;
    boxnet_t *x = boxnet_find(b, uid, gid);
    if (!x) {
        int fds[2];
        if (b->n == b->cap) {
            int cap = b->cap ? b->cap * 2 : 4;
            boxnet_t *v = realloc(b->v, sizeof *v * (size_t)cap);
            if (!v)
                return snprintf(err, errlen, "out of memory"), -1;
            b->v = v;
            b->cap = cap;
        }
        if (make(uid, gid, fds) < 0)
            return snprintf(err, errlen, "the games' network namespace: %s", strerror(errno)), -1;
        x = &b->v[b->n++];
        *x = (boxnet_t){uid, gid, fds[0], fds[1]};
    }
    *userns = x->userns;
    *netns = x->netns;
    return 0;
}

void boxnet_free(boxnets_t *b)
{
    for (int i = 0; i < b->n; i++) {
        close(b->v[i].userns);
        close(b->v[i].netns);
    }
    free(b->v);
    *b = (boxnets_t){NULL, 0, 0, -1};
}
