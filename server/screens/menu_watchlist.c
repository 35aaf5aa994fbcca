/* menu_watchlist — the list of live games on every loop, WL_ROWS a page:
 * a letter watches one, < > turn pages, . changes the order. Redrawn
 * every second while shown. */
#include <stdlib.h>
#include <string.h>
#include "menu_impl.h"
#include "session.h"
#include "shard.h"

#define WL_ROWS 15

/* What the orders compare, copied so that sorting ten thousand rows reads
 * the rows, not the sessions; depth and turn only once an order needs
 * them (session_status for every game costs more than the rest). */
typedef struct {
    server_t *k;  /* the loop the game is on */
    session_t *s; /* the game when k is this loop; else found by game_id */
    int64_t game_id, user_id;
    char user[32];
    uint64_t last_key_ms;
    int watchers;
    int depth;
    uint64_t turn;
    /* what a shown row says, read once a tick by its first viewer */
    bool detailed;
    char race_cls[40], term[16];
} wl_row_t;

static const char *const sort_names[] = {"player", "depth", "turn", "idle", "watchers"};

#define NSORTS 5

/* The watch list of one tick, shared by all its viewers whatever their
 * page or order: collected once per tick (again when a game comes, ends or
 * goes: sess_gen), each order sorted once when first asked for. A thousand
 * viewers of ten thousand games cost one walk a second, not a thousand. */
typedef struct wlcache {
    wl_row_t *rows;
    size_t n;
    uint64_t tick, gen;
    bool valid, status;             /* status: depth and turn are filled in */
    const wl_row_t **order[NSORTS]; /* rows sorted by each key; NULL until asked for */
} wlcache_t;

static int wl_cmp_key(const wl_row_t *a, const wl_row_t *b, int key)
{
    switch (key) {
    case 1: return (b->depth > a->depth) - (b->depth < a->depth);
    case 2: return (b->turn > a->turn) - (b->turn < a->turn);
    case 3: return (b->last_key_ms > a->last_key_ms) - (b->last_key_ms < a->last_key_ms);
    case 4: return b->watchers - a->watchers;
    default: return strcmp(a->user, b->user);
    }
}

static int wl_cmp(const void *pa, const void *pb, void *key)
{
    const wl_row_t *a = *(const wl_row_t *const *)pa, *b = *(const wl_row_t *const *)pb;
    int r = wl_cmp_key(a, b, *(int *)key);
    return r ? r : strcmp(a->user, b->user);
}

static void wl_drop(wlcache_t *w)
{
    for (int k = 0; k < NSORTS; k++) {
        free(w->order[k]);
        w->order[k] = NULL;
    }
    free(w->rows);
    w->rows = NULL;
    w->n = 0;
    w->valid = w->status = false;
}

void menu_cache_free(server_t *s)
{
    if (s->wl)
        wl_drop(s->wl);
    free(s->wl);
    s->wl = NULL;
}

/* The live games of loop k (parked unless it is this one) added to w->rows. */
static bool wl_fill_loop(server_t *srv, server_t *k, wlcache_t *w)
{
    wl_row_t *rows = realloc(w->rows, (w->n + (size_t)k->nsessions + 1) * sizeof *rows);
    if (!rows)
        return false;
    w->rows = rows;
    LIST_EACH (it, &k->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (s->ended)
            continue;
        wl_row_t *r = &w->rows[w->n++];
        *r = (wl_row_t){.k = k,
                        .s = k == srv ? s : NULL,
                        .game_id = s->game_id,
                        .user_id = s->user_id,
                        .last_key_ms = s->last_key_ms,
                        .watchers = s->nwatchers};
        memcpy(r->user, s->user, sizeof r->user);
    }
    return true;
}

/* Every live game of every loop, once per tick. */
static bool wl_fill(server_t *srv, wlcache_t *w)
{
    if (w->valid && w->tick == srv->ticks && w->gen == srv->sess_gen)
        return true;
    wl_drop(w);
    for (int i = 0; i < shard_count(srv); i++) {
        server_t *k = shard_at(srv, i);
        shard_lock(k);
        bool ok = wl_fill_loop(srv, k, w);
        shard_unlock(k);
        if (!ok)
            return false;
    }
    w->tick = srv->ticks;
    w->gen = srv->sess_gen;
    w->valid = true;
    return true;
}

/* The row's game, its loop parked by the caller; NULL once it went. */
static session_t *wl_game(const wl_row_t *r)
{
    return r->s ? r->s : session_find_game(r->k, r->game_id);
}

/* Depth and turn of every row: the loops parked one at a time. */
static void wl_fill_status(server_t *srv, wlcache_t *w)
{
    for (int i = 0; i < shard_count(srv); i++) {
        server_t *k = shard_at(srv, i);
        shard_lock(k);
        for (size_t j = 0; j < w->n; j++) {
            if (w->rows[j].k != k)
                continue;
            session_status_t st = {0};
            session_t *s = wl_game(&w->rows[j]);
            if (s)
                session_status(s, &st);
            w->rows[j].depth = st.depth;
            w->rows[j].turn = st.turn;
        }
        shard_unlock(k);
    }
}

/* The live games in the viewer's order; *n of them (0 without memory). */
static const wl_row_t *const *wl_collect(conn_t *c, size_t *n)
{
    server_t *srv = c->srv;
    *n = 0;
    if (!srv->wl && !(srv->wl = calloc(1, sizeof *srv->wl)))
        return NULL;
    wlcache_t *w = srv->wl;
    int key = c->menu->wl_sort;
    if (!wl_fill(srv, w))
        return NULL;
    if ((key == 1 || key == 2) && !w->status) { /* by depth, by turn */
        wl_fill_status(srv, w);
        w->status = true;
    }
    if (!w->order[key]) {
        if (!(w->order[key] = malloc((w->n + 1) * sizeof *w->order[key])))
            return NULL;
        for (size_t i = 0; i < w->n; i++)
            w->order[key][i] = &w->rows[i];
        qsort_r(w->order[key], w->n, sizeof *w->order[key], wl_cmp, &key);
    }
    *n = w->n;
    return w->order[key];
}

static char wl_letter(int i)
{
    return (char)('a' + i + (i >= 'q' - 'a')); /* skip q: it leaves */
}

/* What row r shows, as its game is now (its loop parked by the caller). */
static void wl_row_detail(wl_row_t *r)
{
    const session_t *s = wl_game(r);
    session_status_t st = {0};
    r->detailed = true;
    r->race_cls[0] = 0;
    snprintf(r->term, sizeof r->term, "%s", s ? "detached" : "ended");
    if (s && session_status(s, &st))
        snprintf(r->race_cls, sizeof r->race_cls, "%s %s", st.race, st.cls);
    else if (s) /* a hosted game: its name */
        snprintf(r->race_cls, sizeof r->race_cls, "%.39s", s->kind_name);
    if (s && s->player)
        snprintf(r->term, sizeof r->term, "%dx%d", s->grid->w, s->grid->h);
    if (s) {
        r->last_key_ms = s->last_key_ms;
        r->watchers = s->nwatchers;
    }
    r->depth = st.depth;
    r->turn = st.turn;
}

/* The rows [from, to) of an order, detailed if they are not yet this tick:
 * every loop parked once for all of them, not once a row. */
static void wl_detail(server_t *srv, const wl_row_t *const *rows, size_t from, size_t to)
{
    wlcache_t *w = srv->wl;
    size_t i = from;
    while (i < to && rows[i]->detailed)
        i++;
    if (i == to)
        return;
    shards_lock_all(srv);
    for (; i < to; i++)
        if (!rows[i]->detailed)
            wl_row_detail(&w->rows[rows[i] - w->rows]);
    shards_unlock_all(srv);
}

static void draw_wl_row(screen_t *scr, int i, const wl_row_t *r, uint64_t now)
{
    uint64_t idle = now > r->last_key_ms ? (now - r->last_key_ms) / 1000 : 0;
    screen_put(scr, 2, 4 + i, (uint32_t)wl_letter(i), ST_KEY);
    screen_textf(scr, 3, 4 + i, STYLE_DEFAULT, ") %-20.20s %-16.16s %5d %7llu %5llum %6d  %s",
                 r->user, r->race_cls, r->depth, (unsigned long long)r->turn,
                 (unsigned long long)(idle / 60), r->watchers, r->term);
}

static void draw_watchlist(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    int pages = (int)((n + WL_ROWS - 1) / WL_ROWS);
    if (m->wl_page >= pages)
        m->wl_page = pages ? pages - 1 : 0;
    screen_text(scr, 2, 1, ST_TITLE, "Live games");
    screen_textf(scr, 16, 1, ST_DIM, "%zu playing, sorted by %s, page %d/%d", n,
                 sort_names[m->wl_sort], m->wl_page + 1, pages ? pages : 1);
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                "   Player               Race/class       Depth    Turn   Idle  Watch  Term");
    uint64_t now = now_ms(c->srv);
    size_t first = (size_t)m->wl_page * WL_ROWS;
    wl_detail(c->srv, rows, first, first + WL_ROWS < n ? first + WL_ROWS : n);
    for (int i = 0; i < WL_ROWS; i++) {
        size_t k = (size_t)m->wl_page * WL_ROWS + (size_t)i;
        if (k >= n)
            break;
        draw_wl_row(scr, i, rows[k], now);
    }
    if (n == 0)
        screen_text(scr, 5, 5, ST_DIM, "Nobody is playing right now.");
    screen_text(scr, 2, 5 + WL_ROWS, ST_DIM,
                "Letter: watch   > next page   < previous page   . sort   q back");
    screen_cursor(scr, 0, 0, false);
}

/* The game on the shown page under letter key, or NULL. */
static const wl_row_t *wl_pick(conn_t *c, uint32_t key)
{
    int i = (int)(key - 'a') - (key > 'q');
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    size_t idx = (size_t)c->menu->wl_page * WL_ROWS + (size_t)i;
    return (i < WL_ROWS && idx < n) ? rows[idx] : NULL;
}

static void watchlist_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    if (k.code == 'q' || k.code == KEY_ESC) {
        conn_menu(c, NULL);
        return;
    }
    if (k.code == '>' || k.code == KEY_PGDN || k.code == ' ')
        m->wl_page++;
    else if ((k.code == '<' || k.code == KEY_PGUP) && m->wl_page > 0)
        m->wl_page--;
    else if (k.code == '.')
        m->wl_sort = (m->wl_sort + 1) % NSORTS;
    else if (k.code >= 'a' && k.code <= 'z') {
        const wl_row_t *r = wl_pick(c, k.code);
        if (r && r->user_id == c->user_id) {
            conn_menu(c, "That is your own game: press p to play it.");
            return;
        }
        if (r && r->s) {
            session_watch(c, r->s);
            return;
        }
        if (r) { /* on another loop: watched from there */
            conn_to_game(c, r->k, r->game_id);
            return;
        }
    }
    menu_redraw(c);
}

void menu_open_watchlist(conn_t *c)
{
    menu_show(c, MENU_WATCHLIST);
    c->menu->wl_page = 0;
    menu_redraw(c);
}

const menu_screen_t menu_screen_watchlist = {draw_watchlist, watchlist_key, .tick = true};
