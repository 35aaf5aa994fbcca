/* readturn — a loop turn's share of input; see readturn.h. */
#include "readturn.h"
#include <stdlib.h>
#include <uv.h>
#include "conn.h"
#include "list.h"
#include "server.h"

/* A mark and where it goes: before the key that was kept after it. */
struct kmark {
    uint64_t at; /* readkept.pushed when it was kept */
    readmark_t m;
};

/* A conn's kept input: keys in a ring that grows to READTURN_KEPT_MAX,
 * marks in one of READTURN_MARKS_MAX, each at its place among the keys. */
struct readkept {
    list_t node; /* on readturn_t.kept while it has input kept */
    conn_t *conn;
    key_event_t *keys;
    uint32_t head, n, cap;
    uint64_t pushed, popped; /* keys kept and played, ever */
    struct kmark marks[READTURN_MARKS_MAX];
    uint32_t mhead, mn;
    bool paused; /* its reading stopped (conn_ops_t.pause) */
};

typedef struct readturn {
    server_t *srv;
    uv_check_t end;      /* a turn ends: the budget starts over */
    uv_idle_t play;      /* kept keys are played, the next turn, before the poll */
    list_t kept;         /* readkept_t.node: conns with kept keys, first kept first */
    uint64_t start;      /* the turn's first key, uv_hrtime; 0: none yet */
    uint32_t keys;       /* handled this turn */
    uint32_t test;       /* test-read-budget: keys a turn; 0: READTURN_NS */
    bool closed;         /* readturn_close: no more keeping */
    uint64_t kept_turns; /* turns that ended with keys kept */
    uint64_t kept_keys;  /* keys kept so far */
    uint64_t ring_bytes; /* the rings of the conns with keys kept, now */
} readturn_t;

static void on_end(uv_check_t *h)
{
    readturn_t *rt = h->data;
    rt->start = 0;
    rt->keys = 0;
    if (!list_empty(&rt->kept))
        rt->kept_turns++;
}

static void on_play(uv_idle_t *h);

/* The loop's state, made at its first key; NULL when out of memory (then
 * keys are handled as they come, as before there was a budget). */
static readturn_t *readturn_of(server_t *s)
{
    if (s->readturn || s->stopping)
        return s->readturn;
    readturn_t *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    rt->srv = s;
    rt->test = (uint32_t)s->cfg.test_read_budget;
    list_init(&rt->kept);
    uv_check_init(s->loop, &rt->end);
    uv_idle_init(s->loop, &rt->play);
    rt->end.data = rt->play.data = rt;
    uv_check_start(&rt->end, on_end);
    uv_unref((uv_handle_t *)&rt->end); /* it never keeps the loop running */
    s->readturn = rt;
    return rt;
}

static bool spent(readturn_t *rt)
{
    if (rt->test)
        return rt->keys >= rt->test;
    if (rt->keys == 0)
        return false;
    return uv_hrtime() - rt->start >= READTURN_NS;
}

static void count(readturn_t *rt)
{
    if (rt->keys++ == 0)
        rt->start = uv_hrtime();
}

/* The conn's reading stops (stop) or starts again. */
static void pause_conn(conn_t *c, struct readkept *k, bool stop)
{
    if (k->paused == stop)
        return;
    k->paused = stop;
    if (c->ops->pause)
        c->ops->pause(c, stop);
}

static bool push(readturn_t *rt, struct readkept *k, key_event_t key)
{
    if (k->n == k->cap) {
        if (k->cap >= READTURN_KEPT_MAX)
            return false;
        uint32_t cap = k->cap ? k->cap * 2 : 16;
        key_event_t *nk = malloc(cap * sizeof *nk);
        if (!nk)
            return false;
        for (uint32_t i = 0; i < k->n; i++)
            nk[i] = k->keys[(k->head + i) % k->cap];
        free(k->keys);
        rt->ring_bytes += (cap - k->cap) * sizeof *nk;
        k->keys = nk;
        k->head = 0;
        k->cap = cap;
    }
    k->keys[(k->head + k->n) % k->cap] = key;
    k->n++;
    k->pushed++;
    return true;
}

static bool held(const struct readkept *k)
{
    return k && (k->n || k->mn);
}

/* Plays c's next kept input, a mark due before the next key or the key;
 * false when none is left. */
static bool play_next(conn_t *c, struct readkept *k)
{
    if (k->mn && k->marks[k->mhead].at == k->popped) {
        readmark_t m = k->marks[k->mhead].m;
        k->mhead = (k->mhead + 1) % READTURN_MARKS_MAX;
        k->mn--;
        m.run(c, &m);
        return true;
    }
    if (!k->n)
        return false;
    key_event_t key = k->keys[k->head];
    k->head = (k->head + 1) % k->cap;
    k->n--;
    k->popped++;
    conn_key_now(c, key);
    return true;
}

/* c's state for what it keeps, made at its first; NULL when out of memory. */
static struct readkept *kept_of(conn_t *c)
{
    struct readkept *k = c->kept;
    if (!k && (k = calloc(1, sizeof *k))) {
        list_init(&k->node);
        k->conn = c;
        c->kept = k;
    }
    return k;
}

/* k has input kept: it is played in later turns, its conn paused. */
static void kept_now(readturn_t *rt, conn_t *c, struct readkept *k)
{
    if (!list_linked(&k->node)) {
        list_push_back(&rt->kept, &k->node);
        uv_idle_start(&rt->play, on_play);
    }
    pause_conn(c, k, true);
}

bool readturn_keep(conn_t *c, key_event_t key)
{
    readturn_t *rt = readturn_of(c->srv);
    if (!rt || rt->closed || c->closing)
        return false;
    if (!held(c->kept) && !spent(rt)) {
        count(rt);
        return false;
    }
    struct readkept *k = kept_of(c);
    if (!k)
        return false;        /* out of memory: handled now, over the budget */
    if (!push(rt, k, key)) { /* past the cap (or out of memory): all now, in order */
        readturn_flush(c);
        return false;
    }
    rt->kept_keys++;
    kept_now(rt, c, k);
    return true;
}

bool readturn_keep_mark(conn_t *c, const readmark_t *m)
{
    readturn_t *rt = c->srv->readturn;
    struct readkept *k = c->kept;
    if (!rt || rt->closed || !held(k))
        return false;
    if (k->mn == READTURN_MARKS_MAX) { /* past the cap: all now, in order */
        readturn_flush(c);
        return false;
    }
    k->marks[(k->mhead + k->mn++) % READTURN_MARKS_MAX] = (struct kmark){k->pushed, *m};
    kept_now(rt, c, k);
    return true;
}

/* Plays c's kept input while the turn has budget (a mark counts as a
 * key); true once none is left (or c closed). The caller holds a ref on c. */
static bool play_conn(readturn_t *rt, conn_t *c)
{
    struct readkept *k = c->kept;
    while (held(k) && !c->closing && !spent(rt)) {
        count(rt);
        play_next(c, k);
    }
    return !held(k) || c->closing;
}

/* The ring of k's keys let go, its bytes no longer counted. */
static void ring_free(readturn_t *rt, struct readkept *k)
{
    if (rt)
        rt->ring_bytes -= k->cap * sizeof *k->keys;
    free(k->keys);
    k->keys = NULL;
    k->cap = 0;
}

/* c's kept input is all played (or dropped: c closed). Its ring is let
 * go (a paste grows it to 8 KB; keys are kept again only past a turn's
 * share), so a conn holds no keys' bytes between bursts, and none on its
 * way to another loop (conn_to_game flushes). */
static void kept_done(conn_t *c, struct readkept *k)
{
    ring_free(c->srv->readturn, k);
    k->n = k->head = k->mn = k->mhead = 0;
    k->popped = k->pushed;
    if (list_linked(&k->node))
        list_remove(&k->node);
    pause_conn(c, k, false);
}

static void on_play(uv_idle_t *h)
{
    readturn_t *rt = h->data;
    while (!list_empty(&rt->kept) && !spent(rt)) {
        struct readkept *k = LIST_ITEM(list_front(&rt->kept), struct readkept, node);
        conn_t *c = k->conn;
        conn_ref(c);
        if (play_conn(rt, c))
            kept_done(c, k);
        conn_unref(c);
    }
    if (list_empty(&rt->kept))
        uv_idle_stop(h);
}

void readturn_flush(conn_t *c)
{
    struct readkept *k = c->kept;
    if (!k || !list_linked(&k->node))
        return;
    list_remove(&k->node);
    conn_ref(c);
    while (!c->closing && play_next(c, k))
        ;
    kept_done(c, k);
    conn_unref(c);
}

void readturn_drop(conn_t *c)
{
    struct readkept *k = c->kept;
    if (!k)
        return;
    if (list_linked(&k->node))
        list_remove(&k->node);
    ring_free(c->srv->readturn, k);
    free(k);
    c->kept = NULL;
}

uint64_t readturn_ring_bytes(const server_t *s)
{
    return s->readturn ? s->readturn->ring_bytes : 0;
}

uint64_t readturn_kept_turns(const server_t *s)
{
    return s->readturn ? s->readturn->kept_turns : 0;
}

uint64_t readturn_kept_keys(const server_t *s)
{
    return s->readturn ? s->readturn->kept_keys : 0;
}

void readturn_close(server_t *s)
{
    readturn_t *rt = s->readturn;
    if (!rt || rt->closed)
        return;
    rt->closed = true;
    while (!list_empty(&rt->kept))
        readturn_flush(LIST_ITEM(list_front(&rt->kept), struct readkept, node)->conn);
    uv_close((uv_handle_t *)&rt->end, NULL);
    uv_close((uv_handle_t *)&rt->play, NULL);
}

void readturn_free(server_t *s)
{
    readturn_t *rt = s->readturn;
    if (!rt)
        return;
    while (!list_empty(&rt->kept)) /* their conns free their keys */
        list_remove(list_front(&rt->kept));
    free(rt);
    s->readturn = NULL;
}
