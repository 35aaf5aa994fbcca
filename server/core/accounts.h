/* accounts — registration, login and password changes, with throttling.
 *
 * Names: 2-20 bytes of [A-Za-z0-9_-], unique ignoring case. Each account
 * also has a game name, what hosted games know it as (db/schema.sql:
 * game_names): given by the database at registration, kept across renames,
 * never given to another account. Passwords: 8 to 128
 * characters (UTF-8 code points, so at most 512 bytes), hashed with libsodium's argon2id (crypto_pwhash_str). Hashing and
 * verifying run on the libuv thread pool, so the loop never waits on them.
 * An unknown name and a wrong password get the same status and message, and
 * an unknown name still costs one verify (against a dummy hash) so timing
 * does not tell them apart.
 *
 * Throttling: failed logins are counted per address and per (name,
 * address) pair, never per name alone, so a stranger's failures cannot
 * lock the owner out from another address. Past a free allowance each
 * further failure closes that key for a window that doubles (base .. max);
 * failures are forgotten after a quiet period and a successful login clears
 * the pair's count. Registrations are limited per address per window. All
 * state lives in accounts_t; the caller passes the time (uv_now,
 * milliseconds) so tests can drive it.
 *
 * Hashing and verifying run on a queue of their own (hashq.h): low-priority
 * threads, one line per address served in turn, addresses with failures
 * last, at most queue_max requests waiting and queue_per_addr from one
 * address; past that a request is answered ACCOUNTS_EBUSY at once.
 *
 * A successful login whose stored hash was made at another cost stores a
 * new hash at the configured cost. A password change or reset ends the
 * account's web sessions (all but the one it was made from).
 *
 * Passwords are copied into request memory, wiped after use and never
 * logged. Storage goes through db/.
 *
 * Threads: loop thread only. Callbacks run later on the loop thread, exactly
 * once per accepted request, never inside the call that made it.
 * Ownership: accounts_new / accounts_free pair; the db is borrowed and must
 * outlive the accounts object (free accounts first, then db_close). */
#ifndef WARREN_ACCOUNTS_H
#define WARREN_ACCOUNTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include "db.h"

#define ACCOUNTS_NAME_MIN       2
#define ACCOUNTS_NAME_MAX       20
#define ACCOUNTS_PASSWORD_MIN   8
#define ACCOUNTS_PASSWORD_MAX   128 /* characters */
/* bytes a password of ACCOUNTS_PASSWORD_MAX characters may take */
#define ACCOUNTS_PASSWORD_BYTES (ACCOUNTS_PASSWORD_MAX * 4)

enum {
    ACCOUNTS_OK = 0,
    ACCOUNTS_EINVAL = -1,     /* name or password breaks the rules */
    ACCOUNTS_EEXISTS = -2,    /* name taken (ignoring case) */
    ACCOUNTS_EDENIED = -3,    /* unknown name or wrong password: one message for both */
    ACCOUNTS_ETHROTTLED = -4, /* too many attempts from this IP or on this account */
    ACCOUNTS_ELOCKED = -5,    /* right password, account locked by an admin */
    ACCOUNTS_EINTERNAL = -6,  /* database or hashing failure */
    ACCOUNTS_ECLOSED = -7,    /* accounts_free was called */
    ACCOUNTS_EBUSY = -8,      /* the hashing queue is full: try again soon */
};

typedef struct {
    /* argon2id cost; 0 means libsodium's INTERACTIVE limits. Tests use the
     * minimums (crypto_pwhash_OPSLIMIT_MIN / MEMLIMIT_MIN). */
    unsigned long long opslimit;
    size_t memlimit;
    /* failed logins: free allowance per IP and per (name, IP), then windows
     * of backoff_base_ms doubling up to backoff_max_ms; counts forgotten
     * after forget_ms without a failure. */
    unsigned ip_free_failures;      /* default 10 */
    unsigned account_free_failures; /* default 5, per name from one address */
    uint64_t backoff_base_ms;       /* default 2000 */
    uint64_t backoff_max_ms;        /* default 15 min */
    uint64_t forget_ms;             /* default 30 min */
    /* registrations: at most register_per_ip in any register_window_ms
     * (0: no limit, for load tests), and register_all made in all (from
     * any number of addresses) in each register_window_ms from the first
     * (0: no limit); those being made count, so the cap is never passed. */
    unsigned register_per_ip;    /* default 5 */
    unsigned register_all;       /* default 100 */
    uint64_t register_window_ms; /* default 1 hour */
    /* throttle entries kept; default 65536. Full: quiet ones go, then all
     * but those closing a key (a registration without room: busy) */
    size_t max_tracked;
    /* the hashing queue: threads (0: one less than the cores, 1 to 4),
     * requests in it at most, and from one address */
    int hash_threads;
    int queue_max;      /* default 32 (about 3 s of INTERACTIVE hashes on one thread) */
    int queue_per_addr; /* default 2 */
    /* ms a login's password check takes at least, on its hashing thread,
     * and its answer is held as long again once its account is read again
     * (tests only: a real hash's cost, a lock's moment widened; default 0) */
    unsigned verify_delay_ms;
} accounts_config_t;

typedef struct accounts accounts_t;

/* status: ACCOUNTS_OK or ACCOUNTS_E*; user: the account on OK (borrowed, only
 * during the call; pwhash is cleared), else NULL; msg: a line to show the
 * person ("" on OK), never NULL. */
typedef void (*accounts_cb)(void *ud, int status, const db_user_t *user, const char *msg);

void accounts_config_default(accounts_config_t *cfg);

/* cfg NULL: defaults. Makes the dummy hash (one hash at the configured cost).
 * NULL on OOM or a libsodium init failure. */
accounts_t *accounts_new(uv_loop_t *loop, db_t *db, const accounts_config_t *cfg);
/* No callback runs after this; memory goes when in-flight pool work ends
 * (run the loop). NULL is a no-op. */
void accounts_free(accounts_t *a);

/* Pure checks: 0, or -1 with a message for the person in msg. */
int accounts_check_name(const char *name, char *msg, size_t msglen);
int accounts_check_password(const char *pw, size_t len, char *msg, size_t msglen);
/* Lowercases a valid name into key (DB_NAME_MAX bytes). */
void accounts_name_key(const char *name, char key[DB_NAME_MAX]);

/* Each returns 0 when the request is accepted (cb will run), or
 * ACCOUNTS_ECLOSED/EINVAL for a NULL argument (cb will not run). Rule
 * breaks, throttling and denials come through cb. ip is any printable
 * address string (the key for IP throttling). */
int accounts_register(accounts_t *a, const char *ip, const char *name, const char *pw, size_t pwlen,
                      uint64_t now_ms, accounts_cb cb, void *ud);
int accounts_login(accounts_t *a, const char *ip, const char *name, const char *pw, size_t pwlen,
                   uint64_t now_ms, accounts_cb cb, void *ud);
/* Verifies old (counted like a login), then stores a hash of new and ends
 * the account's web sessions but keep (a session token hash, db_session_*;
 * NULL or "" ends them all). */
int accounts_change_password(accounts_t *a, const char *ip, const char *name, const char *old,
                             size_t oldlen, const char *pw, size_t pwlen, const char *keep,
                             uint64_t now_ms, accounts_cb cb, void *ud);

/* An admin's reset: stores a hash of pw for name without the old password
 * and without throttling, and ends all the account's web sessions. ACCOUNTS_EDENIED with "No such account." for an
 * unknown name; rule breaks as ACCOUNTS_EINVAL. */
int accounts_reset_password(accounts_t *a, const char *name, const char *pw, size_t pwlen,
                            accounts_cb cb, void *ud);

/* The account user_id was locked, deleted or renamed (stored) and its
 * connections are being sent off: a login of it whose account read again
 * may have come before the store, and is not answered yet, is refused
 * with status (ACCOUNTS_ELOCKED or ACCOUNTS_EDENIED) instead of logged in
 * after the send-off; but one under keep (a rename's new name; NULL:
 * none). Logins that read it later see the store. */
void accounts_sent_off(accounts_t *a, int64_t user_id, int status, const char *keep);

/* Milliseconds until a login for (ip, name) is allowed again; 0 = now. */
uint64_t accounts_login_wait_ms(accounts_t *a, const char *ip, const char *name, uint64_t now_ms);
/* The most throttle entries that share one bucket of its table (the unit
 * tests read it: names and addresses chosen to collide must not). */
size_t accounts_longest_chain(const accounts_t *a);
/* Requests accepted but not yet called back (the unit tests read it). */
size_t accounts_pending(const accounts_t *a);
/* Registrations against register_all: made in the window now running,
 * being made, and refused by it since start. */
typedef struct {
    unsigned cap, made, making;
    uint64_t refused;
} accounts_regs_t;
void accounts_regs(const accounts_t *a, uint64_t now_ms, accounts_regs_t *out);
/* Forgets throttle entries gone quiet (no failure for forget_ms, no window
 * or registration count still running); returns how many. The table also
 * sweeps itself when full; retention.c calls this every so often, so quiet
 * entries do not wait for that. */
size_t accounts_forget(accounts_t *a, uint64_t now_ms);

#endif
