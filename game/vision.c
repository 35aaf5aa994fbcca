/* vision — the player's view of the live level (see vision.h). */
#include "vision.h"
#include <string.h>
#include "effect.h"
#include "fov.h"
#include "level.h"
#include "status.h"

/* Rebuilds the live level's derived arrays: what blocks sight, what is
 * lit (lit regions; never a dark one). */
static void vision_derive(game_t *g, level_t *lv)
{
    size_t n = (size_t)lv->w * (size_t)lv->h;
    for (size_t i = 0; i < n; i++) {
        uint8_t t = lv->terrain[i], r = lv->region[i];
        lv->opaque[i] = t >= g->c->n_terrain || (g->c->terrain[t].flags & TF_OPAQUE);
        lv->lit[i] = r && r <= lv->nregions && lv->regions[r - 1].lit;
    }
    lv->opaque_ok = 1;
}

void vision_update(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || level_live(g, lv) < 0)
        return;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    const region_kind_t *rk = level_region_kind(g, lv, p->x, p->y);
    int radius =
        (rk && (rk->flags & RF_DARK)) || status_has(g, g->player, EFK_(BLIND)) ? 1 : LIGHT_RADIUS;
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    if (fov_compute(&m, p->x, p->y, radius, lv->vis) < 0)
        return;
    /* remember what is seen: both arrays hold 0 or 1, so eight cells OR at once */
    size_t n = (size_t)lv->w * (size_t)lv->h, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, lv->seen + i, 8);
        memcpy(&b, lv->vis + i, 8);
        a |= b;
        memcpy(lv->seen + i, &a, 8);
    }
    for (; i < n; i++)
        lv->seen[i] |= lv->vis[i];
}

bool vision_sees(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const level_t *lv = level_current(g);
    if (!o || !lv || o->depth != g->depth)
        return false;
    return (h != HANDLE_NONE && h == g->player) || level_visible(lv, o->x, o->y);
}

bool vision_between(game_t *g, handle_t a, handle_t b)
{
    if (a == g->player || b == g->player)
        return vision_sees(g, a == g->player ? b : a);
    const obj_t *oa = reg_get(&g->reg, a), *ob = reg_get(&g->reg, b);
    level_t *lv = level_current(g);
    if (!oa || !ob || !lv || !lv->opaque || oa->depth != g->depth || ob->depth != g->depth)
        return false;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    return fov_los(&m, oa->x, oa->y, ob->x, ob->y, LIGHT_RADIUS) == 1;
}
