/* session — one live game, its journal position and its viewers: at most
 * one player connection and any number of watchers. A session touches only
 * its own engine, its viewers and its loop's session lists: with loops = N
 * (shard.h) it lives on its account's loop, and viewers from the home loop
 * reach it as relays (relay.h).
 *
 * A frame goes out only for keys whose journal rows are stored. When rows
 * cannot be stored the game pauses (jqueue.h): keys are dropped, viewers see
 * the last frame under a notice, and storage.c's retries resume it.
 *
 * The fields of session_t are read-only outside the session module
 * (session.c, session_load.c): the watch list (menu.c), the lobby and chat
 * (web/webgw.c) and the admin's list of games (admin/control.c) read them.
 *
 * Ownership: the server owns every session. A session is freed when its
 * game ends, its grace period runs out or an admin closes it; its memory
 * stays until no database callback points at it. Loop thread only. */
#ifndef WARREN_SESSION_H
#define WARREN_SESSION_H
#include <stdbool.h>
#include <stdint.h>
#include "byname.h"
#include "conn.h"
#include "hmap.h"
#include "jqueue.h"
#include "keys.h"
#include "list.h"
#include "screen.h"

typedef struct game game_t; /* Warren's engine (game.h): the core's business */

struct session {
    server_t *srv;
    list_t node;                       /* server's sessions */
    hnode_t by_user, by_name, by_game; /* the server's indexes of them */
    bynode_t by_player;                /* server's sess_by_player while a live Warren game */
    list_t snap_node;                  /* server's snaps_due while a snapshot waits */
    list_t tnode;                      /* server's sess_timed (session_retime) */
    list_t rnode, wdnode;              /* server's by_recency and watched */
    int64_t game_id, user_id;
    char user[32];
    game_t *game;                  /* Warren's own game; NULL for a hosted one */
    const struct backend_ops *ops; /* how the game is driven (backend.h) */
    void *bk;                      /* a hosted game's state (hosted/hostgame.c) */
    char kind[32];                 /* "warren" or the [game ID] of a hosted game */
    char kind_name[64];            /* the game's name, for lists */
    uint64_t seed;
    uint64_t seq;      /* keys applied (journal length) */
    uint64_t snap_seq; /* seq of the newest snapshot taken */
    uint64_t snap_put; /* seq of the newest snapshot handed to the writer */
    uint64_t snap_turn;
    uint32_t level_changes;
    conn_t *player;
    list_t watchers; /* conn_t.wnode */
    int nwatchers;
    /* sent: the shared baseline, owned; a frame is drawn over it in place.
     * grid: the same (read its size, never keep it). before: while
     * frames.c sends a frame, the rows of the one before that it changed
     * (the loop's frame grid), else NULL. */
    screen_t *grid, *sent, *before;
    uint64_t started_ms, last_key_ms, detached_ms;
    /* shard_stamp when it came (session_new; read-only after): orders its
     * start among every loop's games, for the watch list (wlist.c) */
    uint64_t came_stamp;
    uint64_t idle_limit_ms; /* a hosted game ends this long after the last key; 0: never */
    bool ended;
    bool away;                          /* its player left it live: srv->naway */
    bool frame_due;                     /* a frame waits for its keys to be stored */
    int db_refs;                        /* db callbacks that point at us */
    jqueue_t jq;                        /* journal rows not yet stored (jqueue.h) */
    screen_t *frozen;                   /* paused: the last frame sent, shown under the notice */
    bool dead;                          /* unlinked; freed when db_refs drops to 0 */
    bool fenced;                        /* its lease was lost (lease.h): no more writes */
    bool let_go;                        /* detached, its lease released (lease.h) */
    uint64_t leased_ms;                 /* since when its lease is known held (lease.c) */
    bool chat_off;                      /* the player turned spectator chat off */
    uint64_t frame_seq;                 /* frames broadcast (JSON frames carry it) */
    struct chatlog *chat;               /* chat.c's: recent lines, the strip; NULL until used */
    bool broadcasting, broadcast_again; /* session_broadcast is not re-entered */
    struct frames_views *views;         /* frames.c: watchers sharing a frame of their size */
    struct peer_feed *peer;             /* peer.c: other nodes watching it; NULL: none */
    bool mirror;         /* peer.c: another node's game, watched here: never its player's */
    bool count_due;      /* frames.c: the watcher count changed, not yet drawn */
    uint32_t key_prefix; /* Warren's keys follow it (a hosted game's); 0: direct (playkeys.h) */
    uint64_t key_armed;  /* the conn (conn_t.id) that just pressed the prefix, or 0 (playkeys.c) */
    /* conn.c: its player's keys went over the input cap: told until then
     * (now_ms) over the game's bottom row (screens/keynote.c) */
    uint64_t keynote_until;
    list_t keynote_node; /* server's keynotes while told */
    /* The least terminal its player and watchers need (conn_min_size):
     * TERM_MIN_* (session_new), a hosted game's its section's min-size;
     * written by its backend when it makes it. */
    int min_w, min_h;
};

/* A change of one loop's live games, for the watch list: a game came
 * (live) or ended or went (!live). server_t.changes holds them, oldest
 * first, until the watch list reads them (session_changes_clear); past
 * SESS_CHANGES_MAX (or --test-change-log) the log is dropped and marked
 * lost (changes_lost), and its reader rebuilds from the sessions instead.
 * The stamp (shard_stamp) orders the changes of all loops as they
 * happened; a game's coming is stamped with its came_stamp, which a
 * rebuild reads from the session, so both place new games alike. */
typedef struct sess_change {
    int64_t game_id, user_id;
    uint64_t stamp;
    char user[32];
    bool live;
} sess_change_t;
#define SESS_CHANGES_MAX 4096
/* The log read: empty and not lost. */
void session_changes_clear(server_t *k);

/* What the layers above (screens, gateways, admin) may know of a game,
 * whatever runs it: they never read the engine (game.h) themselves. */
typedef struct {
    char race[16], cls[16]; /* "" until the character is made */
    int depth, max_depth, xl;
    uint64_t turn;
    int64_t score;
    char cause[128];
    int64_t hosted_id; /* a hosted game's recording (/hosted/ID); 0: none (yet) */
} session_status_t;
/* Into st; false when the game is not Warren's (a hosted one): then only
 * depth and turn (what its status pattern reads, gamecfg.h) and
 * hosted_id may be filled, the rest is zero. */
bool session_status(const session_t *s, session_status_t *st);
/* Whether s is a hosted game (a program under a pty, backend.h): its
 * screen, bottom row too, is the program's. */
bool session_hosted(const session_t *s);
/* Whether someone plays s: its own player, or another node's game's
 * (backend.h, played); false while nobody does (detached). *w, *h: the
 * player's terminal size, 0 x 0 when not known here (another node's, no
 * frame of it come yet) or detached. */
bool session_played(const session_t *s, int *w, int *h);
/* What the lists say of s's player into out: the terminal's size ("80x24")
 * while someone plays it, "detached" while nobody does (its player left, or
 * left another node's game: backend.h, played), "-" when another node's
 * player's size is not known here. */
void session_term_text(const session_t *s, char *out, size_t n);

/* How a game ended, for its last screen (hooks.h: game_over). */
typedef struct session_end {
    int64_t game_id;
    char player[32];
    session_status_t st;
} session_end_t;

/* What a player who leaves a game is told; a browser, whose lobby has no
 * p key, the second. */
#define SESSION_DETACH_SAID     "Your game is saved. Press p to continue it."
#define SESSION_DETACH_SAID_WEB "Your game is saved: Play continues it."

void session_play(conn_t *c); /* 'p': resume or start this user's game */
/* Just logged in with no live game: if the newest game could not be
 * restored and its player was not told yet, the menu says so (once). */
void session_login_notice(conn_t *c);
void session_watch(conn_t *c, session_t *s);
void session_detach(conn_t *c, const char *why); /* player or watcher leaves */
/* A hosted game ends as after its grace period: its player goes back to
 * the menu told msg, its program is hung up (backend save with why, then
 * stop), the session goes once it exited. */
void session_hang_up(session_t *s, const char *msg, const char *why);
void session_key(conn_t *c, key_event_t k);
void session_resized(conn_t *c);
/* A watcher's overlay changed (watch.c): its own frame, or the shared one again. */
void session_view_changed(conn_t *c);
void session_drained(conn_t *c); /* output queue emptied */
/* The player turns spectator chat off or on; for a game of this node,
 * other nodes' mirrors of it are told (notify.h: NOTIFY_CHAT_OFF). */
void session_set_chat(session_t *s, bool off);
/* The game is over (its end is on its way): off the lists of live games. */
void session_mark_ended(session_t *s);
/* Whether s's player is away (left it in its grace period; for a mirror,
 * as its node's list says): kept in srv->naway, which the banner's "N
 * playing now" leaves out. Over or freed, s is not counted. */
void session_set_away(session_t *s, bool away);
/* The player keyed now: last_key_ms, and first on the server's by_recency. */
void session_keyed(session_t *s);
#define SESSION_RECENCY_WALK 256 /* sessions passed at most to place one by its last key */
/* s (another node's game: a mirror, peer.c) last keyed at ms, as its
 * node said: placed in the server's by_recency, newest first, by a walk
 * of SESSION_RECENCY_WALK sessions at most (1,000 mirrors among 10,000
 * players cost no walk of every session each); where more keyed since,
 * on its recency_late instead, which the lists read whole besides the
 * front (session_each_recent). Placed after the ones walked, it would be
 * taken before the sessions after it that keyed later too, and shown in
 * their stead once a list reaches that far (the watch list's later pages
 * by idle). */
void session_keyed_at(session_t *s, uint64_t ms);
/* The latest keyed of loop k (parked, or on its own thread) for a list
 * of need: the front of by_recency until take has counted need (take
 * says whether it counts s) and those keyed in the same millisecond as
 * the last (a list sorting ties by name gets them all, so its pages
 * agree), then every mirror whose place there is not known (server.h's
 * recency_late). The caller sorts what it took by last_key_ms and keeps
 * the first need. */
void session_each_recent(server_t *k, size_t need, bool (*take)(void *ud, session_t *s), void *ud);
/* The account's live game of one kind ("warren" or a [game ID]). */
session_t *session_find_kind(server_t *s, int64_t user_id, const char *kind);
session_t *session_find_name(server_t *s, const char *user); /* live, ignoring case */
/* user's live game of kind ("warren" or a [game ID]), user ignoring case */
session_t *session_find_named(server_t *s, const char *user, const char *kind);
session_t *session_find_game(server_t *s, int64_t game_id);
/* From home: whether the account has a live game on any loop. */
bool session_user_live(server_t *s, int64_t user_id);

/* On loop s's own thread, for its games (the administrator's commands
 * run them on every loop: ctl_sweep). The account's live game here: its
 * player is detached and told why (any gateway), the game saved and freed,
 * watchers sent back. Returns the game's id, 0 if there was none. */
int64_t session_close_user(server_t *s, int64_t user_id, const char *why);
/* On loop s's own thread: whether the account has any game here, one
 * ended whose program still exits (a hosted game hung up) included. */
bool session_user_any(server_t *s, int64_t user_id);
/* On loop s's own thread: the account's live Warren game here ends as
 * abandoned: marked broken with reason (its journal, snapshots and record
 * kept), its player and watchers sent to the menu with why. Returns the game's id, 0 if there was none. */
int64_t session_abandon_user(server_t *s, int64_t user_id, const char *reason, const char *why);
/* Every live game of this loop redrawn now, as session_redraw (an
 * announcement came or went). */
void session_redraw_all(server_t *s);
/* Sends s's frame again now (an overlay changed), unless keys wait for
 * their journal rows: their frame comes with the commit. */
void session_redraw(session_t *s);
void session_tick(server_t *s); /* grace expiry; crowds' watcher counts (frames_tick) */
/* At start: resume every unfinished game, in the background (logged as
 * "recovery done" when the last is back); -1 when out of memory. */
int session_recover_all(server_t *s);
/* On loop k: its games ids (taken, freed here), whose leases a stopped
 * node let lapse, restored as at start (each under its lease, a fresh
 * snapshot stored, the lease let go); lease_lapsed_done(k, ...) after
 * the last. -1 when out of memory (nothing done). */
int session_restore_lapsed(server_t *k, int64_t *ids, size_t n);
/* Snapshots every live game; storage_shutdown then waits for their keys. */
void session_shutdown_all(server_t *s);
void session_free_all(server_t *s); /* after the loop ran down: without viewers */

#endif
