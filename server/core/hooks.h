/* hooks — how the core calls up without naming what is above it.
 *
 * The core (server/core/) knows connections, sessions, the journal,
 * storage and the loops. What sits above it (the screens a terminal shows
 * outside a game, watchers' overlays and chat, the gateways, records,
 * hosted games, the control socket) registers callbacks here when warrend
 * starts (main.c), before any loop runs; the core calls them and never
 * includes their headers: the build refuses it (docs/ARCHITECTURE.md).
 *
 * Two kinds of entries:
 *   observers  a list per point, called in the order registered (at most
 *              HOOKS_MAX each; hooks_t.full says one was left out)
 *   providers  one function, NULL when nothing above provides it: the
 *              core then does without (a unit test's server has none)
 *
 * Ownership: main.c owns the table; every loop's server_t points at it
 * (server_t.hooks), read-only once the loops run, so any thread may read
 * it. Each callback runs on the thread of the loop it is given. */
#ifndef WARREN_HOOKS_H
#define WARREN_HOOKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "gamecfg.h"
#include "keys.h"
#include "screen.h"

typedef struct server server_t;
typedef struct conn conn_t;
typedef struct session session_t;
typedef struct session_end session_end_t;

#define HOOKS_MAX 6 /* observers of one list; past it main.c refuses to start */

/* A game's last screen, for whoever viewed it (session_finish). */
typedef struct {
    conn_t *conn;
    bool player;
} hooks_viewer_t;

/* An rc file read (text: len bytes, borrowed for the call) or saved
 * (text ""), or err why not: hooks_rc_load's and hooks_rc_save's answer. */
typedef void hooks_rc_fn(void *ud, const char *text, size_t len, const char *err);

/* Hosted games (hosted/hostgame.c): started from a menu or a page, and the
 * players' rc files the editors read and write (see hostgame.h). */
typedef struct {
    void (*play)(conn_t *c, const gamecfg_t *g);
    int (*rc_load)(server_t *srv, const gamecfg_t *g, const char *user, hooks_rc_fn *fn, void *ud,
                   char *err, size_t errlen);
    int (*rc_save)(server_t *srv, const gamecfg_t *g, const char *user, const char *text,
                   size_t len, hooks_rc_fn *fn, void *ud, char *err, size_t errlen);
} hooks_hosted_t;

/* How web logins ended at another node (hooks_t.logins_ended). */
typedef enum { HOOKS_LOGOUT, HOOKS_PASSWD, HOOKS_LOGINS } hooks_logins_t;

typedef struct hooks {
    /* ---- providers: screens (screens/menu.c) ---- */
    /* A terminal here (not a relay's stand-in, not on its way elsewhere:
     * conn.h routes those) shows the main menu with a notice (NULL: none),
     * a notice alone, what it should show now, or the "enlarge your
     * terminal" notice; a key of c in the menu. */
    void (*menu_enter)(conn_t *c, const char *msg);
    void (*menu_message)(conn_t *c, const char *msg);
    void (*menu_redraw)(conn_t *c);
    void (*menu_too_small)(conn_t *c);
    void (*menu_key)(conn_t *c, key_event_t k);
    /* What the layers above keep per conn (conn_t.menu, conn_t.watch):
     * made by conn_init (-1: out of memory), freed by conn_fini. */
    int (*conn_open)(conn_t *c);
    void (*conn_close)(conn_t *c);
    /* ---- providers: a terminal watcher (screens/watch.c) ---- */
    bool (*watcher_key)(conn_t *c, session_t *s, key_event_t k); /* true: taken */
    bool (*watcher_own)(const conn_t *c); /* an overlay is up: its own frames */
    void (*watcher_draw)(session_t *s, conn_t *c, screen_t *scr);
    /* the footer line below the game; false when unchanged and not forced */
    bool (*watcher_footer)(session_t *s, conn_t *c, char *out, size_t n, bool force);
    /* c begins to watch s (before its frames are chosen) */
    void (*watcher_begun)(conn_t *c, session_t *s);
    /* ---- providers: chat (screens/chat.c) ---- */
    /* A line said at another node (notify.h) about s, a game here or a
     * mirror of one: from (an account's name) said text (n bytes). */
    void (*chat_heard)(session_t *s, const char *from, const char *text, size_t n);
    /* ---- providers: a game's end (screens/gameover.c) ---- */
    /* Its n viewers, taken off the game, see its last screen (end says
     * how it went); NULL or false: the core tells them in one line. */
    bool (*game_over)(server_t *srv, const session_end_t *end, const hooks_viewer_t *v, int n);
    /* ---- providers: hosted games (hosted/); NULL: there are none ---- */
    const hooks_hosted_t *hosted;

    /* ---- observers ---- */
    /* The player's key, before the game sees it: true when one took it
     * (Warren's keys: playkeys.c; a chat line being typed: chat.c). */
    bool (*player_key[HOOKS_MAX])(conn_t *c, session_t *s, key_event_t k);
    /* Drawn over every frame of a game, in order (chat's strip, the
     * administrator's announcement). */
    void (*overlay[HOOKS_MAX])(session_t *s, screen_t *scr);
    /* A session leaves memory: what the layers above hung on it. */
    void (*session_gone[HOOKS_MAX])(session_t *s);
    /* Every loop, once a second (server_tick). */
    void (*tick[HOOKS_MAX])(server_t *k);
    /* loops = N (shard.h): another loop starts (-1: it cannot), stops
     * (shutdown, or a failed start) and is freed after its thread ended. */
    int (*loop_start[HOOKS_MAX])(server_t *k);
    void (*loop_stop[HOOKS_MAX])(server_t *k);
    void (*loop_free[HOOKS_MAX])(server_t *k);
    /* Home: a Warren game's end is stored (records verify it by replay). */
    void (*game_stored[HOOKS_MAX])(server_t *home, int64_t game_id);
    /* Home: an account's password changed; its web sessions other than
     * keep_hash's (NULL: all) end (web/webgw.c). */
    void (*password_changed[HOOKS_MAX])(server_t *srv, int64_t user_id, const char *keep_hash);
    /* Home: another node ended web logins (notify.h's NOTIFY_LOGOUT,
     * NOTIFY_PASSWD, NOTIFY_LOGINS as how, with the event's a and b):
     * their websockets here close (web/webgw.c). HOOKS_LOGINS with a 0
     * (listening again after a gap): every websocket's login is looked
     * up again. */
    void (*logins_ended[HOOKS_MAX])(server_t *home, hooks_logins_t how, int64_t a, int64_t b);
    /* Home: another node kicked, locked, deleted or renamed an account
     * (user_id) or banned addresses (user_id 0: those the bans here now
     * refuse): their websockets here are told msg and close (web/webgw.c);
     * word says which in the log ("kicked", "locked", "deleted",
     * "renamed", "banned"); keep: a rename's new name, the websockets
     * logged in under it stay (moderation_known_as), else NULL. */
    void (*kicked_elsewhere[HOOKS_MAX])(server_t *home, int64_t user_id, const char *msg,
                                        const char *word, const char *keep);
    /* Home: mail was left for an account (a terminal at the menu shows
     * it); user_id 0: for anyone (mail may have come unheard). */
    void (*mail_left[HOOKS_MAX])(server_t *srv, int64_t user_id);

    bool full; /* an observer found its list full: main.c refuses to start */
} hooks_t;

/* Adds fn to an observer list of a hooks_t (h->overlay, h->tick, ...). */
#define HOOKS_ADD(h, list, fn)                      \
    do {                                            \
        size_t hk_i = 0;                            \
        while (hk_i < HOOKS_MAX && (h)->list[hk_i]) \
            hk_i++;                                 \
        if (hk_i < HOOKS_MAX)                       \
            (h)->list[hk_i] = (fn);                 \
        else                                        \
            (h)->full = true;                       \
    } while (0)

/* Calls every observer of a list with the arguments: HOOKS_CALL(srv->hooks->tick, srv). */
#define HOOKS_CALL(list, ...)                                       \
    for (size_t hk_i = 0; hk_i < HOOKS_MAX && (list)[hk_i]; hk_i++) \
    (list)[hk_i](__VA_ARGS__)

/* The table of a server with nothing registered (server_init's). */
extern const hooks_t hooks_none;

/* Through hooks_t.hosted, for the screens and the gateways: c plays the
 * hosted game g (see hostgame.h); the player's rc file of g read whole,
 * or replaced by text, without waiting: 0 with the answer to come to fn
 * on the home loop once (never within the call; the caller keeps ud
 * alive until then), or -1 with err (fn is not called). Without hosted
 * games: the menu with a notice, or -1 with err. */
void hooks_hosted_play(conn_t *c, const gamecfg_t *g);
int hooks_rc_load(server_t *srv, const gamecfg_t *g, const char *user, hooks_rc_fn *fn, void *ud,
                  char *err, size_t errlen);
int hooks_rc_save(server_t *srv, const gamecfg_t *g, const char *user, const char *text, size_t len,
                  hooks_rc_fn *fn, void *ud, char *err, size_t errlen);

#endif
