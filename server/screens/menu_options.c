/* menu_options — the account's options (options.h), one table of rows
 * {key, label, value, next}: each key steps its option through its
 * choices and stores them with the account. Also how a conn's terminal
 * profile follows its terminal type and those options. */
#include "menu_impl.h"
#include "options.h"

void menu_apply_profile(conn_t *c)
{
    menu_state_t *m = c->menu;
    ansi_profile_for_term(&c->prof, c->term[0] ? c->term : NULL);
    if (COLOUR_MODES[m->colors].colors >= 0)
        c->prof.colors = (ansi_colors_t)COLOUR_MODES[m->colors].colors;
    const glyph_set_t *g = &GLYPH_SETS[m->glyphs];
    if (g->utf8 >= 0) {
        c->prof.utf8 = g->utf8;
        c->prof.fallbacks = g->fallbacks;
        c->prof.dec_graphics = g->dec_graphics;
    }
    c->prof_id = ansi_profile_id(&c->prof);
}

void menu_options_apply(conn_t *c, const char *opts)
{
    account_options_t o;
    account_options_parse(opts, &o);
    c->two_cell = o.two_cell;
    c->turns = o.turns;
    c->menu->colors = o.colors;
    c->menu->glyphs = o.glyphs;
    menu_apply_profile(c);
}

static void options_save(conn_t *c)
{
    char opts[96];
    account_options_t o = {c->two_cell, c->turns, c->menu->colors, c->menu->glyphs};
    account_options_format(&o, opts, sizeof opts);
    db_user_set_options(c->srv->db, c->user_id, opts, NULL, NULL);
    menu_options_apply(c, opts);
}

static void two_cell_value(const conn_t *c, char *out, size_t n)
{
    snprintf(out, n, "%s", c->two_cell ? "on" : "off");
}

static void two_cell_next(conn_t *c)
{
    c->two_cell = !c->two_cell;
}

static void turns_value(const conn_t *c, char *out, size_t n)
{
    snprintf(out, n, "%s", c->turns ? "on" : "off");
}

static void turns_next(conn_t *c)
{
    c->turns = !c->turns;
}

static void colours_value(const conn_t *c, char *out, size_t n)
{
    uint8_t i = c->menu->colors;
    ansi_profile_t term;
    ansi_profile_for_term(&term, c->term[0] ? c->term : NULL);
    snprintf(out, n, "%s%s", COLOUR_MODES[i].label,
             i                               ? ""
             : term.colors == ANSI_COLORS_16 ? " (16)"
                                             : " (256)");
}

static void colours_next(conn_t *c)
{
    c->menu->colors = (uint8_t)((c->menu->colors + 1) % NCOLOUR_MODES);
}

static void glyphs_value(const conn_t *c, char *out, size_t n)
{
    snprintf(out, n, "%s", GLYPH_SETS[c->menu->glyphs].label);
}

static void glyphs_next(conn_t *c)
{
    c->menu->glyphs = (uint8_t)((c->menu->glyphs + 1) % NGLYPH_SETS);
}

/* One row of the options menu: its key and label, its value now, and the
 * next value (each key steps through the choices). */
typedef struct {
    char key;
    const char *label;
    void (*value)(const conn_t *c, char *out, size_t n);
    void (*next)(conn_t *c);
} option_item_t;

static const option_item_t options_menu[] = {
    {'t', "Two-cell map tiles", two_cell_value, two_cell_next},
    {'c', "Colours", colours_value, colours_next},
    {'g', "Map glyphs", glyphs_value, glyphs_next},
    {'n', "Turn counter", turns_value, turns_next},
};

#define OPTION_ITEMS (sizeof options_menu / sizeof options_menu[0])

static void draw_options(conn_t *c, screen_t *scr)
{
    screen_text(scr, 2, 1, ST_TITLE, "Options");
    screen_text(scr, 2, 3, STYLE_DEFAULT,
                "Keys: vi keys (hjklyubn), arrows and the keypad all move.");
    for (size_t i = 0; i < OPTION_ITEMS; i++) {
        char value[80];
        options_menu[i].value(c, value, sizeof value);
        menu_draw_item(scr, 5 + (int)i, options_menu[i].key, options_menu[i].label, value);
    }
    menu_draw_item(scr, 6 + (int)OPTION_ITEMS, 'q', "Back", NULL);
    screen_cursor(scr, 0, 0, false);
}

static void options_key(conn_t *c, key_event_t k)
{
    if (k.code == 'q' || k.code == KEY_ESC || k.code == KEY_ENTER) {
        conn_menu(c, NULL);
        return;
    }
    for (size_t i = 0; i < OPTION_ITEMS; i++)
        if (k.code == (uint32_t)options_menu[i].key) {
            options_menu[i].next(c);
            options_save(c);
            c->shown_valid = false; /* colours or glyphs changed: redraw all */
            menu_redraw(c);
            return;
        }
}

void menu_open_options(conn_t *c)
{
    menu_show(c, MENU_OPTIONS);
    menu_redraw(c);
}

const menu_screen_t menu_screen_options = {draw_options, options_key};
