/* atlas — the maps of a game and how they join. A map's id is its index
 * into game_t.levels and the `depth` of every object on it; what a map is
 * follows from its id:
 *
 *   0        the home town (Burrowmouth): its stairs lead down into the Warren
 *   1..20    the Warren
 *   21       the overland: the seed's continent, walked a cell per step
 *   22..85   the other towns: town i of the world map is ATLAS_TOWN0 + i
 *   86..     the branches: level k (1..) of territory t's dungeon is
 *            ATLAS_BRANCH0 + t * BRANCH_LEVELS_MAX + k - 1
 *
 * The table (towns, territories, their entrances and branches, the links
 * between towns by road and by water) is a pure function of the content
 * and the seed, made from the world map (worldmap.h) by atlas_need the
 * first time a game needs it (leaving the town, loading a game beyond it,
 * the inn, the world map), never saved: a game that stays in the town and
 * the Warren never pays for it. A map's danger (what generation,
 * monsters and treasure read as its depth) comes from its id and the
 * table: a Warren level's is its depth, a branch's grows with its
 * territory's distance from home, the towns' and the overland's is 0
 * (the overland's encounters take their territory's).
 *
 * Saved with the game (atlas_save): the walk's counts and which branches
 * have been announced. Ownership: the table is the game's (atlas_free);
 * everyone else reads it. */
#ifndef WARREN_ATLAS_H
#define WARREN_ATLAS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game.h"
#include "ser.h"
#include "worldmap.h"

#define ATLAS_WARREN_MAX  20 /* world.h's WORLD_MAX_DEPTH */
#define ATLAS_OVERLAND    (ATLAS_WARREN_MAX + 1)
#define ATLAS_TOWN0       (ATLAS_OVERLAND + 1)
#define ATLAS_BRANCH0     (ATLAS_TOWN0 + WORLD_TOWN_MAX)
#define BRANCH_LEVELS_MAX 6
#define LEVEL_IDS         (ATLAS_BRANCH0 + WORLD_TERR_MAX * BRANCH_LEVELS_MAX)
#define ATLAS_LINKS_MAX   (2 * WORLD_TOWN_MAX)

enum { ATLAS_NONE = 0, ATLAS_TOWN, ATLAS_WARREN, ATLAS_WILDS, ATLAS_BRANCH }; /* atlas_kind */
enum { ATLAS_BY_ROAD = 0, ATLAS_BY_SEA, ATLAS_BY_RIVER };                     /* a link */

typedef struct {
    char name[WORLD_NAME_LEN];
    int16_t x, y; /* its cell on the overland */
    uint8_t terr; /* its territory */
    uint8_t port; /* next to the sea */
    uint8_t safe; /* the seat of a territory not home's: the Warren's hunt ends at its walls */
} atlas_town_t;

typedef struct {
    char name[WORLD_NAME_LEN];
    uint8_t hops;   /* borders crossed from home's territory (0: home) */
    uint8_t danger; /* its wilds' encounters; its branch's first level */
    uint8_t theme;  /* its branch's theme (content_t.branches); 255: none (home: the Warren) */
    uint8_t levels; /* its branch's levels; 0: none */
    int16_t ex, ey; /* its entrance on the overland; -1: none */
} atlas_terr_t;

/* Two towns a traveller may go between: by road (a road runs), or by water
 * (a route of the world map, between the landings of its territories). */
typedef struct {
    uint8_t a, b; /* towns */
    uint8_t by;   /* ATLAS_BY_* */
    uint8_t river;
    uint16_t len; /* cells travelled */
} atlas_link_t;

typedef struct {
    char continent[WORLD_NAME_LEN];
    int w, h; /* the overland's size */
    int n_towns, n_terrs, n_links, home;
    atlas_town_t towns[WORLD_TOWN_MAX];
    atlas_terr_t terrs[WORLD_TERR_MAX];
    atlas_link_t links[ATLAS_LINKS_MAX];
    char rivers[WORLD_RIVER_MAX][WORLD_NAME_LEN];
} atlas_table_t;

typedef struct {
    atlas_table_t *t;    /* derived (atlas_need); NULL: not needed yet, or no world */
    uint32_t steps;      /* saved: steps walked on the overland */
    uint32_t encounters; /* saved: groups met there */
    uint32_t told;       /* saved: bit t, territory t's branch has been entered */
} atlas_t;

/* Whether g's content declares a world (else there is no overland). */
bool atlas_world(const game_t *g);
/* Makes the table for g's content and seed unless it is made already or
 * the content has no world: 0, or -1 on OOM. atlas_free drops it (the
 * counts stay). */
int atlas_need(game_t *g);
void atlas_free(game_t *g);
void atlas_save(const game_t *g, ser_t *s);
void atlas_load(game_t *g, rd_t *in); /* fails in on bad values */

int atlas_kind(int id);                       /* ATLAS_*; ATLAS_NONE outside the ids */
int atlas_town_id(const game_t *g, int town); /* its map id (home: 0) */
int atlas_town_of(const game_t *g, int id);   /* the town a map id is; -1 none */
int atlas_branch_id(int terr, int k);         /* level k (1..) of territory terr's branch */
bool atlas_branch_of(int id, int *terr, int *k);
/* What generation reads as the map's depth; 0 on the surface. */
int atlas_danger(const game_t *g, int id);
/* The map below a dungeon level and above it (-1: none; a branch's first
 * level is below the overland, the Warren's below the home town). */
int atlas_below(const game_t *g, int id);
int atlas_above(const game_t *g, int id);
/* Its size (the overland: the world map's; else mapgen's default). */
void atlas_size(const game_t *g, int id, int *w, int *h);
/* The town or territory whose town or entrance is overland cell (x, y); -1 none. */
int atlas_town_at(const game_t *g, int x, int y);
int atlas_entrance_at(const game_t *g, int x, int y);
/* "the barrow of Vethmark": territory terr's branch. */
void atlas_branch_name(const game_t *g, int terr, char *out, size_t n);
/* Where the player is, for a cause of death ("on level 3", "in the wilds
 * of Vethmark", "in Oakford", "on level 2 of the barrow of Vethmark") and
 * for the status line ("Depth 3", "Town", "Vethmark", "Oakford",
 * "Barrow 2"). */
void atlas_where(const game_t *g, char *out, size_t n);
void atlas_place(const game_t *g, char *out, size_t n);
/* The territory of overland cell (x, y); -1 on water or without a world. */
int atlas_terr_at(const game_t *g, int x, int y);

/* The roads of world w between t's towns (the same every time): grown
 * from the home town, each the cheapest way over land from the roads so
 * far to a town not yet on one, and a road link (appended to t's links)
 * between that town and the town whose road it branches off; the cells
 * they run on marked 1 in road (w->w * w->h; NULL: not wanted). 0, or -1
 * on OOM. */
int atlas_roads(const worldmap_t *w, atlas_table_t *t, uint8_t *road);

#endif
