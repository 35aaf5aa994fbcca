/* chargen — choosing who you are: the creation screen (race and class,
 * or a random pick: any key but a choice picks for you, so a start is one
 * key), the new character, and the level-up gift every third level. */
#include "chargen.h"
#include <stdio.h>
#include "cmd.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "world.h"

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
    int8_t roll[AB_COUNT];
    int best = 0;
    for (int i = 0; i < AB_COUNT; i++) {
        roll[i] = roll_ability(&g->play);
        best = roll[i] > roll[best] ? i : best;
    }
    int prime = pc_class(g)->prime < AB_COUNT ? pc_class(g)->prime : AB_STR;
    int8_t swap = roll[prime]; /* the best roll goes to what the class lives by */
    roll[prime] = roll[best], roll[best] = swap;
    for (int i = 0; i < AB_COUNT; i++) {
        int v = roll[i] + pc_race(g)->ab[i];
        pc->ab[i] = (int8_t)(v < 3 ? 3 : v > 20 ? 20 : v);
    }
    pc->xl = 1;
    pc->created = 1;
    const class_kind_t *k = pc_class(g);
    pc->spells = k->spells;
    pc->mana = pc->mana_max =
        (int16_t)(k->mana ? k->mana + pc_mod(pc->ab[AB_INT] > pc->ab[AB_WIS] ? pc->ab[AB_INT]
                                                                             : pc->ab[AB_WIS])
                          : 0);
    if (pc->mana_max < 0)
        pc->mana = pc->mana_max = 0;
    obj_t *p = reg_get(&g->reg, g->player);
    if (p)
        p->hp = p->hp_max = pc_level_hp(g, true) + 8; /* a start that survives a jackal */
    g->prompt = PROMPT_NONE;
    item_start_kit(g);
    g->items.gold += g->c->prices.start_gold; /* for the town's shops */
    msg_milestone(g, "start", "%s the %s %s entered the Warren", g->name, pc_race_name(g),
                  pc_class_name(g));
    msg_add(g, "Welcome, %s the %s %s! Find the stairs down (>).", g->name, pc_race_name(g),
            pc_class_name(g));
}

uint32_t chargen_learnable_now(const game_t *g)
{
    uint32_t left = pc_class(g)->learnable & ~g->pc.spells, now = 0;
    for (int i = 0; i < g->c->n_spells; i++)
        if ((left & (1u << i)) && g->c->spells[i].level <= g->pc.xl)
            now |= 1u << i;
    return now;
}

bool chargen_owed(const game_t *g)
{
    return g->pc.choices || (g->pc.spell_picks && chargen_learnable_now(g));
}

/* The spell the n-th letter of the pick names (the learnable ones in id
 * order), or -1. */
static int pick_letter(const game_t *g, int n)
{
    uint32_t now = chargen_learnable_now(g);
    for (int i = 0; i < g->c->n_spells; i++)
        if ((now & (1u << i)) && n-- == 0)
            return i;
    return -1;
}

static void learn(game_t *g, int spell)
{
    g->pc.spells |= 1u << spell;
    msg_add(g, "You learn to cast %s.", g->c->spells[spell].name);
}

bool chargen_learn(game_t *g, int spell, bool learn_it)
{
    if (spell < 0 || spell >= g->c->n_spells)
        return false;
    const spell_kind_t *s = &g->c->spells[spell];
    if (!(pc_class(g)->learnable & (1u << spell)) && !(pc_class(g)->spells & (1u << spell))) {
        msg_add(g, "The runes of %s mean nothing to a %s.", s->name, pc_class_name(g));
        return false;
    }
    if (g->pc.spells & (1u << spell)) {
        msg_add(g, "You know %s already.", s->name);
        return false;
    }
    if (s->level > g->pc.xl) {
        msg_add(g, "The spell %s is beyond you until experience level %d.", s->name, s->level);
        return false;
    }
    if (learn_it)
        learn(g, spell);
    return true;
}

/* The gift: a) tougher, b) keener, c) warier; other keys wait. */
static void gift_key(game_t *g, key_event_t k)
{
    pc_t *pc = &g->pc;
    obj_t *p = reg_get(&g->reg, g->player);
    if (k.code == 'a' && p) {
        pc->pick_hp++;
        p->hp_max += pc->xl, p->hp += pc->xl;
        msg_add(g, "You feel tougher.");
    } else if (k.code == 'b') {
        pc->pick_hit++;
        msg_add(g, "Your aim grows keener.");
    } else if (k.code == 'c') {
        pc->pick_def++;
        msg_add(g, "You move more warily.");
    } else {
        return; /* the choice waits */
    }
    pc->choices--;
}

int chargen_welcome_key(game_t *g, key_event_t k)
{
    if (k.code != ' ' && k.code != KEY_ENTER && k.code != '\n' && k.code != KEY_ESC)
        return 0;
    bool all;
    if (k.code == KEY_ESC) /* the rest of the turn's messages skipped */
        g->msg_seen = g->nmsg;
    else
        g->msg_seen += msg_fit(g, g->msg_seen, &all);
    if (g->msg_seen >= g->nmsg)
        g->prompt = chargen_owed(g) ? PROMPT_LEVELUP : PROMPT_NONE;
    return 0;
}

/* The gifts owed first, then the spells to pick: a letter learns that
 * spell; other keys wait. */
int chargen_levelup_key(game_t *g, key_event_t k)
{
    pc_t *pc = &g->pc;
    if (pc->choices) {
        gift_key(g, k);
    } else if (pc->spell_picks && k.code >= 'a' && k.code <= 'z') {
        int spell = pick_letter(g, (int)(k.code - 'a'));
        if (spell >= 0) {
            learn(g, spell);
            pc->spell_picks--;
        }
    }
    g->prompt = chargen_owed(g) ? PROMPT_LEVELUP : PROMPT_NONE;
    return 0;
}

/* A race's letter goes on to the class; Q asks to quit and S to save and
 * leave (the command table's); any other key makes a random character. */
int chargen_race_key(game_t *g, key_event_t k)
{
    int r = (int)k.code - 'a';
    if (k.code == 'Q' || k.code == 'S')
        return cmd_key(g, k);
    if (r >= 0 && r < g->c->n_races) {
        g->pc.race = (uint8_t)r;
        g->prompt = PROMPT_CLASS;
    } else {
        chargen_create(g, -1, -1);
    }
    return 0;
}

int chargen_class_key(game_t *g, key_event_t k)
{
    int c = (int)k.code - 'a';
    chargen_create(g, g->pc.race, c >= 0 && c < g->c->n_classes ? c : -1);
    return 0;
}

static int row_text(screen_t *s, int y, style_t st, const char *text)
{
    return screen_text(s, 2, y, st, text);
}

/* " (3 spells to pick)" when more than one is owed, else nothing. */
static const char *left_text(int n, const char *what, char *out, size_t size)
{
    if (n > 1)
        snprintf(out, size, " (%d %s)", n, what);
    else
        out[0] = '\0';
    return out;
}

void chargen_levelup_draw(game_t *g, screen_t *s)
{
    char left[48];
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int y = 1;
    if (!g->pc.choices) {
        screen_textf(s, 2, y, hi, "Experience level %d: pick a spell to learn%s", g->pc.xl,
                     left_text(g->pc.spell_picks, "spells to pick", left, sizeof left));
        y += 2;
        for (int n = 0, sp; (sp = pick_letter(g, n)) >= 0 && y < s->h - 2; n++) {
            const spell_kind_t *k = &g->c->spells[sp];
            screen_textf(s, 2, y++, STYLE_DEFAULT, "%c) %-16s %2d mana  level %d", 'a' + n, k->name,
                         k->mana, k->level);
        }
        row_text(s, y + 1, (style_t){8, SCREEN_DEFAULT_COLOR, 0},
                 "Books teach spells too, found or bought.");
        return;
    }
    screen_textf(s, 2, y, hi, "Experience level %d: choose a gift%s", g->pc.xl,
                 left_text(g->pc.choices, "gifts to choose", left, sizeof left));
    y += 2;
    screen_textf(s, 2, y++, STYLE_DEFAULT, "a) tougher: +%d hit points now, +1 each level",
                 g->pc.xl);
    row_text(s, y++, STYLE_DEFAULT, "b) keener: +1 to hit");
    row_text(s, y++, STYLE_DEFAULT, "c) warier: +1 defence");
}

void chargen_draw(game_t *g, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int y = 1;
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
             race ? "Any other key: a random race and class.  S saves and leaves, Q quits."
                  : "Any other key: a random class.");
}
