/* conn — one viewer's connection as sessions and menus see it, whatever
 * carries it: a telnet client (telnet/telnet.c, on TCP or the Unix socket)
 * or a browser's websocket (web/webgw.c). Each gateway embeds a conn_t as
 * the first member of its own private struct and fills a conn_ops_t;
 * everyone else reaches the transport only through the calls below.
 *
 * Who may touch what:
 *   read-only   set by the gateway that made the conn; others read them
 *   public      read by any server file; written only by the files named
 *   private     one module's; the others do not touch (opaque where it
 *               can be: menu state and the input limit are incomplete types)
 *
 * Ownership: the gateway owns its conns. A conn is freed by ops->release
 * once it is closing and no asynchronous request holds it (refs == 0):
 * whoever keeps a conn_t * across a callback takes conn_ref first and
 * conn_unref after. The thread of the loop it is on (c->srv): with loops =
 * N a telnet conn is handed to its game's loop and back (conn_to_game). */
#ifndef WARREN_CONN_H
#define WARREN_CONN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ansi.h"
#include "keys.h"
#include "list.h"
#include "screen.h"

typedef struct server server_t;
typedef struct conn conn_t;
typedef struct session session_t;
typedef struct menu_state menu_state_t; /* menu.c's */
typedef struct ratelimit ratelimit_t;   /* ratelimit.c's */
typedef struct watchview watchview_t;   /* watch.c's */

#define TERM_MIN_W 80
#define TERM_MIN_H 24
#define TERM_MAX_W 400
#define TERM_MAX_H 200

/* Where a conn is. Keys go to the session in PLAY and WATCH, to the menu
 * otherwise; in WAIT they are held (at most CONN_HELD_KEYS) for the game
 * being loaded, or for the menu or prompt an account check reaches
 * (conn_take_held), and dropped if the wait ends anywhere else. */
#define CONN_HELD_KEYS 32
typedef enum {
    CONN_MENU = 0, /* outside a game: the menu (a browser: its own page) */
    CONN_WAIT,     /* an account check or a game load is on its way */
    CONN_PLAY,     /* attached to a session as its player */
    CONN_WATCH,    /* attached to a session as a watcher */
} conn_place_t;

/* Where a conn that changes loops (loops = N) goes once there: the game
 * it plays or watches there, home's menu with a message, or out (told
 * text, a terminal's bytes, and closed for reason). */
typedef enum { GO_PLAY, GO_WATCH, GO_MENU, GO_MESSAGE, GO_CLOSE } conn_go_t;
/* The bytes of a message a conn takes to another loop, its NUL too: any
 * notice the menu shows (menu.h's MENU_MSG_MAX), a game's final screen. */
#define CONN_MSG_MAX 1024
typedef struct {
    conn_go_t go;
    int64_t game_id;    /* GO_WATCH */
    bool has_text;      /* GO_MENU: with a message (GO_MESSAGE, GO_CLOSE: always) */
    const char *reason; /* GO_CLOSE: a string constant, for the log */
    char text[CONN_MSG_MAX];
} conn_dest_t;

/* A gateway's transport, one const table per gateway. */
typedef struct {
    /* A browser page rather than a terminal: it has no menu (leave sends it
     * home), takes JSON messages and shows status lines of its own. */
    bool browser;
    /* Output: frames and menus (text = false; a terminal's bytes) or one
     * JSON message (text = true; a gateway without them drops it). */
    void (*write)(conn_t *c, const void *data, size_t len, bool text);
    /* The same, for bytes many conns are sent (a frame's shared encoding):
     * id names them in the process (the same id, the same bytes; frames.c
     * puts the loop in it), so the gateway may keep one copy for all.
     * NULL: write. */
    void (*write_shared)(conn_t *c, const void *data, size_t len, bool text, uint64_t id);
    bool (*writable)(const conn_t *c); /* the output queue is below its limit */
    /* Writes the transport's own bytes that outhold_add kept for the end of
     * a round (outhold.h). NULL: this gateway's writes are never held. */
    void (*send_held)(conn_t *c, const void *data, size_t len);
    void (*close)(conn_t *c, const char *why);
    /* A browser's conn left its game (takeover, end, detach, refusal): tell
     * it msg and send it home. A terminal's is NULL: menu.c shows the menu. */
    void (*leave)(conn_t *c, const char *msg);
    void (*release)(conn_t *c); /* frees c (closing, refs == 0) */
    /* No request holds c any more (refs fell to 0) and it is open. NULL: nothing to do. */
    void (*settled)(conn_t *c);
    /* Hands c to the loop to, where it goes to d (conn_arrived); its
     * gateway moves its socket there. NULL: the gateway's conns stay on the
     * home loop, and a game on another loop sees them through a relay. */
    void (*move)(conn_t *c, server_t *to, const conn_dest_t *d);
    /* A relay (relay.h): the stand-in, on a game's loop, of a conn on the
     * home loop. Its menus go home; it is never in a menu itself. */
    bool relay;
    /* Stops reading c's input (stop) while it has keys kept for a later
     * turn (readturn.h), the rest left to the kernel; or starts again.
     * NULL: its input comes another way (a relay's stand-in). */
    void (*pause)(conn_t *c, bool stop);
} conn_ops_t;

struct conn {
    /* read-only */
    server_t *srv;
    const conn_ops_t *ops;
    uint64_t id;
    char ip[64];  /* the full address (logs, bans, the admin's views): conn_set_ip */
    char key[64]; /* what per-address limits charge (addrkey.h): conn_set_ip */
    bool closing; /* written by the gateway */
    bool json;    /* frames as JSON (protocol/json.h), not ANSI; written by webgw.c */
    bool moving;  /* on its way to another loop (conn_to_game, conn_go_home) */

    /* public: the terminal. The gateway writes the size (as the client
     * said it, 0 x 0: not said; then clamped to TERM_MAX_*, a browser's
     * raised to TERM_MIN_*) and term; menu.c makes prof from term and the
     * account's options. Whether it is too small: conn_small. */
    int raw_w, raw_h;
    int w, h;
    int64_t big_cells; /* of home's big_cells, w x h's past 80x24 (conn_size_fit) */
    char term[40];
    ansi_profile_t prof;
    int prof_id;   /* ansi_profile_id(&prof) */
    bool two_cell; /* the account's option: two-cell map tiles */
    bool turns;    /* the account's option: the turn counter on the status line */

    /* public: the account; written through conn_set_user (menu.c, webgw.c,
     * and admin/control.c's lock through menu_log_out) */
    int64_t user_id; /* 0 = anonymous */
    char user[32];
    char game_name[32]; /* what hosted games know the account as; "" = none */

    /* public: where it is (written through conn_set_place) and what its
     * terminal shows; written by session.c and menu.c. scr is drawn, shown
     * is what the terminal has. */
    conn_place_t place;
    session_t *sess; /* attached session (PLAY, WATCH) */
    screen_t *scr, *shown;
    bool shown_valid; /* false: the next frame is a keyframe */
    bool need_key;    /* frames were skipped: a keyframe once it drains */
    bool own_render;  /* a watcher drawn at its own size (session.c) */
    /* public: on the home loop, the relay of a game on another loop this
     * conn plays or watches (relay.c); sess is NULL meanwhile */
    struct relay *relay;

    /* private */
    int refs;                         /* conn_ref / conn_unref */
    list_t node;                      /* the server's conns: telnet conns only (telnet.c) */
    list_t mnode;                     /* the server's menu_conns: a terminal in the menu (conn.c) */
    list_t wnode;                     /* its session's watchers (session.c) */
    menu_state_t *menu;               /* menu.c */
    ratelimit_t *input_limit;         /* input bytes per second (conn.c, ratelimit.c) */
    ratelimit_t *switch_limit;        /* a watcher's moves to another game (watch.c) */
    uint64_t input_dropped;           /* bytes over it not yet logged */
    uint64_t input_logged_ms;         /* when a drop was last logged (0: never) */
    uint64_t resized_ms;              /* when a size change was last drawn (conn_resize_wait) */
    watchview_t *watch;               /* a terminal watcher's help, chat line, footer (watch.c) */
    key_event_t held[CONN_HELD_KEYS]; /* typed in CONN_WAIT (conn_key, conn_play_held) */
    uint8_t nheld;
    const char *held_for;  /* what they wait for, as the log names it (conn_wait_for) */
    uint32_t held_dropped; /* typed past held this wait: dropped, the first logged */
    struct readkept *kept; /* keys kept past a turn's budget (readturn.c) */
};

/* Sets up the fields every gateway shares: a new id, empty lists, menu
 * state and the input limit. Returns 0, or -1 when out of memory (then
 * conn_fini it). */
int conn_init(conn_t *c, server_t *srv, const conn_ops_t *ops);
/* Frees what conn_init and the view made; the gateway frees c itself. */
void conn_fini(conn_t *c);

void conn_write(conn_t *c, const void *data, size_t len);      /* frames, menus */
void conn_write_text(conn_t *c, const char *json, size_t len); /* a JSON message (web) */
bool conn_writable(const conn_t *c);
/* Bytes shared by many conns, named by id (conn_ops_t.write_shared). */
void conn_write_shared(conn_t *c, const void *data, size_t len, bool text, uint64_t id);
void conn_close(conn_t *c, const char *why);
void conn_ref(conn_t *c);
void conn_unref(conn_t *c);
/* Input bytes allowed now by the connection's rate cap (a flood is
 * dropped, not queued; the drop is logged, at most once in 10 s a
 * connection, with the bytes dropped since, and its user told as often:
 * a browser in its page's status line, a terminal's player over its
 * game's bottom row for a few seconds). */
size_t conn_rate_allow(conn_t *c, size_t n);
void conn_set_user(conn_t *c, int64_t user_id, const char *name, const char *game_name);
/* The client's address, and with it the key its per-address limits charge
 * (addrkey.h, `ipv6-prefix`): where the address becomes known, and again
 * when telnet learns it from `warren --ssh`. */
void conn_set_ip(conn_t *c, const char *ip);
/* Moves c to p; a terminal in the menu is on the server's menu_conns. */
void conn_set_place(conn_t *c, conn_place_t p);
/* Sends the difference between scr and shown (a keyframe when shown is not
 * valid or a keyframe is due), as ANSI or JSON, and makes shown match. */
void conn_send_diff(conn_t *c);
/* In a game, here (sess) or on another loop (relay). */
bool conn_in_game(const conn_t *c);

/* The one routing point: what a gateway hands on goes to c's game here
 * (session.h), to its game on another loop (relay.h), or to the menu
 * (hooks.h; a browser has none: its keys outside a game are dropped).
 * A key past the loop turn's share of input waits for a later turn, in
 * order, c's reading paused meanwhile (readturn.h). */
void conn_key(conn_t *c, key_event_t k);
/* The same, now: conn_key once the loop turn's budget for input
 * (readturn.h) allows k, or the keys it kept as a later turn plays them. */
void conn_key_now(conn_t *c, key_event_t k);
/* c has just been attached to its game (session.c): the keys it typed
 * while the game loaded (a key sent with the menu's choice, or before the
 * first frame) are played now, in order. */
void conn_play_held(conn_t *c);
/* Holds k for where c is about to be (the game it waits for, or a
 * watcher's next game home is picking: watch.c), as CONN_WAIT does; past
 * CONN_HELD_KEYS it is dropped, the drops logged once a wait. */
void conn_hold_key(conn_t *c, key_event_t k);
/* Moves the keys c holds into keys (emptying its hold); returns how many.
 * For a wait whose end leaves c in the menu (conn_set_place drops them
 * there): the caller plays them with conn_play_keys once it is there. */
int conn_take_held(conn_t *c, key_event_t keys[CONN_HELD_KEYS]);
/* Plays keys[0..n) in order as if typed now, to wherever c is (one that
 * starts a game load holds the rest for it); stops if c closes. */
void conn_play_keys(conn_t *c, const key_event_t *keys, int n);
void conn_resized(conn_t *c); /* its size or profile changed */
/* A size change redraws the game and sends each of its watchers a
 * keyframe, so a client that sends sizes in a flood (NAWS, TTYPE or
 * websocket resizes, each a few bytes) is drawn at most once every
 * CONN_RESIZE_MS: 0 when the change the gateway holds may be drawn now
 * (the time is noted), else the ms to wait before asking again. The
 * gateway keeps only the latest size meanwhile. */
#define CONN_RESIZE_MS 100
uint64_t conn_resize_wait(conn_t *c);
void conn_drained(conn_t *c); /* its output queue emptied */
/* c leaves its game (player or watcher); then the menu with why, unless
 * NULL or closing. */
void conn_detach(conn_t *c, const char *why);
/* Where c goes when it is out of a game, wherever it is (a relay's
 * stand-in sends its real conn there, a conn on another loop goes home
 * first, a browser is sent home by its gateway): the main menu with a
 * notice (NULL: none); a notice, any key returns; "One moment..." in
 * CONN_WAIT; "enlarge your terminal" while it is conn_small. */
void conn_menu(conn_t *c, const char *msg);
void conn_message(conn_t *c, const char *msg);
void conn_wait(conn_t *c);
/* c waits in CONN_WAIT for what (a static string: "the login"), as the
 * log names it when held keys overflow; any other wait is for the game. */
void conn_wait_for(conn_t *c, const char *what);
void conn_too_small(conn_t *c);
/* The least terminal what c shows needs, decided here only: the game's
 * (session_t.min_w, min_h: a hosted game's min-size) while c plays or
 * watches one on this loop, else TERM_MIN_* (the menu; a game on another
 * loop, which is Warren's own). */
void conn_min_size(const conn_t *c, int *w, int *h);
/* Whether c's terminal, as its client said it (80x24 when it said none),
 * is below conn_min_size: then it is told so (conn_too_small) instead
 * of shown the game or the menu, and its keys are ignored (in the menu
 * all but q). A JSON client never is. */
bool conn_small(const conn_t *c);
/* c's terminal as its client said it (raw_w x raw_h; w x h when it said none). */
void conn_said_size(const conn_t *c, int *w, int *h);
/* The size c's gateway draws at, *w x *h (within TERM_MAX_*), kept within
 * the screen-cells cap: the cells it has past 80x24 are charged to home's
 * count (freed with c, conn_fini); when they would pass the cap, *w x *h
 * is cut to at most 80x24 (logged, under the log's cap) and c holds none. */
void conn_size_fit(conn_t *c, int *w, int *h);

/* loops = N (shard.h). c plays its game (game_id 0) or watches game_id on
 * loop k: handed to that loop when its gateway can move it, relayed from
 * home otherwise. c waits meanwhile. */
void conn_to_game(conn_t *c, server_t *k, int64_t game_id);
/* A conn handed to a game's loop (not home, not a relay's stand-in). */
bool conn_away(const conn_t *c);
/* c is told line (a terminal's bytes) and closed for reason; a conn on
 * its way between loops is told once it arrives. */
void conn_tell_close(conn_t *c, const char *line, const char *reason);
/* The gateway, on the loop c was handed to: c is there; it goes to d. */
void conn_arrived(conn_t *c, const conn_dest_t *d);
/* Shutdown: "the server is shutting down" and closed (server.c). */
void conn_bye(conn_t *c);

#endif
