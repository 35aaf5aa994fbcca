/* server — warrend's context and the contract between its parts.
 *
 * Everything runs on one libuv loop, or with `loops = N` Warren's games on
 * N (shard.h). Where things are:
 *   server.h, main.c   the context below, start, signals, shutdown
 *   pool               libuv's thread pool, made at start (never later)
 *   shard, relay       more loops; a conn seen by a game on another loop
 *   conn.h, conn.c     a viewer's connection, whatever carries it
 *   session.h, .c      one live game, its viewers and its journal;
 *   session_load.c     starting, resuming and recovering games
 *   menu.h, menu.c     what a terminal shows outside a game
 *   journal.h, .c      journal rows played into an engine; restoring games
 *   accounts, hashq    accounts; argon2 on a fair, bounded, low-priority queue
 *   listener, budget   accepting sockets; the connection budget of every door
 *   jqueue.h, .c       a game's journal rows until stored; pausing, retrying
 *   storage.h, .c      the database's health: cap, failing, paused games
 *   config, log, ratelimit, list.h
 *   moderation         the administrator's bans and chat mutes
 *   gameover           the last screen of a game
 *   chat, watch        spectator chat (one stream); a terminal watcher's keys
 *                      and overlays
 *   playkeys           Warren's keys a player types in a game: direct, or
 *                      behind a hosted game's prefix
 *   telnet/            the telnet gateway: libtelnet, line editor
 *   web/               the web gateway: lws, the door (web_door.c), HTTP
 *                      parsing, the route table (routes.c), websockets,
 *                      accounts pages, JSON, gzip
 *   records/           score pages, replays, verification, their URLs
 *   admin/             the control socket warren-admin talks to
 *
 * server_t is public to every file of server/ for reading; the fields are
 * written by the file named beside them (main.c unless said). */
#ifndef WARREN_SERVER_H
#define WARREN_SERVER_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "accounts.h"
#include "ansi.h"
#include "buf.h"
#include "chat.h"
#include "config.h"
#include "conn.h"
#include "db.h"
#include "game.h"
#include "hmap.h"
#include "list.h"
#include "menu.h"
#include "moderation.h"
#include "relay.h"
#include "session.h"
#include "shard.h"
#include "storage.h"
#include "watch.h"

#define WARREN_VERSION "0.1.0"

struct server {
    uv_loop_t *loop;
    /* loops = N (shard.h): all the loops, this one's index (0: home, the
     * only one running gateways), its mailbox. NULL shards: one loop. */
    struct shards *shards;
    int shard;
    struct mailbox *mbox;
    config_t cfg;
    content_t *content;
    script_vm_t *vm; /* the loop thread's script vm, lent to every game_input here */
    db_t *db;
    accounts_t *acc;
    void *web;               /* webgw_t when the web gateway runs (web/webgw.c) */
    struct records *records; /* score pages, replays, verification (records/records.h) */
    struct telnetgw *telnet; /* the telnet listeners (telnet/telnet.c) */
    struct budget *budget;   /* connections in all and per address, every gateway's */
    struct moderation *mod;  /* bans and chat mutes (moderation.c) */
    struct spawner *spawner; /* starts hosted programs (hosted/spawner.h); home only */
    /* live hosted games in all and per address (hosted/hostcap.c) */
    struct budget *hosted_cap;
    uv_signal_t sigterm, sigint;
    uv_timer_t tick;
    uint64_t ticks;        /* one-second ticks so far */
    uint64_t sess_gen;     /* bumps when a session comes, ends or goes (session.c, hostgame.c) */
    struct wlcache *wl;    /* menu.c's: the watch list of this tick, shared by its viewers */
    uv_timer_t probe;      /* the stall probe (main.c) */
    uint64_t probe_due_ns; /* when it should fire next, uv_hrtime */
    list_t conns;          /* telnet conns on this loop (conn_t.node): telnet.c */
    int nconns;
    list_t sessions; /* session_t.node: session.c */
    int nsessions;
    int nended; /* of them, games over whose session is not freed yet (session.c) */
    hmap_t sess_by_user, sess_by_name, sess_by_game; /* session_t indexes: session.c */
    list_t snaps_due; /* session_t.snap_node: detach snapshots not taken yet (session.c) */
    /* What the one-second tick looks at, so that it costs what is due, not
     * one walk of every conn and session (10,000 of them took 13 ms): */
    list_t menu_conns;    /* conn_t.mnode: terminals in the menu (conn.c) */
    list_t watch_notices; /* watchers with a notice up (watch.c) */
    list_t chat_strips;   /* sessions with a chat strip on screen (chat.c) */
    list_t sess_timed;    /* session_t.tnode: detached, or with an idle limit (session.c) */
    /* What the lobby shows first, without a walk of every session: */
    list_t by_recency;     /* session_t.rnode: the latest keyed first (session_keyed) */
    list_t watched;        /* session_t.wdnode: sessions with a watcher (session.c) */
    uv_idle_t snap_idle;   /* takes them a few per loop turn (session.c) */
    storage_t storage;     /* storage.c */
    uint64_t next_conn_id; /* conn_init */
    int recovering;        /* home: loops still recovering games (session_load.c) */
    size_t recovered_ok, recovered_broken;
    bool stopping;
    struct control *control; /* the control socket (admin/control.c) */
    char announce[200];      /* the admin's announcement: control.c */
    uint64_t announce_until; /* uv_now ms; shown while now < this */
    buf_t scratch;           /* per-frame encode buffers (loop thread only) */
    buf_t enc[ANSI_PROFILE_IDS];
    buf_t enc_json; /* the JSON encoding of the same frame */
};

uint64_t now_ms(const server_t *s);
/* server.c: a loop's lists and buffers; the buffers freed */
void server_init(server_t *s, uv_loop_t *loop);
void server_bufs_free(server_t *s);
/* Shutdown: the telnet conns on this loop are told and closed (conn_bye). */
void server_close_conns(server_t *s);

/* telnet/telnet.c: listeners on TCP and the Unix socket */
int telnetgw_listen(server_t *s);
/* Another loop's part (loops = N): ends of the conns handed to it, a few
 * per turn; telnetgw_stop and telnetgw_free as home's. */
int telnetgw_attach(server_t *s);
void telnetgw_stop(server_t *s); /* stops listening; also after a failed start */
void telnetgw_free(server_t *s); /* after uv_run returned */
void telnetgw_tick(server_t *s); /* idle timeouts */

/* web/webgw.c: the daemon's side of the web gateway (web.h) */
int webgw_start(server_t *s); /* 0 also when http is off or unavailable */
void webgw_stop(server_t *s); /* step 1, on the loop (shutdown) */
void webgw_free(server_t *s); /* step 2, after uv_run returned */
/* The account's password changed: its websockets opened with another web
 * session than keep (a token hash; NULL: all) are told and closed. */
void webgw_revoke(server_t *s, int64_t user_id, const char *keep_hash);
/* The account's websockets are told msg and closed; returns how many. */
int webgw_kick(server_t *s, int64_t user_id, const char *msg);

/* admin/control.c: the admin control socket (mode 0600) and announcements */
int control_listen(server_t *s);
void control_stop(server_t *s);
void control_free(server_t *s); /* after uv_run returned */
void control_tick(server_t *s); /* an expired announcement is taken down */
/* Draws the current announcement over the bottom row of scr, if any. */
void announce_draw(server_t *s, screen_t *scr);

#endif
