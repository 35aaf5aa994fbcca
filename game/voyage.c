/* voyage — passage between towns (see voyage.h). */
#include "voyage.h"
#include <stdio.h>
#include "item.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "shop.h"

/* Turns a cell, by the way of travel (ATLAS_BY_*): a coach, a ship, a riverboat. */
static const int PACE[3] = {3, 2, 3};

static int passage_rate(const game_t *g)
{
    const obj_t *k = reg_get(&g->reg, g->shop_keeper);
    const shop_kind_t *sh = k ? shop_at(g, g->levels[k->depth], k->x, k->y) : NULL;
    return sh ? sh->service[SERVICE_PASSAGE] : 0;
}

int voyage_list(const game_t *g, voyage_t out[VOYAGE_MAX])
{
    const atlas_table_t *t = g->atlas.t;
    int here = atlas_town_of(g, g->depth), rate = passage_rate(g), n = 0;
    for (int i = 0; t && here >= 0 && rate > 0 && i < t->n_links && n < VOYAGE_MAX; i++) {
        const atlas_link_t *l = &t->links[i];
        if (l->a != here && l->b != here)
            continue;
        int stages = 1 + l->len / VOYAGE_STAGE;
        out[n++] = (voyage_t){l->a == here ? l->b : l->a, l->by, l->river,
                              l->len * PACE[l->by < 3 ? l->by : 0], pc_price(g, rate * stages)};
    }
    return n;
}

static bool carries_unpaid(game_t *g)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, inv[i])->flags & IF_UNPAID)
            return true;
    return false;
}

int voyage_open(game_t *g)
{
    voyage_t v[VOYAGE_MAX];
    if (atlas_need(g) < 0)
        return 0;
    if (g->pc.heartstone)
        msg_add(g,
                "\"Not with that thing. Nobody here will carry the Warren's hunt to their door.\"");
    else if (carries_unpaid(g))
        msg_add(g, "\"Pay for what you carry first.\"");
    else if (!voyage_list(g, v))
        msg_add(g, "\"No coach or boat leaves from here.\"");
    else {
        g->prompt = PROMPT_VOYAGE;
        return 0;
    }
    g->prompt = PROMPT_NONE;
    return 0;
}

static void way_of(const game_t *g, const voyage_t *v, char *out, size_t n)
{
    if (v->by == ATLAS_BY_RIVER)
        snprintf(out, n, "by boat on the %s", g->atlas.t->rivers[v->river]);
    else
        snprintf(out, n, "%s", v->by == ATLAS_BY_SEA ? "by ship" : "by coach");
}

/* Pays and goes: the journey's ticks, 0 when it cannot. */
static int travel(game_t *g, const voyage_t *v)
{
    if (g->items.gold < v->gold) {
        msg_add(g, "You cannot afford that (%d gold; you have %d).", v->gold, (int)g->items.gold);
        return 0;
    }
    int id = atlas_town_id(g, v->town);
    const level_t *to = level_make(g, id);
    if (!to || level_arrive(g, id, to->up_x, to->up_y) < 0)
        return 0;
    g->items.gold -= v->gold;
    g->prompt = PROMPT_NONE;
    char way[64];
    way_of(g, v, way, sizeof way);
    msg_add(g, "You travel %s to %s: %d turns on the way.", way, g->atlas.t->towns[v->town].name,
            v->turns);
    return v->turns * SCHED_MOVE;
}

int voyage_key(game_t *g, key_event_t k)
{
    voyage_t v[VOYAGE_MAX];
    int n = voyage_list(g, v), i = (int)k.code - 'a';
    if (k.code == KEY_ESC || k.code == 'q' || k.code == ' ' || !n) {
        g->prompt = reg_get(&g->reg, g->shop_keeper) ? PROMPT_SHOP : PROMPT_NONE;
        return 0;
    }
    return i >= 0 && i < n ? travel(g, &v[i]) : 0;
}

void voyage_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    voyage_t v[VOYAGE_MAX];
    int n = voyage_list(g, v), here = atlas_town_of(g, g->depth);
    if (here < 0)
        return;
    screen_textf(s, 2, 0, hi, "Passage from %s. You have %d gold.", g->atlas.t->towns[here].name,
                 (int)g->items.gold);
    msg_draw_new(g, s, 2, 1);
    screen_text(s, 2, 2, hi, "Where to? (a letter pays and goes)");
    for (int i = 0; i < n && 3 + i < s->h - 2; i++) {
        char way[64];
        way_of(g, &v[i], way, sizeof way);
        screen_textf(s, 2, 3 + i, STYLE_DEFAULT, "%c) %-20s %-28.28s %4d turns %5d gold", 'a' + i,
                     g->atlas.t->towns[v[i].town].name, way, v[i].turns, v[i].gold);
    }
    screen_text(s, 2, s->h - 1, hi, "Escape, q or space goes back to the inn.");
}
