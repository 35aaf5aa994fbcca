/* server — warrend's internal contract: the server context, connections and
 * sessions, shared by the files of server/ (main, conn, menu, session).
 *
 * Everything runs on one libuv loop. A connection (conn_t) is one telnet
 * client, on TCP or the Unix socket. A session (session_t) owns one live
 * game, its journal position and its viewers: at most one player connection
 * and any number of watchers. A session touches only its own engine, its
 * viewers and the server's registry lists (so sessions can later be spread
 * over several loops).
 *
 * Ownership: the server owns every conn and session. A conn is freed in its
 * libuv close callback once no asynchronous request holds it (refs == 0).
 * A session is freed when its game ends or its grace period runs out. */
#ifndef WARREN_SERVER_H
#define WARREN_SERVER_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include <libtelnet.h>
#include "ansi.h"
#include "buf.h"
#include "accounts.h"
#include "config.h"
#include "db.h"
#include "game.h"
#include "keys.h"
#include "list.h"
#include "screen.h"

#define WARREN_VERSION "0.1.0"
#define TERM_MIN_W     80
#define TERM_MIN_H     24
#define TERM_MAX_W     400
#define TERM_MAX_H     200

typedef struct server server_t;
typedef struct conn conn_t;
typedef struct session session_t;

typedef enum {
    MODE_MAIN = 0,  /* the main menu (anonymous or logged in) */
    MODE_PROMPT,    /* reading a line: name, password, ... */
    MODE_WAIT,      /* waiting for an account check on the thread pool */
    MODE_MESSAGE,   /* a message; any key goes back to the menu */
    MODE_PLAY,      /* attached to a session as its player */
    MODE_WATCH,     /* attached to a session as a watcher */
    MODE_WATCHLIST, /* the list of live games */
    MODE_SCORES,
    MODE_OPTIONS,
} conn_mode_t;

typedef enum {
    PROMPT_LOGIN_NAME,
    PROMPT_LOGIN_PASS,
    PROMPT_REG_NAME,
    PROMPT_REG_PASS,
    PROMPT_REG_PASS2,
    PROMPT_CHPW_OLD,
    PROMPT_CHPW_NEW,
    PROMPT_CHPW_NEW2,
} prompt_t;

/* A viewer's transport. Telnet connections have ops == NULL; other
 * gateways (the web) fill this table and own their conns: such a conn is
 * not on the server's list, has no libuv handles, and is freed by
 * ops->release once it is closing and no request holds it (refs == 0).
 * Sessions and menus treat every conn alike through conn_write,
 * conn_writable, conn_close, conn_ref/unref and menu_enter/menu_message. */
typedef struct {
    void (*write)(conn_t *c, const void *data, size_t len, bool text);
    bool (*writable)(const conn_t *c);
    void (*close)(conn_t *c, const char *why);
    /* The conn left its game (takeover, end, detach, refusal): tell it msg
     * and send it home. Replaces the telnet menu. */
    void (*leave)(conn_t *c, const char *msg);
    void (*release)(conn_t *c);
} conn_ops_t;

struct conn {
    server_t *srv;
    const conn_ops_t *ops; /* NULL: telnet */
    void *gw;              /* the gateway's own state (ops != NULL) */
    bool json;             /* frames as JSON (protocol/json.h) instead of ANSI */
    list_t node;           /* server's conns (telnet only) */
    uint64_t id;
    union {
        uv_handle_t handle;
        uv_stream_t stream;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } io;
    uv_timer_t esc_timer;
    int handles_open; /* libuv handles not yet closed */
    int refs;         /* asynchronous requests that point at us */
    bool closing, is_unix, env_asked;
    telnet_t *tn;
    keydec_t kd;
    char ip[64];
    char term[40];
    ansi_profile_t prof;
    int prof_id;
    int raw_w, raw_h; /* as the client said (0 = unknown) */
    int w, h;         /* clamped size frames are drawn at */
    bool too_small;
    /* output */
    size_t outq;   /* bytes handed to uv_write, not yet written */
    bool need_key; /* skipped frames: send a keyframe when drained */
    /* menus: scr is drawn, shown is what the terminal shows */
    screen_t *scr, *shown;
    bool shown_valid;
    bool in_input, redraw_due; /* menu redraws wait for the end of a read */
    conn_mode_t mode;
    prompt_t prompt;
    char line[136];
    size_t line_len;
    char pend_name[32], pend_pass[136], pend_old[136];
    char msg[256];   /* one-line notice on the menu */
    int64_t user_id; /* 0 = anonymous */
    char user[32];
    bool two_cell;
    uint8_t colors; /* options: index into the menu's colour modes; 0 = from the terminal */
    uint8_t glyphs; /* options: index into the menu's glyph sets; 0 = from the terminal */
    /* attached session */
    session_t *sess;
    list_t wnode;  /* session's watchers */
    screen_t *own; /* watcher rendering at its own size */
    bool own_render;
    bool hook_armed; /* test hooks: Ctrl-] seen */
    /* watch list */
    int wl_page, wl_sort;
    /* limits */
    double tokens;
    uint64_t last_fill_ms, last_input_ms;
};

struct session {
    server_t *srv;
    list_t node; /* server's sessions */
    int64_t game_id, user_id;
    char user[32];
    game_t *game;
    uint64_t seed;
    uint64_t seq;      /* keys applied (journal length) */
    uint64_t snap_seq; /* seq of the newest snapshot written */
    uint64_t snap_turn;
    uint32_t level_changes;
    conn_t *player;
    list_t watchers; /* conn_t.wnode */
    int nwatchers;
    screen_t *grid, *sent; /* current frame and the shared baseline */
    uint64_t started_ms, last_key_ms, detached_ms;
    bool ended, broken;
    bool frame_due;     /* a frame waits for its keys to be durable */
    int db_refs;        /* db callbacks that point at us */
    int jpending;       /* journal appends not yet committed */
    bool dead;          /* unlinked; freed when db_refs drops to 0 */
    bool chat_off;      /* the player turned spectator chat off */
    uint64_t frame_seq; /* frames broadcast (JSON frames carry it) */
};

struct server {
    uv_loop_t *loop;
    config_t cfg;
    content_t *content;
    script_vm_t *vm; /* the loop thread's script vm, lent to every game_input here */
    db_t *db;
    accounts_t *acc;
    void *web;               /* web_t when the web gateway runs */
    struct records *records; /* score pages, replays, verification (records.h) */
    uv_tcp_t tcp_listener;
    uv_pipe_t unix_listener;
    bool tcp_on, unix_on;
    uv_signal_t sigterm, sigint;
    uv_timer_t tick;
    list_t conns; /* telnet conns (conn_t.node) */
    int nconns;
    list_t sessions; /* session_t.node */
    int nsessions;
    uint64_t next_conn_id;
    bool stopping;
    /* admin: the control socket (control.c) and the announcement it sets */
    uv_pipe_t ctl_listener;
    bool ctl_on;
    list_t ctls; /* open control connections */
    char announce[200];
    uint64_t announce_until; /* uv_now ms; shown while now < this */
    buf_t scratch;           /* per-frame encode buffers (loop thread only) */
    buf_t enc[ANSI_PROFILE_IDS];
    buf_t enc_json; /* the JSON encoding of the same frame */
};

uint64_t now_ms(const server_t *s);

/* conn.c: listeners, telnet, output */
int conn_listen(server_t *s);
void conn_stop_listening(server_t *s);
void conn_write(conn_t *c, const void *data, size_t len);      /* telnet-escaped */
void conn_write_text(conn_t *c, const char *json, size_t len); /* JSON message (web only) */
size_t conn_rate_allow(conn_t *c, size_t n); /* input bytes allowed by the rate cap */
bool conn_writable(const conn_t *c);         /* output queue below the limit */
void conn_close(conn_t *c, const char *why);
void conn_ref(conn_t *c);
void conn_unref(conn_t *c);
void conn_tick(server_t *s); /* idle timeouts */

/* menu.c: everything a connection shows outside a game */
void menu_enter(conn_t *c, const char *msg);
void menu_key(conn_t *c, key_event_t k);
void menu_redraw(conn_t *c);
void menu_message(conn_t *c, const char *msg); /* a notice; any key returns */
void menu_resized(conn_t *c);
/* prof from the terminal type and the player's options (colours, glyphs). */
void menu_apply_profile(conn_t *c);
/* The account's options (users.options) on c: two-cell tiles, colours, glyphs. */
void menu_options_apply(conn_t *c, const char *opts);
void menu_tick(server_t *s);      /* refresh watch lists */
void screen_send_diff(conn_t *c); /* diff scr against shown and send */

/* session.c */
void session_play(conn_t *c); /* 'p': resume or start this user's game */
void session_watch(conn_t *c, session_t *s);
void session_detach(conn_t *c, const char *why); /* player or watcher leaves */
void session_key(conn_t *c, key_event_t k);
void session_resized(conn_t *c);
void session_drained(conn_t *c);      /* output queue emptied */
void session_tick(server_t *s);       /* grace expiry */
int session_recover_all(server_t *s); /* at start: count of games resumed */
void session_shutdown_all(server_t *s);
session_t *session_find_user(server_t *s, int64_t user_id);
session_t *session_find_name(server_t *s, const char *user); /* live, ignoring case */

/* webgw.c: the daemon's side of the web gateway (web.h) */
int webgw_start(server_t *s); /* 0 also when http is off or unavailable */
void webgw_stop(server_t *s); /* step 1, on the loop (shutdown) */
void webgw_free(server_t *s); /* step 2, after uv_run returned */

/* The account's live game: its player is detached and told why (any
 * gateway), the game saved and freed, watchers sent back. Returns true if
 * there was one. */
bool session_close_user(server_t *s, int64_t user_id, const char *why);
void session_announce_all(server_t *s); /* redraw games for a new announcement */

/* control.c: the admin control socket (mode 0600) and announcements */
int control_listen(server_t *s);
void control_stop(server_t *s);
void control_tick(server_t *s); /* an expired announcement is taken down */
/* Draws the current announcement over the bottom row of scr, if any. */
void announce_draw(server_t *s, screen_t *scr);
void menu_redraw_all(server_t *s); /* every connection outside a game */

#endif
