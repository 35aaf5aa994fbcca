/* server — warrend's context: one server_t per loop (with `loops = N`,
 * Warren's games run on N of them: shard.h), holding what every layer of
 * server/ shares. The layers and their folders (docs/ARCHITECTURE.md):
 *   core/      connections, sessions, the journal, storage, the loops,
 *              accounts, config, the log, the connection budget, mail,
 *              moderation; hooks.h is how it calls the layers above
 *   screens/   what a terminal shows besides the game: the menu, watchers'
 *              overlays, chat, the player's keys, a game's last screen
 *   telnet/    the telnet gateway        web/   the web gateway
 *   hosted/    terminal games under ptys, the spawner
 *   records/   score pages, replays, verification
 *   admin/     the control socket warren-admin talks to
 *   main.c     start, signals, shutdown; routes.c, the route table
 * A lower layer never includes a higher one's header: the build refuses.
 *
 * server_t is public to every file of server/ for reading; the fields are
 * written by the file named beside them (main.c unless said); a layer
 * above the core keeps its state behind an opaque pointer. */
#ifndef WARREN_SERVER_H
#define WARREN_SERVER_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>
#include "ansi.h"
#include "buf.h"
#include "config.h"
#include "byname.h"
#include "db.h"
#include "hmap.h"
#include "lease.h"
#include "list.h"
#include "log.h"
#include "storage.h"
#include "turns.h"

#define WARREN_VERSION "0.1.0"

typedef struct server server_t;
/* the engine's, kept by pointer (game.h): only the core and records see it */
typedef struct content content_t;
typedef struct script_vm script_vm_t;

/* Deletes of accounts under way at once, at most (admin/control_mod.c) */
#define SERVER_DELETING_MAX 16

struct server {
    uv_loop_t *loop;
    const struct hooks *hooks; /* what the layers above registered (hooks.h); main.c's */
    /* loops = N (shard.h): all the loops, this one's index (0: home, the
     * only one running gateways), its mailbox. NULL shards: one loop. */
    struct shards *shards;
    int shard;
    uint64_t stamp_one; /* shard_stamp's last with one loop (shard.c's) */
    struct mailbox *mbox;
    config_t cfg;
    content_t *content;
    script_vm_t *vm; /* the loop thread's script vm, lent to every game_input here */
    db_t *db;
    struct accounts *acc;     /* accounts.h */
    void *web;                /* webgw_t when the web gateway runs (web/webgw.c) */
    struct records *records;  /* score pages, replays, verification (records/records.h) */
    struct telnetgw *telnet;  /* the telnet listeners (telnet/telnet.c) */
    struct budget *budget;    /* connections in all and per address, every gateway's */
    struct addrrate *pace;    /* requests and connections a second per address; NULL: no limit */
    struct logcap *strangers; /* lines others can make the log write, capped (logcap.h) */
    struct moderation *mod;   /* bans and chat mutes (moderation.c) */
    /* home: accounts being deleted (0: a free slot), read by every loop
     * (moderation.h: moderation_deleting) */
    _Atomic int64_t deleting[SERVER_DELETING_MAX];
    _Atomic int64_t deleting_until[SERVER_DELETING_MAX]; /* its end, monotonic ms; 0: none */
    /* home's thread only: whose delete each mark is, its node ("": this
     * one) and its number there, so a delete's end clears its own mark */
    char deleting_from[SERVER_DELETING_MAX][64];
    int64_t deleting_id[SERVER_DELETING_MAX];
    int64_t deleting_ids;           /* this node's deletes numbered so far */
    log_every_t deleting_full_said; /* "not marked here": once per MOD_DELETING_LOG_MS */
    struct spawner *spawner;        /* starts hosted programs (hosted/spawner.h); home only */
    int64_t
        hosted_ids; /* home: hosted games' ids given so far without a shared database (hostgame.c) */
    /* live hosted games in all and per address (hosted/hostcap.c) */
    struct budget *hosted_cap;
    /* home: running hosted games' copies (hostcopy.c): reads of a
     * player's files asked, answered unchanged (nothing read), stored,
     * held back by a game's copy-rate, put off as the files were not
     * still (a save being written), last copies asked again as the
     * spawner had no place for them, last copies given up after
     * HOSTCOPY_RETRIES of those, running games' reads it had no place for;
     * the copies alive (a game's, until its last copy is stored or given
     * up; listed at each heartbeat), the last copies waiting for a
     * place at the spawner (first in first out) and what a stop does once
     * none is (hostcopy_after_last) */
    struct {
        uint64_t asked, same, stored, throttled, busy, waited, given_up, refused;
        int live;
        list_t games;    /* the copies alive: peer_hosted_t each (peer.h) */
        list_t waiting;  /* last copies waiting for a place: hostcopy_t each */
        uint64_t joined; /* last copies that joined it so far (their order) */
        void (*after)(struct server *home);
    } hostcopies;
    uv_signal_t sigterm, sigint;
    uv_timer_t tick;
    uint64_t ticks;        /* one-second ticks so far */
    uint64_t sess_gen;     /* bumps when a session comes, ends or goes (session.c, hostgame.c) */
    struct wlcache *wl;    /* wlist.c's: the watch list's rows, shared by its viewers */
    uv_timer_t probe;      /* the stall probe (main.c) */
    uint64_t probe_due_ns; /* when it should fire next, uv_hrtime */
    turns_t turns;         /* the home loop's turns and viewers' work per turn (turns.h) */
    list_t conns;          /* telnet conns on this loop (conn_t.node): telnet.c */
    int nconns;
    list_t sessions; /* session_t.node: session.c */
    list_t loads;    /* players' 'p' bringing their game in (session_load.c) */
    /* Written by this loop only (session.c); atomic so that any loop may
     * read them unparked: the banner's "N playing now" (siteinfo_live). */
    _Atomic int nsessions;
    _Atomic int nended;        /* of them, games over whose session is not freed yet (session.c) */
    _Atomic int naway;         /* of them, live games whose player is away (session_set_away) */
    _Atomic int peer_unlisted; /* home: other nodes' games without a mirror here (peer.c) */
    _Atomic int peer_unlisted_away; /* of them, those whose player is away (peer.c) */
    _Atomic int64_t big_cells; /* home: cells past 80x24 of every conn's size (conn_size_fit) */
    hmap_t sess_by_user, sess_by_name, sess_by_game; /* session_t indexes: session.c */
    hmap_secret_t name_secret;                       /* keys sess_by_name's hash (server_init) */
    /* session_t.by_player: live Warren games (not ended) by player name,
     * for a watcher's < and > (session.c; screens/watch.c reads it) */
    byname_t sess_by_player;
    list_t snaps_due; /* session_t.snap_node: detach snapshots not taken yet (session.c) */
    /* What the one-second tick looks at, so that it costs what is due, not
     * one walk of every conn and session (10,000 of them took 13 ms): */
    list_t menu_conns;   /* conn_t.mnode: terminals in the menu (conn.c) */
    int nmenu;           /* how many (conn.c) */
    uv_idle_t menu_idle; /* a round of their redraws, a slice a turn (menu.c) */
    int menu_due;        /* of them, still to be looked at this round */
    bool menu_idle_on;
    list_t watch_notices; /* watchers with a notice up (watch.c) */
    list_t chat_strips;   /* sessions with a chat strip on screen (chat.c) */
    list_t keynotes;      /* session_t.keynote_node: dropped keys told (conn.c, keynote.c) */
    list_t sess_timed;    /* session_t.tnode: detached, or with an idle limit (session.c) */
    /* What the lobby shows first, without a walk of every session: */
    list_t by_recency;     /* session_t.rnode: the latest keyed first (session_keyed) */
    list_t recency_late;   /* session_t.rnode: mirrors past the walk (session_keyed_at),
                              in no order (session_each_recent reads both) */
    list_t watched;        /* session_t.wdnode: sessions with a watcher (session.c) */
    uv_idle_t snap_idle;   /* takes them a few per loop turn (session.c) */
    storage_t storage;     /* storage.c */
    lease_t lease;         /* this node's game leases (lease.c) */
    struct peers *peer;    /* home: watching across nodes (peer.c); NULL: off */
    uint64_t next_conn_id; /* conn_init */
    int recovering;        /* home: loops still recovering games (session_load.c) */
    size_t recovered_ok, recovered_broken;
    bool stopping;
    struct control *control; /* the control socket (admin/control.c) */
    struct drain *drain;     /* home: a drain under way (drain.h; admin/control_drain.c) */
    char announce[200];      /* the admin's announcement: screens/announce.c */
    uint8_t daily_key[32];   /* home: the daily game's secret, hashed (daily.c) */
    int daily_from;          /* home: where it came from, a DAILY_FROM_* (daily.h) */
    int daily_held;          /* home: the database's against it, a DAILY_HELD_* */
    uint64_t announce_until; /* uv_now ms; shown while now < this */
    buf_t scratch;           /* per-frame encode buffers (loop thread only) */
    screen_t *frame_grid;    /* a frame's changed rows kept here (frames.c; loop thread only) */
    /* the games' kept frames' stamps (game_view_t.stamps; loop only): loop
     * i's from i << 48 up, so no two loops give the same */
    uint64_t screen_stamps;
    buf_t enc[ANSI_PROFILE_IDS];
    buf_t enc_json;            /* the JSON encoding of the same frame */
    uint64_t frame_encodes;    /* frames.c: diffs and keyframes encoded for viewers */
    struct outhold *hold;      /* a round of writes held (outhold.c; loop thread only) */
    struct readturn *readturn; /* a turn's budget for input, keys kept past it (readturn.c) */
    /* Games that came, ended or went since the watch list last read them
     * (session.c writes them; screens/wlist.c reads and clears them, this
     * loop parked); lost once more than SESS_CHANGES_MAX waited. */
    struct sess_change *changes;
    int nchanges;
    bool changes_lost;
    /* Set (session.c) before a change is stamped, cleared with the log: the
     * watch list parks only loops that have one (wlist.c: wl_sync). */
    _Atomic bool changes_due;
    /* Bumps when a game's watchers, chat setting or size change (session.c,
     * frames.c): the web gateway tells its watchers only then. */
    uint64_t view_gen;
};

/* The loop's clock in milliseconds (uv_now: the time this turn began). */
uint64_t now_ms(const server_t *s);
/* server.c: a loop's lists and buffers (no hooks yet: hooks_none); the
 * buffers freed. -1 when libsodium cannot start (hmap_secret_init): s is
 * made all the same, to be freed, but must not serve. */
int server_init(server_t *s, uv_loop_t *loop);
/* Once a second on every loop: ticks, the tick observers (hooks.h), then
 * the sessions' clocks (session_tick). */
void server_tick(server_t *s);
void server_bufs_free(server_t *s);
/* Shutdown: the telnet conns on this loop are told and closed (conn_bye). */
void server_close_conns(server_t *s);

#endif
