/* shard — Warren's games over several loops; see shard.h. */
#include "shard.h"
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include "hooks.h"
#include "lease.h"
#include "log.h"
#include "notify.h"
#include "readturn.h"
#include "server.h"
#include "session.h"
#include "relay.h"
#include "game.h"

/* ---- mailboxes -------------------------------------------------------------------- */

typedef struct msg {
    struct msg *next;
    shard_fn fn;
    void *ud;
} msg_t;

struct mailbox {
    uv_mutex_t mu;
    uv_async_t async;
    msg_t *head, **tail;
    bool open;
};

static msg_t *mail_take(struct mailbox *mb)
{
    uv_mutex_lock(&mb->mu);
    msg_t *m = mb->head;
    mb->head = NULL;
    mb->tail = &mb->head;
    uv_mutex_unlock(&mb->mu);
    return m;
}

static void mail_run(server_t *s, msg_t *m)
{
    while (m) {
        msg_t *next = m->next;
        m->fn(s, m->ud);
        free(m);
        m = next;
    }
}

static void on_mail(uv_async_t *a)
{
    server_t *s = a->data;
    mail_run(s, mail_take(s->mbox));
}

int shard_mailbox_open(server_t *s)
{
    struct mailbox *mb = calloc(1, sizeof *mb);
    if (!mb || uv_mutex_init(&mb->mu)) {
        free(mb);
        return -1;
    }
    mb->tail = &mb->head;
    if (uv_async_init(s->loop, &mb->async, on_mail)) {
        uv_mutex_destroy(&mb->mu);
        free(mb);
        return -1;
    }
    mb->async.data = s;
    mb->open = true;
    s->mbox = mb;
    return 0;
}

/* What was posted before the close still runs (its senders count on it). */
void shard_mailbox_close(server_t *s)
{
    struct mailbox *mb = s->mbox;
    if (!mb || !mb->open)
        return;
    uv_mutex_lock(&mb->mu);
    mb->open = false;
    uv_mutex_unlock(&mb->mu);
    mail_run(s, mail_take(mb));
    uv_close((uv_handle_t *)&mb->async, NULL);
}

void shard_mailbox_free(server_t *s)
{
    struct mailbox *mb = s->mbox;
    if (!mb)
        return;
    mail_run(s, mail_take(mb)); /* none: posts fail once closed */
    uv_mutex_destroy(&mb->mu);
    free(mb);
    s->mbox = NULL;
}

int shard_post(server_t *to, shard_fn fn, void *ud)
{
    struct mailbox *mb = to->mbox;
    msg_t *m = malloc(sizeof *m);
    if (!mb || !m) {
        free(m);
        return -1;
    }
    *m = (msg_t){NULL, fn, ud};
    uv_mutex_lock(&mb->mu);
    bool open = mb->open;
    if (open) {
        *mb->tail = m;
        mb->tail = &m->next;
        uv_async_send(&mb->async);
    }
    uv_mutex_unlock(&mb->mu);
    if (!open)
        free(m);
    return open ? 0 : -1;
}

/* ---- the loops ------------------------------------------------------------------------ */

/* Parking: home asks (uv_async), the loop's thread parks in that callback
 * (between two callbacks: nothing of its own is half done) until home lets
 * it go. */
enum { RUNNING, ASKED, PARKED };

typedef struct {
    server_t srv; /* first: a server_t * of a loop is its shard_rt_t * */
    uv_loop_t loop;
    uv_thread_t thread;
    uv_async_t park;
    uv_mutex_t mu; /* guards state and gone */
    uv_cond_t cv;
    int state;
    bool gone; /* stopped: no callback of it touches its games any more */
    bool started;
} shard_rt_t;

struct shards {
    atomic_int paused;           /* games paused for storage, all loops */
    atomic_uint_least64_t stamp; /* shard_stamp's last */
    int n;
    server_t *srv[LOOPS_MAX];
    int running; /* loops other than home not stopped yet (home's thread) */
    void (*done)(server_t *home);
};

void shard_paused_add(server_t *any, int d)
{
    if (any->shards)
        atomic_fetch_add(&any->shards->paused, d);
}

int shard_paused_all(const server_t *any)
{
    return any->shards ? atomic_load(&any->shards->paused) : any->storage.npaused;
}

uint64_t shard_stamp(server_t *any)
{
    return any->shards ? atomic_fetch_add(&any->shards->stamp, 1) + 1 : ++any->stamp_one;
}

int shard_count(const server_t *any)
{
    return any->shards ? any->shards->n : 1;
}

server_t *shard_at(const server_t *any, int i)
{
    return any->shards ? any->shards->srv[i] : (server_t *)any;
}

server_t *shard_of_user(const server_t *any, int64_t user_id)
{
    if (!any->shards)
        return (server_t *)any;
    uint64_t u = (uint64_t)user_id;
    return any->shards->srv[u % (uint64_t)any->shards->n];
}

/* On the loop's thread, mu held: parks if home asked. */
static void park_here(shard_rt_t *rt)
{
    if (rt->state != ASKED)
        return;
    rt->state = PARKED;
    uv_cond_broadcast(&rt->cv);
    while (rt->state == PARKED)
        uv_cond_wait(&rt->cv, &rt->mu);
}

static void on_park(uv_async_t *a)
{
    shard_rt_t *rt = a->data;
    uv_mutex_lock(&rt->mu);
    park_here(rt);
    uv_mutex_unlock(&rt->mu);
}

void shard_lock(server_t *k)
{
    if (k->shard == 0)
        return;
    shard_rt_t *rt = (shard_rt_t *)k;
    uv_mutex_lock(&rt->mu);
    if (!rt->gone && rt->started) {
        rt->state = ASKED;
        uv_async_send(&rt->park);
        while (rt->state != PARKED)
            uv_cond_wait(&rt->cv, &rt->mu);
    }
    uv_mutex_unlock(&rt->mu);
}

void shard_unlock(server_t *k)
{
    if (k->shard == 0)
        return;
    shard_rt_t *rt = (shard_rt_t *)k;
    uv_mutex_lock(&rt->mu);
    if (rt->state == PARKED) {
        rt->state = RUNNING;
        uv_cond_broadcast(&rt->cv);
    }
    uv_mutex_unlock(&rt->mu);
}

void shards_lock_all(server_t *home)
{
    for (int i = 1; i < shard_count(home); i++)
        shard_lock(shard_at(home, i));
}

void shards_unlock_all(server_t *home)
{
    for (int i = shard_count(home) - 1; i >= 1; i--)
        shard_unlock(shard_at(home, i));
}

/* The loop runs until shutdown closed its handles and its last snapshots
 * were packed and handed to the database; then the handle is closed (its
 * last callbacks run in the second run). */
static void shard_main(void *arg)
{
    shard_rt_t *rt = arg;
    char name[16]; /* as top -H and /proc/PID/task/N/comm show it */
    snprintf(name, sizeof name, "warren-loop%d", rt->srv.shard);
    prctl(PR_SET_NAME, name);
    uv_run(&rt->loop, UV_RUN_DEFAULT);
    db_close(rt->srv.db);
    uv_run(&rt->loop, UV_RUN_DEFAULT);
}

static void on_shard_tick(uv_timer_t *t)
{
    server_tick(t->data);
}

static void shard_recover(server_t *k, void *ud)
{
    (void)ud;
    if (session_recover_all(k))
        log_error("loop %d: recovery could not start", k->shard);
}

/* What the layers above do on a loop of their own (hooks.h). */
static int loop_start(server_t *k)
{
    for (size_t i = 0; i < HOOKS_MAX && k->hooks->loop_start[i]; i++)
        if (k->hooks->loop_start[i](k))
            return -1;
    return 0;
}

/* Makes loop i, not yet running, as sh->srv[i] (what it made, shards_free
 * frees). -1: it cannot run, and said why. */
static int shard_new(server_t *home, shards_t *sh, int i)
{
    shard_rt_t *rt = calloc(1, sizeof *rt);
    if (!rt || uv_loop_init(&rt->loop)) {
        free(rt);
        return log_error("loop %d: out of memory", i), -1;
    }
    if (uv_async_init(&rt->loop, &rt->park, on_park)) { /* no descriptor for its wakeups */
        uv_loop_close(&rt->loop);
        free(rt);
        return log_error("loop %d: no descriptor for its wakeups", i), -1;
    }
    uv_mutex_init(&rt->mu);
    uv_cond_init(&rt->cv);
    rt->park.data = rt;
    server_t *k = &rt->srv;
    sh->srv[i] = k;
    if (server_init(k, &rt->loop))
        return log_error("loop %d: libsodium cannot start", i), -1;
    k->hooks = home->hooks; /* read-only, shared */
    k->cfg = home->cfg;     /* read-only; its game list is home's */
    k->content = home->content;
    k->mod = home->mod;
    k->budget = home->budget;
    k->pace = home->pace;
    k->strangers = home->strangers;
    k->shards = sh;
    k->shard = i;
    /* stamps of its own: a terminal's grid moves between loops */
    k->screen_stamps = (uint64_t)i << 48;
    k->vm = script_vm_new();
    k->db = db_attach(home->db, &rt->loop);
    if (!k->vm || !k->db || shard_mailbox_open(k))
        return log_error("loop %d: out of memory", i), -1;
    if (loop_start(k)) /* the layer that failed said why */
        return -1;
    storage_init(k);
    lease_init(k, home);
    uv_timer_init(&rt->loop, &k->tick);
    k->tick.data = k;
    uv_timer_start(&k->tick, on_shard_tick, 1000, 1000);
    return 0;
}

int shards_start(server_t *home)
{
    int n = home->cfg.loops;
    if (n <= 1)
        return 0;
    shards_t *sh = calloc(1, sizeof *sh);
    if (!sh)
        return log_error("loops: out of memory"), -1;
    sh->n = n;
    /* The one place home is chosen: it is loop 0 (its shard 0) for the
     * whole run, so what walks every loop from home (shards_lock_all, the
     * watch list's others_due) takes index 0 for home and the rest from 1. */
    sh->srv[0] = home;
    home->shards = sh;
    for (int i = 1; i < n; i++) /* all made before any runs: a failure stops none */
        if (shard_new(home, sh, i))
            return log_error("loops: loop %d cannot start: stopping", i), -1;
    for (int i = 1; i < n; i++) {
        shard_rt_t *rt = (shard_rt_t *)sh->srv[i];
        int err = uv_thread_create(&rt->thread, shard_main, rt);
        if (err) /* the loops before it run: server_unwind stops them, shards_free the rest */
            return log_error("loop %d: cannot make its thread: %s", i, uv_strerror(err)), -1;
        shard_post(&rt->srv, shard_recover, NULL); /* only a loop that runs has mail */
        rt->started = true;
        sh->running++;
    }
    log_info("loops: %d (Warren games on loop user %% %d)", n, n);
    return 0;
}

/* ---- every loop in turn ------------------------------------------------------------------ */

typedef struct {
    shard_fn fn, done;
    void *ud;
    server_t *home;
    int left; /* loops yet to answer, and home's own turn: home's thread only */
} each_t;

static void each_back(server_t *home, void *ud)
{
    each_t *e = ud;
    if (--e->left > 0)
        return;
    e->fn(home, e->ud); /* the conns that came home meanwhile */
    e->done(home, e->ud);
    free(e);
}

static void each_run(server_t *k, void *ud)
{
    each_t *e = ud;
    e->fn(k, e->ud);
    if (shard_post(e->home, each_back, e))
        log_error("loop %d: home stopped first", k->shard);
}

void shards_each(server_t *home, shard_fn fn, void *ud, shard_fn done)
{
    fn(home, ud);
    shards_t *sh = home->shards;
    each_t *e = sh ? calloc(1, sizeof *e) : NULL;
    if (!e) {
        done(home, ud);
        return;
    }
    *e = (each_t){fn, done, ud, home, 1};
    for (int i = 1; i < sh->n; i++) {
        e->left++;
        if (shard_post(sh->srv[i], each_run, e))
            e->left--; /* stopped: it has no conns left */
    }
    each_back(home, e); /* home's turn */
}

/* ---- shutdown ------------------------------------------------------------------------- */

static void shard_gone(server_t *home, void *ud)
{
    (void)ud;
    shards_t *sh = home->shards;
    if (--sh->running == 0 && sh->done)
        sh->done(home);
}

/* The loop's games are stored: its viewers let go, its handles closed; the
 * loop runs down (shard_main closes its database handle) and its thread
 * ends. */
static void shard_stored(server_t *k)
{
    server_close_conns(k); /* the terminals handed to this loop, as home closes its own */
    LIST_EACH (it, &k->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        while (!list_empty(&s->watchers))
            relay_stop(LIST_ITEM(list_front(&s->watchers), conn_t, wnode));
        if (s->player)
            relay_stop(s->player);
    }
    shard_mailbox_close(k); /* what home posted runs now, before the database closes */
    if (db_flush_sync(k->db) != DB_OK)
        log_error("loop %d: final flush failed: %s", k->shard, db_error(k->db));
    uv_timer_stop(&k->tick);
    uv_close((uv_handle_t *)&k->tick, NULL);
    server_t *home = k->shards->srv[0];
    shard_rt_t *rt = (shard_rt_t *)k;
    uv_mutex_lock(&rt->mu);
    park_here(rt); /* home may be waiting for this loop: served before it goes */
    rt->gone = true;
    uv_mutex_unlock(&rt->mu);
    uv_close((uv_handle_t *)&rt->park, NULL);
    if (shard_post(home, shard_gone, NULL))
        log_error("loop %d: home stopped first", k->shard);
}

static void shard_down(server_t *k, void *ud)
{
    (void)ud;
    k->stopping = true;
    HOOKS_CALL(k->hooks->loop_stop, k);
    readturn_close(k); /* keys kept for a later turn are played first */
    session_shutdown_all(k);
    storage_shutdown(k, shard_stored);
}

void shards_shutdown(server_t *home, void (*done)(server_t *home))
{
    shards_t *sh = home->shards;
    if (!sh || sh->running == 0) {
        done(home);
        return;
    }
    sh->done = done;
    for (int i = 1; i < sh->n; i++) {
        server_t *k = sh->srv[i];
        if (k && ((shard_rt_t *)k)->started && shard_post(k, shard_down, NULL))
            shard_gone(home, NULL);
    }
}

/* A loop that ran down (or never ran): what it held, on home's thread. */
static void shard_free(shard_rt_t *rt)
{
    server_t *k = &rt->srv;
    if (!rt->started) { /* what shard_new made */
        db_close(k->db);
        if (k->mbox)
            shard_mailbox_close(k);
        if (k->tick.loop)
            uv_close((uv_handle_t *)&k->tick, NULL);
        if (k->storage.on)
            storage_close(k);
        HOOKS_CALL(k->hooks->loop_stop, k);
        uv_close((uv_handle_t *)&rt->park, NULL);
        uv_run(&rt->loop, UV_RUN_DEFAULT);
    }
    session_free_all(k);
    HOOKS_CALL(k->hooks->loop_free, k);
    notify_outbox_free(k); /* after db_close: its writes all answered */
    script_vm_free(k->vm);
    server_bufs_free(k);
    shard_mailbox_free(k);
    uv_loop_close(&rt->loop);
    uv_cond_destroy(&rt->cv);
    uv_mutex_destroy(&rt->mu);
    free(rt);
}

void shards_free(server_t *home)
{
    shards_t *sh = home->shards;
    if (!sh)
        return;
    for (int i = 1; i < sh->n; i++) {
        shard_rt_t *rt = (shard_rt_t *)sh->srv[i];
        if (!rt)
            continue;
        if (rt->started)
            uv_thread_join(&rt->thread);
        shard_free(rt);
    }
    free(sh);
    home->shards = NULL;
}
