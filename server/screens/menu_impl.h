/* menu_impl — what the menu's files share; nothing outside them includes
 * it (the rest of the daemon uses menu.h).
 *
 * One file per screen: each holds its row of the screen table, a
 * menu_screen_t named menu_screen_NAME (how it is drawn, what its keys
 * do), and MENU_SCREEN_LIST below lists them, as tmux's cmd_table lists
 * its cmd-*.c entries. menu.c draws whichever screen a conn shows and
 * hands it its keys. Adding a screen: a file with its menu_screen_t, a
 * row here, and a way in (an item of the main menu, menu_main.c). */
#ifndef WARREN_MENU_IMPL_H
#define WARREN_MENU_IMPL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "accounts.h"
#include "gamecfg.h"
#include "mail.h"
#include "menu.h"
#include "rcedit.h"
#include "server.h"
#include "wlist.h"

#define STY(fg, a) ((style_t){(fg), SCREEN_DEFAULT_COLOR, (a)})
#define ST_TITLE   STY(14, ATTR_BOLD)
#define ST_KEY     STY(11, ATTR_BOLD)
#define ST_MSG     STY(9, ATTR_BOLD)
#define ST_DIM     STY(SCREEN_DEFAULT_COLOR, ATTR_DIM)

/* The screens: X(ID, name) for menu_screen_name in menu_NAME.c. */
#define MENU_SCREEN_LIST(X)                                                     \
    X(MAIN, main)           /* the main menu: log in, play, watch, ... */       \
    X(PROMPT, prompt)       /* reading a line: a name, a password, a message */ \
    X(MESSAGE, message)     /* a notice; any key goes back to the menu */       \
    X(WATCHLIST, watchlist) /* the list of live games */                        \
    X(SCORES, scores)       /* the high scores */                               \
    X(OPTIONS, options)     /* the account's options */                         \
    X(RCCHOOSE, rcchoose)   /* which game's rc file to edit */                  \
    X(RCEDIT, rcedit)       /* the rc file editor (rcedit.h) */

#define MENU_SCREEN_ID_(id, name) MENU_##id,
typedef enum { MENU_SCREEN_LIST(MENU_SCREEN_ID_) MENU_SCREENS } menu_screen_id_t;
#undef MENU_SCREEN_ID_

/* One screen: drawn into scr (cleared, the conn's size); a key while it is
 * shown. tick: redrawn every second while shown (the watch list). */
typedef struct {
    void (*draw)(conn_t *c, screen_t *scr);
    void (*key)(conn_t *c, key_event_t k);
    bool tick;
} menu_screen_t;

#define MENU_SCREEN_DECL_(id, name) extern const menu_screen_t menu_screen_##name;
MENU_SCREEN_LIST(MENU_SCREEN_DECL_)
#undef MENU_SCREEN_DECL_

/* A line read at the prompt screen (menu_prompt.c), a row each in the file
 * of what asks for it (menu_account.c, menu_mail.c). */
typedef struct menu_prompt {
    const char *title, *label, *hint;
    bool secret;             /* a password: not echoed */
    void (*done)(conn_t *c); /* Enter */
    size_t max;              /* bytes typed at most; 0: a name's or a password's */
} menu_prompt_t;

/* The longest line a prompt takes: a mail's or a password's bytes. */
#define MENU_LINE_MAX (MAIL_BYTES > ACCOUNTS_PASSWORD_BYTES ? MAIL_BYTES : ACCOUNTS_PASSWORD_BYTES)

/* Per conn (conn_t.menu), private to the menu's files. */
struct menu_state {
    menu_screen_id_t screen;
    const menu_prompt_t *prompt;
    char line[MENU_LINE_MAX + 1]; /* what is typed at the prompt */
    size_t line_len;
    char pend_name[32], pend_pass[ACCOUNTS_PASSWORD_BYTES + 1],
        pend_old[ACCOUNTS_PASSWORD_BYTES + 1];
    char msg[MENU_MSG_MAX]; /* a notice: lines split by "\n" on MENU_MESSAGE */
    int wl_page, wl_sort;
    wl_view_t wl_view;      /* menu_watchlist.c: the watch list's page as drawn */
    uint8_t colors;         /* options: index into COLOUR_MODES; 0 = from the terminal */
    uint8_t glyphs;         /* options: index into GLYPH_SETS; 0 = from the terminal */
    rcedit_t *rc;           /* MENU_RCEDIT's editor; owned */
    const gamecfg_t *rc_of; /* its game (the server's config) */
    uint8_t rc_busy;        /* menu_rcedit.c: the file is being read or saved */
    uint32_t rc_token;      /* menu_rcedit.c: names the request the editor waits for */
    bool held;              /* a read is being handled: redraws wait (menu_hold) */
    bool redraw_due;
    bool mail_due; /* a login's keys left the main menu: its mail shows once back there */
};

/* ---- menu.c: what every screen uses ---- */

/* c shows screen (CONN_MENU). */
void menu_show(conn_t *c, menu_screen_id_t screen);
/* c's pair of grids at its size (made or resized); -1 when out of memory. */
int menu_screens_ready(conn_t *c);
/* "Warren - a roguelike host" and who is logged in. */
void menu_draw_header(conn_t *c, screen_t *scr);
/* text from (x, y) in lines of at most w characters, broken at spaces (a
 * longer word is cut), at most max lines (the last one cut): how many
 * lines it takes. scr NULL: only counts them. */
int menu_wrap(screen_t *scr, int x, int y, int w, int max, style_t st, const char *text);
/* A menu item at row y: its key, then ") label" and an optional value. */
void menu_draw_item(screen_t *scr, int y, char key, const char *label, const char *value);
/* Hosted games ([game ID] sections) take the keys 1-9, after Warren's own:
 * how many the account sees. */
int menu_hosted_count(const conn_t *c);
/* The hosted games with an rc file the player may edit: how many, the
 * first in *first. */
int menu_rc_games(const conn_t *c, int *first);

/* ---- the ways into the screens (the main menu's items) ---- */

void menu_open_login(conn_t *c);    /* menu_account.c */
void menu_open_register(conn_t *c); /* menu_account.c */
void menu_open_password(conn_t *c); /* menu_account.c */
void menu_open_mail(conn_t *c);     /* menu_mail.c */
void menu_open_watchlist(conn_t *c);
void menu_open_scores(conn_t *c);
void menu_open_options(conn_t *c);
void menu_open_rc(conn_t *c); /* menu_rcchoose.c */
/* The editor on the player's rc file of game g (menu_rcedit.c). */
void menu_rcedit_open(conn_t *c, int g);

/* ---- menu_prompt.c ---- */

/* The prompt p, its line empty (a notice, if any, stays). */
void menu_prompt_open(conn_t *c, const menu_prompt_t *p);
/* The next prompt, with no notice. */
void menu_prompt_next(conn_t *c, const menu_prompt_t *p);
/* The same prompt again, saying what was wrong. */
void menu_prompt_again(conn_t *c, const char *why);
/* Forgets the passwords typed and the line. */
void menu_wipe_secrets(menu_state_t *m);

#endif
