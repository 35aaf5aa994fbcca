/* watch_bench — what a watcher's < or > costs at 10,000 live games on one
 * loop (server/screens/watch.c: watch_pick, each loop's index by name),
 * against the walk of every session it replaced (copied below), which ran
 * with every loop parked. Thread CPU time a press, the median of 31
 * batches; one game in ten is another game the viewer cannot move to
 * (ended, hosted or its own), as the walk met them.
 *
 *   watch_bench
 *   BENCH server.watch.pick.ns X ns  (watch_pick: the index)
 *   BENCH server.watch.walk.ns X ns  (the walk of every session, as it was) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "server.h"
#include "session.h"
#include "watch.h"
#include "benchtime.h"

enum { N = 10000, VIEWER = 7 };

static server_t srv;
static session_t sess[N];
static int64_t sink;

/* The walk as it was (watch.c's neighbour_in before the index). */
static void walk_in(server_t *k, int64_t viewer, const char *name, int dir, session_t **best,
                    session_t **wrap)
{
    LIST_EACH (it, &k->sessions) {
        session_t *t = LIST_ITEM(it, session_t, node);
        if (!strcmp(t->user, name) || t->ended || !t->game || t->user_id == viewer)
            continue;
        int d = strcmp(t->user, name) * dir;
        if (d > 0 && (!*best || strcmp(t->user, (*best)->user) * dir < 0))
            *best = t;
        if (!*wrap || strcmp(t->user, (*wrap)->user) * dir < 0)
            *wrap = t;
    }
}

static void job_pick(int rep)
{
    server_t *at;
    sink += watch_pick(&srv, VIEWER, sess[(rep * 7919) % N].user, rep & 1 ? 1 : -1, &at);
}

static void job_walk(int rep)
{
    session_t *best = NULL, *wrap = NULL;
    walk_in(&srv, VIEWER, sess[(rep * 7919) % N].user, rep & 1 ? 1 : -1, &best, &wrap);
    sink += best ? best->game_id : wrap ? wrap->game_id : 0;
}

/* Both answer the same for every name, both ways: false when not. */
static bool agree(void)
{
    for (int i = 0; i < N; i++)
        for (int dir = -1; dir <= 1; dir += 2) {
            session_t *best = NULL, *wrap = NULL;
            server_t *at;
            walk_in(&srv, VIEWER, sess[i].user, dir, &best, &wrap);
            session_t *t = best ? best : wrap;
            if (watch_pick(&srv, VIEWER, sess[i].user, dir, &at) != (t ? t->game_id : 0))
                return false;
        }
    return true;
}

int main(void)
{
    static game_t *const some_game = (game_t *)&srv; /* never read: Warren's own */
    list_init(&srv.sessions);
    byname_init(&srv.sess_by_player);
    srand(29);
    for (int i = 0; i < N; i++) { /* names in no order, came in any order */
        session_t *s = &sess[i];
        *s = (session_t){.srv = &srv, .game_id = i + 1, .user_id = 100 + i, .game = some_game};
        snprintf(s->user, sizeof s->user, "p%08x%05d", (unsigned)rand(), i); /* unique */
        s->ended = i % 30 == 1;
        s->game = i % 30 == 2 ? NULL : s->game; /* hosted */
        s->user_id = i % 30 == 3 ? VIEWER : s->user_id;
        list_push_front(&srv.sessions, &s->node);
        if (s->game && !s->ended)
            byname_add(&srv.sess_by_player, &s->by_player, s->user, s->game_id);
    }
    if (!agree()) {
        fprintf(stderr, "watch_bench: the index and the walk disagree\n");
        return 1;
    }
    printf("BENCH server.watch.pick.ns %.0f ns\n", median_ns(job_pick));
    printf("BENCH server.watch.walk.ns %.0f ns\n", median_ns(job_walk));
    return sink == 0;
}
