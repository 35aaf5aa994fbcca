/* menu — what a terminal shows outside a game; see menu.h.
 *
 * Each screen (main menu, prompt, message, watch list, scores, options) is
 * a row of `screens`: how it is drawn and what its keys do. The main menu
 * and the options are tables of items whose rows draw the menu and dispatch
 * its keys; the prompts are a table too. Account checks run on the thread
 * pool (accounts.h); while one is out the conn is in CONN_WAIT and keys are
 * ignored. */
#include <stdlib.h>
#include <string.h>
#include "announce.h"
#include "hooks.h"
#include "inbox.h"
#include "lineedit.h"
#include "log.h"
#include "mail.h"
#include "menu.h"
#include "options.h"
#include "playkeys.h"
#include "rcedit.h"
#include "server.h"
#include "session.h"
#include "shard.h"
#include "accounts.h"

#define STY(fg, a) ((style_t){(fg), SCREEN_DEFAULT_COLOR, (a)})
#define WL_ROWS    15

static const style_t st_title = {14, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_key = {11, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_msg = {9, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_dim = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_DIM};

typedef enum {
    MENU_MAIN = 0,
    MENU_PROMPT,    /* reading a line: name, password, ... */
    MENU_MESSAGE,   /* a notice; any key goes back to the menu */
    MENU_WATCHLIST, /* the list of live games */
    MENU_SCORES,
    MENU_OPTIONS,
    MENU_RCCHOOSE, /* which game's rc file to edit */
    MENU_RCEDIT,   /* the rc file editor (rcedit.h) */
} menu_screen_t;

typedef enum {
    PROMPT_LOGIN_NAME,
    PROMPT_LOGIN_PASS,
    PROMPT_REG_NAME,
    PROMPT_REG_PASS,
    PROMPT_REG_PASS2,
    PROMPT_CHPW_OLD,
    PROMPT_CHPW_NEW,
    PROMPT_CHPW_NEW2,
    PROMPT_MAIL_TO,
    PROMPT_MAIL_TEXT,
} prompt_t;

/* Per conn, private to this file (menu.h). */
struct menu_state {
    menu_screen_t screen;
    prompt_t prompt;
    char line[208]; /* what is typed at the prompt */
    size_t line_len;
    char pend_name[32], pend_pass[136], pend_old[136];
    char msg[640]; /* a notice: lines split by "\n" on MENU_MESSAGE */
    int wl_page, wl_sort;
    uint8_t colors;         /* options: index into COLOUR_MODES; 0 = from the terminal */
    uint8_t glyphs;         /* options: index into GLYPH_SETS; 0 = from the terminal */
    rcedit_t *rc;           /* MENU_RCEDIT's editor; owned */
    const gamecfg_t *rc_of; /* its game (the server's config) */
    bool held;              /* a read is being handled: redraws wait (menu_hold) */
    bool redraw_due;
};

menu_state_t *menu_state_new(void)
{
    return calloc(1, sizeof(menu_state_t));
}

void menu_state_free(menu_state_t *m)
{
    if (m) { /* it may hold a password */
        rcedit_free(m->rc);
        memset(m, 0, sizeof *m);
    }
    free(m);
}

static void menu_show(conn_t *c, menu_screen_t screen)
{
    conn_set_place(c, CONN_MENU);
    c->menu->screen = screen;
}

/* ---- drawing pieces ----------------------------------------------------------- */

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
    if (!c->shown) {
        if (!(c->shown = screen_new(w, h)))
            return -1;
        c->shown_valid = false;
    }
    if (c->scr->w != w || c->scr->h != h) {
        if (screen_resize(c->scr, w, h))
            return -1;
        c->shown_valid = false;
    }
    return 0;
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

/* A menu item at row y: its key, then ") label" and an optional value. */
static void draw_item(screen_t *scr, int y, char key, const char *label, const char *value)
{
    screen_put(scr, 4, y, (unsigned char)key, st_key);
    if (value)
        screen_textf(scr, 5, y, STYLE_DEFAULT, ") %s: %s", label, value);
    else
        screen_textf(scr, 5, y, STYLE_DEFAULT, ") %s", label);
}

static void draw_message(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    int y = 5;
    for (const char *p = c->menu->msg; y < scr->h - 3; y++) {
        size_t n = strcspn(p, "\n");
        screen_textf(scr, 2, y, y == 5 ? st_msg : STYLE_DEFAULT, "%.*s", (int)n, p);
        if (!p[n])
            break;
        p += n + 1;
    }
    screen_text(scr, 2, y + 2, st_dim, "Press any key.");
    screen_cursor(scr, 0, 0, false);
}

static void draw_wait(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    screen_text(scr, 2, 5, STYLE_DEFAULT, "One moment...");
    screen_cursor(scr, 0, 0, false);
}

/* ---- the main menu ----------------------------------------------------------------- */

typedef enum { FOR_ALL, FOR_ANON, FOR_USER, FOR_RC } menu_who_t; /* FOR_RC: a user, rc files */

/* One row of a menu: its keys (the first is shown), its label, who sees it
 * (logged in or not) and what choosing it does. */
typedef struct {
    const char *keys;
    const char *label;
    menu_who_t who;
    void (*action)(conn_t *c);
} menu_item_t;

static void act_login(conn_t *c);
static void act_register(conn_t *c);
static void act_watch(conn_t *c);
static void act_change_password(conn_t *c);
static void act_options(conn_t *c);
static void act_mail(conn_t *c);
static void act_scores(conn_t *c);
static void act_rc(conn_t *c);
static void act_quit(conn_t *c);

/* The main menu, in the order it is drawn. */
static const menu_item_t main_menu[] = {
    {"l", "Log in", FOR_ANON, act_login},
    {"r", "Register", FOR_ANON, act_register},
    {"p", "Play (new game or resume)", FOR_USER, session_play},
    {"w", "Watch games", FOR_ALL, act_watch},
    {"c", "Change password", FOR_USER, act_change_password},
    {"o", "Options", FOR_USER, act_options},
    {"m", "Mail a player", FOR_USER, act_mail},
    {"e", "Edit a game's rc file", FOR_RC, act_rc},
    {"s", "High scores", FOR_ALL, act_scores},
    {"qQ", "Quit", FOR_ALL, act_quit},
};
#define MAIN_ITEMS (sizeof main_menu / sizeof main_menu[0])

/* Hosted games ([game ID] sections) take the keys 1-9, after Warren's own. */
#define HOSTED_KEYS 9

static int hosted_count(const conn_t *c)
{
    int n = c->srv->cfg.games.n;
    return c->user_id && n > HOSTED_KEYS ? HOSTED_KEYS : c->user_id ? n : 0;
}

/* The hosted games with an rc file the player may edit: how many, the
 * first in *first. */
static int rc_games(const conn_t *c, int *first)
{
    int n = 0;
    for (int g = hosted_count(c) - 1; g >= 0; g--)
        if (c->srv->cfg.games.games[g].rcfile[0])
            n++, *first = g;
    return n;
}

static bool item_shown(const conn_t *c, const menu_item_t *it)
{
    int first;
    if (it->who == FOR_RC)
        return rc_games(c, &first) > 0;
    return it->who == FOR_ALL || (it->who == FOR_USER) == (c->user_id != 0);
}

static void draw_main(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    int n = 0;
    for (size_t i = 0; i < MAIN_ITEMS; i++) {
        if (item_shown(c, &main_menu[i]))
            draw_item(scr, 5 + n++, main_menu[i].keys[0], main_menu[i].label, NULL);
        for (int g = 0; main_menu[i].action == session_play && g < hosted_count(c); g++) {
            const gamecfg_t *game = &c->srv->cfg.games.games[g];
            char label[160], keys[48];
            playkeys_hint(game->key_prefix, keys, sizeof keys);
            snprintf(label, sizeof label, "Play %s  (%s)", game->name, keys);
            draw_item(scr, 5 + n++, (char)('1' + g), label, NULL);
        }
    }
    if (c->menu->msg[0])
        screen_text(scr, 2, 6 + n, st_msg, c->menu->msg);
    screen_text(scr, 2, 8 + n, STYLE_DEFAULT, "Your choice: ");
    screen_cursor(scr, 15, 8 + n, true);
}

static void main_key(conn_t *c, key_event_t k)
{
    c->menu->msg[0] = 0;
    if (k.code >= '1' && k.code < '1' + (uint32_t)hosted_count(c) && !k.mods) {
        hooks_hosted_play(c, &c->srv->cfg.games.games[k.code - '1']);
        return;
    }
    for (size_t i = 0; i < MAIN_ITEMS; i++) {
        const menu_item_t *it = &main_menu[i];
        if (k.code < 0x80 && k.code && strchr(it->keys, (int)k.code) && item_shown(c, it)) {
            it->action(c);
            return;
        }
    }
    menu_redraw(c);
}

static void act_quit(conn_t *c)
{
    const char *bye = "\033[m\033[H\033[2J\033[?25hGoodbye.\n";
    conn_write(c, bye, strlen(bye));
    conn_close(c, "quit");
}

/* ---- prompts and accounts ----------------------------------------------------------- */

typedef struct {
    const char *title, *label, *hint;
    bool secret;             /* a password: not echoed */
    void (*done)(conn_t *c); /* Enter */
    size_t max;              /* bytes typed at most; 0: a name's or a password's */
} prompt_info_t;

static void name_done(conn_t *c);
static void new_password_done(conn_t *c);
static void old_password_done(conn_t *c);
static void confirm_done(conn_t *c);
static void account_submit(conn_t *c);
static void mail_to_done(conn_t *c);
static void mail_text_done(conn_t *c);

static const prompt_info_t prompts[] = {
    [PROMPT_LOGIN_NAME] = {"Log in", "Name: ", "Esc cancels.", false, name_done},
    [PROMPT_LOGIN_PASS] = {"Log in", "Password: ", "Esc cancels.", true, account_submit},
    [PROMPT_REG_NAME] = {"Register", "Name: ", "2-20 letters, digits, _ or -. Esc cancels.", false,
                         name_done},
    [PROMPT_REG_PASS] = {"Register", "Password: ", "8-128 characters. Esc cancels.", true,
                         new_password_done},
    [PROMPT_REG_PASS2] = {"Register", "Password again: ", "Esc cancels.", true, confirm_done},
    [PROMPT_CHPW_OLD] = {"Change password", "Old password: ", "Esc cancels.", true,
                         old_password_done},
    [PROMPT_CHPW_NEW] = {"Change password", "New password: ", "8-128 characters. Esc cancels.",
                         true, new_password_done},
    [PROMPT_CHPW_NEW2] = {"Change password", "New password again: ", "Esc cancels.", true,
                          confirm_done},
    [PROMPT_MAIL_TO] = {"Mail a player", "To: ", "Shown at their next menu. Esc cancels.", false,
                        mail_to_done},
    [PROMPT_MAIL_TEXT] = {"Mail a player", "Message: ", "At most 200 characters. Esc cancels.",
                          false, mail_text_done, MAIL_MAX},
};

static void draw_prompt(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    const prompt_info_t *p = &prompts[m->prompt];
    draw_header(c, scr);
    screen_text(scr, 2, 5, st_title, p->title);
    screen_text(scr, 2, 6, st_dim, p->hint);
    if (m->msg[0])
        screen_text(scr, 2, 10, st_msg, m->msg);
    int x = screen_text(scr, 2, 8, STYLE_DEFAULT, p->label);
    size_t room = (size_t)(scr->w - x - 1); /* a long line shows its end */
    if (!p->secret)
        x = screen_text(scr, x, 8, st_key, m->line + (m->line_len > room ? m->line_len - room : 0));
    screen_cursor(scr, x, 8, true);
}

static void prompt_open(conn_t *c, prompt_t p)
{
    menu_show(c, MENU_PROMPT);
    c->menu->prompt = p;
    c->menu->line_len = 0;
    c->menu->line[0] = 0;
    menu_redraw(c);
}

/* The next prompt, with no notice. */
static void prompt_next(conn_t *c, prompt_t p)
{
    c->menu->msg[0] = 0;
    prompt_open(c, p);
}

/* The same prompt again, saying what was wrong. */
static void prompt_again(conn_t *c, const char *why)
{
    snprintf(c->menu->msg, sizeof c->menu->msg, "%s", why);
    prompt_open(c, c->menu->prompt);
}

static void wipe_secrets(menu_state_t *m)
{
    memset(m->pend_pass, 0, sizeof m->pend_pass);
    memset(m->pend_old, 0, sizeof m->pend_old);
    memset(m->line, 0, sizeof m->line);
    m->line_len = 0;
}

static void act_login(conn_t *c)
{
    prompt_open(c, PROMPT_LOGIN_NAME);
}

static void act_register(conn_t *c)
{
    prompt_open(c, PROMPT_REG_NAME);
}

static void act_change_password(conn_t *c)
{
    prompt_open(c, PROMPT_CHPW_OLD);
}

/* Registration's name lookup came back: a taken name is asked again. */
static void on_reg_name(void *ud, int status, const db_user_t *u)
{
    conn_t *c = ud;
    (void)u;
    if (!c->closing && c->place == CONN_WAIT) {
        menu_show(c, MENU_PROMPT);
        if (status == DB_OK)
            prompt_again(c, "That name is taken.");
        else if (status == DB_ENOTFOUND)
            prompt_next(c, PROMPT_REG_PASS);
        else
            conn_menu(c, "The account service is not available.");
    }
    conn_unref(c);
}

static void name_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    char why[160];
    if (m->line_len == 0) {
        conn_menu(c, NULL);
        return;
    }
    if (m->prompt == PROMPT_REG_NAME && accounts_check_name(m->line, why, sizeof why)) {
        prompt_again(c, why);
        return;
    }
    snprintf(m->pend_name, sizeof m->pend_name, "%.31s", m->line);
    if (m->prompt == PROMPT_REG_NAME) { /* a taken name is refused before any password */
        char key[DB_NAME_MAX];
        accounts_name_key(m->pend_name, key);
        conn_set_place(c, CONN_WAIT);
        conn_ref(c);
        db_user_by_name(c->srv->db, key, on_reg_name, c);
        menu_redraw(c);
        return;
    }
    prompt_next(c, PROMPT_LOGIN_PASS);
}

static void new_password_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    char why[160];
    if (accounts_check_password(m->line, m->line_len, why, sizeof why)) {
        wipe_secrets(m);
        prompt_again(c, why);
        return;
    }
    memcpy(m->pend_pass, m->line, m->line_len + 1);
    prompt_next(c, m->prompt == PROMPT_REG_PASS ? PROMPT_REG_PASS2 : PROMPT_CHPW_NEW2);
}

static void old_password_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    memcpy(m->pend_old, m->line, m->line_len + 1);
    prompt_next(c, PROMPT_CHPW_NEW);
}

static void confirm_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (strcmp(m->line, m->pend_pass) != 0) {
        wipe_secrets(m);
        conn_menu(c, "The passwords did not match.");
        return;
    }
    account_submit(c);
}

static void on_account(void *ud, int status, const db_user_t *u, const char *msg)
{
    conn_t *c = ud;
    prompt_t p = c->menu->prompt; /* which request this answers */
    if (c->closing || c->place != CONN_WAIT) {
        conn_unref(c);
        return;
    }
    if (status == ACCOUNTS_OK && u && p != PROMPT_CHPW_NEW2) {
        conn_set_user(c, u->id, u->name, u->game_name);
        menu_options_apply(c, u->options);
        log_info("login conn=%llu ip=%s user=%s%s", (unsigned long long)c->id, c->ip, c->user,
                 p == PROMPT_REG_PASS2 ? " (registered)" : "");
        bool live = session_user_live(c->srv, c->user_id);
        conn_menu(c, live ? "Your game is waiting: press p to continue it." : "");
        if (!live)
            session_login_notice(c);
        inbox_show(c); /* unseen mail, if any, over the menu */
    } else if (status == ACCOUNTS_OK) {
        log_info("password changed user=%s", c->user);
        /* its browsers log in again */
        HOOKS_CALL(c->srv->hooks->password_changed, c->srv, c->user_id, NULL);
        conn_menu(c, "Password changed.");
    } else {
        log_info("login failed conn=%llu ip=%s status=%d", (unsigned long long)c->id, c->ip,
                 status);
        conn_menu(c, msg && msg[0] ? msg : "That did not work.");
    }
    conn_unref(c);
}

/* The prompts are done: log in, register or change the password. */
static void account_submit(conn_t *c)
{
    menu_state_t *m = c->menu;
    accounts_t *a = c->srv->acc;
    uint64_t now = now_ms(c->srv);
    int rc;
    conn_set_place(c, CONN_WAIT);
    conn_ref(c);
    if (m->prompt == PROMPT_LOGIN_PASS)
        rc = accounts_login(a, c->ip, m->pend_name, m->line, m->line_len, now, on_account, c);
    else if (m->prompt == PROMPT_REG_PASS2)
        rc = accounts_register(a, c->ip, m->pend_name, m->line, m->line_len, now, on_account, c);
    else
        rc = accounts_change_password(a, c->ip, c->user, m->pend_old, strlen(m->pend_old), m->line,
                                      m->line_len, NULL, now, on_account, c);
    wipe_secrets(m);
    memset(m->pend_name, 0, sizeof m->pend_name);
    if (rc) {
        conn_unref(c);
        conn_menu(c, "The account service is not available.");
        return;
    }
    menu_redraw(c);
}

static void prompt_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    const prompt_info_t *p = &prompts[m->prompt];
    size_t max = p->max ? p->max : p->secret ? ACCOUNTS_PASSWORD_MAX : ACCOUNTS_NAME_MAX;
    switch (lineedit_key(m->line, &m->line_len, max, k)) {
    case LINE_CANCEL:
        wipe_secrets(m);
        conn_menu(c, NULL);
        return;
    case LINE_ENTER: p->done(c); return;
    case LINE_EDITED: menu_redraw(c); return;
    case LINE_IGNORED: return;
    }
}

/* ---- mail ---------------------------------------------------------------------- */

static void act_mail(conn_t *c)
{
    prompt_open(c, PROMPT_MAIL_TO);
}

static void mail_to_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (m->line_len == 0) {
        conn_menu(c, NULL);
        return;
    }
    snprintf(m->pend_name, sizeof m->pend_name, "%.31s", m->line);
    prompt_next(c, PROMPT_MAIL_TEXT);
}

static void on_mail_sent(void *ud, bool ok, const char *msg)
{
    conn_t *c = ud;
    (void)ok;
    if (!c->closing && c->place == CONN_WAIT)
        conn_menu(c, msg);
    conn_unref(c);
}

static void mail_text_done(conn_t *c)
{
    menu_state_t *m = c->menu;
    conn_set_place(c, CONN_WAIT);
    conn_ref(c);
    mail_send(c->srv, c->user_id, m->pend_name, m->line, m->line_len, on_mail_sent, c);
    menu_redraw(c);
}

/* ---- watch list -------------------------------------------------------------- */

/* What the orders compare, copied so that sorting ten thousand rows reads
 * the rows, not the sessions; depth and turn only once an order needs
 * them (session_status for every game costs more than the rest). */
typedef struct {
    server_t *k;  /* the loop the game is on */
    session_t *s; /* the game when k is this loop; else found by game_id */
    int64_t game_id, user_id;
    char user[32];
    uint64_t last_key_ms;
    int watchers;
    int depth;
    uint64_t turn;
    /* what a shown row says, read once a tick by its first viewer */
    bool detailed;
    char race_cls[40], term[16];
} wl_row_t;

static const char *const sort_names[] = {"player", "depth", "turn", "idle", "watchers"};
#define NSORTS 5

/* The watch list of one tick, shared by all its viewers whatever their
 * page or order: collected once per tick (again when a game comes, ends or
 * goes: sess_gen), each order sorted once when first asked for. A thousand
 * viewers of ten thousand games cost one walk a second, not a thousand. */
typedef struct wlcache {
    wl_row_t *rows;
    size_t n;
    uint64_t tick, gen;
    bool valid, status;             /* status: depth and turn are filled in */
    const wl_row_t **order[NSORTS]; /* rows sorted by each key; NULL until asked for */
} wlcache_t;

static int wl_cmp_key(const wl_row_t *a, const wl_row_t *b, int key)
{
    switch (key) {
    case 1: return (b->depth > a->depth) - (b->depth < a->depth);
    case 2: return (b->turn > a->turn) - (b->turn < a->turn);
    case 3: return (b->last_key_ms > a->last_key_ms) - (b->last_key_ms < a->last_key_ms);
    case 4: return b->watchers - a->watchers;
    default: return strcmp(a->user, b->user);
    }
}

static int wl_cmp(const void *pa, const void *pb, void *key)
{
    const wl_row_t *a = *(const wl_row_t *const *)pa, *b = *(const wl_row_t *const *)pb;
    int r = wl_cmp_key(a, b, *(int *)key);
    return r ? r : strcmp(a->user, b->user);
}

static void wl_drop(wlcache_t *w)
{
    for (int k = 0; k < NSORTS; k++) {
        free(w->order[k]);
        w->order[k] = NULL;
    }
    free(w->rows);
    w->rows = NULL;
    w->n = 0;
    w->valid = w->status = false;
}

void menu_cache_free(server_t *s)
{
    if (s->wl)
        wl_drop(s->wl);
    free(s->wl);
    s->wl = NULL;
}

/* The live games of loop k (parked unless it is this one) added to w->rows. */
static bool wl_fill_loop(server_t *srv, server_t *k, wlcache_t *w)
{
    wl_row_t *rows = realloc(w->rows, (w->n + (size_t)k->nsessions + 1) * sizeof *rows);
    if (!rows)
        return false;
    w->rows = rows;
    LIST_EACH (it, &k->sessions) {
        session_t *s = LIST_ITEM(it, session_t, node);
        if (s->ended)
            continue;
        wl_row_t *r = &w->rows[w->n++];
        *r = (wl_row_t){.k = k,
                        .s = k == srv ? s : NULL,
                        .game_id = s->game_id,
                        .user_id = s->user_id,
                        .last_key_ms = s->last_key_ms,
                        .watchers = s->nwatchers};
        memcpy(r->user, s->user, sizeof r->user);
    }
    return true;
}

/* Every live game of every loop, once per tick. */
static bool wl_fill(server_t *srv, wlcache_t *w)
{
    if (w->valid && w->tick == srv->ticks && w->gen == srv->sess_gen)
        return true;
    wl_drop(w);
    for (int i = 0; i < shard_count(srv); i++) {
        server_t *k = shard_at(srv, i);
        shard_lock(k);
        bool ok = wl_fill_loop(srv, k, w);
        shard_unlock(k);
        if (!ok)
            return false;
    }
    w->tick = srv->ticks;
    w->gen = srv->sess_gen;
    w->valid = true;
    return true;
}

/* The row's game, its loop parked by the caller; NULL once it went. */
static session_t *wl_game(const wl_row_t *r)
{
    return r->s ? r->s : session_find_game(r->k, r->game_id);
}

/* Depth and turn of every row: the loops parked one at a time. */
static void wl_fill_status(server_t *srv, wlcache_t *w)
{
    for (int i = 0; i < shard_count(srv); i++) {
        server_t *k = shard_at(srv, i);
        shard_lock(k);
        for (size_t j = 0; j < w->n; j++) {
            if (w->rows[j].k != k)
                continue;
            session_status_t st = {0};
            session_t *s = wl_game(&w->rows[j]);
            if (s)
                session_status(s, &st);
            w->rows[j].depth = st.depth;
            w->rows[j].turn = st.turn;
        }
        shard_unlock(k);
    }
}

/* The live games in the viewer's order; *n of them (0 without memory). */
static const wl_row_t *const *wl_collect(conn_t *c, size_t *n)
{
    server_t *srv = c->srv;
    *n = 0;
    if (!srv->wl && !(srv->wl = calloc(1, sizeof *srv->wl)))
        return NULL;
    wlcache_t *w = srv->wl;
    int key = c->menu->wl_sort;
    if (!wl_fill(srv, w))
        return NULL;
    if ((key == 1 || key == 2) && !w->status) { /* by depth, by turn */
        wl_fill_status(srv, w);
        w->status = true;
    }
    if (!w->order[key]) {
        if (!(w->order[key] = malloc((w->n + 1) * sizeof *w->order[key])))
            return NULL;
        for (size_t i = 0; i < w->n; i++)
            w->order[key][i] = &w->rows[i];
        qsort_r(w->order[key], w->n, sizeof *w->order[key], wl_cmp, &key);
    }
    *n = w->n;
    return w->order[key];
}

static char wl_letter(int i)
{
    return (char)('a' + i + (i >= 'q' - 'a')); /* skip q: it leaves */
}

/* What row r shows, as its game is now (its loop parked by the caller). */
static void wl_row_detail(wl_row_t *r)
{
    const session_t *s = wl_game(r);
    session_status_t st = {0};
    r->detailed = true;
    r->race_cls[0] = 0;
    snprintf(r->term, sizeof r->term, "%s", s ? "detached" : "ended");
    if (s && session_status(s, &st))
        snprintf(r->race_cls, sizeof r->race_cls, "%s %s", st.race, st.cls);
    else if (s) /* a hosted game: its name */
        snprintf(r->race_cls, sizeof r->race_cls, "%.39s", s->kind_name);
    if (s && s->player)
        snprintf(r->term, sizeof r->term, "%dx%d", s->grid->w, s->grid->h);
    if (s) {
        r->last_key_ms = s->last_key_ms;
        r->watchers = s->nwatchers;
    }
    r->depth = st.depth;
    r->turn = st.turn;
}

/* The rows [from, to) of an order, detailed if they are not yet this tick:
 * every loop parked once for all of them, not once a row. */
static void wl_detail(server_t *srv, const wl_row_t *const *rows, size_t from, size_t to)
{
    wlcache_t *w = srv->wl;
    size_t i = from;
    while (i < to && rows[i]->detailed)
        i++;
    if (i == to)
        return;
    shards_lock_all(srv);
    for (; i < to; i++)
        if (!rows[i]->detailed)
            wl_row_detail(&w->rows[rows[i] - w->rows]);
    shards_unlock_all(srv);
}

static void draw_wl_row(screen_t *scr, int i, const wl_row_t *r, uint64_t now)
{
    uint64_t idle = now > r->last_key_ms ? (now - r->last_key_ms) / 1000 : 0;
    screen_put(scr, 2, 4 + i, (uint32_t)wl_letter(i), st_key);
    screen_textf(scr, 3, 4 + i, STYLE_DEFAULT, ") %-20.20s %-16.16s %5d %7llu %5llum %6d  %s",
                 r->user, r->race_cls, r->depth, (unsigned long long)r->turn,
                 (unsigned long long)(idle / 60), r->watchers, r->term);
}

static void draw_watchlist(conn_t *c, screen_t *scr)
{
    menu_state_t *m = c->menu;
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    int pages = (int)((n + WL_ROWS - 1) / WL_ROWS);
    if (m->wl_page >= pages)
        m->wl_page = pages ? pages - 1 : 0;
    screen_text(scr, 2, 1, st_title, "Live games");
    screen_textf(scr, 16, 1, st_dim, "%zu playing, sorted by %s, page %d/%d", n,
                 sort_names[m->wl_sort], m->wl_page + 1, pages ? pages : 1);
    screen_text(scr, 2, 3, STY(SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE),
                "   Player               Race/class       Depth    Turn   Idle  Watch  Term");
    uint64_t now = now_ms(c->srv);
    size_t first = (size_t)m->wl_page * WL_ROWS;
    wl_detail(c->srv, rows, first, first + WL_ROWS < n ? first + WL_ROWS : n);
    for (int i = 0; i < WL_ROWS; i++) {
        size_t k = (size_t)m->wl_page * WL_ROWS + (size_t)i;
        if (k >= n)
            break;
        draw_wl_row(scr, i, rows[k], now);
    }
    if (n == 0)
        screen_text(scr, 5, 5, st_dim, "Nobody is playing right now.");
    screen_text(scr, 2, 5 + WL_ROWS, st_dim,
                "Letter: watch   > next page   < previous page   . sort   q back");
    screen_cursor(scr, 0, 0, false);
}

/* The game on the shown page under letter key, or NULL. */
static const wl_row_t *wl_pick(conn_t *c, uint32_t key)
{
    int i = (int)(key - 'a') - (key > 'q');
    size_t n;
    const wl_row_t *const *rows = wl_collect(c, &n);
    size_t idx = (size_t)c->menu->wl_page * WL_ROWS + (size_t)i;
    return (i < WL_ROWS && idx < n) ? rows[idx] : NULL;
}

static void watchlist_key(conn_t *c, key_event_t k)
{
    menu_state_t *m = c->menu;
    if (k.code == 'q' || k.code == KEY_ESC) {
        conn_menu(c, NULL);
        return;
    }
    if (k.code == '>' || k.code == KEY_PGDN || k.code == ' ')
        m->wl_page++;
    else if ((k.code == '<' || k.code == KEY_PGUP) && m->wl_page > 0)
        m->wl_page--;
    else if (k.code == '.')
        m->wl_sort = (m->wl_sort + 1) % NSORTS;
    else if (k.code >= 'a' && k.code <= 'z') {
        const wl_row_t *r = wl_pick(c, k.code);
        if (r && r->user_id == c->user_id) {
            conn_menu(c, "That is your own game: press p to play it.");
            return;
        }
        if (r && r->s) {
            session_watch(c, r->s);
            return;
        }
        if (r) { /* on another loop: watched from there */
            conn_to_game(c, r->k, r->game_id);
            return;
        }
    }
    menu_redraw(c);
}

static void act_watch(conn_t *c)
{
    menu_show(c, MENU_WATCHLIST);
    c->menu->wl_page = 0;
    menu_redraw(c);
}

/* ---- scores ------------------------------------------------------------------ */

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

/* Until the scores come, and whenever the screen is redrawn. */
static void draw_scores_loading(conn_t *c, screen_t *scr)
{
    (void)c;
    screen_text(scr, 2, 1, STYLE_DEFAULT, "Loading scores...");
}

static void on_scores(void *ud, int status, const db_game_t *games, size_t n)
{
    conn_t *c = ud;
    bool showing = !c->closing && c->place == CONN_MENU && c->menu->screen == MENU_SCORES;
    if (showing && menu_ensure_screens(c) == 0 && !c->too_small) {
        screen_clear(c->scr);
        if (status == DB_OK)
            draw_scores_rows(c->scr, games, n);
        else
            screen_text(c->scr, 2, 1, st_msg, "Scores are not available right now.");
        screen_text(c->scr, 2, c->scr->h - 2, st_dim, "Press any key.");
        screen_cursor(c->scr, 0, 0, false);
        conn_send_diff(c);
    }
    conn_unref(c);
}

static void act_scores(conn_t *c)
{
    menu_show(c, MENU_SCORES);
    menu_redraw(c);
    conn_ref(c);
    db_scores_top(c->srv->db, 15, 0, on_scores, c);
}

/* ---- options ------------------------------------------------------------------ */

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
    screen_text(scr, 2, 1, st_title, "Options");
    screen_text(scr, 2, 3, STYLE_DEFAULT,
                "Keys: vi keys (hjklyubn), arrows and the keypad all move.");
    for (size_t i = 0; i < OPTION_ITEMS; i++) {
        char value[80];
        options_menu[i].value(c, value, sizeof value);
        draw_item(scr, 5 + (int)i, options_menu[i].key, options_menu[i].label, value);
    }
    draw_item(scr, 6 + (int)OPTION_ITEMS, 'q', "Back", NULL);
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

static void act_options(conn_t *c)
{
    menu_show(c, MENU_OPTIONS);
    menu_redraw(c);
}

/* ---- rc files ---------------------------------------------------------------------- */

/* Opens the editor on the player's rc file of game g (index into the games). */
static void rc_open(conn_t *c, int g)
{
    menu_state_t *m = c->menu;
    const gamecfg_t *game = &c->srv->cfg.games.games[g];
    char err[200], title[120];
    buf_t text;
    buf_init(&text);
    rcedit_free(m->rc);
    m->rc = NULL;
    if (hooks_rc_load(c->srv, game, c->game_name, &text, err, sizeof err) == 0) {
        snprintf(title, sizeof title, "Your rc file of %s", game->name);
        m->rc = rcedit_new(title, text.data ? text.data : "", text.len, err, sizeof err);
    }
    buf_free(&text);
    if (!m->rc) {
        log_error("rc file user=%s game=%s: %s", c->user, game->id, err);
        char msg[240];
        snprintf(msg, sizeof msg, "The rc file cannot be edited: %s.", err);
        conn_menu(c, msg);
        return;
    }
    m->rc_of = game;
    menu_show(c, MENU_RCEDIT);
    menu_redraw(c);
}

static void act_rc(conn_t *c)
{
    int first = 0;
    if (rc_games(c, &first) == 1) {
        rc_open(c, first);
        return;
    }
    menu_show(c, MENU_RCCHOOSE);
    menu_redraw(c);
}

static void draw_rc_choose(conn_t *c, screen_t *scr)
{
    draw_header(c, scr);
    screen_text(scr, 2, 5, st_title, "Edit a game's rc file");
    int y = 7;
    for (int g = 0; g < hosted_count(c); g++)
        if (c->srv->cfg.games.games[g].rcfile[0])
            draw_item(scr, y++, (char)('1' + g), c->srv->cfg.games.games[g].name, NULL);
    screen_text(scr, 2, y + 1, st_dim, "Esc goes back.");
    screen_cursor(scr, 0, 0, false);
}

static void rc_choose_key(conn_t *c, key_event_t k)
{
    int g = (int)k.code - '1';
    if (g >= 0 && g < hosted_count(c) && !k.mods && c->srv->cfg.games.games[g].rcfile[0])
        rc_open(c, g);
    else if (k.code == KEY_ESC || k.code == 'q')
        conn_menu(c, NULL);
}

static void draw_rc_edit(conn_t *c, screen_t *scr)
{
    rcedit_draw(c->menu->rc, scr);
}

static void rc_leave(conn_t *c, const char *msg)
{
    menu_state_t *m = c->menu;
    rcedit_free(m->rc);
    m->rc = NULL;
    conn_menu(c, msg);
}

static void rc_save(conn_t *c)
{
    menu_state_t *m = c->menu;
    char err[200], msg[160];
    buf_t text;
    buf_init(&text);
    rcedit_text(m->rc, &text);
    int r = text.failed ? (snprintf(err, sizeof err, "out of memory"), -1)
                        : hooks_rc_save(c->srv, m->rc_of, c->game_name, text.data ? text.data : "",
                                        text.len, err, sizeof err);
    buf_free(&text);
    if (r < 0) {
        rcedit_notice(m->rc, err);
        menu_redraw(c);
        return;
    }
    snprintf(msg, sizeof msg, "Saved your rc file of %s.", m->rc_of->name);
    rc_leave(c, msg);
}

static void rc_edit_key(conn_t *c, key_event_t k)
{
    switch (rcedit_key(c->menu->rc, k)) {
    case RCEDIT_SAVE: rc_save(c); return;
    case RCEDIT_QUIT:
        rc_leave(c, rcedit_changed(c->menu->rc) ? "The rc file was not saved." : NULL);
        return;
    case RCEDIT_GOING: menu_redraw(c); return;
    }
}

/* ---- the screens ---------------------------------------------------------------- */

static void back_key(conn_t *c, key_event_t k)
{
    (void)k;
    conn_menu(c, NULL);
}

typedef struct {
    void (*draw)(conn_t *c, screen_t *scr);
    void (*key)(conn_t *c, key_event_t k);
} screen_ops_t;

static const screen_ops_t screens[] = {
    [MENU_MAIN] = {draw_main, main_key},
    [MENU_PROMPT] = {draw_prompt, prompt_key},
    [MENU_MESSAGE] = {draw_message, back_key},
    [MENU_WATCHLIST] = {draw_watchlist, watchlist_key},
    [MENU_SCORES] = {draw_scores_loading, back_key},
    [MENU_OPTIONS] = {draw_options, options_key},
    [MENU_RCCHOOSE] = {draw_rc_choose, rc_choose_key},
    [MENU_RCEDIT] = {draw_rc_edit, rc_edit_key},
};

/* Draws what c should show now (held: once the read is handled). */
static void menu_draw(conn_t *c)
{
    menu_state_t *m = c->menu;
    if (m->held) { /* one redraw after the whole read, however many keys */
        m->redraw_due = true;
        return;
    }
    m->redraw_due = false;
    if (menu_ensure_screens(c)) {
        conn_close(c, "out of memory");
        return;
    }
    screen_clear(c->scr);
    if (c->too_small)
        draw_too_small(c, c->scr);
    else if (c->place == CONN_WAIT)
        draw_wait(c, c->scr);
    else
        screens[m->screen].draw(c, c->scr);
    if (!c->too_small)
        announce_draw(c->srv, c->scr);
    conn_send_diff(c);
}

void menu_redraw(conn_t *c)
{
    if (c->ops->relay || c->closing || c->place == CONN_PLAY || c->place == CONN_WATCH)
        return;
    menu_draw(c);
}

bool menu_at_main(const conn_t *c)
{
    return c->place == CONN_MENU && c->menu->screen == MENU_MAIN;
}

/* hooks_t.menu_too_small: a terminal here (conn_too_small routes). */
static void too_small_here(conn_t *c)
{
    c->shown_valid = false;
    if (!c->closing)
        menu_draw(c);
}

void menu_redraw_all(server_t *s)
{
    LIST_EACH (it, &s->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->place != CONN_PLAY && c->place != CONN_WATCH)
            menu_redraw(c);
    }
}

void menu_hold(conn_t *c)
{
    c->menu->held = true;
}

void menu_release(conn_t *c)
{
    c->menu->held = false;
    if (c->menu->redraw_due)
        menu_redraw(c);
}

/* hooks_t.menu_enter: a terminal here (conn_menu routes the others). */
static void enter_here(conn_t *c, const char *msg)
{
    menu_state_t *m = c->menu;
    menu_show(c, MENU_MAIN);
    c->shown_valid = false; /* coming back from a game: redraw everything */
    if (msg != m->msg)
        snprintf(m->msg, sizeof m->msg, "%s", msg ? msg : "");
    menu_redraw(c);
}

/* hooks_t.menu_message: a terminal here (conn_message routes the others). */
static void message_here(conn_t *c, const char *msg)
{
    menu_show(c, MENU_MESSAGE);
    c->shown_valid = false; /* it may come straight from a game screen */
    snprintf(c->menu->msg, sizeof c->menu->msg, "%s", msg);
    menu_redraw(c);
}

void menu_log_out(conn_t *c, const char *msg)
{
    if (conn_in_game(c))
        conn_detach(c, NULL);
    conn_set_user(c, 0, "", "");
    conn_menu(c, msg);
}

/* hooks_t.menu_key: a key of a terminal in the menu (conn_key routes). */
static void menu_key(conn_t *c, key_event_t k)
{
    if (c->too_small && k.code != 'q')
        return;
    if (c->place == CONN_MENU)
        screens[c->menu->screen].key(c, k);
}

void menu_tick(server_t *s)
{
    LIST_EACH (it, &s->menu_conns) {
        conn_t *c = LIST_ITEM(it, conn_t, mnode);
        if (!c->closing && c->menu->screen == MENU_WATCHLIST)
            menu_redraw(c);
    }
}

void menu_hooks(hooks_t *h)
{
    h->menu_enter = enter_here;
    h->menu_message = message_here;
    h->menu_redraw = menu_redraw;
    h->menu_too_small = too_small_here;
    h->menu_key = menu_key;
}
