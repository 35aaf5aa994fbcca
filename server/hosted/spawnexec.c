/* spawnexec — a program under a new pty, set up as spawner.h says. Runs in
 * the spawner, which is single-threaded: the child may call anything, but
 * keeps to the few calls it needs.
 *
 * Without network (the default) a game is three processes: the one the
 * spawner started and tracks (the holder: outside the game's pid
 * namespace, in its own session and group), its child, pid 1 of the
 * game's pid namespace (the reaper: same group), and the program, pid 2
 * (its own session, the pty its terminal). The reaper passes the
 * signals the spawner sends the group on to the program's group, reaps
 * what ends in the namespace and, when the program ends, gives the
 * holder its wait status and exits: the kernel then kills whatever is
 * left in the namespace. The holder ends as the program did (pid 1 of a
 * namespace cannot die of most signals: the holder can), so the exit
 * report reads as without namespaces. Neither execs: they are forks of
 * the spawner, dumpable no longer, with nothing open but a pipe.
 *
 * The game also has a mount namespace of its own, made by the holder with
 * the pid namespace: games-dir is a small read-only tmpfs there with the
 * player's directory alone bound into it (and the player's playground/
 * over the section's playground, the shared names of the real one bound
 * back into it, read-only unless shared writable), the machine's scratch
 * directories (/tmp, /var/tmp, /dev/shm, /run/lock, ...) each covered by an empty
 * read-only tmpfs, and the reaper mounts a /proc of the game's pid
 * namespace, where it sets the game's user namespace's limit of user
 * namespaces made inside it to 0 (so the program can make no mount of its
 * own). Each step that fails refuses the start, named. Before it forks
 * the program, the reaper runs the section's recover (when given) on each
 * lock file a game cut off left in the playground. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "boxfilter.h"
#include "boxnet.h"
#include "spawnd.h"

/* What failed in the child before exec, sent back through a pipe. */
typedef enum {
    STEP_TTY,
    STEP_LIMITS,
    STEP_USER,
    STEP_NET,
    STEP_PID,
    STEP_IPC,
    STEP_MOUNT,
    STEP_PLAYGROUND,
    STEP_SHARED,
    STEP_SHARED_RO,
    STEP_SCRATCH,
    STEP_PROC,
    STEP_NESTING,
    STEP_FORK,
    STEP_CHDIR,
    STEP_FILTER,
    STEP_EXEC,
    STEP_PREPARE, /* its text says all */
    STEP_NOTE     /* not a failure: a word for warrend's log (err: a wait status), then more */
} step_t;
static const char *const STEP_NAMES[] = {"terminal setup",
                                         "resource limits",
                                         "user switch",
                                         "network cut",
                                         "pid namespace",
                                         "ipc namespace",
                                         "mount namespace",
                                         "playground mount",
                                         "playground shared",
                                         "playground shared read-only",
                                         "scratch directories",
                                         "proc mount",
                                         "namespace limit",
                                         "fork",
                                         "chdir",
                                         "system call filter",
                                         "exec",
                                         "the player's files",
                                         "a note"};

/* One write, below PIPE_BUF: the parent reads it whole. */
typedef struct {
    int step, err;
    char text[SPAWNEXEC_PREP_MAX]; /* STEP_PREPARE's message */
} child_report_t;

/* Descriptors in the child: the pty on 0-2, then these (the shared
 * namespaces only until it joined them). */
#define FD_REPORT 3
#define FD_DIR    4
#define FD_USERNS 5
#define FD_NETNS  6
#define FD_LAST   FD_NETNS

static void __attribute__((noreturn)) child_fail(step_t step)
{
    child_report_t r = {(int)step, errno, ""};
    ssize_t n = write(FD_REPORT, &r, sizeof r);
    (void)n;
    _exit(127);
}

static int int_order(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

void spawnexec_close_all_but(int *keep, size_t n)
{
    unsigned from = 3;
    qsort(keep, n, sizeof *keep, int_order);
    for (size_t i = 0; i < n; i++) {
        if (keep[i] < (int)from)
            continue;
        if ((unsigned)keep[i] > from)
            close_range(from, (unsigned)keep[i] - 1, 0);
        from = (unsigned)keep[i] + 1;
    }
    close_range(from, ~0U, 0);
}

/* The caller's work on the player's files (spawnd.h: prepare), before
 * anything else (its log lines still go to the spawner's stderr), with
 * nothing of the spawner's open but what it needs: one that hangs holds
 * no other start's pty nor warrend's socket. Returns the directory it
 * opened, or the child ends with its message. */
static int child_prepare(const spawnexec_t *x, int slave, int report)
{
    child_report_t r = {STEP_PREPARE, 0, ""};
    int keep[] = {slave, report, x->userns, x->netns, x->prep_fd};
    spawnexec_close_all_but(keep, sizeof keep / sizeof keep[0]);
    int fd = x->prepare(x->prep_ud, r.text, sizeof r.text);
    if (fd >= 0)
        return fd;
    ssize_t n = write(report, &r, sizeof r);
    (void)n;
    _exit(127);
}

static void child_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            sigaction(s, &dfl, NULL); /* ignored ones would stay ignored across exec */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In a session of its own (with the pty as its terminal when ctty), the
 * pty on 0, 1 and 2, the report pipe on 3, the directory on 4, the
 * shared namespaces (when given) on 5 and 6, nothing else open. */
static void child_fds(int slave, int report, const spawnexec_t *x)
{
    if (setsid() < 0 || (x->network && ioctl(slave, TIOCSCTTY, 0) < 0))
        child_fail(STEP_TTY);
    int keep[] = {report, x->dirfd, x->userns, x->netns};
    for (int i = 0; i < 4; i++) /* above the last first, so the moves below cannot clobber them */
        if (keep[i] >= 0 && (keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, FD_LAST + 1)) < 0)
            child_fail(STEP_TTY);
    for (int fd = 0; fd < 3; fd++)
        if (dup2(slave, fd) < 0)
            child_fail(STEP_TTY);
    for (int i = 0; i < 4; i++)
        if (keep[i] >= 0 && dup3(keep[i], FD_REPORT + i, O_CLOEXEC) < 0)
            child_fail(STEP_TTY);
    if (close_range(FD_LAST + 1, ~0U, 0) < 0)
        for (int fd = FD_LAST + 1; fd < 65536; fd++)
            close(fd);
}

/* The limits but the address space's (child_memory sets it at the exec:
 * a sanitizer's build maps memory after any fork, which that limit would
 * refuse; the holder and the reaper are the spawner's own code). */
static void child_limits(const gamecfg_limits_t *l)
{
    const struct {
        int res;
        uint64_t v;
    } set[] = {{RLIMIT_CPU, l->cpu_seconds},
               {RLIMIT_NOFILE, l->files},
               {RLIMIT_NPROC, l->processes},
               {RLIMIT_FSIZE, l->file_bytes}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        struct rlimit r = {(rlim_t)set[i].v, (rlim_t)set[i].v};
        if (set[i].v && setrlimit(set[i].res, &r) < 0)
            child_fail(STEP_LIMITS);
    }
}

static void child_memory(const gamecfg_limits_t *l)
{
    struct rlimit r = {(rlim_t)l->memory_bytes, (rlim_t)l->memory_bytes};
    if (l->memory_bytes && setrlimit(RLIMIT_AS, &r) < 0)
        child_fail(STEP_LIMITS);
}

static void child_user(const spawner_user_t *u)
{
    if (u->uid == 0) { /* spawner_config refuses it; never reached */
        errno = EPERM;
        child_fail(STEP_USER);
    }
    if (setgroups((size_t)u->ngroups, u->groups) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
        child_fail(STEP_USER);
    if (setuid(0) == 0) { /* root must be gone for good */
        errno = EPERM;
        child_fail(STEP_USER);
    }
}

/* The user namespace the game makes for itself: given, the games'
 * shared one (boxnet.h) is joined first (its user owns it: it has every
 * right in it until it makes its own inside), and its network namespace
 * with it; the one made here holds nothing but the game's own. */
static int enter_namespaces(bool shared)
{
    if (!shared)
        return unshare(CLONE_NEWUSER | CLONE_NEWNET);
    int r = setns(FD_USERNS, CLONE_NEWUSER) < 0 || setns(FD_NETNS, CLONE_NEWNET) < 0 ||
                    unshare(CLONE_NEWUSER) < 0
                ? -1
                : 0;
    int saved = errno;
    close(FD_USERNS);
    close(FD_NETNS);
    errno = saved;
    return r;
}

/* No network, as the game's user: a user namespace where its ids are its
 * own (so it may make the rest without rights), and in it (or joined
 * with the games' shared one) a network namespace whose only device,
 * loopback, is down. With the shared one, abstract unix sockets made
 * outside the game are out of its reach. The ids it switched to left it
 * not dumpable, so its /proc files are root's: dumpable again until
 * exec, which sets it as for any program. */
static void child_no_network(const spawnexec_t *x)
{
    bool shared = x->netns >= 0;
    uid_t uid = getuid(); /* in the new user namespace: unmapped until written */
    gid_t gid = getgid();
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || enter_namespaces(shared) < 0)
        child_fail(STEP_NET);
    if (boxnet_map_ids(uid, gid) < 0 || (shared && boxnet_scope_self() < 0))
        child_fail(STEP_NET);
    /* the holder and the reaper keep the spawner's memory: no one traces
     * them (the program is dumpable again once it execs) */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        child_fail(STEP_NET);
}

/* ---- the program's pid namespace -------------------------------------------------------- */

/* The signals the reaper takes and what it passes on to the program's
 * group: the spawner's hangup and SIGCONT as they are; a SIGTERM (a
 * `kill` or `pkill -f` meant for warrend, whose command line the box's
 * processes share) as a hangup, on which a game saves (NetHack dies
 * unsaved of a SIGTERM); a SIGINT not at all (the terminal's ^C reaches
 * the program straight from the pty). */
static const struct {
    int sig, passed; /* passed 0: taken and dropped */
} FORWARDED[] = {{SIGHUP, SIGHUP}, {SIGCONT, SIGCONT}, {SIGTERM, SIGHUP}, {SIGINT, 0}};
#define NFORWARDED (sizeof FORWARDED / sizeof FORWARDED[0])

static int passed_on(int sig)
{
    for (size_t i = 0; i < NFORWARDED; i++)
        if (FORWARDED[i].sig == sig)
            return FORWARDED[i].passed;
    return 0;
}

static void on_forwarded(int sig)
{
    (void)sig; /* taken with sigwaitinfo: a handler only so pid 1 gets them */
}

/* The signals the reaper waits for: the forwarded ones and SIGCHLD. */
static void reaper_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaddset(set, FORWARDED[i].sig);
}

/* reaper_set in *set, blocked, each with a handler. */
static void reaper_signals(sigset_t *set)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_forwarded;
    reaper_set(set);
    sigprocmask(SIG_BLOCK, set, NULL);
    for (int s = 1; s < NSIG; s++)
        if (sigismember(set, s))
            sigaction(s, &sa, NULL);
}

/* Pid 1 of the game's namespace: reaps everything, passes signals on,
 * and when the program ends writes its status on statusfd and exits
 * (the kernel kills the rest of the namespace). */
static void __attribute__((noreturn)) reaper_run(pid_t game, int statusfd)
{
    sigset_t set;
    reaper_signals(&set); /* blocked since before the fork: none is lost */
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&set, &si);
        if (sig > 0 && sig != SIGCHLD) {
            if (passed_on(sig))
                kill(-game, passed_on(sig));
            continue;
        }
        int status;
        for (pid_t p; (p = waitpid(-1, &status, WNOHANG)) > 0;)
            if (p == game) {
                ssize_t n = write(statusfd, &status, sizeof status);
                _exit(n == (ssize_t)sizeof status ? 0 : 127);
            }
    }
}

/* Ends as status says: the same exit code, or the same signal (without
 * the core dump flag: the holder dumps nothing). */
static void __attribute__((noreturn)) end_as(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* the program's core, if any, was its own */
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* The holder, once the reaper runs: nothing open but the status pipe,
 * every signal but SIGKILL ignored (the reaper passes the group's on; a
 * stray one must not end the holder, whose end ends the game unsaved);
 * ends as the program did, or as the reaper did when it died first. */
static void __attribute__((noreturn)) holder_run(pid_t reaper, int statusfd)
{
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD) /* SIGCHLD ignored: no zombie to wait */
            signal(s, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int status, rstatus = 0;
    ssize_t n;
    do
        n = read(statusfd, &status, sizeof status);
    while (n < 0 && errno == EINTR);
    while (waitpid(reaper, &rstatus, 0) < 0 && errno == EINTR)
        ;
    end_as(n == (ssize_t)sizeof status ? status : rstatus);
}

/* The program itself: its directory, its filter (boxfilter.h: the last
 * step, so nothing of the box's making needs a call it refuses), exec. */
static void __attribute__((noreturn)) child_exec(const spawnexec_t *x, const boxfilter_t *f)
{
    if (fchdir(FD_DIR) < 0) /* as the user: its own directory */
        child_fail(STEP_CHDIR);
    child_memory(x->limits);
    if (boxfilter_load(f) < 0)
        child_fail(STEP_FILTER);
    execve(x->argv[0], x->argv, x->envp);
    child_fail(STEP_EXEC);
}

/* ---- a game cut off, recovered before the next start ------------------------------------- */

#define RECOVER_ARGS_MAX  32        /* recover's argv, the lock file's name and NULL included */
#define RECOVER_LOCKS_MAX 4         /* lock files tried before one start */
#define RECOVER_NAME_MAX  256       /* bytes in a lock file's name, NUL included */
#define RECOVER_BUDGET_MS 3000      /* for all of them: start-timeout is 8 s by default */
#define RECOVER_TICK_NS   10000000L /* how often the reaper looks whether recover ended */

/* Whether name in dir is a lock file recover takes: "NAME.0", a regular
 * file, its first byte a letter or digit (never read as an option). */
static bool recover_lock(int dir, const char *name)
{
    size_t len = strlen(name);
    struct stat st;
    if (len < 3 || len >= RECOVER_NAME_MAX || strcmp(name + len - 2, ".0") != 0 ||
        !isalnum((unsigned char)name[0]))
        return false;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* The lock files in the playground (as the box sees it), RECOVER_LOCKS_MAX
 * at most, into names; returns how many. */
static int recover_locks(const char *playground, char names[][RECOVER_NAME_MAX])
{
    DIR *d = opendir(playground);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; n < RECOVER_LOCKS_MAX && (e = readdir(d));)
        if (recover_lock(dirfd(d), e->d_name))
            snprintf(names[n++], RECOVER_NAME_MAX, "%s", e->d_name);
    closedir(d);
    return n;
}

/* recover on name, as the program runs (its memory limit, its filter,
 * the pty its output) but in the playground, where name is. Execs, or
 * exits 127. */
static void __attribute__((noreturn))
recover_exec(const spawnexec_t *x, const boxfilter_t *f, const char *name)
{
    char *argv[RECOVER_ARGS_MAX];
    size_t n = 0;
    for (; x->recover[n]; n++)
        if (n >= RECOVER_ARGS_MAX - 2)
            _exit(127);
        else
            argv[n] = x->recover[n];
    argv[n++] = (char *)name;
    argv[n] = NULL;
    child_signals();
    if (chdir(x->playground) < 0)
        _exit(127);
    struct rlimit r = {(rlim_t)x->limits->memory_bytes, (rlim_t)x->limits->memory_bytes};
    if ((x->limits->memory_bytes && setrlimit(RLIMIT_AS, &r) < 0) || boxfilter_load(f) < 0)
        _exit(127);
    execve(argv[0], argv, x->envp);
    _exit(127);
}

/* Runs recover on the lock file name, killed when still running at
 * deadline (ms of CLOCK_MONOTONIC); 0 when it exited 0. *status: its
 * wait status (-1: it could not be forked), *late: killed at deadline. */
static int recover_run(const spawnexec_t *x, const boxfilter_t *f, const char *name, long deadline,
                       int *status, bool *late)
{
    *status = -1;
    *late = false;
    pid_t p = fork();
    if (p < 0)
        return -1;
    if (p == 0)
        recover_exec(x, f, name);
    const struct timespec tick = {0, RECOVER_TICK_NS};
    for (;;) {
        pid_t r = waitpid(p, status, WNOHANG);
        if (r == p)
            return WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ? 0 : -1;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((r < 0 && errno != EINTR) || now.tv_sec * 1000 + now.tv_nsec / 1000000 >= deadline)
            break;
        nanosleep(&tick, NULL);
    }
    *late = true;
    kill(p, SIGKILL);
    while (waitpid(p, status, 0) < 0 && errno == EINTR)
        ;
    return -1;
}

#define RECOVER_FAILED                                                              \
    "\r\nYour last game, cut off, could not be recovered: the game may find it in " \
    "progress.\r\n"

/* A recover that failed on name, told to the spawner on the report pipe
 * (STEP_NOTE, the wait status in err: -1 when it never ran), which tells
 * warrend's log; the start goes on. */
static void recover_note(const char *name, int status, bool late)
{
    child_report_t r = {(int)STEP_NOTE, status, ""};
    if (status == -1)
        snprintf(r.text, sizeof r.text, "recover on %s could not start", name);
    else if (late)
        snprintf(r.text, sizeof r.text, "recover on %s ran past %d ms: killed", name,
                 RECOVER_BUDGET_MS);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        snprintf(r.text, sizeof r.text, "recover on %s exited 0 but left it in place", name);
    else if (WIFEXITED(status))
        snprintf(r.text, sizeof r.text, "recover on %s exited with status %d", name,
                 WEXITSTATUS(status));
    else
        snprintf(r.text, sizeof r.text, "recover on %s was killed by signal %d", name,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ssize_t n = write(FD_REPORT, &r, sizeof r); /* below PIPE_BUF: whole, or not at all */
    (void)n;
}

/* Before the program starts: each lock file a game cut off left in the
 * playground (a crash, a kill, a copy restored from another node) turned
 * back into a save by recover, which removes it. One it leaves (it
 * failed, or ran out of time) is written on the pty for the player, and
 * said on the report pipe for warrend's log. */
static void reaper_recover(const spawnexec_t *x, const boxfilter_t *f)
{
    char names[RECOVER_LOCKS_MAX][RECOVER_NAME_MAX];
    int n = recover_locks(x->playground, names);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long deadline = now.tv_sec * 1000 + now.tv_nsec / 1000000 + RECOVER_BUDGET_MS;
    bool failed = false;
    int dir = open(x->playground, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; i < n; i++) {
        struct stat st;
        int status;
        bool late;
        if (recover_run(x, f, names[i], deadline, &status, &late) < 0 ||
            (dir >= 0 && fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)) {
            failed = true;
            recover_note(names[i], status, late);
        }
    }
    if (dir >= 0)
        close(dir);
    if (failed) { /* warrend shows it with the program's first output, which may draw over it */
        ssize_t w = write(1, RECOVER_FAILED, sizeof RECOVER_FAILED - 1);
        (void)w;
    }
}

/* In the reaper, pid 1: the program as pid 2, in a session of its own
 * with the pty as its terminal; then reaping. */
static void __attribute__((noreturn))
reaper_start(const spawnexec_t *x, const boxfilter_t *f, int statusfd)
{
    if (x->recover && x->playground && x->playground[0])
        reaper_recover(x, f);
    pid_t game = fork();
    if (game < 0)
        child_fail(STEP_FORK);
    if (game == 0) {
        close(statusfd);
        child_signals();
        if (setsid() < 0 || ioctl(0, TIOCSCTTY, 0) < 0)
            child_fail(STEP_TTY);
        child_exec(x, f);
    }
    close_range(0, FD_DIR, 0); /* the pty, the report pipe, the directory: the program's */
    reaper_run(game, statusfd);
}

/* ---- the game's mount namespace ------------------------------------------------------ */

#define BOX_FS_OPTS  "size=64k,nr_inodes=64,mode=0711" /* the tmpfs over games-dir */
#define BOX_RO_OPTS  "size=4k,nr_inodes=8,mode=0755"   /* ... over a scratch directory */
#define BOX_FLAGS    (MS_NOSUID | MS_NODEV | MS_NOEXEC)
#define BOX_PATH_MAX 1024

/* Directory name in parent, made (mode) when missing, opened without
 * following a link; -1 on failure. */
static int box_subdir(int parent, const char *name, mode_t mode)
{
    if (mkdirat(parent, name, mode) < 0 && errno != EEXIST)
        return -1;
    return openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Binds the directory open on fd over path. */
static int bind_fd(int fd, const char *path)
{
    char src[32];
    snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
    return mount(src, path, NULL, MS_BIND, NULL);
}

/* The player's directory opened again in the new mount namespace (the
 * kernel binds only from its own mounts): by its path, the last part no
 * link, and the same directory as FD_DIR (the game's user cannot rename
 * in games-dir/ID). Returns its descriptor. */
static int box_own_dir(const spawnexec_t *x)
{
    char path[BOX_PATH_MAX];
    struct stat was, is;
    if (snprintf(path, sizeof path, "%s/%s/%s", x->games_dir, x->game, x->dir) >= (int)sizeof path)
        return errno = ENAMETOOLONG, -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &is) < 0 || fstat(FD_DIR, &was) < 0)
        return -1;
    if (was.st_dev != is.st_dev || was.st_ino != is.st_ino)
        return errno = ESTALE, -1;
    return fd;
}

/* ---- the playground ---- */

/* The next name of a playground-shared list (one space between names)
 * copied to name; returns what follows it, or NULL when none is left. */
static const char *next_name(const char *s, char *name, size_t cap)
{
    if (!s || !*s)
        return NULL;
    size_t len = strcspn(s, " ");
    snprintf(name, cap, "%.*s", (int)len, s);
    return s + len + (s[len] == ' ');
}

/* In mine, something to bind the real playground's name over: a
 * directory for a directory, else an empty file; never a link (one the
 * player left there of another kind refuses the start). */
static int box_placeholder(int real, int mine, const char *name)
{
    struct stat want, is;
    if (fstatat(real, name, &want, 0) < 0)
        return -1;
    bool dir = S_ISDIR(want.st_mode);
    int made = dir ? mkdirat(mine, name, 0700) : mknodat(mine, name, S_IFREG | 0600, 0);
    if ((made < 0 && errno != EEXIST) || fstatat(mine, name, &is, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (dir ? !S_ISDIR(is.st_mode) : !S_ISREG(is.st_mode))
        return errno = EEXIST, -1;
    return 0;
}

/* The real playground's name (real open on it from before it was
 * covered), a copy of its mount made read-only first when ro, moved over
 * the player's placeholder in pg (the playground, covered by the
 * player's): the placeholder is opened once, never through a link and
 * of the same kind, and the copy is read-only before anyone can see it,
 * so a link or rename the player's other program makes meanwhile in the
 * player's playground changes nothing (a step that fails sets ro_failed
 * when it was making it read-only). */
static int box_share(int real, int pg, const char *name, bool ro, bool *ro_failed)
{
    struct mount_attr rdonly = {.attr_set = MOUNT_ATTR_RDONLY};
    struct stat is, want;
    int tree = open_tree(real, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    int at = tree < 0 ? -1 : openat(pg, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int ret = at < 0 || fstat(tree, &want) < 0 || fstat(at, &is) < 0 ? -1 : 0;
    if (ret == 0 && (is.st_mode & S_IFMT) != (want.st_mode & S_IFMT))
        ret = -1, errno = EEXIST; /* not the placeholder: changed meanwhile */
    if (ret == 0 && ro && mount_setattr(tree, "", AT_EMPTY_PATH, &rdonly, sizeof rdonly) < 0)
        ret = -1, *ro_failed = true;
    if (ret == 0)
        ret = move_mount(tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
    int e = errno;
    if (at >= 0)
        close(at);
    if (tree >= 0)
        close(tree);
    errno = e;
    return ret;
}

/* The shared names of the real playground (real) bound over
 * placeholders in the player's (mine; pg, the playground covered by it,
 * when bind): read-only (x->shared) or writable (x->shared_rw). */
static void box_shared(const spawnexec_t *x, int real, int mine, int pg, bool bind)
{
    char name[GAMECFG_NAME_MAX + 1];
    const struct {
        const char *names;
        bool ro;
    } lists[] = {{x->shared, true}, {x->shared_rw, false}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (const char *s = lists[i].names, *rest; (rest = next_name(s, name, sizeof name));
             s = rest) {
            bool ro_failed = false;
            if (!bind && box_placeholder(real, mine, name) < 0)
                child_fail(STEP_SHARED);
            if (bind && box_share(real, pg, name, lists[i].ro, &ro_failed) < 0)
                child_fail(ro_failed ? STEP_SHARED_RO : STEP_SHARED);
        }
}

/* The player's playground/ (made as the game's user, never through a
 * link, save/ in it) over the section's playground, each shared name of
 * the real one bound back over a placeholder (read-only unless the
 * section shares it writable): the player's game sees its own saves,
 * level, lock and score files alone, and the files all games share. */
static void box_playground(const spawnexec_t *x, int own)
{
    int real = open(x->playground, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int mine = real < 0 ? -1 : box_subdir(own, "playground", 0700);
    int save = mine < 0 ? -1 : box_subdir(mine, "save", 0700);
    if (save < 0)
        child_fail(STEP_PLAYGROUND);
    box_shared(x, real, mine, -1, false);
    int pg = bind_fd(mine, x->playground) < 0
                 ? -1
                 : open(x->playground, O_PATH | O_DIRECTORY | O_CLOEXEC); /* the bind */
    if (pg < 0)
        child_fail(STEP_PLAYGROUND);
    box_shared(x, real, mine, pg, true);
    close(pg);
    close(save);
    close(mine);
    close(real);
}

/* games-dir as a small read-only tmpfs holding game/dir alone, the
 * player's directory (own) bound there; FD_DIR then that bound directory
 * (so ".." from it is the tmpfs, not games-dir). */
static void box_games_dir(const spawnexec_t *x, int own)
{
    char at[BOX_PATH_MAX];
    if (mount("warren-box", x->games_dir, "tmpfs", BOX_FLAGS, BOX_FS_OPTS) < 0)
        child_fail(STEP_MOUNT);
    int root = open(x->games_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int game = root < 0 ? -1 : box_subdir(root, x->game, 0711);
    int dir = game < 0 ? -1 : box_subdir(game, x->dir, 0700);
    if (dir < 0 || snprintf(at, sizeof at, "/proc/self/fd/%d", dir) >= (int)sizeof at ||
        bind_fd(own, at) < 0 ||
        mount(NULL, x->games_dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | BOX_FLAGS, NULL) < 0)
        child_fail(STEP_MOUNT);
    close(dir); /* the tmpfs's directory, now under the bind */
    if (snprintf(at, sizeof at, "/proc/self/fd/%d/%s", game, x->dir) >= (int)sizeof at ||
        (dir = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        dup3(dir, FD_DIR, O_CLOEXEC) < 0)
        child_fail(STEP_MOUNT);
    close(dir);
    close(game);
    close(root);
}

/* The machine's directories anyone may write to (Debian's, mode 1777):
 * what a program left there would outlive its game and count against no
 * player's disk cap (and /dev/shm and /dev/mqueue are memory). */
static const char *const BOX_SCRATCH[] = {"/tmp",      "/var/tmp",    "/dev/shm",
                                          "/run/lock", "/dev/mqueue", "/var/crash"};

/* Whether dir is path or a directory above it (each ".." from path up to
 * "/" compared; no allocation: the limits are set by now). */
static bool box_holds(const struct stat *dir, const char *path)
{
    struct stat st, up;
    bool held = false, top = false;
    int fd = path && path[0] ? open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    for (int depth = 0; fd >= 0 && depth < 256 && !held && !top; depth++) {
        int parent = -1;
        if (fstat(fd, &st) == 0) {
            held = st.st_dev == dir->st_dev && st.st_ino == dir->st_ino;
            parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        top = parent >= 0 && fstat(parent, &up) == 0 && up.st_dev == st.st_dev &&
              up.st_ino == st.st_ino; /* "/": its ".." is itself */
        close(fd);
        fd = parent;
    }
    if (fd >= 0)
        close(fd);
    return held;
}

/* Each scratch directory there is covered by an empty read-only tmpfs,
 * but one that holds games-dir or the playground (a test's, say: its
 * covering would hide them) is left as it is. */
static void box_scratch(const spawnexec_t *x)
{
    for (size_t i = 0; i < sizeof BOX_SCRATCH / sizeof BOX_SCRATCH[0]; i++) {
        struct stat st;
        int r = stat(BOX_SCRATCH[i], &st);
        if (r < 0 && (errno == ENOENT || errno == ENOTDIR))
            continue; /* none here: nothing to cover */
        if (r < 0 || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR)))
            child_fail(STEP_SCRATCH);
        if (box_holds(&st, x->games_dir) || box_holds(&st, x->playground))
            continue;
        if (mount("warren-box", BOX_SCRATCH[i], "tmpfs", BOX_FLAGS | MS_RDONLY, BOX_RO_OPTS) < 0)
            child_fail(STEP_SCRATCH);
    }
}

/* In the holder, with every right in its user namespace: a mount
 * namespace of its own, nothing propagated either way, games-dir holding
 * only the player's directory and the playground the player's, the
 * scratch directories read-only and empty. */
static void child_mount_namespace(const spawnexec_t *x)
{
    int own;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || (own = box_own_dir(x)) < 0)
        child_fail(STEP_MOUNT);
    if (x->playground && x->playground[0])
        box_playground(x, own);
    box_games_dir(x, own);
    close(own);
    box_scratch(x);
}

/* In the reaper, pid 1: /proc shows its pid namespace, not the machine's
 * (the kernel allows it only where the proc it covers is fully visible:
 * nothing mounted over parts of it). */
static void reaper_proc(void)
{
    if (mount("proc", "/proc", "proc", BOX_FLAGS, NULL) < 0)
        child_fail(STEP_PROC);
}

/* In the reaper, with every right in the game's user namespace and its
 * /proc mounted: no user namespace may be made inside it (the limit is
 * the namespace's own), so the program cannot get the rights to mount a
 * tmpfs of its own, memory that no limit of its counts. */
static void reaper_no_nesting(void)
{
    int fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0\n", 2) != 2)
        child_fail(STEP_NESTING);
    close(fd);
}

/* Every capability gone (they were the user namespace's only): 0 or -1. */
static int drop_rights(void)
{
    cap_t none = cap_init();
    int ret = none && cap_set_proc(none) == 0 ? 0 : -1;
    if (none)
        cap_free(none);
    return ret;
}

/* In the holder, inside the user namespace: a pid, an IPC and a mount
 * namespace, the pid namespace's pid 1 (the IPC namespace's System V
 * segments and queues, and POSIX queues, end with the game's last
 * process). The rights the user namespace gave (in it
 * only) go once the reaper has mounted /proc: neither the holder nor the
 * reaper keeps any. */
static void __attribute__((noreturn))
child_pid_namespace(const spawnexec_t *x, const boxfilter_t *f)
{
    int status[2];
    if (unshare(CLONE_NEWPID) < 0 || pipe2(status, O_CLOEXEC) < 0)
        child_fail(STEP_PID);
    if (unshare(CLONE_NEWIPC) < 0) /* System V memory and queues: the game's, gone with it */
        child_fail(STEP_IPC);
    if (unshare(CLONE_NEWNS) < 0)
        child_fail(STEP_MOUNT);
    child_mount_namespace(x);
    sigset_t set;
    reaper_set(&set);
    sigprocmask(SIG_BLOCK, &set, NULL); /* until the reaper waits for them */
    pid_t reaper = fork();
    if (reaper < 0)
        child_fail(STEP_FORK);
    if (reaper == 0) {
        close(status[0]);
        reaper_proc();
        reaper_no_nesting();
        if (drop_rights() < 0)
            child_fail(STEP_PID);
        reaper_start(x, f, status[1]);
    }
    close(status[1]);
    if (drop_rights() < 0) {
        int e = errno;
        kill(reaper, SIGKILL); /* its namespace with it */
        errno = e;
        child_fail(STEP_PID);
    }
    close_range(0, FD_DIR, 0);
    holder_run(reaper, status[0]);
}

static void __attribute__((noreturn))
child_run(const spawnexec_t *given, const boxfilter_t *f, int slave, int report)
{
    spawnexec_t own = *given, *x = &own;
    child_signals();
    if (x->prepare)
        x->dirfd = child_prepare(x, slave, report);
    child_fds(slave, report, x);
    child_limits(x->limits); /* the holder's and the reaper's too: they count */
    if (x->user->sw)
        child_user(x->user);
    else if (geteuid() == 0) { /* a root spawner switches, always */
        errno = EPERM;
        child_fail(STEP_USER);
    }
    if (x->network)
        child_exec(x, f);
    child_no_network(x);
    child_pid_namespace(x, f);
}

/* ---- the parent's side ---------------------------------------------------------------- */

/* The report pipe once readable: 0 when the child exec'd (the pipe
 * closed), -1 with err when it reported the step that failed (or died
 * before exec without a word), 1 when there is nothing yet, 2 with a
 * note in err (*status its wait status) when it said something on the
 * way (more follows). */
int spawnexec_result(int report, char *err, size_t errlen, int *status)
{
    child_report_t r;
    ssize_t n;
    do
        n = read(report, &r, sizeof r);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 1;
    if (n == 0)
        return 0;
    r.text[sizeof r.text - 1] = 0;
    if (n == (ssize_t)sizeof r && r.step == STEP_NOTE) {
        snprintf(err, errlen, "%s", r.text[0] ? r.text : STEP_NAMES[r.step]);
        *status = r.err;
        return 2;
    }
    if (n == (ssize_t)sizeof r && r.step == STEP_PREPARE)
        snprintf(err, errlen, "%s", r.text[0] ? r.text : STEP_NAMES[r.step]);
    else if (n == (ssize_t)sizeof r && r.step >= 0 && r.step <= STEP_EXEC)
        snprintf(err, errlen, "%s: %s", STEP_NAMES[r.step], strerror(r.err));
    else
        snprintf(err, errlen, "the child failed before exec");
    return -1;
}

/* The pty (master non-blocking) and the report pipe (its read end
 * non-blocking), all close-on-exec. */
static int open_fds(const spawnexec_t *x, int *master, int *slave, int pipefd[2])
{
    struct winsize ws = {(unsigned short)x->h, (unsigned short)x->w, 0, 0};
    if (openpty(master, slave, NULL, NULL, &ws) < 0)
        return -1;
    if (fcntl(*master, F_SETFD, FD_CLOEXEC) < 0 || fcntl(*slave, F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(*master, F_SETFL, O_NONBLOCK) < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
        close(*master);
        close(*slave);
        return -1;
    }
    if (fcntl(pipefd[0], F_SETFL, O_NONBLOCK) < 0) {
        int saved = errno;
        close(*master);
        close(*slave);
        close(pipefd[0]);
        close(pipefd[1]);
        errno = saved;
        return -1;
    }
    return 0;
}

pid_t spawnexec_start(const spawnexec_t *x, int *master, int *report, char *err, size_t errlen)
{
    if (geteuid() == 0 && (!x->user->sw || x->user->uid == 0)) {
        snprintf(err, errlen, "a hosted program never runs as root");
        return -1;
    }
    if (!x->filter || x->filter->len == 0) { /* never unfiltered */
        snprintf(err, errlen, "system call filter: not built");
        return -1;
    }
    int slave, pipefd[2];
    if (open_fds(x, master, &slave, pipefd) < 0) {
        snprintf(err, errlen, "openpty: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        child_run(x, x->filter, slave, pipefd[1]);
    int fork_errno = errno;
    close(slave);
    close(pipefd[1]);
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(fork_errno));
        close(pipefd[0]);
        close(*master);
        return -1;
    }
    *report = pipefd[0];
    return pid;
}
