/* peer — watching across nodes: several daemons on one PostgreSQL
 * (lease.h) show every node's live games and let a watcher here watch a
 * game another node runs.
 *
 * The lists: home reads the live games other nodes hold leases of once
 * in full, then once a second only what changed since (db_peer_games_*:
 * the lease rows and tombstones past a change number, one query per node,
 * not per viewer), and checks once a second that each other node still
 * renews its leases (one row each: a node that stopped has its games
 * taken off the list). What a game shows (race, class, depth, turn, its
 * player's terminal and idle) comes from its node's heartbeat: each
 * heartbeat row carries a line per game of its node when one changed
 * (peer_summary, peersum.h), read with that node's check, so the lists
 * here say what the game's own node says within a heartbeat and a read,
 * with no watcher here and no write per key. Each game is counted in
 * "playing now" here, and
 * has a mirror session (session_t.mirror, at most cfg.peer_max_games):
 * the watch list, the lobby, the watch page and the admin's games show
 * and watch it like a game of this node, through the same frames code.
 * A hosted game (a negative id from the database's counter, hostgame.h)
 * has no lease and no row: its node's heartbeat line says what the lists
 * need of it (its section, name, player, min-size, detached), so it is
 * listed, and its node found, from that line alone; every node whose
 * heartbeat is fresh is checked so, leases or not, and its hosted games
 * go when its line no longer names them or its heartbeat lapses.
 * The lists run whenever several nodes share the database, the stream
 * only when configured.
 *
 * The stream: one TCP connection per pair of nodes (cfg.peer_listen;
 * cfg.peers names the others' addresses). The node that connects sends
 * HELLO first; the listener trusts it only from an address in cfg.peers
 * or when it sends cfg.peer_secret. A mirror's first watcher asks the
 * game's lease holder (a hosted game's: the node whose line names it)
 * for it (WATCH); that node sends its frames once per
 * node, a keyframe and then the rows that changed (peerwire.h), whatever
 * the number of watchers here. More than cfg.peer_queue bytes queued to a
 * node: its games' changes are skipped and each gets a keyframe once the
 * queue drains. A node that goes away (or sends bad input: closed) takes
 * its mirrors with it: their watchers are told and go back to the menu;
 * the list is then read every 0.2 s until a while past its leases'
 * lapse, and each game is listed again at the first read naming its new
 * node (another node resumed it).
 * A watched game whose lease moves to a third node while its old one
 * lives (its player logged in there) is asked of the new node: its
 * watchers here stay and get the new node's keyframe.
 * HELLO carries this build's version (peerwire.h): a node answers one
 * without it likewise, and one that hangs up on a call with it (a build
 * before versions) is called again at once without, its mirrors moved.
 *
 * Loops (shard.h): the links and the mirrors live on home; a game's
 * frames are encoded on the loop that runs it (session_t.peer) and posted
 * to home, which writes them to the links (home asks that loop for a
 * keyframe the same way), so a game on any loop is streamed.
 *
 * With SQLite nothing runs; with neither peer-listen nor peers set, only
 * the lists (a mirror's watchers are told it cannot be reached).
 *
 * server_t.peer (home only) is owned here: peer_start makes it,
 * peer_stop closes its sockets, peer_free frees it once the loop ran
 * down. Home's thread, but for peer_frame, peer_session_gone and
 * peer_resume_done (the game's loop) and peer_game_here (any loop). */
#ifndef WARREN_PEER_H
#define WARREN_PEER_H
#include <stdbool.h>
#include <stdint.h>
#include "gamecfg.h"
#include "list.h"

typedef struct server server_t;
typedef struct session session_t;

/* Home, after lease_start: the listener and the lists, when configured.
 * -1 (logged) when the listener cannot listen. */
int peer_start(server_t *home);
void peer_stop(server_t *home);
void peer_free(server_t *home);
/* Home, once a second: the list of other nodes' games is read again. */
void peer_tick(server_t *home);
/* Home, at each heartbeat (lease.c): what this node's Warren games show
 * now, a line each (peersum.h), for the heartbeat's row; NULL when the
 * lists are off or nothing changed since the last one given (given
 * anyway every 10 heartbeats). Borrowed until the next call. */
const char *peer_summary(server_t *home);
/* A hosted game of this node's whose files are copied (hostcopy.c), on
 * home's hostcopies.games from its start until its last copy is stored
 * or given up: while its session no longer gives a line (its program
 * ended, the player quit), peer_summary gives this one, so other nodes
 * go on saying it runs here and none starts it from the copy before its
 * last (the player's last moves lost). Home's loop. */
typedef struct {
    list_t node;
    int64_t game, user;
    const char *player; /* its holder's */
    const gamecfg_t *g;
} peer_hosted_t;
/* frames.c, after a frame of s went out (s's loop): the nodes watching s
 * get it. */
void peer_frame(session_t *s);
/* session.c: s leaves memory; the nodes watching it are told. */
void peer_session_gone(session_t *s);
/* session_load.c, game's loop: a resume that held another node's ask to
 * watch game (session_watch_held) ended: the game is streamed now, or the
 * nodes that asked are told it could not be resumed. */
void peer_resume_done(server_t *k, int64_t game);
/* Home: what the lists hold and what reading them cost so far. */
typedef struct {
    int games;            /* other nodes' live games known here */
    int mirrors;          /* of them, with a mirror session (listed, watchable) */
    uint64_t reads, rows; /* list reads, and the rows they returned */
} peer_stats_t;
void peer_stats(const server_t *home, peer_stats_t *st);
/* The node holding s's lease when s mirrors another node's game, else NULL
 * (home; borrowed while s lives). */
const char *peer_node_of(const session_t *s);
/* session.c, any loop: game now runs on this node (a node that died left
 * it here): its mirror, if any, goes, its watchers told. */
void peer_game_here(server_t *srv, int64_t game);

#endif
