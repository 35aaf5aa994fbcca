/* db_file — the database as a file (see db.h, db_open_guarded): made with
 * mode 0600 whatever the umask, wider modes narrowed; its id kept beside
 * it in PATH.id, so a database that went missing or was swapped is refused
 * at start instead of being made anew, empty, over every account; the
 * quick check at open within a time budget; and the stat that sees the
 * file deleted or replaced under a running daemon. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "db_internal.h"

#define ID_FILE    ".id"
#define MODE_OK    0640 /* a mode within this stays (an operator's group may read) */
#define MODE_MADE  0600
#define CHECK_ROWS "10"              /* problems the quick check reports at most */
#define SIDE_MAX   (DB_PATH_MAX + 8) /* the path with a suffix */

/* The files of a database whose modes are narrowed: the file, SQLite's
 * two beside it (made with the file's mode) and the kept id. */
static const char *const FILES[] = {"", "-wal", "-shm", ID_FILE};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void side_path(const db_file_t *f, const char *suffix, char *out, size_t n)
{
    snprintf(out, n, "%s%s", f->path, suffix);
}

/* ---- modes -------------------------------------------------------------------- */

/* A mode wider than MODE_OK (others may read, the group may write) goes
 * down to 0600, on the open file when there is one; links are left be. */
static void narrow(db_file_t *f, const char *file, int fd)
{
    struct stat st;
    if ((fd >= 0 ? fstat(fd, &st) : lstat(file, &st)) != 0 || !S_ISREG(st.st_mode))
        return;
    if ((st.st_mode & 07777 & ~(mode_t)MODE_OK) == 0)
        return;
    db_opened_t *in = f->info;
    if ((fd >= 0 ? fchmod(fd, MODE_MADE) : chmod(file, MODE_MADE)) != 0 ||
        in->nfixed >= (int)(sizeof in->fixed / sizeof in->fixed[0]))
        return; /* not ours to change: SQLite says so if it cannot write */
    if (snprintf(in->fixed[in->nfixed].path, sizeof in->fixed[0].path, "%s", file) > 0)
        in->fixed[in->nfixed++].mode = (unsigned)(st.st_mode & 07777);
}

static void narrow_all(db_file_t *f)
{
    char p[SIDE_MAX];
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        side_path(f, FILES[i], p, sizeof p);
        narrow(f, p, i == 0 ? f->fd : -1);
    }
}

/* ---- the kept id ---------------------------------------------------------------- */

static bool is_id(const char *s, size_t n)
{
    if (n != 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", s[i]) || !s[i])
            return false;
    return true;
}

/* PATH.id's id into f->kept ("" when there is no such file). */
static int read_kept(db_file_t *f, char *err, size_t errlen)
{
    char p[SIDE_MAX], buf[128];
    side_path(f, ID_FILE, p, sizeof p);
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT)
        return DB_OK;
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s: %s", p, strerror(errno));
        return DB_ERR;
    }
    buf[n] = '\0';
    size_t len = strcspn(buf, "\r\n");
    if (!is_id(buf, len)) {
        snprintf(err, errlen,
                 "%s does not hold a database id (32 hex digits). Put the right file back, or "
                 "delete it to keep the id of the database there now.",
                 p);
        return DB_ERR;
    }
    memcpy(f->kept, buf, len);
    f->kept[len] = '\0';
    return DB_OK;
}

/* PATH.id written whole or not at all (a new file renamed over). */
static int write_kept(const db_file_t *f, char *err, size_t errlen)
{
    char p[SIDE_MAX], tmp[SIDE_MAX + 8], text[256];
    side_path(f, ID_FILE, p, sizeof p);
    snprintf(tmp, sizeof tmp, "%s.new", p);
    int n = snprintf(text, sizeof text,
                     "%s\n# The id of the database beside this file. While this file is here,\n"
                     "# warrend refuses to start on a missing or different database.\n",
                     f->info->id);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, MODE_MADE);
    bool ok =
        fd >= 0 && fchmod(fd, MODE_MADE) == 0 && write(fd, text, (size_t)n) == n && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok || rename(tmp, p) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", p, strerror(errno));
        unlink(tmp);
        return DB_ERR;
    }
    return DB_OK;
}

/* The id stored in the database: 1 with it in id, 0 when it has none (an
 * empty file, or one older than ids), -1 when it cannot be read. */
static int read_id(sqlite3 *h, char *id, size_t n)
{
    static const char *const sql[] = {
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        "SELECT value FROM meta WHERE key = 'id'",
    };
    int found = -1;
    id[0] = '\0';
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *st = NULL;
        int ret = sqlite3_prepare_v2(h, sql[i], -1, &st, NULL);
        if (ret == SQLITE_OK)
            ret = sqlite3_step(st);
        if (ret == SQLITE_ROW && i == 0)
            found = sqlite3_column_int(st, 0) > 0 ? 1 : 0;
        else if (ret == SQLITE_ROW)
            snprintf(id, n, "%s", (const char *)sqlite3_column_text(st, 0));
        else if (ret == SQLITE_DONE && i == 1)
            found = 0;
        else
            found = -1;
        sqlite3_finalize(st);
        if (found != 1)
            break;
    }
    return found == 1 && !id[0] ? 0 : found;
}

/* ---- open -------------------------------------------------------------------------- */

static int refuse_missing(const db_file_t *f, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "database %s is missing, but %s" ID_FILE " says database %s belongs here: warrend "
             "will not start a new, empty one in its place. Put the database back (a backup "
             "made with .backup, without an old -wal or -shm beside it; deploy/RUNNING.md), "
             "or, to start anew on purpose, delete %s" ID_FILE ".",
             f->path, f->path, f->kept, f->path);
    return DB_ERR;
}

/* Opens the file (made 0600 when missing), notes what the path names. */
static int open_file(db_file_t *f, char *err, size_t errlen)
{
    f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 && errno == ENOENT) {
        if (f->kept[0])
            return refuse_missing(f, err, errlen);
        f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, MODE_MADE);
        /* exactly 0600 whatever the umask: SQLite copies it to -wal and -shm */
        if (f->fd >= 0 && fchmod(f->fd, MODE_MADE) == 0)
            f->info->created = true;
    }
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0) {
        snprintf(err, errlen, "cannot open database %s: %s", f->path, strerror(errno));
        return DB_ERR;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot use database %s: not a regular file", f->path);
        return DB_ERR;
    }
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    return DB_OK;
}

int db_file_prepare(db_file_t *f, const char *path, const db_guard_t *g, db_opened_t *out,
                    char *err, size_t errlen)
{
    f->fd = -1;
    f->info = out ? out : &f->found;
    memset(f->info, 0, sizeof *f->info);
    if (g)
        f->guard = *g;
    /* room for the longest suffix */
    if (strlen(path) + sizeof ".id.new" >= sizeof f->path) {
        snprintf(err, errlen, "database path too long: %s", path);
        return DB_ERR;
    }
    snprintf(f->path, sizeof f->path, "%s", path);
    if (f->guard.keep_id && read_kept(f, err, errlen) != DB_OK)
        return DB_ERR;
    if (open_file(f, err, errlen) != DB_OK)
        return DB_ERR;
    narrow_all(f);
    return DB_OK;
}

static void damaged(const db_file_t *f, const char *found, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "database %s is damaged (%s): warrend will not start on it. Restore it from a "
             "backup (deploy/RUNNING.md), or save what can be read with `sqlite3 %s .recover "
             "| sqlite3 NEW.db` and put NEW.db in its place.",
             f->path, found, f->path);
}

void db_file_failed(const db_file_t *f, sqlite3 *h, const char *what, char *err, size_t errlen)
{
    int code = h ? sqlite3_errcode(h) & 0xff : SQLITE_CANTOPEN;
    const char *msg = h ? sqlite3_errmsg(h) : "out of memory";
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        damaged(f, msg, err, errlen);
    else
        snprintf(err, errlen, "%s database %s: %s", what, f->path, msg);
}

/* The quick check's clock. SQLite 3.40 walks the b-trees in one VM step,
 * so a progress handler is first called once the walk is over (measured
 * on 43 MB: after its 12 ms walk); sqlite3_interrupt, which the walk does
 * heed, is sent from a thread of its own at the deadline. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sqlite3 *h;
    struct timespec until;
    bool done;
} budget_t;

/* At the deadline, and every millisecond after until the check is done:
 * an interrupt that lands before its statement starts is forgotten. */
static void *budget_main(void *arg)
{
    budget_t *b = arg;
    pthread_mutex_lock(&b->mu);
    while (!b->done) {
        if (pthread_cond_timedwait(&b->cv, &b->mu, &b->until) != ETIMEDOUT)
            continue;
        sqlite3_interrupt(b->h); /* the check ends with SQLITE_INTERRUPT */
        b->until.tv_nsec += 1000000L;
        b->until.tv_sec += b->until.tv_nsec / 1000000000L;
        b->until.tv_nsec %= 1000000000L;
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Starts the clock of ms for h: 0, or -1 when no thread could start. */
static int budget_start(budget_t *b, pthread_t *t, sqlite3 *h, int ms)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&b->mu, NULL);
    b->h = h;
    b->done = false;
    clock_gettime(CLOCK_MONOTONIC, &b->until);
    b->until.tv_sec += ms / 1000;
    b->until.tv_nsec += (long)(ms % 1000) * 1000000L;
    b->until.tv_sec += b->until.tv_nsec / 1000000000L;
    b->until.tv_nsec %= 1000000000L;
    if (pthread_create(t, NULL, budget_main, b) == 0)
        return 0;
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    return -1;
}

static void budget_stop(budget_t *b, pthread_t t)
{
    pthread_mutex_lock(&b->mu);
    b->done = true;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(t, NULL);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
}

/* The problems PRAGMA quick_check found, joined into out; the step's
 * last result code. */
static int check_rows(sqlite3_stmt *st, char *out, size_t n)
{
    size_t len = 0;
    int ret;
    out[0] = '\0';
    while ((ret = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (t && strcmp(t, "ok") != 0 && len + 1 < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? "; " : "", t);
        if (len >= n)
            len = n - 1;
    }
    return ret;
}

/* PRAGMA quick_check until the budget runs out (then the rest goes
 * unchecked: the caller logs it); problems refuse the file. */
static int quick_check(db_file_t *f, sqlite3 *h, char *err, size_t errlen)
{
    if (f->guard.check_ms <= 0)
        return DB_OK;
    uint64_t t0 = mono_ns();
    char problems[400];
    sqlite3_stmt *st = NULL;
    budget_t b;
    pthread_t clock;
    if (budget_start(&b, &clock, h, f->guard.check_ms) != 0) {
        snprintf(err, errlen, "cannot check database %s: no thread for its clock", f->path);
        return DB_ERR;
    }
    int ret = sqlite3_prepare_v2(h, "PRAGMA quick_check(" CHECK_ROWS ")", -1, &st, NULL);
    if (ret == SQLITE_OK)
        ret = check_rows(st, problems, sizeof problems);
    sqlite3_finalize(st);
    budget_stop(&b, clock);
    f->info->check_ms = (int64_t)((mono_ns() - t0) / 1000000u);
    if (ret == SQLITE_INTERRUPT) {
        f->info->check = DB_CHECK_CUT;
        return DB_OK;
    }
    if (ret != SQLITE_DONE) {
        db_file_failed(f, h, "cannot check", err, errlen);
        return DB_ERR;
    }
    if (problems[0]) {
        char found[sizeof problems + 16];
        snprintf(found, sizeof found, "quick_check: %s", problems);
        damaged(f, found, err, errlen);
        return DB_ERR;
    }
    f->info->check = DB_CHECK_OK;
    return DB_OK;
}

/* The database's id against the kept one, before anything is changed. */
static int check_id(db_file_t *f, sqlite3 *h, char *err, size_t errlen)
{
    char id[DB_ID_MAX];
    int got = read_id(h, id, sizeof id);
    if (got < 0) {
        db_file_failed(f, h, "cannot read the id of", err, errlen);
        return DB_ERR;
    }
    if (got == 0)
        snprintf(err, errlen,
                 "database %s carries no id (it is empty, older than ids, or not Warren's), "
                 "but %s" ID_FILE " says database %s belongs here. Put that database back, "
                 "or, to run on this one on purpose, delete %s" ID_FILE ".",
                 f->path, f->path, f->kept, f->path);
    else if (strcmp(id, f->kept) != 0)
        snprintf(err, errlen,
                 "database %s is database %s, but %s" ID_FILE " says database %s belongs here: "
                 "the file was replaced. Put the right database back, or, to run on this one "
                 "on purpose, delete %s" ID_FILE ".",
                 f->path, id, f->path, f->kept, f->path);
    return got == 1 && strcmp(id, f->kept) == 0 ? DB_OK : DB_ERR;
}

int db_file_check_open(db_file_t *f, sqlite3 *h, char *err, size_t errlen)
{
    if (quick_check(f, h, err, errlen) != DB_OK)
        return DB_ERR;
    return f->kept[0] ? check_id(f, h, err, errlen) : DB_OK;
}

int db_file_keep_id(db_file_t *f, sqlite3 *h, char *err, size_t errlen)
{
    if (read_id(h, f->info->id, sizeof f->info->id) != 1) {
        db_file_failed(f, h, "no id in", err, errlen);
        return DB_ERR;
    }
    if (!f->guard.keep_id || f->kept[0])
        return DB_OK;
    if (write_kept(f, err, errlen) != DB_OK)
        return DB_ERR;
    f->info->id_written = true;
    snprintf(f->kept, sizeof f->kept, "%s", f->info->id);
    return DB_OK;
}

/* ---- while running ------------------------------------------------------------------- */

int db_file_stat(const db_file_t *f, char *why, size_t n)
{
    struct stat o, p;
    if (f->fd < 0)
        return DB_OK;
    bool unlinked = fstat(f->fd, &o) == 0 && o.st_nlink == 0;
    /* 1: the path names a file, 0: nothing, -1: cannot tell (left be) */
    int at = stat(f->path, &p) == 0 ? 1 : errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    bool other = at == 1 && ((uint64_t)p.st_dev != f->dev || (uint64_t)p.st_ino != f->ino);
    const char *what = unlinked && other ? "was deleted, and another file put in its place"
                       : unlinked        ? "was deleted"
                       : at == 0         ? "is gone from its path (moved away or deleted)"
                       : other           ? "was replaced by another file"
                                         : NULL;
    if (!what)
        return DB_OK;
    snprintf(why, n, "%s", what);
    return DB_ERR;
}

void db_file_close(db_file_t *f, bool lost)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (!lost)
        return;
    /* SQLite leaves the -wal and -shm of a file that is gone: a database
     * put back at the path would read that WAL as its own and be damaged. */
    char p[SIDE_MAX], aside[SIDE_MAX + 8];
    for (size_t i = 1; i <= 2; i++) {
        side_path(f, FILES[i], p, sizeof p);
        snprintf(aside, sizeof aside, "%s.lost", p);
        rename(p, aside);
    }
}
