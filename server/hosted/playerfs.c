/* playerfs — directories and rc files through descriptors, as the game's
 * user (playerfs.h). */
#include "playerfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hostfiles.h"
#include "log.h"

#define DIR_OPEN  (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define FILE_OPEN (O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* ---- whose rights ------------------------------------------------------------------ */

/* The fs ids become u's (when switch_ids): what follows is checked as u. */
static int as_user(const playerfs_user_t *u)
{
    if (!u->switch_ids)
        return 0;
    setfsgid(u->gid);
    setfsuid(u->uid);
    if ((uid_t)setfsuid((uid_t)-1) == u->uid && (gid_t)setfsgid((gid_t)-1) == u->gid)
        return 0;
    setfsuid(geteuid());
    setfsgid(getegid());
    errno = EPERM;
    return -1;
}

static void as_self(const playerfs_user_t *u)
{
    if (!u->switch_ids)
        return;
    setfsuid(geteuid());
    setfsgid(getegid());
}

/* ---- directories ------------------------------------------------------------------- */

/* An open directory's mode and owner made right (the owner only by root). */
static int fix_dir(int fd, uid_t uid, gid_t gid, mode_t mode, bool root)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return errno = ENOTDIR, -1;
    if ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0)
        return -1;
    if (root && (st.st_uid != uid || st.st_gid != gid) && fchown(fd, uid, gid) < 0)
        return -1;
    return 0;
}

/* Directory name in parent, made (mode) when missing, opened without
 * following a link. Returns the descriptor or -1. */
static int open_subdir(int parent, const char *name, mode_t mode)
{
    int fd = openat(parent, name, DIR_OPEN);
    if (fd < 0 && errno == ENOENT) {
        if (mkdirat(parent, name, mode) < 0 && errno != EEXIST)
            return -1;
        fd = openat(parent, name, DIR_OPEN);
    }
    return fd;
}

/* mkdir -p of an operator's path: parents made 0711, the owner's. */
static int make_parents(const char *path, uid_t owner, gid_t group, bool root)
{
    char p[PLAYERFS_PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return errno = ENAMETOOLONG, -1;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char was = *s;
        *s = 0;
        int r = mkdir(p, 0711);
        if ((r == 0 && root && chown(p, owner, group) < 0) || (r < 0 && errno != EEXIST))
            return -1;
        if (!(*s = was))
            return 0;
    }
}

int playerfs_open(playerfs_t *fs, const char *games_dir, uid_t owner, gid_t group, char *err,
                  size_t errlen)
{
    memset(fs, 0, sizeof *fs);
    fs->games_fd = -1;
    fs->owner = owner;
    fs->group = group;
    fs->root = geteuid() == 0;
    char *real = NULL;
    if (make_parents(games_dir, owner, group, fs->root) < 0 ||
        (fs->games_fd = open(games_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        fix_dir(fs->games_fd, owner, group, 0711, fs->root) < 0 ||
        !(real = realpath(games_dir, NULL))) {
        snprintf(err, errlen, "games-dir %s: %s", games_dir, strerror(errno));
        free(real);
        playerfs_close(fs);
        return -1;
    }
    int n = snprintf(fs->path, sizeof fs->path, "%s", real);
    free(real);
    if (n >= (int)sizeof fs->path) {
        snprintf(err, errlen, "games-dir %s: the path is too long", games_dir);
        playerfs_close(fs);
        return -1;
    }
    return 0;
}

void playerfs_close(playerfs_t *fs)
{
    if (fs->games_fd >= 0)
        close(fs->games_fd);
    fs->games_fd = -1;
}

static int dir_fail(char *err, size_t errlen, const char *what)
{
    if (errno == ELOOP || errno == ENOTDIR)
        snprintf(err, errlen, "%s is a link or not a directory: not used", what);
    else
        snprintf(err, errlen, "%s: %s", what, strerror(errno));
    return -1;
}

int playerfs_path(const playerfs_t *fs, const char *game, const char *dir, char *path,
                  size_t pathlen, char *err, size_t errlen)
{
    int n = snprintf(path, pathlen, "%s/%s/%s", fs->path, game, dir);
    if (n < 0 || (size_t)n >= pathlen)
        return snprintf(err, errlen, "the player's directory's path is too long"), -1;
    return 0;
}

int playerfs_dir(playerfs_t *fs, const char *game, const char *dir, const playerfs_user_t *u,
                 char *path, size_t pathlen, char *err, size_t errlen)
{
    if (playerfs_path(fs, game, dir, path, pathlen, err, errlen) < 0)
        return -1;
    int gfd = open_subdir(fs->games_fd, game, 0711);
    if (gfd < 0 || fix_dir(gfd, fs->owner, fs->group, 0711, fs->root) < 0) {
        if (gfd >= 0)
            close(gfd);
        return dir_fail(err, errlen, "the game's directory");
    }
    /* games-dir/ID is not the player's: made here with the spawner's rights */
    int pfd = open_subdir(gfd, dir, 0700);
    close(gfd);
    uid_t uid = fs->root ? u->uid : geteuid();
    gid_t gid = fs->root ? u->gid : getegid();
    if (pfd < 0 || fix_dir(pfd, uid, gid, 0700, fs->root) < 0) {
        if (pfd >= 0)
            close(pfd);
        return dir_fail(err, errlen, "your directory for this game");
    }
    return pfd;
}

int playerfs_reachable(const char *path, const playerfs_user_t *u, char *err, size_t errlen)
{
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    as_self(u);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    snprintf(err, errlen,
             "uid %u cannot reach %s (%s): every directory above it must let that user pass "
             "(chmod o+x; see RUNNING.md)",
             (unsigned)u->uid, path, strerror(e));
    return -1;
}

/* ---- files ------------------------------------------------------------------------- */

/* Reads an open file whole: a regular file of at most cap bytes. 0, or
 * PLAYERFS_OVER (larger: grown since its size was looked at, say) or -1
 * with err. */
static int read_regular(int fd, char *out, size_t cap, size_t *len, const char *what, char *err,
                        size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file: not read", what);
        return -1;
    }
    size_t got = 0;
    while (got <= cap) { /* one byte past cap tells a file that grew */
        char extra;
        char *at = got < cap ? out + got : &extra;
        ssize_t r = read(fd, at, got < cap ? cap - got : 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s cannot be read: %s", what, strerror(errno));
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got > cap || (uint64_t)st.st_size > cap) {
        snprintf(err, errlen, "%s is larger than %zu bytes: not read", what, cap);
        return PLAYERFS_OVER;
    }
    *len = got;
    return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* name.new written, then renamed over name; as the fs ids in force. */
static int replace(int dirfd, const char *name, const char *text, size_t len)
{
    char tmp[NAME_MAX + 1];
    if (snprintf(tmp, sizeof tmp, "%s.new", name) >= (int)sizeof tmp)
        return errno = ENAMETOOLONG, -1;
    if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT) /* a planted link goes, not its target */
        return -1;
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | FILE_OPEN, 0600);
    if (fd < 0)
        return -1;
    int ret = write_all(fd, text, len) < 0 || fchmod(fd, 0600) < 0 ? -1 : 0;
    int e = errno;
    if (close(fd) < 0 && ret == 0)
        e = errno, ret = -1;
    if (ret == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
        e = errno, ret = -1;
    if (ret < 0)
        unlinkat(dirfd, tmp, 0);
    errno = e;
    return ret;
}

/* replace() with u's file rights; what begins the message of a failure. */
static int replace_as(int dirfd, const char *name, const playerfs_user_t *u, const char *text,
                      size_t len, const char *what, char *err, size_t errlen)
{
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    int ret = replace(dirfd, name, text, len);
    int e = errno;
    as_self(u);
    if (ret < 0)
        snprintf(err, errlen, "%s: %s", what, strerror(e));
    return ret;
}

/* The operator's default rc file, read with the spawner's own rights. */
static int read_default(const char *path, char *out, size_t cap, size_t *len)
{
    char err[200];
    int fd = open(path, O_RDONLY | FILE_OPEN);
    if (fd < 0) {
        log_warn("spawner: rc-default %s: %s (the player gets an empty rc file)", path,
                 strerror(errno));
        return -1;
    }
    int ret = read_regular(fd, out, cap, len, "rc-default", err, sizeof err);
    close(fd);
    if (ret < 0)
        log_warn("spawner: %s: %s (the player gets an empty rc file)", path, err);
    return ret;
}

int playerfs_rc_first(int dirfd, const char *name, const char *rc_default, const playerfs_user_t *u,
                      char *err, size_t errlen)
{
    struct stat st;
    if (!rc_default || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
        return 0; /* there is something: loading it says what */
    char text[PLAYERFS_RC_MAX];
    size_t len;
    if (read_default(rc_default, text, sizeof text, &len) < 0)
        return 0;
    return replace_as(dirfd, name, u, text, len, "cannot make your rc file", err, errlen);
}

int playerfs_rc_load(int dirfd, const char *name, const char *rc_default, const playerfs_user_t *u,
                     char *out, size_t cap, size_t *len, char *err, size_t errlen)
{
    *len = 0;
    if (playerfs_rc_first(dirfd, name, rc_default, u, err, errlen) < 0)
        return -1;
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    int fd = openat(dirfd, name, O_RDONLY | FILE_OPEN);
    int e = errno;
    as_self(u);
    if (fd < 0 && e == ENOENT)
        return 0;
    if (fd < 0) {
        snprintf(err, errlen,
                 e == ELOOP ? "your rc file is a link: not read"
                            : "your rc file cannot be opened: %s",
                 strerror(e));
        return -1;
    }
    int ret = read_regular(fd, out, cap, len, "your rc file", err, errlen);
    close(fd);
    return ret < 0 ? -1 : 0;
}

int playerfs_rc_save(int dirfd, const char *name, const playerfs_user_t *u, const char *text,
                     size_t len, char *err, size_t errlen)
{
    return replace_as(dirfd, name, u, text, len, "cannot write your rc file", err, errlen);
}

/* ---- the player's own xlogfile ------------------------------------------------------ */

/* One step below: name in at, a directory or, last, the file; with make,
 * a missing directory made 0700 and a missing file made empty, 0600. */
static int step_below(int at, const char *name, bool last, bool make)
{
    if (last)
        return make ? openat(at, name, O_WRONLY | O_CREAT | FILE_OPEN, 0600)
                    : openat(at, name, O_RDONLY | FILE_OPEN);
    if (make && mkdirat(at, name, 0700) < 0 && errno != EEXIST)
        return -1;
    return openat(at, name, DIR_OPEN);
}

/* path's file below dirfd (made, with its directories, when make), each
 * step relative to the last, none a link: its descriptor, or -1 with
 * errno (ELOOP: a link). As the fs ids in force. */
static int open_below(int dirfd, const char *path, bool make)
{
    char name[NAME_MAX + 1];
    int at = dirfd;
    for (const char *c = path;;) {
        size_t len = strcspn(c, "/");
        snprintf(name, sizeof name, "%.*s", (int)(len < NAME_MAX ? len : NAME_MAX), c);
        bool last = !c[len];
        int fd = step_below(at, name, last, make);
        int e = errno;
        if (at != dirfd)
            close(at);
        if (fd < 0 || last)
            return errno = e, fd;
        at = fd;
        c += len + 1;
    }
}

int playerfs_xlog_first(int dirfd, const char *path, const playerfs_user_t *u, char *err,
                        size_t errlen)
{
    return playerfs_file_first(dirfd, path, u, err, errlen);
}

int playerfs_file_first(int dirfd, const char *path, const playerfs_user_t *u, char *err,
                        size_t errlen)
{
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    int fd = open_below(dirfd, path, true);
    int e = errno, ret = fd < 0 ? -1 : close(fd);
    as_self(u);
    if (ret < 0)
        snprintf(err, errlen, "%s: %s: not made", path, e == ELOOP ? "a link" : strerror(e));
    return ret;
}

/* The last cap bytes of an open regular file, from a line's start. */
static int read_tail(int fd, char *out, size_t cap, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return errno = EINVAL, -1;
    off_t from = st.st_size > (off_t)cap ? st.st_size - (off_t)cap : 0;
    ssize_t n = pread(fd, out, cap, from);
    if (n < 0)
        return -1;
    size_t skip = 0;
    if (from > 0) { /* the first line is cut: it starts after its newline */
        char *nl = memchr(out, '\n', (size_t)n);
        skip = nl ? (size_t)(nl - out) + 1 : (size_t)n;
    }
    memmove(out, out + skip, (size_t)n - skip);
    *len = (size_t)n - skip;
    for (size_t i = 0; i < *len; i++) /* a text, as messages carry it */
        if (!out[i])
            out[i] = '?';
    return 0;
}

int playerfs_xlog_tail(int dirfd, const char *path, const playerfs_user_t *u, char *out, size_t cap,
                       size_t *len, char *err, size_t errlen)
{
    *len = 0;
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    int fd = open_below(dirfd, path, false);
    int e = errno;
    as_self(u);
    if (fd < 0 && e == ENOENT)
        return 0; /* no game of theirs ended there yet */
    if (fd < 0)
        return snprintf(err, errlen, "%s: %s: not read", path, e == ELOOP ? "a link" : strerror(e)),
               -1;
    int ret = read_tail(fd, out, cap, len);
    e = errno;
    close(fd);
    if (ret < 0)
        snprintf(err, errlen, "%s: %s: not read", path,
                 e == EINVAL ? "not a regular file" : strerror(e));
    return ret;
}

/* ---- what the player's directory holds ------------------------------------------------ */

int playerfs_usage(const playerfs_t *fs, const char *game, const char *dir,
                   const playerfs_user_t *u, uint64_t stop_bytes, uint64_t stop_entries,
                   diskuse_dir_fn *dir_fn, void *ud, diskuse_t *use, char *err, size_t errlen)
{
    *use = (diskuse_t){0};
    int gfd = fs->games_fd < 0 ? -1 : openat(fs->games_fd, game, DIR_OPEN);
    int pfd = gfd < 0 ? -1 : openat(gfd, dir, DIR_OPEN);
    int e = errno;
    if (gfd >= 0)
        close(gfd);
    if (pfd < 0 && e == ENOENT)
        return 0; /* nothing of theirs yet */
    if (pfd < 0)
        return errno = e, dir_fail(err, errlen, "your directory for this game");
    if (as_user(u) < 0) {
        close(pfd);
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    }
    diskuse_measure(pfd, stop_bytes, stop_entries, dir_fn, ud, use);
    as_self(u);
    close(pfd);
    return 0;
}

/* ---- a player's files copied out and in (hostfiles.h) ------------------------------ */

/* What a walk does with each entry that is not a directory: at is its
 * directory, name its name there, path its path below the walk's root
 * ("" when the name is not one a bundle may hold), st its lstat. */
typedef int walk_fn(void *ud, int at, const char *name, const char *path, const struct stat *st);

/* Every entry below dirfd (prefix: its path so far), directories entered
 * up to HOSTFILES_DEPTH deep, never through a link; as the fs ids in
 * force; *seen counts the entries looked at, the walk stopping past
 * HOSTFILES_WALK_MAX (a program may have made a million). dirs: fn is
 * called for each directory entered too, before its entries. Returns 0,
 * PLAYERFS_OVER past that, or what fn returned that was not 0. */
static int walk(int dirfd, const char *prefix, int depth, unsigned *seen, bool dirs, walk_fn *fn,
                void *ud)
{
    int fd = openat(dirfd, ".", DIR_OPEN);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return errno == ENOENT ? 0 : -1;
    }
    int ret = 0;
    struct dirent *e;
    while (ret == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++*seen > HOSTFILES_WALK_MAX) {
            ret = PLAYERFS_OVER;
            break;
        }
        char path[HOSTFILES_PATH_MAX * 2 + 2];
        int n = snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name);
        bool ok = n > 0 && hostfiles_path_ok(path, (size_t)n);
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(st.st_mode) && ok && depth + 1 < HOSTFILES_DEPTH) {
            if (dirs && (ret = fn(ud, dirfd, e->d_name, path, &st)) != 0)
                break;
            int sub = openat(dirfd, e->d_name, DIR_OPEN);
            if (sub >= 0) {
                ret = walk(sub, path, depth + 1, seen, dirs, fn, ud);
                close(sub);
            }
            continue;
        }
        ret = fn(ud, dirfd, e->d_name, ok ? path : "", &st);
    }
    closedir(d);
    return ret;
}

/* ---- whether the files are still --------------------------------------------------- */

typedef struct {
    struct timespec since, until; /* a change at a ctime in between is too recent */
    char *what;                   /* the first such entry's path */
    size_t whatlen;
} still_t;

static bool ts_le(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}

static struct timespec ts_add_ms(struct timespec t, int64_t ms)
{
    int64_t ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec + ms * 1000000;
    return (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* Whether st changed within s's window. A ctime past its end (the
 * clock set back since) does not hold a copy back for ever. */
static bool too_new(const still_t *s, const struct stat *st)
{
    return ts_le(s->since, st->st_ctim) && ts_le(st->st_ctim, s->until);
}

static int still_one(void *ud, int at, const char *name, const char *path, const struct stat *st)
{
    still_t *s = ud;
    (void)at;
    if (!too_new(s, st))
        return 0;
    snprintf(s->what, s->whatlen, "%.100s",
             *path                ? path
             : !strcmp(name, ".") ? "the directory"
                                  : "an entry");
    return PLAYERFS_BUSY;
}

/* Whether anything below dirfd (its directories too: an entry made,
 * removed or renamed in one changes its ctime) changed within quiet_ms
 * before from: 0, PLAYERFS_BUSY with what changed in err, PLAYERFS_OVER
 * or -1 as walk says. */
static int still_since(int dirfd, struct timespec from, uint64_t quiet_ms, char *err, size_t errlen)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char what[128] = "";
    still_t s = {ts_add_ms(from, -(int64_t)quiet_ms), ts_add_ms(now, (int64_t)quiet_ms), what,
                 sizeof what};
    struct stat st;
    unsigned seen = 0;
    int ret = fstat(dirfd, &st) < 0 ? -1 : still_one(&s, dirfd, ".", "", &st);
    if (ret == 0)
        ret = walk(dirfd, "", 0, &seen, true, still_one, &s);
    if (ret == PLAYERFS_BUSY)
        snprintf(err, errlen, "%s changed within %llu ms of the read", what,
                 (unsigned long long)quiet_ms);
    return ret;
}

typedef struct {
    hostfiles_buf_t *b;
    int skipped;
    char *note, *err;
    size_t notelen, errlen;
} collect_t;

/* name is the hosted program's: its control bytes (a newline would start
 * a line of warrend's log of the program's own) are said as '?'. */
static int skip(collect_t *c, const char *name, const char *why)
{
    if (c->skipped++ != 0)
        return 0;
    snprintf(c->note, c->notelen, "%.80s: %s: not copied", name, why);
    for (char *s = c->note; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            *s = '?';
    return 0;
}

static int collect_one(void *ud, int at, const char *name, const char *path, const struct stat *st)
{
    collect_t *c = ud;
    if (!*path)
        return skip(c, name, "a name not allowed");
    if (S_ISLNK(st->st_mode))
        return skip(c, path, "a link");
    if (!S_ISREG(st->st_mode))
        return skip(c, path, "not a regular file");
    size_t room = c->b->max - c->b->len, pl = strlen(path);
    if ((uint64_t)st->st_size > room || hostfiles_cost(pl, (size_t)st->st_size) > room) {
        snprintf(c->err, c->errlen, "%s: the files are larger than %zu bytes", path, c->b->max);
        return PLAYERFS_OVER;
    }
    if (c->b->count >= HOSTFILES_FILES_MAX) {
        snprintf(c->err, c->errlen, "%s: the files are more than %d", path, HOSTFILES_FILES_MAX);
        return PLAYERFS_OVER;
    }
    int fd = openat(at, name, O_RDONLY | FILE_OPEN);
    if (fd < 0)
        return errno == ELOOP ? skip(c, path, "a link") : skip(c, path, strerror(errno));
    size_t cap = room - hostfiles_cost(pl, 0), len = 0;
    char *buf = malloc(cap ? cap : 1);
    int ret = buf ? read_regular(fd, buf, cap, &len, path, c->err, c->errlen) : -1;
    close(fd);
    if (!buf)
        snprintf(c->err, c->errlen, "out of memory");
    if (ret == 0)
        ret = hostfiles_add(c->b, path, buf, len, c->err, c->errlen);
    free(buf);
    return ret;
}

int playerfs_files_collect(int dirfd, const playerfs_user_t *u, uint64_t quiet_ms,
                           hostfiles_buf_t *b, int *skipped, char *note, size_t notelen, char *err,
                           size_t errlen)
{
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    collect_t c = {b, 0, note, err, notelen, errlen};
    note[0] = err[0] = '\0';
    struct timespec from;
    clock_gettime(CLOCK_REALTIME, &from);
    unsigned seen = 0;
    /* still before (nothing read in vain) and after: so all through */
    int ret = quiet_ms ? still_since(dirfd, from, quiet_ms, err, errlen) : 0;
    bool walked = ret == 0;
    if (walked)
        ret = walk(dirfd, "", 0, &seen, false, collect_one, &c);
    int e = errno;
    /* a failure a change made (a file grown) too; a walk past its cap is not walked again */
    if (quiet_ms && walked && ret != PLAYERFS_BUSY && seen <= HOSTFILES_WALK_MAX) {
        char why[200];
        if (still_since(dirfd, from, quiet_ms, why, sizeof why) == PLAYERFS_BUSY)
            ret = PLAYERFS_BUSY, snprintf(err, errlen, "%s", why);
    }
    as_self(u);
    if (ret == PLAYERFS_OVER && !err[0])
        snprintf(err, errlen, "more than %d files and directories to look through",
                 HOSTFILES_WALK_MAX);
    if (ret < 0 && !err[0])
        snprintf(err, errlen, "cannot read the player's directory: %s", strerror(e));
    *skipped = c.skipped;
    return ret;
}

/* A file of the bundle written below dirfd: its directories made (0700),
 * none a link, then the file itself as replace() writes it (0600). */
static int unpack_one(int dirfd, const hostfiles_file_t *f)
{
    char dir[HOSTFILES_PATH_MAX + 1];
    snprintf(dir, sizeof dir, "%s", f->path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return replace(dirfd, f->path, (const char *)f->data, f->len);
    *slash = '\0';
    int at = dirfd;
    for (char *c = dir, *next; c; c = next) {
        next = strchr(c, '/');
        if (next)
            *next++ = '\0';
        int fd = open_subdir(at, c, 0700);
        int e = errno;
        if (at != dirfd)
            close(at);
        if (fd < 0)
            return errno = e, -1;
        at = fd;
    }
    int ret = replace(at, slash + 1, (const char *)f->data, f->len);
    int e = errno;
    close(at);
    errno = e;
    return ret;
}

typedef struct {
    const void *bundle;
    size_t len, max;
} prune_t;

/* An entry not in the bundle goes (a link itself, not its target). */
static int prune_one(void *ud, int at, const char *name, const char *path, const struct stat *st)
{
    const prune_t *p = ud;
    hostfiles_reader_t r;
    hostfiles_file_t f;
    uint32_t n;
    char err[8];
    (void)st;
    if (*path && hostfiles_open(&r, p->bundle, p->len, p->max, &n, err, sizeof err) == 0)
        while (hostfiles_next(&r, &f, err, sizeof err) > 0)
            if (!strcmp(f.path, path))
                return 0;
    unlinkat(at, name, 0);
    return 0;
}

int playerfs_files_unpack(int dirfd, const playerfs_user_t *u, const void *bundle, size_t len,
                          size_t max, char *err, size_t errlen)
{
    hostfiles_reader_t r;
    hostfiles_file_t f;
    uint32_t n;
    if (hostfiles_check(bundle, len, max, &n, err, errlen) < 0)
        return -1;
    if (as_user(u) < 0)
        return snprintf(err, errlen, "cannot take the game's user's file rights"), -1;
    prune_t p = {bundle, len, max};
    unsigned seen = 0; /* past HOSTFILES_WALK_MAX entries, the rest stays */
    walk(dirfd, "", 0, &seen, false, prune_one, &p);
    int ret = hostfiles_open(&r, bundle, len, max, &n, err, errlen), got;
    while (ret == 0 && (got = hostfiles_next(&r, &f, err, errlen)) > 0)
        if (unpack_one(dirfd, &f) < 0) {
            snprintf(err, errlen, "%s: %s: not written", f.path,
                     errno == ELOOP || errno == ENOTDIR ? "a link" : strerror(errno));
            ret = -1;
        }
    as_self(u);
    return ret;
}
