/* Unit tests: db — game names (schema.sql: game_names), what hosted games
 * know an account as: given at registration, folded and numbered when
 * taken, kept across renames, retired for ever by a delete, and given to
 * the accounts of an older database by migration 7. Real SQLite files, a
 * real libuv loop. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <uv.h>
#include "db.h"
#include "db_internal.h"
#include "db_fixture.h"

/* A new account, as registration makes it: its id. */
static int64_t create(fx_t *f, const char *name)
{
    char key[DB_NAME_MAX];
    size_t i = 0;
    for (; name[i] && i < sizeof key - 1; i++)
        key[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    key[i] = 0;
    fx_done_t d = {.status = -99};
    db_user_create(f->db, name, key, "$h", 1, fx_on_done, &d);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_msg(d.status == DB_OK, "create %s: %d", name, d.status);
    return d.id;
}

/* The game name of the account called name now. */
static const char *game_name(fx_t *f, const char *name)
{
    static fx_user_t r;
    r.status = -99;
    db_user_by_name(f->db, name, fx_on_user, &r);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_msg(r.status == DB_OK, "no account %s", name);
    return r.u.game_name;
}

START_TEST(registration_gives_each_account_its_own)
{
    fx_t f;
    fx_open(&f);
    static const struct {
        const char *name, *game;
    } cases[] = {
        {"carol", "carol"},      /* a valid game name: itself */
        {"carol-x", "carol_x"},  /* NetHack would cut at '-': folded */
        {"carol_x", "carol_x2"}, /* its fold is taken: numbered */
        {"bob", "bob"},
        {"bob-val", "bob_val"},
        {"BOB_VAL", "BOB_VAL2"},   /* taken ignoring case */
        {"bob_val2", "bob_val22"}, /* held by BOB_VAL: numbered after it */
        {"Player", "Player2"},     /* NetHack would ask who they are */
        {"nethack", "nethack2"},   /* so would it here */
        {"a-b-c-d-e-f-g-h-i-j", "a_b_c_d_e_f_g_h_i_j"},
        {"a_b_c_d_e_f_g_h_i-j", "a_b_c_d_e_f_g_h_i_j2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        create(&f, cases[i].name);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(game_name(&f, cases[i].name), cases[i].game);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(DISTINCT lower(name)) FROM game_names "
                                        "WHERE user IS NOT NULL"),
                     (int)(sizeof cases / sizeof cases[0]));
    /* a web session's account carries it too */
    fx_done_t d = {.status = -99};
    int64_t bob = create(&f, "sessioned");
    db_session_create(f.db, "tok", bob, 5000, fx_on_done, &d);
    fx_user_t s = {.status = -99};
    db_session_user(f.db, "tok", 1, fx_on_user, &s);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(s.status, DB_OK);
    ck_assert_str_eq(s.u.game_name, "sessioned");
    fx_close(&f);
}
END_TEST

START_TEST(rename_keeps_it_and_delete_retires_it)
{
    fx_t f;
    fx_open(&f);
    int64_t carol = create(&f, "carol");
    fx_done_t d = {.status = -99};
    db_user_rename(f.db, carol, "dave", "dave", fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_str_eq(game_name(&f, "dave"), "carol"); /* its saves follow it */
    create(&f, "carol");                              /* the old name, a new person */
    ck_assert_str_eq(game_name(&f, "carol"), "carol2");
    int64_t dave = carol;
    db_user_delete(f.db, dave, NULL, fx_on_done, &d);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(d.status, DB_OK);
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM game_names "
                                        "WHERE key = 'carol' AND user IS NULL"),
                     1);
    create(&f, "dave"); /* whoever comes next never gets "carol" */
    ck_assert_str_eq(game_name(&f, "dave"), "dave");
    fx_close(&f);
}
END_TEST

/* An account deleted behind the daemon's back (foreign keys off) whose id
 * SQLite gives again: the new account does not inherit the old game name. */
START_TEST(a_reused_id_gets_a_name_of_its_own)
{
    fx_t f;
    fx_open(&f);
    int64_t old = create(&f, "ghost");
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(f.path, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, "DELETE FROM users", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    char err[256];
    f.db = db_open(&f.loop, f.path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    ck_assert_int_eq(create(&f, "newcomer"), old);
    ck_assert_str_eq(game_name(&f, "newcomer"), "newcomer");
    ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM game_names WHERE key = 'ghost' "
                                        "AND user IS NULL"),
                     1);
    fx_close(&f);
}
END_TEST

/* A database of schema 6, before game names, as main at 51e7585 made it. */
START_TEST(migration_keeps_what_saves_were_made_under)
{
    fx_t f;
    fx_open_old(&f, 6,
                "INSERT INTO users(id, name, name_key, pwhash, created) VALUES "
                "(1, 'carol-x', 'carol-x', '$h', 1), (2, 'carol', 'carol', '$h', 1), "
                "(3, 'carol_x', 'carol_x', '$h', 1), (4, 'player', 'player', '$h', 1), "
                "(5, 'Bob', 'bob', '$h', 1), (6, 'x-y', 'x-y', '$h', 1), "
                "(7, 'x_y-', 'x_y-', '$h', 1);");
    ck_assert_int_eq(db_schema_version(f.db), db_migration_count());
    static const struct {
        const char *name, *game;
    } want[] = {
        {"carol", "carol"},      /* valid: kept, so its saves go on */
        {"carol_x", "carol_x"},  /* valid and free: kept, though a younger account */
        {"Bob", "Bob"},          /* case kept */
        {"carol-x", "carol_x2"}, /* folded, then numbered */
        {"player", "player2"},   /* generic to NetHack: never */
        {"x-y", "x_y"},          /* folded, oldest first */
        {"x_y-", "x_y_"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_str_eq(game_name(&f, want[i].name), want[i].game);
    if (!*fx_pg()) /* SQLite's migration fills them through a table of its own */
        ck_assert_int_eq(count_rows(f.path, "SELECT count(*) FROM sqlite_master "
                                            "WHERE name LIKE 'game_names_todo%'"),
                         0);
    create(&f, "carol-y"); /* and registration goes on after it */
    ck_assert_str_eq(game_name(&f, "carol-y"), "carol_y");
    fx_close(&f);
}
END_TEST

Suite *suite_db_game_names(void)
{
    Suite *s = suite_create("db_game_names");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, registration_gives_each_account_its_own);
    tcase_add_test(tc, rename_keeps_it_and_delete_retires_it);
    tcase_add_test(tc, a_reused_id_gets_a_name_of_its_own);
    tcase_add_test(tc, migration_keeps_what_saves_were_made_under);
    suite_add_tcase(s, tc);
    return s;
}

/* The same on PostgreSQL where WARREN_PG_URL names a server (its own
 * trigger and back-fill, schema_pg.c); the reused id is SQLite's alone. */
Suite *suite_db_game_names_pg(void)
{
    Suite *s = suite_create("db_game_names_pg");
    if (!getenv("WARREN_PG_URL"))
        return s;
    TCase *tc = tcase_create("postgresql");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, fx_use_pg, NULL);
    tcase_add_test(tc, registration_gives_each_account_its_own);
    tcase_add_test(tc, rename_keeps_it_and_delete_retires_it);
    tcase_add_test(tc, migration_keeps_what_saves_were_made_under);
    suite_add_tcase(s, tc);
    return s;
}
