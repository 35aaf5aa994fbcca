/* backend — how a session drives its game: one ops table per kind of game.
 *
 * Two kinds: Warren's own engine, in process (warrengame.c: journal,
 * snapshots, replay verification), and a terminal program under a pty
 * (hosted/hostgame.c). Each makes its sessions with session_new and its
 * own ops table. The session owns viewers, frames and the grace
 * period; the backend owns the game's state and its storage.
 *
 * A backend that produces output on its own (the pty) calls
 * session_output (session_impl.h) for a frame, and session_finish when its
 * game ends. Loop thread only. */
#ifndef WARREN_BACKEND_H
#define WARREN_BACKEND_H
#include <stdbool.h>
#include <stddef.h>
#include "conn.h"
#include "keys.h"
#include "screen.h"
#include "session.h"

/* What the viewers add to a frame, the same for all of them in one frame:
 * the watcher count, the player's options. */
typedef struct {
    int watchers;
    bool two_cell, turns;
} session_view_t;

typedef struct backend_ops {
    const char *kind; /* "warren" or "pty" */
    /* The player's key (Warren's own keys, playkeys.h, and test hooks are
     * handled before). */
    void (*key)(conn_t *c, session_t *s, key_event_t k);
    /* The player's terminal is now w x h (the session's grid follows). */
    void (*resize)(session_t *s, int w, int h);
    /* The game's screen into scr (of any size; clipped). */
    void (*draw)(const session_t *s, screen_t *scr, const session_view_t *v);
    /* The tests' probe (F12 with test-hooks on): the game's state in the
     * log. NULL: F12 is the game's key. */
    void (*probe)(session_t *s);
    /* A point to make the game durable (detach, level, shutdown). */
    void (*save)(session_t *s, const char *why);
    /* The game is over and waits on its last --More-- for the player: a
     * player leaving it now ends it. NULL: never. */
    bool (*over_at_more)(const session_t *s);
    /* The session is leaving memory without an end (grace over, closed by
     * an admin). Returns true when the backend frees the session itself
     * later (a program given time to save); false: free it now. */
    bool (*stop)(session_t *s);
    /* What the layers above may know of the game (session_status); NULL
     * or false: nothing (a hosted game's state is the program's own). */
    bool (*status)(const session_t *s, session_status_t *st);
    /* Whether the game is a program under a pty (here or on another
     * node: session_hosted), which owns its whole screen. NULL: never. */
    bool (*hosted)(const session_t *s);
    /* The game ended: its end state and score row are stored, msg (n
     * bytes) says it in a line. Returns true with end filled in for a last
     * screen (hooks.h: game_over), false: msg is shown. */
    bool (*finish)(session_t *s, session_end_t *end, char *msg, size_t n);
    void (*free)(session_t *s); /* the game's state, once the session goes */
    /* A watcher came (session_watch). NULL: nothing to do. */
    void (*watched)(session_t *s);
    /* A game whose player is elsewhere (another node's: peer.c): whether
     * it is played there now, and the player's size as last seen here (0
     * x 0: not known). NULL: the session's own player says. */
    bool (*played)(const session_t *s, int *w, int *h);
} backend_ops_t;

#endif
