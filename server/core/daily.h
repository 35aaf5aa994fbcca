/* daily — the daily game: every UTC day one seed and one character for
 * everyone, one attempt per account.
 *
 * The day's seed is a keyed hash (BLAKE2b, libsodium's generichash) of the
 * day's date under the server's secret, so nobody can work out a day's
 * seed, and scout its dungeon, before that day starts. The secret is kept
 * in the database (meta's 'daily_secret' row, 32 random bytes stored once
 * by the first node to start: db_guard_t.daily_secret), so every node on
 * one database has the same days. An older server's file (DB.daily beside
 * the database, or ./warren.daily with PostgreSQL), when there, is the
 * secret stored if the database holds none yet, so its days keep their
 * seeds; then it is renamed DAILY_IMPORTED (kept, 0600), never read
 * again. A file named by daily-secret wins over the database (made 0600
 * when absent): that node uses it, never the database's, and warns at
 * start (and in warren-admin health) when the database holds another.
 *
 * The character is the game's own random pick (chargen: a key that is no
 * choice), made from the seed: the same for everyone. It is the game's
 * first journal row, stored with the game and its daily row in one
 * transaction (db_daily_create), so replays and verification see it as
 * any key and the player meets the game already made. From then on it is
 * the account's live game: 'p' or a new connection resumes it, never a
 * second attempt. */
#ifndef WARREN_DAILY_H
#define WARREN_DAILY_H
#include <stddef.h>
#include <stdint.h>
#include "conn.h"
#include "db.h"
#include "server.h"

#define DAILY_KEY_LEN    32 /* bytes of the key the seed is hashed under */
#define DAILY_DATE_LEN   11 /* "YYYY-MM-DD" and its NUL */
#define DAILY_SECRET_MAX 4096
#define DAILY_CHAR_KEY   ' ' /* chargen's random pick: any key that is no choice */

/* Reads the secret file at path into key (hashed to DAILY_KEY_LEN bytes),
 * making it (0600, O_EXCL, never through a link) with fresh random bytes
 * when absent, and narrowing its mode to 0600 when group or others may
 * read it. 0, or -1 with why in err (a file under 16 bytes, unreadable). */
int daily_secret_load(const char *path, uint8_t key[DAILY_KEY_LEN], char *err, size_t errlen);
/* The path the config names, or its default. 0, or -1 when it does not fit. */
int daily_secret_path(const config_t *cfg, char *out, size_t outlen);
/* The default file an older server made, once its secret is the
 * database's: renamed path DAILY_IMPORTED (into to), never over a file
 * already there, and made 0600, so it is kept but read no more. 0, or -1
 * with why in err (the file stays where it was). */
#define DAILY_IMPORTED ".imported"
int daily_secret_retire(const char *path, char *to, size_t tolen, char *err, size_t errlen);

/* Where daily_offer's key comes from. */
enum {
    DAILY_FROM_SET = 1, /* daily-secret's file (made when absent): it wins */
    DAILY_FROM_FILE,    /* the default file an older server made: stored if the database has none */
    DAILY_FROM_NEW,     /* random bytes: stored if the database has none */
};
/* The key cfg gives before the database is read: a DAILY_FROM_*, or -1
 * with why in err (daily-secret's file or the default one unreadable). */
int daily_offer(const config_t *cfg, uint8_t key[DAILY_KEY_LEN], char *err, size_t errlen);
/* The database's secret against this node's (server_t.daily_held). */
enum {
    DAILY_HELD_SAME = 0, /* the same (or this node's is the database's) */
    DAILY_HELD_NONE,     /* daily-secret's file; the database holds none */
    DAILY_HELD_OTHER,    /* daily-secret's file; the database holds another */
};
/* The day's seed: a pure function of key and day (YYYY-MM-DD), below 2^63. */
uint64_t daily_seed(const uint8_t key[DAILY_KEY_LEN], const char *day);
/* The UTC date of unix time t as YYYY-MM-DD. */
void daily_date(int64_t t, char out[DAILY_DATE_LEN]);
/* Seconds from t until the next UTC day starts (1..86400). */
int64_t daily_until_next(int64_t t);

/* At start (server_open, home loop), before the database opens: the key
 * daily_offer gives into srv->daily_key, and want, the secret to store in
 * the database if it holds none (hex; "" with daily-secret set: that file
 * is the secret). 0, or -1 logged. */
int daily_open(server_t *srv, char want[DB_SECRET_HEX + 1]);
/* After it opened with want (db_guard_t.daily_secret; daily_read): held,
 * the secret it holds ("" none), into srv->daily_key, want wiped, and an
 * older server's default file renamed (daily_secret_retire) once the
 * database holds its secret or another. With daily-secret set, held is
 * only compared: a database holding another is logged as a warning
 * (srv->daily_held). 0, or -1 logged. */
int daily_keep(server_t *srv, char want[DB_SECRET_HEX + 1], const char *held);
/* Where this node's secret comes from, for warren-admin health ("the
 * database's", or daily-secret's file and how it stands to the database's). */
void daily_describe(const server_t *srv, char *out, size_t n);
/* The menu's d, the web's /play/daily (home loop, a logged-in c): today's
 * attempt resumed, or started when the account has none, or a clear
 * refusal in the menu (played already, another game in progress). */
void daily_play(conn_t *c);

#endif
