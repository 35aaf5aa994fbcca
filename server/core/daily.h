/* daily — the daily game: every UTC day one seed and one character for
 * everyone, one attempt per account.
 *
 * The day's seed is a keyed hash (BLAKE2b, libsodium's generichash) of the
 * day's date under the server's secret, so nobody can work out a day's
 * seed, and scout its dungeon, before that day starts. The secret is a
 * file (config daily-secret; default DB.daily beside the database, or
 * ./warren.daily with PostgreSQL) made with 32 random bytes, mode 0600,
 * when absent; nodes sharing a database must share the file.
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
/* The day's seed: a pure function of key and day (YYYY-MM-DD), below 2^63. */
uint64_t daily_seed(const uint8_t key[DAILY_KEY_LEN], const char *day);
/* The UTC date of unix time t as YYYY-MM-DD. */
void daily_date(int64_t t, char out[DAILY_DATE_LEN]);
/* Seconds from t until the next UTC day starts (1..86400). */
int64_t daily_until_next(int64_t t);

/* At start (server_open, home loop): the secret into srv->daily_key.
 * 0, or -1 logged. */
int daily_open(server_t *srv);
/* The menu's d, the web's /play/daily (home loop, a logged-in c): today's
 * attempt resumed, or started when the account has none, or a clear
 * refusal in the menu (played already, another game in progress). */
void daily_play(conn_t *c);

#endif
