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
#include "grammar.h"
#include "item.h"
#include "obj.h"
#include "rng.h"
#include "sched.h"

#define SCHED_FN_LIST(X) \
    X(PLAYER_TURN)       \
    X(MONSTER_TURN)      \
    X(EFFECT_TICK)       \
    X(REGEN)             \
    X(TEST)              \
    X(HUNGER)

enum {
#define SCHED_FN_ENUM_(n) FN_##n,
    SCHED_FN_LIST(SCHED_FN_ENUM_)
#undef SCHED_FN_ENUM_
        FN_COUNT
};

typedef void (*sched_fn_t)(game_t *g, const event_t *ev);

#define WORLD_MAX_DEPTH 20
#define MSG_LOG         32
#define MSG_LEN         100
#define MILESTONES_MAX  64
#define LIGHT_RADIUS    7

/* A named region of a level (a room, cave or vault). */
typedef struct {
    int16_t kind;  /* content region kind (c->regions), -1 none */
    uint8_t lit;   /* seen from afar */
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
    uint8_t *vis;      /* w*h: visible now (live only, derived, not saved) */
    uint8_t *opaque;   /* w*h: blocks sight (live only, derived from terrain) */
    uint8_t *lit;      /* w*h: lit by its region (live only, derived) */
    uint8_t opaque_ok; /* 0: opaque must be rebuilt (terrain changed) */
    rng_t gen;         /* this level's own stream: rng_hash2(seed, depth) */
} level_t;

typedef struct {
    char text[MSG_LEN];
    uint64_t turn;
    uint16_t repeat;
} msg_t;

/* The player as a character (chargen.c). Saved whole. */
typedef struct {
    uint8_t race, cls;      /* content races/classes; valid once created */
    uint8_t created;        /* 0 while the creation screen is up */
    int8_t ab[AB_COUNT];    /* ability scores, as drained now */
    int8_t drain[AB_COUNT]; /* points drained from each (restore abilities gives them back) */
    uint8_t xl;             /* experience level 1-20 */
    uint8_t choices;        /* level-up choices owed */
    uint8_t pick_hp, pick_hit, pick_def; /* choices taken */
    uint8_t heartstone;                  /* carrying it */
    int16_t mana, mana_max;
    uint16_t spells; /* known spells (1 << SPELL_*) */
    int32_t xp;
    uint32_t kills;
    uint64_t uniques_made, uniques_seen, uniques_killed; /* bits by unique order */
} pc_t;

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
    uint8_t state;          /* game_state_t */
    uint8_t prompt;         /* PROMPT_* awaiting an answer */
    uint8_t ev_depth;       /* nesting of event_throw (0 between inputs) */
    script_vm_t *vm;        /* lent for one game_input (NULL between): runs scripted handlers */
    uint32_t script_errors; /* handler failures (reported, not state: never saved) */
    char script_err[160];   /* the last one, "file:line: what" */
    uint32_t level_changes;
    uint32_t keys; /* keys taken */
    int64_t score;
    char name[32];
    char cause[128];
    msg_t log[MSG_LOG]; /* ring */
    uint32_t nmsg;      /* messages ever logged */
    uint32_t msg_seen;  /* nmsg when the player last pressed a key */
    game_milestone_t *ms;
    uint32_t nms, ms_cap;
    pc_t pc;
    int16_t cur_x, cur_y; /* the travel / look cursor while its prompt is up */
    /* within one input only (zero between inputs): a running travel/explore */
    uint8_t run;            /* RUN_* */
    int16_t goal_x, goal_y; /* travel's goal */
    /* derived, never saved: the distance map from the player (ai.c) */
    int16_t *dmap;
    int16_t dmap_x, dmap_y, dmap_depth; /* where it was made from; depth -1: none */
    uint16_t dmap_w, dmap_h;
    item_state_t items; /* identification, hunger, gold, item screens (item.h) */
};

enum {
    PROMPT_NONE = 0,
    PROMPT_QUIT,
    PROMPT_MORE,
    PROMPT_HISTORY,
    PROMPT_RACE,
    PROMPT_CLASS,
    PROMPT_LEVELUP,
    PROMPT_TRAVEL,
    PROMPT_LOOK,
    PROMPT_HELP,
    PROMPT_CAST,
    PROMPT_COUNT
};

/* world.c: a game without a level (tests build on it), levels, helpers. */
game_t *world_new_empty(const content_t *c, uint64_t seed);
/* Makes level 1 with the player and monsters: 0, or -1 on OOM (game_free cleans up). */
int world_start(game_t *g);
level_t *world_level(game_t *g); /* the current level */
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
const creature_kind_t *world_ckind(const game_t *g, const obj_t *o);
bool world_sees(game_t *g, handle_t h);                          /* the player sees it now */
bool world_walkable(game_t *g, const level_t *lv, int x, int y); /* passable or a closed door */
gram_noun_t world_noun(game_t *g, handle_t h);                   /* for the grammar */
/* A message from a template about actor/victim (HANDLE_NONE: absent);
 * nothing when none of them is perceived. */
void world_say(game_t *g, const char *tmpl, handle_t actor, handle_t victim);
int rules_populate(game_t *g, level_t *lv);
int rules_player_command(game_t *g, key_event_t k); /* ticks spent; 0: none */
void rules_player_turn(game_t *g, const event_t *ev);
void rules_monster_turn(game_t *g, const event_t *ev);
void rules_regen(game_t *g, const event_t *ev);
handle_t rules_spawn(game_t *g, uint16_t kind, int depth, int x, int y);
void rules_kill(game_t *g, handle_t victim, handle_t killer);
int rules_step(game_t *g, handle_t h, int dx, int dy); /* move or attack: ticks, 0 refused */
int rules_stairs(game_t *g, int dir);                  /* +1 down, -1 up: ticks, 0 refused */

/* chargen.c: the character. */
void chargen_begin(game_t *g);              /* the creation screen */
bool chargen_key(game_t *g, key_event_t k); /* creation and level-up prompts: true when taken */
void chargen_create(game_t *g, int race, int cls); /* -1: random */
int chargen_mod(int score);                        /* d20 ability modifier */
int pc_attack_bonus(const game_t *g);
int pc_defence(const game_t *g);
int pc_armour(const game_t *g); /* damage absorbed: up to this much */
/* A blow that drains ability ab (AB_*): Fort against dc or lose a point
 * (never below 3). True when drained. */
bool pc_drain(game_t *g, int ab, int dc);
/* Gives back every drained point; true when there was any. */
bool pc_restore(game_t *g);
int pc_save(const game_t *g, int save); /* SAVE_FORT, SAVE_REF or SAVE_WILL */
void pc_gain_xp(game_t *g, int32_t xp);
int32_t pc_xp_for(int xl);                   /* experience needed for level xl */
void chargen_render(game_t *g, screen_t *s); /* creation and level-up screens */
const char *pc_race_name(const game_t *g);
const char *pc_class_name(const game_t *g);

/* combat.c: attack -> hit -> damage -> death, resistances, experience. */
int combat_attack(game_t *g, ev_info_t *e);                /* the attacker's MAIN ATTACK */
int combat_damage(game_t *g, ev_info_t *e, obj_t *victim); /* the victim's MAIN DAMAGE */
void combat_death(game_t *g, handle_t victim, handle_t killer);
int combat_cast(game_t *g, int spell); /* the player casts: ticks, 0 none */
bool combat_unique_seen(game_t *g);    /* milestones for uniques in view */
void combat_cause(game_t *g, handle_t killer, char *out,
                  size_t n);                         /* "killed by a kobold on level 3" */
int unique_index(const content_t *c, uint16_t kind); /* order among uniques, -1 not one */

/* ai.c: monsters. */
void ai_monster_turn(game_t *g, handle_t h);
void ai_dmap_update(game_t *g);                /* the player's distance map, when stale */
int ai_dmap_at(const game_t *g, int x, int y); /* steps from the player, -1 unknown */

/* travel.c: travel `_`, autoexplore `o`, look, help. */
enum { RUN_NONE = 0, RUN_TRAVEL, RUN_EXPLORE };
int travel_step(game_t *g, bool first); /* one step of the running travel/explore: ticks, 0 stop */
/* Items on this level on cells never seen (at most max handles) and, after
 * a step, whether one of them came into sight (said: "You see a dagger."). */
int travel_hidden_items(game_t *g, handle_t *out, int max);
bool travel_saw_item(game_t *g, const handle_t *hidden, int n);
bool travel_key(game_t *g, key_event_t k, int *cost); /* travel/look/help prompts: true taken */
void travel_render(game_t *g, screen_t *s);           /* look line, travel prompt, help screen */

/* end.c: victory, score, dump. */
int64_t end_score(const game_t *g);
void end_win(game_t *g);
/* Test-only start: a strong fighter beside the warden at depth 20 (0 or -1).
 * Declared here, not in game.h, so the server cannot reach it. */
int world_start_hero(game_t *g);

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
bool msg_key(game_t *g);                             /* a key taken by paging or a screen: true */
void msg_after_input(game_t *g); /* opens --More-- when the new messages overflow */

/* snapshot.c */
void world_save(const game_t *g, ser_t *s);

/* render.c */
void world_render(game_t *g, screen_t *s, const game_view_t *view);

#endif
