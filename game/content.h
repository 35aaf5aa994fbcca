/* content — the kinds and tables a game reads, loaded once and shared
 * read-only by every game (game.h's content_t).
 *
 * Content is plain tables: terrain kinds (indexed by mapgen's terrain
 * numbers), spells, creature kinds, item kinds, effect kinds, region kinds,
 * vault prefabs and room shape weights. Behaviour is named by id: handler ids
 * into `handlers` (event.h), hook ids into `hooks` (effect.h); those two
 * are const code tables (rules.h). content_load fills the kind tables from
 * the Lua modules in game/content (declare.h), whose kinds may also carry
 * scripted handlers run through a script_vm_t (script.h).
 *
 * Tests may build a content_t of their own (their own code tables) and run
 * a game on it with start_empty (start.h). */
#ifndef WARREN_CONTENT_H
#define WARREN_CONTENT_H
#include <stdint.h>
#include "effect.h"
#include "event.h"
#include "game.h"
#include "itemkind.h"
#include "mapgen.h"
#include "rng.h"
#include "worldmap.h"

#define KIND_HANDLERS 4

/* TF_LINE: drawn as a box-drawing line joined to seen TF_LINE and TF_EDGE
 * neighbours (walls; its glyph is for a cell with none); TF_EDGE: lines
 * join it (doors). */
enum { TF_PASSABLE = 1 << 0, TF_OPAQUE = 1 << 1, TF_LINE = 1 << 2, TF_EDGE = 1 << 3 };

typedef struct {
    char name[24];
    uint32_t glyph;
    uint16_t fg;
    uint8_t flags;  /* TF_* */
    uint8_t hazard; /* HAZARD_* (special.h): what stepping in does */
    dice_t dice;    /* a hazard's damage */
    int16_t move;   /* percent of a step's ticks to enter it (rubble: more); 100 */
} terrain_kind_t;

/* Creature flags. */
enum {
    CF_UNIQUE = 1 << 0,   /* one of a kind: appears once a game, within its depths, a milestone */
    CF_PROPER = 1 << 1,   /* a proper name: no article */
    CF_MINDLESS = 1 << 2, /* no mind: never flees, sleeps, fears, is confused or uses items */
    CF_COWARD = 1 << 3,   /* flees early */
    CF_WARDEN = 1 << 4,   /* holds the Heartstone: only on the bottom level, never elsewhere */
    CF_ANIMAL = 1 << 5,   /* a beast's mind: keen senses, never reads, quaffs or zaps */
    CF_PACK = 1 << 6,     /* hunts as a pack: spreads out round its foe (ai.c) */
    /* what it is, for weapons that slay one sort (ego_kind_t.slays) */
    CF_UNDEAD = 1 << 7,
    CF_ORC = 1 << 8,
    CF_GIANT = 1 << 9,
    CF_DRAGON = 1 << 10,
    CF_DEMON = 1 << 11,
    CF_PEACEFUL = 1 << 12, /* a keeper: stays put and trades until angered (shop.h) */
};
#define CREATURE_FLAG_NAMES                                                                    \
    {                                                                                          \
        "unique", "proper", "mindless", "coward", "warden", "animal", "pack", "undead", "orc", \
            "giant", "dragon", "demon", "peaceful"                                             \
    }
#define ABILITY_WORDS                                                                 \
    {                                                                                 \
        "strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma" \
    }
enum { SIZE_TINY = 0, SIZE_SMALL, SIZE_MEDIUM, SIZE_LARGE, SIZE_HUGE, SIZE_COUNT };
#define SIZE_NAMES                                 \
    {                                              \
        "tiny", "small", "medium", "large", "huge" \
    }

/* What a monster does besides blows and spells (ability.h): a breath in
 * a cone or a line that must recharge, a boon it puts on itself, kin it
 * calls (bounded), a hop away from a foe beside it, theft. Kinds are
 * stored + 1 so that a zeroed kind has none. */
enum { BREATH_NONE = 0, BREATH_CONE, BREATH_LINE, BREATH_SHAPES };
#define BREATH_SHAPE_NAMES     \
    {                          \
        "none", "cone", "line" \
    }
enum { STEAL_NONE = 0, STEAL_GOLD, STEAL_ITEM, STEAL_KINDS };
#define STEAL_NAMES            \
    {                          \
        "none", "gold", "item" \
    }
typedef struct {
    uint8_t breath;       /* BREATH_* */
    uint8_t breath_dtype; /* DT_* */
    uint8_t breath_range; /* cells */
    uint8_t recharge;     /* turns after a breath before it breathes or casts again */
    dice_t breath_dice;
    uint16_t buff;      /* effect kind + 1 it puts on itself before a fight; 0 none */
    uint16_t summon;    /* creature kind + 1 it calls to its side; 0 none */
    uint8_t summon_max; /* it calls none while this many of that kind are on the level */
    uint8_t blink;      /* 1: hops away from a foe beside it */
    uint8_t steal;      /* STEAL_*: what its blows take, before it hops away and flees */
} ability_t;

typedef struct {
    char name[40];
    uint32_t glyph;
    uint16_t fg;
    uint8_t gender; /* grammar gender */
    int16_t speed;  /* percent: 100 normal */
    dice_t hp;
    dice_t attack;
    int16_t to_hit, defence;
    int16_t min_depth, max_depth, weight; /* generation */
    uint16_t handlers[KIND_HANDLERS];     /* ids into content handlers; 0 = none */
    uint8_t dtype;                        /* damage type of its attack (DT_*) */
    uint8_t armour;                       /* a blow loses up to this much */
    uint8_t size;                         /* SIZE_* */
    uint8_t level;                        /* danger and experience */
    uint8_t pack;                         /* up to this many more of its kind come along */
    uint16_t flags;                       /* CF_* */
    uint16_t resist, immune, vuln;        /* bits 1 << DT_*: half, none, one and a half */
    uint32_t spells;                      /* bits 1 << spell id: the spells it casts */
    uint8_t drain;                        /* its blows may drain this ability: AB_* + 1; 0 none */
    int8_t perception;                    /* added to its rolls to notice the player */
    /* A ranged attack (missile.c; range 0: none): damage dice, reach in
     * steps, damage type and its verb ("shoot<s:Actor> an arrow"). */
    dice_t missile;
    uint8_t range;
    uint8_t missile_dtype;
    char shoots[32];
    ability_t ab;   /* breath, boon, kin, blink, theft */
    char hits[24];  /* its attack's verb: "bite<s:Actor>" (grammar template) */
    char desc[128]; /* what look shows */
} creature_kind_t;

/* Spells (spell.c casts them). Ids are declaration order and a spell set
 * is a 32-bit mask of ids (class and creature kinds, the character's
 * known spells in saves), so there are at most SPELLS_MAX and new ones go
 * last. What a spell does is its effect, one of SPELL_EFFECT_LIST
 * (spell.h), which says which of the fields below it uses. */
#define SPELLS_MAX 32
typedef struct {
    char name[24];
    int16_t mana;   /* its cost */
    uint8_t effect; /* SPELL_* (spell.h) */
    uint8_t dtype;  /* a bolt's, breath's or area's damage type (DT_*); DT_NONE otherwise */
    dice_t dice;    /* damage or healing (parsed once at load); a hex or buff: its turns */
    int16_t status; /* a hex's or buff's effect kind (content effects); -1 none */
    uint8_t radius; /* an area's or a detection's reach */
    uint8_t use;    /* a power's item use (USE_*, itemkind.h) */
} spell_kind_t;

/* Player races and classes (pc.c and chargen.c read them). */
enum { AB_STR = 0, AB_DEX, AB_CON, AB_INT, AB_WIS, AB_CHA, AB_COUNT };
typedef struct {
    char name[16];
    int8_t ab[AB_COUNT]; /* ability adjustments */
    int8_t to_hit, defence;
    uint16_t resist; /* bits 1 << DT_* */
    char desc[96];
} race_kind_t;

enum { SAVE_FORT = 1 << 0, SAVE_REF = 1 << 1, SAVE_WILL = 1 << 2 };
#define CLASS_KIT_MAX 8
typedef struct {
    char name[16];
    uint8_t hit_die;    /* hit points per level: 1dN + Con */
    uint8_t bab;        /* attack bonus per level, percent (100 fighter, 75, 50) */
    uint8_t good_saves; /* SAVE_* */
    uint8_t armour;     /* starting kit: armour (absorbs) and defence bonus */
    uint8_t sneak;      /* the great sneak attack on unaware foes (others strike a little harder) */
    int8_t stealth;     /* added to the character's stealth */
    uint8_t mana;       /* spell points per level (0: no spells) */
    uint32_t spells;    /* bits 1 << spell id: spells known from the start */
    uint32_t learnable; /* bits 1 << spell id: spells a level-up choice may teach */
    dice_t weapon;      /* starting kit: weapon damage */
    char weapon_name[24];
    char armour_name[24];
    /* The starting kit as item kind names, for the item rules to hand out
     * at creation (the hook: kit[i][0] == 0 ends the list). */
    char kit[CLASS_KIT_MAX][24];
    char desc[96];
} class_kind_t;

/* item_kind_t: itemkind.h (item modules) */

/* Conditions a timed effect puts on its target (status.h reads them, and
 * what each does to a turn is status.c's table). ASLEEP is also a
 * monster's natural sleep (OF_ASLEEP). */
#define EFFECT_FLAG_LIST(X) X(BLIND) X(CONFUSED) X(PARALYSED) X(FREE_ACTION) X(AFRAID) X(ASLEEP)
enum {
#define EFK_ENUM_(n) EFK_BIT_##n,
    EFFECT_FLAG_LIST(EFK_ENUM_)
#undef EFK_ENUM_
        EFK_BITS
};
#define EFK_(n) (1u << EFK_BIT_##n)

typedef struct {
    char name[24];
    char tag[12];     /* status line word ("Poison") */
    uint8_t stacking; /* effect_stack_t */
    int32_t interval; /* ticks between tick hooks (>= 1) */
    uint16_t hook[3]; /* start, tick, end: ids into content hooks; 0 = none */
    /* What the generic "status" hook does (status.h): messages (grammar
     * templates about <Actor>, the affected one), bonuses while it lasts,
     * hit points healed per tick, and EFK_* conditions. */
    char start_msg[64], end_msg[64];
    int16_t to_hit, damage, defence, speed, heal;
    int16_t speed_pct; /* speed is multiplied by this percent while it lasts (100: none) */
    uint8_t flags;
    uint8_t save; /* SAVE_* that resists it when something else puts it on you; 0 none */
} effect_kind_t;

/* Region kinds: mapgen names regions from `rtypes` (same index); the
 * rules read the rest. RF_DARK: light does not reach past the next cell
 * inside it. RF_SKY: open sky in daylight: its terrain, once seen, keeps
 * its colours out of view (creatures and items still show only in view). */
enum { RF_DARK = 1 << 0, RF_SKY = 1 << 1 };

typedef struct {
    char name[40];
    uint8_t flags;                    /* RF_* */
    uint16_t handlers[KIND_HANDLERS]; /* run for events that take place inside */
} region_kind_t;

/* Traps (trap.c): hidden on a level until searching or perception finds
 * them; what one does when the player steps on it is its action, a row of
 * TRAP_ACTION_LIST (trap.h). */
typedef struct {
    char name[24];
    uint8_t action; /* TRAP_* (trap.h) */
    uint8_t dtype;  /* damage: its type (DT_*) */
    dice_t dice;    /* damage: hit points; effect: turns */
    int16_t effect; /* effect: the effect kind (content effects); -1 none */
    int16_t min_depth, max_depth, weight;
    uint16_t fg;  /* the colour of its ^ once found */
    char msg[64]; /* what the player reads as it springs */
} trap_kind_t;

/* Ego (runic) properties of weapons and armour (ego.h): made with some
 * items as treasure, fixed on artifacts. A brand adds its element's dice
 * to every blow (none to what is immune, half to what resists); slaying
 * adds its dice against creatures of those sorts. */
#define EGO_NAME_LEN 24
typedef struct {
    char name[EGO_NAME_LEN]; /* "of flame": follows the item's name */
    uint16_t classes;        /* bits 1 << IC_*: what it comes on */
    uint8_t brand;           /* DT_* its blows add; DT_NONE none */
    dice_t brand_dice;
    uint16_t slays; /* CF_* sorts its blows hurt more */
    dice_t slay_dice;
    uint16_t resist; /* bits 1 << DT_*: halved while it is equipped */
    int16_t to_hit, damage, defence, speed, stealth;
    int16_t min_depth, freq; /* generation: weight freq from min_depth down */
} ego_kind_t;
/* Shops and services (shop.c): a keeper in a region of the town (its
 * region kind's name) or, with a chance per level, a room in the dungeon.
 * It stocks item kinds of its classes and buys them; its services cost
 * gold (0: not offered). Prices are by Cha (pc_price). */
enum { SERVICE_HEAL = 0, SERVICE_UNCURSE, SERVICE_IDENTIFY, SERVICE_PASSAGE, SERVICES };
#define SERVICE_NAMES                            \
    {                                            \
        "heal", "uncurse", "identify", "passage" \
    }
typedef struct {
    int16_t region;               /* region kind it occupies */
    int16_t keeper;               /* creature kind of its keeper */
    uint16_t classes;             /* bits 1 << IC_*: what it sells and buys */
    uint8_t stock;                /* items on its floor when made */
    uint8_t chance;               /* dungeon shops: percent of levels within the depths */
    int16_t stock_depth;          /* stocks kinds from at most this deep */
    int16_t min_depth, max_depth; /* 0 0: the town */
    int16_t service[SERVICES];    /* gold; 0: not offered */
} shop_kind_t;
/* What items are worth: a kind's own value, else its class's base, more
 * for deeper kinds and each plus; a shop buys at sell percent of it. */
typedef struct {
    int16_t base[IC_COUNT];
    int16_t per_depth;  /* percent more per level of the kind's min_depth */
    int16_t per_plus;   /* gold per point of enchantment */
    int16_t sell;       /* percent of the price a shop pays */
    int16_t start_gold; /* a new character's purse */
} price_table_t;

/* Special levels (special.c): on its depth, after the generator, the
 * level's rooms take region kind `region`, blobs of terrain are laid
 * (never cutting a level apart) and creatures of a kind come extra. */
typedef struct {
    char name[40];
    int16_t depth;
    int16_t region;   /* region kind for every room and cave; -1: keep */
    uint8_t water;    /* blobs of shallow water */
    uint8_t deep;     /* of deep water */
    uint8_t lava;     /* of lava */
    uint8_t chasm;    /* of chasm */
    uint8_t rubble;   /* of rubble */
    int16_t creature; /* extra creatures of this kind; -1 none */
    uint8_t extra;    /* how many */
    char msg[96];     /* what the player reads on first arrival */
} special_level_t;

struct content {
    char version[32];
    const terrain_kind_t *terrain;
    uint16_t n_terrain;
    const spell_kind_t *spells;
    uint16_t n_spells; /* at most SPELLS_MAX */
    const creature_kind_t *creatures;
    uint16_t n_creatures;
    const item_kind_t *items;
    uint16_t n_items;
    const effect_kind_t *effects;
    uint16_t n_effects;
    const ev_handler_t *handlers; /* [0] unused */
    uint16_t n_handlers;
    const effect_hook_t *hooks; /* [0] unused */
    uint16_t n_hooks;
    uint16_t builtin[OBJ_TYPES]; /* built-in handler per object type */
    uint16_t map_builtin;
    uint16_t map_handlers[KIND_HANDLERS]; /* the level kind's handlers */
    uint16_t player_kind;                 /* creature kind of the player */
    uint16_t poison_effect;               /* effect kind ids the rules use */
    uint16_t slow_effect;
    const race_kind_t *races;
    uint16_t n_races;
    const class_kind_t *classes;
    uint16_t n_classes;
    const trap_kind_t *traps;
    uint16_t n_traps;
    const ego_kind_t *egos;
    uint16_t n_egos;
    const region_kind_t *regions; /* [n_regions], parallel to rtypes */
    const mapgen_region_type_t *rtypes;
    uint16_t n_regions;
    const mapgen_vault_t *vaults;
    uint16_t n_vaults;
    int room_weights[SHAPE_COUNT]; /* mapgen's room shapes; all 0: mapgen's own */
    worldmap_params_t world;       /* the surface world (worldmap.h); no vowels: none */
    const shop_kind_t *shops;
    uint16_t n_shops;
    price_table_t prices;
    const special_level_t *specials;
    uint16_t n_specials;
    const special_level_t *branches; /* the branches' themes (depth unused; atlas.h) */
    uint16_t n_branches;
    const struct script_handlers *scripts; /* the kinds' Lua handlers (script.h); NULL: none */
};

#endif
