/* daily — the daily game's seed, secret and one attempt (see daily.h). */
#include "daily.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "db.h"
#include "db_daily.h"
#include "game.h"
#include "log.h"
#include "moderation.h"
#include "session.h"

#define SECRET_MIN 16 /* bytes a secret file must hold at least */

/* ---- the secret ------------------------------------------------------------------ */

/* A new secret file: random bytes as hex, created only if absent. */
static int secret_make(const char *path, char *err, size_t errlen)
{
    uint8_t rnd[DAILY_KEY_LEN];
    char hex[2 * DAILY_KEY_LEN + 2];
    randombytes_buf(rnd, sizeof rnd);
    sodium_bin2hex(hex, sizeof hex, rnd, sizeof rnd);
    size_t n = strlen(hex);
    hex[n++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    bool ok = write(fd, hex, n) == (ssize_t)n && fsync(fd) == 0;
    close(fd);
    sodium_memzero(rnd, sizeof rnd);
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write", path);
        unlink(path);
        return -1;
    }
    log_info("daily: made a new secret in %s (mode 0600)", path);
    return 0;
}

/* Reads the whole file at fd (a regular file, mode narrowed to 0600). */
static ssize_t secret_read(int fd, const char *path, char *buf, size_t cap, char *err,
                           size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    if ((st.st_mode & 077) && fchmod(fd, 0600) == 0)
        log_warn("daily: %s could be read by others: its mode is now 0600", path);
    ssize_t n = read(fd, buf, cap);
    if (n < 0 || (size_t)n >= cap) {
        snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(errno) : "larger than 4096 bytes");
        return -1;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    if (n < SECRET_MIN) {
        snprintf(err, errlen, "%s: a secret needs at least %d bytes", path, SECRET_MIN);
        return -1;
    }
    return n;
}

/* The secret file at path into key: 1, 0 when there is none, -1 (err). */
static int secret_read_file(const char *path, uint8_t key[DAILY_KEY_LEN], char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO there is refused (not a regular file), never
     * waited on for ever by a start */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char buf[DAILY_SECRET_MAX + 1];
    ssize_t n = secret_read(fd, path, buf, sizeof buf, err, errlen);
    close(fd);
    if (n >= 0)
        crypto_generichash(key, DAILY_KEY_LEN, (const uint8_t *)buf, (size_t)n, NULL, 0);
    sodium_memzero(buf, sizeof buf); /* a refused one too: a short secret is still one */
    return n < 0 ? -1 : 1;
}

int daily_secret_load(const char *path, uint8_t key[DAILY_KEY_LEN], char *err, size_t errlen)
{
    int found = secret_read_file(path, key, err, errlen);
    if (found == 0 && secret_make(path, err, errlen) == 0)
        found = secret_read_file(path, key, err, errlen);
    if (found == 0)
        snprintf(err, errlen, "%s: gone as soon as made", path);
    return found == 1 ? 0 : -1;
}

int daily_secret_path(const config_t *cfg, char *out, size_t outlen)
{
    int n = cfg->daily_secret[0]    ? snprintf(out, outlen, "%s", cfg->daily_secret)
            : db_is_server(cfg->db) ? snprintf(out, outlen, "./warren.daily")
                                    : snprintf(out, outlen, "%s.daily", cfg->db);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int daily_offer(const config_t *cfg, uint8_t key[DAILY_KEY_LEN], char *err, size_t errlen)
{
    char path[300];
    if (daily_secret_path(cfg, path, sizeof path)) {
        snprintf(err, errlen, "the secret's path is too long");
        return -1;
    }
    if (cfg->daily_secret[0])
        return daily_secret_load(path, key, err, errlen) ? -1 : DAILY_FROM_SET;
    int found = secret_read_file(path, key, err, errlen);
    if (found < 0)
        return -1;
    if (found)
        return DAILY_FROM_FILE;
    randombytes_buf(key, DAILY_KEY_LEN);
    return DAILY_FROM_NEW;
}

/* ---- the day and its seed ------------------------------------------------------------ */

uint64_t daily_seed(const uint8_t key[DAILY_KEY_LEN], const char *day)
{
    char msg[64];
    int n = snprintf(msg, sizeof msg, "warren daily %s", day);
    uint8_t out[8];
    crypto_generichash(out, sizeof out, (const uint8_t *)msg, (size_t)n, key, DAILY_KEY_LEN);
    uint64_t seed = 0;
    for (int i = 7; i >= 0; i--)
        seed = seed << 8 | out[i];
    return seed & 0x7FFFFFFFFFFFFFFFull; /* fits SQLite's signed integers unchanged */
}

void daily_date(int64_t t, char out[DAILY_DATE_LEN])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 0)
        tm = (struct tm){.tm_year = 70, .tm_mday = 1};
    unsigned y = (unsigned)(tm.tm_year + 1900) % 10000, m = (unsigned)(tm.tm_mon + 1) % 100,
             d = (unsigned)tm.tm_mday % 100;
    snprintf(out, DAILY_DATE_LEN, "%04u-%02u-%02u", y, m, d);
}

int64_t daily_until_next(int64_t t)
{
    int64_t into = t % 86400;
    if (into < 0)
        into += 86400;
    return 86400 - into;
}

/* ---- the secret at start ---------------------------------------------------------- */

/* old renamed to new, never over a file already there. */
static int rename_keep(const char *old, const char *new)
{
    if (renameat2(AT_FDCWD, old, AT_FDCWD, new, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(old, new) != 0) /* a file system without it: the new name, then the old gone */
        return -1;
    return unlink(old);
}

int daily_secret_retire(const char *path, char *to, size_t tolen, char *err, size_t errlen)
{
    int n = snprintf(to, tolen, "%s" DAILY_IMPORTED, path);
    if (n < 0 || (size_t)n >= tolen)
        return snprintf(err, errlen, "%s: the name is too long", path), -1;
    if (rename_keep(path, to) != 0)
        return snprintf(err, errlen, "%s: cannot rename it %s: %s", path, to, strerror(errno)), -1;
    int fd = open(to, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fchmod(fd, 0600) != 0) {
        snprintf(err, errlen, "%s: cannot make it 0600: %s", to, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int daily_open(server_t *srv, char want[DB_SECRET_HEX + 1])
{
    char err[400];
    want[0] = '\0';
    int from = daily_offer(&srv->cfg, srv->daily_key, err, sizeof err);
    if (from < 0)
        return log_error("daily: %s", err), -1;
    srv->daily_from = from;
    if (from != DAILY_FROM_SET)
        sodium_bin2hex(want, DB_SECRET_HEX + 1, srv->daily_key, DAILY_KEY_LEN);
    return 0;
}

/* The default file's secret is the database's now (same: the one stored
 * from it): the file renamed, so no later start reads it or says so. */
static void keep_imported(const server_t *srv, bool same)
{
    char path[300] = "", to[320], err[700];
    daily_secret_path(&srv->cfg, path, sizeof path);
    if (daily_secret_retire(path, to, sizeof to, err, sizeof err) != 0)
        log_warn("daily: %s; it is read again at the next start", err);
    else if (same)
        log_info("daily: the secret of %s is now kept in the database; the file, no longer "
                 "read, is kept as %s",
                 path, to);
    else
        log_warn("daily: %s differs from the secret the database holds, which is used; the "
                 "file, no longer read, is kept as %s",
                 path, to);
}

/* daily-secret's file wins on this node: a database that holds another
 * secret gives players on nodes without the file another daily game. */
static void keep_set(server_t *srv, const char *held)
{
    char mine[DB_SECRET_HEX + 1], line[600];
    sodium_bin2hex(mine, sizeof mine, srv->daily_key, DAILY_KEY_LEN);
    srv->daily_held = !held[0]                                        ? DAILY_HELD_NONE
                      : sodium_memcmp(mine, held, DB_SECRET_HEX) == 0 ? DAILY_HELD_SAME
                                                                      : DAILY_HELD_OTHER;
    sodium_memzero(mine, sizeof mine);
    daily_describe(srv, line, sizeof line);
    if (srv->daily_held == DAILY_HELD_OTHER)
        log_warn("daily: node %s: the secret is %s (deploy/RUNNING.md)", srv->cfg.node, line);
    else
        log_info("daily: the secret is %s", line);
}

int daily_keep(server_t *srv, char want[DB_SECRET_HEX + 1], const char *held)
{
    if (srv->daily_from == DAILY_FROM_SET)
        return keep_set(srv, held), 0;
    bool same = sodium_memcmp(want, held, DB_SECRET_HEX) == 0;
    sodium_memzero(want, DB_SECRET_HEX + 1);
    size_t n = 0;
    if (sodium_hex2bin(srv->daily_key, DAILY_KEY_LEN, held, DB_SECRET_HEX, NULL, &n, NULL) ||
        n != DAILY_KEY_LEN)
        return log_error("daily: the database's secret cannot be read"), -1;
    srv->daily_held = DAILY_HELD_SAME;
    if (srv->daily_from == DAILY_FROM_FILE)
        keep_imported(srv, same);
    else if (same)
        log_info("daily: made a new secret, kept in the database");
    else
        log_info("daily: the secret is the database's");
    return 0;
}

void daily_describe(const server_t *srv, char *out, size_t n)
{
    const char *file = srv->cfg.daily_secret;
    if (srv->daily_from != DAILY_FROM_SET)
        snprintf(out, n, "the database's");
    else if (srv->daily_held == DAILY_HELD_OTHER)
        snprintf(out, n,
                 "the file %s (daily-secret), NOT the database's: players on nodes without "
                 "daily-secret get another daily game; set it on every node or on none",
                 file);
    else
        snprintf(out, n, "the file %s (daily-secret)%s", file,
                 srv->daily_held == DAILY_HELD_SAME ? ", the same as the database's"
                                                    : "; the database holds none");
}

/* ---- one attempt a day ------------------------------------------------------------ */

typedef struct {
    server_t *srv;
    conn_t *c;
    int64_t user_id;
    char day[DAILY_DATE_LEN];
    bool again; /* the state is being read a second time (after DB_EEXISTS) */
} daily_req_t;

static const char MSG_STORE[] = "The game store is not available. Please try again.";
static const char MSG_OTHER[] =
    "Finish the game you are playing first (p resumes it); then the daily game is yours.";

static void req_end(daily_req_t *rq)
{
    conn_unref(rq->c);
    free(rq);
}

/* The player is still there, waiting for this answer. */
static bool req_ok(const daily_req_t *rq)
{
    const conn_t *c = rq->c;
    return !c->closing && c->place == CONN_WAIT && c->user_id == rq->user_id;
}

static void tell_done(daily_req_t *rq)
{
    char msg[160];
    int64_t left = daily_until_next((int64_t)time(NULL));
    snprintf(msg, sizeof msg,
             "You have played today's daily game (%s). The next starts at 00:00 UTC, in %d h %02d "
             "min.",
             rq->day, (int)(left / 3600), (int)(left / 60 % 60));
    conn_menu(rq->c, msg);
}

static void on_state(void *ud, int status, int64_t n);

static void on_created(void *ud, int status, int64_t id)
{
    daily_req_t *rq = ud;
    if (status == DB_OK)
        log_info("daily start user=%s game=%lld day=%s", rq->c->user, (long long)id, rq->day);
    if (status == DB_EEXISTS && !rq->again && req_ok(rq)) { /* a race: what won it? */
        rq->again = true;
        db_daily_state(rq->srv->db, rq->day, rq->user_id, on_state, rq);
        return;
    }
    if (req_ok(rq)) {
        if (status == DB_OK)
            session_play(rq->c);
        else
            conn_menu(rq->c, "The daily game could not be started. Please try again later.");
    }
    req_end(rq);
}

/* The game, its daily row and the character's key, in one transaction. */
static void daily_start(daily_req_t *rq)
{
    server_t *srv = rq->srv;
    uint8_t keys[8];
    size_t n = key_pack((key_event_t){.code = DAILY_CHAR_KEY}, keys);
    db_game_new_t ng = {.user = rq->user_id,
                        .seed = daily_seed(srv->daily_key, rq->day),
                        .content_version = content_version(srv->content),
                        .race = "",
                        .cls = "",
                        .start_time = (int64_t)time(NULL)};
    if (db_daily_create(srv->db, rq->day, &ng, keys, n, on_created, rq) <= 0) {
        conn_menu(rq->c, "The daily game could not be started.");
        req_end(rq);
    }
}

static void on_state(void *ud, int status, int64_t n)
{
    daily_req_t *rq = ud;
    if (!req_ok(rq)) {
        req_end(rq);
        return;
    }
    if (status != DB_OK)
        conn_menu(rq->c, MSG_STORE);
    else if (n == DB_DAILY_NEW && !rq->again) {
        daily_start(rq); /* it ends rq */
        return;
    } else if (n == DB_DAILY_LIVE)
        session_play(rq->c); /* the same attempt, resumed */
    else if (n == DB_DAILY_OTHER)
        conn_menu(rq->c, MSG_OTHER);
    else if (n == DB_DAILY_DONE)
        tell_done(rq);
    else
        conn_menu(rq->c, MSG_STORE);
    req_end(rq);
}

void daily_play(conn_t *c)
{
    server_t *srv = c->srv;
    if (srv->stopping) {
        conn_menu(c, "The server is shutting down.");
        return;
    }
    if (!c->user_id) {
        conn_menu(c, "Log in to play the daily game.");
        return;
    }
    if (moderation_deleting(srv, c->user_id)) {
        conn_menu(c, MOD_DELETING_MSG);
        return;
    }
    daily_req_t *rq = calloc(1, sizeof *rq);
    if (!rq) {
        conn_menu(c, "Out of memory.");
        return;
    }
    *rq = (daily_req_t){.srv = srv, .c = c, .user_id = c->user_id};
    daily_date((int64_t)time(NULL), rq->day);
    conn_ref(c);
    conn_wait(c);
    db_daily_state(srv->db, rq->day, rq->user_id, on_state, rq);
}
