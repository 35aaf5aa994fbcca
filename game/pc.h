/* pc — the player's character in numbers (d20): ability modifiers, attack
 * bonus, defence, armour, saves, stealth, prices, drained abilities, hit
 * points by hit die, experience and levels (each third owes a gift, and
 * each one a caster a spell to pick: chargen.h's prompt), and pc_t, the
 * character itself (game_t.pc). */
#ifndef WARREN_PC_H
#define WARREN_PC_H
#include <stdbool.h>
#include <stdint.h>
#include "content.h"

/* The character (game_t.pc), made by chargen.c. Saved whole. */
typedef struct {
    uint8_t race, cls;      /* content races/classes; valid once created */
    uint8_t created;        /* 0 while the creation screen is up */
    int8_t ab[AB_COUNT];    /* ability scores, as drained now */
    int8_t drain[AB_COUNT]; /* points drained from each (restore abilities gives them back) */
    uint8_t xl;             /* experience level 1-20 */
    uint8_t choices;        /* level-up choices owed */
    uint8_t spell_picks;    /* spells a caster may still pick to learn (one a level) */
    uint8_t veteran; /* ranks past level 20: each a level's hit points and mana, and a gift */
    uint8_t pick_hp, pick_hit, pick_def; /* choices taken */
    uint8_t heartstone;                  /* carrying it */
    uint8_t power_attack;                /* the fighter's stance: harder, wilder blows (power.h) */
    int16_t mana, mana_max;
    uint32_t spells; /* known spells: bit i is content spell i (spell.h) */
    int32_t xp;
    uint32_t kills;
    uint64_t uniques_made, uniques_seen, uniques_killed; /* bits by unique order */
    uint64_t artifacts_made, artifacts_found;            /* bits by artifact order (ego.h) */
} pc_t;

int pc_mod(int score); /* the d20 ability modifier */
/* The character's race and class kinds (neutral ones before creation). */
const race_kind_t *pc_race(const game_t *g);
const class_kind_t *pc_class(const game_t *g);
const char *pc_race_name(const game_t *g); /* "" before creation */
const char *pc_class_name(const game_t *g);
int pc_attack_bonus(const game_t *g);
int pc_defence(const game_t *g);
int pc_armour(const game_t *g);         /* damage absorbed: up to this much */
int pc_save(const game_t *g, int save); /* SAVE_FORT, SAVE_REF or SAVE_WILL */
/* How hard the character is to notice (monsters roll d20 + perception
 * against 10 + this): the class's stealth, plus Dex, less a point for
 * every STEALTH_CLANK tenths of a pound of worn armour, plus a point for
 * every STEALTH_QUICK points of speed over 100 (gone before one looks). */
#define STEALTH_CLANK 100
#define STEALTH_QUICK 25
int pc_stealth(const game_t *g);
/* What a thing of base value costs the character: 5% less for every point
 * of Cha bonus (5% more for every point of malus), at least 1. For the
 * town's store. */
int pc_price(const game_t *g, int base);
/* A blow that drains ability ab (AB_*): Fort against dc or lose a point
 * (never below 3). True when drained. */
bool pc_drain(game_t *g, int ab, int dc);
bool pc_restore(game_t *g); /* gives back every drained point; true when any */
/* Hit points for a level: the class's hit die (all of it for the first)
 * plus Con and the toughness gifts, at least 1. */
int pc_level_hp(game_t *g, bool first);
void pc_gain_xp(game_t *g, int32_t xp); /* levels up, owing gifts */
int32_t pc_xp_for(int xl);              /* experience needed for level xl */
/* Past level 20 a character goes on growing: every PC_VETERAN_XP more
 * experience is a veteran rank (at most PC_VETERAN_MAX), with a level's
 * hit points and mana and a gift, so the last third of the Warren still
 * makes one stronger. */
#define PC_VETERAN_XP  10000
#define PC_VETERAN_MAX 50

#endif
