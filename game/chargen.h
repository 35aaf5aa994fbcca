/* chargen — choosing who you are: the creation screen (a-d a race, then a
 * class; any other key picks at random, so a start is one key), the new
 * character (abilities, hit points, mana and spells, the starting kit),
 * the gift chosen every third experience level, and a caster's spell
 * picked at every level from those of its class it may learn by then
 * (a spell's level; books teach the others: chargen_learn). */
#ifndef WARREN_CHARGEN_H
#define WARREN_CHARGEN_H
#include "game.h"

void chargen_begin(game_t *g); /* puts up the creation screen */
/* Makes the character (race and class indices; -1: random). */
void chargen_create(game_t *g, int race, int cls);
/* Prompt rows (prompt.c): the race and class screens, the level-up gift. */
int chargen_race_key(game_t *g, key_event_t k);
int chargen_class_key(game_t *g, key_event_t k);
void chargen_draw(game_t *g, screen_t *s); /* the race or the class screen */
/* A new level's --More-- (PROMPT_WELCOME, "Welcome to experience level
 * N!" on the message line): only Space, Enter or Esc page it, other keys
 * are ignored, so moves typed ahead of the kill cannot choose; past its
 * last page the level-up screen opens. */
int chargen_welcome_key(game_t *g, key_event_t k);
int chargen_levelup_key(game_t *g, key_event_t k);
void chargen_levelup_draw(game_t *g, screen_t *s);
/* True when a gift, or a spell pick with a spell to pick, is owed. */
bool chargen_owed(const game_t *g);
/* Spells of the character's class it does not know and may learn at its
 * level now, as a set (bit = id). */
uint32_t chargen_learnable_now(const game_t *g);
/* Whether the character may learn spell from a book now: false with a
 * message saying why (another class's, known, beyond its level); when it
 * may and learn_it, it learns it. */
bool chargen_learn(game_t *g, int spell, bool learn_it);

#endif
