/* Unit tests: snapshots and the state hash — round trips, every truncation,
 * every bit flip, wrong version and a kind the content lacks fail with a
 * message; a snapshot reads under later content whose tables moved; the
 * heap is counted and inside its budget. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "content.h"
#include "creature.h"
#include "effect.h"
#include "helpers.h"
#include "ident.h"
#include "item.h"
#include "world.h"

static int effect_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_effects; i++)
        if (!strcmp(c->effects[i].name, name))
            return i;
    ck_abort_msg("no effect %s", name);
    return -1;
}

static game_t *played(const content_t *c, uint64_t seed, int keys)
{
    game_t *g = game_new(c, seed, NULL);
    static const char K[] = "hjklyubn..";
    for (int i = 0; i < keys; i++)
        game_input(g, NULL, (key_event_t){(uint32_t)K[(i * 7 + i / 3) % 10], 0});
    return g;
}

START_TEST(round_trip_same_hash_and_screen)
{
    char err[128];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        game_t *g = played(C, seed, (int)seed * 5);
        buf_t b;
        buf_init(&b);
        ck_assert_int_eq(game_snapshot(g, &b), 0);
        ck_assert_uint_le(b.len, 4096);
        game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        ck_assert_uint_eq(game_hash(g), game_hash(h));
        screen_t *s1 = screen_new(80, 24), *s2 = screen_new(80, 24);
        game_render(g, s1, NULL);
        game_render(h, s2, NULL);
        ck_assert(!memcmp(s1->cells, s2->cells, sizeof(cell_t) * 80 * 24));
        screen_free(s1);
        screen_free(s2);
        buf_free(&b);
        game_free(g);
        game_free(h);
    }
}
END_TEST

/* The two halves make the very blob game_snapshot makes, and the state
 * copy no longer depends on the game: it may be packed after the game
 * moved on (or is gone), as the host does on its thread pool. */
START_TEST(state_then_pack_is_the_snapshot)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        game_t *g = played(C, seed, 40);
        buf_t whole, state, packed;
        buf_init(&whole);
        buf_init(&state);
        buf_init(&packed);
        ck_assert_int_eq(game_snapshot(g, &whole), 0);
        ck_assert_int_eq(game_snapshot_state(g, &state), 0);
        uint64_t h = game_hash(g);
        game_input(g, NULL, (key_event_t){'l', 0}); /* the game moves on... */
        game_free(g);                               /* ...or goes */
        ck_assert_int_eq(game_snapshot_pack(&state, &packed), 0);
        ck_assert_uint_eq(packed.len, whole.len);
        ck_assert(!memcmp(packed.data, whole.data, whole.len));
        char err[128];
        game_t *back = game_load(C, (const uint8_t *)packed.data, packed.len, err, sizeof err);
        ck_assert_msg(back != NULL, "%s", err);
        ck_assert_uint_eq(game_hash(back), h);
        game_free(back);
        buf_free(&whole);
        buf_free(&state);
        buf_free(&packed);
    }
}
END_TEST

START_TEST(every_truncation_and_bit_flip_fails)
{
    char err[128];
    game_t *g = played(C, 3, 30);
    buf_t b;
    buf_init(&b);
    game_snapshot(g, &b);
    uint8_t *d = (uint8_t *)b.data;
    for (size_t len = 0; len < b.len; len++) {
        err[0] = 0;
        ck_assert_ptr_null(game_load(C, d, len, err, sizeof err));
        ck_assert(!strncmp(err, "snapshot: ", 10));
    }
    for (size_t i = 0; i < b.len; i++)
        for (int bit = 0; bit < 8; bit++) {
            d[i] ^= (uint8_t)(1u << bit);
            err[0] = 0;
            game_t *h = game_load(C, d, b.len, err, sizeof err);
            ck_assert_msg(h == NULL, "flip at %zu.%d loaded", i, bit);
            ck_assert(err[0]);
            d[i] ^= (uint8_t)(1u << bit);
        }
    ck_assert_ptr_null(game_load(C, NULL, 0, err, sizeof err));
    d[4]++; /* another format version */
    ck_assert_ptr_null(game_load(C, d, b.len, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "version"));
    d[4]--;
    /* another content version with the same kinds reads it as it is */
    content_t other = *C;
    memcpy(other.version, "other", 6);
    game_t *h = game_load(&other, d, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    game_free(h);
    h = game_load(C, d, b.len, err, sizeof err);
    ck_assert_ptr_nonnull(h);
    game_free(h);
    buf_free(&b);
    game_free(g);
}
END_TEST

START_TEST(hash_tracks_state)
{
    game_t *a = played(C, 9, 40), *b = played(C, 9, 40), *d = played(C, 10, 40),
           *e = played(C, 9, 41);
    ck_assert_uint_eq(game_hash(a), game_hash(b));
    ck_assert_uint_ne(game_hash(a), game_hash(d));
    ck_assert_uint_ne(game_hash(a), game_hash(e));
    ck_assert_uint_eq(game_seed(a), 9);
    game_free(a);
    game_free(b);
    game_free(d);
    game_free(e);
}
END_TEST

START_TEST(heap_counted_and_small)
{
    game_t *g = played(C, 5, 100);
    ck_assert_uint_gt(g->al.bytes, sizeof(game_t));
    ck_assert_uint_le(g->al.bytes, 64 * 1024);
    game_status_t st;
    game_status(g, &st);
    ck_assert_int_eq(st.depth, 0); /* the town, where a game begins */
    ck_assert_uint_ge(game_milestone_count(g), 1);
    ck_assert_str_eq(game_milestone(g, 0)->kind, "start");
    buf_t dump;
    buf_init(&dump);
    game_dump(g, &dump);
    ck_assert(dump.len > 100);
    buf_free(&dump);
    game_free(g);
}
END_TEST

START_TEST(render_any_size)
{
    game_t *g = played(C, 11, 20);
    static const int sizes[][2] = {{20, 5}, {80, 24}, {132, 50}, {300, 120}, {21, 7}};
    for (int i = 0; i < 5; i++) {
        screen_t *s = screen_new(sizes[i][0], sizes[i][1]);
        game_view_t v = {.watchers = 2, .two_cell = i % 2};
        game_render(g, s, &v);
        ck_assert(s->cur_visible); /* the player is always in view */
        const cell_t *at = screen_at(s, s->cur_x, s->cur_y);
        ck_assert_uint_eq(at->ch, '@');
        screen_free(s);
    }
    game_free(g);
}
END_TEST

/* ---- snapshots read by later content ------------------------------------------------ */

/* A kind of each of these tables declared before all others, so every
 * shipped kind of them moves up one place. */
static const char EXTRA_LUA[] =
    "effect { name = \"test glow\", tag = \"Glow\", interval = 100 }\n"
    "creature { name = \"test mole\", glyph = \"m\", fg = 3, hp = \"1d4\", attack = \"1d2\",\n"
    "           size = \"small\", level = 1, weight = 0 }\n"
    "creature { name = \"test hermit\", glyph = \"h\", fg = 3, hp = \"1d4\", attack = \"1d2\",\n"
    "           level = 1, weight = 0, flags = { \"unique\", \"proper\" } }\n"
    "item { name = \"test pebble\", class = \"food\", glyph = \"*\", fg = 7, weight = 1,\n"
    "       use = \"eat\", nutrition = 1, freq = 0 }\n"
    "item { name = \"potion of test\", class = \"potion\", glyph = \"!\", fg = 13, weight = 4,\n"
    "       use = \"heal\", power = \"1d2\", freq = 0 }\n";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = calloc(1, (size_t)n + 1);
    ck_assert_uint_eq(fread(t, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return t;
}

/* text written to path with what follows `after` up to the next quote
 * (or nothing, when put is "") replaced by put, once. */
static void put_edited(const char *path, const char *text, const char *after, const char *put,
                       bool to_quote)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    const char *at = after ? strstr(text, after) : NULL;
    if (!at) {
        fputs(text, f);
    } else {
        at += strlen(after);
        const char *rest = to_quote ? strchr(at, '"') : at;
        fprintf(f, "%.*s%s%s", (int)(at - text), text, put, rest);
    }
    fclose(f);
}

/* game/content copied into a new directory under another version and,
 * with extra, EXTRA_LUA loaded first; then loaded (the copy removed). */
static content_t *content_variant(const char *version, bool extra)
{
    char dir[] = "/tmp/warren-content-XXXXXX", path[600], err[256] = "";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    DIR *d = opendir(WARREN_CONTENT_DIR);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".lua"))
            continue;
        snprintf(path, sizeof path, "%s/%s", WARREN_CONTENT_DIR, e->d_name);
        char *text = slurp(path);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!strcmp(e->d_name, "rules.lua"))
            put_edited(path, text, "version = \"", version, true);
        else
            put_edited(path, text, extra && !strcmp(e->d_name, "modules.lua") ? "return {" : NULL,
                       " \"extra.lua\",", false);
        free(text);
    }
    closedir(d);
    snprintf(path, sizeof path, "%s/extra.lua", dir);
    put_edited(path, extra ? EXTRA_LUA : "", NULL, NULL, false);
    content_t *c = content_load(dir, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    d = opendir(dir);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
    return c;
}

static const char *kind_name(const game_t *g, const obj_t *o)
{
    return o->type == OBJ_CREATURE ? g->c->creatures[o->kind].name
           : o->type == OBJ_ITEM   ? g->c->items[o->kind].name
                                   : g->c->effects[o->kind].name;
}

/* The same objects (handles), each of the same kind by name, at the same
 * place, with the same hit points, ego and holder. */
static void same_objects(const game_t *a, const game_t *b)
{
    int n = 0;
    for (handle_t h = reg_next(&a->reg, HANDLE_NONE); h; h = reg_next(&a->reg, h), n++) {
        const obj_t *o = reg_get(&a->reg, h), *p = reg_get(&b->reg, h);
        ck_assert_msg(p != NULL && p->type == o->type, "object %u", h);
        ck_assert_str_eq(kind_name(a, o), kind_name(b, p));
        ck_assert_int_eq(o->x, p->x);
        ck_assert_int_eq(o->y, p->y);
        ck_assert_int_eq(o->depth, p->depth);
        ck_assert_int_eq(o->hp, p->hp);
        ck_assert_uint_eq(o->target, p->target);
        if (o->type == OBJ_ITEM && o->a[1])
            ck_assert_str_eq(a->c->egos[o->a[1] - 1].name, b->c->egos[p->a[1] - 1].name);
    }
    ck_assert_int_gt(n, 5);
    for (handle_t h = reg_next(&b->reg, HANDLE_NONE); h; h = reg_next(&b->reg, h))
        ck_assert_ptr_nonnull(reg_get(&a->reg, h));
}

/* Every cell of the level at depth d has the same terrain by name. */
static void same_terrain(const game_t *a, const game_t *b, int d)
{
    const level_t *x = a->levels[d], *y = b->levels[d];
    ck_assert_int_eq(x->w * x->h, y->w * y->h);
    for (int i = 0; i < x->w * x->h; i++)
        ck_assert_str_eq(a->c->terrain[x->terrain[i]].name, b->c->terrain[y->terrain[i]].name);
}

/* What the player knows of items and how unknown ones look, by name. */
static void same_items_known(const game_t *a, const game_t *b)
{
    for (uint16_t k = 0; k < a->c->n_items; k++) {
        uint16_t j = item_named(b->c, a->c->items[k].name);
        ck_assert_uint_eq(a->items.known[k], b->items.known[j]);
        ck_assert_uint_eq(a->items.flavour[k], b->items.flavour[j]);
    }
}

/* No two flavoured kinds of a class look alike (the new potion of b
 * among them). */
static void distinct_looks(const game_t *g)
{
    int potions = 0;
    for (uint16_t i = 0; i < g->c->n_items; i++)
        for (uint16_t j = 0; j < i && ident_flavoured(g, i); j++)
            if (ident_flavoured(g, j) && g->c->items[i].cls == g->c->items[j].cls) {
                ck_assert_msg(g->items.flavour[i] != g->items.flavour[j], "%s and %s look alike",
                              g->c->items[i].name, g->c->items[j].name);
                potions += !strcmp(g->c->items[j].name, "potion of test");
            }
    ck_assert_int_gt(potions, 0);
}

/* A spellcaster on level 1 among monsters, carrying and wearing its kit,
 * a floor item, a monster under an effect, a spell known. */
static game_t *busy_game(const content_t *c, const char *creature)
{
    int cls = 0;
    while (cls < c->n_classes && !c->classes[cls].spells)
        cls++;
    ck_assert_int_lt(cls, c->n_classes);
    game_t *g = alone(c, 77, 0, cls);
    open_room(g, 4);
    handle_t m = spawn_at(g, creature, 2, 0);
    spawn_at(g, "kobold", -2, 1);
    effect_apply(g, m, (uint16_t)effect_named(c, "slow"), 500, 1);
    const obj_t *p = reg_get(&g->reg, g->player);
    item_new(g, item_named(c, "dagger"), 1, HANDLE_NONE, g->depth, p->x, p->y + 1, &g->play);
    return g;
}

START_TEST(snapshot_reads_under_content_with_kinds_inserted)
{
    char err[200];
    content_t *a = shipped_content(), *b = content_variant("test-b", true);
    ck_assert_int_eq(b->n_creatures, a->n_creatures + 2);
    ck_assert_str_eq(b->creatures[0].name, "test mole");
    ck_assert_str_eq(b->items[0].name, "test pebble");
    ck_assert_str_eq(b->effects[0].name, "test glow");
    /* and a terrain before all others (as a map generator that gained one would have) */
    terrain_kind_t *terrain = calloc(a->n_terrain + 1u, sizeof *terrain);
    memcpy(terrain + 1, b->terrain, sizeof *terrain * b->n_terrain);
    snprintf(terrain[0].name, sizeof terrain[0].name, "test void");
    content_t b2 = *b;
    b2.terrain = terrain;
    b2.n_terrain++;

    game_t *g = busy_game(a, "giant rat");
    int first = 0; /* the first unique of a, seen: in b it is the second */
    while (!(a->creatures[first].flags & CF_UNIQUE))
        first++;
    g->pc.uniques_seen |= 1;
    buf_t blob;
    buf_init(&blob);
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    game_t *h = game_load(&b2, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    same_objects(g, h);
    same_terrain(g, h, g->depth);
    same_terrain(g, h, 0);
    same_items_known(g, h);
    distinct_looks(h);
    ck_assert_str_eq(a->races[g->pc.race].name, b->races[h->pc.race].name);
    ck_assert_str_eq(a->classes[g->pc.cls].name, b->classes[h->pc.cls].name);
    ck_assert_uint_eq(
        h->pc.uniques_seen,
        1ull << creature_unique_index(b, (uint16_t)kind_named(b, a->creatures[first].name)));
    ck_assert_int_eq(creature_unique_index(b, (uint16_t)kind_named(b, "test hermit")), 0);
    ck_assert_uint_ne(g->pc.spells, 0);
    for (int s = 0; s < a->n_spells; s++)
        ck_assert_int_eq(g->pc.spells >> s & 1,
                         h->pc.spells >> spell_named(b, a->spells[s].name) & 1);
    game_free(h);

    /* under content b itself the game goes on: moves, and saves again */
    h = game_load(b, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    keys(h, "hjkl..s");
    buf_t again;
    buf_init(&again);
    ck_assert_int_eq(game_snapshot(h, &again), 0);
    game_t *k = game_load(b, (const uint8_t *)again.data, again.len, err, sizeof err);
    ck_assert_msg(k != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(k), game_hash(h));
    same_items_known(h, k);
    game_free(k);
    game_free(h);
    buf_free(&again);
    buf_free(&blob);
    game_free(g);
    free(terrain);
    content_free(b);
    content_free(a);
}
END_TEST

START_TEST(snapshot_naming_a_kind_the_content_lacks_is_refused)
{
    char err[200] = "";
    content_t *a = shipped_content(), *b = content_variant("test-b", true);
    game_t *g = busy_game(b, "test mole");
    buf_t blob;
    buf_init(&blob);
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    ck_assert_ptr_null(game_load(a, (const uint8_t *)blob.data, blob.len, err, sizeof err));
    ck_assert_msg(strstr(err, "creature \"test mole\"") && strstr(err, "test-b") &&
                      strstr(err, a->version),
                  "%s", err);
    /* without the mole, the kinds a lacks (the pebble, the glow) are not
     * referred to, and the snapshot reads */
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h))
        if (reg_get(&g->reg, h)->type == OBJ_CREATURE && reg_get(&g->reg, h)->kind == 0)
            creature_remove(g, h);
    buf_reset(&blob);
    ck_assert_int_eq(game_snapshot(g, &blob), 0);
    game_t *h = game_load(a, (const uint8_t *)blob.data, blob.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    game_free(h);
    buf_free(&blob);
    game_free(g);
    content_free(b);
    content_free(a);
}
END_TEST

Suite *suite_game_snapshot(void)
{
    Suite *s = suite_create("game_snapshot");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, round_trip_same_hash_and_screen);
    tcase_add_test(t, every_truncation_and_bit_flip_fails);
    tcase_add_test(t, state_then_pack_is_the_snapshot);
    tcase_add_test(t, hash_tracks_state);
    tcase_add_test(t, heap_counted_and_small);
    tcase_add_test(t, render_any_size);
    tcase_add_test(t, snapshot_reads_under_content_with_kinds_inserted);
    tcase_add_test(t, snapshot_naming_a_kind_the_content_lacks_is_refused);
    suite_add_tcase(s, t);
    return s;
}
