/* Unit tests: what must not be confused on the map stays apart in every
 * glyph set a terminal gets (Unicode; UTF-8 with few glyphs; a VT100's
 * ASCII with DEC graphics; plain ASCII), as the ANSI encoder sends it:
 * a newt and rubble, shallow water, deep water and lava by their glyphs
 * alone; the player and every keeper by glyph, colour or weight, with
 * colours or without. */
#include <check.h>
#include <string.h>
#include "ansi.h"
#include "buf.h"
#include "content.h"
#include "helpers.h"
#include "mapgen.h"
#include "screen.h"

static const char *const TERMS[] = {"xterm-256color", "xterm", "vt100", "ascii"};

/* The bytes a terminal of profile p gets for a screen of one cell. */
static void one_cell(const ansi_profile_t *p, uint32_t ch, style_t st, buf_t *out)
{
    screen_t *s = screen_new(1, 1);
    screen_put(s, 0, 0, ch, st);
    buf_init(out);
    ansi_keyframe(p, s, out);
    screen_free(s);
}

static bool same_bytes(const ansi_profile_t *p, uint32_t a, style_t sa, uint32_t b, style_t sb)
{
    buf_t x, y;
    one_cell(p, a, sa, &x);
    one_cell(p, b, sb, &y);
    bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    buf_free(&x);
    buf_free(&y);
    return same;
}

static uint32_t terrain_glyph(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_terrain; i++)
        if (!strcmp(c->terrain[i].name, name))
            return c->terrain[i].glyph;
    ck_abort_msg("no terrain %s", name);
    return 0;
}

START_TEST(liquids_and_rubble_apart_in_every_glyph_set)
{
    uint32_t newt = C->creatures[kind_named(C, "giant newt")].glyph;
    const struct {
        const char *a, *b;
        uint32_t ga, gb;
    } PAIRS[] = {
        {"giant newt", "rubble", newt, terrain_glyph(C, "rubble")},
        {"shallow water", "deep water", terrain_glyph(C, "shallow water"),
         terrain_glyph(C, "deep water")},
        {"shallow water", "lava", terrain_glyph(C, "shallow water"), terrain_glyph(C, "lava")},
        {"deep water", "lava", terrain_glyph(C, "deep water"), terrain_glyph(C, "lava")},
    };
    for (size_t t = 0; t < sizeof TERMS / sizeof TERMS[0]; t++) {
        ansi_profile_t p;
        ansi_profile_for_term(&p, TERMS[t]);
        for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
            ck_assert_msg(!same_bytes(&p, PAIRS[i].ga, STYLE_DEFAULT, PAIRS[i].gb, STYLE_DEFAULT),
                          "%s: %s and %s look the same", TERMS[t], PAIRS[i].a, PAIRS[i].b);
    }
}
END_TEST

/* The player is drawn bold in its colour (render.c), keepers in theirs:
 * with colours, apart by glyph or colour even at the same weight; without,
 * by weight. */
START_TEST(player_and_keepers_apart_in_every_glyph_set)
{
    const creature_kind_t *you = &C->creatures[kind_named(C, "you")];
    style_t ps = {you->fg, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int keepers = 0;
    for (size_t t = 0; t < sizeof TERMS / sizeof TERMS[0]; t++)
        for (int colours = 0; colours < 2; colours++) {
            ansi_profile_t p;
            ansi_profile_for_term(&p, TERMS[t]);
            if (!colours)
                p.colors = ANSI_COLORS_NONE;
            for (int i = 0; i < C->n_creatures; i++) {
                const creature_kind_t *k = &C->creatures[i];
                if (!(k->flags & CF_PEACEFUL))
                    continue;
                keepers++;
                style_t ks = {k->fg, SCREEN_DEFAULT_COLOR, colours ? ATTR_BOLD : 0};
                ck_assert_msg(!same_bytes(&p, you->glyph, ps, k->glyph, ks),
                              "%s%s: the %s looks like the player", TERMS[t],
                              colours ? "" : " without colours", k->name);
            }
        }
    ck_assert_int_ge(keepers, 5 * 8);
}
END_TEST

Suite *suite_game_glyphs(void)
{
    Suite *s = suite_create("game_glyphs");
    TCase *t = tcase_create("glyphs");
    with_shipped_content(t);
    tcase_add_test(t, liquids_and_rubble_apart_in_every_glyph_set);
    tcase_add_test(t, player_and_keepers_apart_in_every_glyph_set);
    suite_add_tcase(s, t);
    return s;
}
