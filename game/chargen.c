/* chargen — who the player is: the creation screen (race and class, or a
 * random pick: any key but a choice picks for you, so a start is one key),
 * d20 abilities, hit points by hit die, attack bonus, defence, saves, the
 * starting kit, and experience levels 1-20 with a choice every third. */
#include <stdio.h>
#include <string.h>
#include "grammar.h"
#include "rules.h"
#include "world.h"

int chargen_mod(int score)
{
    return score >= 10 ? (score - 10) / 2 : -((11 - score) / 2);
}

const char *pc_race_name(const game_t *g)
{
    return g->pc.created && g->pc.race < g->c->n_races ? g->c->races[g->pc.race].name : "";
}

const char *pc_class_name(const game_t *g)
{
    return g->pc.created && g->pc.cls < g->c->n_classes ? g->c->classes[g->pc.cls].name : "";
}

static const race_kind_t *pc_race(const game_t *g)
{
    static const race_kind_t NONE = {.name = ""};
    return g->pc.race < g->c->n_races ? &g->c->races[g->pc.race] : &NONE;
}

static const class_kind_t *pc_class(const game_t *g)
{
    static const class_kind_t NONE = {.hit_die = 8,
                                      .bab = 75,
                                      .weapon = {1, 4, 0},
                                      .weapon_name = "fists",
                                      .armour_name = "clothes"};
    return g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : &NONE;
}

int pc_attack_bonus(const game_t *g)
{
    int bab = pc_class(g)->bab * g->pc.xl / 100;
    return (bab > 0 ? bab : 1) + chargen_mod(g->pc.ab[AB_STR]) + pc_race(g)->to_hit +
           g->pc.pick_hit;
}

/* The class's armour figure stands for its armour only when the class has
 * no kit; a class with a kit wears real armour, which counts as gear
 * (status_stats), so the class figure would count it twice. */
static int class_armour(const game_t *g)
{
    const class_kind_t *k = pc_class(g);
    return k->kit[0][0] ? 0 : k->armour;
}

int pc_defence(const game_t *g)
{
    return 10 + chargen_mod(g->pc.ab[AB_DEX]) + class_armour(g) + pc_race(g)->defence +
           g->pc.pick_def;
}

int pc_armour(const game_t *g)
{
    return class_armour(g) / 2;
}

bool pc_drain(game_t *g, int ab, int dc)
{
    static const char *const WORDS[AB_COUNT] = ABILITY_WORDS;
    if (ab < 0 || ab >= AB_COUNT || g->pc.ab[ab] <= 3)
        return false;
    if ((int)rng_range(&g->play, 1, 20) + pc_save(g, SAVE_FORT) >= dc)
        return false;
    g->pc.ab[ab]--;
    g->pc.drain[ab]++;
    world_msg(g, "You feel your %s drain away!", WORDS[ab]);
    return true;
}

bool pc_restore(game_t *g)
{
    bool any = false;
    for (int i = 0; i < AB_COUNT; i++) {
        any |= g->pc.drain[i] > 0;
        g->pc.ab[i] = (int8_t)(g->pc.ab[i] + g->pc.drain[i]);
        g->pc.drain[i] = 0;
    }
    return any;
}

int pc_save(const game_t *g, int save)
{
    int ab = save == SAVE_FORT ? AB_CON : save == SAVE_REF ? AB_DEX : AB_WIS;
    int base = (pc_class(g)->good_saves & save) ? 2 + g->pc.xl / 2 : g->pc.xl / 3;
    return base + chargen_mod(g->pc.ab[ab]);
}

int32_t pc_xp_for(int xl)
{
    return xl <= 1 ? 0 : 10 * (xl - 1) * xl * (xl + 1) / 3;
}

/* Hit points for one level: the class's hit die plus Con, at least 1. */
static int level_hp(game_t *g, bool first)
{
    const class_kind_t *k = pc_class(g);
    dice_t d = {1, k->hit_die, 0};
    int hp = (first ? k->hit_die : dice_roll(&d, &g->play)) + chargen_mod(g->pc.ab[AB_CON]) +
             g->pc.pick_hp;
    return hp > 0 ? hp : 1;
}

/* 4d6, the lowest dropped. */
static int8_t roll_ability(rng_t *r)
{
    int lo = 7, sum = 0;
    for (int i = 0; i < 4; i++) {
        int d = (int)rng_range(r, 1, 6);
        sum += d;
        if (d < lo)
            lo = d;
    }
    return (int8_t)(sum - lo);
}

void chargen_begin(game_t *g)
{
    g->pc.created = 0;
    g->prompt = PROMPT_RACE;
}

void chargen_create(game_t *g, int race, int cls)
{
    pc_t *pc = &g->pc;
    if (race < 0 || race >= g->c->n_races)
        race = g->c->n_races ? (int)rng_below(&g->play, g->c->n_races) : 0;
    if (cls < 0 || cls >= g->c->n_classes)
        cls = g->c->n_classes ? (int)rng_below(&g->play, g->c->n_classes) : 0;
    pc->race = (uint8_t)race;
    pc->cls = (uint8_t)cls;
    for (int i = 0; i < AB_COUNT; i++) {
        int v = roll_ability(&g->play) + pc_race(g)->ab[i];
        pc->ab[i] = (int8_t)(v < 3 ? 3 : v > 20 ? 20 : v);
    }
    pc->xl = 1;
    pc->created = 1;
    const class_kind_t *k = pc_class(g);
    pc->spells = k->spells;
    pc->mana = pc->mana_max =
        (int16_t)(k->mana ? k->mana + chargen_mod(pc->ab[AB_INT] > pc->ab[AB_WIS] ? pc->ab[AB_INT]
                                                                                  : pc->ab[AB_WIS])
                          : 0);
    if (pc->mana_max < 0)
        pc->mana = pc->mana_max = 0;
    obj_t *p = reg_get(&g->reg, g->player);
    if (p)
        p->hp = p->hp_max = level_hp(g, true) + 8; /* a start that survives a jackal */
    g->prompt = PROMPT_NONE;
    item_start_kit(g);
    world_milestone(g, "start", "%s the %s %s entered the Warren", g->name, pc_race_name(g),
                    pc_class_name(g));
    world_msg(g, "Welcome, %s the %s %s! Find the stairs down (>).", g->name, pc_race_name(g),
              pc_class_name(g));
}

static void level_up(game_t *g)
{
    pc_t *pc = &g->pc;
    pc->xl++;
    obj_t *p = reg_get(&g->reg, g->player);
    int hp = level_hp(g, false);
    if (p)
        p->hp_max += hp, p->hp += hp;
    const class_kind_t *k = pc_class(g);
    if (k->mana)
        pc->mana_max = (int16_t)(pc->mana_max + k->mana), pc->mana = pc->mana_max;
    world_msg(g, "Welcome to experience level %d!", pc->xl);
    world_milestone(g, "xl", "reached experience level %d", pc->xl);
    if (pc->xl % 3 == 0)
        pc->choices++;
}

void pc_gain_xp(game_t *g, int32_t xp)
{
    pc_t *pc = &g->pc;
    if (xp <= 0 || !pc->created)
        return;
    pc->xp = pc->xp > INT32_MAX - xp ? INT32_MAX : pc->xp + xp;
    while (pc->xl < 20 && pc->xp >= pc_xp_for(pc->xl + 1))
        level_up(g);
    if (pc->choices && g->prompt == PROMPT_NONE)
        g->prompt = PROMPT_LEVELUP;
}

/* The first spell the class could learn and does not know, or -1. */
static int next_spell(const game_t *g)
{
    uint16_t left = pc_class(g)->learnable & (uint16_t)~g->pc.spells;
    for (int i = 0; i < SPELL_COUNT; i++)
        if (left & (1u << i))
            return i;
    return -1;
}

static bool levelup_key(game_t *g, key_event_t k)
{
    pc_t *pc = &g->pc;
    if (!pc->choices) { /* nothing owed (a prompt left over): back to play */
        g->prompt = PROMPT_NONE;
        return true;
    }
    obj_t *p = reg_get(&g->reg, g->player);
    int spell = next_spell(g);
    if (k.code == 'a' && p) {
        pc->pick_hp++;
        p->hp_max += pc->xl, p->hp += pc->xl;
        world_msg(g, "You feel tougher.");
    } else if (k.code == 'b') {
        pc->pick_hit++;
        world_msg(g, "Your aim grows keener.");
    } else if (k.code == 'c') {
        pc->pick_def++;
        world_msg(g, "You move more warily.");
    } else if (k.code == 'd' && spell >= 0) {
        pc->spells |= (uint16_t)(1u << spell);
        world_msg(g, "You learn to cast %s.", RULES_SPELLS[spell].name);
    } else {
        return true; /* the choice waits */
    }
    if (pc->choices)
        pc->choices--;
    g->prompt = pc->choices ? PROMPT_LEVELUP : PROMPT_NONE;
    return true;
}

bool chargen_key(game_t *g, key_event_t k)
{
    if (g->prompt == PROMPT_LEVELUP)
        return levelup_key(g, k);
    if (g->prompt == PROMPT_RACE) {
        int r = (int)k.code - 'a';
        if (k.code == 'Q')
            return false; /* quitting is always possible */
        if (r >= 0 && r < g->c->n_races) {
            g->pc.race = (uint8_t)r;
            g->prompt = PROMPT_CLASS;
        } else {
            chargen_create(g, -1, -1); /* any other key: a random character at once */
        }
        return true;
    }
    if (g->prompt == PROMPT_CLASS) {
        int c = (int)k.code - 'a';
        chargen_create(g, g->pc.race, c >= 0 && c < g->c->n_classes ? c : -1);
        return true;
    }
    return false;
}

static int row_text(screen_t *s, int y, style_t st, const char *text)
{
    return screen_text(s, 2, y, st, text);
}

void chargen_render(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int y = 1;
    if (g->prompt == PROMPT_LEVELUP) {
        screen_textf(s, 2, y, hi, "Experience level %d: choose a gift (%d to choose)", g->pc.xl,
                     g->pc.choices);
        y += 2;
        screen_textf(s, 2, y++, STYLE_DEFAULT, "a) tougher: +%d hit points now, +1 each level",
                     g->pc.xl);
        row_text(s, y++, STYLE_DEFAULT, "b) keener: +1 to hit");
        row_text(s, y++, STYLE_DEFAULT, "c) warier: +1 defence");
        int sp = next_spell(g);
        if (sp >= 0)
            screen_textf(s, 2, y++, STYLE_DEFAULT, "d) learn %s", RULES_SPELLS[sp].name);
        return;
    }
    bool race = g->prompt == PROMPT_RACE;
    screen_textf(s, 2, y, hi, "%s, who are you? Choose a %s.", g->name, race ? "race" : "class");
    y += 2;
    int n = race ? g->c->n_races : g->c->n_classes;
    for (int i = 0; i < n && y < s->h - 2; i++) {
        const char *name = race ? g->c->races[i].name : g->c->classes[i].name;
        const char *desc = race ? g->c->races[i].desc : g->c->classes[i].desc;
        screen_textf(s, 2, y++, STYLE_DEFAULT, "%c) %-9s %s", 'a' + i, name, desc);
    }
    y++;
    row_text(s, y, (style_t){8, SCREEN_DEFAULT_COLOR, 0},
             race ? "Any other key: a random race and class.  Q quits."
                  : "Any other key: a random class.");
}
