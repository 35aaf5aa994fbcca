/* bot — a simple, sensible player for warren-engine's bot and bench
 * commands: explore, pick things up, fight what is adjacent, cast its
 * spells (bolts at what it sees, a heal when hurt), zap wands along a
 * line, drink healing or a fighting potion, read teleportation when
 * cornered and unknown scrolls when safe, eat when hungry, rest when
 * hurt, descend; it keeps out of deep water, lava and chasms, leaves
 * shops' unpaid goods alone, climbs to the town's temple to be healed
 * when it is hurt on level 1 with gold to pay, and carries the
 * Heartstone up the stairs. On the surface (atlas.h) it first leaves the
 * town by its gate, walks the overland to the nearest dungeon entrance,
 * looks round that branch's first level, climbs out and walks home to
 * the Warren; with the Heartstone it leaves the town again and walks to
 * the nearest safe town. It reads the game's state (world.h) and answers
 * with keys, as a player would type. */
#ifndef WARREN_BOT_H
#define WARREN_BOT_H
#include <stdint.h>
#include "keys.h"
#include "world.h"

typedef struct {
    uint32_t queue[4]; /* keys decided but not yet typed */
    int nq;
    int16_t *dist; /* BFS scratch, w*h */
    int8_t *first; /* first step's direction per cell */
    int32_t *open;
    uint8_t *ignore;  /* cells whose items we gave up on */
    uint8_t *visited; /* cells stood on (a frontier there reveals nothing more) */
    int cells, depth;
    uint32_t level_keys, keys;
    int last_x, last_y, stuck, idle;
    uint64_t last_now;
    uint64_t rng; /* for unsticking; seeded per game */
    int cls;      /* the class it makes (content index); -1: a random character */
    int casts;    /* spells it cast (its mana went down) */
    int16_t mana_before;
    int temple;                   /* times it was healed at the temple */
    int retreats;                 /* times it took the stairs away from a fight it was losing */
    int16_t arrived_x, arrived_y; /* where it came onto this level: those stairs lead back */
    uint8_t rested;               /* it has rested on this level since it came */
    uint8_t heal;                 /* 1: heading for the temple to be healed */
    uint8_t trip; /* the surface: 0 the town not yet left, 1 a branch next, 2 home next */
    int goal;     /* the overland cell it walks to (y * w + x); -1 none */
} bot_t;

/* cls: the class to play (content index), -1 for a random character. */
void bot_init(bot_t *b, uint64_t seed, int cls);
void bot_free(bot_t *b);
/* The next key for g. */
key_event_t bot_next_key(bot_t *b, game_t *g);
/* Draws g into s (game_render, one-cell tiles) and counts the creatures
 * the player sees that the frame does not show where they stand (0 while
 * a screen, an overlay or a cursor is up instead of the map). verify
 * (NULL: none): the frame checked, game_view_t.verify_misses. */
int bot_view_misses(game_t *g, screen_t *s, uint64_t *verify);

#endif
