/* game — the engine's public face: the only header the server includes.
 *
 * A game is a pure function of (content, seed, input keys): no clock, no
 * I/O, no globals. Thousands live in one process. Content is loaded once and
 * shared read-only by every game.
 *
 * Ownership: content_load/content_free and game_new|game_load/game_free pair.
 * Strings in game_status_t are copies inside the struct. */
#ifndef WARREN_GAME_H
#define WARREN_GAME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "keys.h"
#include "screen.h"

typedef struct content content_t;
typedef struct game game_t;

/* Loads the Lua content modules from dir (NULL: game/content of the source
 * tree the engine was built from). On failure returns NULL and writes
 * "file:line: what is wrong" into err; nothing is half-loaded. */
content_t *content_load(const char *dir, char *err, size_t errlen);
void content_free(content_t *c);
const char *content_version(const content_t *c); /* stable id of this content */

/* Fixed when the game is made and kept with it (a replay makes the game
 * with the same options). Zero is every default. */
typedef struct {
    char name[32];     /* the player's name (from the account) */
    bool gold_by_hand; /* false (the default): walking onto gold picks it up */
} game_options_t;

typedef enum { GAME_RUNNING = 0, GAME_DEAD, GAME_WON, GAME_QUIT } game_state_t;

typedef struct {
    char name[32];
    char race[16]; /* "" until the character is created */
    char cls[16];
    int depth, max_depth;
    int xl; /* experience level */
    int hp, hp_max;
    uint64_t turn; /* game time in turns (ticks / 100) */
    game_state_t state;
    int64_t score;
    char cause[128]; /* "killed by a kobold on level 3", "quit", "escaped with the Heartstone" */
    uint32_t level_changes; /* bumps on every level change: a cue to snapshot */
    /* The game is over but its last words wait on --More-- ("You die...
     * --More--"): the host shows its frames and hands it the player's keys
     * (each pages on, changing nothing else; journal them like any) until
     * this is false, then shows its end screen. */
    bool more;
    /* The last key asked the host to save the game and return to its menu
     * (the game's S): a request, not state. It changed nothing in the game,
     * is never saved nor hashed, and the next game_input clears it; a
     * replay of the journal ignores it. */
    bool leave;
} game_status_t;

typedef struct {
    uint64_t turn;
    int depth;
    char kind[16]; /* "start", "xl", "depth", "unique.seen", "unique.killed", "artifact", "end" */
    char text[128];
} game_milestone_t;

/* What a view adds on top of the state; never changes the state. */
typedef struct {
    int watchers;  /* shown on the status line when > 0 */
    bool two_cell; /* draw each map tile two cells wide */
    bool turns;    /* the turn counter on the status line (costs bytes on every key) */
    /* The host's idle clock: it may count up every several seconds while
     * the player types nothing, and the help line turns one command
     * further with each count (never on a key or a game turn). 0 in
     * replays. */
    uint32_t hint_tick;
    /* The host's counter of stamps (screen_t.stamp), one for all the
     * grids it hands game_render: a grid that still holds the game's last
     * frame, as its stamp says, is given only the rows that changed since,
     * not compared row by row. NULL: every row compared. */
    uint64_t *stamps;
    /* A check of the kept frame (tests; warren-engine under
     * WARREN_RENDER_VERIFY=1): each frame drawn from the kept one also
     * compares the map's rows no write marked (level_t.dirty), draws any
     * that changed, and counts them here. NULL: no check (a count above 0
     * is a writer that does not mark its rows). */
    uint64_t *verify_misses;
} game_view_t;

/* Content kinds may carry Lua handlers; they run in a script vm. A vm
 * belongs to one thread (each thread that runs games makes its own, e.g.
 * the loop thread and every pool thread that replays games) and is lent to
 * each game_input call; a game keeps no pointer to it afterwards, so games
 * move freely between threads. Free a vm before the content it ran. */
typedef struct script_vm script_vm_t;
script_vm_t *script_vm_new(void); /* NULL on OOM */
void script_vm_free(script_vm_t *vm);

/* A new game opens on the character creation screen: a-d choose a race and
 * then a class; any other key picks a random character at once. */
game_t *game_new(const content_t *c, uint64_t seed, const game_options_t *opt); /* NULL on OOM */
void game_free(game_t *g);
/* Applies one key and runs the schedule until the player must act again or
 * the game ends; vm (this thread's, borrowed for the call) runs scripted
 * handlers (NULL: they are skipped, for tests of the code rules only).
 * Keys after the end only page its last --More-- (game_status_t.more),
 * else are ignored. Returns the state. */
game_state_t game_input(game_t *g, script_vm_t *vm, key_event_t key);
/* Draws the whole view into s at s's size (any size from 20x5 up); rows
 * of s that change become dirty. The game keeps its last frame and draws
 * only what changed since it, then copies it into s. */
void game_render(game_t *g, screen_t *s, const game_view_t *view);
/* That kept frame itself, brought up to date at w x h, for a host that
 * diffs it against what its terminals show without a copy: its dirty rows
 * are exactly the rows that changed since the game's last frame (all rows
 * when the size changed). Borrowed until the next game_frame, game_render
 * or game_free. NULL when the game keeps a frame of another size (a few
 * calls in a row at a new size move it; game_render draws any size) or
 * out of memory. */
const screen_t *game_frame(game_t *g, int w, int h, const game_view_t *view);
void game_status(const game_t *g, game_status_t *st);
size_t game_milestone_count(const game_t *g);
const game_milestone_t *game_milestone(const game_t *g, size_t i); /* borrowed */
void game_dump(const game_t *g, buf_t *out);                       /* the text dump (any time) */
uint64_t game_hash(const game_t *g); /* 64-bit hash over the whole state */
uint64_t game_seed(const game_t *g);

/* Snapshot: versioned, checksummed, compressed blob of the whole state.
 * The version goes up whenever the saved state's layout changes; a blob
 * of another version is refused (game_load says which), and the host
 * rebuilds that game from its seed and journal instead. game_load still
 * reads every format from GAME_SNAPSHOT_OLDEST's (7: before the overland,
 * spell picks and veteran ranks; the game goes on with the town's ways out
 * cut through its trees). From 9 a snapshot names the kinds it refers to, and loads under any content
 * that has them (other kinds may come and go, tables reorder); older ones
 * load only under the content that wrote them. */
#define GAME_SNAPSHOT_VERSION 9
#define GAME_SNAPSHOT_OLDEST  7
int game_snapshot(const game_t *g, buf_t *out); /* 0 or -1 (out->failed) */
/* game_snapshot in two halves, so a host can compress off its game thread:
 * game_snapshot_state copies the state into state (replacing its bytes; a
 * fraction of the cost), game_snapshot_pack makes from that copy the very
 * blob game_snapshot would have (any thread: it reads nothing else). Each
 * 0 or -1. */
int game_snapshot_state(const game_t *g, buf_t *state);
int game_snapshot_pack(const buf_t *state, buf_t *out);
/* NULL and a message in err for a truncated, corrupt or wrong-version
 * blob, or one of content that c cannot read (a kind it lacks, named);
 * never crashes. */
game_t *game_load(const content_t *c, const uint8_t *blob, size_t len, char *err, size_t errlen);

#endif
