/* menu — what a connection shows outside a game: the main menus, the Name:
 * and Password: prompts, scores, options and the list of live games. Every
 * screen is drawn into the connection's grid and sent as an ANSI diff, like
 * game frames. Account checks run on the thread pool (accounts.h); while
 * one is out the connection is in MODE_WAIT and keys are ignored. */
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "log.h"
#include "server.h"
#include "json.h"

#define STY(fg, a) ((style_t){(fg), SCREEN_DEFAULT_COLOR, (a)})
#define WL_ROWS    15

static const style_t st_title = {14, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_key = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_msg = {9, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_dim = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_DIM};

static int menu_ensure_screens(conn_t *c)
{
    int w = c->too_small ? (c->raw_w > 0 ? c->raw_w : 1) : c->w;
    int h = c->too_small ? (c->raw_h > 0 ? c->raw_h : 1) : c->h;
    if (w > TERM_MAX_W)
        w = TERM_MAX_W;
    if (h > TERM_MAX_H)
        h = TERM_MAX_H;
    if (!c->scr && !(c->scr = screen_new(w, h)))
        return -1;
    if (!c->shown && !(c->shown = screen_new(w, h)))
        return -1;
    if (c->scr->w != w || c->scr->h != h) {
        if (screen_resize(c->scr, w, h))
            return -1;
        c->shown_valid = false;
    }
    return 0;
}

void screen_send_diff(conn_t *c)
{
    server_t *s = c->srv;
    if (!conn_writable(c)) {
        c->need_key = true; /* redrawn in full once the queue drains */
        return;
    }
    buf_reset(&s->scratch);
    bool key =
        !c->shown_valid || c->need_key || c->shown->w != c->scr->w || c->shown->h != c->scr->h;
    if (c->json)
        json_frame(key ? NULL : c->shown, c->scr, c->sess ? c->sess->frame_seq : 0, &s->scratch);
    else if (key)
        ansi_keyframe(&c->prof, c->scr, &s->scratch);
    else
        ansi_diff(&c->prof, c->shown, c->scr, &s->scratch);
    c->need_key = false;
    if (c->json)
        conn_write_text(c, s->scratch.data, s->scratch.len);
    else
        conn_write(c, s->scratch.data, s->scratch.len);
    screen_copy(c->shown, c->scr);
    screen_clean(c->scr);
    c->shown_valid = true;
}

/* Terminal below 80x24: a message drawn at the size it has. */
static void draw_too_small(conn_t *c, screen_t *scr)
{
    static const char *const words[] = {"Please", "enlarge", "your",   "terminal", "to",
                                        "at",     "least",   "80x24.", NULL};
    char size[32];
    snprintf(size, sizeof size, "(now %dx%d)", c->raw_w, c->raw_h);
    int x = 0, y = 0;
    for (int i = 0; words[i] || size[0]; i++) {
        const char *wd = words[i] ? words[i] : size;
        int n = (int)strlen(wd);
        if (x > 0 && x + n > scr->w)
            x = 0, y++;
        screen_text(scr, x, y, st_msg, wd);
        x += n + 1;
        if (!words[i])
            break;
    }
    screen_cursor(scr, 0, 0, false);
}

static void draw_header(conn_t *c, screen_t *scr)
{
    screen_text(scr, 2, 1, st_title, "Warren");
    screen_text(scr, 9, 1, STYLE_DEFAULT, "- a roguelike host");
    if (c->user_id)
        screen_textf(scr, 2, 3, STYLE_DEFAULT, "Logged in as %s.", c->user);
    else
        screen_text(scr, 2, 3, STYLE_DEFAULT, "Not logged in.");
}

static void draw_items(screen_t *scr, int y, const char *const *items)
{
    for (int i = 0; items[i]; i++) {
        screen_put(scr, 4, y + i, (unsigned char)items[i][0], st_key);
        screen_text(scr, 5, y + i, STYLE_DEFAULT, items[i] + 1);
    }
}

static const char *const anon_items[] = {"l) Log in",      "r) Register", "w) Watch games",
                                         "s) High scores", "q) Quit",     NULL};
static const char *const user_items[] = {"p) Play (new game or resume)",
                                         "w) Watch games",
                                         "c) Change password",
                                         "o) Options",
                                         "s) High scores",
                                         "q) Quit",
                                         NULL};

static void draw_main(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    const char *const *items = c->user_id ? user_items : anon_items;
    draw_items(scr, 5, items);
    int n = 0;
    while (items[n])
        n++;
    if (c->msg[0])
        screen_text(scr, 2, 6 + n, st_msg, c->msg);
    screen_text(scr, 2, 8 + n, STYLE_DEFAULT, "Your choice: ");
    screen_cursor(scr, 15, 8 + n, true);
}

static const char *prompt_label(prompt_t p)
{
    static const char *const labels[] = {
        [PROMPT_LOGIN_NAME] = "Name: ",
        [PROMPT_LOGIN_PASS] = "Password: ",
        [PROMPT_REG_NAME] = "Name: ",
        [PROMPT_REG_PASS] = "Password: ",
        [PROMPT_REG_PASS2] = "Password again: ",
        [PROMPT_CHPW_OLD] = "Old password: ",
        [PROMPT_CHPW_NEW] = "New password: ",
        [PROMPT_CHPW_NEW2] = "New password again: ",
    };
    return labels[p];
}

static bool prompt_secret(prompt_t p)
{
    return p != PROMPT_LOGIN_NAME && p != PROMPT_REG_NAME;
}

static void draw_prompt(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    static const char *const titles[] = {
        [PROMPT_LOGIN_NAME] = "Log in",        [PROMPT_LOGIN_PASS] = "Log in",
        [PROMPT_REG_NAME] = "Register",        [PROMPT_REG_PASS] = "Register",
        [PROMPT_REG_PASS2] = "Register",       [PROMPT_CHPW_OLD] = "Change password",
        [PROMPT_CHPW_NEW] = "Change password", [PROMPT_CHPW_NEW2] = "Change password",
    };
    screen_text(scr, 2, 5, st_title, titles[c->prompt]);
    if (c->prompt == PROMPT_REG_NAME)
        screen_text(scr, 2, 6, st_dim, "2-20 letters, digits, _ or -. Esc cancels.");
    else if (c->prompt == PROMPT_REG_PASS || c->prompt == PROMPT_CHPW_NEW)
        screen_text(scr, 2, 6, st_dim, "8-128 characters. Esc cancels.");
    else
        screen_text(scr, 2, 6, st_dim, "Esc cancels.");
    if (c->msg[0])
        screen_text(scr, 2, 10, st_msg, c->msg);
    int x = screen_text(scr, 2, 8, STYLE_DEFAULT, prompt_label(c->prompt));
    if (!prompt_secret(c->prompt))
        x = screen_text(scr, x, 8, st_key, c->line);
    screen_cursor(scr, x, 8, true);
}

static void draw_message(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    screen_text(scr, 2, 5, st_msg, c->msg);
    screen_text(scr, 2, 7, st_dim, "Press any key.");
    screen_cursor(scr, 0, 0, false);
}

static void draw_wait(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    screen_text(scr, 2, 5, STYLE_DEFAULT, "One moment...");
    screen_cursor(scr, 0, 0, false);
}

/* ---- watch list -------------------------------------------------------------- */

typedef struct {
    session_t *s;
    game_status_t st;
} wl_row_t;

static const char *const sort_names[] = {"player", "depth", "turn", "idle", "watchers"};
#define NSORTS 5

static int wl_cmp_key(const wl_row_t *a, const wl_row_t *b, int key)
{
    switch (key) {
    case 1: return (b->st.depth > a->st.depth) - (b->st.depth < a->st.depth);
    case 2: return (b->st.turn > a->st.turn) - (b->st.turn < a->st.turn);
    case 3:
        return (b->s->last_key_ms > a->s->last_key_ms) - (b->s->last_key_ms < a->s->last_key_ms);
    case 4: return b->s->nwatchers - a->s->nwatchers;
    default: return strcmp(a->s->user, b->s->user);
    }
}

static int wl_cmp(const void *pa, const void *pb, void *key)
{
    const wl_row_t *a = pa, *b = pb;
    int r = wl_cmp_key(a, b, *(int *)key);
    return r ? r : strcmp(a->s->user, b->s->user);
}

/* Live games with a player attached or recently active, sorted. */
static size_t wl_collect(conn_t *c, wl_row_t **out)
{
    server_t *srv = c->srv;
    wl_row_t *rows = calloc((size_t)srv->nsessions + 1, sizeof *rows);
    size_t n = 0;
    LIST_EACH(it, &srv->sessions)
    {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (!rows)
            break;
        if (s->ended || s->broken || !s->game)
            continue;
        rows[n].s = s;
        game_status(s->game, &rows[n].st);
        n++;
    }
    if (rows)
        qsort_r(rows, n, sizeof *rows, wl_cmp, &c->wl_sort);
    *out = rows;
    return rows ? n : 0;
}

static char wl_letter(int i)
{
    return (char)('a' + i + (i >= 'q' - 'a')); /* skip q: it leaves */
}

static void draw_watchlist(conn_t *c, screen_t *scr)
{
    wl_row_t *rows;
    size_t n = wl_collect(c, &rows);
    int pages = (int)((n + WL_ROWS - 1) / WL_ROWS);
    if (c->wl_page >= pages)
        c->wl_page = pages ? pages - 1 : 0;
    screen_text(scr, 2, 1, st_title, "Live games");
    screen_textf(scr, 16, 1, st_dim, "%zu playing, sorted by %s, page %d/%d", n,
                 sort_names[c->wl_sort], c->wl_page + 1, pages ? pages : 1);
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                "   Player               Race/class       Depth    Turn   Idle  Watch  Term");
    uint64_t now = now_ms(c->srv);
    for (int i = 0; i < WL_ROWS; i++) {
        size_t k = (size_t)c->wl_page * WL_ROWS + (size_t)i;
        if (k >= n)
            break;
        wl_row_t *r = &rows[k];
        uint64_t idle = (now - r->s->last_key_ms) / 1000;
        char rc[40], term[16];
        snprintf(rc, sizeof rc, "%s %s", r->st.race, r->st.cls);
        if (r->s->player)
            snprintf(term, sizeof term, "%dx%d", r->s->grid->w, r->s->grid->h);
        else
            snprintf(term, sizeof term, "detached");
        screen_put(scr, 2, 4 + i, (uint32_t)wl_letter(i), st_key);
        screen_textf(scr, 3, 4 + i, STYLE_DEFAULT, ") %-20.20s %-16.16s %5d %7llu %5llum %6d  %s",
                     r->s->user, rc, r->st.depth, (unsigned long long)r->st.turn,
                     (unsigned long long)(idle / 60), r->s->nwatchers, term);
    }
    if (n == 0)
        screen_text(scr, 5, 5, st_dim, "Nobody is playing right now.");
    screen_text(scr, 2, 5 + WL_ROWS, st_dim,
                "Letter: watch   > next page   < previous page   . sort   q back");
    screen_cursor(scr, 0, 0, false);
    free(rows);
}

static void watchlist_key(conn_t *c, key_event_t k)
{
    if (k.code == 'q' || k.code == KEY_ESC) {
        menu_enter(c, NULL);
        return;
    }
    if (k.code == '>' || k.code == KEY_PGDN || k.code == ' ')
        c->wl_page++;
    else if ((k.code == '<' || k.code == KEY_PGUP) && c->wl_page > 0)
        c->wl_page--;
    else if (k.code == '.')
        c->wl_sort = (c->wl_sort + 1) % NSORTS;
    else if (k.code >= 'a' && k.code <= 'z') {
        int i = (int)(k.code - 'a') - (k.code > 'q');
        wl_row_t *rows;
        size_t n = wl_collect(c, &rows);
        size_t idx = (size_t)c->wl_page * WL_ROWS + (size_t)i;
        session_t *s = (i < WL_ROWS && idx < n) ? rows[idx].s : NULL;
        free(rows);
        if (s && s->user_id == c->user_id) {
            snprintf(c->msg, sizeof c->msg, "That is your own game: press p to play it.");
            menu_enter(c, c->msg);
            return;
        }
        if (s) {
            session_watch(c, s);
            return;
        }
    }
    menu_redraw(c);
}

/* ---- scores ------------------------------------------------------------------ */

typedef struct {
    conn_t *c;
} scores_req_t;

static void draw_scores_rows(screen_t *scr, const db_game_t *g, size_t n)
{
    screen_text(scr, 2, 1, st_title, "High scores");
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                " #  Score      Player               Depth  Turns   Cause");
    for (size_t i = 0; i < n && (int)i < scr->h - 7; i++)
        screen_textf(scr, 2, 4 + (int)i, STYLE_DEFAULT, "%2zu  %-10lld %-20.20s %5d %7lld   %.60s",
                     i + 1, (long long)g[i].score, g[i].player, g[i].max_depth,
                     (long long)g[i].turns, g[i].cause);
    if (n == 0)
        screen_text(scr, 4, 5, st_dim, "No finished games yet.");
}

static void on_scores(void *ud, int status, const db_game_t *games, size_t n)
{
    conn_t *c = ud;
    if (!c->closing && c->mode == MODE_SCORES) {
        if (menu_ensure_screens(c) == 0 && !c->too_small) {
            screen_clear(c->scr);
            if (status == DB_OK)
                draw_scores_rows(c->scr, games, n);
            else
                screen_text(c->scr, 2, 1, st_msg, "Scores are not available right now.");
            screen_text(c->scr, 2, c->scr->h - 2, st_dim, "Press any key.");
            screen_cursor(c->scr, 0, 0, false);
            screen_send_diff(c);
        }
    }
    conn_unref(c);
}

static void scores_open(conn_t *c)
{
    c->mode = MODE_SCORES;
    menu_redraw(c);
    conn_ref(c);
    db_scores_top(c->srv->db, 15, 0, on_scores, c);
}

/* ---- options ------------------------------------------------------------------ */

/* Map glyph sets a player may pick over what the terminal type says (a
 * UTF-8 terminal whose font lacks the map's glyphs, a terminal that says
 * xterm but is not). utf8 < 0: the terminal type decides. */
typedef struct {
    const char *key, *label;
    int utf8;
    bool fallbacks, dec_graphics;
} glyph_set_t;

static const glyph_set_t glyph_sets[] = {
    {"auto", "from the terminal type", -1, false, false},
    {"unicode", "Unicode", 1, false, false},
    {"lines", "line drawing and ASCII", 1, true, false},
    {"dec", "DEC graphics, no UTF-8", 0, false, true},
    {"ascii", "plain ASCII", 0, false, false},
};
#define GLYPH_SETS (sizeof glyph_sets / sizeof glyph_sets[0])

/* Colour modes over what the terminal type says; colors < 0: as it says. */
typedef struct {
    const char *key, *label;
    int colors;
} colour_mode_t;

static const colour_mode_t colour_modes[] = {
    {"auto", "from the terminal type", -1},
    {"16", "16", ANSI_COLORS_16},
    {"off", "off (bold, dim and reverse only)", ANSI_COLORS_NONE},
};
#define COLOUR_MODES (sizeof colour_modes / sizeof colour_modes[0])

/* The value of "key=" in opts as an index into table (an array of structs
 * whose first member is the value's name); 0 if absent or unknown (so an
 * older "colors=256" means the terminal's colours). */
#define OPTION_INDEX(opts, field, table) \
    option_index(opts, field, &(table)[0].key, sizeof(table)[0], sizeof(table) / sizeof(table)[0])

static uint8_t option_index(const char *opts, const char *key, const char *const *names,
                            size_t stride, size_t n)
{
    const char *v = strstr(opts, key);
    size_t k = strlen(key);
    for (size_t i = 1; v && i < n; i++) {
        const char *name = *(const char *const *)((const char *)names + i * stride);
        size_t len = strlen(name);
        if (strncmp(v + k, name, len) == 0 && (v[k + len] == '\n' || !v[k + len]))
            return (uint8_t)i;
    }
    return 0;
}

void menu_apply_profile(conn_t *c)
{
    ansi_profile_for_term(&c->prof, c->term[0] ? c->term : NULL);
    if (colour_modes[c->colors].colors >= 0)
        c->prof.colors = (ansi_colors_t)colour_modes[c->colors].colors;
    const glyph_set_t *g = &glyph_sets[c->glyphs];
    if (g->utf8 >= 0) {
        c->prof.utf8 = g->utf8;
        c->prof.fallbacks = g->fallbacks;
        c->prof.dec_graphics = g->dec_graphics;
    }
    c->prof_id = ansi_profile_id(&c->prof);
}

void menu_options_apply(conn_t *c, const char *opts)
{
    c->two_cell = strstr(opts, "two_cell=1") != NULL;
    c->colors = OPTION_INDEX(opts, "colors=", colour_modes);
    c->glyphs = OPTION_INDEX(opts, "glyphs=", glyph_sets);
    menu_apply_profile(c);
}

static void options_save(conn_t *c)
{
    char opts[96];
    snprintf(opts, sizeof opts, "two_cell=%d\ncolors=%s\nglyphs=%s\n", c->two_cell ? 1 : 0,
             colour_modes[c->colors].key, glyph_sets[c->glyphs].key);
    db_user_set_options(c->srv->db, c->user_id, opts, NULL, NULL);
    menu_options_apply(c, opts);
}

static void draw_options(conn_t *c, screen_t *scr)
{
    screen_text(scr, 2, 1, st_title, "Options");
    screen_text(scr, 2, 3, STYLE_DEFAULT,
                "Keys: vi keys (hjklyubn), arrows and the keypad all move.");
    screen_put(scr, 4, 5, 't', st_key);
    screen_textf(scr, 5, 5, STYLE_DEFAULT, ") Two-cell map tiles: %s", c->two_cell ? "on" : "off");
    screen_put(scr, 4, 6, 'c', st_key);
    ansi_profile_t term;
    ansi_profile_for_term(&term, c->term[0] ? c->term : NULL);
    screen_textf(scr, 5, 6, STYLE_DEFAULT, ") Colours: %s%s", colour_modes[c->colors].label,
                 c->colors                       ? ""
                 : term.colors == ANSI_COLORS_16 ? " (16)"
                                                 : " (256)");
    screen_put(scr, 4, 7, 'g', st_key);
    screen_textf(scr, 5, 7, STYLE_DEFAULT, ") Map glyphs: %s", glyph_sets[c->glyphs].label);
    screen_put(scr, 4, 9, 'q', st_key);
    screen_text(scr, 5, 9, STYLE_DEFAULT, ") Back");
    screen_cursor(scr, 0, 0, false);
}

static void options_key(conn_t *c, key_event_t k)
{
    if (k.code == 't')
        c->two_cell = !c->two_cell;
    else if (k.code == 'c')
        c->colors = (uint8_t)((c->colors + 1) % COLOUR_MODES);
    else if (k.code == 'g')
        c->glyphs = (uint8_t)((c->glyphs + 1) % GLYPH_SETS);
    else if (k.code == 'q' || k.code == KEY_ESC || k.code == KEY_ENTER) {
        menu_enter(c, NULL);
        return;
    } else
        return;
    options_save(c);
    c->shown_valid = false; /* colours or glyphs changed: redraw all */
    menu_redraw(c);
}

/* ---- drawing dispatch ---------------------------------------------------------- */

typedef void (*draw_fn)(conn_t *c, screen_t *scr);
static const draw_fn drawers[] = {
    [MODE_MAIN] = draw_main,       [MODE_PROMPT] = draw_prompt,       [MODE_WAIT] = draw_wait,
    [MODE_MESSAGE] = draw_message, [MODE_WATCHLIST] = draw_watchlist, [MODE_OPTIONS] = draw_options,
};

void menu_redraw(conn_t *c)
{
    if (c->closing || c->mode == MODE_PLAY || c->mode == MODE_WATCH)
        return;
    if (c->in_input) { /* one redraw after the whole read, however many keys */
        c->redraw_due = true;
        return;
    }
    c->redraw_due = false;
    if (menu_ensure_screens(c)) {
        conn_close(c, "out of memory");
        return;
    }
    screen_clear(c->scr);
    if (c->too_small)
        draw_too_small(c, c->scr);
    else if (c->mode == MODE_SCORES)
        screen_text(c->scr, 2, 1, STYLE_DEFAULT, "Loading scores...");
    else if (drawers[c->mode])
        drawers[c->mode](c, c->scr);
    if (!c->too_small)
        announce_draw(c->srv, c->scr);
    screen_send_diff(c);
}

void menu_redraw_all(server_t *s)
{
    LIST_EACH(it, &s->conns)
    {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->mode != MODE_PLAY && c->mode != MODE_WATCH)
            menu_redraw(c);
    }
}

void menu_resized(conn_t *c)
{
    c->shown_valid = false;
    menu_redraw(c);
}

void menu_enter(conn_t *c, const char *msg)
{
    if (c->ops) { /* not a telnet terminal: its gateway sends it home */
        c->mode = MODE_MAIN;
        c->ops->leave(c, msg ? msg : "");
        return;
    }
    c->mode = MODE_MAIN;
    c->shown_valid = false; /* coming back from a game: redraw everything */
    if (msg != c->msg)
        snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "");
    menu_redraw(c);
}

static void message_show(conn_t *c, const char *msg)
{
    c->mode = MODE_MESSAGE;
    c->shown_valid = false; /* it may come straight from a game screen */
    snprintf(c->msg, sizeof c->msg, "%s", msg);
    menu_redraw(c);
}

/* ---- prompts and accounts ------------------------------------------------------- */

static void prompt_open(conn_t *c, prompt_t p)
{
    c->mode = MODE_PROMPT;
    c->prompt = p;
    c->line_len = 0;
    c->line[0] = 0;
    menu_redraw(c);
}

static void wipe_secrets(conn_t *c)
{
    memset(c->pend_pass, 0, sizeof c->pend_pass);
    memset(c->pend_old, 0, sizeof c->pend_old);
    memset(c->line, 0, sizeof c->line);
    c->line_len = 0;
}

static void on_account(void *ud, int status, const db_user_t *u, const char *msg)
{
    conn_t *c = ud;
    if (!c->closing && c->mode == MODE_WAIT) {
        if (status == ACCOUNTS_OK && u && c->prompt != PROMPT_CHPW_NEW2) {
            c->user_id = u->id;
            snprintf(c->user, sizeof c->user, "%s", u->name);
            menu_options_apply(c, u->options);
            log_info("login conn=%llu ip=%s user=%s%s", (unsigned long long)c->id, c->ip, c->user,
                     c->prompt == PROMPT_REG_PASS2 ? " (registered)" : "");
            session_t *s = session_find_user(c->srv, c->user_id);
            menu_enter(c, s ? "Your game is waiting: press p to continue it." : "");
        } else if (status == ACCOUNTS_OK) {
            log_info("password changed user=%s", c->user);
            menu_enter(c, "Password changed.");
        } else {
            log_info("login failed conn=%llu ip=%s status=%d", (unsigned long long)c->id, c->ip,
                     status);
            menu_enter(c, msg && msg[0] ? msg : "That did not work.");
        }
    }
    conn_unref(c);
}

static void account_submit(conn_t *c)
{
    server_t *s = c->srv;
    accounts_t *a = s->acc;
    uint64_t now = now_ms(s);
    int rc;
    prompt_t p = c->prompt;
    c->mode = MODE_WAIT;
    conn_ref(c);
    if (p == PROMPT_LOGIN_PASS)
        rc = accounts_login(a, c->ip, c->pend_name, c->line, c->line_len, now, on_account, c);
    else if (p == PROMPT_REG_PASS2)
        rc = accounts_register(a, c->ip, c->pend_name, c->line, c->line_len, now, on_account, c);
    else
        rc = accounts_change_password(a, c->ip, c->user, c->pend_old, strlen(c->pend_old), c->line,
                                      c->line_len, now, on_account, c);
    wipe_secrets(c);
    memset(c->pend_name, 0, sizeof c->pend_name);
    if (rc) {
        conn_unref(c);
        menu_enter(c, "The account service is not available.");
        return;
    }
    menu_redraw(c);
}

/* Enter on a prompt: move to the next prompt or submit. */
static void prompt_done(conn_t *c)
{
    char msg[160];
    switch (c->prompt) {
    case PROMPT_LOGIN_NAME:
    case PROMPT_REG_NAME:
        if (c->line_len == 0) {
            menu_enter(c, NULL);
            return;
        }
        if (c->prompt == PROMPT_REG_NAME && accounts_check_name(c->line, msg, sizeof msg)) {
            snprintf(c->msg, sizeof c->msg, "%s", msg);
            prompt_open(c, PROMPT_REG_NAME);
            return;
        }
        snprintf(c->pend_name, sizeof c->pend_name, "%.31s", c->line);
        c->msg[0] = 0;
        prompt_open(c, c->prompt == PROMPT_LOGIN_NAME ? PROMPT_LOGIN_PASS : PROMPT_REG_PASS);
        return;
    case PROMPT_REG_PASS:
    case PROMPT_CHPW_NEW:
        if (accounts_check_password(c->line, c->line_len, msg, sizeof msg)) {
            snprintf(c->msg, sizeof c->msg, "%s", msg);
            wipe_secrets(c);
            prompt_open(c, c->prompt);
            return;
        }
        memcpy(c->pend_pass, c->line, c->line_len + 1);
        c->msg[0] = 0;
        prompt_open(c, c->prompt == PROMPT_REG_PASS ? PROMPT_REG_PASS2 : PROMPT_CHPW_NEW2);
        return;
    case PROMPT_CHPW_OLD:
        memcpy(c->pend_old, c->line, c->line_len + 1);
        c->msg[0] = 0;
        prompt_open(c, PROMPT_CHPW_NEW);
        return;
    case PROMPT_REG_PASS2:
    case PROMPT_CHPW_NEW2:
        if (strcmp(c->line, c->pend_pass) != 0) {
            wipe_secrets(c);
            menu_enter(c, "The passwords did not match.");
            return;
        }
        break;
    case PROMPT_LOGIN_PASS: break;
    }
    account_submit(c);
}

static void prompt_key(conn_t *c, key_event_t k)
{
    size_t max = prompt_secret(c->prompt) ? ACCOUNTS_PASSWORD_MAX : ACCOUNTS_NAME_MAX;
    switch (input_line_key(c->line, &c->line_len, max, k)) {
    case LINE_CANCEL:
        wipe_secrets(c);
        menu_enter(c, NULL);
        return;
    case LINE_ENTER: prompt_done(c); return;
    case LINE_EDITED: menu_redraw(c); return;
    case LINE_IGNORED: return;
    }
}

/* ---- main menu ------------------------------------------------------------------- */

static void main_key(conn_t *c, key_event_t k)
{
    uint32_t ch = k.code;
    c->msg[0] = 0;
    if (ch == 'q' || ch == 'Q') {
        const char *bye = "\033[m\033[H\033[2J\033[?25hGoodbye.\n";
        conn_write(c, bye, strlen(bye));
        conn_close(c, "quit");
        return;
    }
    if (ch == 'w') {
        c->mode = MODE_WATCHLIST;
        c->wl_page = 0;
        menu_redraw(c);
        return;
    }
    if (ch == 's') {
        scores_open(c);
        return;
    }
    if (!c->user_id) {
        if (ch == 'l')
            prompt_open(c, PROMPT_LOGIN_NAME);
        else if (ch == 'r')
            prompt_open(c, PROMPT_REG_NAME);
        else
            menu_redraw(c);
        return;
    }
    if (ch == 'p')
        session_play(c);
    else if (ch == 'c')
        prompt_open(c, PROMPT_CHPW_OLD);
    else if (ch == 'o') {
        c->mode = MODE_OPTIONS;
        menu_redraw(c);
    } else
        menu_redraw(c);
}

void menu_key(conn_t *c, key_event_t k)
{
    if (c->too_small && k.code != 'q')
        return;
    switch (c->mode) {
    case MODE_MAIN: main_key(c, k); break;
    case MODE_PROMPT: prompt_key(c, k); break;
    case MODE_MESSAGE:
    case MODE_SCORES: menu_enter(c, NULL); break;
    case MODE_WATCHLIST: watchlist_key(c, k); break;
    case MODE_OPTIONS: options_key(c, k); break;
    default: break;
    }
}

void menu_tick(server_t *s)
{
    LIST_EACH(it, &s->conns)
    {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->mode == MODE_WATCHLIST)
            menu_redraw(c);
    }
}

void menu_message(conn_t *c, const char *msg)
{
    if (c->ops) {
        menu_enter(c, msg);
        return;
    }
    message_show(c, msg);
}
