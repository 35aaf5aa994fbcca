/* lease — this node's hold on its Warren games when several daemons
 * ("nodes", cfg.node) share one PostgreSQL (db.h: game leases).
 *
 * A node takes a game's lease before it runs the game: when it starts
 * one, when a player comes back to a saved one, when it recovers one at
 * start. A lease another node holds (and renews) is left alone: recovery
 * skips the game and its player is told where it runs. A lease is valid
 * while its node's heartbeat is fresh: the home loop renews the node's one
 * row (db_lease_renew) each cfg.lease_renew_ms, at start at once; a node
 * that stops (killed, paused, cut off) loses its leases cfg.lease_ttl_ms
 * after its last renewal, and the next node a player reaches takes the
 * game and resumes it from its snapshot and journal, as recovery does.
 * A game's lease is let go when its player detaches (its row kept,
 * marked away, so every node lists the game as detached; the session kept
 * here is taken up again only if no other node stored a row of it since:
 * session_load.c), and released when its session goes (its end, its grace period
 * over), when a returning player's game is not restored after all
 * (broken, a failed read: session_load.c), and every lease of the node
 * at a clean stop. A game restored in the background (recovery, lapsed
 * leases), a session freed (its grace over) or a load that gave up the
 * game while a player's load of it is under way leaves the release (or
 * the letting go) to that load, whose take may have found the lease this
 * node's already (session_lease_done).
 *
 * Fencing: lease_start makes the database refuse this node's journal
 * rows of a game whose lease it does not hold, in the row's own
 * transaction (db_lease_fence). So no frame a player sees here answers a
 * key another node's game does not have: a refused row ends the session
 * here (lease_lost), its player told where to go and disconnected; each
 * loop's check of its leases (lease_tick) finds a lost game even while
 * its player types nothing.
 *
 * Takeover: a node where a player logs in while another node runs the
 * game asks that node for it (notify.h); the other saves it, lets its
 * lease go and sends its player off, and the first takes the lease and
 * resumes the game at once instead of waiting for the lease to lapse.
 *
 * A node that stopped without letting its leases go leaves games behind:
 * once their leases lapse another node restores them in the background,
 * a few at a time (lease_lapsed_done).
 *
 * With SQLite (one machine) leases are off: lease_on is false, and the
 * daemon behaves as it always did.
 *
 * lease_t is server_t.lease, written here only. Loop thread only. */
#ifndef WARREN_LEASE_H
#define WARREN_LEASE_H
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct server server_t;
typedef struct session session_t;

typedef struct {
    /* read-only outside lease.c */
    bool on;            /* several nodes may share the database (PostgreSQL) */
    int64_t renewed;    /* home: leases the node held at the last heartbeat */
    int64_t failing_at; /* home: Unix time renewals began failing; 0 while they work */
    /* private */
    uv_timer_t beat;
    bool beating;
    bool stopped;              /* home: lease_stop ran */
    bool checking;             /* a check of this loop's games is on its way */
    uint64_t check_ms;         /* when it was asked (now_ms) */
    struct notify *notify;     /* home: the listener for other nodes' events (notify.c) */
    struct notify_out *out;    /* the loop's events not written yet (notify.c's outbox) */
    struct nodeends *ends;     /* home: admin's ends asked of other nodes (nodeend.c) */
    struct hostcloses *closes; /* home: an account's hosted games closed (hostclose.c) */
    int lapsed_runs;           /* home: loops restoring lapsed games now (lease_lapsed_done) */
} lease_t;

/* Whether this node takes leases (its database is PostgreSQL). */
bool lease_on(const server_t *s);
/* Home, once the database is open and before the other loops start:
 * fences the database by cfg.node and starts the heartbeat. No-op on
 * SQLite. Every loop's lease_t follows home's on (lease_init). */
void lease_start(server_t *home);
/* Another loop: leases on when home's are. */
void lease_init(server_t *s, const server_t *home);
/* A clean stop (home, every loop's keys stored and every hosted game's
 * last copy: hostcopy_after_last): the heartbeat stops and every lease of
 * the node is released, queued after everything else. Once only: later
 * calls do nothing. */
void lease_stop(server_t *home);
/* A failed start: the heartbeat's timer closed, nothing released. */
void lease_close(server_t *home);

/* Takes game's lease for this node. cb: DB_OK (taken, or leases off),
 * DB_ENOTFOUND with holder the node that holds it, or another DB_E*
 * (holder NULL). Leases off: cb is called at once, inside this call. */
typedef void (*lease_cb)(void *ud, int status, const char *holder);
void lease_take(server_t *s, int64_t game, lease_cb cb, void *ud);
/* Queues the release of game's lease (no-op when off, or not ours). */
void lease_release(server_t *s, int64_t game);
/* Queues the letting go of game's lease, its session kept here detached
 * (session_t.let_go): any node may take it at once, and every node lists
 * it as detached until it is taken or its session goes (then released). */
void lease_let_go(server_t *s, int64_t game);

/* Another node runs s's game now (why: its journal row was refused,
 * DB_ELEASE, or lease_tick found its lease gone). Its player and watchers
 * are told and sent off, s is freed without another write. */
void lease_lost(session_t *s, const char *why);
/* Every loop, once a second (session_tick): about every lease_renew_ms,
 * the games whose lease rows still name this node are read, and a game
 * here that is not among them is lost (lease_lost) before its player's
 * next key would find out. */
void lease_tick(server_t *s);

/* Takeover: a player of a game here logged in at another node, which
 * asked for it (notify.h, NOTIFY_TAKE: session_load.c sends it while it
 * waits for the lease). On home: on the game's loop, its player is told
 * the game moved and disconnected, the game saved and its lease released
 * after its last rows, so the other node takes it at once. A game not
 * here, or not under a lease of this node, is left alone. */
void lease_give_notified(server_t *home, const char *to, int64_t game, int64_t user_id);

/* A stopped node's games: home's lease_tick looks, about once a lease's
 * time, for up to LEASE_LAPSED_MAX live games whose leases another node
 * let lapse, and each loop restores its own of them in the background
 * (session_restore_lapsed: a fresh snapshot, the lease let go after), so
 * they are current before their players come back, at whatever node.
 * One round at a time. On loop k, once its round is done: */
#define LEASE_LAPSED_MAX 16
void lease_lapsed_done(server_t *k, size_t ok, size_t broken);

#endif
