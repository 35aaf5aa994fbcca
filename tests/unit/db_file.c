/* Unit tests: db_file — the database as a file: made 0600 whatever the
 * umask, wider modes narrowed, its id kept in PATH.id (a missing, empty or
 * different database refused), the daily secret stored once or only read,
 * the quick check at open (damage refused, a
 * check cut short by its budget), the full check, the stat that sees the
 * file deleted or replaced, and the fence. Real SQLite files in a
 * temporary directory, a real libuv loop. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <uv.h>
#include "db.h"
#include "db_fixture.h"

static const db_guard_t GUARD = {.keep_id = true, .check_ms = 10000};

typedef struct {
    int calls, status;
    db_check_t c;
} check_res_t;

static void on_check(void *ud, int status, const db_check_t *c)
{
    check_res_t *r = ud;
    r->calls++;
    r->status = status;
    if (c)
        r->c = *c;
}

/* A temporary directory and the database path in it. */
static void temp_db(char *dir, size_t dn, char *path, size_t pn)
{
    snprintf(dir, dn, "/tmp/warren-dbfile-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, pn, "%s/w.db", dir);
}

static void rm_dir(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Opens path guarded on loop: the handle, or NULL with the message in err. */
static db_t *open_guarded(uv_loop_t *loop, const char *path, db_opened_t *o, char *err, size_t n)
{
    db_t *db = db_open_guarded(loop, path, &GUARD, o, err, n);
    if (!db)
        uv_run(loop, UV_RUN_DEFAULT);
    return db;
}

static void close_db(uv_loop_t *loop, db_t *db)
{
    db_close(db);
    uv_run(loop, UV_RUN_DEFAULT);
}

/* The database at path opened under g and closed: the daily secret it
 * gave was want. */
static void opens_with(uv_loop_t *loop, const char *path, const db_guard_t *g, const char *want)
{
    char err[256];
    db_opened_t o;
    db_t *x = db_open_guarded(loop, path, g, &o, err, sizeof err);
    ck_assert_msg(x != NULL, "%s", err);
    ck_assert_str_eq(o.daily_secret, want);
    close_db(loop, x);
}

/* Triggers in the file at path that refuse every write to meta, with
 * "meta written": an opening that writes there fails with it. */
static void meta_read_only(const char *path)
{
#define REFUSE "BEGIN SELECT RAISE(ABORT, 'meta written'); END;"
    const char *sql = "CREATE TRIGGER meta_no_insert BEFORE INSERT ON meta " REFUSE
                      "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta " REFUSE
                      "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta " REFUSE;
#undef REFUSE
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "no %s", path);
    return (unsigned)(st.st_mode & 07777);
}

static void side(const char *path, const char *suffix, char *out, size_t n)
{
    snprintf(out, n, "%s%s", path, suffix);
}

/* The first line of PATH.id. */
static void kept_id(const char *path, char *id, size_t n)
{
    char p[200];
    side(path, ".id", p, sizeof p);
    FILE *f = fopen(p, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(id, (int)n, f));
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
}

START_TEST(new_files_are_0600_whatever_the_umask)
{
    char dir[64], path[128], p[160], err[1024];
    temp_db(dir, sizeof dir, path, sizeof path);
    mode_t old = umask(0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    db_opened_t o;
    db_t *db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert(o.created && o.id_written);
    ck_assert_int_eq((int)strlen(o.id), 32);
    ck_assert_int_eq(o.check, DB_CHECK_OK);
    ck_assert_int_eq(o.nfixed, 0);
    fx_done_t d = {0};
    db_user_create(db, "ann", "ann", "h", 1, fx_on_done, &d);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    static const char *const suffixes[] = {"", "-wal", "-shm", ".id"};
    for (int i = 0; i < 4; i++) {
        side(path, suffixes[i], p, sizeof p);
        ck_assert_msg(mode_of(p) == 0600, "%s has mode %o", p, mode_of(p));
    }
    char id[64];
    kept_id(path, id, sizeof id);
    ck_assert_str_eq(id, o.id);
    close_db(&loop, db);
    umask(old);

    /* Modes opened up while it was stopped are narrowed at the next open. */
    chmod(path, 0644);
    side(path, ".id", p, sizeof p);
    chmod(p, 0660);
    db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert(!o.created && !o.id_written);
    ck_assert_str_eq(o.id, id);
    ck_assert_int_eq(o.nfixed, 2);
    ck_assert_str_eq(o.fixed[0].path, path);
    ck_assert_uint_eq(o.fixed[0].mode, 0644);
    ck_assert_uint_eq(o.fixed[1].mode, 0660);
    ck_assert_uint_eq(mode_of(path), 0600);
    ck_assert_uint_eq(mode_of(p), 0600);
    close_db(&loop, db);
    /* 0640 is an operator's choice: kept */
    chmod(path, 0640);
    db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_int_eq(o.nfixed, 0);
    ck_assert_uint_eq(mode_of(path), 0640);
    close_db(&loop, db);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(kept_id_refuses_a_missing_empty_or_other_database)
{
    char dir[64], path[128], other[160], p[160], err[1024];
    temp_db(dir, sizeof dir, path, sizeof path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    db_opened_t o, o2;
    db_t *db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    close_db(&loop, db);

    /* missing: refused, and no new file made in its place */
    snprintf(other, sizeof other, "%s/kept.db", dir);
    ck_assert_int_eq(rename(path, other), 0);
    ck_assert_ptr_null(open_guarded(&loop, path, &o2, err, sizeof err));
    ck_assert_msg(strstr(err, "is missing") && strstr(err, o.id) && strstr(err, ".id"), "%s", err);
    ck_assert_int_eq(access(path, F_OK), -1);
    /* empty: refused */
    close(open(path, O_CREAT | O_WRONLY, 0600));
    ck_assert_ptr_null(open_guarded(&loop, path, &o2, err, sizeof err));
    ck_assert_msg(strstr(err, "carries no id"), "%s", err);
    unlink(path);
    /* another database: refused, naming both ids */
    snprintf(p, sizeof p, "%s/b.db", dir);
    db = db_open(&loop, p, err, sizeof err);
    ck_assert_ptr_nonnull(db);
    close_db(&loop, db);
    ck_assert_int_eq(rename(p, path), 0);
    ck_assert_ptr_null(open_guarded(&loop, path, &o2, err, sizeof err));
    ck_assert_msg(strstr(err, "the file was replaced") && strstr(err, o.id), "%s", err);
    /* the right one back: opens */
    ck_assert_int_eq(rename(other, path), 0);
    db = open_guarded(&loop, path, &o2, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert_str_eq(o2.id, o.id);
    close_db(&loop, db);
    /* PATH.id deleted on purpose: the database there is kept anew */
    side(path, ".id", p, sizeof p);
    ck_assert_int_eq(unlink(p), 0);
    db = open_guarded(&loop, path, &o2, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert(o2.id_written && !o2.created);
    close_db(&loop, db);
    /* a PATH.id that holds no id */
    FILE *f = fopen(p, "w");
    fputs("not an id\n", f);
    fclose(f);
    ck_assert_ptr_null(open_guarded(&loop, path, &o2, err, sizeof err));
    ck_assert_msg(strstr(err, "does not hold a database id"), "%s", err);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    rm_dir(dir);
}
END_TEST

/* rows rows of 200 bytes in a table of their own, straight into the file. */
static void fill(const char *path, int rows)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE TABLE filler(x BLOB NOT NULL); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
             "SELECT i + 1 FROM n WHERE i < %d) INSERT INTO filler SELECT randomblob(200) FROM n;",
             rows);
    ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
    sqlite3_close(h);
}

/* Random bytes over pages [from, from + n) of 4096 bytes. */
static void damage(const char *path, long from, int n)
{
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    char page[4096];
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof page; k++)
            page[k] = (char)(rand() & 0xff);
        ck_assert_int_eq(pwrite(fd, page, sizeof page, (from + i) * 4096), (ssize_t)sizeof page);
    }
    close(fd);
}

START_TEST(quick_check_refuses_damage_and_keeps_its_budget)
{
    char dir[64], path[128], err[1024];
    temp_db(dir, sizeof dir, path, sizeof path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    db_opened_t o;
    db_t *db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    close_db(&loop, db);
    fill(path, 40000); /* about 9 MB */

    /* the full check finds nothing */
    db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert_int_eq(o.check, DB_CHECK_OK);
    check_res_t r = {0};
    db_check(db, on_check, &r);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.status, DB_OK);
    ck_assert_int_eq(r.c.problems, 0);
    ck_assert_str_eq(r.c.text, "ok");
    close_db(&loop, db);

    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    damage(path, st.st_size / 4096 / 2, 4);
    ck_assert_ptr_null(open_guarded(&loop, path, &o, err, sizeof err));
    ck_assert_msg(strstr(err, "is damaged") && strstr(err, "Restore it from a backup"), "%s", err);

    /* a budget too short to reach the damage: opened, the check cut short */
    db_guard_t quick = {.keep_id = true, .check_ms = 1};
    db = db_open_guarded(&loop, path, &quick, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert_int_eq(o.check, DB_CHECK_CUT);
    ck_assert_int_lt(o.check_ms, 1000);
    /* and the full check on request finds it */
    memset(&r, 0, sizeof r);
    db_check(db, on_check, &r);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_msg(r.status != DB_OK || r.c.problems > 0, "no problem found: %s", r.c.text);
    close_db(&loop, db);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(deleted_file_is_seen_and_fenced)
{
    char dir[64], path[128], p[160], why[128], err[1024];
    temp_db(dir, sizeof dir, path, sizeof path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    db_opened_t o;
    db_t *db = open_guarded(&loop, path, &o, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    ck_assert_int_eq(db_file_state(db, why, sizeof why), DB_OK);
    /* another file moved over the path */
    snprintf(p, sizeof p, "%s/copy", dir);
    close(open(p, O_CREAT | O_WRONLY, 0600));
    char keep[160];
    snprintf(keep, sizeof keep, "%s/keep.db", dir);
    ck_assert_int_eq(link(path, keep), 0); /* the open file keeps a name */
    ck_assert_int_eq(rename(p, path), 0);
    ck_assert_int_eq(db_file_state(db, why, sizeof why), DB_ERR);
    ck_assert_str_eq(why, "was replaced by another file");
    ck_assert_int_eq(unlink(keep), 0); /* now the open file has none */
    ck_assert_int_eq(db_file_state(db, why, sizeof why), DB_ERR);
    ck_assert_str_eq(why, "was deleted, and another file put in its place");
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(db_file_state(db, why, sizeof why), DB_ERR);
    ck_assert_str_eq(why, "was deleted");

    /* fenced: every write fails with the message (SQLite alone would
     * store it into the deleted file) */
    db_fence(db, "the database file was deleted");
    fx_done_t d = {0};
    db_user_create(db, "bo", "bo", "h", 1, fx_on_done, &d);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(d.status, DB_ERR);
    ck_assert_str_eq(db_error(db), "the database file was deleted");
    close_db(&loop, db);
    /* what SQLite left of the lost file is moved aside, never read by the next one */
    side(path, "-wal.lost", p, sizeof p);
    ck_assert_int_eq(access(p, F_OK), 0);
    side(path, "-wal", p, sizeof p);
    ck_assert_int_eq(access(p, F_OK), -1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(writer_state_shows_a_batch_running)
{
    fx_t f;
    fx_open(&f);
    db_writer_t w;
    db_writer_state(f.db, &w);
    ck_assert_uint_eq(w.started_ns, 0);
    /* another connection holds the write lock: the writer's batch waits */
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(f.path, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    fx_done_t d = {0};
    db_user_create(f.db, "cy", "cy", "h", 1, fx_on_done, &d);
    db_flush(f.db);
    for (int i = 0; i < 200 && !w.started_ns; i++) {
        usleep(5000);
        db_writer_state(f.db, &w);
    }
    ck_assert_uint_ne(w.started_ns, 0);
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(h);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    db_writer_t after;
    db_writer_state(f.db, &after);
    ck_assert_uint_eq(after.started_ns, 0);
    ck_assert_uint_gt(after.ended_ns, w.started_ns);
    fx_close(&f);
}
END_TEST

/* The daily secret (db_guard_t.daily_secret) stored in the file once: a
 * second opening with another is given the first, and so is one after a
 * reopening, which writes nothing to meta (triggers refuse it: a start
 * once the row is there writes nothing); an opening without one leaves
 * it. */
START_TEST(daily_secret_stored_once)
{
    char dir[64], path[128], err[256];
    temp_db(dir, sizeof dir, path, sizeof path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    const char *a = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const char *b = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    db_guard_t ga = GUARD, gb = GUARD;
    ga.daily_secret = a;
    gb.daily_secret = b;
    db_opened_t o;
    db_t *x = db_open_guarded(&loop, path, &ga, &o, err, sizeof err);
    ck_assert_msg(x != NULL, "%s", err);
    ck_assert_str_eq(o.daily_secret, a);
    db_t *y = db_open_guarded(&loop, path, &gb, &o, err, sizeof err);
    ck_assert_msg(y != NULL, "%s", err);
    ck_assert_str_eq(o.daily_secret, a);
    close_db(&loop, y);
    close_db(&loop, x);
    opens_with(&loop, path, &GUARD, "");
    meta_read_only(path);
    opens_with(&loop, path, &gb, a);
    uv_loop_close(&loop);
    rm_dir(dir);
}
END_TEST

/* db_guard_t.daily_read: the secret held is read and none stored (meta's
 * triggers refuse any write): "" while there is none, then the one held. */
START_TEST(daily_secret_only_read)
{
    char dir[64], path[128];
    temp_db(dir, sizeof dir, path, sizeof path);
    uv_loop_t loop;
    uv_loop_init(&loop);
    const char *a = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    db_guard_t ga = GUARD, gr = GUARD;
    ga.daily_secret = a;
    gr.daily_read = true;
    opens_with(&loop, path, &GUARD, ""); /* made, with its id */
    meta_read_only(path);
    opens_with(&loop, path, &gr, "");
    rm_dir(dir);
    temp_db(dir, sizeof dir, path, sizeof path);
    opens_with(&loop, path, &ga, a);
    meta_read_only(path);
    opens_with(&loop, path, &gr, a);
    uv_loop_close(&loop);
    rm_dir(dir);
}
END_TEST

/* A daily secret row in the database that is not 64 lower-case hex
 * digits (cut short, too long, upper case, not hex, empty) refuses the
 * opening with a clear message, which holds neither that row nor the
 * secret offered. */
START_TEST(daily_secret_malformed_row_refused)
{
    static const char *const bad[] = {
        "'0123456789abcdef'",
        "'0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0'",
        "'0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF'",
        "'0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef'",
        "''",
    };
    const char *offer = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[64], path[128], err[256], sql[200];
        temp_db(dir, sizeof dir, path, sizeof path);
        uv_loop_t loop;
        uv_loop_init(&loop);
        db_guard_t g = GUARD;
        db_opened_t o;
        db_t *x = open_guarded(&loop, path, &o, err, sizeof err);
        ck_assert_msg(x != NULL, "%s", err);
        close_db(&loop, x);
        sqlite3 *h;
        snprintf(sql, sizeof sql, "INSERT INTO meta(key, value) VALUES ('daily_secret', %s)",
                 bad[i]);
        ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
        ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        g.daily_secret = offer;
        ck_assert(db_open_guarded(&loop, path, &g, &o, err, sizeof err) == NULL);
        uv_run(&loop, UV_RUN_DEFAULT);
        ck_assert_msg(strstr(err, "the daily secret the database holds is not 64 hex digits"), "%s",
                      err);
        ck_assert_msg(!strstr(err, "0123456789") && !strstr(err, "fedcba"), "%s", err);
        uv_loop_close(&loop);
        rm_dir(dir);
    }
}
END_TEST

Suite *suite_db_file(void)
{
    Suite *s = suite_create("db_file");
    TCase *tc = tcase_create("file");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, new_files_are_0600_whatever_the_umask);
    tcase_add_test(tc, daily_secret_stored_once);
    tcase_add_test(tc, daily_secret_only_read);
    tcase_add_test(tc, daily_secret_malformed_row_refused);
    tcase_add_test(tc, kept_id_refuses_a_missing_empty_or_other_database);
    tcase_add_test(tc, quick_check_refuses_damage_and_keeps_its_budget);
    tcase_add_test(tc, deleted_file_is_seen_and_fenced);
    tcase_add_test(tc, writer_state_shows_a_batch_running);
    suite_add_tcase(s, tc);
    return s;
}
