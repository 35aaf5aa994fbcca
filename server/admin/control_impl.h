/* control_impl — what control.c (the socket, the first commands) and
 * control_mod.c (kick, bans, end, delete, rename, mutes) share; nothing
 * else includes it. */
#ifndef WARREN_CONTROL_IMPL_H
#define WARREN_CONTROL_IMPL_H
#include "control_parse.h"
#include "server.h"
#include "moderation.h"

typedef struct ctl ctl_t;
typedef void (*ctl_fn)(ctl_t *c, char *arg);
/* An account looked up by name, for the command that asked (control_mod.c). */
typedef void (*ctl_user_fn)(ctl_t *c, const db_user_t *u);

/* One control connection: one request, its answer. */
struct ctl {
    server_t *srv;
    list_t node; /* struct control's ctls, so shutdown can close idle ones */
    uv_pipe_t pipe;
    char line[CTL_LINE_MAX];
    size_t len;
    uint64_t opened_ms; /* uv_now when accepted */
    bool started, closing;
    bool peer_done, shut_done; /* the peer's EOF came; our answer is out */
    int refs;                  /* the handle plus pending requests */
    buf_t out;
    uv_shutdown_t shut;
    int64_t user_id; /* lock/unlock and the others: the account */
    bool lock;
    ctl_user_fn then;                           /* control_mod.c: what to do with the account */
    char name[DB_NAME_MAX], name2[DB_NAME_MAX]; /* the account's name; a new one */
    char game_name[DB_NAME_MAX];                /* delete, rename: the account's (db.h) */
    char net[MOD_NET_MAX];                      /* ban, unban */
    int64_t until;                              /* ban, mute: Unix seconds, 0 = until lifted */
    int64_t game;                               /* end: a game another node runs, and which */
    char end_node[64];
    int64_t delete_id; /* delete: its mark's number (moderation.h) */
};

/* Sends what was collected in c->out plus "ok" or "error: MSG", then closes. */
void ctl_finish(ctl_t *c, const char *error);
void ctl_unref(ctl_t *c);
const char *db_msg(server_t *s, int status); /* "no such account" for DB_ENOTFOUND */
/* Finishes with a failed write's error: a conflict left after the
 * database's tries (DB_ECONFLICT) named by what was busy (c->name's rows,
 * c->net's) and its outcome (NULL: "nothing changed"); else db_msg's. */
void ctl_fail(ctl_t *c, int status, const char *outcome);
/* Looks the account up by name, then then(c, account) with c->user_id and
 * c->name set; a missing one is the answer. then finishes and unrefs. */
void ctl_with_user(ctl_t *c, const char *name, ctl_user_fn then);

/* What a command does, on every loop (shards_each), each on its own
 * thread. To the account's live game there (game): nothing (KEEP), saved
 * and closed, its player told msg (CLOSE), or ended as abandoned, its
 * player and watchers told msg (ABANDON); then to the live telnet conns
 * (kind): those of c->user_id are told msg and closed (CLOSE) or sent to
 * the anonymous menu with it (LOG_OUT); those from a banned address are
 * told msg and closed (BANNED); none (NONE). web: the account's websockets
 * (BANNED: those from a banned address) too (told msg, closed). Then then(c, conns touched, the game's id or 0),
 * if not NULL, on home, after every loop's save is queued; the sweep
 * holds its own reference to c. */
typedef enum { SWEEP_CLOSE, SWEEP_LOG_OUT, SWEEP_BANNED, SWEEP_NONE } sweep_kind_t;
typedef enum { GAME_KEEP, GAME_CLOSE, GAME_ABANDON } sweep_game_t;
typedef void (*ctl_swept_fn)(ctl_t *c, int n, int64_t game);
void ctl_sweep(ctl_t *c, sweep_kind_t kind, sweep_game_t game, const char *msg, bool web,
               ctl_swept_fn then);
/* ctl_sweep of the account's telnet conns and websockets told why's words
 * (moderation_why_words; a rename's new name: c->name2), the words the
 * other nodes tell theirs. */
void ctl_sweep_off(ctl_t *c, sweep_kind_t kind, sweep_game_t game, moderation_why_t why,
                   ctl_swept_fn then);

/* control_mod.c's commands */
void cmd_kick(ctl_t *c, char *arg);
void cmd_ban(ctl_t *c, char *arg);
void cmd_unban(ctl_t *c, char *arg);
void cmd_bans(ctl_t *c, char *arg);
void cmd_end(ctl_t *c, char *arg);
void cmd_delete(ctl_t *c, char *arg);
void cmd_rename(ctl_t *c, char *arg);
void cmd_mute(ctl_t *c, char *arg);
void cmd_unmute(ctl_t *c, char *arg);
/* control_drain.c's, and its timer closed when the daemon stops */
void cmd_drain(ctl_t *c, char *arg);
void cmd_drain_status(ctl_t *c, char *arg);
void ctl_drain_close(server_t *home);

#endif
