/* chargen — choosing who you are: the creation screen (a-d a race, then a
 * class; any other key picks at random, so a start is one key), the new
 * character (abilities, hit points, mana and spells, the starting kit),
 * and the gift chosen every third experience level. */
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
int chargen_levelup_key(game_t *g, key_event_t k);
void chargen_levelup_draw(game_t *g, screen_t *s);

#endif
