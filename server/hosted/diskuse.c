/* diskuse — a bounded walk of a player's directory (diskuse.h). */
#include "diskuse.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gamecfg.h"
#include "log.h"

/* a game at twice its file cap is still counted, not past the ceiling */
_Static_assert(DISKUSE_ENTRIES_MAX >= 2 * GAMECFG_DISK_FILES_MAX, "the ceiling under twice a cap");

#define SUBDIR_OPEN (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

typedef struct {
    uint64_t stop_bytes, stop_entries;
    diskuse_dir_fn *dir_fn;
    void *ud;
    diskuse_t *use;
} walk_t;

static bool past_stop(const walk_t *w)
{
    const diskuse_t *u = w->use;
    return (w->stop_bytes && u->bytes > w->stop_bytes) ||
           (w->stop_entries && u->entries > w->stop_entries) || u->entries > DISKUSE_ENTRIES_MAX;
}

static void walk_dir(walk_t *w, int fd, int depth);

/* splitmix64's finaliser: each bit of v spread over all 64. */
static uint64_t mix(uint64_t v)
{
    v ^= v >> 30;
    v *= 0xbf58476d1ce4e5b9u;
    v ^= v >> 27;
    v *= 0x94d049bb133111ebu;
    return v ^ (v >> 31);
}

/* One entry of the directory fd: counted, and walked when a directory. */
static void walk_entry(walk_t *w, int fd, const char *name, int depth)
{
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT) /* gone meanwhile: nothing to count */
            w->use->deep = true;
        return;
    }
    w->use->entries++;
    w->use->bytes += (uint64_t)st.st_blocks * 512u;
    if (S_ISREG(st.st_mode)) /* summed: the walk's order does not matter */
        w->use->sig +=
            mix((uint64_t)st.st_ino ^ mix((uint64_t)st.st_size) ^
                mix((uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec));
    if (!S_ISDIR(st.st_mode))
        return;
    if (depth >= DISKUSE_DEPTH_MAX) {
        w->use->deep = true;
        return;
    }
    int sub = openat(fd, name, SUBDIR_OPEN);
    if (sub < 0) {
        if (errno != ENOENT)
            w->use->deep = true;
        return;
    }
    walk_dir(w, sub, depth + 1); /* closes sub */
}

/* The directory fd (closed here), entry by entry, until a stop. */
static void walk_dir(walk_t *w, int fd, int depth)
{
    if (w->dir_fn)
        w->dir_fn(fd, w->ud);
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        w->use->deep = true;
        return;
    }
    struct dirent *e;
    errno = 0;
    while (!w->use->deep && !past_stop(w) && (e = readdir(dir))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            walk_entry(w, dirfd(dir), e->d_name, depth);
        errno = 0;
    }
    if (errno)
        w->use->deep = true;
    closedir(dir);
}

int diskuse_measure(int dirfd, uint64_t stop_bytes, uint64_t stop_entries, diskuse_dir_fn *dir_fn,
                    void *ud, diskuse_t *use)
{
    *use = (diskuse_t){0};
    walk_t w = {stop_bytes, stop_entries, dir_fn, ud, use};
    int fd = openat(dirfd, ".", SUBDIR_OPEN);
    if (fd < 0) {
        use->deep = true;
        return 0;
    }
    walk_dir(&w, fd, 0);
    use->cut = past_stop(&w);
    use->huge = use->entries > DISKUSE_ENTRIES_MAX;
    if (use->huge)
        log_warn("disk use: a player's directory holds more than %d files and directories: "
                 "the walk stopped there, counted as over its caps",
                 DISKUSE_ENTRIES_MAX);
    return 0;
}

bool diskuse_over(const diskuse_t *use, uint64_t cap_bytes, uint64_t cap_entries)
{
    return use->deep || use->huge || use->unseen || (cap_bytes && use->bytes > cap_bytes) ||
           (cap_entries && use->entries > cap_entries);
}

void diskuse_say(const diskuse_t *use, uint64_t cap_bytes, uint64_t cap_entries, char *out,
                 size_t n)
{
    const char *least = use->cut ? "at least " : "";
    if (use->deep)
        snprintf(out, n, "A directory in them is nested too deep or cannot be read");
    else if (use->huge)
        snprintf(out, n, "They are more than %d files and directories, more than any game keeps",
                 DISKUSE_ENTRIES_MAX);
    else if (use->unseen)
        snprintf(out, n, "The game holds open files that could not all be counted");
    else if (cap_bytes && use->bytes > cap_bytes && use->held)
        snprintf(out, n,
                 "They take %s%.1f MB (%.1f MB deleted but open), over "
                 "the %llu MB allowed",
                 least, (double)use->bytes / (1024.0 * 1024.0),
                 (double)use->held / (1024.0 * 1024.0),
                 (unsigned long long)(cap_bytes / (1024u * 1024u)));
    else if (cap_bytes && use->bytes > cap_bytes)
        snprintf(out, n, "They take %s%.1f MB, over the %llu MB allowed", least,
                 (double)use->bytes / (1024.0 * 1024.0),
                 (unsigned long long)(cap_bytes / (1024u * 1024u)));
    else
        snprintf(out, n, "They are %s%llu files and directories, over the %llu allowed", least,
                 (unsigned long long)use->entries, (unsigned long long)cap_entries);
}
