/* storage — the database's health as the daemon sees it; see storage.h. */
#include "storage.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jqueue.h"
#include "log.h"
#include "server.h"

#define SHUTDOWN_WAIT_MS 2000 /* retrying unstored rows at shutdown, at most */
#define SHUTDOWN_POLL_MS 20

static void on_retry(uv_timer_t *t)
{
    session_retry_paused(t->data);
}

void storage_init(server_t *s)
{
    storage_t *st = &s->storage;
    uv_timer_init(s->loop, &st->retry);
    uv_timer_init(s->loop, &st->wait);
    st->retry.data = st->wait.data = s;
    st->on = true;
}

void storage_close(server_t *s)
{
    storage_t *st = &s->storage;
    if (!st->on)
        return;
    st->on = false;
    uv_close((uv_handle_t *)&st->retry, NULL);
    uv_close((uv_handle_t *)&st->wait, NULL);
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
    size_t left = session_unstored(s);
    if (left > 0 && now_ms(s) < s->storage.wait_until)
        return;
    if (left > 0)
        session_give_up(s);
    storage_stopped(s);
}

void storage_shutdown(server_t *s, void (*stopped)(server_t *s))
{
    storage_t *st = &s->storage;
    st->stopped = stopped;
    if (!st->on || session_unstored(s) == 0) {
        storage_stopped(s);
        return;
    }
    if (st->npaused > 0) { /* no waiting out a long delay: retry now, then quickly */
        uv_timer_stop(&st->retry);
        st->delay_ms = 0;
        session_retry_paused(s);
    }
    st->wait_until = now_ms(s) + SHUTDOWN_WAIT_MS;
    uv_timer_start(&st->wait, on_wait, SHUTDOWN_POLL_MS, SHUTDOWN_POLL_MS);
}
