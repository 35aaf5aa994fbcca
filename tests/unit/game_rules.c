/* Unit tests: rules through the dispatch chain with the shipped content —
 * the flesh golem's scripted handler, contained handler errors, region
 * rules (slippery floors, darkness, names), lit rooms in vision, and the
 * message line's --More--, history screen and cycling help line. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "content.h"
#include "declare.h"
#include "creature.h"
#include "effect.h"
#include "event.h"
#include "fov.h"
#include "help.h"
#include "helpers.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "prompt.h"
#include "script.h"
#include "status.h"
#include "vision.h"
#include "world.h"

static int damage(game_t *g, handle_t victim, uint8_t dtype, int amount, uint32_t flags)
{
    ev_info_t e = {.type = EV_DAMAGE,
                   .victim = victim,
                   .map = -1,
                   .dtype = dtype,
                   .amount = {amount},
                   .flags = flags};
    return event_throw(g, &e);
}

/* Incursion's flesh golem, all through event_throw: lightning heals it,
 * fire and cold slow it, other direct spells do nothing, blades hurt. */
START_TEST(flesh_golem_through_the_chain)
{
    script_vm_t *vm = script_vm_new();
    game_t *g = started(game_new(C, 7, NULL));
    int x, y;
    cell_near_player(g, &x, &y);
    handle_t h = creature_spawn(g, (uint16_t)kind_named(C, "flesh golem"), g->depth, x, y);
    ck_assert_uint_ne(h, HANDLE_NONE);
    g->vm = vm; /* as game_input lends it */
    obj_t *o = reg_get(&g->reg, h);
    int max = o->hp_max, speed = status_speed(g, h);
    ck_assert_int_eq(damage(g, h, DT_ACID, 10, 0), EV_DONE); /* acid hurts it as anyone */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, max - 10);
    ck_assert_int_eq(damage(g, h, DT_LIGHTNING, 12, EVF_SPELL), EV_ABORT); /* healed by a third */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, max - 6);
    ck_assert_int_eq(damage(g, h, DT_MAGIC, 9, EVF_SPELL), EV_ABORT); /* immune to other spells */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, max - 6);
    ck_assert_uint_eq(effect_find(g, h, C->slow_effect), HANDLE_NONE);
    ck_assert_int_eq(damage(g, h, DT_FIRE, 9, EVF_SPELL), EV_ABORT); /* slowed, not burnt */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, max - 6);
    ck_assert_uint_ne(effect_find(g, h, C->slow_effect), HANDLE_NONE);
    ck_assert_int_eq(status_speed(g, h), speed / 2);
    ck_assert_int_eq(damage(g, h, DT_COLD, 9, 0),
                     EV_ABORT); /* again: refreshed, not halved twice */
    ck_assert_int_eq(status_speed(g, h), speed / 2);
    ck_assert_int_eq(damage(g, h, DT_LIGHTNING, 60, 0), EV_ABORT); /* never past its maximum */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, max);
    ck_assert_int_eq(g->script_errors, 0);
    /* the slowing wears off with game time */
    g->vm = NULL;
    for (int i = 0; i < 12 && reg_get(&g->reg, h); i++)
        game_input(g, vm, (key_event_t){'.', 0});
    if (reg_get(&g->reg, h)) {
        ck_assert_uint_eq(effect_find(g, h, C->slow_effect), HANDLE_NONE);
        ck_assert_int_eq(status_speed(g, h), speed);
    }
    game_free(g);
    script_vm_free(vm);
}
END_TEST

/* A creature of the named kind just east of the player, in place of
 * any there before. */
static handle_t spawn_east(game_t *g, const char *name)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    handle_t old = level_creature_at(g, g->depth, p->x + 1, p->y);
    if (old) {
        sched_cancel(&g->sched, old);
        reg_del(&g->reg, old);
    }
    return spawn_at(g, name, 1, 0);
}

/* The player zaps a fresh wand of the named kind east: the bolt's event. */
static void zap_east(game_t *g, const char *wand)
{
    handle_t w = item_new(g, item_named(g->c, wand), 1, g->player, 0, 0, 0, NULL);
    ck_assert_uint_ne(w, HANDLE_NONE);
    reg_get(&g->reg, w)->remaining = 5;
    ck_assert_int_gt(itemuse_use(g, g->player, w, 1, 0), 0);
}

/* Wand bolts carry the wand's damage type through the event chain: the
 * flesh golem's handler and creatures' immunities and weaknesses see it. */
START_TEST(wand_bolts_carry_their_damage_type)
{
    script_vm_t *vm = script_vm_new();
    game_t *g = started(game_new(C, 7, NULL));
    g->vm = vm; /* as game_input lends it */
    handle_t h = spawn_east(g, "flesh golem");
    obj_t *o = reg_get(&g->reg, h);
    int max = o->hp_max;
    o->hp = max - 40;
    zap_east(g, "wand of lightning"); /* heals it */
    ck_assert_int_gt(reg_get(&g->reg, h)->hp, max - 40);
    int hp = reg_get(&g->reg, h)->hp;
    ck_assert_uint_eq(effect_find(g, h, C->slow_effect), HANDLE_NONE);
    zap_east(g, "wand of fire"); /* slows, does not burn */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, hp);
    ck_assert_uint_ne(effect_find(g, h, C->slow_effect), HANDLE_NONE);
    zap_east(g, "wand of magic missile"); /* a spell: nothing */
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, hp);
    ck_assert_int_eq(g->script_errors, 0);

    h = spawn_east(g, "hell hound"); /* immune to fire, weak to cold */
    o = reg_get(&g->reg, h);
    o->hp = o->hp_max = 1000;
    zap_east(g, "wand of fire");
    ck_assert_int_eq(reg_get(&g->reg, h)->hp, 1000);
    zap_east(g, "wand of frost"); /* 5d6, halved by a Ref save at worst, half again: 3 */
    ck_assert_int_le(reg_get(&g->reg, h)->hp, 1000 - 3);
    g->vm = NULL;
    game_free(g);
    script_vm_free(vm);
}
END_TEST

/* A failing handler is reported and the event goes on as if it returned
 * NOTHING: the damage lands. */
START_TEST(handler_error_is_contained)
{
    const char *paths[] = {"game/content/terrain.lua",       "game/content/effects.lua",
                           "game/content/spells.lua",        "game/content/creatures.lua",
                           "tests/content/bad/handlers.lua", "game/content/rules.lua"};
    char err[256] = "";
    content_t *c = declare_load_files(paths, 6, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    script_vm_t *vm = script_vm_new();
    game_t *g = started(game_new(c, 3, NULL));
    g->vm = vm;
    const char *names[] = {"faulty", "runaway", "glutton", "catcher"};
    uint32_t before = 0;
    for (int i = 0; i < 4; i++) {
        int x, y;
        cell_near_player(g, &x, &y);
        handle_t h = creature_spawn(g, (uint16_t)kind_named(c, names[i]), g->depth, x, y);
        reg_get(&g->reg, h)->hp = reg_get(&g->reg, h)->hp_max = 50;
        ck_assert_int_eq(damage(g, h, DT_HIT, 10, 0), EV_DONE);
        ck_assert_int_eq(reg_get(&g->reg, h)->hp, 40);
        ck_assert_uint_gt(g->script_errors, before); /* once per phase it ran in */
        before = g->script_errors;
        ck_assert_msg(strstr(g->script_err, "tests/content/bad/handlers.lua:"), "%s",
                      g->script_err);
    }
    game_free(g);
    script_vm_free(vm);
    content_free(c);
}
END_TEST

/* A level with a region of the given kind name, or -1 (tries seeds). */
static int region_of_kind(game_t *g, level_t *lv, const char *name)
{
    for (int i = 0; i < lv->nregions; i++) {
        int k = lv->regions[i].kind;
        if (k >= 0 && strcmp(g->c->regions[k].name, name) == 0)
            return i;
    }
    return -1;
}

static game_t *game_with_region(const content_t *c, const char *name, int depth, int *region)
{
    for (uint64_t seed = 1; seed < 400; seed++) {
        game_t *g = started(game_new(c, seed, NULL));
        level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, depth);
        ck_assert_ptr_nonnull(lv);
        ck_assert_int_eq(level_generate(g, lv), 0);
        int r = region_of_kind(g, lv, name);
        if (r >= 0) {
            level_free(g, g->levels[1]);
            g->levels[1] = lv; /* play it as level 1 */
            lv->depth = 1;
            *region = r;
            return g;
        }
        level_free(g, lv);
        game_free(g);
    }
    ck_abort_msg("no %s in 400 seeds", name);
    return NULL;
}

/* Moves the player (and only the player) to a cell of region r. */
static bool put_player_in(game_t *g, int r, int *px, int *py)
{
    level_t *lv = level_current(g);
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++)
            if (lv->region[y * lv->w + x] == r + 1 && level_terrain(lv, x, y) == MAP_FLOOR &&
                !level_creature_at(g, 1, x, y)) {
                obj_t *p = reg_get(&g->reg, g->player);
                p->x = (int16_t)x, p->y = (int16_t)y;
                reg_refile(&g->reg, g->player);
                *px = x, *py = y;
                return true;
            }
    return false;
}

/* Region kinds name the status line, and a dark one cuts sight to the
 * next cell while a lit room is seen whole from its doorway. */
START_TEST(dark_regions_and_names)
{
    int r, x, y;
    game_t *g = game_with_region(C, "a dark crypt", 8, &r);
    clear_monsters(g);
    ck_assert(put_player_in(g, r, &x, &y));
    vision_update(g);
    level_t *lv = level_current(g);
    int far = 0;
    for (int yy = 0; yy < lv->h; yy++)
        for (int xx = 0; xx < lv->w; xx++)
            if (level_visible(lv, xx, yy)) {
                int dx = xx - x, dy = yy - y;
                far += dx * dx + dy * dy > 2;
            }
    ck_assert_int_eq(far, 0);
    screen_t *s = screen_new(100, 30);
    game_render(g, s, NULL);
    char line[128] = "";
    for (int i = 0; i < 100 && i < (int)sizeof line - 1; i++)
        line[i] = (char)s->cells[(s->h - 2) * s->w + i].ch;
    ck_assert_msg(strstr(line, "a dark crypt"), "status: %s", line);
    screen_free(s);
    game_free(g);
}
END_TEST

/* Past the torch's radius only lit cells are seen; lit rooms are seen
 * from afar (some player spot shows cells beyond the radius). */
START_TEST(lit_rooms_seen_from_afar)
{
    game_t *g = started(game_new(C, 11, NULL));
    clear_monsters(g);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    int spots = 0, with_far = 0;
    for (int y = 0; y < lv->h; y += 2)
        for (int x = 0; x < lv->w; x += 2) {
            if (!level_passable(g, lv, x, y))
                continue;
            p->x = (int16_t)x, p->y = (int16_t)y;
            reg_refile(&g->reg, g->player);
            vision_update(g);
            int beyond = 0;
            spots++;
            for (int yy = 0; yy < lv->h; yy++)
                for (int xx = 0; xx < lv->w; xx++) {
                    if (!level_visible(lv, xx, yy) || fov_in_radius(xx - x, yy - y, LIGHT_RADIUS))
                        continue;
                    ck_assert_msg(lv->lit[yy * lv->w + xx], "unlit cell %d,%d seen from %d,%d", xx,
                                  yy, x, y);
                    beyond++;
                }
            with_far += beyond > 0;
        }
    ck_assert_int_gt(spots, 50);
    ck_assert_int_gt(with_far, 0);
    game_free(g);
}
END_TEST

/* On a slippery floor some steps slide one cell further, not all. */
START_TEST(slippery_floor_slides)
{
    int r, x, y, slid = 0, plain = 0;
    game_t *g = game_with_region(C, "a flooded hall", 10, &r);
    clear_monsters(g);
    level_t *lv = level_current(g);
    ck_assert(put_player_in(g, r, &x, &y));
    /* a row of three floor cells of the region, starting at the player's */
    int found = 0;
    for (int yy = 0; yy < lv->h && !found; yy++)
        for (int xx = 0; xx + 2 < lv->w && !found; xx++) {
            int ok = 1;
            for (int k = 0; k < 3; k++)
                ok &= lv->region[yy * lv->w + xx + k] == r + 1 && level_passable(g, lv, xx + k, yy);
            if (ok)
                x = xx, y = yy, found = 1;
        }
    ck_assert(found);
    obj_t *p = reg_get(&g->reg, g->player);
    for (int i = 0; i < 200; i++) {
        p = reg_get(&g->reg, g->player);
        p->x = (int16_t)x, p->y = (int16_t)y;
        reg_refile(&g->reg, g->player);
        ck_assert_int_gt(creature_step(g, g->player, 1, 0), 0);
        p = reg_get(&g->reg, g->player);
        if (p->x >= x + 2 && p->y == y)
            slid++; /* a slide may go on sliding */
        else if (p->x == x + 1 && p->y == y)
            plain++;
        else
            ck_abort_msg("moved to %d from %d", p->x, x);
    }
    ck_assert_int_gt(slid, 20);
    ck_assert_int_gt(plain, 100);
    game_free(g);
}
END_TEST

/* A run over a slick floor slides on as NetHack's over ice: a slide says
 * so but does not stop it, so each run crosses a room to its far wall. */
START_TEST(runs_slide_on_over_slick_floors)
{
    int r, x, y, slides = 0;
    game_t *g = game_with_region(C, "a flooded hall", 10, &r);
    clear_monsters(g);
    ck_assert(put_player_in(g, r, &x, &y));
    open_room(g, 5);
    level_t *lv = level_current(g);
    obj_t *p = reg_get(&g->reg, g->player);
    int cx = p->x, cy = p->y;
    for (int yy = cy - 5; yy <= cy + 5; yy++)
        for (int xx = cx - 5; xx <= cx + 5; xx++)
            lv->region[yy * lv->w + xx] = (uint8_t)(r + 1);
    level_regions_changed(lv);
    for (int i = 0; i < 20; i++) {
        p = reg_get(&g->reg, g->player);
        p->x = (int16_t)(cx - 5), p->y = (int16_t)cy;
        reg_refile(&g->reg, g->player);
        vision_update(g);
        msg_add(g, "Run %d.", i); /* a slide's line folds into one before it */
        uint32_t from = g->nmsg;
        keys_paged(g, "L");
        slides += said_since(g, from, "slide on the slick floor");
        p = reg_get(&g->reg, g->player);
        ck_assert_msg(p->x == cx + 5 && p->y == cy, "run %d stopped at %d,%d (wall at %d): %s", i,
                      p->x - cx, p->y - cy, 5, last_msg(g));
    }
    ck_assert_int_gt(slides, 5);
    game_free(g);
}
END_TEST

static void render_line(game_t *g, screen_t *s, int row, char *out, size_t n)
{
    game_render(g, s, NULL);
    size_t i = 0;
    for (; i + 1 < n && (int)i < s->w; i++)
        out[i] = (char)s->cells[row * s->w + i].ch;
    out[i] = 0;
}

/* Messages that overflow the line wait behind --More--; keys page them
 * without acting; Ctrl-P shows the history; the help line cycles. */
START_TEST(more_history_and_help_line)
{
    game_t *g = started(game_new(C, 5, NULL));
    clear_monsters(g);
    screen_t *s = screen_new(120, 30);
    char line[256];
    game_input(g, NULL, (key_event_t){'.', 0});
    for (int i = 0; i < 5; i++)
        msg_add(g, "Message number %d is long enough to need its own part of the line.", i);
    msg_after_input(g);
    ck_assert_int_eq(g->prompt, PROMPT_MORE);
    render_line(g, s, 0, line, sizeof line);
    ck_assert_msg(strstr(line, "Message number 0") && strstr(line, "--More--"), "%s", line);
    ck_assert_msg(!strstr(line, "Message number 4"), "%s", line);
    const obj_t *p = reg_get(&g->reg, g->player);
    int x = p->x, y = p->y, pages = 0;
    uint64_t now = g->sched.now;
    while (g->prompt == PROMPT_MORE && pages < 10) {
        game_input(g, NULL, (key_event_t){'l', 0});
        pages++;
    }
    ck_assert_int_ge(pages, 2);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    render_line(g, s, 0, line, sizeof line);
    ck_assert_msg(strstr(line, "Message number 4") && !strstr(line, "--More--"), "%s", line);
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->x, x); /* paging keys did not move or spend time */
    ck_assert_int_eq(p->y, y);
    ck_assert_uint_eq(g->sched.now, now);
    game_input(g, NULL, (key_event_t){0x10, 0}); /* Ctrl-P */
    ck_assert_int_eq(g->prompt, PROMPT_HISTORY);
    game_render(g, s, NULL);
    int found = 0;
    for (int row = 0; row < s->h; row++) {
        render_line(g, s, row, line, sizeof line);
        found += strstr(line, "Message number") != NULL;
        if (row == 0)
            ck_assert_msg(strstr(line, "Message history"), "%s", line);
    }
    ck_assert_int_eq(found, 5);
    game_input(g, NULL, (key_event_t){'l', 0});
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    ck_assert_uint_eq(g->sched.now, now);
    /* the help line turns with the host's idle clock, not keys or turns:
     * with each idle count it moves on, and in time it lists every command */
    size_t n;
    const cmd_t *t = cmd_table(&n);
    char before[256];
    render_line(g, s, s->h - 1, before, sizeof before);
    game_input(g, NULL, (key_event_t){'i', 0}); /* the inventory: no time */
    game_input(g, NULL, (key_event_t){27, 0});
    ck_assert_uint_eq(g->sched.now, now);
    render_line(g, s, s->h - 1, line, sizeof line);
    ck_assert_str_eq(line, before);
    for (uint32_t tick = 0; tick < n; tick++) {
        game_view_t v = {.hint_tick = tick};
        game_render(g, s, &v);
        size_t first = tick % n, i = 0;
        for (; i < sizeof line - 1 && (int)i < s->w; i++)
            line[i] = (char)s->cells[(s->h - 1) * s->w + (int)i].ch;
        line[i] = 0;
        ck_assert_msg(strncmp(line, t[first].label, strlen(t[first].label)) == 0, "%s", line);
        ck_assert_uint_eq(help_line_first(&v), first);
    }
    uint64_t turn0 = g->sched.now / SCHED_MOVE;
    game_view_t v = {.hint_tick = 3};
    render_line(g, s, s->h - 1, before, sizeof before);
    for (int i = 0; i < 60 && g->state == GAME_RUNNING; i++) { /* turns pass: the line stays */
        game_input(g, NULL, (key_event_t){'.', 0});
        render_line(g, s, s->h - 1, line, sizeof line);
        ck_assert_str_eq(line, before);
        ck_assert_uint_eq(help_line_first(&v), 3 % n);
    }
    ck_assert_uint_ge(g->sched.now / SCHED_MOVE, turn0 + 50);
    screen_free(s);
    game_free(g);
}
END_TEST

/* The status line never overflows: with a long name the watcher count
 * keeps its own whole cell at the right end, the race and place give way
 * and the turn stays; with the longest name, hit points still show. */
START_TEST(status_line_fits_with_watchers)
{
    game_t *g = started(game_new(C, 5, NULL));
    screen_t *s = screen_new(80, 24);
    game_view_t v = {.watchers = 12, .turns = true};
    char line[81];
    const char *names[] = {"Abcdefghijklmnopqrst", "Abcdefghijklmnopqrstuvwxyzabcde"};
    for (int k = 0; k < 2; k++) {
        snprintf(g->name, sizeof g->name, "%s", names[k]);
        game_render(g, s, &v);
        for (int i = 0; i < 80; i++)
            line[i] = (char)(s->cells[22 * 80 + i].ch ? s->cells[22 * 80 + i].ch : ' ');
        line[80] = 0;
        ck_assert_msg(strncmp(line, names[k], strlen(names[k])) == 0, "%s", line);
        ck_assert_msg(strstr(line, "HP ") != NULL, "%s", line);
        ck_assert_msg(k == 1 || strstr(line, "Turn ") != NULL, "%s", line);
        ck_assert_msg(strcmp(line + 80 - 14, " [12 watching]") == 0, "%s", line);
    }
    v.turns = false; /* the counter is the player's option */
    game_render(g, s, &v);
    for (int i = 0; i < 80; i++)
        line[i] = (char)(s->cells[22 * 80 + i].ch ? s->cells[22 * 80 + i].ch : ' ');
    ck_assert_msg(strstr(line, "HP ") != NULL && strstr(line, "Turn") == NULL, "%s", line);
    screen_free(s);
    game_free(g);
}
END_TEST

/* The same game played with the tiles two cells wide: same state, wider map. */
START_TEST(two_cell_tiles)
{
    game_t *g = started(game_new(C, 5, NULL));
    screen_t *s = screen_new(160, 40);
    game_view_t v = {0, true};
    uint64_t h = game_hash(g);
    game_render(g, s, &v);
    ck_assert_uint_eq(game_hash(g), h);
    ck_assert(s->cur_visible);
    ck_assert_int_eq(s->cur_x % 2, 0);
    ck_assert_uint_eq(s->cells[s->cur_y * s->w + s->cur_x].ch, '@');
    ck_assert_uint_eq(s->cells[s->cur_y * s->w + s->cur_x + 1].ch, ' ');
    /* the cell two columns right is the next map tile (seen: lit by the torch) */
    ck_assert_uint_ne(s->cells[s->cur_y * s->w + s->cur_x + 2].ch, 0);
    screen_free(s);
    game_free(g);
}
END_TEST

Suite *suite_game_rules(void)
{
    Suite *s = suite_create("game_rules");
    TCase *t = tcase_create("core");
    with_shipped_content(t);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, flesh_golem_through_the_chain);
    tcase_add_test(t, status_line_fits_with_watchers);
    tcase_add_test(t, wand_bolts_carry_their_damage_type);
    tcase_add_test(t, handler_error_is_contained);
    tcase_add_test(t, dark_regions_and_names);
    tcase_add_test(t, lit_rooms_seen_from_afar);
    tcase_add_test(t, slippery_floor_slides);
    tcase_add_test(t, runs_slide_on_over_slick_floors);
    tcase_add_test(t, more_history_and_help_line);
    tcase_add_test(t, two_cell_tiles);
    suite_add_tcase(s, t);
    return s;
}
