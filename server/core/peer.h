/* peer — watching across nodes: several daemons on one PostgreSQL
 * (lease.h) show every node's live games and let a watcher here watch a
 * game another node runs.
 *
 * The lists: once a second, home reads the live games other nodes hold
 * leases of (db_games_leased_elsewhere: one query per node, not per
 * viewer) and keeps a mirror session for each (session_t.mirror, at most
 * cfg.peer_max_games): the watch list, the lobby and the watch page show
 * and watch it like a game of this node, through the same frames code.
 *
 * The stream: one TCP connection per pair of nodes (cfg.peer_listen;
 * cfg.peers names the others' addresses). The node that connects sends
 * HELLO first; the listener trusts it only from an address in cfg.peers
 * or when it sends cfg.peer_secret. A mirror's first watcher asks the
 * game's lease holder for it (WATCH); that node sends its frames once per
 * node, a keyframe and then the rows that changed (peerwire.h), whatever
 * the number of watchers here. More than cfg.peer_queue bytes queued to a
 * node: its games' changes are skipped and each gets a keyframe once the
 * queue drains. A node that goes away (or sends bad input: closed) takes
 * its mirrors with it: their watchers are told and go back to the menu.
 *
 * Loops (shard.h): the links and the mirrors live on home; a game's
 * frames are encoded on the loop that runs it (session_t.peer) and posted
 * to home, which writes them to the links (home asks that loop for a
 * keyframe the same way), so a game on any loop is streamed.
 *
 * With SQLite, or with neither peer-listen nor peers set, nothing runs.
 *
 * server_t.peer (home only) is owned here: peer_start makes it,
 * peer_stop closes its sockets, peer_free frees it once the loop ran
 * down. Home's thread, but for peer_frame and peer_session_gone (the
 * game's loop) and peer_game_here (any loop). */
#ifndef WARREN_PEER_H
#define WARREN_PEER_H
#include <stdbool.h>
#include <stdint.h>

typedef struct server server_t;
typedef struct session session_t;

/* Home, after lease_start: the listener and the lists, when configured.
 * -1 (logged) when the listener cannot listen. */
int peer_start(server_t *home);
void peer_stop(server_t *home);
void peer_free(server_t *home);
/* Home, once a second: the list of other nodes' games is read again. */
void peer_tick(server_t *home);
/* frames.c, after a frame of s went out (s's loop): the nodes watching s
 * get it. */
void peer_frame(session_t *s);
/* session.c: s leaves memory; the nodes watching it are told. */
void peer_session_gone(session_t *s);
/* session.c, any loop: game now runs on this node (a node that died left
 * it here): its mirror, if any, goes, its watchers told. */
void peer_game_here(server_t *srv, int64_t game);

#endif
