/* nodeend — the administrator's end of a game on another node
 * (nodeend.h): the asker's waiting requests, and the holder's end. */
#include "nodeend.h"
#include <stdlib.h>
#include <string.h>
#include "lease.h"
#include "list.h"
#include "log.h"
#include "server.h"
#include "db.h"
#include "session.h"
#include "shard.h"

/* One request waiting for its answer. */
typedef struct {
    list_t node; /* struct nodeends' waits */
    uv_timer_t timer;
    int64_t game;
    char to[64];
    nodeend_cb cb;
    void *ud;
} wait_t;

struct nodeends {
    list_t waits;
};

static void on_wait_closed(uv_handle_t *h)
{
    free(h->data);
}

/* w answered (taken off the list, its timer closed, then freed). */
static void wait_done(wait_t *w, nodeend_result_t result)
{
    list_remove(&w->node);
    uv_timer_stop(&w->timer);
    uv_close((uv_handle_t *)&w->timer, on_wait_closed);
    w->cb(w->ud, result);
}

static void on_silent(uv_timer_t *t)
{
    wait_t *w = t->data;
    log_warn("node %s did not answer the end of game=%lld", w->to, (long long)w->game);
    wait_done(w, NODEEND_SILENT);
}

static struct nodeends *ends_of(server_t *home)
{
    if (!home->lease.ends && (home->lease.ends = calloc(1, sizeof *home->lease.ends)))
        list_init(&home->lease.ends->waits);
    return home->lease.ends;
}

void nodeend_ask(server_t *home, const char *node, int64_t game, int64_t user, bool close,
                 nodeend_cb cb, void *ud)
{
    struct nodeends *e = home->lease.notify ? ends_of(home) : NULL; /* stopped: none */
    wait_t *w = e ? calloc(1, sizeof *w) : NULL;
    if (!w) {
        log_error("end of game=%lld at node %s: not asked (stopping, or out of memory)",
                  (long long)game, node);
        return cb(ud, NODEEND_FAILED); /* the one answer given at once: nothing to wait on */
    }
    *w = (wait_t){.game = game, .cb = cb, .ud = ud};
    snprintf(w->to, sizeof w->to, "%s", node);
    uv_timer_init(home->loop, &w->timer);
    w->timer.data = w;
    list_push_back(&e->waits, &w->node);
    uv_timer_start(&w->timer, on_silent, NODEEND_WAIT_MS, 0);
    log_info("admin: %s game=%lld asked of node %s", close ? "close" : "end", (long long)game,
             node);
    notify_send(home, close ? NOTIFY_CLOSE : NOTIFY_END, node, game, user);
}

void nodeend_answered(server_t *home, const notify_event_t *ev)
{
    struct nodeends *e = home->lease.ends;
    if (!e)
        return;
    LIST_EACH (it, &e->waits) {
        wait_t *w = LIST_ITEM(it, wait_t, node);
        if (w->game == ev->a && strcmp(w->to, ev->from) == 0)
            return wait_done(w, ev->b ? NODEEND_ENDED : NODEEND_NONE);
    }
}

/* A request on the loop of the game's account. */
typedef struct {
    int64_t game, user;
    bool close; /* saved and closed (its account deleted), not abandoned */
    char from[64];
} asked_t;

static void end_on_loop(server_t *k, void *ud)
{
    asked_t *q = ud;
    session_t *s = session_find_game(k, q->game);
    int64_t id = 0;
    if (s && !s->mirror && !s->ended && s->user_id == q->user && q->close)
        id = session_close_user(k, q->user, "The administrator saved and closed your game.");
    else if (s && !s->mirror && !s->ended && s->user_id == q->user)
        id = session_abandon_user(k, q->user, "abandoned: ended by the administrator",
                                  "The game was ended by the administrator.");
    if (id)
        db_flush(k->db); /* its save before the answer */
    log_info("%s of game=%lld asked by node %s: %s", q->close ? "close" : "end", (long long)q->game,
             q->from, id == q->game ? "ended" : "no such game here");
    notify_send(k, NOTIFY_ENDED, q->from, q->game, id == q->game); /* after its end's rows */
    free(q);
}

void nodeend_asked(server_t *home, const notify_event_t *ev)
{
    asked_t *q = malloc(sizeof *q);
    if (!q)
        return log_error("end of game=%lld asked by node %s: out of memory", (long long)ev->a,
                         ev->from);
    *q = (asked_t){.game = ev->a, .user = ev->b, .close = strcmp(ev->kind, NOTIFY_CLOSE) == 0};
    snprintf(q->from, sizeof q->from, "%s", ev->from);
    if (shard_post(shard_of_user(home, ev->b), end_on_loop, q) != 0)
        free(q); /* stopping: the asker hears nothing and says so */
}

void nodeend_stop(server_t *home)
{
    struct nodeends *e = home->lease.ends;
    if (!e)
        return;
    home->lease.ends = NULL;
    while (!list_empty(&e->waits))
        wait_done(LIST_ITEM(list_front(&e->waits), wait_t, node), NODEEND_FAILED);
    free(e);
}
