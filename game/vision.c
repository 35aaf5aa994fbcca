/* vision — the player's view of the live level (see vision.h). */
#include "vision.h"
#include <stdlib.h>
#include <string.h>
#include "effect.h"
#include "fov.h"
#include "level.h"
#include "status.h"

/* Whether (x, y) lies within the last view's reach (fov_reach). */
static bool in_reach(const level_t *lv, int x, int y)
{
    int dx = x - lv->fov_x, dy = y - lv->fov_y;
    return dx >= -lv->fov_reach && dx <= lv->fov_reach && dy >= -lv->fov_reach &&
           dy <= lv->fov_reach;
}

/* Rebuilds the live level's derived arrays: what blocks sight, what is
 * lit (lit regions; never a dark one). The view in vis stays good unless
 * a cell its scan could read now blocks sight differently, or the light
 * changed. */
static void vision_derive(game_t *g, level_t *lv)
{
    bool keep = lv->fov_ok;
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++) {
            size_t i = (size_t)y * (size_t)lv->w + (size_t)x;
            uint8_t t = lv->terrain[i], r = lv->region[i];
            uint8_t op = t >= g->c->n_terrain || (g->c->terrain[t].flags & TF_OPAQUE);
            uint8_t lit = r && r <= lv->nregions && lv->regions[r - 1].lit;
            if (keep && (lit != lv->lit[i] || (op != lv->opaque[i] && in_reach(lv, x, y))))
                keep = false;
            lv->opaque[i] = op;
            lv->lit[i] = lit;
        }
    lv->fov_ok = keep;
    lv->opaque_ok = 1;
}

/* The map view's anchor follows the player only when it strays a few cells
 * from it: stepping to and fro does not scroll the map each time (render.c
 * places the view). */
static void anchor_follow(game_t *g, const level_t *lv, const obj_t *p)
{
    if (abs(p->x - g->view_x) > ANCHOR_SLACK_X || g->view_x >= lv->w)
        g->view_x = p->x;
    if (abs(p->y - g->view_y) > ANCHOR_SLACK_Y || g->view_y >= lv->h)
        g->view_y = p->y;
}

/* The first cell of the sight box on one axis: reach cells either side
 * of p, moved in from the map's edges (a box of 2 * reach + 1 cells). */
static int box_start(int p, int reach, int map)
{
    int at = p - reach, last = map - (2 * reach + 1);
    return at > last ? (last > 0 ? last : 0) : at < 0 ? 0 : at;
}

/* Nothing past the sight box is seen, however lit: what the player sees
 * is what a map view of 80x21 tiles can draw round it. */
static fov_box_t sight_box(const level_t *lv, int px, int py)
{
    int x0 = box_start(px, SIGHT_X, lv->w), y0 = box_start(py, SIGHT_Y, lv->h);
    int x1 = x0 + 2 * SIGHT_X + 1, y1 = y0 + 2 * SIGHT_Y + 1; /* past the box */
    return (fov_box_t){x0, y0, x1 < lv->w ? x1 : lv->w, y1 < lv->h ? y1 : lv->h};
}

/* Remembers what is seen: vis is 0 outside the box, and both arrays hold
 * 0 or 1, so the box's rows are ORed eight cells at once. */
static void remember_seen(level_t *lv, const fov_box_t *b)
{
    size_t n = (size_t)(b->x1 - b->x0);
    for (int y = b->y0; y < b->y1; y++) {
        size_t at = (size_t)y * (size_t)lv->w + (size_t)b->x0, i = 0;
        uint8_t *seen = lv->seen + at;
        const uint8_t *vis = lv->vis + at;
        for (; i + 8 <= n; i += 8) {
            uint64_t a, v;
            memcpy(&a, seen + i, 8);
            memcpy(&v, vis + i, 8);
            a |= v;
            memcpy(seen + i, &a, 8);
        }
        for (; i < n; i++)
            seen[i] |= vis[i];
    }
}

/* Sees again only when something the view depends on changed. */
void vision_update(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || level_live(g, lv) < 0)
        return;
    anchor_follow(g, lv, p);
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    const region_kind_t *rk = level_region_kind(g, lv, p->x, p->y);
    int radius =
        (rk && (rk->flags & RF_DARK)) || status_has(g, g->player, EFK_(BLIND)) ? 1 : LIGHT_RADIUS;
    if (lv->fov_ok && lv->fov_x == p->x && lv->fov_y == p->y && lv->fov_radius == radius)
        return; /* nothing the view depends on changed: vis and seen stand */
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    /* rows past the sight box are not scanned: their cells are not seen */
    fov_box_t box = sight_box(lv, p->x, p->y);
    int reach;
    if (fov_compute_box(&m, p->x, p->y, radius, &box, lv->vis, &reach) < 0)
        return;
    lv->fov_ok = 1;
    lv->fov_x = p->x;
    lv->fov_y = p->y;
    lv->fov_radius = (int16_t)radius;
    lv->fov_reach = (int16_t)reach;
    remember_seen(lv, &box);
}

bool vision_sees(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const level_t *lv = level_current(g);
    if (!o || !lv || o->depth != g->depth)
        return false;
    if (h != HANDLE_NONE && h == g->player)
        return true;
    /* a disguised creature is seen as what it passes for, not as itself */
    return level_visible(lv, o->x, o->y) && !(o->type == OBJ_CREATURE && (o->flags & OF_DISGUISED));
}

bool vision_between(game_t *g, handle_t a, handle_t b)
{
    if (a == g->player || b == g->player) { /* the player's view, disguises or not */
        handle_t o = a == g->player ? b : a;
        const obj_t *oo = reg_get(&g->reg, o);
        const level_t *cur = level_current(g);
        return o == g->player ||
               (oo && cur && oo->depth == g->depth && level_visible(cur, oo->x, oo->y));
    }
    const obj_t *oa = reg_get(&g->reg, a), *ob = reg_get(&g->reg, b);
    level_t *lv = level_current(g);
    if (!oa || !ob || !lv || !lv->opaque || oa->depth != g->depth || ob->depth != g->depth)
        return false;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    return fov_los(&m, oa->x, oa->y, ob->x, ob->y, LIGHT_RADIUS) == 1;
}
