/* worldui — the world-map screen (see worldui.h). Laid out for 80x24: the
 * map at the left under a title, the territories at the right, the
 * symbols and the way back below; larger screens show the same. */
#include "worldui.h"
#include <stdio.h>
#include "prompt.h"
#include "world.h"
#include "worldmap.h"

/* territory colours (256-colour palette indices of the 16 base ones) */
static const uint16_t TERR_FG[WORLD_TERR_MAX] = {2, 3, 5,  10, 11, 13, 9, 1,
                                                 7, 6, 12, 14, 15, 8,  4, 3};

int worldui_open(game_t *g)
{
    g->prompt = PROMPT_WORLD;
    return 0;
}

int worldui_key(game_t *g, key_event_t k)
{
    (void)k;
    g->prompt = PROMPT_NONE;
    return 0;
}

static void draw_cell(const worldmap_t *w, screen_t *s, int x, int y, int top)
{
    char ch = worldmap_glyph(w, x, y, 0);
    int c = y * w->w + x;
    style_t st = {TERR_FG[w->terr[c] ? (w->terr[c] - 1) % WORLD_TERR_MAX : 0], SCREEN_DEFAULT_COLOR,
                  0};
    if (ch == '~' || ch == ':')
        st.fg = w->kind[c] == WM_LAKE ? 12 : ch == ':' ? 6 : 4;
    else if (ch == '*' || ch == '@')
        st = (style_t){ch == '@' ? 11 : 15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    else if (w->river[c])
        st.fg = 14;
    screen_put(s, x, top + y, (uint32_t)ch, st);
}

static void draw_map(const worldmap_t *w, screen_t *s, int top)
{
    for (int y = 0; y < w->h; y++)
        for (int x = 0; x < w->w; x++)
            draw_cell(w, s, x, y, top);
    /* each territory's letter where it grew from, unless a town or river is there */
    for (int t = 0; t < w->n_terrs; t++) {
        const worldmap_territory_t *tr = &w->terrs[t];
        char ch = worldmap_glyph(w, tr->x, tr->y, 0);
        if (ch == '.' || ch == '^')
            screen_put(s, tr->x, top + tr->y, (uint32_t)('A' + t),
                       (style_t){TERR_FG[t], SCREEN_DEFAULT_COLOR, ATTR_BOLD});
    }
}

/* Each territory's dungeon entrance (atlas.h), where the overland has it. */
static void draw_entrances(const game_t *g, screen_t *s, int top)
{
    const atlas_table_t *t = g->atlas.t;
    for (int i = 0; t && i < t->n_terrs; i++)
        if (t->terrs[i].levels)
            screen_put(s, t->terrs[i].ex, top + t->terrs[i].ey, '>',
                       (style_t){9, SCREEN_DEFAULT_COLOR, ATTR_BOLD});
}

static void draw_legend(const worldmap_t *w, screen_t *s, int x, int top)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_text(s, x, top, hi, "Territories");
    for (int t = 0; t < w->n_terrs; t++)
        screen_textf(s, x, top + 1 + t, (style_t){TERR_FG[t], SCREEN_DEFAULT_COLOR, 0}, "%c %s",
                     'A' + t, w->terrs[t].name);
    int y = top + 2 + w->n_terrs;
    screen_textf(s, x, y++, STYLE_DEFAULT, "%d towns, %d rivers", w->n_towns, w->n_rivers);
    screen_text(s, x, y++, STYLE_DEFAULT, ". land  ^ hills");
    screen_text(s, x, y++, STYLE_DEFAULT, "~ sea, lakes");
    screen_text(s, x, y++, STYLE_DEFAULT, ": sea route");
    screen_text(s, x, y++, STYLE_DEFAULT, "-|/\\ river");
    screen_text(s, x, y++, STYLE_DEFAULT, "* town  @ yours");
    screen_text(s, x, y, STYLE_DEFAULT, "> a dungeon");
}

void worldui_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    char err[96];
    worldmap_t *w = worldmap_new(g->c, g->seed, err, sizeof err);
    if (!w) {
        screen_textf(s, 0, 0, hi, "No world map: %s.", err);
        screen_text(s, 0, s->h - 1, hi, "Any key returns.");
        return;
    }
    atlas_need(g); /* derived, never saved: the entrances come from it */
    const worldmap_town_t *home = &w->towns[w->home];
    screen_textf(s, 0, 0, hi, "The continent of %s. Your town: %s, in %s.", w->name, home->name,
                 w->terrs[home->territory].name);
    draw_map(w, s, 1);
    draw_entrances(g, s, 1);
    draw_legend(w, s, w->w + 2, 1);
    screen_text(s, 0, s->h - 1, hi, "Any key returns.");
    worldmap_free(w);
}
