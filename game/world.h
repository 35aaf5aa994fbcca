/* world — the inside of a game_t, shared by the engine's modules.
 *
 * Everything a game is hangs off game_t: allocator, RNG streams, registry,
 * schedule, levels, messages. No globals. The server sees only game.h.
 *
 * Scheduler functions are one const table built from SCHED_FN_LIST: the id
 * (FN_*) is what a saved event stores, so ids are append-only. */
#ifndef WARREN_WORLD_H
#define WARREN_WORLD_H
#include <stdbool.h>
#include <stdint.h>
#include "alloc.h"
#include "content.h"
#include "game.h"
#include "obj.h"
#include "rng.h"
#include "sched.h"

#define SCHED_FN_LIST(X) \
    X(PLAYER_TURN)       \
    X(MONSTER_TURN)      \
    X(EFFECT_TICK)       \
    X(REGEN)             \
    X(TEST)

enum {
#define SCHED_FN_ENUM_(n) FN_##n,
    SCHED_FN_LIST(SCHED_FN_ENUM_)
#undef SCHED_FN_ENUM_
    FN_COUNT
};

typedef void (*sched_fn_t)(game_t *g, const event_t *ev);

#define WORLD_MAX_DEPTH 20
#define MSG_LOG 32
#define MSG_LEN 100
#define MILESTONES_MAX 64
#define LIGHT_RADIUS 7

/* A named region of a level (a room, cave or vault). */
typedef struct {
    int16_t kind; /* content region kind (c->regions), -1 none */
    uint8_t lit;  /* seen from afar */
    uint8_t shape; /* mapgen_shape_t */
} level_region_t;

/* Only the current level is live: vis, opaque and lit exist for it alone
 * (level_live) and are dropped when the player leaves (level_sleep). */
typedef struct {
    int16_t w, h;
    int16_t depth;
    int16_t up_x, up_y, down_x, down_y;
    uint8_t *terrain; /* w*h terrain ids (content terrain table) */
    uint8_t *seen;    /* w*h: 1 once the player has seen the cell */
    uint8_t *region;  /* w*h: 0 none, else index + 1 into regions */
    level_region_t *regions;
    uint16_t nregions;
    uint8_t *vis;     /* w*h: visible now (live only, derived, not saved) */
    uint8_t *opaque;  /* w*h: blocks sight (live only, derived from terrain) */
    uint8_t *lit;     /* w*h: lit by its region (live only, derived) */
    uint8_t opaque_ok; /* 0: opaque must be rebuilt (terrain changed) */
    rng_t gen;        /* this level's own stream: rng_hash2(seed, depth) */
} level_t;

typedef struct {
    char text[MSG_LEN];
    uint64_t turn;
    uint16_t repeat;
} msg_t;

struct game {
    galloc_t al;
    const content_t *c;
    uint64_t seed;
    rng_t play, cosmetic;
    reg_t reg;
    sched_t sched;
    level_t *levels[WORLD_MAX_DEPTH + 1];
    int16_t depth, max_depth;
    handle_t player;
    uint8_t state;      /* game_state_t */
    uint8_t prompt;     /* PROMPT_* awaiting an answer */
    uint8_t ev_depth;   /* nesting of event_throw (0 between inputs) */
    script_vm_t *vm;    /* lent for one game_input (NULL between): runs scripted handlers */
    uint32_t script_errors; /* handler failures (reported, not state: never saved) */
    char script_err[160];   /* the last one, "file:line: what" */
    uint32_t level_changes;
    uint32_t keys;      /* keys taken */
    int64_t score;
    char name[32];
    char cause[128];
    msg_t log[MSG_LOG]; /* ring */
    uint32_t nmsg;      /* messages ever logged */
    uint32_t msg_seen;  /* nmsg when the player last pressed a key */
    game_milestone_t *ms;
    uint32_t nms, ms_cap;
};

enum { PROMPT_NONE = 0, PROMPT_QUIT, PROMPT_MORE, PROMPT_HISTORY, PROMPT_COUNT };

/* world.c: a game without a level (tests build on it), levels, helpers. */
game_t *world_new_empty(const content_t *c, uint64_t seed);
/* Makes level 1 with the player and monsters: 0, or -1 on OOM (game_free cleans up). */
int world_start(game_t *g);
level_t *world_level(game_t *g);                   /* the current level */
bool level_in(const level_t *lv, int x, int y);
uint8_t level_terrain(const level_t *lv, int x, int y); /* rock outside */
bool world_passable(game_t *g, const level_t *lv, int x, int y);
handle_t world_creature_at(game_t *g, int depth, int x, int y);
void world_msg(game_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void world_milestone(game_t *g, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void world_update_vision(game_t *g);
void world_run(game_t *g); /* runs the schedule until the player must act */
extern const sched_fn_t WORLD_SCHED_FNS[FN_COUNT];

/* level.c */
level_t *level_new(game_t *g, int w, int h, int depth);
void level_free(game_t *g, level_t *lv);
int level_generate(game_t *g, level_t *lv); /* 0 or -1 (OOM) */
/* What mapgen gets for a level of this content (vaults, regions, rooms). */
mapgen_params_t level_params(const content_t *c, int w, int h, int depth);
/* Sets the region table to n entries (zeroed); 0 or -1 (OOM). */
int level_set_regions(game_t *g, level_t *lv, int n);
int level_live(game_t *g, level_t *lv); /* allocates vis/opaque/lit: 0 or -1 */
void level_sleep(game_t *g, level_t *lv);
bool level_visible(const level_t *lv, int x, int y); /* in view now */
/* The region kind at (x, y), or NULL (none, or content without regions). */
const region_kind_t *level_region_kind(const game_t *g, const level_t *lv, int x, int y);

/* rules.c: the rules: creatures, combat, levels. */
int rules_populate(game_t *g, level_t *lv);
int rules_player_command(game_t *g, key_event_t k); /* ticks spent; 0: none */
void rules_player_turn(game_t *g, const event_t *ev);
void rules_monster_turn(game_t *g, const event_t *ev);
void rules_regen(game_t *g, const event_t *ev);
handle_t rules_spawn(game_t *g, uint16_t kind, int depth, int x, int y);
void rules_kill(game_t *g, handle_t victim, handle_t killer);
int rules_step(game_t *g, handle_t h, int dx, int dy); /* move or attack: ticks, 0 refused */
int rules_stairs(game_t *g, int dir);                /* +1 down, -1 up: ticks, 0 refused */

/* cmd.c: the command table. A row with run NULL documents keys handled
 * elsewhere (movement). label is what help shows ("^P"). */
typedef struct {
    uint32_t code;
    const char *label;
    const char *what;
    int (*run)(game_t *g); /* ticks spent; 0: no time */
} cmd_t;
const cmd_t *cmd_table(size_t *n);

/* msg.c: the message log, --More-- paging and the history screen.
 * Paging decisions use a fixed line of MSG_WIDTH columns, never the
 * terminal's, so a replay at any size takes the same keys the same way. */
#define MSG_WIDTH 80
#define MORE_TEXT " --More--"
/* Messages from `from` that fit on one line with room for MORE_TEXT (at
 * least one); *all set when every message up to the newest fits whole. */
uint32_t msg_fit(const game_t *g, uint32_t from, bool *all);
int msg_format(const msg_t *m, char *out, size_t n); /* "text (x3)" */
bool msg_key(game_t *g);        /* a key taken by paging or a screen: true */
void msg_after_input(game_t *g); /* opens --More-- when the new messages overflow */

/* snapshot.c */
void world_save(const game_t *g, ser_t *s);

/* render.c */
void world_render(game_t *g, screen_t *s, const game_view_t *view);

#endif
