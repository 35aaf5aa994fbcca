/* db_ids — game ids from the database. db_game_create gives a game its id
 * at once (journal appends follow in the same loop turn), so ids cannot
 * wait for the insert: the writer takes a block of them ahead of need from
 * the database's own counter (SQLite's game_ids row, PostgreSQL's sequence
 * game_ids) and the loops draw from that pool. Nodes sharing one
 * PostgreSQL draw from the one sequence, so no two ever give the same id;
 * ids a node took and never used are gaps, as a sequence's always are. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "db_internal.h"

#define DB_IDS_WAIT_S 2 /* longest a loop waits for ids */

void db_ids_init(db_ids_t *p, void (*wake)(void *ud), void *ud)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->wake = wake;
    p->ud = ud;
}

void db_ids_destroy(db_ids_t *p)
{
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

/* Asks the writer for more, once until it has answered. p->mu held. */
static void ask(db_ids_t *p)
{
    if (!atomic_exchange(&p->asked, true) && p->wake)
        p->wake(p->ud);
}

bool db_ids_asked(db_ids_t *p)
{
    return atomic_load(&p->asked);
}

int64_t db_ids_next(db_ids_t *p)
{
    pthread_mutex_lock(&p->mu);
    if (p->n == 0) { /* more than a block in one go: wait for the writer's answer */
        uint64_t round = p->rounds;
        ask(p);
        /* a writer held up (a stalled disk, a lost server) must not hold
         * up the loop for longer: no id then, and the game is not started */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += DB_IDS_WAIT_S;
        while (p->n == 0 && p->rounds == round &&
               pthread_cond_timedwait(&p->cv, &p->mu, &until) == 0)
            ;
    }
    int64_t id = DB_ERR; /* the database gave none */
    if (p->n > 0) {
        id = p->v[p->head];
        p->head = (p->head + 1) % DB_IDS_CAP;
        p->n--;
    }
    if (p->n < DB_IDS_LOW)
        ask(p);
    pthread_mutex_unlock(&p->mu);
    return id;
}

int db_ids_refill(db_ids_t *p, db_conn_t *c)
{
    atomic_store(&p->asked, false);
    pthread_mutex_lock(&p->mu);
    int want = DB_IDS_CAP - p->n; /* only this thread adds: it can only grow */
    pthread_mutex_unlock(&p->mu);
    int64_t got[DB_IDS_CAP];
    int n = want > 0 ? c->be->take_ids(c, got, want) : 0;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < n; i++)
        p->v[(p->head + p->n++) % DB_IDS_CAP] = got[i];
    p->rounds++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return n < 0 ? DB_ERR : DB_OK;
}

void db_ids_give_back(db_ids_t *p, db_conn_t *c)
{
    if (!c->be || !c->be->give_ids || p->n == 0)
        return;
    int64_t first = p->v[p->head];
    for (int i = 1; i < p->n; i++) /* one run of ids only: a block as taken */
        if (p->v[(p->head + i) % DB_IDS_CAP] != first + i)
            return;
    c->be->give_ids(c, first, first + p->n);
    p->n = 0;
}
