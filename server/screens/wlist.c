/* wlist — the watch list's rows, kept from the loops' change logs (wlist.h). */
#include "wlist.h"
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "shard.h"

/* One order besides the player order, made at most once a tick. */
typedef struct {
    const wl_row_t **v;
    size_t n, cap;
    uint64_t tick, version; /* made then, from the rows as they were then */
    size_t need;            /* made for this many rows (idle, watchers) */
    bool made;
} wl_order_t;

typedef struct wlcache {
    hmap_t by_game;
    list_t came;       /* the rows in the order they came (wl_row_t.came) */
    uint64_t next_seq; /* wl_row_t.seq of the next row to come */
    wl_row_t **rows;   /* every row, in the player order */
    size_t n, cap;
    bool valid;           /* built once from the sessions; changes since applied */
    uint64_t synced_tick; /* the other loops' changes applied at this tick (+1) */
    uint64_t version;     /* bumps when rows come or go: orders made before are stale */
    uint64_t mark;        /* wl_row_t.mark of the watched part of the latest order */
    wl_order_t ord[WL_ORDERS];
} wlcache_t;

static uint64_t row_hash(int64_t game_id)
{
    return hmap_hash_u64((uint64_t)game_id);
}

/* The player order: name, then game. */
static int row_cmp(const wl_row_t *a, const wl_row_t *b)
{
    int r = strcmp(a->user, b->user);
    if (r)
        return r;
    return (a->game_id > b->game_id) - (a->game_id < b->game_id);
}

static int row_pcmp(const void *pa, const void *pb)
{
    return row_cmp(*(wl_row_t *const *)pa, *(wl_row_t *const *)pb);
}

/* The first position whose row is not before r. */
static size_t row_lower(const wlcache_t *w, const wl_row_t *r)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (row_cmp(w->rows[mid], r) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static wl_row_t *row_find(const wlcache_t *w, const server_t *k, int64_t game_id, int64_t user_id)
{
    HMAP_EACH(it, &w->by_game, row_hash(game_id))
    {
        wl_row_t *r = HMAP_ITEM(it, wl_row_t, hn);
        if (r->k == k && r->game_id == game_id && r->user_id == user_id)
            return r;
    }
    return NULL;
}

static bool rows_room(wlcache_t *w, size_t more)
{
    if (w->n + more <= w->cap)
        return true;
    size_t cap = (w->n + more) * 2 + 64;
    wl_row_t **v = realloc(w->rows, cap * sizeof *v);
    if (!v)
        return false;
    w->rows = v;
    w->cap = cap;
    return true;
}

/* A row for the game; in its place when sorted, else at the end (a
 * rebuild sorts once). */
static bool row_add(wlcache_t *w, server_t *k, const sess_change_t *ch, bool sorted)
{
    wl_row_t *r = calloc(1, sizeof *r);
    if (!r || !rows_room(w, 1) || hmap_add(&w->by_game, &r->hn, row_hash(ch->game_id)) < 0) {
        free(r);
        return false;
    }
    r->k = k;
    r->seq = w->next_seq++;
    list_push_back(&w->came, &r->came);
    r->game_id = ch->game_id;
    r->user_id = ch->user_id;
    r->stamp = ch->stamp;
    snprintf(r->user, sizeof r->user, "%s", ch->user);
    size_t at = sorted ? row_lower(w, r) : w->n;
    memmove(&w->rows[at + 1], &w->rows[at], (w->n - at) * sizeof *w->rows);
    w->rows[at] = r;
    w->n++;
    return true;
}

static void row_del(wlcache_t *w, wl_row_t *r)
{
    size_t at = row_lower(w, r);
    while (at < w->n && w->rows[at] != r) /* the same name and game twice */
        at++;
    if (at < w->n) {
        memmove(&w->rows[at], &w->rows[at + 1], (w->n - at - 1) * sizeof *w->rows);
        w->n--;
    }
    hmap_del(&w->by_game, &r->hn);
    list_remove(&r->came);
    free(r);
}

static void rows_drop(wlcache_t *w)
{
    for (size_t i = 0; i < w->n; i++) {
        hmap_del(&w->by_game, &w->rows[i]->hn);
        list_remove(&w->rows[i]->came);
        free(w->rows[i]);
    }
    w->n = 0;
    w->valid = false;
    w->version++;
}

/* A game a rebuild found live with no row of its own yet. */
typedef struct {
    server_t *k;
    sess_change_t ch;
} wl_new_t;

typedef struct {
    wl_new_t *v;
    size_t n, cap;
} wl_news_t;

static bool news_push(wl_news_t *nw, server_t *k, const session_t *s)
{
    if (nw->n == nw->cap) {
        size_t cap = nw->cap * 2 + 64;
        wl_new_t *v = realloc(nw->v, cap * sizeof *v);
        if (!v)
            return false;
        nw->v = v;
        nw->cap = cap;
    }
    wl_new_t *e = &nw->v[nw->n++];
    *e = (wl_new_t){k, {.game_id = s->game_id, .user_id = s->user_id, .stamp = s->came_stamp}};
    memcpy(e->ch.user, s->user, sizeof e->ch.user);
    return true;
}

/* The order the games started in, whichever loops they are on. */
static int news_cmp(const void *pa, const void *pb)
{
    const wl_new_t *a = pa, *b = pb;
    if (a->ch.stamp != b->ch.stamp)
        return a->ch.stamp < b->ch.stamp ? -1 : 1;
    if (a->k->shard != b->k->shard)
        return a->k->shard - b->k->shard;
    return (a->ch.game_id > b->ch.game_id) - (a->ch.game_id < b->ch.game_id);
}

/* Loop k's live games (k parked): a row that is still its game's is kept,
 * the games with none go to nw. False when out of memory. */
static bool rebuild_loop(wlcache_t *w, server_t *k, wl_news_t *nw)
{
    LIST_EACH (it, &k->sessions) {
        const session_t *s = LIST_ITEM(it, session_t, node);
        if (s->ended)
            continue;
        wl_row_t *r = row_find(w, k, s->game_id, s->user_id);
        if (r && r->stamp == s->came_stamp)
            r->kept = true;
        else if (!news_push(nw, k, s))
            return false;
    }
    return true;
}

/* The rows not kept taken out, the others left in their order. */
static void rows_sweep(wlcache_t *w)
{
    size_t to = 0;
    for (size_t i = 0; i < w->n; i++) {
        wl_row_t *r = w->rows[i];
        if (r->kept) {
            w->rows[to++] = r;
            continue;
        }
        hmap_del(&w->by_game, &r->hn);
        list_remove(&r->came);
        free(r);
    }
    w->n = to;
}

/* Every live game of every loop, all parked at once (a game that starts
 * on a loop walked before would be placed after a later one found on a
 * loop walked after it) and their change logs cleared: what is logged
 * after is applied on top. The rows whose games are still live keep
 * their places; the games new to the rows come after them in the order
 * they started, as the changes would have placed them (wl_apply_all). */
static bool wl_rebuild(server_t *home, wlcache_t *w)
{
    wl_news_t nw = {0};
    bool ok = true;
    for (size_t i = 0; i < w->n; i++)
        w->rows[i]->kept = false;
    shards_lock_all(home);
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        ok = ok && rebuild_loop(w, k, &nw);
        session_changes_clear(k);
    }
    shards_unlock_all(home);
    rows_sweep(w);
    if (nw.n > 1)
        qsort(nw.v, nw.n, sizeof *nw.v, news_cmp);
    ok = ok && rows_room(w, nw.n);
    for (size_t i = 0; ok && i < nw.n; i++)
        ok = row_add(w, nw.v[i].k, &nw.v[i].ch, false);
    free(nw.v);
    if (w->n > 1)
        qsort(w->rows, w->n, sizeof *w->rows, row_pcmp);
    w->version++;
    if (!ok)
        rows_drop(w);
    w->valid = ok;
    return ok;
}

/* One change applied to the rows: whether there was memory for it. */
static bool wl_apply(wlcache_t *w, server_t *k, const sess_change_t *ch)
{
    wl_row_t *r = row_find(w, k, ch->game_id, ch->user_id);
    if (ch->live && !r)
        return row_add(w, k, ch, true);
    if (!ch->live && r)
        row_del(w, r);
    return true;
}

/* The change logs of loops 0..nk-1 (all parked) applied to the rows in
 * the order the changes happened, whichever loop each is on: games that
 * came since the last sync come in the order they started (a viewer's
 * page puts them below the others in that order). False when a log was
 * lost (too long unread) and the rows must be rebuilt. */
static bool wl_apply_all(server_t *home, wlcache_t *w, int nk)
{
    int at[LOOPS_MAX] = {0};
    bool ok = true, any = false;
    for (int i = 0; i < nk; i++)
        ok = ok && !shard_at(home, i)->changes_lost;
    while (ok) {
        int next = -1;
        for (int i = 0; i < nk; i++) {
            const server_t *k = shard_at(home, i);
            if (at[i] < k->nchanges &&
                (next < 0 ||
                 k->changes[at[i]].stamp < shard_at(home, next)->changes[at[next]].stamp))
                next = i;
        }
        if (next < 0)
            break;
        server_t *k = shard_at(home, next);
        ok = wl_apply(w, k, &k->changes[at[next]++]);
        any = true;
    }
    if (any)
        w->version++;
    for (int i = 0; i < nk; i++)
        session_changes_clear(shard_at(home, i));
    return ok;
}

/* --test-hooks: the rows against a rebuild from the sessions. */
static void wl_check(server_t *home, wlcache_t *w)
{
    size_t live = 0, missing = 0;
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        shard_lock(k);
        LIST_EACH (it, &k->sessions) {
            const session_t *s = LIST_ITEM(it, session_t, node);
            live += !s->ended;
            missing += !s->ended && !row_find(w, k, s->game_id, s->user_id);
        }
        shard_unlock(k);
    }
    bool sorted = true, came = true;
    for (size_t i = 1; i < w->n; i++)
        sorted = sorted && row_cmp(w->rows[i - 1], w->rows[i]) <= 0;
    for (list_t *it = w->came.next; it != &w->came && it->next != &w->came; it = it->next)
        came = came &&
               LIST_ITEM(it, wl_row_t, came)->stamp < LIST_ITEM(it->next, wl_row_t, came)->stamp;
    if (live == w->n && !missing && sorted && came)
        return;
    log_error("watch list differs from a rebuild: %zu rows, %zu games live, %zu missing%s%s", w->n,
              live, missing, sorted ? "" : ", out of order", came ? "" : ", out of start order");
    wl_rebuild(home, w);
}

/* Whether a loop other than home logged a change since its log was read
 * (changes_due: set before the change is stamped, so of a loop seen
 * without one, any change is stamped after every change read now). The
 * others are loops 1..N-1: home is always loop 0 (shards_start), and the
 * watch list is only read on home (menus run there). */
static bool others_due(server_t *home)
{
    for (int i = 1; i < shard_count(home); i++)
        if (atomic_load(&shard_at(home, i)->changes_due))
            return true;
    return false;
}

/* The loops' changes once a tick, when forced, or when home's own came
 * (home is not parked for them). When another loop has one, all are
 * parked at once and applied together, so that a game that came on
 * another loop before one on home is not placed after it; when none has,
 * nobody is parked (only home's log is read). */
static bool wl_sync(server_t *home, wlcache_t *w, bool force)
{
    if (!w->valid)
        return wl_rebuild(home, w);
    if (!force && w->synced_tick == home->ticks + 1 && !atomic_load(&home->changes_due))
        return true;
    bool all = others_due(home);
    if (all)
        shards_lock_all(home);
    bool ok = wl_apply_all(home, w, all ? shard_count(home) : 1);
    if (all)
        shards_unlock_all(home);
    if (!ok)
        return wl_rebuild(home, w);
    w->synced_tick = home->ticks + 1;
    if (home->cfg.test_lists)
        wl_check(home, w);
    return true;
}

static wlcache_t *wl_get(server_t *home)
{
    if (!home->wl && (home->wl = calloc(1, sizeof *home->wl))) {
        hmap_init(&home->wl->by_game);
        list_init(&home->wl->came);
    }
    return home->wl;
}

void wlist_sync(server_t *home)
{
    wlcache_t *w = wl_get(home);
    if (w)
        wl_sync(home, w, true);
}

session_t *wlist_game(const wl_row_t *r)
{
    return session_find_game(r->k, r->game_id);
}

void wlist_free(server_t *home)
{
    wlcache_t *w = home->wl;
    if (!w)
        return;
    rows_drop(w);
    free(w->rows);
    hmap_fini(&w->by_game);
    for (int i = 0; i < WL_ORDERS; i++)
        free(w->ord[i].v);
    free(w);
    home->wl = NULL;
}

/* ---- the other orders ----------------------------------------------------------------- */

static int key_cmp(const wl_row_t *a, const wl_row_t *b, int key)
{
    switch (key) {
    case WL_BY_DEPTH: return (b->depth > a->depth) - (b->depth < a->depth);
    case WL_BY_TURN: return (b->turn > a->turn) - (b->turn < a->turn);
    case WL_BY_IDLE: return (b->last_key_ms > a->last_key_ms) - (b->last_key_ms < a->last_key_ms);
    case WL_BY_WATCHERS: return b->watchers - a->watchers;
    default: return 0;
    }
}

static int ord_cmp(const void *pa, const void *pb, void *key)
{
    const wl_row_t *a = *(const wl_row_t *const *)pa, *b = *(const wl_row_t *const *)pb;
    int r = key_cmp(a, b, *(int *)key);
    return r ? r : row_cmp(a, b);
}

static bool ord_room(wl_order_t *o, size_t more)
{
    if (o->n + more <= o->cap)
        return true;
    size_t cap = (o->n + more) * 2 + 64;
    const wl_row_t **v = realloc(o->v, cap * sizeof *v);
    if (!v)
        return false;
    o->v = v;
    o->cap = cap;
    return true;
}

typedef struct {
    wlcache_t *w;
    wl_order_t *o;
    server_t *k;
} ord_take_t;

/* s's row into the order, its compared fields read: whether it is one. */
static bool ord_put(void *ud, session_t *s)
{
    ord_take_t *t = ud;
    wl_row_t *r = s->ended ? NULL : row_find(t->w, t->k, s->game_id, s->user_id);
    if (!r || !ord_room(t->o, 1))
        return false;
    r->last_key_ms = s->last_key_ms;
    r->watchers = s->nwatchers;
    r->mark = t->w->mark;
    t->o->v[t->o->n++] = r;
    return true;
}

/* Up to need rows from loop k's watched list, or its latest keyed
 * (session_each_recent: maybe more); k parked. */
static void ord_take(wlcache_t *w, wl_order_t *o, server_t *k, bool watched, size_t need)
{
    ord_take_t t = {w, o, k};
    if (!watched) {
        session_each_recent(k, need, ord_put, &t);
        return;
    }
    size_t took = 0;
    LIST_EACH (it, &k->watched) {
        if (took >= need)
            break;
        took += ord_put(&t, LIST_ITEM(it, session_t, wdnode));
    }
}

/* The latest keyed (idle) or the most watched first, as far as need: from
 * each loop's by_recency or watched list, merged; the watched order goes
 * on with the unwatched by name. */
static void ord_lists(server_t *home, wlcache_t *w, wl_order_t *o, int key, size_t need)
{
    bool watched = key == WL_BY_WATCHERS;
    w->mark++;
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        shard_lock(k);
        ord_take(w, o, k, watched, watched ? (size_t)k->nsessions : need);
        shard_unlock(k);
    }
    if (o->n > 1)
        qsort_r(o->v, o->n, sizeof *o->v, ord_cmp, &key);
    if (o->n > need)
        o->n = need;
    for (size_t i = 0; watched && i < w->n && o->n < need; i++) {
        wl_row_t *r = w->rows[i];
        if (r->mark != w->mark && ord_room(o, 1)) {
            r->watchers = 0; /* off every watched list */
            o->v[o->n++] = r;
        }
    }
}

/* Depth and turn of every row (the loops parked one at a time), sorted. */
static void ord_status(server_t *home, wlcache_t *w, wl_order_t *o, int key)
{
    if (!ord_room(o, w->n))
        return;
    for (int i = 0; i < shard_count(home); i++) {
        server_t *k = shard_at(home, i);
        shard_lock(k);
        for (size_t j = 0; j < w->n; j++) {
            wl_row_t *r = w->rows[j];
            if (r->k != k)
                continue;
            session_status_t st = {0};
            const session_t *s = wlist_game(r);
            if (s)
                session_status(s, &st);
            r->depth = st.depth;
            r->turn = st.turn;
        }
        shard_unlock(k);
    }
    for (size_t j = 0; j < w->n; j++)
        o->v[o->n++] = w->rows[j];
    if (o->n > 1)
        qsort_r(o->v, o->n, sizeof *o->v, ord_cmp, &key);
}

const wl_row_t *const *wlist_order(server_t *home, int key, size_t need, size_t *n)
{
    *n = 0;
    wlcache_t *w = wl_get(home);
    if (!w || !wl_sync(home, w, false))
        return NULL;
    *n = w->n;
    if (key <= WL_BY_PLAYER || key >= WL_ORDERS)
        return (const wl_row_t *const *)w->rows;
    wl_order_t *o = &w->ord[key];
    if (need > w->n)
        need = w->n;
    bool fresh = o->made && o->tick == home->ticks && o->version == w->version;
    if (fresh && (o->need >= need || o->n >= w->n))
        return o->v;
    o->n = 0;
    if (key == WL_BY_IDLE || key == WL_BY_WATCHERS)
        ord_lists(home, w, o, key, need);
    else
        ord_status(home, w, o, key);
    *o = (wl_order_t){o->v, o->n, o->cap, home->ticks, w->version, need, true};
    if (o->n < need) /* out of memory: what there is */
        *n = o->n;
    return o->v;
}

/* ---- what a shown row says ------------------------------------------------------------- */

/* What row r shows, as its game is now (its loop parked by the caller). */
static void row_detail(wl_row_t *r, uint64_t tick)
{
    const session_t *s = wlist_game(r);
    session_status_t st = {0};
    r->detail_tick = tick + 1;
    r->race_cls[0] = 0;
    snprintf(r->term, sizeof r->term, "ended");
    if (s && session_status(s, &st))
        snprintf(r->race_cls, sizeof r->race_cls, "%s %s", st.race, st.cls);
    else if (s) /* a hosted game: its name */
        snprintf(r->race_cls, sizeof r->race_cls, "%.39s", s->kind_name);
    if (s) /* another node's game too, as its own node shows it */
        session_term_text(s, r->term, sizeof r->term);
    if (s) {
        r->last_key_ms = s->last_key_ms;
        r->watchers = s->nwatchers;
    }
    r->depth = st.depth;
    r->turn = st.turn;
}

void wlist_detail(server_t *home, const wl_row_t *const *rows, size_t from, size_t to)
{
    uint64_t tick = home->ticks;
    size_t i = from;
    while (i < to && rows[i]->detail_tick == tick + 1)
        i++;
    if (i == to)
        return;
    shards_lock_all(home);
    for (; i < to; i++)
        if (rows[i]->detail_tick != tick + 1)
            row_detail((wl_row_t *)rows[i], tick);
    shards_unlock_all(home);
}

/* ---- one viewer's page as drawn -------------------------------------------------------- */

static void slot_set(wl_slot_t *sl, const wl_row_t *r)
{
    *sl = (wl_slot_t){.k = r->k, .game_id = r->game_id, .user_id = r->user_id};
    snprintf(sl->user, sizeof sl->user, "%s", r->user);
}

int wlist_view_lay(server_t *home, wl_view_t *v, int key, int page)
{
    size_t n = 0;
    const wl_row_t *const *rows = wlist_order(home, key, ((size_t)page + 1) * WL_VIEW_ROWS, &n);
    int pages = (int)((n + WL_VIEW_ROWS - 1) / WL_VIEW_ROWS);
    if (page >= pages)
        page = pages ? pages - 1 : 0;
    size_t first = (size_t)page * WL_VIEW_ROWS;
    v->n = 0;
    for (size_t i = first; rows && i < n && v->n < WL_VIEW_ROWS; i++)
        slot_set(&v->slot[v->n++], rows[i]);
    v->seq = home->wl ? home->wl->next_seq : 0;
    return page;
}

static bool view_has(const wl_view_t *v, const wl_row_t *r)
{
    for (int i = 0; i < v->n; i++)
        if (v->slot[i].k == r->k && v->slot[i].game_id == r->game_id &&
            v->slot[i].user_id == r->user_id)
            return true;
    return false;
}

/* The slot a new game may take: a free one, else one gone long enough. */
static wl_slot_t *view_free(wl_view_t *v, uint64_t now_ms)
{
    for (int i = 0; i < v->n; i++)
        if (v->slot[i].gone_ms && now_ms - v->slot[i].gone_ms >= WL_GONE_KEEP_MS)
            return &v->slot[i];
    return v->n < WL_VIEW_ROWS ? &v->slot[v->n++] : NULL;
}

/* The first row that came at seq or after, or the list's head. */
static list_t *came_since(wlcache_t *w, uint64_t seq)
{
    list_t *it = w->came.prev;
    while (it != &w->came && LIST_ITEM(it, wl_row_t, came)->seq >= seq)
        it = it->prev;
    return it->next;
}

void wlist_view_update(server_t *home, wl_view_t *v, uint64_t now_ms)
{
    wlcache_t *w = wl_get(home);
    if (!w || !wl_sync(home, w, false))
        return;
    for (int i = 0; i < v->n; i++) {
        wl_slot_t *sl = &v->slot[i];
        bool live = row_find(w, sl->k, sl->game_id, sl->user_id);
        sl->gone_ms = live ? 0 : sl->gone_ms ? sl->gone_ms : now_ms ? now_ms : 1;
    }
    while (v->n && v->slot[v->n - 1].gone_ms && /* the last ones: no letter below moves */
           now_ms - v->slot[v->n - 1].gone_ms >= WL_GONE_KEEP_MS)
        v->n--;
    for (list_t *it = came_since(w, v->seq); it != &w->came; it = it->next) {
        const wl_row_t *r = LIST_ITEM(it, wl_row_t, came);
        wl_slot_t *sl = view_has(v, r) ? NULL : view_free(v, now_ms);
        if (sl)
            slot_set(sl, r);
    }
    v->seq = w->next_seq; /* those that found no room belong to later pages */
}

const wl_row_t *wlist_view_row(server_t *home, const wl_view_t *v, int i)
{
    if (!home->wl || i < 0 || i >= v->n)
        return NULL;
    const wl_slot_t *sl = &v->slot[i];
    return row_find(home->wl, sl->k, sl->game_id, sl->user_id);
}

size_t wlist_count(server_t *home)
{
    return home->wl ? home->wl->n : 0;
}
