/* render — the view (see render.h). */
#include "render.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "glyph.h"
#include "help.h"
#include "itemui.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "world.h"

static style_t fg_style(uint16_t fg, uint8_t attr)
{
    return (style_t){fg, SCREEN_DEFAULT_COLOR, attr};
}

/* The message line: what came since the last key; behind --More-- only
 * the part that fits the logical line (msg.c decides, not the terminal). */
static void render_msgs(game_t *g, screen_t *s)
{
    char line[MSG_WIDTH * 2] = "";
    size_t len = 0;
    bool all;
    uint32_t n = g->nmsg - g->msg_seen;
    if (g->prompt == PROMPT_MORE)
        n = msg_fit(g, g->msg_seen, &all);
    for (uint32_t i = g->msg_seen; i < g->msg_seen + n; i++) {
        char one[MSG_LEN + 16];
        msg_format(msg_at(g, i), one, sizeof one);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", len ? " " : "", one);
        if (len >= sizeof line)
            break;
    }
    int x = screen_text(s, 0, 0, STYLE_DEFAULT, line);
    if (g->prompt == PROMPT_MORE)
        screen_text(s, x, 0, (style_t){15, SCREEN_DEFAULT_COLOR, ATTR_BOLD}, MORE_TEXT);
}

/* GLYPH_* bits of the seen neighbours of (x, y) that a wall line joins:
 * walls and doors. Only what the player has seen, so the lines tell
 * nothing about unexplored cells. */
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
        if (lv->seen[i] && t < g->c->n_terrain && (g->c->terrain[t].flags & (TF_LINE | TF_EDGE)))
            mask |= 1u << d;
    }
    return mask;
}

/* First map column/row shown: centred when the map fits, else follows p. */
static int view_origin(int map, int view, int p)
{
    if (map <= view)
        return -(view - map) / 2;
    int o = p - view / 2;
    if (o < 0)
        o = 0;
    if (o > map - view)
        o = map - view;
    return o;
}

static void render_map(game_t *g, screen_t *s, const level_t *lv, const obj_t *p, int tw,
                       bool cursor)
{
    int top = 1, vh = s->h - 3, vw = s->w / tw;
    if (vh < 1)
        return;
    int ox = view_origin(lv->w, vw, p->x), oy = view_origin(lv->h, vh, p->y);
    /* only the part of each row that lies on the level (once per row) */
    int sx0 = ox < 0 ? -ox : 0, sx1 = lv->w - ox < vw ? lv->w - ox : vw;
    for (int sy = 0; sy < vh; sy++) {
        int y = oy + sy;
        if (y < 0 || y >= lv->h)
            continue;
        size_t row = (size_t)y * (size_t)lv->w;
        for (int sx = sx0; sx < sx1; sx++) {
            size_t i = row + (size_t)(ox + sx);
            if (!lv->seen[i])
                continue;
            uint8_t t = lv->terrain[i];
            const terrain_kind_t *k = &g->c->terrain[t < g->c->n_terrain ? t : 0];
            bool vis = lv->vis && lv->vis[i];
            uint32_t ch =
                k->flags & TF_LINE ? glyph_join(join_mask(g, lv, ox + sx, y), k->glyph) : k->glyph;
            screen_put(s, sx * tw, top + sy, ch, vis ? fg_style(k->fg, 0) : fg_style(8, ATTR_DIM));
        }
    }
    itemui_render_floor(g, s, ox, oy, vw, vh, top, tw);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || o->depth != lv->depth || !level_in(lv, o->x, o->y))
            continue;
        if (!level_visible(lv, o->x, o->y))
            continue;
        const creature_kind_t *k = &g->c->creatures[o->kind];
        int sx = o->x - ox, sy = o->y - oy;
        if (sx >= 0 && sx < vw && sy >= 0 && sy < vh)
            screen_put(s, sx * tw, top + sy, k->glyph,
                       fg_style(k->fg, h == g->player ? ATTR_BOLD : 0));
    }
    int px = (cursor ? g->cur_x : p->x) - ox, py = (cursor ? g->cur_y : p->y) - oy;
    screen_cursor(s, px * tw, top + py, px >= 0 && px < vw && py >= 0 && py < vh);
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

static int status_parts(game_t *g, const obj_t *p, status_part_t *pt)
{
    int n = status_add(pt, 0, STYLE_DEFAULT, 9, "%s", g->name);
    n = status_add(pt, n, STYLE_DEFAULT, 1, " the %s %s", pc_race_name(g), pc_class_name(g));
    n = status_add(pt, n, STYLE_DEFAULT, 3, "  XL %d", g->pc.xl);
    style_t hp = p->hp * 3 <= p->hp_max ? fg_style(9, ATTR_BOLD) : STYLE_DEFAULT;
    n = status_add(pt, n, hp, 9, "  HP %d/%d", p->hp, p->hp_max);
    if (g->pc.mana_max)
        n = status_add(pt, n, fg_style(12, 0), 8, "  MP %d/%d", g->pc.mana, g->pc.mana_max);
    n = status_add(pt, n, STYLE_DEFAULT, 7, "  Depth %d", g->depth);
    n = status_add(pt, n, STYLE_DEFAULT, 5, "  $%d", (int)g->items.gold);
    n = status_add(pt, n, STYLE_DEFAULT, 6, "  Turn %llu",
                   (unsigned long long)(g->sched.now / SCHED_MOVE));
    size_t e = 0;
    char eff[64] = "";
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
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

static void render_status(game_t *g, screen_t *s, const obj_t *p, const game_view_t *view)
{
    status_part_t pt[STATUS_PARTS];
    int n = status_parts(g, p, pt), width = 0;
    char cell[32] = "";
    if (view && view->watchers > 0)
        snprintf(cell, sizeof cell, " [%d watching]", view->watchers);
    for (int i = 0; i < n; i++)
        width += (int)strlen(pt[i].text);
    int room = s->w - (int)strlen(cell);
    for (int keep = 0; keep < 9 && width > room; keep++)
        for (int i = 0; i < n; i++)
            if (pt[i].keep == keep && pt[i].text[0]) {
                width -= (int)strlen(pt[i].text);
                pt[i].text[0] = 0;
            }
    int x = 0;
    for (int i = 0; i < n; i++)
        x = screen_text(s, x, s->h - 2, pt[i].st, pt[i].text);
    if (cell[0])
        screen_text(s, s->w - (int)strlen(cell), s->h - 2, fg_style(6, 0), cell);
    help_line(g, s);
}

void render_world(game_t *g, screen_t *s, const game_view_t *view)
{
    screen_clear(s);
    const prompt_t *pr = prompt_of(g);
    if (pr->flags & PF_SCREEN) {
        pr->draw(g, s);
        return;
    }
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    render_msgs(g, s);
    if (!lv || !p)
        return;
    render_map(g, s, lv, p, view && view->two_cell ? 2 : 1, (pr->flags & PF_CURSOR) != 0);
    render_status(g, s, p, view);
    if (pr->draw)
        pr->draw(g, s);
    itemui_render(g, s);
}
