/* Unit tests: server/accounts — rules, register/login/change with real
 * argon2id (minimum cost), one answer for unknown names and wrong passwords,
 * throttling windows driven by a test clock. Real SQLite, real libuv loop. */
#include <check.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "accounts.h"

typedef struct {
    char dir[64];
    uv_loop_t loop;
    db_t *db;
    accounts_t *acc;
} afx_t;

static void afx_open(afx_t *f, const accounts_config_t *cfg)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/warren-acctest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/w.db", f->dir);
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    f->db = db_open(&f->loop, path, err, sizeof err);
    ck_assert_msg(f->db != NULL, "%s", err);
    accounts_config_t c;
    if (cfg)
        c = *cfg;
    else
        accounts_config_default(&c);
    if (!c.opslimit) { /* cheap hashes unless the test sets a cost */
        c.opslimit = crypto_pwhash_OPSLIMIT_MIN;
        c.memlimit = crypto_pwhash_MEMLIMIT_MIN;
    }
    f->acc = accounts_new(&f->loop, f->db, &c);
    ck_assert_ptr_nonnull(f->acc);
}

/* After the loop is closed: the database's directory goes. */
static void afx_remove_dir(afx_t *f)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void afx_close(afx_t *f)
{
    accounts_free(f->acc);
    db_close(f->db);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&f->loop), 0);
    afx_remove_dir(f);
}

typedef struct {
    int calls, status;
    int64_t id;
    char name[32], pwhash[128], msg[160];
} res_t;

static void on_acc(void *ud, int status, const db_user_t *u, const char *msg)
{
    res_t *r = ud;
    r->calls++;
    r->status = status;
    snprintf(r->msg, sizeof r->msg, "%s", msg);
    if (u) {
        r->id = u->id;
        snprintf(r->name, sizeof r->name, "%s", u->name);
        memcpy(r->pwhash, u->pwhash, sizeof r->pwhash);
    }
}

typedef int (*acc_call_t)(accounts_t *a, const char *ip, const char *name, const char *pw,
                          size_t pwlen, uint64_t now_ms, accounts_cb cb, void *ud);

/* One accounts_register or accounts_login, run until it has answered. */
static res_t do_call(afx_t *f, acc_call_t call, const char *ip, const char *name, const char *pw,
                     uint64_t now)
{
    res_t r = {0};
    ck_assert_int_eq(call(f->acc, ip, name, pw, strlen(pw), now, on_acc, &r), 0);
    ck_assert_int_eq(r.calls, 0); /* never inside the call */
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 1);
    return r;
}

static res_t do_register(afx_t *f, const char *ip, const char *name, const char *pw, uint64_t now)
{
    return do_call(f, accounts_register, ip, name, pw, now);
}

static res_t do_login(afx_t *f, const char *ip, const char *name, const char *pw, uint64_t now)
{
    return do_call(f, accounts_login, ip, name, pw, now);
}

START_TEST(name_and_password_rules)
{
    const char *good[] = {"ab", "Zed", "a_b-9", "ABCDEFGHIJKLMNOPQRST", "--", "0_0"};
    const char *bad[] = {
        "",        "a",    "ABCDEFGHIJKLMNOPQRSTU", "a b", "caf\xc3\xa9", "a.b", "a/b", "x\ty",
        "'; drop", "a\x01"};
    char msg[160];
    for (unsigned i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(accounts_check_name(good[i], msg, sizeof msg) == 0, "%s", good[i]);
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        msg[0] = 0;
        ck_assert_msg(accounts_check_name(bad[i], msg, sizeof msg) == -1, "%s", bad[i]);
        ck_assert_str_ne(msg, "");
    }
    ck_assert_int_eq(accounts_check_name(NULL, msg, sizeof msg), -1);
    char pw[200];
    memset(pw, 'p', sizeof pw);
    ck_assert_int_eq(accounts_check_password(pw, 7, msg, sizeof msg), -1);
    ck_assert_int_eq(accounts_check_password(pw, 8, msg, sizeof msg), 0);
    ck_assert_int_eq(accounts_check_password(pw, 128, msg, sizeof msg), 0);
    ck_assert_int_eq(accounts_check_password(pw, 129, msg, sizeof msg), -1);
    /* characters, not bytes: eight two-byte letters pass, 4 do not (8 bytes) */
    const char *e8 = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    ck_assert_int_eq(accounts_check_password(e8, 16, msg, sizeof msg), 0);
    ck_assert_int_eq(accounts_check_password(e8, 8, msg, sizeof msg), -1);
    ck_assert_str_eq(msg, "Passwords are 8 to 128 characters long.");
    char wide[128 * 3 + 1]; /* 128 three-byte characters: 384 bytes, allowed */
    for (int i = 0; i < 128; i++)
        memcpy(wide + i * 3, "\xe2\x9c\x93", 3);
    ck_assert_int_eq(accounts_check_password(wide, 384, msg, sizeof msg), 0);
    ck_assert_int_eq(accounts_check_password(NULL, 10, msg, sizeof msg), -1);
    char key[DB_NAME_MAX];
    accounts_name_key("MiXeD_Case-1", key);
    ck_assert_str_eq(key, "mixed_case-1");
}
END_TEST

START_TEST(register_login_and_one_message)
{
    afx_t f;
    afx_open(&f, NULL);
    res_t r = do_register(&f, "1.1.1.1", "Zed", "correct horse", 1000);
    ck_assert_int_eq(r.status, ACCOUNTS_OK);
    ck_assert_int_gt(r.id, 0);
    ck_assert_str_eq(r.name, "Zed");
    ck_assert_str_eq(r.msg, "");
    /* Unique ignoring case. */
    res_t dup = do_register(&f, "1.1.1.2", "zED", "another pass", 1000);
    ck_assert_int_eq(dup.status, ACCOUNTS_EEXISTS);
    ck_assert_str_ne(dup.msg, "");
    /* Rules are checked on register too. */
    ck_assert_int_eq(do_register(&f, "1.1.1.3", "x", "long enough", 1000).status, ACCOUNTS_EINVAL);
    ck_assert_int_eq(do_register(&f, "1.1.1.3", "okname", "short", 1000).status, ACCOUNTS_EINVAL);

    res_t ok = do_login(&f, "2.2.2.2", "ZED", "correct horse", 2000);
    ck_assert_int_eq(ok.status, ACCOUNTS_OK);
    ck_assert_int_eq(ok.id, r.id);
    ck_assert_str_eq(ok.name, "Zed");
    ck_assert_str_eq(ok.pwhash, ""); /* never handed out */
    res_t wrong = do_login(&f, "2.2.2.2", "zed", "wrong horse", 2000);
    res_t unknown = do_login(&f, "2.2.2.2", "nobody", "wrong horse", 2000);
    res_t invalid = do_login(&f, "2.2.2.2", "bad name!", "wrong horse", 2000);
    ck_assert_int_eq(wrong.status, ACCOUNTS_EDENIED);
    ck_assert_int_eq(unknown.status, ACCOUNTS_EDENIED);
    ck_assert_int_eq(invalid.status, ACCOUNTS_EDENIED);
    ck_assert_str_eq(wrong.msg, unknown.msg);
    ck_assert_str_eq(wrong.msg, invalid.msg);
    /* The stored hash is argon2id, not the password. */
    afx_close(&f);
}
END_TEST

typedef struct {
    int calls;
    char hash[128];
} hash_res_t;

static void on_user_hash(void *ud, int status, const db_user_t *u)
{
    hash_res_t *h = ud;
    h->calls++;
    if (status == DB_OK)
        snprintf(h->hash, sizeof h->hash, "%s", u->pwhash);
}

/* The hash the database holds for name, read to its answer. */
static hash_res_t stored_hash(afx_t *f, const char *name)
{
    hash_res_t h = {0};
    db_user_by_name(f->db, name, on_user_hash, &h);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    return h;
}

/* An unknown name costs a verify too: its time is close to a wrong password's. */
START_TEST(unknown_name_costs_a_verify)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.ip_free_failures = c.account_free_failures = 1000;
    c.opslimit = 3;
    c.memlimit = 4u << 20; /* a few ms per verify: well above the db read */
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "ip", "timed", "the password", 0).status, ACCOUNTS_OK);
    uint64_t best_wrong = UINT64_MAX, best_unknown = UINT64_MAX;
    for (int i = 0; i < 7; i++) {
        uint64_t t0 = uv_hrtime();
        ck_assert_int_eq(do_login(&f, "ip", "timed", "not the password", 1).status,
                         ACCOUNTS_EDENIED);
        uint64_t t1 = uv_hrtime();
        ck_assert_int_eq(do_login(&f, "ip", "untimed", "not the password", 1).status,
                         ACCOUNTS_EDENIED);
        uint64_t t2 = uv_hrtime();
        if (t1 - t0 < best_wrong)
            best_wrong = t1 - t0;
        if (t2 - t1 < best_unknown)
            best_unknown = t2 - t1;
    }
    /* Loose bounds: the machine may be busy; skipping the verify is ~100x faster. */
    ck_assert_msg(best_unknown * 10 > best_wrong && best_wrong * 10 > best_unknown,
                  "wrong %llu ns, unknown %llu ns", (unsigned long long)best_wrong,
                  (unsigned long long)best_unknown);
    afx_close(&f);
}
END_TEST

START_TEST(stored_hash_is_argon2id)
{
    afx_t f;
    afx_open(&f, NULL);
    ck_assert_int_eq(do_register(&f, "ip", "hasher", "secret pass", 1).status, ACCOUNTS_OK);
    hash_res_t h = stored_hash(&f, "HASHER");
    ck_assert_int_eq(h.calls, 1);
    ck_assert_msg(strncmp(h.hash, "$argon2id$", 10) == 0, "%s", h.hash);
    ck_assert_ptr_null(strstr(h.hash, "secret pass"));
    ck_assert_int_eq(crypto_pwhash_str_verify(h.hash, "secret pass", 11), 0);
    afx_close(&f);
}
END_TEST

START_TEST(login_upgrades_old_hash_cost)
{
    afx_t f;
    afx_open(&f, NULL);
    ck_assert_int_eq(do_register(&f, "ip", "olduser", "old cost pw", 0).status, ACCOUNTS_OK);
    hash_res_t before = stored_hash(&f, "olduser");
    accounts_free(f.acc);
    accounts_config_t c;
    accounts_config_default(&c);
    c.opslimit = crypto_pwhash_OPSLIMIT_MIN + 1;
    c.memlimit = crypto_pwhash_MEMLIMIT_MIN;
    f.acc = accounts_new(&f.loop, f.db, &c);
    ck_assert_int_eq(do_login(&f, "ip", "olduser", "old cost pw", 1).status, ACCOUNTS_OK);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    hash_res_t after = stored_hash(&f, "olduser");
    ck_assert_str_ne(before.hash, after.hash);
    ck_assert_int_eq(crypto_pwhash_str_needs_rehash(after.hash, c.opslimit, c.memlimit), 0);
    ck_assert_int_eq(do_login(&f, "ip", "olduser", "old cost pw", 2).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

/* Cat's password changed from old to pw, from "ip" at now: the answer. */
static int change_cats(afx_t *f, const char *old, const char *pw, uint64_t now)
{
    res_t r = {0};
    ck_assert_int_eq(accounts_change_password(f->acc, "ip", "cat", old, strlen(old), pw, strlen(pw),
                                              NULL, now, on_acc, &r),
                     0);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    return r.status;
}

START_TEST(change_password)
{
    afx_t f;
    afx_open(&f, NULL);
    ck_assert_int_eq(do_register(&f, "ip", "Cat", "first password", 1).status, ACCOUNTS_OK);
    ck_assert_int_eq(change_cats(&f, "not it at all", "second password", 2), ACCOUNTS_EDENIED);
    ck_assert_int_eq(change_cats(&f, "first password", "short", 3), ACCOUNTS_EINVAL);
    ck_assert_int_eq(change_cats(&f, "first password", "second password", 4), ACCOUNTS_OK);
    ck_assert_int_eq(do_login(&f, "ip", "Cat", "first password", 5).status, ACCOUNTS_EDENIED);
    ck_assert_int_eq(do_login(&f, "ip", "Cat", "second password", 6).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

/* Failures close a (name, address) pair, never the name alone. */
START_TEST(account_throttle_backs_off)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.account_free_failures = 2;
    c.ip_free_failures = 1000;
    c.backoff_base_ms = 1000;
    c.backoff_max_ms = 4000;
    c.forget_ms = 60000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "r", "dora", "the password", 0).status, ACCOUNTS_OK);
    uint64_t t = 10000;
    ck_assert_int_eq(do_login(&f, "a", "dora", "guess one!", t).status, ACCOUNTS_EDENIED);
    ck_assert_int_eq(do_login(&f, "a", "dora", "guess two!", t).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t), 0);
    ck_assert_int_eq(do_login(&f, "a", "DORA", "guess three", t).status, ACCOUNTS_EDENIED);
    /* Third failure: closed for the base window from that address, even with
     * the right password; from any other address the owner logs in. */
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t), 1000);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "z", "dora", t), 0);
    res_t th = do_login(&f, "a", "dora", "the password", t + 999);
    ck_assert_int_eq(th.status, ACCOUNTS_ETHROTTLED);
    ck_assert_str_eq(th.msg, "Too many attempts. Try again in 1 second."); /* not "1 seconds" */
    ck_assert_int_eq(do_login(&f, "d", "dora", "the password", t + 999).status, ACCOUNTS_OK);
    /* Windows double, up to the maximum. */
    ck_assert_int_eq(do_login(&f, "a", "dora", "guess four", t + 1000).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t + 1000), 2000);
    ck_assert_int_eq(do_login(&f, "a", "dora", "guess five", t + 3000).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t + 3000), 4000);
    ck_assert_int_eq(do_login(&f, "a", "dora", "guess six!", t + 7000).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t + 7000), 4000);
    /* Another account from that address is not affected. */
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "other", t + 7000), 0);
    /* After the window the right password works and clears the count. */
    ck_assert_int_eq(do_login(&f, "a", "dora", "the password", t + 11000).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_login(&f, "a", "dora", "oops wrong", t + 11000).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t + 11000), 0);
    /* Failures are forgotten after a quiet period. */
    ck_assert_int_eq(do_login(&f, "a", "dora", "oops again", t + 11001).status, ACCOUNTS_EDENIED);
    ck_assert_int_eq(do_login(&f, "a", "dora", "oops thrice", t + 80000).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "a", "dora", t + 80000), 0);
    afx_close(&f);
}
END_TEST

/* The attack of the issue: twenty failures from one address, with the
 * defaults; the owner from another address is let in at once. */
START_TEST(a_stranger_cannot_lock_the_owner_out)
{
    afx_t f;
    afx_open(&f, NULL);
    ck_assert_int_eq(do_register(&f, "r", "owner", "owner password", 0).status, ACCOUNTS_OK);
    int throttled = 0;
    for (int i = 0; i < 20; i++) {
        int st = do_login(&f, "6.6.6.6", "owner", "bad guess!", 1000).status;
        ck_assert(st == ACCOUNTS_EDENIED || st == ACCOUNTS_ETHROTTLED);
        throttled += st == ACCOUNTS_ETHROTTLED;
    }
    ck_assert_int_gt(throttled, 0);
    ck_assert_int_eq(do_login(&f, "6.6.6.6", "owner", "owner password", 1000).status,
                     ACCOUNTS_ETHROTTLED);
    ck_assert_int_eq(do_login(&f, "7.7.7.7", "owner", "owner password", 1000).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

START_TEST(ip_throttle)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.ip_free_failures = 3;
    c.account_free_failures = 1000;
    c.backoff_base_ms = 5000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "r", "eve", "eve password", 0).status, ACCOUNTS_OK);
    const char *names[] = {"u1", "u2", "u3", "u4"};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(do_login(&f, "6.6.6.6", names[i], "whatever!", 100).status,
                         ACCOUNTS_EDENIED);
    ck_assert_int_eq(do_login(&f, "6.6.6.6", "eve", "eve password", 200).status,
                     ACCOUNTS_ETHROTTLED);
    ck_assert_int_eq(do_login(&f, "7.7.7.7", "eve", "eve password", 200).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_login(&f, "6.6.6.6", "eve", "eve password", 5100).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

START_TEST(registration_throttle)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.register_per_ip = 2;
    c.register_window_ms = 60000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "9.9.9.9", "r1", "password1", 0).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "9.9.9.9", "r2", "password2", 10).status, ACCOUNTS_OK);
    res_t t = do_register(&f, "9.9.9.9", "r3", "password3", 20);
    ck_assert_int_eq(t.status, ACCOUNTS_ETHROTTLED);
    ck_assert_str_eq(t.msg, "Too many new accounts from your address. Try again in 1 minute.");
    ck_assert_int_eq(do_register(&f, "8.8.8.8", "r3", "password3", 20).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "9.9.9.9", "r4", "password4", 60000).status, ACCOUNTS_OK);
    afx_close(&f);
    /* 0: no limit. */
    c.register_per_ip = 0;
    afx_open(&f, &c);
    char name[16];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "n%d", i);
        ck_assert_int_eq(do_register(&f, "9.9.9.9", name, "password", 0).status, ACCOUNTS_OK);
    }
    afx_close(&f);
}
END_TEST

/* register_all holds every address together: accounts made count, names
 * taken do not; past it the refusal says when, and the window ends. */
START_TEST(registrations_of_all_addresses_are_capped)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.register_per_ip = 2;
    c.register_all = 3;
    c.register_window_ms = 60000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "1.1.1.1", "s1", "password1", 0).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "1.1.1.2", "s1", "password1", 10).status, ACCOUNTS_EEXISTS);
    ck_assert_int_eq(do_register(&f, "1.1.1.3", "s2", "password2", 20).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "1.1.1.4", "s3", "password3", 30).status, ACCOUNTS_OK);
    res_t t = do_register(&f, "1.1.1.5", "s4", "password4", 40);
    ck_assert_int_eq(t.status, ACCOUNTS_ETHROTTLED);
    ck_assert_str_eq(t.msg,
                     "The server takes no more new accounts for now. Try again in 1 minute.");
    accounts_regs_t r;
    accounts_regs(f.acc, 50, &r);
    ck_assert_uint_eq(r.cap, 3);
    ck_assert_uint_eq(r.made, 3);
    ck_assert_uint_eq(r.making, 0);
    ck_assert_uint_eq(r.refused, 1);
    /* the refused address's own allowance was not spent */
    ck_assert_int_eq(do_register(&f, "1.1.1.5", "s4", "password4", 60000).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "1.1.1.5", "s5", "password5", 60010).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

START_TEST(parallel_guesses_are_counted)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.account_free_failures = 3;
    c.queue_per_addr = 10; /* the throttle is counted here, not the queue */
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "r", "fay", "fay password", 0).status, ACCOUNTS_OK);
    /* Ten guesses in one turn: only the first few get a verify. */
    res_t r[10] = {{0}};
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(accounts_login(f.acc, "x", "fay", "guessing", 8, 50, on_acc, &r[i]), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int denied = 0, throttled = 0;
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(r[i].calls, 1);
        denied += r[i].status == ACCOUNTS_EDENIED;
        throttled += r[i].status == ACCOUNTS_ETHROTTLED;
    }
    ck_assert_int_eq(denied, 4);
    ck_assert_int_eq(throttled, 6);
    afx_close(&f);
}
END_TEST

/* The throttle table stays within max_tracked; forgotten entries go first. */
START_TEST(throttle_table_is_bounded)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.max_tracked = 8;
    c.account_free_failures = 0; /* every failure closes its pair for a while */
    c.ip_free_failures = 1000;
    c.backoff_base_ms = 1000;
    c.forget_ms = 5000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_login(&f, "10.0.0.1", "ghost", "password!", 100).status, ACCOUNTS_EDENIED);
    char ip[32];
    for (int i = 0; i < 20; i++) {
        snprintf(ip, sizeof ip, "10.0.1.%d", i);
        ck_assert_int_eq(do_login(&f, ip, "ghost", "password!", 100).status, ACCOUNTS_EDENIED);
    }
    /* The first pair stays closed though the table is full of closed pairs. */
    ck_assert_int_eq(do_login(&f, "10.0.0.1", "ghost", "password!", 100).status,
                     ACCOUNTS_ETHROTTLED);
    /* Long after: everything is forgotten and fresh keys are tracked again. */
    for (int i = 0; i < 20; i++) {
        snprintf(ip, sizeof ip, "10.1.0.%d", i);
        uint64_t t = 100000 + (uint64_t)i * 10000;
        ck_assert_int_eq(do_login(&f, ip, "ghost2", "password!", t).status, ACCOUNTS_EDENIED);
        ck_assert_uint_gt(accounts_login_wait_ms(f.acc, ip, "ghost2", t), 0);
    }
    afx_close(&f);
}
END_TEST

/* FNV-1a of 32 bits into 4,096 buckets, as the table once hashed its keys. */
static unsigned fnv_bucket(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h % 4096;
}

/* Names an attacker picks so that their throttle keys ("a:IP NAME") share
 * one FNV bucket do not share one here: the table's hash is keyed. */
START_TEST(throttle_keys_chosen_to_collide_spread)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.ip_free_failures = 1000;
    afx_t f;
    afx_open(&f, &c);
    char name[32], key[64];
    unsigned target = 0, found = 0;
    for (unsigned i = 0; found < 40 && i < 10000000; i++) {
        snprintf(name, sizeof name, "n%u", i);
        snprintf(key, sizeof key, "a:6.6.6.6 %s", name);
        if (fnv_bucket(key) != target)
            continue;
        found++;
        ck_assert_int_eq(do_login(&f, "6.6.6.6", name, "password!", 100).status, ACCOUNTS_EDENIED);
    }
    ck_assert_uint_eq(found, 40);
    ck_assert_uint_le(accounts_longest_chain(f.acc), 8);
    afx_close(&f);
}
END_TEST

/* A full throttle table never lets an address past its registration
 * limit: its count is not swept to make room for other addresses' entries,
 * and with no room left a registration is refused ("busy"), not let
 * through uncounted. */
START_TEST(full_table_keeps_registration_limit)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.max_tracked = 4;
    c.register_per_ip = 2;
    c.register_window_ms = 600000;
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "9.9.9.9", "a1", "password1", 0).status, ACCOUNTS_OK);
    ck_assert_int_eq(do_register(&f, "9.9.9.9", "a2", "password2", 10).status, ACCOUNTS_OK);
    char ip[32], name[32];
    for (int i = 0; i < 8; i++) { /* other addresses, each at its limit too */
        snprintf(ip, sizeof ip, "10.0.0.%d", i);
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "b%d_%d", i, k);
            int st = do_register(&f, ip, name, "password3", 20).status;
            ck_assert(st == ACCOUNTS_OK || st == ACCOUNTS_EBUSY);
        }
    }
    res_t t = do_register(&f, "9.9.9.9", "a3", "password4", 30);
    ck_assert_int_eq(t.status, ACCOUNTS_ETHROTTLED);
    /* a new address finds the table full of running limits: busy */
    t = do_register(&f, "7.7.7.7", "c1", "password5", 40);
    ck_assert_int_eq(t.status, ACCOUNTS_EBUSY);
    ck_assert_str_eq(t.msg, "The server is busy. Please try again in a moment.");
    /* once the window is over the table makes room again */
    ck_assert_int_eq(do_register(&f, "7.7.7.7", "c1", "password5", 700000).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

/* Retention forgets the entries gone quiet, only those: a window still
 * running and a recent failure are kept, and keep throttling. */
START_TEST(quiet_throttles_are_forgotten)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.account_free_failures = 0; /* a failure closes its pair for a second */
    c.ip_free_failures = 1000;
    c.backoff_base_ms = 1000;
    c.forget_ms = 5000;
    afx_t f;
    afx_open(&f, &c);
    /* each failure tracks its address and its (name, address) pair */
    ck_assert_int_eq(do_login(&f, "10.0.0.1", "ghost", "password!", 100).status, ACCOUNTS_EDENIED);
    ck_assert_uint_eq(accounts_forget(f.acc, 600), 0); /* a window still runs */
    ck_assert_uint_eq(accounts_login_wait_ms(f.acc, "10.0.0.1", "ghost", 600), 500);
    ck_assert_int_eq(do_login(&f, "10.0.0.2", "ghost", "password!", 4000).status, ACCOUNTS_EDENIED);
    /* at 8000 the first address is quiet, the second not yet */
    ck_assert_uint_eq(accounts_forget(f.acc, 8000), 2);
    ck_assert_uint_eq(accounts_forget(f.acc, 8000), 0);
    ck_assert_uint_eq(accounts_forget(f.acc, 9100), 2);
    afx_close(&f);
}
END_TEST

/* Past the hashing queue's room a request is "busy" at once, and that
 * attempt is not counted against the address. */
START_TEST(full_queue_answers_busy)
{
    accounts_config_t c;
    accounts_config_default(&c);
    c.queue_per_addr = 1;
    c.ip_free_failures = 2; /* three counted would close the address */
    c.opslimit = 3;
    c.memlimit = 16u << 20; /* a hash takes longer than the next request's lookup */
    afx_t f;
    afx_open(&f, &c);
    ck_assert_int_eq(do_register(&f, "r", "hal", "hal password", 0).status, ACCOUNTS_OK);
    res_t r[3] = {{0}};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(accounts_login(f.acc, "q", "hal", "a wrong one", 11, 50, on_acc, &r[i]),
                         0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int denied = 0, busy = 0;
    for (int i = 0; i < 3; i++) {
        denied += r[i].status == ACCOUNTS_EDENIED;
        busy += r[i].status == ACCOUNTS_EBUSY;
    }
    ck_assert_int_eq(denied, 1);
    ck_assert_int_eq(busy, 2);
    ck_assert_str_eq(r[0].status == ACCOUNTS_EBUSY ? r[0].msg : r[1].msg,
                     "The server is busy. Please try again in a moment.");
    /* the two busy ones were taken back: one failure stands, within the
     * allowance, so the right password works at once */
    ck_assert_int_eq(do_login(&f, "q", "hal", "hal password", 60).status, ACCOUNTS_OK);
    afx_close(&f);
}
END_TEST

/* A call missing what it needs is answered at once, with no callback; one
 * to no accounts at all is ECLOSED first. */
START_TEST(calls_missing_an_argument_answer_at_once)
{
    afx_t f;
    afx_open(&f, NULL);
    res_t r = {0};
    ck_assert_int_eq(accounts_login(f.acc, "ip", NULL, "a password", 10, 0, on_acc, &r),
                     ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_login(f.acc, "ip", "name", NULL, 10, 0, on_acc, &r), ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_register(f.acc, "ip", "name", "a password", 10, 0, NULL, &r),
                     ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_reset_password(f.acc, NULL, "a password", 10, on_acc, &r),
                     ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_change_password(f.acc, "ip", "name", "old password", 12, NULL, 0,
                                              NULL, 0, on_acc, &r),
                     ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_change_password(f.acc, "ip", "name", NULL, 0, "new password", 12,
                                              NULL, 0, on_acc, &r),
                     ACCOUNTS_EINVAL);
    ck_assert_int_eq(accounts_login(NULL, "ip", "name", "a password", 10, 0, on_acc, &r),
                     ACCOUNTS_ECLOSED);
    ck_assert_int_eq(accounts_change_password(NULL, "ip", "name", "old password", 12, NULL, 0, NULL,
                                              0, on_acc, &r),
                     ACCOUNTS_ECLOSED);
    ck_assert_uint_eq(accounts_pending(f.acc), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 0);
    afx_close(&f);
}
END_TEST

START_TEST(free_with_requests_in_flight)
{
    afx_t f;
    afx_open(&f, NULL);
    res_t r = {0}, q = {0};
    ck_assert_int_eq(accounts_register(f.acc, "ip", "gone", "a password", 10, 0, on_acc, &r), 0);
    ck_assert_int_eq(accounts_login(f.acc, "ip", "gone", "a password", 10, 0, on_acc, &q), 0);
    ck_assert_uint_eq(accounts_pending(f.acc), 2);
    accounts_free(f.acc);
    f.acc = NULL;
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(r.calls, 0);
    ck_assert_int_eq(q.calls, 0);
    ck_assert_int_eq(uv_loop_close(&f.loop), 0);
    afx_remove_dir(&f);
}
END_TEST

Suite *suite_server_accounts(void)
{
    Suite *s = suite_create("server_accounts");
    TCase *tc = tcase_create("accounts");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, name_and_password_rules);
    tcase_add_test(tc, register_login_and_one_message);
    tcase_add_test(tc, stored_hash_is_argon2id);
    tcase_add_test(tc, unknown_name_costs_a_verify);
    tcase_add_test(tc, change_password);
    tcase_add_test(tc, login_upgrades_old_hash_cost);
    tcase_add_test(tc, account_throttle_backs_off);
    tcase_add_test(tc, a_stranger_cannot_lock_the_owner_out);
    tcase_add_test(tc, full_queue_answers_busy);
    tcase_add_test(tc, ip_throttle);
    tcase_add_test(tc, registration_throttle);
    tcase_add_test(tc, registrations_of_all_addresses_are_capped);
    tcase_add_test(tc, parallel_guesses_are_counted);
    tcase_add_test(tc, throttle_table_is_bounded);
    tcase_add_test(tc, throttle_keys_chosen_to_collide_spread);
    tcase_add_test(tc, full_table_keeps_registration_limit);
    tcase_add_test(tc, quiet_throttles_are_forgotten);
    tcase_add_test(tc, calls_missing_an_argument_answer_at_once);
    tcase_add_test(tc, free_with_requests_in_flight);
    suite_add_tcase(s, tc);
    return s;
}
