/* world — what a game is made of: the types every engine module shares.
 *
 * Everything a game is hangs off game_t: allocator, RNG streams, registry,
 * schedule, levels, messages, the character. No globals. The server sees
 * only game.h; each module's functions are in its own header (level.h,
 * creature.h, msg.h, ...).
 *
 * Scheduler functions are named by SCHED_FN_LIST, X(ID, fn): the id (FN_*)
 * is what a saved event stores, so ids are append-only; fn runs it (turn.c
 * makes the table). */
#ifndef WARREN_WORLD_H
#define WARREN_WORLD_H
#include <stdbool.h>
#include <stdint.h>
#include "alloc.h"
#include "atlas.h"
#include "content.h"
#include "event.h"
#include "game.h"
#include "item.h"
#include "obj.h"
#include "pc.h"
#include "rng.h"
#include "sched.h"

#define SCHED_FN_LIST(X)             \
    X(PLAYER_TURN, fn_nothing)       \
    X(MONSTER_TURN, fn_monster_turn) \
    X(EFFECT_TICK, effect_on_tick)   \
    X(REGEN, creature_regen)         \
    X(TEST, fn_nothing)              \
    X(HUNGER, status_hunger_tick)

enum {
#define SCHED_FN_ENUM_(n, fn) FN_##n,
    SCHED_FN_LIST(SCHED_FN_ENUM_)
#undef SCHED_FN_ENUM_
        FN_COUNT
};

#define WORLD_MAX_DEPTH 20
#define MSG_LOG         512 /* messages kept (history, saves); a power of two */
#define MSG_LEN         100
#define MILESTONES_MAX  64

/* A named region of a level (a room, cave or vault). */
typedef struct {
    int16_t kind;  /* content region kind (c->regions), -1 none */
    uint8_t lit;   /* seen from afar */
    uint8_t shape; /* mapgen_shape_t */
} level_region_t;

/* What the player knows of a cell (level_t.seen): SEEN_EYES once seen
 * (its items are remembered too), SEEN_MAP its layout known unseen (the
 * home town's, from the start: terrain, no items, no creatures). */
enum { SEEN_EYES = 1, SEEN_MAP = 2 };

enum { LEVEL_DIRTY_ROWS = 64 }; /* level_t.dirty's: a made level has 40 rows, the overland 21 */

/* Only the current level is live: vis, opaque and lit exist for it alone
 * (level_live) and are dropped when the player leaves (level_sleep). */
typedef struct {
    int16_t w, h;
    int16_t depth;
    int16_t up_x, up_y, down_x, down_y;
    uint16_t nregions;
    uint8_t *terrain; /* w*h terrain ids (content terrain table) */
    uint8_t *seen;    /* w*h: SEEN_* bits, 0 a cell never known */
    uint8_t *region;  /* w*h: 0 none, else index + 1 into regions */
    uint8_t *trap;    /* w*h: 0 none, else trap kind + 1, | TRAP_FOUND once found (trap.h) */
    level_region_t *regions;
    /* The rows whose terrain, seen or vis may have changed since the
     * render last compared them with its frame, a bit a row (derived,
     * never saved), in the struct's first cache line with the arrays the
     * render reads: every writer of those arrays marks its rows (level.h's
     * level_row_changed); rows from LEVEL_DIRTY_ROWS on are always
     * compared. */
    uint64_t dirty;
    uint8_t *vis;    /* w*h: visible now (live only, derived, not saved) */
    uint8_t *opaque; /* w*h: blocks sight (live only, derived from terrain) */
    uint8_t *lit;    /* w*h: lit by its region (live only, derived) */
    /* The rows (bit y, rows from LEVEL_DIRTY_ROWS on never left out) that
     * may hold something hidden: a secret door, a trap not found. Derived,
     * never saved: made from the bytes at the first search (hidden_ok 0
     * until then, after a load and after trap_hide), then a row's bit is
     * set wherever a secret door is made (level_set_terrain) and left set
     * when it is found: a search reads the trap bytes of those rows only. */
    uint64_t hidden_rows;
    uint8_t hidden_ok;
    /* The cells of vis that the view's steps flipped since the render
     * last compared them (live only, derived, never saved): a bit a cell,
     * level_flip_words(w) words a row from row 0, XORed at each flip, so
     * a cell flipped and back holds 0. flip_rows: the rows with bits set.
     * A row not in dirty but in flip_rows changed in those cells' vis
     * alone: the render reads them, not the row (level_vis_flipped). */
    uint64_t flip_rows;
    uint64_t *flips;
    /* The cells that lie under the sky (an RF_SKY region's: seen there
     * shows as in sight), a bit a cell, laid out as flips but for every
     * row (live only, derived from region and regions, never saved): the
     * render reads these, not the region bytes. Good while sky_ok: made
     * by level_sky_ready, undone by level_live and level_regions_changed. */
    uint64_t *sky;
    uint8_t sky_ok;
    uint8_t opaque_ok; /* 0: opaque must be rebuilt (terrain changed) */
    /* 0: no byte of trap has TRAP_FOUND, so the render reads none of them
     * (derived, never saved): set where a trap is found and on a load */
    uint8_t traps_found;
    /* vis is the view from (fov_x, fov_y) at fov_radius while fov_ok: it
     * is reused until the viewer moves, the radius changes or a cell
     * within fov_reach (the scan's Chebyshev distance) changes opacity */
    uint8_t fov_ok;
    int16_t fov_x, fov_y, fov_radius, fov_reach;
    /* the view before it (live only, derived, not saved), its sight box
     * packed a bit a cell (vision.c): stepping back is a copy, not a scan.
     * Good while kept_ok, on the same terms as vis (within kept_reach).
     * kept_diff: kept holds the bits where it differs from vis (both over
     * one sight box), so a step to and fro flips those cells and no more. */
    uint64_t *kept;
    uint8_t kept_ok, kept_diff;
    int16_t kept_x, kept_y, kept_radius, kept_reach;
    rng_t gen; /* this level's own stream: rng_hash2(seed, depth) */
} level_t;

typedef struct {
    char text[MSG_LEN];
    uint64_t turn;
    uint16_t repeat;
} msg_t;

typedef struct render_cache render_cache_t;

/* The fields a key reads every turn come first, packed together: at
 * many games each game is out of the caches when its key comes, so a
 * key costs the cache lines it touches; the long arrays (levels by id,
 * the map index's buckets) and the words only an ending or a load reads
 * come after. The order is memory's alone: saves go field by field. */
struct game {
    galloc_t al;
    const content_t *c;
    uint64_t seed;
    rng_t play;
    handle_t player;
    int16_t depth, max_depth;
    uint8_t state;    /* game_state_t */
    uint8_t prompt;   /* PROMPT_* (prompt.h) awaiting an answer */
    uint8_t ev_depth; /* nesting of event_throw (0 between inputs) */
    /* transient, never saved nor hashed: the last key asked to save and
     * leave (game_status_t.leave) */
    uint8_t leave;
    uint32_t keys;     /* keys taken */
    uint32_t own_line; /* 1 + the log index of the last own missiles' pickup line (item.c) */
    /* transient, never saved nor hashed */
    uint32_t said;       /* every msg_add, a repeat folded or not: "was anything said?" */
    uint32_t said_aside; /* of those, words that need not stop a travel (item_arrive) */
    uint32_t run_said;   /* said less said_aside as the running travel began (travel.c) */
    /* within one input only (zero between inputs): a running travel/explore */
    uint8_t run;           /* travel.c's RUN_* */
    int8_t run_dx, run_dy; /* a run's way (shifted hjklyubn): travel_run */
    uint8_t run_sides;     /* its open sides where it last stood (travel.c) */
    uint8_t run_nknown;
    uint8_t gold_by_hand; /* the option (game_options_t): walking picks up no gold */
    uint8_t page;         /* the page of the open help or history screen */
    /* derived, never saved: the uniques made (creature_spawn) or held by
     * the registry when first looked at (a load may bring one its save
     * never counted as made), so that combat_unique_seen walks the
     * creatures only while one of them is still unseen (combat.c) */
    uint8_t uniques_looked;
    uint64_t uniques_held;
    msg_t *log;        /* ring of MSG_LOG, grown as messages come (msg.c) */
    uint32_t log_cap;  /* entries allocated */
    uint32_t nmsg;     /* messages ever logged */
    uint32_t msg_seen; /* nmsg when the player last pressed a key */
    uint32_t level_changes;
    script_vm_t *vm;  /* lent for one game_input (NULL between): runs scripted handlers */
    ev_watch_t watch; /* tests and tools: sees every event thrown (event.h); NULL in play */
    void *watch_ctx;  /* borrowed, for watch (transient) */
    sched_t sched;
    item_state_t items; /* identification, hunger, gold, item screens (item.h) */
    atlas_t atlas;      /* the surface world's table and the walk's counts (atlas.h) */
    /* derived, never saved: the distance map from the player (ai.c) */
    int16_t *dmap;
    int16_t dmap_x, dmap_y, dmap_depth; /* where it was made from; depth -1: none */
    uint16_t dmap_w, dmap_h;
    pc_t pc;
    int16_t cur_x, cur_y;         /* the travel / look cursor while its prompt is up */
    uint8_t door_cmd;             /* the door command whose direction PROMPT_DOOR asks (trap.h) */
    uint8_t aim;                  /* what PROMPT_TARGET aims (target.h's AIM_*) */
    uint8_t shop_mode;            /* the trade screen's mode (shop.h SHOP_*) */
    uint32_t aim_arg;             /* its item handle or spell id */
    handle_t target;              /* the creature last aimed at (target.h) */
    handle_t quiver;              /* the missiles f fires (missile.h); checked when used */
    int16_t view_x, view_y;       /* the map view's anchor: follows the player loosely (vision.c) */
    handle_t shop_keeper;         /* whose trade screen is open */
    uint32_t specials_told;       /* bit d: the special level at depth d has been announced */
    int16_t goal_x, goal_y;       /* travel's goal (within one input only) */
    render_cache_t *render_cache; /* derived, never saved: the last frame drawn (render.c) */
    rng_t cosmetic;
    reg_t reg;
    level_t *levels[LEVEL_IDS]; /* by map id (atlas.h): the Warren, the surface, branches */
    /* unaware monsters in view when a run began: they do not stop it
     * (within one input only) */
    handle_t run_known[16];
    game_milestone_t *ms;
    uint32_t nms, ms_cap;
    int64_t score;
    uint32_t script_errors; /* handler failures (reported, not state: never saved) */
    char script_err[160];   /* the last one, "file:line: what" */
    char name[32];
    char cause[128];
};

#endif
