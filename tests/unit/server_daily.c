/* Unit tests: server/core/daily — the daily game's seed (the date hashed
 * under the server's secret: stable, different for another secret or
 * another day), its secret file (made 0600 when absent, read back the
 * same, narrowed when loose, refused when short, a link, a FIFO, a
 * directory or too long), an older
 * server's default file imported once (renamed, never over another),
 * daily-secret's file against the database's secret, the UTC day;
 * and records_query's reader of /daily/DATE. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "daily.h"
#include "server.h"
#include "records_query.h"

#define DAILY_SEED_GOLDEN 7754005363736230501ull /* daily_seed(7 x 32, "2026-11-28") */

static void key_of(uint8_t key[DAILY_KEY_LEN], uint8_t fill)
{
    memset(key, fill, DAILY_KEY_LEN);
}

/* The derivation is part of what a day means: a change would give every
 * server's days other dungeons than their players were told. */
START_TEST(seed_is_stable)
{
    uint8_t key[DAILY_KEY_LEN];
    key_of(key, 7);
    uint64_t a = daily_seed(key, "2026-11-28");
    ck_assert_uint_eq(a, daily_seed(key, "2026-11-28"));
    ck_assert_uint_eq(a, DAILY_SEED_GOLDEN);
    ck_assert_uint_lt(a, 1ull << 63);
}
END_TEST

START_TEST(seed_changes_with_secret_and_day)
{
    uint8_t k1[DAILY_KEY_LEN], k2[DAILY_KEY_LEN];
    key_of(k1, 7);
    key_of(k2, 7);
    k2[31] ^= 1; /* one bit of the secret */
    uint64_t a = daily_seed(k1, "2026-11-28");
    ck_assert_uint_ne(a, daily_seed(k2, "2026-11-28"));
    ck_assert_uint_ne(a, daily_seed(k1, "2026-11-29"));
    ck_assert_uint_ne(a, daily_seed(k1, "2025-11-28"));
}
END_TEST

static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "/tmp/warren-daily-unit-%ld-%s", (long)getpid(), name);
    unlink(out);
}

START_TEST(secret_made_once_0600)
{
    char path[200];
    tmp_path(path, sizeof path, "made");
    uint8_t a[DAILY_KEY_LEN], b[DAILY_KEY_LEN];
    char err[300];
    ck_assert_int_eq(daily_secret_load(path, a, err, sizeof err), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    ck_assert_int_ge(st.st_size, 32);
    ck_assert_int_eq(daily_secret_load(path, b, err, sizeof err), 0); /* read, not made again */
    ck_assert_mem_eq(a, b, DAILY_KEY_LEN);
    unlink(path);
    ck_assert_int_eq(daily_secret_load(path, b, err, sizeof err), 0); /* a new one */
    ck_assert(memcmp(a, b, DAILY_KEY_LEN) != 0);
    unlink(path);
}
END_TEST

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

START_TEST(secret_given_loose_short_link)
{
    char path[200], link[200], err[300];
    uint8_t a[DAILY_KEY_LEN], b[DAILY_KEY_LEN];
    tmp_path(path, sizeof path, "given");
    tmp_path(link, sizeof link, "link");
    write_file(path, "an operator's own secret phrase\n", 0644);
    ck_assert_int_eq(daily_secret_load(path, a, err, sizeof err), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);                 /* narrowed */
    write_file(path, "an operator's own secret phrase", 0600); /* the newline is no part */
    ck_assert_int_eq(daily_secret_load(path, b, err, sizeof err), 0);
    ck_assert_mem_eq(a, b, DAILY_KEY_LEN);
    write_file(path, "short\n", 0600);
    ck_assert_int_eq(daily_secret_load(path, b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at least 16 bytes"));
    ck_assert_int_eq(symlink(path, link), 0);
    ck_assert_int_eq(daily_secret_load(link, b, err, sizeof err), -1); /* never through a link */
    unlink(link);
    unlink(path);
}
END_TEST

/* A FIFO, a directory or a file past 4096 bytes where the secret should
 * be: refused at once, saying what it is, at daily-secret's path and at
 * the default one (a start never hangs on a FIFO no one writes to). */
START_TEST(secret_not_a_file_refused)
{
    config_t cfg = {0};
    char path[220], db[200], err[300];
    uint8_t key[DAILY_KEY_LEN];
    tmp_path(path, sizeof path, "odd");
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(daily_secret_load(path, key, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    tmp_path(db, sizeof db, "odd.db");
    snprintf(cfg.db, sizeof cfg.db, "%s", db);
    snprintf(path, sizeof path, "%s.daily", db);
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(daily_offer(&cfg, key, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    unlink(path);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(daily_offer(&cfg, key, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    rmdir(path);
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    write_file(path, big, 0600);
    ck_assert_int_eq(daily_offer(&cfg, key, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "larger than 4096 bytes"));
    unlink(path);
}
END_TEST

/* What daily_offer gives before the database is read: daily-secret's file
 * (made when absent); else an older server's default file (DB.daily),
 * read, never made; else random bytes, each time others. */
START_TEST(secret_offered_from_set_file_or_new)
{
    config_t cfg = {0};
    char db[200], deflt[220], set[200], err[300];
    tmp_path(db, sizeof db, "w.db");
    snprintf(deflt, sizeof deflt, "%s.daily", db);
    unlink(deflt);
    snprintf(cfg.db, sizeof cfg.db, "%s", db);
    uint8_t a[DAILY_KEY_LEN], b[DAILY_KEY_LEN];
    ck_assert_int_eq(daily_offer(&cfg, a, err, sizeof err), DAILY_FROM_NEW);
    ck_assert_int_eq(access(deflt, F_OK), -1); /* no file made */
    ck_assert_int_eq(daily_offer(&cfg, b, err, sizeof err), DAILY_FROM_NEW);
    ck_assert(memcmp(a, b, DAILY_KEY_LEN) != 0);
    write_file(deflt, "an older server's secret\n", 0600);
    ck_assert_int_eq(daily_offer(&cfg, a, err, sizeof err), DAILY_FROM_FILE);
    ck_assert_int_eq(daily_secret_load(deflt, b, err, sizeof err), 0);
    ck_assert_mem_eq(a, b, DAILY_KEY_LEN); /* the file's own key: its days keep their seeds */
    write_file(deflt, "short\n", 0600);
    ck_assert_int_eq(daily_offer(&cfg, a, err, sizeof err), -1);
    unlink(deflt);
    tmp_path(set, sizeof set, "set");
    snprintf(cfg.daily_secret, sizeof cfg.daily_secret, "%s", set);
    ck_assert_int_eq(daily_offer(&cfg, a, err, sizeof err), DAILY_FROM_SET);
    ck_assert_int_eq(daily_secret_load(set, b, err, sizeof err), 0); /* made, and read */
    ck_assert_mem_eq(a, b, DAILY_KEY_LEN);
    unlink(set);
}
END_TEST

static void read_text(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
}

/* An older server's default file, once imported, is renamed (kept, 0600),
 * never over another file of that name: a second one stays where it is. */
START_TEST(secret_retired_never_over_another)
{
    char path[200], to[240], want[240], err[300], text[100];
    tmp_path(path, sizeof path, "old.daily");
    snprintf(want, sizeof want, "%s%s", path, DAILY_IMPORTED);
    unlink(want);
    write_file(path, "an older server's secret\n", 0400);
    ck_assert_int_eq(daily_secret_retire(path, to, sizeof to, err, sizeof err), 0);
    ck_assert_str_eq(to, want);
    ck_assert_int_eq(access(path, F_OK), -1);
    struct stat st;
    ck_assert_int_eq(stat(to, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    read_text(to, text, sizeof text);
    ck_assert_str_eq(text, "an older server's secret\n");
    write_file(path, "another secret, made later\n", 0600);
    ck_assert_int_eq(daily_secret_retire(path, to, sizeof to, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot rename"));
    read_text(path, text, sizeof text);
    ck_assert_str_eq(text, "another secret, made later\n");
    read_text(want, text, sizeof text);
    ck_assert_str_eq(text, "an older server's secret\n"); /* not overwritten */
    unlink(path);
    unlink(want);
}
END_TEST

/* daily_open then daily_keep, as a start does, with the database holding
 * held (DB_SECRET_HEX hex, "" none): what daily_offer gave it. */
static int start_with(server_t *srv, const char *held)
{
    char want[DB_SECRET_HEX + 1], stored[DB_SECRET_HEX + 1];
    ck_assert_int_eq(daily_open(srv, want), 0);
    int from = srv->daily_from;
    memcpy(stored, held[0] ? held : want, sizeof stored); /* none held: want is stored */
    ck_assert_int_eq(daily_keep(srv, want, stored), 0);
    return from;
}

static void hex_of(const uint8_t key[DAILY_KEY_LEN], char out[DB_SECRET_HEX + 1])
{
    for (int i = 0; i < DAILY_KEY_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", key[i]);
}

/* A start imports the default file once: the key stored from it, the file
 * renamed; the next start reads no file (the database's key is kept). A
 * file whose key the database does not hold is renamed all the same. */
START_TEST(default_file_imported_once)
{
    server_t *srv = calloc(1, sizeof *srv);
    char db[200], deflt[220], imported[240], held[DB_SECRET_HEX + 1];
    tmp_path(db, sizeof db, "i.db");
    snprintf(deflt, sizeof deflt, "%s.daily", db);
    snprintf(imported, sizeof imported, "%s%s", deflt, DAILY_IMPORTED);
    unlink(imported);
    snprintf(srv->cfg.db, sizeof srv->cfg.db, "%s", db);
    write_file(deflt, "an older server's secret\n", 0600);
    ck_assert_int_eq(start_with(srv, ""), DAILY_FROM_FILE);
    hex_of(srv->daily_key, held);
    ck_assert_int_eq(access(deflt, F_OK), -1);
    ck_assert_int_eq(access(imported, F_OK), 0);
    uint8_t key[DAILY_KEY_LEN];
    memcpy(key, srv->daily_key, sizeof key);
    ck_assert_int_eq(start_with(srv, held), DAILY_FROM_NEW); /* no file read */
    ck_assert_mem_eq(srv->daily_key, key, DAILY_KEY_LEN);
    unlink(imported);
    write_file(deflt, "a file the database does not hold\n", 0600);
    ck_assert_int_eq(start_with(srv, held), DAILY_FROM_FILE);
    ck_assert_mem_eq(srv->daily_key, key, DAILY_KEY_LEN); /* the database wins */
    ck_assert_int_eq(access(deflt, F_OK), -1);
    ck_assert_int_eq(access(imported, F_OK), 0);
    unlink(imported);
    free(srv);
}
END_TEST

/* daily-secret's file wins; how it stands to the database's secret is
 * kept for health: the same, none there, or another (the warning). */
START_TEST(set_file_against_the_database)
{
    server_t *srv = calloc(1, sizeof *srv);
    char set[200], mine[DB_SECRET_HEX + 1], line[600], want[DB_SECRET_HEX + 1];
    const char *other = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    tmp_path(set, sizeof set, "set");
    snprintf(srv->cfg.daily_secret, sizeof srv->cfg.daily_secret, "%s", set);
    snprintf(srv->cfg.node, sizeof srv->cfg.node, "n1");
    static const struct {
        int held;
        const char *says;
    } cases[] = {{DAILY_HELD_NONE, "; the database holds none"},
                 {DAILY_HELD_SAME, ", the same as the database's"},
                 {DAILY_HELD_OTHER, "NOT the database's: players on nodes without daily-secret "
                                    "get another daily game; set it on every node or on none"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(daily_open(srv, want), 0);
        ck_assert_int_eq(srv->daily_from, DAILY_FROM_SET);
        ck_assert_str_eq(want, ""); /* nothing to store */
        hex_of(srv->daily_key, mine);
        const char *held = cases[i].held == DAILY_HELD_NONE   ? ""
                           : cases[i].held == DAILY_HELD_SAME ? mine
                                                              : other;
        ck_assert_int_eq(daily_keep(srv, want, held), 0);
        ck_assert_int_eq(srv->daily_held, cases[i].held);
        hex_of(srv->daily_key, want);
        ck_assert_str_eq(want, mine); /* the file's key, whatever the database holds */
        daily_describe(srv, line, sizeof line);
        ck_assert_msg(strstr(line, set) && strstr(line, cases[i].says), "%s", line);
    }
    unlink(set);
    free(srv);
}
END_TEST

START_TEST(utc_day)
{
    char day[DAILY_DATE_LEN];
    daily_date(0, day);
    ck_assert_str_eq(day, "1970-01-01");
    daily_date(1795824000 - 1, day); /* 2026-11-27 23:59:59 UTC */
    ck_assert_str_eq(day, "2026-11-27");
    daily_date(1795824000, day);
    ck_assert_str_eq(day, "2026-11-28");
    ck_assert_int_eq(daily_until_next(1795824000), 86400);
    ck_assert_int_eq(daily_until_next(1795824000 - 1), 1);
}
END_TEST

START_TEST(date_in_urls)
{
    char day[11], err[160];
    ck_assert_int_eq(rq_daily_date("2026-11-28", day, err, sizeof err), 0);
    ck_assert_str_eq(day, "2026-11-28");
    ck_assert_int_eq(rq_daily_date("2024-02-29", day, err, sizeof err), 0); /* leap */
    ck_assert_int_eq(rq_daily_date("2000-02-29", day, err, sizeof err), 0);
    static const char *const bad[] = {
        "2023-02-29", "1900-02-29", "2026-13-01", "2026-00-10",   "2026-11-31",  "2026-11-00",
        "1999-12-31", "26-11-28",   "2026-1-28",  "2026/11/28",   "2026-11-28x", "",
        "abcd-ef-gh", "2026-11-2a", "+026-11-28", "2026-11-28/x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(rq_daily_date(bad[i], day, err, sizeof err) == 400, "%s", bad[i]);
        ck_assert_str_eq(day, "");
        ck_assert_ptr_nonnull(strstr(err, "bad date"));
    }
}
END_TEST

Suite *suite_server_daily(void)
{
    Suite *s = suite_create("server_daily");
    TCase *t = tcase_create("daily");
    tcase_add_test(t, seed_is_stable);
    tcase_add_test(t, seed_changes_with_secret_and_day);
    tcase_add_test(t, secret_made_once_0600);
    tcase_add_test(t, secret_given_loose_short_link);
    tcase_add_test(t, secret_not_a_file_refused);
    tcase_add_test(t, secret_offered_from_set_file_or_new);
    tcase_add_test(t, secret_retired_never_over_another);
    tcase_add_test(t, default_file_imported_once);
    tcase_add_test(t, set_file_against_the_database);
    tcase_add_test(t, utc_day);
    tcase_add_test(t, date_in_urls);
    suite_add_tcase(s, t);
    return s;
}
