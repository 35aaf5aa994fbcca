/* Unit tests: the surface walked — out of the town through its gates onto
 * the overland of the seed's continent, every territory's dungeon entrance
 * reachable from the start, a branch entered and left, another town's
 * shop, travel by road and by water from an inn, the Heartstone's chase
 * across the surface to a safe town (the win), the same seed and keys
 * giving the same game, snapshots on the surface, an older format still
 * restoring, and the overland drawn in every glyph set. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "creature.h"
#include "glyph.h"
#include "helpers.h"
#include "item.h"
#include "level.h"
#include "msg.h"
#include "prompt.h"
#include "render.h"
#include "screen.h"
#include "shop.h"
#include "vision.h"
#include "voyage.h"
#include "world.h"

/* A new game past the creation screen, standing in the home town. */
static game_t *in_town(const content_t *c, uint64_t seed)
{
    game_t *g = game_new(c, seed, NULL);
    ck_assert_ptr_nonnull(g);
    key(g, '*');
    while (g->prompt == PROMPT_MORE)
        key(g, ' ');
    ck_assert_int_eq(g->depth, 0);
    return g;
}

/* A key once any --More-- is paged. */
static void key_p(game_t *g, uint32_t k)
{
    while (g->prompt == PROMPT_MORE && g->state == GAME_RUNNING)
        key(g, ' ');
    key(g, k);
}

/* The player will not die of what the tests meet. */
static void hardy(game_t *g)
{
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = p->hp_max = 5000;
}

/* What the wilds hold but the player goes (the towns keep their keepers). */
static void clear_wilds(game_t *g)
{
    for (handle_t h = reg_next(&g->reg, 0); h;) {
        const obj_t *o = reg_get(&g->reg, h);
        bool gone = o->type == OBJ_CREATURE && o->depth == ATLAS_OVERLAND && h != g->player;
        if (gone)
            creature_remove(g, h);
        h = reg_next(&g->reg, gone ? 0 : h);
    }
}

/* The player stands at (x, y) of the current map. */
static void put(game_t *g, int x, int y)
{
    obj_t *p = reg_get(&g->reg, g->player);
    p->x = (int16_t)x, p->y = (int16_t)y;
    reg_refile(&g->reg, g->player);
    vision_update(g);
}

/* Out through the gate the player starts on. */
static game_t *outside(const content_t *c, uint64_t seed)
{
    game_t *g = in_town(c, seed);
    hardy(g);
    key_p(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    clear_wilds(g);
    return g;
}

static bool screen_says(game_t *g, const char *what)
{
    screen_t *s = screen_new(100, 30);
    game_render(g, s, NULL);
    bool found = false;
    for (int y = 0; y < s->h && !found; y++) {
        char row[101];
        for (int x = 0; x < 100; x++) {
            uint32_t ch = s->cells[y * 100 + x].ch;
            row[x] = ch < 128 ? (char)ch : '?';
        }
        row[100] = 0;
        found = strstr(row, what) != NULL;
    }
    screen_free(s);
    return found;
}

/* The keeper of the shop whose region is named, on the current map. */
static handle_t keeper_of(game_t *g, const char *region)
{
    const level_t *lv = level_current(g);
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        const shop_kind_t *sh =
            shop_peaceful(g, o) && o->depth == g->depth ? shop_at(g, lv, o->x, o->y) : NULL;
        if (sh && !strcmp(g->c->regions[sh->region].name, region))
            return h;
    }
    return HANDLE_NONE;
}

/* The player moves next to keeper k, inside its shop. */
static void beside(game_t *g, handle_t k)
{
    const obj_t *o = reg_get(&g->reg, k);
    const level_t *lv = level_current(g);
    const shop_kind_t *sh = shop_at(g, lv, o->x, o->y);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int x = o->x + dx, y = o->y + dy;
            if ((dx || dy) && level_terrain(lv, x, y) == MAP_FLOOR && shop_at(g, lv, x, y) == sh &&
                !level_creature_at(g, g->depth, x, y)) {
                put(g, x, y);
                return;
            }
        }
    ck_abort_msg("no room beside the keeper");
}

/* Cells of the overland reachable on foot from (x, y): reach[c] set. */
static void walk_reach(game_t *g, const level_t *lv, int x, int y, uint8_t *reach)
{
    int n = lv->w * lv->h, *queue = malloc((size_t)n * sizeof *queue), head = 0, tail = 0;
    memset(reach, 0, (size_t)n);
    reach[y * lv->w + x] = 1;
    queue[tail++] = y * lv->w + x;
    while (head < tail) {
        int c = queue[head++];
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nx = c % lv->w + dx, ny = c / lv->w + dy;
                if (level_in(lv, nx, ny) && !reach[ny * lv->w + nx] &&
                    level_passable(g, lv, nx, ny))
                    reach[ny * lv->w + nx] = 1, queue[tail++] = ny * lv->w + nx;
            }
    }
    free(queue);
}

/* The first territory with a branch. */
static int a_branch(const game_t *g)
{
    for (int i = 0; i < g->atlas.t->n_terrs; i++)
        if (g->atlas.t->terrs[i].levels)
            return i;
    ck_abort_msg("no branch");
    return -1;
}

/* A town that is not the home town and (safe 1) is safe or (0) is not. */
static int other_town(const game_t *g, int safe)
{
    for (int i = 0; i < g->atlas.t->n_towns; i++)
        if (i != g->atlas.t->home && g->atlas.t->towns[i].safe == safe)
            return i;
    return -1;
}

/* On the overland, the player walks in at town i's gates. */
static void enter_town(game_t *g, int i)
{
    put(g, g->atlas.t->towns[i].x, g->atlas.t->towns[i].y);
    key_p(g, '>');
}

START_TEST(walking_out_of_town_onto_the_overland)
{
    game_t *g = in_town(C, 42);
    const level_t *town = level_current(g);
    int mid = town->h / 2;
    /* paths through the trees: a gate at each end of the road, trees else */
    ck_assert_int_eq(level_terrain(town, 0, mid), MAP_GATE);
    ck_assert_int_eq(level_terrain(town, town->w - 1, mid), MAP_GATE);
    ck_assert_int_eq(level_terrain(town, 0, mid - 1), MAP_TREE);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert(p->x == 0 && p->y == mid); /* a game starts at the west gate */
    ck_assert_ptr_null(g->atlas.t);      /* a game in the town has not paid for the atlas yet */
    uint32_t from = g->nmsg;
    key(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    ck_assert(said_since(g, from, "You leave Burrowmouth for the wilds of"));
    const atlas_table_t *t = g->atlas.t;
    const atlas_town_t *home = &t->towns[t->home];
    p = reg_get(&g->reg, g->player);
    ck_assert(p->x == home->x && p->y == home->y); /* on the home town's cell */
    ck_assert_str_eq(home->name, "Burrowmouth");
    ck_assert(screen_says(g, t->terrs[home->terr].name)); /* the status line names the land */
    /* the overland is the world map: its size, the towns and entrances on it */
    const level_t *lv = level_current(g);
    ck_assert_int_eq(lv->w, C->world.w);
    ck_assert_int_eq(lv->h, C->world.h);
    for (int i = 0; i < t->n_towns; i++)
        ck_assert_int_eq(level_terrain(lv, t->towns[i].x, t->towns[i].y), MAP_TOWN);
    int roads = 0, sea = 0;
    for (int i = 0; i < lv->w * lv->h; i++) {
        roads += lv->terrain[i] == MAP_ROAD;
        sea += lv->terrain[i] == MAP_SEA || lv->terrain[i] == MAP_SEA_LANE;
        ck_assert(lv->seen[i]); /* the continent is known */
    }
    ck_assert_int_gt(roads, 0);
    ck_assert_int_gt(sea, 0);
    /* back in, and out by the east gate */
    key_p(g, '>');
    ck_assert_int_eq(g->depth, 0);
    put(g, town->w - 1, mid);
    key_p(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    game_free(g);
}
END_TEST

/* Travel's > on the overland jumps to the nearest way in (a town or a
 * dungeon's mouth), the next nearest on the next press; . goes there. */
START_TEST(travel_jumps_to_the_ways_in)
{
    game_t *g = outside(C, 42);
    const atlas_table_t *t = g->atlas.t;
    const obj_t *p = reg_get(&g->reg, g->player);
    int px = p->x, py = p->y, best = -1;
    for (int i = 0; i < t->n_towns + t->n_terrs; i++) {
        int x = i < t->n_towns ? t->towns[i].x : t->terrs[i - t->n_towns].ex;
        int y = i < t->n_towns ? t->towns[i].y : t->terrs[i - t->n_towns].ey;
        int d = (x - px) * (x - px) + (y - py) * (y - py);
        if ((i < t->n_towns || t->terrs[i - t->n_towns].levels) && d > 0 && (best < 0 || d < best))
            best = d;
    }
    ck_assert_int_gt(best, 0);
    key(g, '_');
    ck_assert(screen_says(g, "(> towns and dungeons)")); /* the overland's own jump */
    screen_t *s = screen_new(80, 24);                    /* whole on an 80-column top line */
    game_render(g, s, NULL);
    char top[81];
    int n = 0;
    for (int x = 0; x < 80; x++) {
        uint32_t ch = screen_at(s, x, 0)->ch;
        top[n++] = ch < 128 ? (char)ch : '?';
    }
    while (n > 0 && top[n - 1] == ' ')
        n--;
    top[n] = 0;
    screen_free(s);
    ck_assert_msg(strncmp(top, "Travel where?", 13) == 0 && top[n - 1] == '.', "cut: %s", top);
    ck_assert(!screen_says(g, "stairs"));
    key(g, '>');
    ck_assert_int_eq(g->prompt, PROMPT_TRAVEL);
    int x1 = g->cur_x, y1 = g->cur_y;
    ck_assert_int_eq((x1 - px) * (x1 - px) + (y1 - py) * (y1 - py), best);
    ck_assert(atlas_town_at(g, x1, y1) >= 0 || atlas_entrance_at(g, x1, y1) >= 0);
    key(g, '>');
    int x2 = g->cur_x, y2 = g->cur_y;
    ck_assert(x2 != x1 || y2 != y1);
    ck_assert(atlas_town_at(g, x2, y2) >= 0 || atlas_entrance_at(g, x2, y2) >= 0);
    ck_assert_int_ge((x2 - px) * (x2 - px) + (y2 - py) * (y2 - py), best);
    key(g, KEY_ESC); /* closed; open again: the nearest first */
    key(g, '_');
    key(g, '>');
    key(g, '.');
    p = reg_get(&g->reg, g->player);
    ck_assert(p->x != px || p->y != py);
    game_free(g);
}
END_TEST

/* A step costs its terrain's time: a road is quicker than open land, and
 * both far slower than a step in the dungeon (the continent's scale). */
START_TEST(a_step_on_the_overland_is_at_its_own_scale)
{
    game_t *g = outside(C, 42);
    const level_t *lv = level_current(g);
    int road = -1, plain = -1;
    for (int i = 0; i < lv->w * lv->h && (road < 0 || plain < 0); i++) {
        int x = i % lv->w, y = i / lv->w;
        uint8_t t = lv->terrain[i], east = level_terrain(lv, x + 1, y);
        if (t == MAP_ROAD && east == MAP_ROAD && road < 0)
            road = i;
        if (t == MAP_PLAINS && east == MAP_PLAINS && plain < 0)
            plain = i;
    }
    ck_assert(road >= 0 && plain >= 0);
    put(g, road % lv->w, road / lv->w);
    uint64_t now = g->sched.now;
    key(g, 'l');
    uint64_t by_road = g->sched.now - now;
    clear_wilds(g);
    put(g, plain % lv->w, plain / lv->w);
    now = g->sched.now;
    key(g, 'l');
    uint64_t by_land = g->sched.now - now;
    ck_assert_uint_gt(by_road, 2 * SCHED_MOVE);
    ck_assert_uint_lt(by_road, by_land);
    ck_assert_uint_eq(g->atlas.steps, 2);
    game_free(g);
}
END_TEST

START_TEST(every_territorys_entrance_is_reachable_from_the_start)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        game_t *g = outside(C, seed);
        const atlas_table_t *t = g->atlas.t;
        const level_t *lv = level_current(g);
        ck_assert_int_ge(t->n_terrs, 6);
        ck_assert_int_le(t->n_terrs, 10);
        uint8_t *reach = malloc((size_t)lv->w * (size_t)lv->h);
        const obj_t *p = reg_get(&g->reg, g->player);
        walk_reach(g, lv, p->x, p->y, reach);
        int home = t->towns[t->home].terr;
        for (int i = 0; i < t->n_terrs; i++) {
            const atlas_terr_t *tr = &t->terrs[i];
            if (i == home) { /* the Warren, under the home town */
                ck_assert_int_eq(tr->levels, 0);
                continue;
            }
            ck_assert_msg(tr->levels >= 3 && tr->levels <= BRANCH_LEVELS_MAX, "seed %d", (int)seed);
            ck_assert_int_eq(level_terrain(lv, tr->ex, tr->ey), MAP_ENTRANCE);
            ck_assert_int_eq(atlas_terr_at(g, tr->ex, tr->ey), i); /* in its own land */
            ck_assert_msg(reach[tr->ey * lv->w + tr->ex], "seed %d: %s's entrance cut off",
                          (int)seed, tr->name);
            ck_assert_int_gt(tr->danger, t->terrs[home].danger); /* farther, deadlier */
        }
        for (int i = 0; i < t->n_towns; i++)
            ck_assert(reach[t->towns[i].y * lv->w + t->towns[i].x]);
        free(reach);
        game_free(g);
    }
}
END_TEST

START_TEST(entering_a_branch_and_coming_back)
{
    game_t *g = outside(C, 7);
    int terr = a_branch(g);
    const atlas_terr_t *tr = &g->atlas.t->terrs[terr];
    put(g, tr->ex, tr->ey);
    uint32_t from = g->nmsg;
    key_p(g, '>');
    ck_assert_int_eq(g->depth, atlas_branch_id(terr, 1));
    char name[64];
    atlas_branch_name(g, terr, name, sizeof name);
    ck_assert(said_since(g, from, name));
    ck_assert_str_eq(game_milestone(g, game_milestone_count(g) - 1)->kind, "branch");
    const level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert(p->x == lv->up_x && p->y == lv->up_y);
    ck_assert_int_eq(atlas_danger(g, g->depth), tr->danger);
    game_status_t st;
    game_status(g, &st);
    ck_assert_int_eq(st.depth, tr->danger); /* what the lobby shows: its danger */
    ck_assert_int_eq(st.max_depth, 0);      /* the Warren's depth stays the score's */
    /* themed: its rooms take the theme's region */
    const special_level_t *th = &C->branches[tr->theme];
    int themed = 0;
    for (int r = 0; r < lv->nregions; r++)
        themed += lv->regions[r].kind == th->region;
    ck_assert_int_gt(themed, 0);
    /* dying here says where */
    char where[64], want[96];
    atlas_where(g, where, sizeof where);
    snprintf(want, sizeof want, "on level 1 of %s", name);
    ck_assert_str_eq(where, want);
    /* the last level: no way down, a hoard */
    int last = atlas_branch_id(terr, tr->levels);
    ck_assert_int_eq(atlas_below(g, last), -1);
    const level_t *deep = level_make(g, last);
    ck_assert_int_eq(deep->down_x, -1);
    ck_assert_int_eq(atlas_danger(g, last), tr->danger + tr->levels - 1);
    /* and out again, onto the entrance */
    clear_monsters(g);
    key_p(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    p = reg_get(&g->reg, g->player);
    ck_assert(p->x == tr->ex && p->y == tr->ey);
    game_free(g);
}
END_TEST

START_TEST(another_towns_shop_sells)
{
    game_t *g = outside(C, 11);
    int town = other_town(g, 0) >= 0 ? other_town(g, 0) : other_town(g, 1);
    ck_assert_int_ge(town, 0);
    enter_town(g, town);
    ck_assert_int_eq(g->depth, atlas_town_id(g, town));
    ck_assert(screen_says(g, g->atlas.t->towns[town].name));
    const level_t *lv = level_current(g);
    ck_assert_int_eq(lv->down_x, -1); /* the Warren lies under the home town only */
    for (int i = 0; i < lv->w * lv->h; i++)
        ck_assert_int_ne(lv->terrain[i], MAP_STAIRS_DOWN);
    handle_t k = keeper_of(g, "the general store");
    ck_assert(k && keeper_of(g, "the temple") && keeper_of(g, "the travellers' inn"));
    beside(g, k);
    g->items.gold = 5000;
    key_p(g, 'p');
    ck_assert_int_eq(g->prompt, PROMPT_SHOP);
    handle_t inv[INV_SLOTS];
    int before = item_inventory(g, g->player, inv);
    key(g, 'a');
    ck_assert_int_lt(g->items.gold, 5000);
    ck_assert_int_eq(item_inventory(g, g->player, inv), before + 1);
    game_free(g);
}
END_TEST

/* Whether the 80x24 view shows text on one of its rows. */
static bool screen_shows(game_t *g, const char *text)
{
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    bool found = false;
    for (int y = 0; y < s->h && !found; y++) {
        char row[81];
        for (int x = 0; x < 80; x++) {
            uint32_t ch = screen_at(s, x, y)->ch;
            row[x] = ch < 0x80 ? (char)ch : '?';
        }
        row[80] = 0;
        found = strstr(row, text) != NULL;
    }
    screen_free(s);
    return found;
}

/* The inn's passage of town `from`, the list up; the index of a voyage by `by`, or -1. */
static int inn_passage(game_t *g, int by, voyage_t *v, int *n)
{
    handle_t k = keeper_of(g, "the travellers' inn");
    ck_assert(k);
    beside(g, k);
    g->items.gold = 5000;
    key_p(g, 'p');
    ck_assert(screen_shows(g, "1) passage, by the day")); /* its only service, listed first */
    key(g, '1');
    ck_assert_int_eq(g->prompt, PROMPT_VOYAGE);
    *n = voyage_list(g, v);
    for (int i = 0; i < *n; i++)
        if (v[i].by == by)
            return i;
    return -1;
}

/* A seed whose world has a link of this kind, and the town it starts from. */
static game_t *world_with_link(const content_t *c, int by, int *from)
{
    for (uint64_t seed = 1; seed < 60; seed++) {
        game_t *g = outside(c, seed);
        for (int i = 0; i < g->atlas.t->n_links; i++)
            if (g->atlas.t->links[i].by == by) {
                *from = g->atlas.t->links[i].a;
                return g;
            }
        game_free(g);
    }
    ck_abort_msg("no world with a link by %d", by);
    return NULL;
}

START_TEST(travel_by_road_and_by_water)
{
    for (int by = ATLAS_BY_ROAD; by <= ATLAS_BY_SEA; by++) {
        int from;
        game_t *g = world_with_link(C, by, &from);
        if (from != g->atlas.t->home)
            enter_town(g, from);
        else
            key_p(g, '>');
        ck_assert_int_eq(g->depth, atlas_town_id(g, from));
        voyage_t v[VOYAGE_MAX];
        int n, i = inn_passage(g, by, v, &n);
        ck_assert_msg(i >= 0, "no passage by %d from %s", by, g->atlas.t->towns[from].name);
        ck_assert(screen_says(g, g->atlas.t->towns[v[i].town].name));
        ck_assert(screen_says(g, by == ATLAS_BY_ROAD ? "by coach" : "by ship"));
        uint64_t now = g->sched.now;
        key(g, (uint32_t)('a' + i));
        ck_assert_int_eq(g->depth, atlas_town_id(g, v[i].town));
        ck_assert_int_eq(g->items.gold, 5000 - v[i].gold);
        ck_assert_uint_ge(g->sched.now - now, (uint64_t)v[i].turns * SCHED_MOVE);
        ck_assert_int_eq(g->prompt, PROMPT_NONE);
        game_free(g);
    }
}
END_TEST

START_TEST(nobody_carries_the_heartstone)
{
    game_t *g = in_town(C, 11);
    g->pc.heartstone = 1;
    beside(g, keeper_of(g, "the travellers' inn"));
    g->items.gold = 5000;
    uint32_t from = g->nmsg;
    key_p(g, 'p');
    key(g, '1'); /* its only service */
    ck_assert_int_ne(g->prompt, PROMPT_VOYAGE);
    ck_assert(said_since(g, from, "Not with that thing"));
    ck_assert_int_eq(g->items.gold, 5000);
    game_free(g);
}
END_TEST

/* The bearer of the stone out of the Warren: hunters in the town, hunters
 * in the wilds, no refuge in a town that is not safe, the win at a safe
 * town's gates. */
START_TEST(the_chase_ends_in_a_safe_town)
{
    game_t *g = in_town(C, 29);
    g->pc.heartstone = 1;
    hardy(g);
    uint32_t from = g->nmsg;
    key_p(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    ck_assert(said_since(g, from, "the Warren's hunters are out"));
    int hunters = 0;
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        hunters += o->type == OBJ_CREATURE && h != g->player && o->depth == ATLAS_OVERLAND &&
                   (o->flags & OF_AWARE);
    }
    ck_assert_int_ge(hunters, 1);
    int unsafe = other_town(g, 0), safe = other_town(g, 1);
    ck_assert_int_ge(safe, 0);
    ck_assert_int_ne(g->atlas.t->towns[safe].terr, g->atlas.t->towns[g->atlas.t->home].terr);
    if (unsafe >= 0) {
        enter_town(g, unsafe);
        ck_assert_int_eq(g->state, GAME_RUNNING);
        ck_assert_int_eq(g->depth, atlas_town_id(g, unsafe));
        key_p(g, '<');
        clear_wilds(g);
    }
    size_t ms = g->nms;
    enter_town(g, safe);
    ck_assert_int_eq(g->state, GAME_WON);
    ck_assert_str_eq(g->cause, "escaped with the Heartstone");
    ck_assert_int_eq(prompt_of(g)->id, PROMPT_VICTORY);
    bool end = false;
    for (size_t i = ms; i < g->nms; i++)
        end |= !strcmp(g->ms[i].kind, "end") && strstr(g->ms[i].text, "Heartstone");
    ck_assert(end);
    ck_assert(screen_says(g, g->atlas.t->towns[safe].name));
    ck_assert(screen_says(g, "with the Heartstone"));
    game_free(g);
}
END_TEST

/* Keys that walk out, about the wilds, into a town and back out. */
static const char WALK[] = "<lllljjjhhhkkkyyubnlllllljjjjjhhhhhh>l<llllkkkkk";

static game_t *walked(const content_t *c, uint64_t seed)
{
    game_t *g = in_town(c, seed);
    hardy(g);
    keys_paged(g, WALK);
    return g;
}

START_TEST(the_same_seed_and_keys_give_the_same_game)
{
    game_t *a = walked(C, 77), *b = walked(C, 77);
    ck_assert_uint_gt(a->atlas.steps, 10);
    ck_assert_uint_eq(a->atlas.steps, b->atlas.steps);
    ck_assert_uint_eq(game_hash(a), game_hash(b));
    /* the overland is the same whatever the player did before it */
    game_t *d = game_new(C, 77, NULL);
    key(d, '*');
    ck_assert_int_eq(level_enter(d, 1), 0);
    ck_assert_int_eq(level_enter(d, 0), 0);
    put(d, 0, d->levels[0]->h / 2);
    key_p(d, '<');
    const level_t *la = a->levels[ATLAS_OVERLAND], *ld = d->levels[ATLAS_OVERLAND];
    ck_assert_ptr_nonnull(ld);
    ck_assert(!memcmp(la->terrain, ld->terrain, (size_t)la->w * (size_t)la->h));
    game_free(a);
    game_free(b);
    game_free(d);
}
END_TEST

static game_t *round_trip(const content_t *c, const game_t *g)
{
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[160];
    game_t *h = game_load(c, (const uint8_t *)b.data, b.len, err, sizeof err);
    buf_free(&b);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    return h;
}

START_TEST(a_snapshot_on_the_surface_round_trips)
{
    game_t *g = walked(C, 78);
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    game_t *h = round_trip(C, g);
    ck_assert_uint_eq(h->atlas.steps, g->atlas.steps);
    ck_assert_uint_eq(h->atlas.encounters, g->atlas.encounters);
    keys_paged(g, "jjjjkkkkhhll");
    keys_paged(h, "jjjjkkkkhhll");
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    /* and in another town and a branch */
    int town = other_town(g, 1) >= 0 ? other_town(g, 1) : other_town(g, 0);
    clear_wilds(g);
    enter_town(g, town);
    game_t *i = round_trip(C, g);
    key_p(i, '<');
    clear_wilds(i);
    int terr = a_branch(i);
    put(i, i->atlas.t->terrs[terr].ex, i->atlas.t->terrs[terr].ey);
    key_p(i, '>');
    ck_assert_int_eq(i->depth, atlas_branch_id(terr, 1));
    game_t *j = round_trip(C, i);
    ck_assert_int_eq(j->depth, atlas_branch_id(terr, 1));
    game_free(g);
    game_free(h);
    game_free(i);
    game_free(j);
}
END_TEST

static uint8_t *read_blob(const char *name, size_t *len)
{
    const char *src = getenv("WARREN_SRC");
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/data/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the source root or set WARREN_SRC)", path);
    static uint8_t buf[1 << 16];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

/* Snapshots written by format 7, before the overland (a game of seed 7:
 * " llll" in the town; " _>.>_>.>" down to level 1), still load under
 * their content; the town gets its gates and the game goes on out of it,
 * saved again in this format, which this content reads. */
START_TEST(an_old_format_snapshot_still_restores)
{
    /* formats before 9 name no kinds: they load under the content that
     * wrote them alone. These were written by warren-lua-3, whose tables
     * are the first rows of this content's (later kinds were appended). */
    content_t v3 = *C;
    snprintf(v3.version, sizeof v3.version, "warren-lua-3");
    v3.n_creatures = 93, v3.n_items = 132, v3.n_effects = 15, v3.n_spells = 27;
    size_t len;
    const uint8_t *blob = read_blob("snapshot_v7_town.bin", &len);
    ck_assert_int_eq(blob[4], 7);
    char err[160];
    ck_assert_ptr_null(game_load(C, blob, len, err, sizeof err));
    ck_assert_msg(strstr(err, "other content"), "%s", err);
    game_t *g = game_load(&v3, blob, len, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(g->depth, 0);
    ck_assert(p->x == 5 && p->y == 20 && p->hp == 16);
    ck_assert_uint_eq(g->keys, 5);
    const level_t *town = g->levels[0];
    ck_assert_int_eq(level_terrain(town, 0, town->h / 2), MAP_GATE);
    put(g, 0, town->h / 2);
    key_p(g, '<');
    ck_assert_int_eq(g->depth, ATLAS_OVERLAND);
    game_t *h = round_trip(&v3, g); /* saved again in this format */
    game_free(h);
    game_free(g);
    blob = read_blob("snapshot_v7_level1.bin", &len);
    g = game_load(&v3, blob, len, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_int_eq(g->depth, 1);
    ck_assert_ptr_nonnull(g->levels[0]);
    ck_assert_int_eq(level_terrain(g->levels[0], 0, g->levels[0]->h / 2), MAP_GATE);
    game_free(g);
}
END_TEST

/* Every glyph the overland draws has its fallbacks: drawn in every
 * terminal profile (protocol/glyph.c). */
START_TEST(the_overland_is_drawn_in_every_glyph_set)
{
    game_t *g = outside(C, 5);
    screen_t *s = screen_new(80, 24);
    game_render(g, s, NULL);
    int wide = 0;
    for (int i = 0; i < s->w * s->h; i++) {
        uint32_t ch = s->cells[i].ch;
        if (ch > 127) {
            wide++;
            ck_assert_msg(glyph_fallback(ch) != NULL, "U+%04X has no fallback", ch);
        }
    }
    ck_assert_int_gt(wide, 0);
    for (int t = MAP_GATE; t < MAP_TERRAIN_COUNT; t++) {
        uint32_t ch = C->terrain[t].glyph;
        ck_assert(ch < 128 || glyph_fallback(ch));
    }
    screen_free(s);
    game_free(g);
}
END_TEST

/* Those met in the wilds are new to the player and said as many as came:
 * "2 cutpurses come at you", "A cutpurse comes at you", never "The
 * cutpurse comes at you" for two. */
START_TEST(encounters_say_how_many_came)
{
    game_t *g = outside(C, 9);
    reg_get(&g->reg, g->player)->hp_max = 5000;
    const level_t *lv = level_current(g);
    int one = 0, more = 0;
    for (int i = 0; i < 400 && g->state == GAME_RUNNING && !(one && more); i++) {
        reg_get(&g->reg, g->player)->hp = 5000;
        clear_wilds(g);
        while (g->prompt != PROMPT_NONE)
            key(g, KEY_ESC);
        uint32_t from = g->nmsg, met = g->atlas.encounters;
        const obj_t *p = reg_get(&g->reg, g->player);
        key(g, i % 2 ? 'h' : 'l');
        if (level_terrain(lv, p->x, p->y) == MAP_TOWN)
            key(g, 'j');
        if (g->atlas.encounters == met)
            continue;
        int n = 0;
        const char *name = "";
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            if (o->type == OBJ_CREATURE && h != g->player && o->depth == ATLAS_OVERLAND)
                n++, name = creature_kind(g, o)->name;
        }
        char the[96];
        snprintf(the, sizeof the, "The %s comes at you", name);
        ck_assert_msg(!said_since(g, from, the), "%d came: %s", n, last_msg(g));
        ck_assert_msg(said_since(g, from, n > 1 ? " come at you across" : " comes at you across"),
                      "%d came: %s", n, last_msg(g));
        one += n == 1, more += n > 1;
    }
    ck_assert_int_gt(one + more, 0);
    game_free(g);
}
END_TEST

/* Steps in the wilds meet the creatures of the territory's danger; they
 * stay behind when the player goes in. */
START_TEST(encounters_come_by_territory)
{
    game_t *g = outside(C, 9);
    reg_get(&g->reg, g->player)->hp_max = 5000;
    const level_t *lv = level_current(g);
    int met = 0;
    for (int i = 0; i < 400 && g->state == GAME_RUNNING; i++) {
        reg_get(&g->reg, g->player)->hp = 5000;
        const obj_t *p = reg_get(&g->reg, g->player);
        int terr = atlas_terr_at(g, p->x, p->y);
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            if (o->type != OBJ_CREATURE || h == g->player || o->depth != ATLAS_OVERLAND || terr < 0)
                continue;
            ck_assert_int_le(creature_kind(g, o)->min_depth, g->atlas.t->terrs[terr].danger + 1);
            met++;
        }
        clear_wilds(g);
        while (g->prompt != PROMPT_NONE)
            key(g, KEY_ESC);
        key(g, i % 2 ? 'h' : 'l');       /* to and fro on open land */
        p = reg_get(&g->reg, g->player); /* a key may grow the registry */
        if (level_terrain(lv, p->x, p->y) == MAP_TOWN)
            key(g, 'j');
    }
    ck_assert_int_gt((int)g->atlas.encounters, 0);
    ck_assert_int_gt(met, 0);
    ck_assert_uint_ge(g->atlas.steps, g->atlas.encounters);
    game_free(g);
}
END_TEST

/* A unique comes alone: an encounter that picks one makes one, never
 * "2 Skarg the Kobold Kings". Walked in the most dangerous territory of
 * several seeds until uniques have come a few times. */
START_TEST(a_unique_comes_alone_across_the_wilds)
{
    int uniques = 0;
    for (uint64_t seed = 1; seed < 40 && uniques < 6; seed++) {
        game_t *g = outside(C, seed);
        const level_t *lv = level_current(g);
        int best = -1, bx = -1, by = -1;
        for (int y = 1; y < lv->h - 1; y++)
            for (int x = 1; x < lv->w - 1; x++) {
                int terr = atlas_terr_at(g, x, y);
                uint8_t t = level_terrain(lv, x, y);
                if (terr >= 0 && level_passable(g, lv, x, y) && level_passable(g, lv, x + 1, y) &&
                    t != MAP_TOWN && t != MAP_ENTRANCE && level_terrain(lv, x + 1, y) != MAP_TOWN &&
                    level_terrain(lv, x + 1, y) != MAP_ENTRANCE &&
                    (best < 0 || g->atlas.t->terrs[terr].danger > best))
                    best = g->atlas.t->terrs[terr].danger, bx = x, by = y;
            }
        ck_assert_int_ge(best, 0);
        put(g, bx, by);
        for (int i = 0; i < 600 && g->state == GAME_RUNNING; i++) {
            reg_get(&g->reg, g->player)->hp = 5000;
            while (g->prompt != PROMPT_NONE)
                key(g, KEY_ESC);
            put(g, bx + i % 2, by);
            uint32_t met = g->atlas.encounters;
            key(g, i % 2 ? 'h' : 'l');
            if (g->atlas.encounters == met)
                continue;
            for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
                const obj_t *o = reg_get(&g->reg, h);
                if (o->type != OBJ_CREATURE || h == g->player || o->depth != ATLAS_OVERLAND ||
                    !(creature_kind(g, o)->flags & CF_UNIQUE))
                    continue;
                int same = 0;
                for (handle_t j = reg_next(&g->reg, 0); j; j = reg_next(&g->reg, j))
                    same += reg_get(&g->reg, j)->type == OBJ_CREATURE &&
                            reg_get(&g->reg, j)->kind == o->kind;
                ck_assert_msg(same == 1, "seed %d: %d of %s: %s", (int)seed, same,
                              creature_kind(g, o)->name, last_msg(g));
                uniques++;
                break;
            }
            clear_wilds(g);
        }
        game_free(g);
    }
    ck_assert_int_gt(uniques, 0);
}
END_TEST

/* Travel to the sea, on a continent the player knows whole, says that no
 * one walks there, not "You know no way there from here". */
START_TEST(travel_to_the_sea_says_no_one_walks_there)
{
    game_t *g = outside(C, 9);
    level_t *lv = level_current(g);
    int sea = -1;
    for (int i = 0; i < lv->w * lv->h && sea < 0; i++)
        if (lv->terrain[i] == MAP_SEA)
            sea = i;
    ck_assert_int_ge(sea, 0);
    uint32_t from = g->nmsg;
    uint64_t now = g->sched.now;
    key(g, '_');
    g->cur_x = (int16_t)(sea % lv->w), g->cur_y = (int16_t)(sea / lv->w);
    key(g, '.');
    ck_assert_msg(said_since(g, from, "You cannot walk there."), "%s", last_msg(g));
    ck_assert(!said_since(g, from, "You know no way there"));
    ck_assert_uint_eq(g->sched.now, now);
    game_free(g);
}
END_TEST

Suite *suite_game_overland(void)
{
    Suite *s = suite_create("game_overland");
    TCase *t = tcase_create("overland");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, walking_out_of_town_onto_the_overland);
    tcase_add_test(t, travel_jumps_to_the_ways_in);
    tcase_add_test(t, a_step_on_the_overland_is_at_its_own_scale);
    tcase_add_test(t, every_territorys_entrance_is_reachable_from_the_start);
    tcase_add_test(t, entering_a_branch_and_coming_back);
    tcase_add_test(t, another_towns_shop_sells);
    tcase_add_test(t, travel_by_road_and_by_water);
    tcase_add_test(t, nobody_carries_the_heartstone);
    tcase_add_test(t, the_chase_ends_in_a_safe_town);
    tcase_add_test(t, the_same_seed_and_keys_give_the_same_game);
    tcase_add_test(t, a_snapshot_on_the_surface_round_trips);
    tcase_add_test(t, an_old_format_snapshot_still_restores);
    tcase_add_test(t, the_overland_is_drawn_in_every_glyph_set);
    tcase_add_test(t, encounters_come_by_territory);
    tcase_add_test(t, encounters_say_how_many_came);
    tcase_add_test(t, a_unique_comes_alone_across_the_wilds);
    tcase_add_test(t, travel_to_the_sea_says_no_one_walks_there);
    suite_add_tcase(s, t);
    return s;
}
