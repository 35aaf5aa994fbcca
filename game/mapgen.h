/* mapgen — one dungeon level (or the town surface) from a seed.
 *
 * Pure: the output depends only on the parameters and the rng state the
 * caller passes (seed it with rng_hash2(game_seed, level_id), so a level
 * is the same whatever happened before). No globals, no floating point.
 *
 * Dungeon levels (depth >= 1): a jittered grid of rooms of varied shapes
 * (rectangle, octagon, cross, circle, pillared hall, two overlapping
 * rectangles), cellular "life" caves, rough (drunkard-walk) caves and
 * prefab vaults (rotated and mirrored), joined by corridors with doors;
 * then a flood-fill pass joins every open area to the rest, dead ends are
 * trimmed, and the stairs are placed far apart by path distance.
 * The town (depth 0) is a green in a ring of trees with a few houses
 * (five at least: the town's shops take them) and the down stairs. Guarantee: every passable cell is reachable from the arrival
 * point (up_x, up_y).
 *
 * Content hooks are plain data (the Lua content supplies them): vault
 * prefabs, region types with depth bands and weights, and the weights of
 * the room shapes. NULL uses the built-in defaults below.
 *
 * Ownership: mapgen_level_new/mapgen_level_free pair; the level owns its
 * arrays. Strings in params are borrowed for the call only. */
#ifndef WARREN_MAPGEN_H
#define WARREN_MAPGEN_H
#include <stddef.h>
#include <stdint.h>
#include "rng.h"

/* 100x40 holds a 5x3 grid of rooms and caves; views smaller than the map
 * scroll or centre on the player. */
#define MAPGEN_DEFAULT_W   100
#define MAPGEN_DEFAULT_H   40
#define MAPGEN_MIN_W       40
#define MAPGEN_MIN_H       20
#define MAPGEN_MAX_W       250
#define MAPGEN_MAX_H       120
#define MAPGEN_MAX_REGIONS 160
#define MAPGEN_MAX_SPOTS   64

/* Terrain: one byte per cell. Stable numbers (saved in snapshots). */
typedef enum {
    MAP_ROCK = 0, /* solid, never seen as a wall face */
    MAP_WALL,     /* a room or cave wall; also pillars */
    MAP_FLOOR,
    MAP_CORRIDOR,
    MAP_DOOR_CLOSED,
    MAP_DOOR_OPEN,
    MAP_STAIRS_UP,
    MAP_STAIRS_DOWN,
    MAP_WATER,      /* shallow: passable, does not block sight */
    MAP_DEEP_WATER, /* impassable on foot, does not block sight */
    MAP_GRASS,      /* town */
    MAP_TREE,       /* town: impassable, blocks sight */
    MAP_RUBBLE,     /* passable, blocks sight */
    /* never made by mapgen: the engine's door pass (trap.c) */
    MAP_DOOR_LOCKED, /* a closed door that only a kick opens */
    MAP_DOOR_SECRET, /* looks like wall until found */
    MAP_DOOR_BROKEN, /* kicked in: open for good */
    /* never made by mapgen: special levels (special.c) */
    MAP_LAVA,  /* impassable to monsters; burns the player who steps in */
    MAP_CHASM, /* impassable to monsters; the player who steps in falls */
    /* never made by mapgen: the overland and the towns' ways out (overland.c) */
    MAP_GATE,     /* a town's way out through the trees: < leaves for the overland */
    MAP_SEA,      /* the overland's sea: impassable */
    MAP_LAKE,     /* the overland's lakes: impassable */
    MAP_SEA_LANE, /* the sea where a sea route runs: impassable on foot */
    MAP_PLAINS,   /* the overland's open land */
    MAP_HILLS,    /* highland: slow going */
    MAP_RIVER,    /* a river: forded, slowly */
    MAP_ROAD,     /* a road between towns: quick going */
    MAP_TOWN,     /* a town: > enters it */
    MAP_ENTRANCE, /* a dungeon's mouth: > enters it */
    MAP_TERRAIN_COUNT
} mapgen_terrain_t;

typedef enum {
    SHAPE_RECT = 0,
    SHAPE_OCTAGON,
    SHAPE_CROSS,
    SHAPE_CIRCLE,
    SHAPE_PILLARED,
    SHAPE_OVERLAP,
    SHAPE_CAVE_LIFE,
    SHAPE_CAVE_ROUGH,
    SHAPE_VAULT,
    SHAPE_TOWN,
    SHAPE_BUILDING,
    SHAPE_COUNT
} mapgen_shape_t;

/* A vault prefab: rows of glyphs. Standard glyphs: '#' wall, '.' floor,
 * '+' closed door, '\'' open door, '~' water, 'W' deep water, ':' rubble,
 * ' ' not part of the vault (left as generated). Glyphs '0'-'9', 'a'-'z'
 * and any glyph in legend mark a floor cell as a spot (reported in
 * level->spots for the engine to fill with monsters or treasure).
 * legend: optional "Xt" pairs, glyph then terrain glyph ("G.T~": G is a
 * floor spot, T a water spot); NULL for none. */
typedef struct {
    const char *name;
    const char *rows; /* lines separated by '\n', all the same length */
    const char *legend;
    int min_depth, max_depth, weight;
} mapgen_vault_t;

/* A region type: named regions ("a kobold warren") by depth and shape. */
typedef struct {
    const char *name;
    int min_depth, max_depth, weight;
    uint32_t shapes; /* bit mask of 1u << mapgen_shape_t; 0 = any */
    int lit;         /* -1: by depth, 0: always dark, 1: always lit */
} mapgen_region_type_t;

typedef struct {
    int w, h;   /* 0: MAPGEN_DEFAULT_W/H */
    int depth;  /* 0 = the town */
    int bottom; /* nonzero: no down stairs (the last level) */
    const mapgen_vault_t *vaults;
    int nvaults; /* vaults NULL: built-in defaults */
    const mapgen_region_type_t *rtypes;
    int nrtypes;             /* rtypes NULL: built-in defaults */
    const int *room_weights; /* [SHAPE_COUNT], rooms only; NULL: built-in */
} mapgen_params_t;

typedef struct {
    uint8_t shape;      /* mapgen_shape_t */
    uint8_t lit;        /* 1: seen from afar (fov lit array) */
    int16_t type;       /* index into the region types used, -1 none */
    int16_t vault;      /* index into the vaults used, -1 not a vault */
    int16_t x, y, w, h; /* bounding box */
    uint8_t orient;     /* vaults: 0-7: bit 0 mirrors left-right, bits 1-2 turn it a
                         * quarter clockwise that many times, after the mirror */
} mapgen_region_t;

typedef struct {
    int16_t x, y;
    char glyph;     /* the vault glyph that marked it */
    uint8_t region; /* region index */
} mapgen_spot_t;

typedef struct {
    int w, h, depth;
    uint8_t *terrain; /* w*h, mapgen_terrain_t */
    uint8_t *region;  /* w*h, 0 = none, else index + 1 into regions */
    /* at most MAPGEN_MAX_REGIONS: on big maps the rest of the grid is
     * corridor junctions */
    mapgen_region_t regions[MAPGEN_MAX_REGIONS];
    int nregions;
    mapgen_spot_t spots[MAPGEN_MAX_SPOTS];
    int nspots;
    int up_x, up_y;     /* arrival: up stairs; town: the start spot */
    int down_x, down_y; /* -1 when none */
} mapgen_level_t;

/* Allocates a level able to hold w x h (0: defaults). NULL on bad size/OOM. */
mapgen_level_t *mapgen_level_new(int w, int h);
void mapgen_level_free(mapgen_level_t *lv);

/* Generates into lv (sized by mapgen_level_new with p->w, p->h).
 * Returns 0, or a negative code with a message in err (may be NULL):
 * -1 bad parameters, -2 bad content (a vault or region type), -3 OOM. */
int mapgen_generate(mapgen_level_t *lv, const mapgen_params_t *p, rng_t *rng, char *err,
                    size_t errlen);

/* Checks one vault prefab (for the content loader): 0 or -1 with err. */
int mapgen_vault_check(const mapgen_vault_t *v, char *err, size_t errlen);

/* Terrain properties shared by movement, vision and the checks. */
int mapgen_passable(uint8_t t);
int mapgen_opaque(uint8_t t);
char mapgen_terrain_glyph(uint8_t t); /* ASCII, for dumps and tests */
const char *mapgen_shape_name(uint8_t s);

/* For fov: out is w*h bytes (caller-owned). Lit = in a lit region
 * (region walls included); opaque = mapgen_opaque of the terrain. */
void mapgen_fill_lit(const mapgen_level_t *lv, uint8_t *lit_out);
void mapgen_fill_opaque(const mapgen_level_t *lv, uint8_t *opaque_out);

/* Counts passable cells and those reachable from (up_x, up_y). */
void mapgen_count_reachable(const mapgen_level_t *lv, int *open, int *reachable);

/* Built-in content, const data. */
const mapgen_vault_t *mapgen_default_vaults(int *n);

#endif
