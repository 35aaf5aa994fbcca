/* creature — creatures as registry objects (OBJ_CREATURE; the player is
 * one too, g->player): their kind, their names in messages, making them
 * and peopling a level (one generation table for every way a monster
 * comes), kinds of mind, a step (a move, or an attack on who stands
 * there) and regeneration. Kinds are content (creatures.lua, content.h). */
#ifndef WARREN_CREATURE_H
#define WARREN_CREATURE_H
#include <stdbool.h>
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

/* h strikes other (EV_ATTACK): ticks spent, 0 when it did not (the
 * player too afraid). No question asked: creature_step and the aim ask. */
int creature_attack(game_t *g, handle_t h, handle_t other);

/* A creature of kind at (x, y) on level depth, hit points rolled from the
 * level's stream; it gets no turn yet. HANDLE_NONE on OOM or a bad kind. */
handle_t creature_spawn(game_t *g, uint16_t kind, int depth, int x, int y);

/* What a kind of mind does (creature.c's table: thinking, the default;
 * animal; mindless), read by the AI, item use and the status rules. */
typedef struct {
    bool uses_items;   /* reads, quaffs, zaps and picks things up */
    bool flees;        /* runs when badly hurt */
    uint8_t sleeps;    /* percent of those a new level brings that are asleep */
    int8_t perception; /* added to its rolls to notice the player */
    uint8_t immune;    /* EFK_* conditions it never has */
} mind_t;
const mind_t *creature_mind(const game_t *g, const obj_t *o); /* o NULL: thinking */

/* The one way monsters are chosen, for a new level, a summoning and one
 * arriving while you rest: a kind by generation weight among those whose
 * depths hold depth, never a unique already made (alive or dead), the
 * player's kind or the warden; -1 when none fits. */
int creature_pick_kind(game_t *g, rng_t *r, int depth);
/* The one way monsters are made: spawned, a unique marked as made, its
 * first turn scheduled, its kit given (a mind that uses items) from r.
 * MAKE_SLEEPY: as a new level has them, asleep by its mind's chance
 * (from r); MAKE_AWARE: awake and hunting (summoned, heard you rest).
 * HANDLE_NONE on OOM. */
enum { MAKE_SLEEPY = 0, MAKE_AWARE };
handle_t creature_make(game_t *g, uint16_t kind, int depth, int x, int y, rng_t *r, int how);
/* Monsters for a new level (the warden on the bottom one, only there),
 * from its stream, none within POPULATE_CLEAR of the arrival: 0 or -1. */
#define POPULATE_CLEAR 10
int creature_populate(game_t *g, level_t *lv);
/* A creature gone without a trace: what it carries, its effects, its
 * turns (deaths drop the belongings first). */
void creature_remove(game_t *g, handle_t h);
/* h moves by (dx, dy), or attacks who stands there (a monster: only the
 * player or the foe it hunts), or opens a closed door: ticks spent, 0
 * when refused. The player's step ends with what lies there (item.h). */
int creature_step(game_t *g, handle_t h, int dx, int dy);
/* Something happened to a monster (a blow, a miss, a wound): it wakes,
 * knows its foe, and regenerates while hurt. */
#define MONSTER_REGEN_TICKS (10 * SCHED_MOVE)
void creature_disturb(game_t *g, handle_t h);
/* The scheduler function regaining hit points (and the player's mana). */
void creature_regen(game_t *g, const event_t *ev);

#endif
