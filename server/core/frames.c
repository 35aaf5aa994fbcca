/* frames — a session's frames to its viewers (frames.h).
 *
 * The session keeps `sent`, the baseline every in-step viewer's terminal
 * shows, at the player's size. A frame is drawn over it in place, each row
 * it changes first kept as it was in the loop's one frame grid
 * (server_t.frame_grid, session_t.before while the frame is sent), and
 * sent as its change from those rows: a game keeps one grid, not two, and
 * its rows that did not change are not read (a grid last touched a second
 * ago among 10,000 games is out of every cache). Each change is
 * encoded once per ANSI profile and the same bytes go to every viewer of
 * that profile. A viewer that is behind (queue full) or new gets a keyframe
 * of its own; a watcher whose terminal is smaller renders at its own size.
 * Watchers that cannot share the player's frame but show nothing of their
 * own beyond the line saying whom they watch (an 80x24 terminal watching
 * an 80x24 game) share one of their size: a view group, drawn, diffed and
 * encoded once per frame for all of them. */
#include "frames.h"
#include <stdlib.h>
#include "backend.h"
#include "hooks.h"
#include "json.h"
#include "peer.h"
#include "server.h"
#include "session_impl.h"
#include "storage.h"

/* ---- viewers and frames ------------------------------------------------------------ */

/* A paused game: the last frame sent, at scr's size, the notice on top
 * (which one: storage.c's, for what keeps it). */
static void render_paused(const session_t *s, screen_t *scr)
{
    static const style_t st = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD | ATTR_REVERSE};
    const screen_t *frozen = s->frozen;
    const char *const *notice = storage_notice(s->srv);
    screen_clear(scr);
    for (int y = 0; y < scr->h && y < frozen->h; y++)
        for (int x = 0; x < scr->w && x < frozen->w; x++) {
            const cell_t *c = screen_at(frozen, x, y);
            screen_put(scr, x, y, c->ch, (style_t){c->fg, c->bg, c->attr});
        }
    for (int i = 0; i < 2 && i < scr->h; i++) {
        screen_fill(scr, 0, i, scr->w, 1, ' ', st);
        screen_text(scr, 1, i, st, notice[i]);
    }
    screen_cursor(scr, 0, 0, false);
}

/* The game's frame (or, paused, the last one with the notice), with what
 * the layers above draw over it (hooks.h: chat's strip, the announcement). */
static void session_render(const session_t *s, screen_t *scr, const session_view_t *v)
{
    if (s->frozen)
        render_paused(s, scr);
    else
        s->ops->draw(s, scr, v);
    HOOKS_CALL(s->srv->hooks->overlay, (session_t *)s, scr);
}

/* Every field set, so that a view's frame is the same for every caller. */
static void view_of(const session_t *s, session_view_t *v)
{
    *v = (session_view_t){.watchers = s->nwatchers,
                          .two_cell = s->player ? s->player->two_cell : false,
                          .turns = s->player ? s->player->turns : false};
}

/* A watcher shares the player's frames when its terminal can hold them
 * and, a terminal watching Warren's game, a row below them for the line
 * saying whom it watches (watcher_footer); else its frames are its own,
 * that line on their bottom row (watch.c). A hosted game's bottom row is
 * the program's (NetHack's status): it is not covered for long. */
bool frames_shared(const session_t *s, const conn_t *c)
{
    const hooks_t *h = s->srv->hooks;
    if (c == s->player || c->json)
        return true;
    if (h->watcher_own && h->watcher_own(c))
        return false; /* help, a chat line being typed: its own frames meanwhile */
    /* pages say it themselves */
    int spare = c->ops->browser || !h->watcher_footer || session_hosted(s) ? 0 : 1;
    return c->w >= s->grid->w && c->h >= s->grid->h + spare;
}

/* Below the game on a taller terminal: whom it watches and the keys
 * (watch.c); written again only when it changed. at: the frame c's
 * terminal shows once out's bytes before the line are written, whose
 * cursor the line puts back. */
static void watcher_footer(session_t *s, conn_t *c, const screen_t *at, buf_t *out, bool key)
{
    if (c == s->player || c->ops->browser || c->h <= s->grid->h) /* pages say it themselves */
        return;
    char line[TERM_MAX_W + 1];
    const hooks_t *h = s->srv->hooks;
    if (!h->watcher_footer || !h->watcher_footer(s, c, line, sizeof line, key))
        return;
    buf_printf(out, "\033[%d;1H\033[m\033[K\033[2m%s\033[m", s->grid->h + 1, line);
    if (at->cur_visible)
        buf_printf(out, "\033[%d;%dH", at->cur_y + 1, at->cur_x + 1);
}

/* What in-step viewers' terminals show: the frame last sent, or, while a
 * frame drawn over it is sent, the one before that, its rows the frame did
 * not change put back first (a keyframe in the midst of a frame's sends). */
static const screen_t *shown(session_t *s)
{
    if (!s->before)
        return s->sent;
    screen_keep_whole(s->before, s->sent);
    return s->before;
}

/* A watcher drawn at its own size: the game, then its overlays. At the
 * game's own size it is a copy of the frame its viewers get (frame: the
 * one being sent, or the last sent), not a render of its own. */
static void own_frame(session_t *s, conn_t *c, const session_view_t *v, const screen_t *frame)
{
    if (c->scr->w == frame->w && c->scr->h == frame->h)
        screen_copy(c->scr, frame);
    else
        session_render(s, c->scr, v);
    if (c != s->player && s->srv->hooks->watcher_draw)
        s->srv->hooks->watcher_draw(s, c, c->scr);
    s->srv->frame_encodes++;
    conn_send_diff(c);
}

/* One more frame encoded on this loop; the id naming its bytes among every
 * loop's (conn_write_shared: relays bring them to the web gateway's loop). */
static uint64_t encoded(server_t *srv)
{
    srv->frame_encodes++;
    return (uint64_t)(srv->shard + 1) << 48 | (srv->frame_encodes & ((1ull << 48) - 1));
}

/* ---- view groups: watchers sharing a frame of their own size ------------------------ */

#define VIEW_GROUPS_MAX 8 /* sizes drawn for at once; past it a watcher draws alone */
#define VIEW_GROUP_ENCS 4 /* profiles encoded a frame; past it each its own bytes */

/* Watchers of one size and kind of terminal with no overlay up see the
 * same frame (the game's, the watch line on its bottom row): `sent` is
 * what their terminals show, `next` the frame being sent; between frames
 * next holds sent's cells, clean, so drawing over it dirties only what
 * changed. */
typedef struct {
    int w, h;
    bool browser;
    bool valid;   /* sent is drawn: members' terminals show it */
    bool drawn;   /* next holds this frame (frames_send) */
    uint64_t seq; /* the session's frame_seq sent was drawn at */
    screen_t *sent, *next;
    int nenc; /* this frame's encodings */
    int enc_pid[VIEW_GROUP_ENCS];
    uint64_t enc_id[VIEW_GROUP_ENCS]; /* encoded(): names the bytes */
    buf_t enc[VIEW_GROUP_ENCS];
} view_group_t;

/* What frames keep per session beside its grids: the view groups, and
 * its watchers as an array, built again after any change to the list
 * (server_t.view_gen bumps with each): walking 5,000 watchers' list
 * nodes, one cache miss waiting for the next, took 2-3 ms a frame; an
 * array's addresses are known up front. */
struct frames_views {
    view_group_t g[VIEW_GROUPS_MAX];
    int n;
    conn_t **wv; /* s->watchers in order, as of wv_gen; NULL: none built */
    int nwv, capwv;
    uint64_t wv_gen;
    uint32_t phase; /* where the next frame's walk starts, as a fraction of 2^32 */
};

static void group_fini(view_group_t *g)
{
    screen_free(g->sent);
    screen_free(g->next);
    for (int i = 0; i < VIEW_GROUP_ENCS; i++)
        buf_free(&g->enc[i]);
    *g = (view_group_t){0};
}

void frames_free(session_t *s)
{
    if (!s->views)
        return;
    for (int i = 0; i < s->views->n; i++)
        group_fini(&s->views->g[i]);
    free(s->views->wv);
    free(s->views);
    s->views = NULL;
}

/* The grid changed size: every group's baseline is gone. */
static void groups_clear(session_t *s)
{
    if (!s->views)
        return;
    for (int i = 0; i < s->views->n; i++)
        group_fini(&s->views->g[i]);
    s->views->n = 0;
}

/* A slot for a new group: a free one, or one no member took the last
 * frame nor joined since; -1 when all are in use. */
static int group_slot(struct frames_views *vs)
{
    if (vs->n < VIEW_GROUPS_MAX)
        return vs->n++;
    for (int i = 0; i < vs->n; i++)
        if (!vs->g[i].valid && !vs->g[i].drawn)
            return i;
    return -1;
}

/* Watcher c's group, made when new; NULL when c draws its own frames (an
 * overlay is up, it is the player, or past the cap or out of memory). */
static view_group_t *group_of(session_t *s, const conn_t *c)
{
    const hooks_t *h = s->srv->hooks;
    if (!c->own_render || c == s->player || c->json || (h->watcher_own && h->watcher_own(c)))
        return NULL;
    if (!s->views && !(s->views = calloc(1, sizeof *s->views)))
        return NULL;
    struct frames_views *vs = s->views;
    for (int i = 0; i < vs->n; i++)
        if (vs->g[i].w == c->w && vs->g[i].h == c->h && vs->g[i].browser == c->ops->browser)
            return &vs->g[i];
    int at = group_slot(vs);
    if (at < 0)
        return NULL;
    view_group_t *g = &vs->g[at];
    group_fini(g);
    *g = (view_group_t){.w = c->w, .h = c->h, .browser = c->ops->browser};
    g->sent = screen_new(c->w, c->h);
    g->next = screen_new(c->w, c->h);
    if (!g->sent || !g->next) {
        group_fini(g);
        *g = vs->g[--vs->n]; /* keep the array dense */
        return NULL;
    }
    return g;
}

/* Draws frame (and c's watch line: the same for every member) into dst,
 * which holds the group's last frame, so only changed rows turn dirty. */
static void group_draw(session_t *s, conn_t *c, const session_view_t *v, const screen_t *frame,
                       screen_t *dst)
{
    if (dst->w == frame->w && dst->h == frame->h)
        screen_copy(dst, frame);
    else
        session_render(s, dst, v);
    if (s->srv->hooks->watcher_draw)
        s->srv->hooks->watcher_draw(s, c, dst);
}

/* A keyframe of the group's baseline for c (joining, behind, resized).
 * A baseline not drawn from the last frame is drawn again first: no
 * member shows it but those keyframed since, from the same frame. */
static void group_keyframe(session_t *s, conn_t *c, view_group_t *g)
{
    server_t *srv = s->srv;
    if (!g->valid || g->seq != s->frame_seq) {
        session_view_t v;
        view_of(s, &v);
        group_draw(s, c, &v, shown(s), g->sent);
        screen_copy(g->next, g->sent);
        screen_clean(g->sent);
        screen_clean(g->next);
        g->valid = true;
        g->seq = s->frame_seq;
    }
    buf_reset(&srv->scratch);
    ansi_keyframe(&c->prof, g->sent, &srv->scratch);
    srv->frame_encodes++;
    c->shown_valid = false; /* its own pair, if it draws alone again, starts over */
    conn_write(c, srv->scratch.data, srv->scratch.len);
}

/* This frame's bytes for c's profile in its group: the diff from what the
 * members show (a keyframe for a new group), made once per profile; *id
 * names them for gateways that share them (0: made for c alone). */
static const buf_t *group_bytes(session_t *s, conn_t *c, view_group_t *g, const session_view_t *v,
                                uint64_t *id)
{
    if (!g->drawn) {
        group_draw(s, c, v, s->grid, g->next);
        g->drawn = true;
        g->nenc = 0;
    }
    int pid = c->prof_id & (ANSI_PROFILE_IDS - 1);
    for (int i = 0; i < g->nenc; i++)
        if (g->enc_pid[i] == pid) {
            *id = g->enc_id[i];
            return &g->enc[i];
        }
    buf_t *b = g->nenc < VIEW_GROUP_ENCS ? &g->enc[g->nenc] : &s->srv->scratch;
    buf_reset(b);
    if (g->valid)
        ansi_diff(&c->prof, g->sent, g->next, b);
    else
        ansi_keyframe(&c->prof, g->next, b);
    *id = encoded(s->srv);
    if (g->nenc < VIEW_GROUP_ENCS) {
        g->enc_id[g->nenc] = *id;
        g->enc_pid[g->nenc++] = pid;
    } else {
        *id = 0;
    }
    return b;
}

static void group_send(session_t *s, conn_t *c, view_group_t *g, const session_view_t *v)
{
    if (c->need_key || !conn_writable(c)) {
        c->need_key = true; /* a keyframe of the group when it drains */
        return;
    }
    uint64_t id;
    const buf_t *b = group_bytes(s, c, g, v, &id);
    c->shown_valid = false;
    conn_write_shared(c, b->data, b->len, false, id);
}

/* After a frame: each group drawn for it keeps it as its baseline; one no
 * member took is drawn afresh for the next that joins. */
static void groups_done(session_t *s)
{
    if (!s->views)
        return;
    for (int i = 0; i < s->views->n; i++) {
        view_group_t *g = &s->views->g[i];
        if (g->drawn) {
            screen_copy(g->sent, g->next);
            screen_clean(g->sent);
            screen_clean(g->next);
            g->seq = s->frame_seq;
            g->valid = true;
        } else {
            g->valid = false;
        }
        g->drawn = false;
    }
}

/* A keyframe of the shared baseline for one viewer (new, resized or behind). */
void frames_keyframe(session_t *s, conn_t *c)
{
    server_t *srv = s->srv;
    if (conn_small(c)) {
        conn_too_small(c);
        return;
    }
    if (!conn_writable(c)) {
        c->need_key = true;
        return;
    }
    c->need_key = false;
    view_group_t *g = group_of(s, c);
    if (g) {
        group_keyframe(s, c, g);
        return;
    }
    if (c->own_render) {
        c->shown_valid = false;
        session_view_t v;
        view_of(s, &v);
        if (!c->scr || c->scr->w != c->w || c->scr->h != c->h) {
            screen_free(c->scr);
            c->scr = screen_new(c->w, c->h);
        }
        if (!c->scr || (!c->shown && !(c->shown = screen_new(c->w, c->h))))
            return;
        own_frame(s, c, &v, shown(s));
        return;
    }
    buf_reset(&srv->scratch);
    srv->frame_encodes++;
    if (c->json) {
        json_frame(NULL, shown(s), s->frame_seq, &srv->scratch);
        conn_write_text(c, srv->scratch.data, srv->scratch.len);
        return;
    }
    const screen_t *frame = shown(s);
    ansi_keyframe(&c->prof, frame, &srv->scratch);
    watcher_footer(s, c, frame, &srv->scratch, true);
    conn_write(c, srv->scratch.data, srv->scratch.len);
}

/* The JSON encoding of the change, made once per frame when asked; *id
 * names it (0: not made yet). */
static void frame_send_json(session_t *s, conn_t *c, uint64_t *id)
{
    buf_t *b = &s->srv->enc_json;
    if (!*id) {
        buf_reset(b);
        json_frame(s->before, s->grid, s->frame_seq, b); /* reads its dirty rows only */
        *id = encoded(s->srv);
    }
    conn_write_shared(c, b->data, b->len, true, *id);
}

/* What one frame has encoded so far: each profile's ANSI and the JSON
 * are made once and the same bytes go to every viewer that takes them. */
typedef struct {
    session_view_t v;
    uint64_t encoded;              /* bit per ANSI profile id */
    uint64_t id[ANSI_PROFILE_IDS]; /* each one's name (encoded()) */
    uint64_t json_id;              /* the JSON's; 0: not made */
} fanout_t;
_Static_assert(ANSI_PROFILE_IDS <= 64, "fanout_t.encoded holds a bit per profile id");

static void frame_send(session_t *s, conn_t *c, fanout_t *f)
{
    if (c->closing || conn_small(c))
        return;
    view_group_t *g = group_of(s, c);
    if (g) {
        group_send(s, c, g, &f->v);
        return;
    }
    if (c->own_render) {
        if (c->scr && c->shown) /* else its keyframe, on its way, makes them */
            own_frame(s, c, &f->v, s->grid);
        return;
    }
    if (c->need_key || !conn_writable(c)) {
        c->need_key = true; /* keyframe when it drains */
        return;
    }
    if (c->json) {
        frame_send_json(s, c, &f->json_id);
        return;
    }
    int pid = c->prof_id & (ANSI_PROFILE_IDS - 1);
    buf_t *b = &s->srv->enc[pid];
    if (!(f->encoded & (1ull << pid))) {
        buf_reset(b);
        ansi_diff(&c->prof, s->before, s->grid, b);
        f->id[pid] = encoded(s->srv);
        f->encoded |= 1ull << pid;
    }
    conn_write_shared(c, b->data, b->len, false, f->id[pid]);
    if (c != s->player && !c->ops->browser && c->h > s->grid->h) {
        buf_t *own = &s->srv->scratch;
        buf_reset(own);
        watcher_footer(s, c, s->grid, own, false); /* after the frame being sent */
        if (own->len)
            conn_write(c, own->data, own->len);
    }
}

/* s's watchers as an array (frames_views.wv), from the list when it
 * changed since; NULL when out of memory. */
static conn_t **watchers_of(session_t *s, int *n)
{
    if (!s->views && !(s->views = calloc(1, sizeof *s->views)))
        return NULL;
    struct frames_views *vs = s->views;
    if (vs->wv && vs->wv_gen == s->srv->view_gen && vs->nwv == s->nwatchers) {
        *n = vs->nwv;
        return vs->wv;
    }
    if (s->nwatchers > vs->capwv) {
        int cap = s->nwatchers + s->nwatchers / 2 + 16;
        conn_t **a = realloc(vs->wv, sizeof *a * (size_t)cap);
        if (!a)
            return NULL;
        vs->wv = a;
        vs->capwv = cap;
    }
    vs->nwv = 0;
    LIST_EACH (it, &s->watchers) {
        if (vs->nwv == vs->capwv)
            break; /* never: nwatchers counts the list */
        vs->wv[vs->nwv++] = LIST_ITEM(it, conn_t, wnode);
    }
    vs->wv_gen = s->srv->view_gen;
    *n = vs->nwv;
    return vs->wv;
}

/* Where a frame's walk of n watchers starts: the last of a big crowd gets
 * its copy a whole fan-out after the first (30 ms and more for 5,000), so
 * no watcher is kept last. A golden-ratio step a frame (a Weyl sequence)
 * spreads any run of frames' starts over the crowd, so each watcher's
 * place is near the middle on the whole, where a step of one would keep
 * those near the end there for many frames. */
static int walk_start(struct frames_views *vs, int n)
{
    vs->phase += 0x9E3779B9u; /* 2^32 / the golden ratio */
    return (int)(((uint64_t)vs->phase * (uint64_t)n) >> 32);
}

/* Sends the change from before to grid to every viewer, the player first,
 * then the watchers from walk_start() round. A failed write closes its
 * conn at once, and that may detach any number of watchers (a mass
 * disconnect): the walk goes over the array as it was when it began (out
 * of the session's keeping meanwhile), each conn held by a ref, and skips
 * those no longer watching. */
static void frames_send(session_t *s)
{
    fanout_t f = {.encoded = 0};
    view_of(s, &f.v);
    if (s->player)
        frame_send(s, s->player, &f);
    int n = 0;
    conn_t **w = s->nwatchers ? watchers_of(s, &n) : NULL;
    if (!w)
        return; /* none, or out of memory: they get a keyframe with the next frame */
    struct frames_views *vs = s->views;
    int cap = vs->capwv;
    vs->wv = NULL; /* this walk's own: a rebuild meanwhile makes another */
    vs->capwv = 0;
    for (int i = 0; i < n; i++)
        conn_ref(w[i]);
    int first = walk_start(vs, n);
    for (int k = 0; k < n; k++) {
        int i = first + k < n ? first + k : first + k - n;
        if (w[i]->sess == s && w[i] != s->player)
            frame_send(s, w[i], &f);
    }
    groups_done(s);
    for (int i = 0; i < n; i++)
        conn_unref(w[i]);
    if (!vs->wv) { /* kept for the next frame: valid while wv_gen is view_gen */
        vs->wv = w;
        vs->nwv = n;
        vs->capwv = cap;
    } else {
        free(w);
    }
}

/* Not re-entered: a watcher leaving during a broadcast (its write failed)
 * asks for another, which runs once this one is done. */
static void broadcast_once(session_t *s);

void frames_broadcast(session_t *s)
{
    if (s->broadcasting) {
        s->broadcast_again = true;
        return;
    }
    s->broadcasting = true;
    do {
        s->broadcast_again = false;
        broadcast_once(s);
    } while (s->broadcast_again && !s->dead);
    s->broadcasting = false;
}

/* The loop's frame grid, a copy of s's baseline with no row dirty; NULL
 * on OOM. A broadcast started inside another (a write that fails closes a
 * conn, and that may refresh another game) gets a grid of its own. */
static screen_t *frame_grid_take(session_t *s)
{
    screen_t *g = s->srv->frame_grid;
    s->srv->frame_grid = NULL;
    if (!g && !(g = screen_new(s->sent->w, s->sent->h)))
        return NULL;
    if (screen_copy(g, s->sent) < 0) {
        screen_free(g);
        return NULL;
    }
    screen_clean(g);
    return g;
}

/* The old baseline becomes the loop's frame grid (one is kept). */
static void frame_grid_give(server_t *srv, screen_t *g)
{
    if (srv->frame_grid)
        screen_free(g);
    else
        srv->frame_grid = g;
}

/* Rows dirty in scr: enough, and ansi_diff reads every row of the frame
 * before it (ansi.h). */
static int dirty_rows(const screen_t *scr)
{
    int n = 0;
    for (int y = 0; y < scr->h; y++)
        n += scr->dirty[y] != 0;
    return n;
}

/* The frame is drawn over the baseline in place; the loop's frame grid
 * keeps the rows it changes as they were (screen_keep_begin), and is
 * given back once the change went out. */
static void broadcast_once(session_t *s)
{
    session_view_t v;
    view_of(s, &v);
    screen_t *before = s->srv->frame_grid;
    s->srv->frame_grid = NULL;
    if (!before)
        before = screen_new(s->sent->w, s->sent->h);
    if (!before || screen_keep_begin(s->sent, before) < 0) {
        screen_free(before);
        return; /* out of memory: the next change tries again */
    }
    s->frame_due = false;
    s->count_due = false;
    s->frame_seq++;
    screen_t *now = s->grid = s->sent;
    session_render(s, now, &v);
    screen_keep_end(now, before);
    if (dirty_rows(now) >= ANSI_DIFF_SEARCH_ROWS)
        screen_keep_whole(before, now);
    s->before = before;
    frames_send(s);
    s->before = NULL;
    screen_clean(now);
    frame_grid_give(s->srv, before);
    if (s->peer) /* other nodes watching it: the change, once per node */
        peer_frame(s);
}

/* A frame now when it shows only stored keys (or the paused notice), else
 * with the commit of the keys on their way. */
void frames_refresh(session_t *s)
{
    if (jqueue_empty(&s->jq) || s->frozen)
        frames_broadcast(s);
    else
        s->frame_due = true;
}

/* A game with a crowd of watchers redraws for a change of their count once
 * a tick: each join redrawn at once would send a crowd of n joining n * n / 2
 * frames (5,000 browsers on one game: 12 million). */
#define COUNT_NOW_MAX 16

void frames_count_changed(session_t *s)
{
    if (s->nwatchers <= COUNT_NOW_MAX)
        frames_refresh(s);
    else
        s->count_due = true;
}

void frames_tick(server_t *srv)
{
    LIST_EACH (it, &srv->watched) {
        session_t *s = LIST_ITEM(it, session_t, wdnode);
        if (s->count_due)
            session_redraw(s); /* broadcast_once clears it */
    }
}

/* The size s is drawn at for its player p: the terminal's, raised to the
 * game's least size (conn_min_size); a terminal below that both ways
 * (told to enlarge it) leaves s at its size, raised the same. */
static void layout_size(const session_t *s, const conn_t *p, int *w, int *h)
{
    int mw, mh, sw, sh;
    conn_min_size(p, &mw, &mh);
    conn_said_size(p, &sw, &sh);
    bool keep = sw < mw && sh < mh;
    *w = keep ? s->sent->w : p->w;
    *h = keep ? s->sent->h : p->h;
    if (*w < mw)
        *w = mw;
    if (*h < mh)
        *h = mh;
}

/* The grid follows the player's terminal; everyone gets a keyframe. */
void frames_layout(session_t *s)
{
    conn_t *p = s->player;
    int w = s->sent->w, h = s->sent->h;
    s->srv->view_gen++; /* the web gateway tells watch pages the size */
    if (p)
        layout_size(s, p, &w, &h);
    if (w != s->sent->w || h != s->sent->h) {
        screen_resize(s->sent, w, h);
        if (s->ops->resize)
            s->ops->resize(s, w, h);
    }
    session_view_t v;
    view_of(s, &v);
    screen_t *g = frame_grid_take(s);
    if (g) { /* the new baseline, drawn whole; out of memory: the old one stays */
        s->grid = g;
        session_render(s, g, &v);
        screen_copy(s->sent, g);
        s->grid = s->sent;
        frame_grid_give(s->srv, g);
    }
    screen_clean(s->sent);
    groups_clear(s);
    if (p) {
        p->own_render = false;
        frames_keyframe(s, p);
    }
    LIST_EACH (it, &s->watchers) {
        conn_t *c = LIST_ITEM(it, conn_t, wnode);
        c->own_render = !frames_shared(s, c);
        frames_keyframe(s, c);
    }
}

void session_resized(conn_t *c)
{
    session_t *s = c->sess;
    if (!s)
        return;
    if (c == s->player) {
        frames_layout(s);
        return;
    }
    c->own_render = !frames_shared(s, c);
    frames_keyframe(s, c);
}

void session_view_changed(conn_t *c)
{
    session_t *s = c->sess;
    if (!s || c == s->player || c->closing)
        return;
    bool own = !frames_shared(s, c);
    if (own && c->own_render && c->scr && c->shown && !conn_small(c) && c->shown_valid &&
        !group_of(s, c)) {
        session_view_t v;
        view_of(s, &v);
        own_frame(s, c, &v, shown(s));
        return;
    }
    c->own_render = own;
    frames_keyframe(s, c);
}

void session_drained(conn_t *c)
{
    if (c->sess)
        frames_keyframe(c->sess, c);
}

void session_redraw(session_t *s)
{
    if (!s->ended && !s->dead)
        frames_refresh(s);
}

void session_redraw_all(server_t *k)
{
    LIST_EACH (it, &k->sessions)
        session_redraw(LIST_ITEM(it, session_t, node));
}

void session_output(session_t *s)
{
    if (!s->dead && !s->ended && jqueue_empty(&s->jq))
        frames_broadcast(s);
}
