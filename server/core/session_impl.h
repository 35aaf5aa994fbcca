/* session_impl — the session's calls for the backends (warrengame.c,
 * session_load.c, hosted/hostgame.c) and frames.c; everyone else uses
 * session.h. */
#ifndef WARREN_SESSION_IMPL_H
#define WARREN_SESSION_IMPL_H
#include "session.h"

typedef struct backend_ops backend_ops_t;

/* A live session on the server's list, driven by ops (backend.h); its
 * backend fills in kind, kind_name and its own state. NULL when out of
 * memory. */
session_t *session_new(server_t *srv, int64_t game_id, int64_t user_id, const char *user,
                       const backend_ops_t *ops);
/* s, a Warren game whose engine is in (s->game), goes in its loop's
 * sess_by_player, which a watcher's < and > read; it leaves when it ends
 * or goes (session_mark_ended, session_free). */
void session_playable(session_t *s);
/* Unlinks s now; its memory goes once no db callback points at it. Its
 * game's lease goes with it (session_lease_done). */
void session_free(session_t *s);
/* The loop is done with game's lease (session_load.c): released, unless
 * a player's load of the game is under way here; that load then settles
 * it at its end (released if no session here runs the game). */
void session_lease_done(server_t *srv, int64_t game);
/* Whether a player's resume of game is under way on srv: its lease is
 * this node's, its rows are being read (peer.c holds another node's ask
 * to watch it). srv's thread, or srv parked (shard_lock). */
bool session_resuming(server_t *srv, int64_t game);
/* srv's thread: such a resume answers the watch asked of game at its end
 * (peer_resume_done); false when none is under way. */
bool session_watch_held(server_t *srv, int64_t game);
void session_db_done(session_t *s); /* a db callback that held s returned */
/* After a change of player, detached_ms or idle_limit_ms: s is on the
 * server's sess_timed, which session_tick walks, when it has an idle limit
 * or no player (its grace period runs). */
void session_retime(session_t *s);
/* c becomes the player of s (a previous player is told it was taken over). */
void session_attach_player(session_t *s, conn_t *c);
/* The game's screen changed on its own (a hosted program wrote): a frame
 * to every viewer (frames.c). */
void session_output(session_t *s);
/* s's game now runs elsewhere (lease.h): its watchers go back to the
 * menu told msg, its player is told line and disconnected, and s is freed
 * with nothing more drawn or saved. */
void session_drop(session_t *s, const char *line, const char *msg);
/* The game ended: its record is stored, viewers told, s freed. */
void session_finish(session_t *s);

#endif
