/* diskheld — the nameless files a game's processes hold open
 * (diskheld.h). */
#include "diskheld.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#define DIR_OPEN     (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define CHILDREN_MAX 4096             /* bytes of one thread's children list read */
#define MAPS_LINE    (PATH_MAX + 256) /* a line of maps: its fields and a path */
#define DELETED      " (deleted)"     /* what maps adds to a removed file's path */

typedef struct {
    dev_t dev;
    ino_t ino;
    uint64_t bytes;
} held_file_t;

typedef struct {
    int tasks, fds, nfiles, maps;
    bool unseen;
    dev_t dev;                       /* the file system whose removed files a mapping may hold */
    held_file_t *files;              /* DISKHELD_FILES_MAX */
    pid_t queue[DISKHELD_TASKS_MAX]; /* without a box: the processes still to look at */
    int nqueue;
    char line[MAPS_LINE]; /* the line of a process's maps read so far */
} walk_t;

static bool number(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* A look at /proc that failed: a thread or descriptor gone meanwhile
 * counts nothing; one the kernel keeps from us is unseen. */
static void failed(walk_t *w)
{
    if (errno != ENOENT && errno != ESRCH)
        w->unseen = true;
}

static void held_add(walk_t *w, const struct stat *st)
{
    if (w->nfiles == DISKHELD_FILES_MAX) {
        w->unseen = true;
        return;
    }
    w->files[w->nfiles++] = (held_file_t){st->st_dev, st->st_ino, (uint64_t)st->st_blocks * 512u};
}

/* Whether the thread NAME below taskdir has ended (gone, a zombie, or
 * exiting with its memory let go, vsize 0): it holds no file, and its
 * /proc is root's, closed to the game's user. */
static bool ended(int taskdir, const char *name)
{
    char path[NAME_MAX + 16], text[512];
    snprintf(path, sizeof path, "%s/stat", name);
    int fd = openat(taskdir, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    const char *end = strrchr(text, ')'); /* the name may hold anything */
    char state;
    unsigned long vsize;
    if (n <= 0)
        return true;
    if (!end || sscanf(end + 1,
                       " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
                       "%*d %*u %lu",
                       &state, &vsize) != 2)
        return false;
    return state == 'Z' || state == 'X' || vsize == 0;
}

/* The listing of NAME/SUB below at (a /proc directory), or NULL with
 * errno the failure's. */
static DIR *listing(int at, const char *name, const char *sub)
{
    char path[NAME_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", name, sub);
    int fd = openat(at, path, DIR_OPEN);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir && fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return dir;
}

/* One thread's descriptors (NAME/fd below taskdir): each a stat through
 * its link, nothing opened. */
static void task_fds(walk_t *w, int taskdir, const char *name)
{
    DIR *dir = listing(taskdir, name, "fd");
    if (!dir) {
        if (!((errno == EACCES || errno == EPERM) && ended(taskdir, name)))
            failed(w);
        return;
    }
    struct dirent *e;
    while (!w->unseen && (e = readdir(dir))) {
        struct stat st;
        if (!number(e->d_name))
            continue;
        if (++w->fds > DISKHELD_FDS_MAX) {
            w->unseen = true;
            break;
        }
        if (fstatat(dirfd(dir), e->d_name, &st, 0) < 0) {
            if (errno == EACCES || errno == EPERM) /* else gone, or its file failed: not ours */
                w->unseen = true;
            continue;
        }
        if (S_ISREG(st.st_mode) && st.st_nlink == 0 && st.st_blocks > 0)
            held_add(w, &st);
    }
    closedir(dir);
}

/* A mapping (maps' line) of a removed file, of the process PID below
 * procfd: the file stat()ed through map_files (the game's user's, on
 * w->dev: a library an upgrade replaced is root's, a shared memory
 * mapping's file lies elsewhere). Where the kernel keeps map_files from
 * us (no CAP_CHECKPOINT_RESTORE) a removed file on w->dev is unseen. */
static void map_held(walk_t *w, int procfd, const char *pid, const char *line)
{
    unsigned long start, end, ino;
    unsigned maj, min;
    size_t len = strlen(line);
    if (len < sizeof DELETED || strcmp(line + len - (sizeof DELETED - 1), DELETED))
        return;
    if (sscanf(line, "%lx-%lx %*s %*x %x:%x %lu", &start, &end, &maj, &min, &ino) != 5) {
        w->unseen = true;
        return;
    }
    if (ino == 0) /* no file's */
        return;
    char path[NAME_MAX + 64];
    struct stat st;
    snprintf(path, sizeof path, "%s/map_files/%lx-%lx", pid, start, end);
    if (fstatat(procfd, path, &st, 0) == 0) {
        if (S_ISREG(st.st_mode) && st.st_nlink == 0 && st.st_blocks > 0 && st.st_dev == w->dev &&
            st.st_uid == geteuid())
            held_add(w, &st);
    } else if (errno != ENOENT && errno != ESRCH && makedev(maj, min) == w->dev) {
        w->unseen = true; /* else unmapped meanwhile, or its process gone: not ours */
    }
}

/* The process PID's mappings (its maps below procfd, one for all its
 * threads): each removed file's (map_held), DISKHELD_MAPS_MAX in all. */
static void process_maps(walk_t *w, int procfd, const char *pid)
{
    char path[NAME_MAX + 16], chunk[4096], *line = w->line;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/maps", pid);
    int fd = openat(procfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (!((errno == EACCES || errno == EPERM) && ended(procfd, pid)))
            failed(w);
        return;
    }
    ssize_t n = 0;
    while (!w->unseen && (n = read(fd, chunk, sizeof chunk)) > 0)
        for (ssize_t i = 0; i < n && !w->unseen; i++) {
            if (chunk[i] != '\n') {
                if (len == sizeof w->line - 1) /* longer than a path can make it */
                    w->unseen = true;
                else
                    line[len++] = chunk[i];
                continue;
            }
            line[len] = 0;
            len = 0;
            if (++w->maps > DISKHELD_MAPS_MAX)
                w->unseen = true;
            else
                map_held(w, procfd, pid, line);
        }
    if (n < 0)
        failed(w);
    close(fd);
}

/* One thread's children (NAME/children below taskdir) queued. */
static void task_children(walk_t *w, int taskdir, const char *name)
{
    char path[NAME_MAX + 16], text[CHILDREN_MAX + 1];
    snprintf(path, sizeof path, "%s/children", name);
    int fd = openat(taskdir, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        failed(w);
        return;
    }
    size_t len = 0;
    for (ssize_t r; len < CHILDREN_MAX && (r = read(fd, text + len, CHILDREN_MAX - len)) > 0;)
        len += (size_t)r;
    close(fd);
    text[len] = 0;
    if (len == CHILDREN_MAX) /* more than a game has */
        w->unseen = true;
    for (char *p = text, *end; !w->unseen && *p; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (w->nqueue == DISKHELD_TASKS_MAX)
            w->unseen = true;
        else
            w->queue[w->nqueue++] = (pid_t)v;
    }
}

/* One process (PID below procfd, a /proc): each thread's descriptors,
 * its mappings, and its children queued (kids). */
static void process(walk_t *w, int procfd, const char *pid, bool kids)
{
    DIR *dir = listing(procfd, pid, "task");
    if (!dir) {
        failed(w);
        return;
    }
    struct dirent *e;
    while (!w->unseen && (e = readdir(dir))) {
        if (!number(e->d_name))
            continue;
        if (++w->tasks > DISKHELD_TASKS_MAX) {
            w->unseen = true;
            break;
        }
        task_fds(w, dirfd(dir), e->d_name);
        if (kids)
            task_children(w, dirfd(dir), e->d_name);
    }
    closedir(dir);
    if (!w->unseen)
        process_maps(w, procfd, pid);
}

/* The first child of pid (the box's pid 1, of its holder), or 0. */
static pid_t first_child(pid_t pid)
{
    char path[64], text[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return (pid_t)atoi(text);
}

/* Whether the process pid has ended (ended()). */
static bool process_ended(pid_t pid)
{
    char name[16];
    snprintf(name, sizeof name, "%d", (int)pid);
    int procfd = open("/proc", DIR_OPEN);
    bool r = procfd >= 0 && ended(procfd, name);
    if (procfd >= 0)
        close(procfd);
    return r;
}

/* The box's /proc, through the root of a thread of inside (any: its
 * first may have ended while others go on), or -1. */
static int box_proc(pid_t inside)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)inside);
    DIR *tasks = opendir(path);
    int fd = -1;
    struct dirent *e;
    while (tasks && fd < 0 && (e = readdir(tasks)))
        if (number(e->d_name)) {
            snprintf(path, sizeof path, "/proc/%d/task/%.16s/root/proc", (int)inside, e->d_name);
            fd = open(path, DIR_OPEN);
        }
    if (tasks)
        closedir(tasks);
    struct statfs sf;
    if (fd >= 0 && (fstatfs(fd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The box's own /proc, its processes in pid order: each but its pid 1
 * (the spawner's reaper, which holds nothing of the game's), reached
 * through the root of a child of that pid 1 (a program's: the reaper's
 * own memory is the spawner's, closed to the game's user). -1 when the
 * box is gone; a box that is there but cannot be entered is unseen. */
static int walk_box(walk_t *w, pid_t holder)
{
    pid_t one = first_child(holder), inside = one > 0 ? first_child(one) : 0;
    int fd = inside > 0 ? box_proc(inside) : -1;
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir) {
        if (fd >= 0)
            close(fd);
        if (inside > 0 && first_child(holder) == one && !process_ended(inside))
            w->unseen = true; /* else the program ended: the box ends with it */
        return w->unseen ? 0 : -1;
    }
    struct dirent *e;
    while (!w->unseen && (e = readdir(dir)))
        if (number(e->d_name) && strcmp(e->d_name, "1"))
            process(w, dirfd(dir), e->d_name, false);
    closedir(dir);
    return first_child(holder) == one ? 0 : -1; /* the same box throughout */
}

/* The session of the process PID below procfd, or 0. */
static pid_t session_of(int procfd, pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "%d/stat", (int)pid);
    int fd = openat(procfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    const char *end = strrchr(text, ')'); /* the name may hold anything */
    int pp, pg, sid;
    char st;
    return end && sscanf(end + 1, " %c %d %d %d", &st, &pp, &pg, &sid) == 4 ? (pid_t)sid : 0;
}

int diskheld_orphans(pid_t adopter, diskheld_orphan_t *out, int max)
{
    char path[64], buf[4096], num[16];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)adopter, (int)adopter);
    int fd = open(path, O_RDONLY | O_CLOEXEC), procfd = open("/proc", DIR_OPEN), n = 0;
    size_t have = 0; /* digits of a pid cut by a read */
    for (ssize_t r; fd >= 0 && procfd >= 0 && n < max && (r = read(fd, buf, sizeof buf)) > 0;)
        for (ssize_t i = 0; i < r && n < max; i++) {
            if (buf[i] >= '0' && buf[i] <= '9' && have < sizeof num - 1) {
                num[have++] = buf[i];
                continue;
            }
            num[have] = 0;
            pid_t pid = have ? (pid_t)atoi(num) : 0, sid = pid ? session_of(procfd, pid) : 0;
            have = 0;
            if (sid > 0 && sid != pid) /* not a session's leader: a game's, left behind */
                out[n++] = (diskheld_orphan_t){pid, sid};
        }
    if (fd >= 0)
        close(fd);
    if (procfd >= 0)
        close(procfd);
    return n;
}

/* pid and more, and their descendants, breadth first, in the machine's
 * /proc. */
static int walk_tree(walk_t *w, pid_t pid, const pid_t *more, int nmore)
{
    int procfd = open("/proc", DIR_OPEN);
    if (procfd < 0)
        return w->unseen = true, 0;
    w->queue[w->nqueue++] = pid;
    for (int i = 0; i < nmore && w->nqueue < DISKHELD_TASKS_MAX; i++)
        w->queue[w->nqueue++] = more[i];
    for (int i = 0; i < w->nqueue && !w->unseen; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", (int)w->queue[i]);
        process(w, procfd, name, true);
    }
    close(procfd);
    return kill(pid, 0) == 0 || errno == EPERM ? 0 : -1;
}

static int by_inode(const void *a, const void *b)
{
    const held_file_t *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int diskheld_measure(pid_t pid, bool boxed, const pid_t *more, int nmore, dev_t dev,
                     diskheld_t *out)
{
    *out = (diskheld_t){0};
    walk_t *w = calloc(1, sizeof *w);
    held_file_t *files = calloc(DISKHELD_FILES_MAX, sizeof *files);
    if (!w || !files) {
        free(w);
        free(files);
        out->unseen = true;
        return 0;
    }
    w->files = files;
    w->dev = dev;
    int r = boxed ? walk_box(w, pid) : walk_tree(w, pid, more, nmore);
    qsort(files, (size_t)w->nfiles, sizeof *files, by_inode);
    for (int i = 0; r == 0 && i < w->nfiles; i++)
        if (i == 0 || by_inode(&files[i - 1], &files[i])) {
            out->bytes += files[i].bytes;
            out->files++;
        }
    out->unseen = r == 0 && w->unseen;
    free(files);
    free(w);
    return r;
}
