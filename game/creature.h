/* creature — creatures as registry objects (OBJ_CREATURE; the player is
 * one too, g->player): their kind, their names in messages, making them
 * and peopling a level, a step (a move, or an attack on who stands there)
 * and regeneration. Kinds are content (creatures.lua, content.h). */
#ifndef WARREN_CREATURE_H
#define WARREN_CREATURE_H
#include <stdint.h>
#include "grammar.h"
#include "world.h"

/* o's kind (kind 0 for an out-of-range id: a loaded game checks them). */
const creature_kind_t *creature_kind(const game_t *g, const obj_t *o);
/* Its order among the content's unique kinds, or -1 when not one (or past 64). */
int creature_unique_index(const content_t *c, uint16_t kind);
gram_noun_t creature_noun(game_t *g, handle_t h); /* for the grammar (grammar.h) */
/* A message from a template about actor and victim (HANDLE_NONE: absent);
 * nothing when the player perceives neither. */
void creature_say(game_t *g, const char *tmpl, handle_t actor, handle_t victim);

/* A creature of kind at (x, y) on level depth, hit points rolled from the
 * level's stream; it gets no turn yet. HANDLE_NONE on OOM or a bad kind. */
handle_t creature_spawn(game_t *g, uint16_t kind, int depth, int x, int y);
/* Monsters for a new level (the warden at the bottom), from its stream,
 * with their first turns and kits: 0 or -1 (OOM). */
int creature_populate(game_t *g, level_t *lv);
/* h moves by (dx, dy), or attacks who stands there, or opens a closed
 * door: ticks spent, 0 when refused. */
int creature_step(game_t *g, handle_t h, int dx, int dy);
/* The scheduler function regaining hit points (and the player's mana). */
void creature_regen(game_t *g, const event_t *ev);

#endif
