/* render — the view (see render.h). */
#include "render.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glyph.h"
#include "help.h"
#include "item.h"
#include "itemui.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "target.h"
#include "trap.h"
#include "vision.h"
#include "world.h"

/* What the status line is made of, taken each frame for little: equal
 * keys make equal lines, so the line is built (a dozen snprintf calls)
 * only when its key changed. Every value status_parts and render_status
 * read is here; one left out would leave the line stale (game_view's
 * tests check the kept line against a fresh one). */
enum { STATUS_EFFECTS = 24 }; /* effect kinds a key holds; more: never kept */

typedef struct {
    const char *race, *cls, *hunger;
    const void *region, *atlas; /* the region kind underfoot; the surface's table */
    uint64_t turn;              /* UINT64_MAX: the counter is not shown */
    int32_t hp, hp_max, mana, mana_max, xl, gold, depth, terr, watchers, w;
    int32_t neff; /* effects on the player; > STATUS_EFFECTS: too many to keep */
    int32_t pad;  /* zero: the key is compared as bytes */
    uint16_t eff[STATUS_EFFECTS];
    char name[32];
} status_key_t;

/* One glyph of the objects' layer: tile (sx, sy) of the view, level cell. */
typedef struct {
    int32_t cell;
    int16_t sx, sy;
    uint32_t ch;
    style_t st;
} obj_glyph_t;

/* The objects' glyphs of a frame in the order drawn (on any one tile the
 * last one stays). */
typedef struct {
    obj_glyph_t *g;
    int n, cap;
} obj_layer_t;

/* Sixteen bytes, loaded and compared as one (SSE2's on x86-64). */
typedef uint8_t bytes16_t __attribute__((vector_size(16)));
typedef int8_t sbytes16_t __attribute__((vector_size(16)));

/* The frame kept between calls (game_t.render_cache): derived from the state, never
 * saved nor hashed. Each call redraws only what changed since the last:
 * tiles whose terrain, memory or visibility changed (and their neighbours,
 * whose wall lines join them), tiles objects stood on or stand on, and the
 * text lines; the whole frame when the layout moved or a screen or overlay
 * was up. */
struct render_cache {
    screen_t *frame;
    uint64_t stamp; /* a grid stamped so holds frame as it is now; 0: none */
    bool valid;     /* frame holds a whole frame of the layout below */
    bool over;      /* the last frame had a screen or an overlay on it */
    int tw, depth, ox, oy;
    bool help_ok; /* the help line shows help_first for help_state and help_keys */
    size_t help_first;
    int help_state;
    int help_keys;       /* help_line_keys */
    int misses;          /* calls at another size since the last at this one */
    uint8_t *shadow;     /* 3 planes: terrain, seen, vis under each tile (plane) */
    obj_layer_t objs[2]; /* the objects' glyphs: this frame's, last frame's */
    /* the text lines as last drawn: drawn again only when they would differ */
    bool msg_ok, status_ok;
    uint32_t msg_said, msg_seen, msg_n;
    uint8_t msg_prompt;
    status_key_t status_key;
    int turn_x;   /* the status line's column of the turn counter's text (render_status) */
    int turn_len; /* that text's length, whether the line shows it or not */
};

static style_t fg_style(uint16_t fg, uint8_t attr)
{
    return (style_t){fg, SCREEN_DEFAULT_COLOR, attr};
}

/* Blanks row y from x up to end: a line drawn over the last frame's
 * leaves nothing of a longer one behind (cells already blank stay clean). */
static void blank_rest(screen_t *s, int x, int y, int end)
{
    for (; x < end; x++)
        screen_put(s, x, y, ' ', STYLE_DEFAULT);
}

/* The message line: what came since the last key; behind --More-- only
 * the part that fits the logical line (msg.c decides, not the terminal). */
/* The top line's messages into line (the unseen ones; on --More--, as
 * many as fit before it): whether it waits on --More--. */
static bool msgs_line(const game_t *g, char *line, size_t size)
{
    size_t len = 0;
    bool all;
    line[0] = 0;
    uint32_t n = g->nmsg - g->msg_seen;
    bool more = g->prompt == PROMPT_MORE || g->prompt == PROMPT_WELCOME;
    if (more)
        n = msg_fit(g, g->msg_seen, &all);
    for (uint32_t i = g->msg_seen; i < g->msg_seen + n; i++) {
        char one[MSG_LEN + 16];
        msg_format(msg_at(g, i), one, sizeof one);
        len += (size_t)snprintf(line + len, size - len, "%s%s", len ? " " : "", one);
        if (len >= size)
            break;
    }
    return more;
}

static void render_msgs(game_t *g, screen_t *s, render_cache_t *cache)
{
    if (cache && cache->msg_ok && cache->msg_said == g->said && cache->msg_seen == g->msg_seen &&
        cache->msg_n == g->nmsg && cache->msg_prompt == g->prompt)
        return;
    if (cache) {
        cache->msg_ok = true;
        cache->msg_said = g->said;
        cache->msg_seen = g->msg_seen;
        cache->msg_n = g->nmsg;
        cache->msg_prompt = g->prompt;
    }
    char line[MSG_WIDTH * 2];
    bool more = msgs_line(g, line, sizeof line);
    int x = screen_text(s, 0, 0, STYLE_DEFAULT, line);
    if (more)
        x = screen_text(s, x, 0, (style_t){15, SCREEN_DEFAULT_COLOR, ATTR_BOLD}, MORE_TEXT);
    blank_rest(s, x, 0, s->w);
}

/* The terrains a cell whose layout is known unseen (SEEN_MAP: the home
 * town's) shows: where travel goes, its doors, stairs and gates. Walls
 * and open ground stay blank until seen (travel knows them all): every
 * overlay over a map drawn whole would cost its closing the redraw. */
static const uint8_t MAP_ONLY_SHOWS[] = {MAP_DOOR_CLOSED, MAP_DOOR_OPEN, MAP_DOOR_LOCKED,
                                         MAP_DOOR_BROKEN, MAP_STAIRS_UP, MAP_STAIRS_DOWN,
                                         MAP_GATE};

/* Whether level cell i is drawn: seen, or known unseen and of those. */
static bool drawn_tile(const level_t *lv, size_t i)
{
    if (lv->seen[i] & SEEN_EYES)
        return true;
    for (size_t k = 0; lv->seen[i] && k < sizeof MAP_ONLY_SHOWS; k++)
        if (lv->terrain[i] == MAP_ONLY_SHOWS[k])
            return true;
    return false;
}

/* GLYPH_* bits of the drawn neighbours of (x, y) that a wall line joins:
 * walls and doors. Only what the player has seen (or the doors a known
 * layout shows), so the lines tell nothing about unexplored cells. */
static unsigned join_mask(const game_t *g, const level_t *lv, int x, int y)
{
    static const int8_t dx[8] = {0, 1, 0, -1, 1, 1, -1, -1}, dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
    unsigned mask = 0;
    for (int d = 0; d < 8; d++) {
        int nx = x + dx[d], ny = y + dy[d];
        if (!level_in(lv, nx, ny))
            continue;
        size_t i = (size_t)ny * (size_t)lv->w + (size_t)nx;
        uint8_t t = lv->terrain[i];
        if (drawn_tile(lv, i) && t < g->c->n_terrain &&
            (g->c->terrain[t].flags & (TF_LINE | TF_EDGE)))
            mask |= 1u << d;
    }
    return mask;
}

/* The items on the floor a frame's walk of the map index (or of every
 * object) met, in the walk's order: the objects of type OBJ_ITEM with no
 * target. map_view's walk files them and floor_items reads them, not the
 * index again (among 10,000 games the index and the objects are out of
 * every cache; the second walk found them there a second time). Past
 * FLOOR_LIST_MAX, floor_items walks as it did. */
enum { FLOOR_LIST_MAX = 512 };
typedef struct {
    int n;
    bool whole; /* every such item of the walk is in h */
    handle_t h[FLOOR_LIST_MAX];
} floor_list_t;

/* Where the map sits on the screen: the first level column and row shown,
 * the view's size in tiles, the tile width and the first screen row;
 * items: the floor's items as this frame's map_view found them (NULL:
 * floor_items walks for them). */
typedef struct {
    int ox, oy, vw, vh, tw, top;
    const floor_list_t *items;
} map_view_t;

/* Origins from lo to hi (inclusive) on one axis; empty when lo > hi. */
typedef struct {
    int lo, hi;
} span_t;

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The origins, within the map, whose view shows cells a to b. */
static span_t showing(int map, int view, int a, int b)
{
    return (span_t){clampi(b - view + 1, 0, map - view), clampi(a, 0, map - view)};
}

/* First map column/row shown. A map that fits is centred. Else the view
 * is centred on the anchor (which follows the player loosely, vision.h;
 * slack: how far), or, on a map so little wider than the view that
 * either end of it keeps the player a quarter of the view from its edges
 * wherever the anchor lets the player be, the end nearer that centre
 * (travel across such a map moves the view once, not every time the
 * anchor moves); then moved as little as it takes to show every creature
 * in sight and new item (sighted_box; on this axis from cmin to cmax, the
 * player among them) and to keep the player a quarter of the view from
 * every edge the map goes on past; those in sight first when both cannot
 * be (vision's sight box makes both possible on views of 80x21 tiles and
 * more). */
static int view_axis(int map, int view, int slack, int anchor, int p, int cmin, int cmax)
{
    if (map <= view)
        return -(view - map) / 2;
    int q = view / 4, o = clampi(anchor - (view - 1) / 2, 0, map - view);
    if (map - view <= view - 2 * q - 2 * slack - 2)
        o = 2 * o < map - view ? 0 : map - view;
    span_t margin = showing(map, view, p - q, p + q), all = showing(map, view, cmin, cmax);
    span_t both = {margin.lo > all.lo ? margin.lo : all.lo,
                   margin.hi < all.hi ? margin.hi : all.hi};
    span_t use = both.lo <= both.hi ? both : all.lo <= all.hi ? all : margin;
    return clampi(o, use.lo, use.hi);
}

static void box_take(int box[4], int x, int y)
{
    box[0] = x < box[0] ? x : box[0], box[2] = x > box[2] ? x : box[2];
    box[1] = y < box[1] ? y : box[1], box[3] = y > box[3] ? y : box[3];
}

/* An item in sight that the view keeps on screen: one lying where the
 * player has not stood, not a shop's stock. A walk stops to say it saw
 * one ("You see a dagger."), and explore heads for it. */
static bool item_kept(const level_t *lv, const obj_t *o)
{
    return o->type == OBJ_ITEM && !o->target && !(o->flags & (IF_VISITED | IF_UNPAID)) &&
           o->depth == lv->depth && level_in(lv, o->x, o->y) && level_visible(lv, o->x, o->y);
}

/* The items of item_kept into the box (the map index's when it is open
 * for lv: the box is the same in any order); into list (when not NULL)
 * every item on the floor met, in the walk's order. */
static void sighted_items(game_t *g, const level_t *lv, int box[4], floor_list_t *list)
{
    const reg_t *r = &g->reg;
    bool ix = r->ix.depth >= 0 && r->ix.depth == lv->depth && r->ix.w == lv->w && r->ix.h == lv->h;
    uint32_t b = 0;
    int n = 0;
    for (handle_t h = ix ? reg_index_next_filed(r, &b, HANDLE_NONE) : reg_next(r, HANDLE_NONE); h;
         h = ix ? reg_index_next_filed(r, &b, h) : reg_next(r, h)) {
        const obj_t *o = reg_get(r, h);
        if (o->type != OBJ_ITEM || o->target)
            continue;
        if (list && n < FLOOR_LIST_MAX)
            list->h[n] = h;
        n++;
        if (item_kept(lv, o))
            box_take(box, o->x, o->y);
    }
    if (list) {
        list->whole = n <= FLOOR_LIST_MAX;
        list->n = list->whole ? n : 0;
    }
}

/* The box round the creatures the player sees on lv and the items the
 * view keeps in sight, the player in it (the creatures of the map index
 * when it is open for lv: the box is the same in any order). */
static void sighted_box(game_t *g, const level_t *lv, const obj_t *p, int box[4],
                        floor_list_t *list)
{
    box[0] = box[2] = p->x, box[1] = box[3] = p->y;
    for (handle_t h = reg_next_near(&g->reg, lv->depth, HANDLE_NONE); h;
         h = reg_next_near(&g->reg, lv->depth, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE && o->depth == lv->depth && level_in(lv, o->x, o->y) &&
            level_visible(lv, o->x, o->y))
            box_take(box, o->x, o->y);
    }
    sighted_items(g, lv, box, list);
}

/* list (NULL: none) keeps the floor's items for this frame's floor_items:
 * valid while the objects do not change. */
static map_view_t map_view(game_t *g, const screen_t *s, const level_t *lv, const obj_t *p, int tw,
                           floor_list_t *list)
{
    map_view_t m = {0, 0, s->w / tw, s->h - 3, tw, 1, NULL};
    int box[4];
    sighted_box(g, lv, p, box, list);
    m.items = list && list->whole ? list : NULL;
    m.ox = view_axis(lv->w, m.vw, ANCHOR_SLACK_X, g->view_x, p->x, box[0], box[2]);
    m.oy = view_axis(lv->h, m.vh, ANCHOR_SLACK_Y, g->view_y, p->y, box[1], box[3]);
    return m;
}

/* Whether level cell (x, y) lies under the sky (an RF_SKY region): seen
 * there is shown as in sight. The level's sky bits when it has them
 * (live: draw_map made them ready), else level_region_kind's lookup
 * without the call: it runs for many tiles a frame. */
static bool sky_at(const game_t *g, const level_t *lv, int x, int y)
{
    if (lv->sky && lv->sky_ok)
        return level_sky_xy(lv, x, y);
    int r = lv->region[(size_t)y * (size_t)lv->w + (size_t)x];
    if (r < 1 || r > lv->nregions)
        return false;
    int k = lv->regions[r - 1].kind;
    return k >= 0 && k < g->c->n_regions && (g->c->regions[k].flags & RF_SKY);
}

/* The terrain of the view's tile (sx, sy): blank unless drawn_tile. */
static void map_tile(game_t *g, screen_t *s, const level_t *lv, const map_view_t *m, int sx, int sy)
{
    int x = m->ox + sx, y = m->oy + sy;
    size_t i = (size_t)y * (size_t)lv->w + (size_t)x;
    uint8_t t = lv->terrain[i];
    const terrain_kind_t *k = &g->c->terrain[t < g->c->n_terrain ? t : 0];
    bool eyes = lv->seen[i] & SEEN_EYES;
    if (!drawn_tile(lv, i)) {
        screen_put(s, sx * m->tw, m->top + sy, ' ', STYLE_DEFAULT);
        return;
    }
    bool vis = (lv->vis && lv->vis[i]) || (eyes && sky_at(g, lv, x, y));
    uint32_t ch = k->flags & TF_LINE ? glyph_join(join_mask(g, lv, x, y), k->glyph) : k->glyph;
    screen_put(s, sx * m->tw, m->top + sy, ch, vis ? fg_style(k->fg, 0) : fg_style(8, ATTR_DIM));
}

/* The view's tiles that lie on the level: columns [*x0, *x1). */
static void map_span(const level_t *lv, const map_view_t *m, int *x0, int *x1)
{
    *x0 = m->ox < 0 ? -m->ox : 0;
    *x1 = lv->w - m->ox < m->vw ? lv->w - m->ox : m->vw;
}

static bool map_row_on_level(const level_t *lv, const map_view_t *m, int sy)
{
    return m->oy + sy >= 0 && m->oy + sy < lv->h;
}

static void map_terrain(game_t *g, screen_t *s, const level_t *lv, const map_view_t *m)
{
    int x0, x1;
    map_span(lv, m, &x0, &x1);
    for (int sy = 0; sy < m->vh; sy++)
        for (int sx = x0; map_row_on_level(lv, m, sy) && sx < x1; sx++)
            map_tile(g, s, lv, m, sx, sy);
}

/* Where the objects' glyphs go: into layer (NULL: straight onto s). */
typedef struct {
    screen_t *s;
    const map_view_t *m;
    obj_layer_t *layer;
    int failed; /* 0, or -1: the layer could not grow */
} obj_sink_t;

static void obj_put(obj_sink_t *k, int32_t cell, int sx, int sy, uint32_t ch, style_t st)
{
    obj_layer_t *l = k->layer;
    if (!l) {
        screen_put(k->s, sx * k->m->tw, k->m->top + sy, ch, st);
        return;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        obj_glyph_t *n = k->failed ? NULL : realloc(l->g, sizeof *n * (size_t)cap);
        if (!n) {
            k->failed = -1;
            return;
        }
        l->g = n;
        l->cap = cap;
    }
    l->g[l->n++] = (obj_glyph_t){cell, (int16_t)sx, (int16_t)sy, ch, st};
}

/* Whether o stands on lv at a tile of the view: its tile in *sx, *sy. */
static bool obj_on_view(const level_t *lv, const map_view_t *m, const obj_t *o, int *sx, int *sy)
{
    *sx = o->x - m->ox, *sy = o->y - m->oy;
    return *sx >= 0 && *sx < m->vw && *sy >= 0 && *sy < m->vh && o->depth == lv->depth &&
           level_in(lv, o->x, o->y);
}

/* o's glyph when it is an item on the floor of a seen tile of the view. */
static void floor_item(game_t *g, const level_t *lv, obj_sink_t *k, const obj_t *o)
{
    int sx, sy;
    if (o->type != OBJ_ITEM || o->target || !obj_on_view(lv, k->m, o, &sx, &sy))
        return;
    int32_t cell = o->y * lv->w + o->x;
    if (!(lv->seen[cell] & SEEN_EYES)) /* a layout known unseen shows no items */
        return;
    const item_kind_t *ik = item_kind(g, o);
    bool vis = level_visible(lv, o->x, o->y);
    obj_put(k, cell, sx, sy, ik->glyph,
            (style_t){vis ? ik->fg : 8, SCREEN_DEFAULT_COLOR, vis ? 0 : ATTR_DIM});
}

/* The items on the floor in view: the map index's objects when it is open
 * for lv (on any one tile in slot order, as a walk of every object). */
static void floor_items(game_t *g, const level_t *lv, obj_sink_t *k)
{
    const reg_t *r = &g->reg;
    const floor_list_t *list = k->m->items;
    for (int i = 0; list && i < list->n; i++) {
        const obj_t *o = reg_get(r, list->h[i]);
        if ((unsigned)(o->x - k->m->ox) < (unsigned)k->m->vw &&
            (unsigned)(o->y - k->m->oy) < (unsigned)k->m->vh) /* floor_item's first look */
            floor_item(g, lv, k, o);
    }
    if (list)
        return;
    if (r->ix.depth >= 0 && r->ix.depth == lv->depth && r->ix.w == lv->w && r->ix.h == lv->h) {
        uint32_t b = 0;
        for (handle_t h = reg_index_next_filed(r, &b, HANDLE_NONE); h;
             h = reg_index_next_filed(r, &b, h)) {
            const obj_t *o = reg_get(r, h);
            if (o->type == OBJ_ITEM && (unsigned)(o->x - k->m->ox) < (unsigned)k->m->vw &&
                (unsigned)(o->y - k->m->oy) < (unsigned)k->m->vh) /* floor_item's first look */
                floor_item(g, lv, k, o);
        }
        return;
    }
    for (handle_t h = reg_next(r, HANDLE_NONE); h; h = reg_next(r, h))
        floor_item(g, lv, k, reg_get(r, h));
}

/* The creatures in sight in view (the map index's when it is open for lv). */
static void creatures(game_t *g, const level_t *lv, obj_sink_t *k)
{
    for (handle_t h = reg_next_near(&g->reg, lv->depth, HANDLE_NONE); h;
         h = reg_next_near(&g->reg, lv->depth, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        int sx, sy;
        if (o->type != OBJ_CREATURE || !obj_on_view(lv, k->m, o, &sx, &sy) ||
            !level_visible(lv, o->x, o->y))
            continue;
        const creature_kind_t *ck = &g->c->creatures[o->kind];
        bool hid = (o->flags & OF_DISGUISED) && ck->disguise[0]; /* drawn as what it passes for */
        obj_put(k, o->y * lv->w + o->x, sx, sy, hid ? ck->disguise_glyph : ck->glyph,
                fg_style(hid ? ck->disguise_fg : ck->fg, h == g->player ? ATTR_BOLD : 0));
    }
}

/* The objects' glyphs (items on the floor, then creatures) into k. */
static int objs_walk(game_t *g, const level_t *lv, obj_sink_t *k)
{
    if (k->layer)
        k->layer->n = 0;
    floor_items(g, lv, k);
    creatures(g, lv, k);
    return k->failed;
}

static void map_cursor(game_t *g, screen_t *s, const obj_t *p, const map_view_t *m, bool cursor)
{
    int px = (cursor ? g->cur_x : p->x) - m->ox, py = (cursor ? g->cur_y : p->y) - m->oy;
    screen_cursor(s, px * m->tw, m->top + py, px >= 0 && px < m->vw && py >= 0 && py < m->vh);
}

/* One piece of the status line; the line drops the pieces of lowest keep
 * first until it fits its width (the watcher count, when shown, keeps its
 * own cell at the right end). */
typedef struct {
    char text[64];
    style_t st;
    int keep; /* 0 dropped first */
} status_part_t;

enum { STATUS_PARTS = 11 };

enum { TURN_LABEL = 7 }; /* "  Turn " before the counter's digits */

/* The turn counter's piece of the status line (status_parts, turn_only). */
static int turn_text(char *buf, size_t n, uint64_t turn)
{
    char digits[24];
    int d = 0;
    do /* written by hand: it changes on every key, and snprintf costs ten times this */
        digits[d++] = (char)('0' + turn % 10);
    while ((turn /= 10) != 0);
    int len = TURN_LABEL + d;
    if ((size_t)len >= n) { /* not met: callers' buffers hold the longest */
        if (n)
            buf[0] = 0;
        return -1;
    }
    memcpy(buf, "  Turn ", TURN_LABEL);
    for (int i = 0; i < d; i++)
        buf[TURN_LABEL + i] = digits[d - 1 - i];
    buf[len] = 0;
    return len;
}

static int status_add(status_part_t *pt, int n, style_t st, int keep, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int status_add(status_part_t *pt, int n, style_t st, int keep, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pt[n].text, sizeof pt[n].text, fmt, ap);
    va_end(ap);
    pt[n].st = st;
    pt[n].keep = keep;
    return n + 1;
}

/* The line's pieces; *turn_i: the turn counter's (-1: not shown). */
static int status_parts(game_t *g, const obj_t *p, const game_view_t *view, status_part_t *pt,
                        int *turn_i)
{
    int n = status_add(pt, 0, STYLE_DEFAULT, 9, "%s", g->name);
    n = status_add(pt, n, STYLE_DEFAULT, 1, " the %s %s", pc_race_name(g), pc_class_name(g));
    n = status_add(pt, n, STYLE_DEFAULT, 3, "  XL %d", g->pc.xl);
    style_t hp = p->hp * 3 <= p->hp_max ? fg_style(9, ATTR_BOLD) : STYLE_DEFAULT;
    n = status_add(pt, n, hp, 9, "  HP %d/%d", p->hp, p->hp_max);
    if (g->pc.mana_max)
        n = status_add(pt, n, fg_style(12, 0), 8, "  MP %d/%d", g->pc.mana, g->pc.mana_max);
    char place[48];
    atlas_place(g, place, sizeof place); /* "Depth 3", "Town", a territory, a town */
    n = status_add(pt, n, STYLE_DEFAULT, 7, "  %s", place);
    n = status_add(pt, n, STYLE_DEFAULT, 5, "  $%d", (int)g->items.gold);
    *turn_i = view && view->turns ? n : -1;
    if (view && view->turns) {
        char turn[32];
        turn_text(turn, sizeof turn, g->sched.now / SCHED_MOVE);
        n = status_add(pt, n, STYLE_DEFAULT, 6, "%s", turn);
    }
    size_t e = 0;
    char eff[64] = "";
    for (handle_t h = reg_next_held(&g->reg, g->player, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, g->player, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == g->player && e + 14 < sizeof eff)
            e += (size_t)snprintf(eff + e, sizeof eff - e, " %s", g->c->effects[o->kind].tag);
    }
    n = status_add(pt, n, fg_style(10, ATTR_BOLD), 8, "%s", eff);
    const char *hunger = itemui_status_word(g);
    if (hunger[0])
        n = status_add(pt, n, fg_style(11, ATTR_BOLD), 8, " %s", hunger);
    const region_kind_t *rk = level_region_kind(g, level_current(g), p->x, p->y);
    if (rk)
        n = status_add(pt, n, fg_style(14, 0), 0, "  %s", rk->name);
    return n;
}

/* The status line's key now (see status_key_t). */
static void status_key(game_t *g, const obj_t *p, const game_view_t *view, const screen_t *s,
                       status_key_t *k)
{
    memset(k, 0, sizeof *k);
    k->race = pc_race_name(g);
    k->cls = pc_class_name(g);
    k->hunger = itemui_status_word(g);
    k->region = level_region_kind(g, level_current(g), p->x, p->y);
    k->atlas = g->atlas.t;
    k->turn = view && view->turns ? g->sched.now / SCHED_MOVE : UINT64_MAX;
    k->hp = p->hp, k->hp_max = p->hp_max, k->xl = g->pc.xl, k->gold = g->items.gold;
    k->mana = g->pc.mana, k->mana_max = g->pc.mana_max;
    k->depth = g->depth; /* with the atlas and the territory: atlas_place */
    k->terr = g->depth == ATLAS_OVERLAND ? atlas_terr_at(g, p->x, p->y) : -1;
    k->watchers = view ? view->watchers : 0;
    k->w = s->w;
    for (handle_t h = reg_next_held(&g->reg, g->player, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, g->player, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_EFFECT && o->target == g->player && k->neff++ < STATUS_EFFECTS)
            k->eff[k->neff - 1] = o->kind;
    }
    memcpy(k->name, g->name, sizeof k->name);
}

/* Whether the line shown for cache's key becomes k's by its turn counter
 * alone, that counter's text as long as before: then every piece keeps
 * its place (the same pieces dropped to fit, and a counter not dropped
 * lies inside the line's room), and the counter's cells, if the line
 * shows it, are drawn again here. */
static bool turn_only(screen_t *s, render_cache_t *cache, const status_key_t *k)
{
    status_key_t was = cache->status_key;
    if (k->turn == UINT64_MAX || was.turn == UINT64_MAX || cache->turn_x == -1)
        return false;
    was.turn = k->turn;
    char text[32];
    if (memcmp(&was, k, sizeof was) != 0 ||
        turn_text(text, sizeof text, k->turn) != cache->turn_len)
        return false;
    if (cache->turn_x >= 0) /* its label's cells are as they were */
        screen_text(s, cache->turn_x + TURN_LABEL, s->h - 2, STYLE_DEFAULT, text + TURN_LABEL);
    return true;
}

/* Whether cache's frame shows the status line as it is now (drawing its
 * turn counter again if that is all that changed); remembers its key if
 * not. */
static bool status_kept(game_t *g, const obj_t *p, const game_view_t *view, screen_t *s,
                        render_cache_t *cache)
{
    if (!cache)
        return false;
    status_key_t k;
    status_key(g, p, view, s, &k);
    if (cache->status_ok &&
        (memcmp(&k, &cache->status_key, sizeof k) == 0 || turn_only(s, cache, &k))) {
        cache->status_key.turn = k.turn;
        return true;
    }
    cache->status_ok = k.neff <= STATUS_EFFECTS;
    cache->status_key = k;
    return false;
}

/* Drops the pieces of lowest keep until the line fits room. */
static void status_fit(status_part_t *pt, int n, int room)
{
    int width = 0;
    for (int i = 0; i < n; i++)
        width += (int)strlen(pt[i].text);
    for (int keep = 0; keep < 9 && width > room; keep++)
        for (int i = 0; i < n; i++)
            if (pt[i].keep == keep && pt[i].text[0]) {
                width -= (int)strlen(pt[i].text);
                pt[i].text[0] = 0;
            }
}

static void render_status(game_t *g, screen_t *s, const obj_t *p, const game_view_t *view,
                          render_cache_t *cache)
{
    if (status_kept(g, p, view, s, cache))
        return;
    status_part_t pt[STATUS_PARTS];
    int turn_i, n = status_parts(g, p, view, pt, &turn_i), tx = -1;
    char cell[32] = "";
    if (view && view->watchers > 0)
        snprintf(cell, sizeof cell, " [%d watching]", view->watchers);
    int room = s->w - (int)strlen(cell), x = 0;
    int turn_len = turn_i < 0 ? 0 : (int)strlen(pt[turn_i].text);
    status_fit(pt, n, room);
    for (int i = 0; i < n; i++) {
        tx = i == turn_i ? x : tx;
        x = screen_text(s, x, s->h - 2, pt[i].st, pt[i].text);
    }
    if (cache) { /* where the counter went: -1 not shown, -2 dropped to fit */
        cache->turn_x = turn_i < 0 ? -1 : pt[turn_i].text[0] ? tx : -2;
        cache->turn_len = turn_len;
    }
    blank_rest(s, x, s->h - 2, room);
    if (cell[0])
        screen_text(s, room, s->h - 2, fg_style(6, 0), cell);
}

/* ---- the kept frame ------------------------------------------------------- */

enum { FRAME_REKEY_MISSES = 4 };

void render_free(game_t *g)
{
    render_cache_t *cache = g->render_cache;
    if (!cache)
        return;
    screen_free(cache->frame);
    free(cache->shadow);
    free(cache->objs[0].g);
    free(cache->objs[1].g);
    free(cache);
    g->render_cache = NULL;
}

/* The shadow covers the view and a margin of one cell round it, whose
 * memory and terrain the wall lines at the view's edge join. */
static uint8_t *plane(render_cache_t *cache, int k)
{
    return cache->shadow +
           (size_t)k * (size_t)(cache->frame->w + 2) * (size_t)(cache->frame->h + 2);
}

static size_t shadow_at(const map_view_t *m, int sx, int sy)
{
    return (size_t)(sy + 1) * (size_t)(m->vw + 2) + (size_t)(sx + 1);
}

/* The shadow's columns [*x0, *x1) that lie on the level (view columns,
 * -1 and vw being the margin). */
static void shadow_span(const level_t *lv, const map_view_t *m, int *x0, int *x1)
{
    *x0 = -m->ox > -1 ? -m->ox : -1;
    *x1 = lv->w - m->ox < m->vw + 1 ? lv->w - m->ox : m->vw + 1;
}

static bool shadow_row_on_level(const level_t *lv, const map_view_t *m, int sy)
{
    return sy >= -1 && sy <= m->vh && map_row_on_level(lv, m, sy);
}

/* Copies terrain, memory and visibility under the shadow's row sy. */
static void shadow_row(render_cache_t *cache, const level_t *lv, const map_view_t *m, int sy)
{
    int x0, x1;
    shadow_span(lv, m, &x0, &x1);
    size_t at = shadow_at(m, x0, sy), n = (size_t)(x1 - x0);
    size_t li = (size_t)(m->oy + sy) * (size_t)lv->w + (size_t)(m->ox + x0);
    memcpy(plane(cache, 0) + at, lv->terrain + li, n);
    memcpy(plane(cache, 1) + at, lv->seen + li, n);
    memcpy(plane(cache, 2) + at, lv->vis + li, n);
}

static bool on_view(const level_t *lv, const map_view_t *m, int sx, int sy)
{
    int x0, x1;
    map_span(lv, m, &x0, &x1);
    return sy >= 0 && sy < m->vh && map_row_on_level(lv, m, sy) && sx >= x0 && sx < x1;
}

/* The tiles a frame's map changes redraw, a bit per column from -2 on
 * (the margin's neighbours), for the three rows one shadow row's changes
 * reach (its own and the two beside it, by (sy + 3) % 3): a tile many
 * changes reach (the wall lines of a room coming into view) is drawn
 * once. */
enum { MARK_WORDS = (SCREEN_MAX_W + 4 + 63) / 64 };
typedef struct {
    uint64_t row[3][MARK_WORDS];
} marks_t;

static void mark(marks_t *mk, int sx, int sy)
{
    unsigned i = (unsigned)(sx + 2);
    mk->row[(sy + 3) % 3][i / 64] |= 1ull << (i % 64);
}

/* Marks the tile (sx, sy) and its eight neighbours. */
static void mark_around(marks_t *mk, int sx, int sy)
{
    for (int y = sy - 1; y <= sy + 1; y++)
        for (int x = sx - 1; x <= sx + 1; x++)
            mark(mk, x, y);
}

/* Draws the marked tiles of row sy that are on view, and forgets the
 * row's marks (its slot is the next row's but one). */
static void marks_draw(game_t *g, render_cache_t *cache, const level_t *lv, const map_view_t *m,
                       marks_t *mk, int sy)
{
    uint64_t *row = mk->row[(sy + 3) % 3];
    for (int w = 0; w * 64 < m->vw + 4; w++) {
        for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
            int sx = w * 64 + __builtin_ctzll(bits) - 2;
            if (on_view(lv, m, sx, sy))
                map_tile(g, cache->frame, lv, m, sx, sy);
        }
        row[w] = 0;
    }
}

/* One shadow row against the level: the planes as last drawn (was) and
 * as they are (now), n cells from the shadow's column x0 on (level cell
 * li, at (lx, ly)). */
typedef struct {
    uint8_t *was[3];
    const uint8_t *now[3];
    size_t li, n;
    int x0, sy, lx, ly;
} shadow_row_t;

/* The shadow's row sy against the level (on the level: the caller checks). */
static shadow_row_t row_of(render_cache_t *cache, const level_t *lv, const map_view_t *m, int sy)
{
    int x0, x1;
    shadow_span(lv, m, &x0, &x1);
    size_t at = shadow_at(m, x0, sy);
    size_t li = (size_t)(m->oy + sy) * (size_t)lv->w + (size_t)(m->ox + x0);
    return (shadow_row_t){{plane(cache, 0) + at, plane(cache, 1) + at, plane(cache, 2) + at},
                          {lv->terrain + li, lv->seen + li, lv->vis + li},
                          li,
                          (size_t)(x1 - x0),
                          x0,
                          sy,
                          m->ox + x0,
                          m->oy + sy};
}

/* r moved to the next row down: the shadow's rows are vw + 2 cells apart,
 * the level's w. */
static void row_next(shadow_row_t *r, const level_t *lv, const map_view_t *m)
{
    for (int p = 0; p < 3; p++) {
        r->was[p] += m->vw + 2;
        r->now[p] += lv->w;
    }
    r->li += (size_t)lv->w;
    r->sy++, r->ly++;
}

/* Bit j set where byte j of m (each 0 or -1) is set. */
static inline unsigned bits16(sbytes16_t m)
{
    uint64_t d[2];
    memcpy(d, &m, 16);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    d[0] = __builtin_bswap64(d[0]), d[1] = __builtin_bswap64(d[1]);
#endif
    /* each byte's top bit to bit 56 + its index, by one multiply */
    const uint64_t top = 0x8080808080808080ull, gather = 0x0002040810204081ull;
    return (unsigned)(((d[0] & top) * gather) >> 56) | (unsigned)(((d[1] & top) * gather) >> 56)
                                                           << 8;
}

/* What changed in the sixteen cells of the three planes from k on, a bit
 * a cell (cell k + j: bit j): terrain or memory (ts), and visibility
 * alone on a tile now seen (vis; the sky not yet taken out). False when
 * no byte of them changed. */
static inline bool sixteen_diff(const shadow_row_t *r, size_t k, unsigned *ts, unsigned *vis)
{
    bytes16_t a0, a1, a2, b0, b1, b2;
    memcpy(&a0, r->was[0] + k, 16), memcpy(&b0, r->now[0] + k, 16);
    memcpy(&a1, r->was[1] + k, 16), memcpy(&b1, r->now[1] + k, 16);
    memcpy(&a2, r->was[2] + k, 16), memcpy(&b2, r->now[2] + k, 16);
    bytes16_t t = (a0 ^ b0) | (a1 ^ b1), v = a2 ^ b2, x = t | v;
    uint64_t d[2];
    memcpy(d, &x, 16);
    if ((d[0] | d[1]) == 0)
        return false;
    const bytes16_t z = {0};
    memcpy(d, &t, 16); /* most changes on a walk are of sight alone */
    *ts = (d[0] | d[1]) ? bits16((sbytes16_t)(t != z)) : 0;
    *vis = bits16((sbytes16_t)((v != z) & (b1 != z))) & ~*ts;
    return true;
}

/* Marks what a change of the row's cell k shows. Wall lines join seen
 * terrain: only a change of those touches the neighbours; a change of
 * visibility is the tile's own, and shows only on a seen tile not under
 * the sky (map_tile). */
static inline void cell_changes(const level_t *lv, marks_t *mk, const shadow_row_t *r, size_t k)
{
    int sx = r->x0 + (int)k;
    if (r->was[0][k] != r->now[0][k] || r->was[1][k] != r->now[1][k])
        mark_around(mk, sx, r->sy);
    else if (r->was[2][k] != r->now[2][k] && r->now[1][k] &&
             !level_sky_xy(lv, r->lx + (int)k, r->ly))
        mark(mk, sx, r->sy);
}

/* Sets bits (a few, at most 18) on row sy's marks from column bit i on. */
static void mark_bits(marks_t *mk, int sy, unsigned i, uint64_t bits)
{
    uint64_t *row = mk->row[(sy + 3) % 3];
    row[i / 64] |= bits << (i % 64);
    if (i % 64 && i / 64 + 1 < MARK_WORDS)
        row[i / 64 + 1] |= bits >> (64 - i % 64);
}

/* Marks the changes ts and vis (sixteen_diff's) of the sixteen cells from
 * at on, but those before from: cell_changes' marks, a row at a time. */
static void sixteen_changes(const level_t *lv, marks_t *mk, const shadow_row_t *r, size_t at,
                            size_t from, unsigned ts, unsigned vis)
{
    unsigned keep = 0xFFFFu << (from - at);
    ts &= keep, vis &= keep;
    if (vis)
        vis &= ~level_sky16(lv, r->lx + (int)at, r->ly);
    unsigned i = (unsigned)(r->x0 + (int)at + 2); /* mark's bit of cell at */
    if (ts) { /* mark_around each: the cell and the two beside it, three rows */
        uint64_t around = (uint64_t)ts | (uint64_t)ts << 1 | (uint64_t)ts << 2;
        for (int y = r->sy - 1; y <= r->sy + 1; y++)
            mark_bits(mk, y, i - 1, around);
    }
    if (vis)
        mark_bits(mk, r->sy, i, vis);
}

/* Marks what changed on r's row, sixteen cells at a time (most rows, and
 * most of a changed row, are as they were; the last sixteen end at the
 * row's end), and takes a changed row into the shadow: whether it changed. */
static bool row_changes(const level_t *lv, marks_t *mk, const shadow_row_t *row)
{
    const shadow_row_t rc = *row, *r = &rc; /* a const copy: no store reaches it */
    bool changed = false;
    size_t k = 0;
    unsigned ts, vis;
    for (; r->n >= 16 && k + 16 <= r->n; k += 16)
        if (sixteen_diff(r, k, &ts, &vis)) {
            sixteen_changes(lv, mk, r, k, k, ts, vis);
            changed = true;
        }
    if (r->n >= 16 && k < r->n && sixteen_diff(r, r->n - 16, &ts, &vis)) {
        sixteen_changes(lv, mk, r, r->n - 16, k, ts, vis);
        changed = true;
    }
    for (k = 0; r->n < 16 && k < r->n; k++) { /* a view narrower than sixteen tiles */
        changed |= r->was[0][k] != r->now[0][k] || r->was[1][k] != r->now[1][k] ||
                   r->was[2][k] != r->now[2][k];
        cell_changes(lv, mk, r, k);
    }
    for (int p = 0; changed && p < 3; p++)
        memcpy(r->was[p], r->now[p], r->n);
    return changed;
}

/* r's row changed since the last frame only in the vis of the cells
 * level_t.flips holds (level_row_flipped): those cells are taken into
 * the shadow, and each that shows the change (a seen tile not under the
 * sky, as cell_changes) marked; the rest of the row is not read. */
static void flip_changes(const level_t *lv, const map_view_t *m, marks_t *mk, const shadow_row_t *r)
{
    size_t nw = level_flip_words(lv), lx0 = (size_t)(m->ox + r->x0);
    const uint64_t *row = lv->flips + (size_t)(m->oy + r->sy) * nw;
    for (size_t w = lx0 / 64; w < nw && w * 64 < lx0 + r->n; w++)
        for (uint64_t bits = row[w]; bits; bits &= bits - 1) {
            size_t lx = w * 64 + (size_t)__builtin_ctzll(bits);
            if (lx < lx0 || lx >= lx0 + r->n)
                continue;
            size_t k = lx - lx0;
            r->was[2][k] ^= 1; /* vis is 0 or 1: a flip, not a read of the level's */
            if (r->now[1][k] && !level_sky_xy(lv, (int)lx, r->ly))
                mark(mk, r->x0 + (int)k, r->sy);
        }
}

/* Tiles whose terrain, memory or visibility changed, with the neighbours
 * whose wall lines join them (the margin's cells only for those). Only
 * the rows the level marked as written since the last frame are compared
 * (level_t.dirty): the others, among 10,000 games out of every cache,
 * are not read; of a row whose vis alone flipped (level_t.flips), only
 * the cells flipped; which cells lie under the sky comes from level_t.sky,
 * not the region bytes. With verify, every row is compared after, and each
 * changed row the marks and flips left out is counted there (and drawn),
 * as is a sky that no longer matches the level's regions. */
static void map_changes(game_t *g, render_cache_t *cache, const level_t *lv, const map_view_t *m,
                        uint64_t *verify)
{
    marks_t mk;
    memset(&mk, 0, sizeof mk);
    shadow_row_t r;
    bool on = false; /* r is row sy's: the rows on the level are one run */
    if (verify && level_sky_wrong(g, lv))
        ++*verify; /* a region or kind changed without level_regions_changed */
    for (int sy = -1; sy <= m->vh; sy++) {
        if (shadow_row_on_level(lv, m, sy)) {
            if (on)
                row_next(&r, lv, m);
            else
                r = row_of(cache, lv, m, sy), on = true;
            bool marked = level_row_dirty(lv, m->oy + sy);
            bool flipped = !marked && level_row_flipped(lv, m->oy + sy);
            if (flipped)
                flip_changes(lv, m, &mk, &r);
            if ((marked || verify) && row_changes(lv, &mk, &r) && !marked)
                ++*verify; /* a change neither marks nor flips told of */
        }
        marks_draw(g, cache, lv, m, &mk, sy - 1); /* no later row reaches it */
    }
}

static bool layer_has(const obj_layer_t *l, int32_t cell)
{
    for (int i = 0; i < l->n; i++)
        if (l->g[i].cell == cell)
            return true;
    return false;
}

/* The terrain again under last frame's objects, but where an object of
 * now (NULL: none known) goes over it anyway. */
static void objs_erase(game_t *g, render_cache_t *cache, const level_t *lv, const map_view_t *m,
                       const obj_layer_t *now)
{
    const obj_layer_t *was = &cache->objs[1];
    for (int i = 0; i < was->n; i++) {
        const obj_glyph_t *o = &was->g[i];
        if (o->sx < m->vw && o->sy < m->vh && !(now && layer_has(now, o->cell)))
            map_tile(g, cache->frame, lv, m, o->sx, o->sy);
    }
}

/* Known traps, items on the floor, then the creatures in view, over the
 * terrain (drawn every frame: they are few). With a cache that keeps the
 * view (keep), the objects' glyphs are gathered first: the terrain is drawn
 * again (unless full) only under last frame's objects that none covers
 * now, and cache->objs[1] holds this frame's after. 0, or -1 when the
 * glyphs could not be kept. */
static int map_objects(game_t *g, screen_t *s, const level_t *lv, const map_view_t *m,
                       render_cache_t *cache, bool keep, bool full)
{
    obj_sink_t k = {s, m, keep ? &cache->objs[0] : NULL, 0};
    int ret = keep ? objs_walk(g, lv, &k) : 0;
    if (cache && !full)
        objs_erase(g, cache, lv, m, keep && ret == 0 ? k.layer : NULL);
    trap_render(g, s, m->ox, m->oy, m->vw, m->vh, m->top, m->tw);
    k.layer = ret == 0 ? k.layer : NULL;
    if (!k.layer)
        return objs_walk(g, lv, &k) | ret;
    for (int i = 0; i < k.layer->n; i++) {
        const obj_glyph_t *o = &k.layer->g[i];
        screen_put(s, o->sx * m->tw, m->top + o->sy, o->ch, o->st);
    }
    obj_layer_t t = cache->objs[1];
    cache->objs[1] = cache->objs[0], cache->objs[0] = t;
    return 0;
}

/* The help line, unless it already shows what it would show now. */
static void help_row(game_t *g, screen_t *s, const game_view_t *view, render_cache_t *cache)
{
    size_t first = help_line_first(view);
    int keys = help_line_keys(g);
    if (cache && cache->help_ok && cache->help_first == first && cache->help_state == g->state &&
        cache->help_keys == keys)
        return;
    blank_rest(s, help_line(g, s, view), s->h - 1, s->w);
    if (cache) {
        cache->help_ok = true;
        cache->help_first = first;
        cache->help_state = g->state;
        cache->help_keys = keys;
    }
}

/* The map's layers: everything (full), or what changed since cache's
 * frame; then the shadow holds the level's rows in view, and the level's
 * marks of written rows are cleared (derived state, the render's alone:
 * right while a game has one render cache, game_t.render_cache; a second
 * shadow of one game would need marks of its own). */
static int draw_map(game_t *g, screen_t *s, level_t *lv, const map_view_t *m, render_cache_t *cache,
                    bool full, uint64_t *verify)
{
    level_sky_ready(g, lv);
    if (full)
        map_terrain(g, s, lv, m);
    else
        map_changes(g, cache, lv, m, verify);
    bool keep = cache && lv->vis;
    int ret = map_objects(g, s, lv, m, cache, keep, full);
    if (!keep)
        return cache ? -1 : 0; /* no view to remember: drawn whole next time */
    for (int sy = -1; full && sy <= m->vh; sy++)
        if (shadow_row_on_level(lv, m, sy))
            shadow_row(cache, lv, m, sy);
    lv->dirty = 0;
    level_flips_clear(lv);
    return ret;
}

/* ---- lists over the map -------------------------------------------------- */

/* A list (a PF_LIST screen, or the item lists) is drawn from the left of a
 * blank grid, then put over the map's right side in a box as wide as its
 * widest line and as tall as its lines (NetHack's menus sit the same way):
 * the map stays up round it, so opening and closing a list rewrites the
 * box, not the screen. A paged list's box keeps one width on every page
 * (prompt_t's width). */
static bool list_onto(game_t *g, screen_t *t, const prompt_t *pr)
{
    if (!pr)
        return itemui_render(g, t);
    pr->draw(g, t);
    return true;
}

/* The width and height of what t holds from its top left corner. */
static void list_extent(const screen_t *t, int *w, int *h)
{
    *w = *h = 0;
    for (int y = 0; y < t->h; y++)
        for (int x = 0; x < t->w; x++) {
            const cell_t *c = screen_at(t, x, y);
            if (c->ch != ' ' || c->bg != SCREEN_DEFAULT_COLOR) {
                *w = x + 1 > *w ? x + 1 : *w;
                *h = y + 1;
            }
        }
}

/* t's box onto s's right side, a blank column left of it and a blank row
 * under it where that leaves the status and help lines alone; a row lower
 * when the top line's message reaches under it ("You read a scroll
 * labelled VEKA RA." stays whole above "Identify which item?"). False
 * when the box is as wide as s or reaches those lines: the caller then
 * draws the list as it always was. */
static bool list_box(screen_t *s, const screen_t *t, int min_w, int msg_end)
{
    int w, h;
    list_extent(t, &w, &h);
    w = min_w > w && min_w < s->w ? min_w : w;
    int x0 = s->w - w - 1;
    if (x0 < 0 || h > s->h - 2)
        return false;
    int top = h + 1 <= s->h - 2 && msg_end > x0 ? 1 : 0;
    int rows = top + h + 1 <= s->h - 2 ? h + 1 : h;
    for (int y = 0; y < rows; y++) {
        screen_put(s, x0, top + y, ' ', STYLE_DEFAULT);
        for (int x = 0; x < w; x++) {
            const cell_t *c = screen_at(t, x, y);
            screen_put(s, x0 + 1 + x, top + y, c->ch, (style_t){c->fg, c->bg, c->attr});
        }
    }
    if (s->cur_visible && s->cur_x >= x0 && s->cur_y >= top && s->cur_y < top + rows)
        screen_cursor(s, s->cur_x, s->cur_y, false); /* under the box */
    return true;
}

/* Draws the list of pr (NULL: the item lists) over s's map, or as it
 * always was when it does not fit beside it. Returns whether one is up. */
static bool draw_list(game_t *g, screen_t *s, const prompt_t *pr)
{
    screen_t *t = screen_new(s->w, s->h);
    int min_w = pr && pr->width ? pr->width(g) : 0;
    char line[MSG_WIDTH * 2];
    msgs_line(g, line, sizeof line);
    int msg_end = (int)strlen(line); /* the top line's own words, ASCII */
    bool up = t ? list_onto(g, t, pr) : false, boxed = up && list_box(s, t, min_w, msg_end);
    screen_free(t);
    if (!t || (up && !boxed)) {
        if (pr)
            screen_clear(s);
        up = list_onto(g, s, pr);
    }
    return up;
}

/* Draws the view into s: all of it when full (s cleared), else only what
 * changed since cache's frame, which s is; mv: where the map sits, when
 * the caller already placed it (NULL: placed here). Returns whether a
 * screen or an overlay went over the map. */
static bool draw_view(game_t *g, screen_t *s, const game_view_t *view, render_cache_t *cache,
                      bool full, const map_view_t *mv)
{
    const prompt_t *pr = prompt_of(g);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    bool list = (pr->flags & PF_LIST) && lv && p;
    if ((pr->flags & PF_SCREEN) && !list) {
        pr->draw(g, s);
        return true;
    }
    render_msgs(g, s, cache);
    if (!lv || !p)
        return true;
    map_view_t m = mv ? *mv : map_view(g, s, lv, p, view && view->two_cell ? 2 : 1, NULL);
    uint64_t *verify = view ? view->verify_misses : NULL;
    if (m.vh >= 1 && draw_map(g, s, lv, &m, cache, full, verify) < 0 && cache)
        cache->valid = false;
    if (m.vh >= 1 && g->prompt == PROMPT_TARGET)
        target_render_path(g, s, m.ox, m.oy, m.vw, m.vh, m.top, m.tw);
    if (m.vh >= 1)
        map_cursor(g, s, p, &m, (pr->flags & PF_CURSOR) != 0);
    render_status(g, s, p, view, cache);
    help_row(g, s, view, cache);
    if (list)
        return draw_list(g, s, pr);
    bool over = pr->draw != NULL;
    if (pr->draw)
        pr->draw(g, s);
    return (g->items.screen != ITEMUI_NONE && draw_list(g, s, NULL)) || over;
}

void render_full(game_t *g, screen_t *s, const game_view_t *view)
{
    screen_clear(s);
    draw_view(g, s, view, NULL, true, NULL);
}

/* Clears the kept frame for a whole redraw. With text_kept (the last
 * frame drew the view with nothing over it, and so does this one) its
 * text lines stay: their caches say what they show, and a line whose
 * cache holds is not drawn again (the status line is a dozen snprintf
 * calls). A row put back was dirtied by the clear unless blank. */
static void clear_for_redraw(render_cache_t *cache, bool text_kept)
{
    screen_t *f = cache->frame;
    bool *ok[3] = {&cache->msg_ok, &cache->status_ok, &cache->help_ok};
    int row[3] = {0, f->h - 2, f->h - 1};
    size_t rowb = sizeof(cell_t) * (size_t)f->w;
    cell_t saved[3][SCREEN_MAX_W];
    for (int i = 0; i < 3; i++) {
        *ok[i] = *ok[i] && text_kept;
        if (*ok[i])
            memcpy(saved[i], f->cells + (size_t)row[i] * (size_t)f->w, rowb);
    }
    screen_clear(f);
    for (int i = 0; i < 3; i++)
        if (*ok[i])
            memcpy(f->cells + (size_t)row[i] * (size_t)f->w, saved[i], rowb);
}

/* A frame of another size: after a few in a row the kept frame takes it. */
static int frame_size(render_cache_t *cache, int w, int h)
{
    if (cache->frame && cache->frame->w == w && cache->frame->h == h) {
        cache->misses = 0;
        return 0;
    }
    if (cache->frame && ++cache->misses < FRAME_REKEY_MISSES)
        return -1;
    screen_free(cache->frame);
    free(cache->shadow);
    cache->shadow = malloc((size_t)(w + 2) * (size_t)(h + 2) * 3);
    cache->frame = cache->shadow ? screen_new(w, h) : NULL;
    cache->valid = false;
    cache->misses = 0;
    return cache->frame ? 0 : -1;
}

const screen_t *render_frame(game_t *g, int w, int h, const game_view_t *view)
{
    if (!g->render_cache && !(g->render_cache = calloc(1, sizeof *g->render_cache)))
        return NULL;
    render_cache_t *cache = g->render_cache;
    cache->stamp = 0; /* the frame changes: no grid holds it any more */
    if (frame_size(cache, w, h) < 0)
        return NULL;
    screen_clean(cache->frame);
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    int tw = view && view->two_cell ? 2 : 1;
    floor_list_t items;
    map_view_t m = lv && p ? map_view(g, cache->frame, lv, p, tw, &items) : (map_view_t){0};
    /* the view as the last frame drew it, but for where the map sits */
    bool same =
        cache->valid && !cache->over && lv && p && lv->vis && !(prompt_of(g)->flags & PF_SCREEN);
    bool full = !same || lv->depth != cache->depth || m.ox != cache->ox || m.oy != cache->oy ||
                tw != cache->tw;
    if (full)
        clear_for_redraw(cache, same);
    cache->valid = true;
    cache->tw = tw;
    cache->depth = lv ? lv->depth : -1;
    cache->ox = m.ox;
    cache->oy = m.oy;
    cache->over = draw_view(g, cache->frame, view, cache, full, lv && p ? &m : NULL);
    return cache->frame;
}

/* s held f as it was before this frame: only f's dirty rows can differ
 * (render_frame's dirty rows are every row that changed). */
static void copy_changed(screen_t *s, const screen_t *f)
{
    size_t rowb = sizeof(cell_t) * (size_t)f->w;
    for (int y = 0; y < f->h; y++) {
        cell_t *d = s->cells + (size_t)y * (size_t)f->w;
        const cell_t *r = f->cells + (size_t)y * (size_t)f->w;
        if (f->dirty[y] && memcmp(d, r, rowb) != 0) {
            screen_will_change(s, y);
            memcpy(d, r, rowb);
            s->dirty[y] = 1;
        }
    }
    s->cur_x = f->cur_x;
    s->cur_y = f->cur_y;
    s->cur_visible = f->cur_visible;
}

/* With the host's stamps, s is stamped as holding the frame; the next
 * call given s (or a copy of it, screen_copy passes the stamp on) with
 * nothing drawn over it since copies the changed rows only. The frame is
 * cold by then (a thousand other games drew theirs meanwhile): reading
 * it whole was most of the copy's cost. */
void render_world(game_t *g, screen_t *s, const game_view_t *view)
{
    uint64_t held = g->render_cache ? g->render_cache->stamp : 0;
    const screen_t *f = render_frame(g, s->w, s->h, view);
    if (!f) {
        render_full(g, s, view);
        return;
    }
    if (held && s->stamp == held && s->w == f->w && s->h == f->h)
        copy_changed(s, f);
    else
        screen_copy(s, f);
    uint64_t *stamps = view ? view->stamps : NULL;
    s->stamp = g->render_cache->stamp = stamps ? ++*stamps : 0;
}
