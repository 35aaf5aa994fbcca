/* target — aiming: the line a missile, bolt or breath flies along, and the
 * cursor (PROMPT_TARGET) that picks where a throw, a shot, a spell, a
 * wand or a power goes.
 *
 * The cursor starts on the last target when it is still in view, else on
 * the nearest creature in view, else on the player (never on a peaceful:
 * those are aimed at by hand, and asked about); direction keys move
 * it, Tab, + and - cycle through the creatures in view (nearest first),
 * Enter, '.', 't' or 'f' confirm, Escape cancels. What is aimed is
 * game_t.aim (AIM_*) with its argument game_t.aim_arg (an item handle or a
 * spell id); the creature a confirmed aim lands on becomes game_t.target.
 * All three are saved. */
#ifndef WARREN_TARGET_H
#define WARREN_TARGET_H
#include <stdint.h>
#include "keys.h"
#include "screen.h"
#include "world.h"

/* What the cursor aims (game_t.aim); ids are saved: append only. */
enum { AIM_NONE = 0, AIM_THROW, AIM_FIRE, AIM_SPELL, AIM_ZAP, AIM_POWER, AIM_MELEE, AIM_COUNT };

#define TARGET_RANGE_MAX 30
typedef struct {
    int16_t x, y;
} target_cell_t;

/* The cells a missile flies through from (x0, y0) towards (x1, y1) and on
 * past it, at most range of them (the start not counted), ending before
 * the first cell nothing can pass (a wall, a closed door). A line of its
 * own for every target: the same cells whoever throws. When the straight
 * line is blocked short of a target in range, a line nudged across by a
 * fraction of a cell that reaches it is taken instead (sight bends round
 * a pillar's corner; a missile should too). Returns how many. */
int target_path(game_t *g, int x0, int y0, int x1, int y1, int range,
                target_cell_t out[TARGET_RANGE_MAX]);
/* The cell that stopped a path of n cells from (x0, y0) towards (x1, y1)
 * that target_path cut short of its reach (a blocked line is always the
 * straight one): its (n + 1)th cell, into *x, *y. */
void target_blocker(int x0, int y0, int x1, int y1, int n, int *x, int *y);
/* Whether what from sends at (ax, ay) (a missile, a bolt, a burst) passes
 * h by: a peaceful creature (shop.h) is only ever struck by the player
 * aiming at its very cell, never by the way nor by a monster. */
bool target_spares(game_t *g, handle_t from, handle_t h, int ax, int ay);
/* The first creature other than from on the first n cells of path that
 * what from aims at (ax, ay) strikes (target_spares passes the rest),
 * with its place on it in *at (may be NULL); HANDLE_NONE when none. */
handle_t target_first(game_t *g, int depth, handle_t from, const target_cell_t *path, int n, int ax,
                      int ay, int *at);

/* Opens the cursor for aim with arg (what the confirmed aim uses). No time. */
int target_begin(game_t *g, int aim, uint32_t arg);
/* PROMPT_TARGET's key and its line over the map. */
int target_key(game_t *g, key_event_t k);
void target_draw(game_t *g, screen_t *s);
/* Asks "Really attack the shopkeeper?" (PROMPT_ATTACK) before aim with
 * arg at (x, y), where a peaceful stands (AIM_MELEE: a blow, when a bump
 * cannot trade); y goes on, any other key drops it. No time. */
int target_ask(game_t *g, int aim, uint32_t arg, int x, int y);
int target_attack_key(game_t *g, key_event_t k);
void target_attack_draw(game_t *g, screen_t *s);
/* The line from the player to the cursor on the map view (render.c). */
void target_render_path(game_t *g, screen_t *s, int ox, int oy, int vw, int vh, int top, int tw);
/* The creature the cursor would start on (the last target in view, else
 * the nearest in view; never a peaceful): HANDLE_NONE when none. */
handle_t target_default(game_t *g);
/* The cursor to the next creature in view (step 1: Tab, +), or the one
 * before (-1: -), nearest first, as the aiming cursor and look cycle;
 * peacefuls too when peaceful (look: every creature; aiming: not). */
void target_cycle(game_t *g, int step, bool peaceful);

#endif
