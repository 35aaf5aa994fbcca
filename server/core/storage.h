/* storage — what the daemon knows of its database's health: the size cap
 * (db-max-size), whether journal appends are failing (since when, the
 * last error), how many games are paused until their keys can be stored,
 * and the one timer that retries them (100 ms doubling to 5 s, jqueue.h).
 * The log says when storage starts failing and when it recovers, once per
 * change, never per key; `warren-admin health` shows the state.
 *
 * Home also watches the database as a whole, a few times a second: a
 * write batch that has run STORAGE_STALL_MS is a stall (logged when it
 * starts and ends, with its length), and a database file deleted or
 * replaced under the daemon makes storage lost (logged once): every write
 * fails from then on (db_fence), so nothing is acknowledged into a file
 * that is gone, until the operator restores it and restarts. Every loop
 * keeps a copy of that state (home posts it); while it holds, each loop's
 * Warren games show the notice over their last frame and drop keys, as a
 * paused game does (warrengame_storage_changed).
 *
 * Sessions (session.c) pause and resume through the calls below; the
 * retry timer hands the held rows back through warrengame_retry_paused. At
 * shutdown, storage_shutdown retries a few times and gives up after about
 * two seconds: what was stored stays, what was not was never shown
 * answered, and the journal has no gap either way.
 *
 * storage_t is server_t.storage: readable by every server file, written
 * only here. Loop thread only. */
#ifndef WARREN_STORAGE_H
#define WARREN_STORAGE_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct server server_t;

typedef struct {
    /* read-only outside storage.c */
    int npaused;      /* games paused: their keys wait to be stored */
    int64_t since;    /* Unix time appends began failing; 0 while they work */
    char error[200];  /* the last storage error, "" if none */
    int64_t error_at; /* its Unix time */
    int64_t cap;      /* the database cap in force, bytes; 0 none */
    /* the database as a whole (home watches, each loop holds a copy) */
    bool lost;           /* its file was deleted or replaced: nothing is stored until a restart */
    char lost_why[400];  /* "the database file PATH was deleted" */
    int64_t lost_at;     /* Unix time */
    int64_t stall_since; /* Unix time the write now stalled began; 0: no stall */
    /* private */
    uv_timer_t retry, wait, watch;
    bool on;           /* the timers are initialized and not closed */
    bool watching;     /* home: the watch timer runs */
    uint64_t stall_ns; /* home: the stalled batch's start (db_writer_t) */
    unsigned watch_n;  /* home: watch ticks so far */
    uint32_t delay_ms; /* the next retry's delay (0: the first) */
    uint64_t wait_until;
    void (*stopped)(server_t *s);
} storage_t;

#define STORAGE_STALL_MS 3000 /* a write batch running this long is a stall */

/* Home's start: opens the database (db_open_guarded: made 0600, modes
 * narrowed, the quick check in cfg.db_check_ms, its id kept in PATH.id,
 * daily_secret stored if it holds none (unless NULL), the one it holds in
 * held (DB_SECRET_HEX + 1 bytes, "" none)), logs what it found, storage_init, the cap of
 * cfg.db_max_size. 0, or -1 with the reason logged (a refused file: what
 * to do). */
int storage_open(server_t *home, const char *daily_secret, char *held);
/* Home, once home->strangers is made: each conflict a write transaction
 * meets (db_on_conflict: a deadlock, a serialization failure, a lock
 * waited for too long) logged from the writer thread, capped
 * (logcap.h: STORAGE_CONFLICT_LINES of it from one SQLSTATE a window,
 * the rest counted and said). */
#define STORAGE_CONFLICT_LINES 5
void storage_log_conflicts(server_t *home);
/* The timers; on home (shard 0) the watch of the database too. */
void storage_init(server_t *s);
/* Lost or stalled: games show the notice and take no keys. */
bool storage_holds(const server_t *s);
/* The two lines over a paused or held game's last frame, for this state. */
const char *const *storage_notice(const server_t *s);
/* Caps the database at bytes (0 lifts the cap; never below its size now),
 * logs the cap in force and calls cb with it (bytes) unless cb is NULL. */
typedef void (*storage_cap_cb)(void *ud, int status, int64_t cap);
void storage_set_cap(server_t *s, int64_t bytes, storage_cap_cb cb, void *ud);
/* A write failed: error is kept for health (not logged here). */
void storage_failed(server_t *s, const char *error);
/* A game paused (the first makes storage failing, logged) or stopped being
 * paused: its keys were stored (the last makes storage recover, logged) or
 * it went away with them unstored. */
void storage_pause(server_t *s);
void storage_unpause(server_t *s, bool stored);
/* Held rows wait: the retry timer runs (if it does not already). */
void storage_retry_later(server_t *s);
/* Waits until every session's rows are stored or about two seconds have
 * passed (then they are dropped), closes the timers, then calls stopped. */
void storage_shutdown(server_t *s, void (*stopped)(server_t *s));
void storage_close(server_t *s); /* the timers, at once (a failed start) */

#endif
