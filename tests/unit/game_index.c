/* game_index — the registry's map index and holder index (obj.h) against
 * a walk of every object: after every key of random play, through
 * snapshots and replays, each cell lists exactly the objects on it, the
 * creature list exactly the creatures on the map, and each object's holder
 * list exactly the items and effects whose target it is, in slot order. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game.h"
#include "helpers.h"
#include "level.h"
#include "world.h"

/* The cell a full walk puts the object of slot i on, -1 none (the rule is
 * obj.h's, spelt out again here). */
static int32_t cell_by_walk(const reg_t *r, uint32_t i)
{
    const obj_t *o = &r->slot[i];
    bool placed = o->type == OBJ_CREATURE || (o->type == OBJ_ITEM && !o->target);
    if (!placed || o->depth != r->ix.depth || o->x < 0 || o->y < 0 || o->x >= r->ix.w ||
        o->y >= r->ix.h)
        return -1;
    return o->y * r->ix.w + o->x;
}

/* One list (a cell's, or the creatures') read through the index: every
 * entry live, in rising slot order, and meets `want` (a cell, or -2: any
 * creature on the map); how many. */
static uint32_t walk_list(const reg_t *r, handle_t first, bool creatures, int32_t want,
                          const char *where)
{
    uint32_t n = 0, last = 0;
    for (handle_t h = first; h; n++) {
        uint32_t i = h & OBJ_INDEX_MASK;
        const obj_t *o = reg_get(r, h);
        ck_assert_msg(o != NULL, "%s: a dead handle in the index", where);
        ck_assert_msg(n == 0 || i > last, "%s: slot %u after %u", where, i, last);
        int32_t at = cell_by_walk(r, i);
        if (creatures)
            ck_assert_msg(o->type == OBJ_CREATURE && at >= 0, "%s: slot %u", where, i);
        else
            ck_assert_msg(at == want, "%s: slot %u filed at %d, stands at %d", where, i, want, at);
        last = i;
        h = creatures ? reg_index_next_creature(r, h) : reg_index_next_at(r, h);
    }
    return n;
}

/* The index equals a full walk; false when it is closed. */
static bool index_matches_walk(const game_t *g, const char *where)
{
    const reg_t *r = &g->reg;
    const level_t *lv = g->depth >= 0 && g->depth < LEVEL_IDS ? g->levels[g->depth] : NULL;
    if (lv && lv->vis)
        ck_assert_msg(r->ix.depth == g->depth, "%s: the live level has no index", where);
    if (r->ix.depth < 0)
        return false;
    uint32_t placed = 0, creatures = 0, filed = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        int32_t at = cell_by_walk(r, i);
        ck_assert_msg(r->ix.cell[i] == at, "%s: slot %u kept at %d, stands at %d", where, i,
                      r->ix.cell[i], at);
        placed += at >= 0;
        creatures += at >= 0 && r->slot[i].type == OBJ_CREATURE;
    }
    for (int y = 0; y < r->ix.h; y++)
        for (int x = 0; x < r->ix.w; x++)
            filed += walk_list(r, reg_index_at(r, x, y), false, y * r->ix.w + x, where);
    ck_assert_msg(filed == placed, "%s: %u filed, %u on the map", where, filed, placed);
    uint32_t listed = walk_list(r, reg_index_next_creature(r, HANDLE_NONE), true, -2, where);
    ck_assert_msg(listed == creatures, "%s: %u creatures listed of %u", where, listed, creatures);
    return true;
}

/* The target slot + 1 a full walk files the object of slot i under, 0
 * none (obj.h's rule spelt out again). */
static uint32_t key_by_walk(const reg_t *r, uint32_t i)
{
    const obj_t *o = &r->slot[i];
    uint32_t t = o->target & OBJ_INDEX_MASK;
    if ((o->type != OBJ_ITEM && o->type != OBJ_EFFECT) || !o->target || t >= r->cap)
        return 0;
    return t + 1;
}

/* The holder index equals a full walk: every item and effect filed under
 * its target's slot and nothing else, each list live and in slot order,
 * and what reg_next_held gives the player what a walk of all finds. */
static void held_matches_walk(const game_t *g, const char *where)
{
    const reg_t *r = &g->reg;
    ck_assert_msg(r->held.open, "%s: the holder index is closed", where);
    uint32_t want = 0, filed = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t k = key_by_walk(r, i);
        ck_assert_msg(r->held.l[i].key == k, "%s: slot %u filed under %u, its target is %u", where,
                      i, r->held.l[i].key, k);
        want += k != 0;
    }
    for (uint32_t s = 0; s < r->cap; s++) {
        uint32_t last = 0;
        for (uint32_t link = r->held.l[s].head; link; link = r->held.l[link - 1].next, filed++) {
            uint32_t i = link - 1;
            ck_assert_msg(i < r->n && r->slot[i].type != OBJ_FREE, "%s: free slot %u filed", where,
                          i);
            ck_assert_msg(key_by_walk(r, i) == s + 1, "%s: slot %u in %u's list", where, i, s);
            ck_assert_msg(link > last, "%s: slot %u after %u", where, i, last - 1);
            last = link;
        }
    }
    ck_assert_msg(filed == want, "%s: %u in the lists, %u held", where, filed, want);
    handle_t h = reg_next_held(r, g->player, HANDLE_NONE);
    for (handle_t w = reg_next(r, HANDLE_NONE); w; w = reg_next(r, w)) {
        const obj_t *o = reg_get(r, w);
        if (o->type == OBJ_CREATURE || o->target != g->player)
            continue;
        ck_assert_msg(h == w, "%s: the player's next is %x, a walk's %x", where, h, w);
        h = reg_next_held(r, g->player, h);
    }
    ck_assert_msg(h == HANDLE_NONE, "%s: the player's list goes on past a walk's", where);
}

/* Both indexes against a walk; false when the map index is closed. */
static bool indexes_match_walk(const game_t *g, const char *where)
{
    held_matches_walk(g, where);
    return index_matches_walk(g, where);
}

/* Keys of random play: steps most of the time, else any command (fights,
 * pick-ups, drops, throws, potions, scrolls, wands, prompts), now and then
 * exploring or a travel to the stairs down and down them. */
static const char *random_keys(uint32_t *r, char one[2])
{
    static const char STEPS[] = "hjklyubnhjklyubn.s";
    static const char ANY[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              ",.<>;:!?*@_/\\-+=0123456789 \r\x1b";
    *r = *r * 1103515245u + 12345u;
    uint32_t v = *r >> 8;
    if (v % 32 == 0)
        return "\x1b\x1b_>.>";
    if (v % 32 == 1)
        return "\x1b\x1bo";
    one[0] = v % 3 ? STEPS[(v / 3) % (sizeof STEPS - 1)] : ANY[(v / 3) % (sizeof ANY - 1)];
    one[1] = 0;
    return one;
}

START_TEST(index_equals_a_full_walk_after_every_key)
{
    enum { SEEDS = 10, KEYS = 1500, SNAP_EVERY = 300 };
    uint32_t checked = 0, total = 0, levels = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        game_t *g = started(game_new(C, seed, NULL));
        uint32_t r = (uint32_t)seed * 2654435761u, *played = calloc(KEYS, sizeof *played);
        uint32_t was = g->level_changes;
        int n = 0;
        char where[64];
        for (int turn = 0; n < KEYS && g->state == GAME_RUNNING; turn++) {
            char one[2];
            const char *k = random_keys(&r, one);
            for (; *k && n < KEYS && g->state == GAME_RUNNING; k++, n++) {
                played[n] = (unsigned char)*k;
                key(g, played[n]);
                snprintf(where, sizeof where, "seed %llu key %d", (unsigned long long)seed, n);
                checked += indexes_match_walk(g, where);
            }
            if (turn % SNAP_EVERY == SNAP_EVERY - 1) { /* restored, the game goes on */
                buf_t b;
                char err[128];
                buf_init(&b);
                ck_assert_int_eq(game_snapshot(g, &b), 0);
                game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
                ck_assert_msg(h != NULL, "%s", err);
                buf_free(&b);
                ck_assert_uint_eq(game_hash(g), game_hash(h));
                indexes_match_walk(h, where);
                game_free(g);
                g = h;
            }
        }
        levels += g->level_changes - was;
        total += (uint32_t)n;
        /* a replay of the same keys from the seed: the same game, the same index */
        game_t *replay = started(game_new(C, seed, NULL));
        for (int i = 0; i < n; i++)
            key(replay, played[i]);
        ck_assert_uint_eq(game_hash(g), game_hash(replay));
        indexes_match_walk(replay, "replay");
        game_free(replay);
        game_free(g);
        free(played);
    }
    fprintf(stderr, "index: %u keys, %u checked, %u level changes\n", total, checked, levels);
    ck_assert_uint_gt(checked, total * 9 / 10);
    ck_assert_uint_gt(levels, 0);
}
END_TEST

Suite *suite_game_index(void)
{
    Suite *s = suite_create("game_index");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, index_equals_a_full_walk_after_every_key);
    suite_add_tcase(s, t);
    return s;
}
