/* trap — what a level hides, and the doors the player works.
 *
 * When a level is made (from a stream of its own, after the map), some of
 * its doors become locked or secret and a few traps are laid; neither
 * ever cuts a part of the level off (a level stays whole without its
 * locked and secret doors and around its traps). Waiting searches the
 * cells around the player; every step takes a passing glance at them, a
 * weaker search. A trap springs when the player steps on it (a known one
 * is stepped over by a Reflex save); monsters know their home's traps.
 * The door commands (close, lock or pick, kick) ask a direction
 * (PROMPT_DOOR). */
#ifndef WARREN_TRAP_H
#define WARREN_TRAP_H
#include <stdbool.h>
#include "keys.h"
#include "screen.h"
#include "world.h"

/* What a trap does when it springs: X(ID, fn, flags), fn trap.c's function
 * for it; TAF_EFFECT: the trap names a timed effect (trap_kind_t.effect),
 * and no other does. Content names an action in lower case ("fall"). */
enum { TAF_EFFECT = 1 << 0 };
#define TRAP_ACTION_LIST(X)                                                            \
    X(DAMAGE, spring_damage, 0)          /* its dice of its dtype */                   \
    X(EFFECT, spring_effect, TAF_EFFECT) /* the effect for its dice in turns */        \
    X(TELEPORT, spring_teleport, 0)      /* somewhere else on the level */             \
    X(FALL, spring_fall, 0)              /* to the level below (the bottom: damage) */ \
    X(ALARM, spring_alarm, 0)            /* wakes the level */
enum {
#define TRAP_ACTION_ENUM_(id, fn, flags) TRAP_##id,
    TRAP_ACTION_LIST(TRAP_ACTION_ENUM_)
#undef TRAP_ACTION_ENUM_
        TRAP_ACTIONS
};

#define TRAP_FOUND 0x80 /* level_t.trap: found by the player */
#define TRAP_KIND  0x7f /* level_t.trap: kind + 1 */

/* The door commands PROMPT_DOOR asks a direction for (game_t.door_cmd). */
enum { DOOR_CLOSE = 0, DOOR_LOCK, DOOR_KICK, DOOR_CMDS };

/* Locks and hides doors and lays traps on a new level (depth >= 1). */
void trap_hide(game_t *g, level_t *lv);
/* The trap kind at (x, y), or -1; known: only one the player has found. */
int trap_at(const level_t *lv, int x, int y, bool known);
/* Searches the cells around the player, each hidden thing found with
 * chance percent: how many were found. */
int trap_search(game_t *g, int chance);
/* level_t.hidden_rows, made from lv's bytes when not yet made. */
uint64_t trap_hidden_rows(level_t *lv);
/* Finds every hidden trap and door within radius of the player (a
 * detection spell): how many. */
int trap_detect(game_t *g, int radius);
/* The player's chance to find a hidden thing next to them, in percent:
 * searching (waiting) or a passing glance. */
int trap_search_chance(const game_t *g, bool searching);
/* The player has stepped onto a cell: its trap springs, then the glance. */
void trap_arrive(game_t *g);
/* Known traps in view on the map (render.c's layer between terrain and items). */
void trap_render(game_t *g, screen_t *s, int ox, int oy, int vw, int vh, int top, int tw);

/* Commands (cmd.c's table): each asks a direction. */
int trap_cmd_close(game_t *g);
int trap_cmd_lock(game_t *g);
int trap_cmd_kick(game_t *g);
int trap_door_key(game_t *g, key_event_t k); /* PROMPT_DOOR's key */
void trap_door_draw(game_t *g, screen_t *s); /* and its question */

#endif
