/* worldmap — the surface world the town lies on: a continent raised from
 * noise over the sea, territories grown from seed points over its land,
 * rivers running downhill to the sea or a lake, water routes between the
 * territories (by sea between ports, and along rivers), and names made of
 * syllables for the continent, territories, towns and rivers.
 *
 * The world is a pure function of the content's `world { ... }`
 * declaration (worldmap_params_t) and the game's seed. It draws from a
 * stream of its own (rng_hash2 of the seed and a salt of its own, never the
 * game's streams), so making it, any number of times, changes nothing in a
 * game: it is not saved, and it is made again whenever it is shown.
 *
 * Ownership: worldmap_new / worldmap_free pair; the struct is read-only
 * for everyone else. */
#ifndef WARREN_WORLDMAP_H
#define WARREN_WORLDMAP_H
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "game.h"

/* ---- the content's parameters (game/content/world.lua) ---------------------- */

#define WORLD_SYL_MAX   32 /* entries per syllable list */
#define WORLD_SYL_LEN   8  /* bytes per entry with its NUL */
#define WORLD_NAME_LEN  24
#define WORLD_TERR_MAX  16
#define WORLD_TOWN_MAX  64
#define WORLD_RIVER_MAX 16

/* The syllable lists a name is made from: onset + vowel syllables, a coda
 * after the last, then (territories, towns, rivers) an ending. */
#define WORLD_SYL_LIST(X) X(onsets) X(vowels) X(codas) X(territory_ends) X(town_ends) X(river_ends)
enum {
#define WORLD_SYL_ENUM_(n) WSYL_##n,
    WORLD_SYL_LIST(WORLD_SYL_ENUM_)
#undef WORLD_SYL_ENUM_
        WSYL_LISTS
};

typedef struct {
    uint8_t w, h;              /* map cells (a cell is about twice as tall as wide) */
    uint8_t land_pct;          /* the share of the map raised above the sea */
    uint8_t territories[2];    /* how many, at least and at most */
    uint8_t towns[2];          /* towns per territory */
    uint8_t rivers[2];         /* rivers */
    char home[WORLD_NAME_LEN]; /* the player's town; "": a made name */
    int16_t wilds, streets;    /* region kinds of the overland and other towns; -1 none */
    char syl[WSYL_LISTS][WORLD_SYL_MAX][WORLD_SYL_LEN];
    uint8_t n_syl[WSYL_LISTS]; /* n_syl[WSYL_vowels] == 0: the content has no world */
} worldmap_params_t;

/* ---- the world ------------------------------------------------------------------- */

enum { WM_SEA = 0, WM_LAND, WM_LAKE };           /* worldmap_t.kind */
enum { WM_TO_SEA = 0, WM_TO_LAKE, WM_TO_RIVER }; /* where a river ends */
enum { WM_BY_SEA = 0, WM_BY_RIVER };             /* a water route */

typedef struct {
    char name[WORLD_NAME_LEN];
    int16_t x, y; /* the seed point it grew from */
    uint16_t cells;
    uint8_t coast; /* it touches the sea */
    uint8_t seat;  /* its first town (an index into towns) */
} worldmap_territory_t;

typedef struct {
    char name[WORLD_NAME_LEN];
    int16_t x, y;
    uint8_t territory;
    uint8_t port; /* next to the sea */
} worldmap_town_t;

typedef struct {
    char name[WORLD_NAME_LEN];
    uint16_t *path; /* len cells (y * w + x) from the source down to the mouth */
    uint16_t len;
    uint8_t to;   /* WM_TO_*: the cell after the last is sea, lake or `into`'s */
    uint8_t into; /* WM_TO_RIVER: the river it flows into (an earlier one) */
} worldmap_river_t;

typedef struct {
    uint8_t a, b;  /* territories, a < b */
    uint8_t by;    /* WM_BY_* */
    uint8_t river; /* WM_BY_RIVER: which */
} worldmap_route_t;

typedef struct {
    int w, h;
    char name[WORLD_NAME_LEN]; /* the continent's */
    uint8_t *kind;             /* w*h: WM_* */
    uint8_t *high;             /* w*h: 1 on highland */
    uint8_t *terr;             /* w*h: territory + 1 on land, 0 on water */
    uint8_t *river;            /* w*h: river + 1 where one runs, else 0 */
    uint8_t *lane;             /* w*h: 1 on the sea where a sea route runs */
    worldmap_territory_t terrs[WORLD_TERR_MAX];
    worldmap_town_t towns[WORLD_TOWN_MAX];
    worldmap_river_t rivers[WORLD_RIVER_MAX];
    worldmap_route_t routes[WORLD_TERR_MAX * 4];
    int n_terrs, n_towns, n_rivers, n_routes;
    int home; /* the player's town (an index into towns) */
} worldmap_t;

/* The world of a game's seed under c's parameters; NULL with a message in
 * err when c declares no world or out of memory. */
worldmap_t *worldmap_new(const content_t *c, uint64_t seed, char *err, size_t errlen);
/* The same from the parameters themselves (tests, tools). */
worldmap_t *worldmap_make(const worldmap_params_t *p, uint64_t seed, char *err, size_t errlen);
void worldmap_free(worldmap_t *w);

/* What a cell shows: an ASCII glyph (~ water, : a sea route, - | / \ a
 * river, * a town, @ the player's town); on land, with letters, the
 * territory's letter (a, b, ...), else . or ^ (highland). */
char worldmap_glyph(const worldmap_t *w, int x, int y, int letters);
/* The map as plain text with letters, then its legend: territories and
 * their towns, rivers and where they go, the water routes, your town. */
void worldmap_text(const worldmap_t *w, buf_t *out);

#endif
