/* bot — the policy (see bot.h). Paths come from one breadth-first search
 * over the cells the player has seen. */
#include "bot.h"
#include <stdlib.h>
#include <string.h>
#include "chargen.h"
#include "content.h"
#include "creature.h"
#include "ident.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "effect.h"
#include "mapgen.h"
#include "missile.h"
#include "pc.h"
#include "power.h"
#include "spell.h"
#include "prompt.h"
#include "shop.h"
#include "special.h"
#include "status.h"
#include "target.h"
#include "trap.h"
#include "vision.h"

#define EXPLORE_KEYS 500 /* keys on a level before heading for the stairs anyway */
#define BRANCH_KEYS  10  /* keys on a branch's first level before climbing out */

static const int8_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
static const char DIRKEY[8] = {'k', 'u', 'l', 'n', 'j', 'b', 'h', 'y'};

void bot_init(bot_t *b, uint64_t seed, int cls)
{
    memset(b, 0, sizeof *b);
    b->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    b->depth = -1;
    b->cls = cls;
    b->goal = -1;
}

void bot_free(bot_t *b)
{
    free(b->dist);
    free(b->first);
    free(b->open);
    free(b->ignore);
    free(b->visited);
    memset(b, 0, sizeof *b);
}

static uint32_t bot_rand(bot_t *b, uint32_t n)
{
    b->rng ^= b->rng << 13, b->rng ^= b->rng >> 7, b->rng ^= b->rng << 17;
    return n ? (uint32_t)(b->rng % n) : 0;
}

static void push(bot_t *b, uint32_t k)
{
    if (b->nq < 4)
        b->queue[b->nq++] = k;
}

static bool visible(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) && lv->vis[y * lv->w + x];
}

static handle_t adjacent_monster(game_t *g, const obj_t *p, int *dir)
{
    const level_t *lv = level_current(g);
    for (int i = 0; i < 8; i++) {
        int x = p->x + DIRS[i][0], y = p->y + DIRS[i][1];
        handle_t h = visible(lv, x, y) ? level_creature_at(g, p->depth, x, y) : HANDLE_NONE;
        if (h && h != g->player && !shop_peaceful(g, reg_get(&g->reg, h))) {
            *dir = i;
            return h;
        }
    }
    return HANDLE_NONE;
}

/* An inventory letter whose item matches, or 0. */
static int find_item(game_t *g, bool (*want)(game_t *, const obj_t *))
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        if (want(g, o))
            return 'a' + o->a[0];
    }
    return 0;
}

/* What a potion or a spell effect does for wounds: heals. */
static bool heals(const item_kind_t *k)
{
    int does = k->use == USE_CAST ? k->does - 1 : -1;
    return k->use == USE_HEAL || k->use == USE_CURE || does == SPELL_MEND || does == SPELL_VIGOUR ||
           does == SPELL_RENEW;
}
static bool is_healing(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->cls == IC_POTION && ident_known(g, o->kind) && heals(k);
}
/* A book of a spell it may learn now. */
static bool is_book(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->use == USE_LEARN && k->spell >= 0 && (chargen_learnable_now(g) >> k->spell & 1);
}
static bool is_unknown_potion(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_POTION && !ident_known(g, o->kind);
}
static bool is_unknown_scroll(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_SCROLL && !ident_known(g, o->kind);
}
static bool is_food(game_t *g, const obj_t *o)
{
    return item_kind(g, o)->cls == IC_FOOD;
}
/* What a piece of armour is worth: its defence and absorption, and its
 * enchantment when known. */
static int armour_worth(const item_kind_t *k, const obj_t *o)
{
    return k->defence + k->absorb + ((o->flags & IF_KNOWN) ? o->hp : 0);
}

/* Gear for an empty slot, armour that guards better than what it wears,
 * or a weapon that hits harder than the one in hand. */
static bool is_upgrade(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->slot == SLOT_NONE || k->slot == SLOT_RING || k->slot == SLOT_NECK ||
        (o->flags & IF_EQUIPPED))
        return false;
    if ((o->flags & IF_CURSE_SEEN) && (o->flags & IF_CURSED))
        return false;
    gear_t cur;
    item_gear(g, g->player, true, &cur);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *w = reg_get(&g->reg, inv[i]);
        if (!(w->flags & IF_EQUIPPED) || item_kind(g, w)->slot != k->slot)
            continue;
        if ((w->flags & IF_CURSED) && (w->flags & IF_CURSE_SEEN))
            return false; /* what it wears there will not come off */
        if (k->slot == SLOT_BODY || k->slot == SLOT_SHIELD || k->slot == SLOT_HEAD)
            return armour_worth(k, o) > armour_worth(item_kind(g, w), w);
        if (k->slot != SLOT_WEAPON)
            return false;
        return dice_max(&k->power) + k->power.n > dice_max(&cur.dmg) + cur.dmg.n;
    }
    return true;
}

/* Known, uncursed jewellery that helps, for a free ring finger or neck. */
static bool is_jewel(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if ((k->slot != SLOT_RING && k->slot != SLOT_NECK) || (o->flags & IF_EQUIPPED) ||
        !ident_known(g, o->kind) || (k->flags & IKF_CURSED) || (o->flags & IF_CURSED))
        return false;
    if (k->to_hit < 0 || k->damage < 0 || k->defence < 0 || k->speed < 0)
        return false;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), worn = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *w = reg_get(&g->reg, inv[i]);
        worn += (w->flags & IF_EQUIPPED) && item_kind(g, w)->slot == k->slot;
    }
    return worn < (k->slot == SLOT_RING ? 2 : 1);
}

/* Worth carrying: not a weapon or armour that is no better than what it
 * wears (they only weigh it down). */
static bool worth_taking(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    bool gear = k->slot == SLOT_WEAPON || k->slot == SLOT_BODY || k->slot == SLOT_SHIELD ||
                k->slot == SLOT_HEAD || k->slot == SLOT_LAUNCHER;
    return !gear || is_upgrade(g, o);
}

/* What the identify scroll should name: jewellery, then wands, then
 * potions, then anything unknown; its letter, or Escape. */
static uint32_t identify_pick(game_t *g)
{
    static const uint8_t ORDER[] = {IC_RING, IC_AMULET, IC_WAND, IC_POTION, IC_SCROLL, IC_COUNT};
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (size_t r = 0; r < sizeof ORDER; r++)
        for (int i = 0; i < n; i++) {
            const obj_t *o = reg_get(&g->reg, inv[i]);
            if (itemuse_unidentified(g, o) &&
                (ORDER[r] == IC_COUNT || item_kind(g, o)->cls == ORDER[r]))
                return 'a' + (uint32_t)o->a[0];
        }
    return KEY_ESC;
}

/* Breadth-first distances from the player over seen, passable cells. */
static void bfs(bot_t *b, game_t *g, const level_t *lv, const obj_t *p)
{
    for (int i = 0; i < b->cells; i++)
        b->dist[i] = -1;
    int head = 0, tail = 0, start = p->y * lv->w + p->x;
    b->dist[start] = 0;
    b->first[start] = -1;
    b->open[tail++] = start;
    while (head < tail) {
        int c = b->open[head++], cx = c % lv->w, cy = c / lv->w;
        for (int i = 0; i < 8; i++) {
            int x = cx + DIRS[i][0], y = cy + DIRS[i][1];
            if (!level_in(lv, x, y))
                continue;
            int n = y * lv->w + x;
            bool door = level_terrain(lv, x, y) == MAP_DOOR_CLOSED;
            if (b->dist[n] >= 0 || (!lv->seen[n] && lv->depth > 0) ||
                !(door || level_passable(g, lv, x, y)) || trap_at(lv, x, y, true) >= 0)
                continue;
            if (visible(lv, x, y) && level_creature_at(g, p->depth, x, y))
                continue;
            b->dist[n] = (int16_t)(b->dist[c] + 1);
            b->first[n] = c == start ? (int8_t)i : b->first[c];
            b->open[tail++] = n;
        }
    }
}

static bool frontier(const bot_t *b, const level_t *lv, int c)
{
    if (b->visited[c])
        return false;
    int x = c % lv->w, y = c / lv->w;
    for (int i = 0; i < 8; i++) {
        int nx = x + DIRS[i][0], ny = y + DIRS[i][1];
        if (level_in(lv, nx, ny) && !lv->seen[ny * lv->w + nx])
            return true;
    }
    return false;
}

static bool has_item(game_t *g, bot_t *b, const level_t *lv, int c)
{
    handle_t it = !b->ignore[c] && lv->seen[c] ? item_floor_at(g, lv->depth, c % lv->w, c / lv->w)
                                               : HANDLE_NONE;
    const obj_t *o = reg_get(&g->reg, it);
    /* a shop's goods are not for the taking; junk is not worth the weight */
    return o && !(o->flags & IF_UNPAID) && worth_taking(g, o);
}

/* The temple's keeper, peaceful, on this level; NONE when none. */
static handle_t healer(game_t *g, const level_t *lv)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        const shop_kind_t *sh =
            shop_peaceful(g, o) && o->depth == lv->depth ? shop_at(g, lv, o->x, o->y) : NULL;
        if (sh && sh->service[SERVICE_HEAL])
            return h;
    }
    return HANDLE_NONE;
}

static bool beside_healer(game_t *g, const level_t *lv, int c)
{
    const obj_t *o = reg_get(&g->reg, healer(g, lv));
    int dx = o ? abs(o->x - c % lv->w) : 9, dy = o ? abs(o->y - c / lv->w) : 9;
    return dx <= 1 && dy <= 1;
}

/* The direction of the first step towards the nearest wanted cell, or -1
 * (want: 0 an item, 1 the unexplored, 2 the down stairs, 3 the up
 * stairs, 4 the temple's keeper, 5 the goal). */
static int step_towards(bot_t *b, game_t *g, const level_t *lv, int want)
{
    int best = -1, bestd = 1 << 30;
    for (int c = 0; c < b->cells; c++) {
        if (b->dist[c] <= 0 || b->dist[c] >= bestd)
            continue;
        bool ok = want == 0   ? has_item(g, b, lv, c)
                  : want == 1 ? frontier(b, lv, c)
                  : want == 2 ? (c == lv->down_y * lv->w + lv->down_x)
                  : want == 3 ? (c == lv->up_y * lv->w + lv->up_x)
                  : want == 4 ? beside_healer(g, lv, c)
                              : c == b->goal;
        if (ok)
            best = c, bestd = b->dist[c];
    }
    return best >= 0 ? b->first[best] : -1;
}

static void new_level(bot_t *b, const level_t *lv, int depth)
{
    int cells = lv->w * lv->h;
    if (cells != b->cells) {
        free(b->dist), free(b->first), free(b->open), free(b->ignore), free(b->visited);
        b->visited = malloc((size_t)cells);
        b->dist = malloc((size_t)cells * sizeof *b->dist);
        b->first = malloc((size_t)cells);
        b->open = malloc((size_t)cells * sizeof *b->open);
        b->ignore = malloc((size_t)cells);
        b->cells = cells;
    }
    memset(b->ignore, 0, (size_t)cells);
    memset(b->visited, 0, (size_t)cells);
    b->depth = depth;
    b->level_keys = 0;
    b->arrived_x = b->arrived_y = -1;
    b->rested = 0;
}

/* The nearest monster in view, and how far (Chebyshev); NONE if none. */
static handle_t nearest_monster(game_t *g, const obj_t *p, int *dist)
{
    const level_t *lv = level_current(g);
    handle_t best = HANDLE_NONE;
    *dist = 1 << 20;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || o->depth != p->depth ||
            !visible(lv, o->x, o->y) || shop_peaceful(g, o))
            continue;
        int dx = abs(o->x - p->x), dy = abs(o->y - p->y), d = dx > dy ? dx : dy;
        if (d < *dist)
            *dist = d, best = h;
    }
    return best;
}

/* What a spell's damage comes to against t (what a player learns of it
 * from "unharmed" and "resists"): none when immune, half when it resists,
 * half again when it is vulnerable; the holy word only hurts the unholy. */
static int damage_against(game_t *g, const spell_kind_t *s, handle_t t)
{
    const obj_t *o = reg_get(&g->reg, t);
    int dmg = dice_max(&s->dice);
    if (!o || o->type != OBJ_CREATURE)
        return dmg;
    const creature_kind_t *k = creature_kind(g, o);
    unsigned bit = 1u << s->dtype;
    if (s->effect == SPELL_HOLY && !(k->flags & (CF_UNDEAD | CF_DEMON)))
        return 0;
    return (k->immune & bit)   ? 0
           : (k->resist & bit) ? dmg / 2
           : (k->vuln & bit)   ? dmg * 3 / 2
                               : dmg;
}

/* A known spell with one of these effects (bits 1 << SPELL_*) the mana
 * pays for, keeping reserve mana: the one that does the most to t (any
 * target: NONE); -1 when none does anything. */
static int spell_to_cast_at(game_t *g, unsigned effects, int reserve, handle_t t)
{
    int best = -1, most = 0;
    for (int i = 0; i < g->c->n_spells; i++) {
        const spell_kind_t *s = &g->c->spells[i];
        if (!(g->pc.spells & (1u << i)) || !(effects & (1u << s->effect)) ||
            g->pc.mana - s->mana < reserve)
            continue;
        int dmg = damage_against(g, s, t) + 1;
        if (dmg > most)
            most = dmg, best = i;
    }
    return best;
}

static int spell_to_cast(game_t *g, unsigned effects, int reserve)
{
    return spell_to_cast_at(g, effects, reserve, HANDLE_NONE);
}

/* The spells that hurt what they are aimed at. */
#define HURTS                                                                     \
    (1u << SPELL_BOLT | 1u << SPELL_AREA | 1u << SPELL_CHAIN | 1u << SPELL_CONE | \
     1u << SPELL_BEAM | 1u << SPELL_HOLY)

static int cast_key(const game_t *g, int spell)
{
    return spell_letter(g, spell);
}

/* The first creature on the line from p to o is o, within range. */
static bool clear_shot(game_t *g, const obj_t *p, handle_t m, int range)
{
    const obj_t *o = reg_get(&g->reg, m);
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, p->x, p->y, o->x, o->y, range, path);
    return target_first(g, p->depth, g->player, path, n, o->x, o->y, NULL) == m;
}

/* A buff it knows and lacks, paid for above reserve; -1 when none. */
static int buff_to_cast(game_t *g, int reserve)
{
    for (int i = 0; i < g->c->n_spells; i++) {
        const spell_kind_t *s = &g->c->spells[i];
        if ((g->pc.spells & (1u << i)) && s->effect == SPELL_BUFF &&
            g->pc.mana - s->mana >= reserve && !effect_find(g, g->player, (uint16_t)s->status))
            return i;
    }
    return -1;
}

/* The class power when it helps: the fighter's stance on, the cleric's
 * turning at undead near by (m, the nearest), the rogue hiding from a
 * watcher at a distance (to strike it unawares), the wizard's spark at
 * aim (a clear line) when no bolt is paid for. */
static bool bot_power(bot_t *b, game_t *g, const obj_t *p, handle_t m, handle_t aim, int d,
                      bool bolt)
{
    const char *cls = pc_class(g)->name;
    const obj_t *mo = reg_get(&g->reg, m);
    (void)p;
    if (!strcmp(cls, "fighter") && !g->pc.power_attack)
        return push(b, 0x01), true;
    if (!mo)
        return false;
    if (!strcmp(cls, "cleric") && (creature_kind(g, mo)->flags & CF_UNDEAD) && d <= 6 &&
        g->pc.mana >= TURN_MANA + 4)
        return push(b, 0x01), true;
    if (!strcmp(cls, "rogue") && (mo->flags & OF_AWARE) && d >= 3 && b->level_keys % 6 == 0)
        return push(b, 0x01), true;
    if (!strcmp(cls, "wizard") && !bolt && d >= 2 && aim)
        return push(b, 0x01), push(b, '.'), true;
    return false;
}

/* Fires or throws what is ready at the aim, d steps off (a clear line). */
static bool bot_shoot(bot_t *b, game_t *g, int d)
{
    if (d < 2 || d > 8 || !missile_ready(g))
        return false;
    return push(b, 'f'), push(b, '.'), true;
}

static bool is_wand_to_zap(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->cls != IC_WAND || ((o->flags & IF_KNOWN) && o->remaining <= 0))
        return false;
    if (!ident_known(g, o->kind))
        return true;
    const effect_kind_t *e = k->effect >= 0 ? &g->c->effects[k->effect] : NULL;
    if (k->use == USE_BOLT_EFFECT) /* never what helps a foe */
        return e && !e->speed && !e->damage && !e->defence && !e->heal;
    return k->use == USE_BOLT || k->use == USE_CAST;
}

/* Potions that help a fight: speed, might, reflexes, mastery. */
static bool is_fight_potion(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    if (k->cls != IC_POTION || !ident_known(g, o->kind) || k->use != USE_EFFECT || k->effect < 0)
        return false;
    const effect_kind_t *e = &g->c->effects[k->effect];
    return (e->speed > 0 || e->damage > 0 || e->defence > 0) && !e->flags;
}

static bool is_teleport(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->cls == IC_SCROLL && ident_known(g, o->kind) && k->use == USE_TELEPORT;
}

/* Magic against what it sees: a heal when hurt, a bolt (a caster's only
 * weapon, a cleric's when it can spare the mana), a wand along a line,
 * a fighting potion when a fight goes badly. */
static bool bot_magic(bot_t *b, game_t *g, const obj_t *p)
{
    int d, l, heal = spell_to_cast(g, 1u << SPELL_HEAL, 0);
    bool low = p->hp * 2 < p->hp_max;
    if (low && heal >= 0)
        return push(b, 'Z'), push(b, (uint32_t)cast_key(g, heal)), true;
    handle_t m = nearest_monster(g, p, &d);
    if (!m || d > 8)
        return bot_power(b, g, p, HANDLE_NONE, HANDLE_NONE, d, false);
    handle_t aim = target_default(g); /* where the cursor starts */
    const obj_t *ao = reg_get(&g->reg, aim);
    int ad =
        ao ? (abs(ao->x - p->x) > abs(ao->y - p->y) ? abs(ao->x - p->x) : abs(ao->y - p->y)) : d;
    bool caster = pc_class(g)->bab <= 50, clear = ao && clear_shot(g, p, aim, 12);
    int reserve = heal >= 0 ? g->c->spells[heal].mana : 0;
    int bolt = spell_to_cast_at(g, HURTS, caster ? 0 : reserve, aim);
    int buff = buff_to_cast(g, reserve + (bolt >= 0 ? g->c->spells[bolt].mana : 0));
    if (buff >= 0 && d <= 3 && !low)
        return push(b, 'Z'), push(b, (uint32_t)cast_key(g, buff)), true;
    if (bolt >= 0 && clear && (caster || d >= 2 || low)) {
        push(b, 'Z'), push(b, (uint32_t)cast_key(g, bolt));
        if (g->c->spells[bolt].effect != SPELL_HOLY) /* the holy word is spoken, not aimed */
            push(b, '.');
        return true;
    }
    if (bot_power(b, g, p, m, clear && ad <= POWER_SPARK_RANGE ? aim : HANDLE_NONE, d, bolt >= 0))
        return true;
    if (clear && (d >= 2 || low) && (l = find_item(g, is_wand_to_zap)))
        return push(b, 'z'), push(b, (uint32_t)l), push(b, '.'), true;
    if (clear && bot_shoot(b, g, ad))
        return true;
    if (d <= 1 && p->hp * 3 < p->hp_max * 2 && !g->items.live &&
        (l = find_item(g, is_fight_potion)))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    return false;
}

/* Hit points under hp percent of the most, or (a caster) mana under mana
 * percent. */
static bool worn_down(const game_t *g, const obj_t *p, int hp, int mana)
{
    return p->hp * 100 < p->hp_max * hp || g->pc.mana * 100 < g->pc.mana_max * mana;
}

/* A known, charged wand of teleport other: what is beside it goes away. */
static bool is_banish_wand(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return k->cls == IC_WAND && ident_known(g, o->kind) && k->does == SPELL_BANISH + 1 &&
           !((o->flags & IF_KNOWN) && o->remaining <= 0);
}

/* A known potion that heals a good deal (a sip of curing does not). */
static bool is_big_heal(game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    return is_healing(g, o) && (dice_max(&k->power) >= 16 || k->does == SPELL_RENEW + 1);
}

/* Nothing left to mend with: no good healing potion, no heal spell paid for. */
static bool spent(game_t *g)
{
    return !find_item(g, is_big_heal) &&
           spell_to_cast(g, 1u << SPELL_HEAL | 1u << SPELL_RENEW, 0) < 0;
}

/* A caster whose mana pays for no spell that hurts. */
static bool out_of_mana(game_t *g)
{
    return pc_class(g)->bab <= 50 && g->pc.mana_max > 0 && spell_to_cast(g, HURTS, 0) < 0;
}

/* Standing on stairs it may leave by to get away (not those it came by,
 * before it has rested). */
static bool on_way_out(const bot_t *b, const game_t *g, const obj_t *p, const level_t *lv)
{
    bool back = !b->rested && p->x == b->arrived_x && p->y == b->arrived_y;
    bool up = p->x == lv->up_x && p->y == lv->up_y,
         down = p->x == lv->down_x && p->y == lv->down_y && g->depth < WORLD_MAX_DEPTH &&
                !g->pc.heartstone;
    return !back && (up || down);
}

/* A careful player's way out: badly hurt with a foe in view and nothing
 * left to mend with, it makes for the nearest stairs and takes them (the
 * foe stays behind), to rest on the other level. True when it chose. */
static bool bot_retreat(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int d;
    if (!nearest_monster(g, p, &d) || d > 8)
        return false;
    bool leave = on_way_out(b, g, p, lv) && worn_down(g, p, 34, 0);
    if (!leave && !(worn_down(g, p, 40, 0) && spent(g)) &&
        !(out_of_mana(g) && worn_down(g, p, 80, 0)))
        return false;
    /* the stairs it came by lead back to what it fled, until it has rested here */
    bool back_up = !b->rested && b->arrived_x == lv->up_x && b->arrived_y == lv->up_y,
         back_down = !b->rested && b->arrived_x == lv->down_x && b->arrived_y == lv->down_y;
    bool can_up = !back_up,
         can_down = !back_down && g->depth < WORLD_MAX_DEPTH && !g->pc.heartstone;
    bool up = p->x == lv->up_x && p->y == lv->up_y, down = p->x == lv->down_x && p->y == lv->down_y;
    if ((up && can_up) || (down && can_down))
        return push(b, up ? '<' : '>'), b->retreats++, true;
    bfs(b, g, lv, p);
    int dir = can_up ? step_towards(b, g, lv, 3) : -1;
    if (dir < 0 && can_down)
        dir = step_towards(b, g, lv, 2);
    return dir >= 0 && (push(b, (uint32_t)DIRKEY[dir]), true);
}

/* Fight, flee, heal, eat: what to do about the body first. */
static bool bot_survive(bot_t *b, game_t *g, const obj_t *p)
{
    int dir = -1, l;
    handle_t m = adjacent_monster(g, p, &dir);
    bool low = p->hp * 3 < p->hp_max;
    const obj_t *mo = reg_get(&g->reg, m);
    bool finish = mo && mo->hp * 4 < mo->hp_max && p->hp * 6 > p->hp_max; /* it is nearly dead */
    if (low && m && on_way_out(b, g, p, level_current(g)))
        return bot_retreat(b, g, p, level_current(g)) || (push(b, (uint32_t)DIRKEY[dir]), true);
    if (low && !finish &&
        ((l = find_item(g, is_big_heal)) || (!m && (l = find_item(g, is_healing)))))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    if (low && m && (l = find_item(g, is_banish_wand)))
        return push(b, 'z'), push(b, (uint32_t)l), push(b, '.'), true;
    if (bot_retreat(b, g, p, level_current(g)))
        return true;
    if (low && m && (l = find_item(g, is_teleport)))
        return push(b, 'r'), push(b, (uint32_t)l), true;
    if (low && m && (l = find_item(g, is_unknown_potion)))
        return push(b, 'q'), push(b, (uint32_t)l), true;
    if (m && low && level_terrain(level_current(g), p->x, p->y) == MAP_STAIRS_DOWN)
        return push(b, '>'), true;
    if (bot_magic(b, g, p))
        return true;
    if (m)
        return push(b, (uint32_t)DIRKEY[dir]), true;
    if (g->items.food < FOOD_HUNGRY && (l = find_item(g, is_food)))
        return push(b, 'E'), push(b, (uint32_t)l), true;
    return false;
}

/* With nothing in the way: gear up, try unknown scrolls, rest, pick up. */
static bool bot_tidy(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int l, c = p->y * lv->w + p->x;
    if ((l = find_item(g, is_upgrade)) || (l = find_item(g, is_jewel)))
        return push(b, 'w'), push(b, (uint32_t)l), true;
    if (has_item(g, b, lv, c)) {
        b->ignore[c] = 1; /* one try per cell: a refusal must not loop */
        return push(b, 'g'), true;
    }
    bool hostile = false;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && !hostile; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        hostile = o->type == OBJ_CREATURE && h != g->player && o->depth == p->depth &&
                  visible(lv, o->x, o->y) && !shop_peaceful(g, o);
    }
    if (hostile)
        return false;
    if ((l = find_item(g, is_book)))
        return push(b, 'r'), push(b, (uint32_t)l), true;
    if ((l = find_item(g, is_unknown_scroll)) && b->level_keys % 40 == 1)
        return push(b, 'r'), push(b, (uint32_t)l), true;
    if ((l = find_item(g, is_unknown_potion)) && p->hp == p->hp_max && b->level_keys % 40 == 21)
        return push(b, 'q'), push(b, (uint32_t)l), true; /* known by use, while it is safe */
    if (!worn_down(g, p, 70, 50))
        b->rested = 1; /* fit again: the way back is open */
    if (worn_down(g, p, 70, 50) && g->items.food >= FOOD_WEAK && b->idle == 0)
        return push(b, 'R'), true;
    return false;
}

/* A rogue stalks: the first step towards a monster in view that has not
 * noticed it (look tells the player as much), to strike it unawares. */
static bool bot_stalk(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int d;
    const obj_t *m = reg_get(&g->reg, nearest_monster(g, p, &d));
    if (!pc_class(g)->sneak || !m || (m->flags & OF_AWARE) || d > 8 || d < 2)
        return false;
    bfs(b, g, lv, p);
    int best = -1, bestd = 1 << 30;
    for (int i = 0; i < 8; i++) {
        int x = m->x + DIRS[i][0], y = m->y + DIRS[i][1];
        if (!level_in(lv, x, y))
            continue;
        int c = y * lv->w + x;
        if (b->dist[c] > 0 && b->dist[c] < bestd)
            bestd = b->dist[c], best = c;
    }
    if (best < 0)
        return false;
    push(b, (uint32_t)DIRKEY[b->first[best]]);
    return true;
}

/* A random direction that does not step into a hazard. */
static int safe_dir(bot_t *b, game_t *g, const obj_t *p)
{
    const level_t *lv = level_current(g);
    int dir = (int)bot_rand(b, 8);
    for (int i = 0; i < 8; i++, dir = (dir + 1) % 8)
        if (!special_hazard(g, level_terrain(lv, p->x + DIRS[dir][0], p->y + DIRS[dir][1])))
            break;
    return dir;
}

/* Hurt on level 1 with gold for the temple: up to the town; in the
 * town, to the priest and pay. True when it chose a key. */
static bool bot_temple(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    const shop_kind_t *temple = NULL;
    for (uint16_t i = 0; i < g->c->n_shops && !temple; i++)
        if (g->c->shops[i].service[SERVICE_HEAL] && g->c->shops[i].max_depth == 0)
            temple = &g->c->shops[i];
    bool can_pay = temple && g->items.gold >= pc_price(g, temple->service[SERVICE_HEAL]);
    if (!b->heal && can_pay && g->depth == 1 && p->hp * 3 < p->hp_max * 2 && !g->pc.heartstone)
        b->heal = 1;
    if (!b->heal || !can_pay || p->hp >= p->hp_max || g->depth > 1) {
        b->heal = 0;
        return false;
    }
    if (g->depth == 1 && p->x == lv->up_x && p->y == lv->up_y)
        return push(b, '<'), true;
    bfs(b, g, lv, p);
    if (g->depth == 0 && beside_healer(g, lv, p->y * lv->w + p->x)) {
        b->temple++;
        b->heal = 0;
        return push(b, 'p'), push(b, '1'), true;
    }
    int dir = step_towards(b, g, lv, g->depth ? 3 : 4);
    if (dir < 0) {
        b->heal = 0;
        return false;
    }
    return push(b, (uint32_t)DIRKEY[dir]), true;
}

enum { GOAL_ENTRANCE, GOAL_HOME, GOAL_SAFE };

/* On the overland: the nearest entrance, the home town or the nearest
 * safe town by the walk, as the goal; false when none is reached. */
static bool overland_goal(bot_t *b, game_t *g, const level_t *lv, int want)
{
    const atlas_table_t *t = g->atlas.t;
    int best = -1;
    for (int i = 0; want != GOAL_ENTRANCE && i < t->n_towns; i++) {
        int c = t->towns[i].y * lv->w + t->towns[i].x;
        bool fits = want == GOAL_HOME ? i == t->home : t->towns[i].safe;
        if (fits && b->dist[c] >= 0 && (best < 0 || b->dist[c] < b->dist[best]))
            best = c;
    }
    for (int i = 0; want == GOAL_ENTRANCE && i < t->n_terrs; i++) {
        int c = t->terrs[i].ey * lv->w + t->terrs[i].ex;
        if (t->terrs[i].levels && b->dist[c] >= 0 && (best < 0 || b->dist[c] < b->dist[best]))
            best = c;
    }
    b->goal = best;
    return best >= 0;
}

/* The surface's trip (bot.h): true when it chose a key. */
static bool bot_surface(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    int kind = atlas_kind(g->depth), here = p->y * lv->w + p->x;
    bool stone = g->pc.heartstone, leave = kind == ATLAS_TOWN && (g->depth || !b->trip || stone);
    if (!atlas_world(g) || (kind == ATLAS_WARREN && !stone))
        return false;
    if (kind == ATLAS_BRANCH && b->trip == 1)
        b->trip = 2; /* in: one look round, then out and home */
    if (kind == ATLAS_BRANCH && (b->level_keys > BRANCH_KEYS || p->hp * 2 < p->hp_max)) {
        if (p->x == lv->up_x && p->y == lv->up_y)
            return push(b, '<'), true;
        bfs(b, g, lv, p);
        int dir = step_towards(b, g, lv, 3);
        return dir >= 0 && (push(b, (uint32_t)DIRKEY[dir]), true);
    }
    if (leave && p->x == lv->up_x && p->y == lv->up_y) /* the gate */
        return b->trip = b->trip ? b->trip : 1, push(b, '<'), true;
    if (kind != ATLAS_WILDS)
        return false;
    bfs(b, g, lv, p);
    if (b->trip == 1 && !stone && !overland_goal(b, g, lv, GOAL_ENTRANCE))
        b->trip = 2; /* no dungeon out here: home */
    if (!overland_goal(b, g, lv, stone ? GOAL_SAFE : b->trip == 1 ? GOAL_ENTRANCE : GOAL_HOME))
        return false;
    if (here == b->goal)
        return push(b, '>'), true;
    int dir = step_towards(b, g, lv, 5);
    return dir >= 0 && (push(b, (uint32_t)DIRKEY[dir]), true);
}

static void bot_move(bot_t *b, game_t *g, const obj_t *p, const level_t *lv)
{
    if (g->pc.heartstone) { /* out with it: up every stair */
        if (p->x == lv->up_x && p->y == lv->up_y) {
            push(b, '<');
            return;
        }
        bfs(b, g, lv, p);
        int dir = step_towards(b, g, lv, 3);
        if (dir < 0)
            dir = step_towards(b, g, lv, 1);
        push(b, (uint32_t)DIRKEY[dir >= 0 ? dir : safe_dir(b, g, p)]);
        return;
    }
    if (p->x == lv->down_x && p->y == lv->down_y && atlas_kind(g->depth) != ATLAS_BRANCH &&
        b->level_keys > EXPLORE_KEYS / 4) {
        /* a careful player goes down rested */
        push(b, worn_down(g, p, 90, 70) && g->items.food >= FOOD_WEAK && b->idle == 0 ? 'R' : '>');
        return;
    }
    bfs(b, g, lv, p);
    int dir = -1;
    bool go_down = b->level_keys > EXPLORE_KEYS && lv->down_x >= 0 &&
                   lv->seen[lv->down_y * lv->w + lv->down_x];
    if (go_down)
        dir = step_towards(b, g, lv, 2);
    if (dir < 0)
        dir = step_towards(b, g, lv, 0);
    if (dir < 0)
        dir = step_towards(b, g, lv, 1);
    if (dir < 0)
        dir = step_towards(b, g, lv, 2);
    if (dir < 0 && b->idle == 0 &&
        b->stuck <= 20) { /* nothing known to go for: the game's own explore */
        push(b, 'o');
        return;
    }
    if (dir < 0 || b->stuck > 20)
        dir = safe_dir(b, g, p);
    push(b, (uint32_t)DIRKEY[dir]);
}

/* How much the bot wants a spell: what hurts most first, then what heals,
 * then haste, the shield and the rest. */
static int spell_worth(const spell_kind_t *s)
{
    static const int BY_EFFECT[SPELL_EFFECTS] = {
        [SPELL_BOLT] = 100,  [SPELL_AREA] = 110, [SPELL_BEAM] = 105, [SPELL_CONE] = 115,
        [SPELL_CHAIN] = 115, [SPELL_HOLY] = 90,  [SPELL_HEAL] = 95,  [SPELL_RENEW] = 96,
        [SPELL_BUFF] = 60,   [SPELL_HEX] = 40,   [SPELL_POWER] = 20, [SPELL_DETECT] = 10};
    int w = s->effect < SPELL_EFFECTS ? BY_EFFECT[s->effect] : 0;
    return w * 10 + dice_max(&s->dice);
}

/* The letter (from 0) of the spell it picks at a level-up. */
static int spell_pick(const game_t *g)
{
    uint32_t now = chargen_learnable_now(g);
    int best = 0, most = -1;
    for (int i = 0, n = 0; i < g->c->n_spells; i++) {
        if (!(now & (1u << i)))
            continue;
        int w = spell_worth(&g->c->spells[i]);
        if (w > most)
            most = w, best = n;
        n++;
    }
    return best;
}

/* Questions the game asks: its class (any race) or a random character,
 * tougher or keener at a new level (by turns), a spell when it may learn
 * one, never quit; other prompts are dismissed. */
static key_event_t bot_answer(bot_t *b, game_t *g)
{
    b->nq = 0;
    switch (g->prompt) {
    case PROMPT_RACE: return (key_event_t){b->cls >= 0 ? 'a' + bot_rand(b, g->c->n_races) : ' ', 0};
    case PROMPT_CLASS: return (key_event_t){b->cls >= 0 ? 'a' + (uint32_t)b->cls : ' ', 0};
    case PROMPT_LEVELUP:
        if (g->pc.choices)
            return (key_event_t){g->pc.xl % 2 ? 'a' : 'b', 0};
        return (key_event_t){(uint32_t)('a' + spell_pick(g)), 0};
    case PROMPT_MORE:
    case PROMPT_WELCOME:
    case PROMPT_HISTORY: return (key_event_t){' ', 0};
    case PROMPT_QUIT: return (key_event_t){'n', 0};
    default: return (key_event_t){KEY_ESC, 0};
    }
}

key_event_t bot_next_key(bot_t *b, game_t *g)
{
    b->keys++;
    b->level_keys++;
    if (g->pc.mana < b->mana_before)
        b->casts++; /* what the last keys cast */
    b->mana_before = g->pc.mana;
    if (g->prompt &&
        !((g->prompt == PROMPT_CAST || g->prompt == PROMPT_TARGET || g->prompt == PROMPT_SHOP) &&
          b->nq)) /* the spell menu, cursor or temple it opened */
        return bot_answer(b, g);
    if (b->nq) {
        key_event_t k = {b->queue[0], 0};
        memmove(b->queue, b->queue + 1, (size_t)--b->nq * sizeof b->queue[0]);
        return k;
    }
    if (g->items.screen == ITEMUI_IDENTIFY)
        return (key_event_t){identify_pick(g), 0};
    if (g->items.screen != ITEMUI_NONE)
        return (key_event_t){KEY_ESC, 0};
    const obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    if (!p || !lv)
        return (key_event_t){'.', 0};
    if (g->depth != b->depth || lv->w * lv->h != b->cells) {
        new_level(b, lv, g->depth);
        b->arrived_x = p->x, b->arrived_y = p->y;
    }
    b->stuck = p->x == b->last_x && p->y == b->last_y ? b->stuck + 1 : 0;
    b->last_x = p->x, b->last_y = p->y;
    uint8_t *here = &b->visited[p->y * lv->w + p->x];
    if (*here < 255)
        (*here)++;
    /* decisions that take no time (a refused action) must not loop */
    b->idle = g->sched.now == b->last_now ? b->idle + 1 : 0;
    b->last_now = g->sched.now;
    if (b->idle > 3 || (*here > 40 && bot_rand(b, 2)))
        push(b, (uint32_t)DIRKEY[safe_dir(b, g, p)]);
    else if (*here > 20 && *here % 4 == 0)
        push(b, 'o'); /* going round in circles: the game's explore */
    else if (!bot_survive(b, g, p) && !bot_temple(b, g, p, lv) && !bot_stalk(b, g, p, lv) &&
             !bot_tidy(b, g, p, lv) && !bot_surface(b, g, p, lv))
        bot_move(b, g, p, lv);
    return bot_next_key(b, g);
}

/* The player is under the frame's cursor; the map starts on row 1. */
int bot_view_misses(game_t *g, screen_t *s, uint64_t *verify)
{
    game_view_t v = {.verify_misses = verify};
    game_render(g, s, &v);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p || g->state != GAME_RUNNING || g->items.screen != ITEMUI_NONE ||
        (g->prompt != PROMPT_NONE && g->prompt != PROMPT_MORE) || !s->cur_visible)
        return 0;
    int ox = p->x - s->cur_x, oy = p->y - (s->cur_y - 1), misses = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player || !vision_sees(g, h))
            continue;
        int x = o->x - ox, y = o->y - oy + 1;
        misses += x < 0 || x >= s->w || y < 1 || y > s->h - 3 ||
                  screen_at(s, x, y)->ch != creature_kind(g, o)->glyph;
    }
    return misses;
}
