/* storage — the database's health as the daemon sees it; see storage.h. */
#include "storage.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jqueue.h"
#include "lease.h"
#include "log.h"
#include "logcap.h"
#include "monoclock.h"
#include "notify.h"
#include "outhold.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "warrengame.h"

#define SHUTDOWN_WAIT_MS 2000 /* retrying unstored rows at shutdown, at most */
#define SHUTDOWN_POLL_MS 20
#define WATCH_MS         250 /* home looks at the writer this often */
#define STAT_EVERY       4   /* and stats the file every this many looks */

/* The lines over a game's last frame while it cannot go on. */
static const char *const NOTICE_FAILING[] = {
    "The server cannot save right now. Your game is paused and safe;",
    "it goes on by itself when saving works again.",
};
static const char *const NOTICE_STALLED[] = {
    "The server's disk is not answering. Your game is paused and safe;",
    "it goes on by itself when saving works again.",
};
static const char *const NOTICE_LOST[] = {
    "The server has lost its saved data. Your game is paused: nothing",
    "you saw is lost. It goes on once the server is restored and restarted.",
};

static void on_retry(uv_timer_t *t)
{
    warrengame_retry_paused(t->data);
}

static void on_watch(uv_timer_t *t);

void storage_init(server_t *s)
{
    storage_t *st = &s->storage;
    uv_timer_init(s->loop, &st->retry);
    uv_timer_init(s->loop, &st->wait);
    st->retry.data = st->wait.data = s;
    st->on = true;
    db_on_round(s->db, outhold_round, s); /* a commit's frames written together */
    if (s->shard != 0)
        return;
    uv_timer_init(s->loop, &st->watch);
    st->watch.data = s;
    uv_unref((uv_handle_t *)&st->watch); /* it never keeps the loop alive */
    uv_timer_start(&st->watch, on_watch, WATCH_MS, WATCH_MS);
    st->watching = true;
}

void storage_close(server_t *s)
{
    storage_t *st = &s->storage;
    if (!st->on)
        return;
    st->on = false;
    notify_stop(s); /* no other node's event taken from here; the heartbeat goes on (lease_stop) */
    uv_close((uv_handle_t *)&st->retry, NULL);
    uv_close((uv_handle_t *)&st->wait, NULL);
    if (st->watching)
        uv_close((uv_handle_t *)&st->watch, NULL);
    st->watching = false;
}

bool storage_holds(const server_t *s)
{
    return s->storage.lost || s->storage.stall_since != 0;
}

const char *const *storage_notice(const server_t *s)
{
    return s->storage.lost ? NOTICE_LOST : s->storage.stall_since ? NOTICE_STALLED : NOTICE_FAILING;
}

/* ---- the watch (home) ------------------------------------------------------------- */

/* A batch running STORAGE_STALL_MS starts a stall; any other batch (or
 * none) running later ends it. True when the state changed. */
static bool watch_stall(server_t *s)
{
    storage_t *st = &s->storage;
    db_writer_t w;
    db_writer_state(s->db, &w);
    uint64_t now = mono_ns();
    if (!st->stall_since) {
        if (!w.started_ns || now - w.started_ns < STORAGE_STALL_MS * 1000000ull)
            return false;
        st->stall_ns = w.started_ns;
        st->stall_since = (int64_t)time(NULL) - (int64_t)((now - w.started_ns) / 1000000000u);
        log_warn("storage stalled: a database write has not finished in %.1f s; games show a "
                 "notice and take no keys until it does",
                 (double)(now - w.started_ns) / 1e9);
        return true;
    }
    if (w.started_ns == st->stall_ns)
        return false;
    uint64_t end = w.ended_ns > st->stall_ns ? w.ended_ns : now;
    log_info("storage stall over after %.1f s: games go on", (double)(end - st->stall_ns) / 1e9);
    st->stall_since = 0;
    st->stall_ns = 0;
    return true;
}

/* The file deleted or replaced: lost for good (until a restart). */
static bool watch_file(server_t *s)
{
    storage_t *st = &s->storage;
    char why[100];
    if (st->lost || db_file_state(s->db, why, sizeof why) == DB_OK)
        return false;
    snprintf(st->lost_why, sizeof st->lost_why, "the database file %s %s", s->cfg.db, why);
    st->lost = true;
    st->lost_at = (int64_t)time(NULL);
    db_fence(s->db, st->lost_why);
    log_error("storage lost: %s. No key is acknowledged from now on, and warrend will not go on "
              "into a file that is gone: restore the database and restart warrend "
              "(deploy/RUNNING.md; at shutdown its -wal and -shm are moved aside to *.lost)",
              st->lost_why);
    return true;
}

/* The database-wide state as each loop keeps it. */
typedef struct {
    bool lost;
    char lost_why[sizeof((storage_t *)0)->lost_why];
    int64_t lost_at, stall_since;
} dbstate_t;

static void state_here(server_t *k, void *ud)
{
    dbstate_t *d = ud;
    k->storage.lost = d->lost;
    memcpy(k->storage.lost_why, d->lost_why, sizeof d->lost_why);
    k->storage.lost_at = d->lost_at;
    k->storage.stall_since = d->stall_since;
    free(d);
    warrengame_storage_changed(k);
}

/* Home's games now, every other loop's by a message with its own copy. */
static void spread(server_t *home)
{
    const storage_t *st = &home->storage;
    warrengame_storage_changed(home);
    for (int i = 1; i < shard_count(home); i++) {
        dbstate_t *d = malloc(sizeof *d);
        if (!d) {
            log_error("storage: out of memory telling loop %d", i);
            continue;
        }
        *d = (dbstate_t){st->lost, "", st->lost_at, st->stall_since};
        memcpy(d->lost_why, st->lost_why, sizeof d->lost_why);
        if (shard_post(shard_at(home, i), state_here, d))
            free(d); /* stopping */
    }
}

static void on_watch(uv_timer_t *t)
{
    server_t *s = t->data;
    bool changed = watch_stall(s);
    if (++s->storage.watch_n % STAT_EVERY == 0)
        changed |= watch_file(s);
    if (changed && !s->stopping)
        spread(s);
}

/* ---- opening -------------------------------------------------------------------------- */

/* What the guarded open found, for the operator. */
static void log_opened(const server_t *s, const db_opened_t *o)
{
    char db[512];
    db_redact(s->cfg.db, db, sizeof db);
    log_info("database %s%s, id %s", db, o->created ? " created" : "", o->id);
    if (o->role_risk[0])
        log_warn("the database role may do more than warrend needs (%s): give the nodes a role "
                 "that owns its database only (deploy/RUNNING.md)",
                 o->role_risk);
    if (o->id_written)
        log_info("database id kept in %s.id: from now on a missing or different database is "
                 "refused at start",
                 db);
    for (int i = 0; i < o->nfixed; i++)
        log_warn("file %s had mode %04o (open to other users): now 0600", o->fixed[i].path,
                 o->fixed[i].mode);
    if (o->check == DB_CHECK_OK)
        log_info("database quick check ok (%lld ms)", (long long)o->check_ms);
    else if (o->check == DB_CHECK_CUT)
        log_warn("database quick check cut short after %lld ms (db-check-ms): the rest of the "
                 "file is unchecked; warren-admin check-db checks it all",
                 (long long)o->check_ms);
}

int storage_open(server_t *s, const char *daily_secret, char *held)
{
    char err[1024];
    db_opened_t found;
    db_guard_t g = {.busy_ms = s->cfg.db_busy_ms,
                    .lock_wait_ms = s->cfg.db_lock_wait_ms,
                    .check_ms = s->cfg.db_check_ms,
                    .keep_id = true,
                    .daily_secret = daily_secret,
                    .daily_read = true};
    s->db = db_open_guarded(s->loop, s->cfg.db, &g, &found, err, sizeof err);
    if (!s->db)
        return log_error("cannot start: %s", err), -1;
    memcpy(held, found.daily_secret, DB_SECRET_HEX + 1);
    sodium_memzero(found.daily_secret, sizeof found.daily_secret);
    log_opened(s, &found);
    storage_init(s);
    if (s->cfg.db_max_size > 0) /* before any other write */
        storage_set_cap(s, s->cfg.db_max_size, NULL, NULL);
    lease_start(s); /* several nodes on one PostgreSQL: fenced by this node's leases */
    return 0;
}

/* ---- conflicts ------------------------------------------------------------------------- */

static const logcap_kind_t SAY_CONFLICT = {
    .name = "database: a write transaction met a conflict",
    .per_addr = STORAGE_CONFLICT_LINES,
    .max = 2 * STORAGE_CONFLICT_LINES,
};

/* What a conflict's SQLSTATE is, in words, into out (wait_ms: the
 * writers' lock wait, db-lock-wait-ms). */
static const char *conflict_words(const char *state, int wait_ms, char *out, size_t n)
{
    static const struct {
        const char *state, *words;
        bool wait; /* the wait follows, in seconds */
    } names[] = {
        {"40P01", "a deadlock", false},
        {"40001", "a serialization failure", false},
        {"55P03", "a lock waited for over", true},
    };
    snprintf(out, n, "a conflict");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(state, names[i].state) == 0)
            snprintf(out, n, names[i].wait ? "%s %g s" : "%s", names[i].words, wait_ms / 1000.0);
    return out;
}

/* A writer thread's: logcap and the log take any thread. */
static void on_conflict(void *ud, const db_conflict_t *w)
{
    server_t *s = ud;
    char addr[32], words[64];
    snprintf(addr, sizeof addr, "SQLSTATE %s", w->sqlstate[0] ? w->sqlstate : "?");
    logcap_say(s->strangers, (uint64_t)mono_ms(), LOG_WARN, &SAY_CONFLICT, addr,
               "database: a write transaction met %s (%s) in %s, a batch of %zu ops (%s); "
               "try %d of %d, %s",
               conflict_words(w->sqlstate, s->cfg.db_lock_wait_ms, words, sizeof words), addr,
               w->op[0] ? w->op : "?", w->ops, w->kinds, w->tried, w->tries,
               w->again ? "run again" : "its op fails (told to its caller), the rest stored");
}

void storage_log_conflicts(server_t *home)
{
    db_on_conflict(home->db, on_conflict, home);
}

/* ---- the cap ---------------------------------------------------------------------- */

typedef struct {
    server_t *srv;
    int64_t asked;
    storage_cap_cb cb;
    void *ud;
} cap_req_t;

static void on_cap(void *ud, int status, int64_t cap)
{
    cap_req_t *rq = ud;
    server_t *s = rq->srv;
    if (status != DB_OK)
        log_error("database cap not set: %s", db_error(s->db));
    else if (!cap)
        log_info("database cap: none");
    else if (cap > rq->asked)
        log_warn("database cap %lld bytes: the database is already larger than the %lld asked; "
                 "it cannot grow",
                 (long long)cap, (long long)rq->asked);
    else
        log_info("database cap %lld bytes", (long long)cap);
    if (status == DB_OK)
        s->storage.cap = cap;
    if (rq->cb)
        rq->cb(rq->ud, status, cap);
    free(rq);
}

void storage_set_cap(server_t *s, int64_t bytes, storage_cap_cb cb, void *ud)
{
    cap_req_t *rq = malloc(sizeof *rq);
    if (!rq) {
        log_error("database cap not set: out of memory");
        if (cb)
            cb(ud, DB_ENOMEM, 0);
        return;
    }
    *rq = (cap_req_t){s, bytes, cb, ud};
    db_set_max_size(s->db, bytes, on_cap, rq);
}

/* ---- failing, paused, recovered ------------------------------------------------------ */

void storage_failed(server_t *s, const char *error)
{
    snprintf(s->storage.error, sizeof s->storage.error, "%s", error && *error ? error : "?");
    s->storage.error_at = (int64_t)time(NULL);
}

void storage_pause(server_t *s)
{
    storage_t *st = &s->storage;
    shard_paused_add(s, 1);
    if (st->npaused++ > 0)
        return;
    st->since = (int64_t)time(NULL);
    log_error("storage failing: %s; games pause until their keys are stored",
              st->error[0] ? st->error : "a write failed");
}

void storage_unpause(server_t *s, bool stored)
{
    storage_t *st = &s->storage;
    if (st->npaused <= 0)
        return;
    shard_paused_add(s, -1);
    if (--st->npaused > 0)
        return;
    if (stored)
        log_info("storage recovered after %lld s: every paused game goes on",
                 (long long)((int64_t)time(NULL) - st->since));
    else
        log_info("storage: no game waits any more (the last paused one was closed)");
    st->since = 0;
    st->delay_ms = 0;
    if (st->on)
        uv_timer_stop(&st->retry);
}

void storage_retry_later(server_t *s)
{
    storage_t *st = &s->storage;
    if (!st->on || uv_is_active((uv_handle_t *)&st->retry))
        return;
    st->delay_ms = jqueue_backoff(st->delay_ms);
    uv_timer_start(&st->retry, on_retry, st->delay_ms, 0);
}

/* ---- shutdown --------------------------------------------------------------------------- */

static void storage_stopped(server_t *s)
{
    void (*stopped)(server_t *) = s->storage.stopped;
    s->storage.stopped = NULL;
    storage_close(s);
    if (stopped)
        stopped(s);
}

static void on_wait(uv_timer_t *t)
{
    server_t *s = t->data;
    size_t left = warrengame_unstored(s);
    if (left > 0 && now_ms(s) < s->storage.wait_until)
        return;
    if (left > 0)
        warrengame_give_up(s);
    storage_stopped(s);
}

void storage_shutdown(server_t *s, void (*stopped)(server_t *s))
{
    storage_t *st = &s->storage;
    st->stopped = stopped;
    if (!st->on || warrengame_unstored(s) == 0) {
        storage_stopped(s);
        return;
    }
    if (st->npaused > 0) { /* no waiting out a long delay: retry now, then quickly */
        uv_timer_stop(&st->retry);
        st->delay_ms = 0;
        warrengame_retry_paused(s);
    }
    st->wait_until = now_ms(s) + SHUTDOWN_WAIT_MS;
    uv_timer_start(&st->wait, on_wait, SHUTDOWN_POLL_MS, SHUTDOWN_POLL_MS);
}
