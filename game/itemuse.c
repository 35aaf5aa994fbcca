/* itemuse — the use table: potions, scrolls, wands, food; what monsters
 * whose mind uses items do with them. */
#include "itemuse.h"
#include "chargen.h"
#include "combat.h"
#include "content.h"
#include "creature.h"
#include "ident.h"
#include "item.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "spell.h"
#include "status.h"
#include "target.h"
#include "vision.h"
#include "world.h"

#define BOLT_RANGE  12
#define ENCHANT_MAX 5

typedef struct {
    handle_t who, it;
    uint16_t kind;
    const item_kind_t *k;
    int dx, dy;
    bool player; /* who is the player */
} use_t;

/* A use function returns true when its effect was plain to see. */
typedef bool (*use_fn_t)(game_t *g, const use_t *u);

/* An effect's duration: the kind's dice count turns. */
static int32_t turns(game_t *g, const item_kind_t *k)
{
    return dice_roll(&k->duration, &g->play) * SCHED_MOVE;
}

static void heal(game_t *g, handle_t who, int amount)
{
    obj_t *o = reg_get(&g->reg, who);
    if (!o)
        return;
    o->hp += amount;
    if (o->hp > o->hp_max)
        o->hp = o->hp_max;
}

/* The kind's dice and its magnitude in hundredths of the drinker's most
 * hit points, so a potion still counts for a seasoned body. */
static bool use_heal(game_t *g, const use_t *u)
{
    const obj_t *o = reg_get(&g->reg, u->who);
    int share = o ? o->hp_max * u->k->magnitude / 100 : 0;
    heal(g, u->who, dice_roll(&u->k->power, &g->play) + share);
    status_cure(g, u->who, EFK_(BLIND) | EFK_(CONFUSED));
    item_say(g, "<Actor> look<s:Actor> better.", u->who, HANDLE_NONE);
    return true;
}

static bool use_cure(game_t *g, const use_t *u)
{
    heal(g, u->who, dice_roll(&u->k->power, &g->play));
    status_cure(g, u->who, EFK_(BLIND) | EFK_(CONFUSED) | EFK_(PARALYSED) | EFK_(AFRAID));
    item_say(g, "<Actor> feel<s:Actor> cured.", u->who, HANDLE_NONE);
    return true;
}

/* Drained abilities come back (the player's; monsters have none). */
static bool use_restore(game_t *g, const use_t *u)
{
    bool drained = u->player && pc_restore(g);
    item_say(g,
             drained ? "<Actor> feel<s:Actor> <his:Actor> vigour restored."
                     : "<Actor> feel<s:Actor> much the same.",
             u->who, HANDLE_NONE);
    return drained;
}

static bool use_effect(game_t *g, const use_t *u)
{
    handle_t e = status_apply(g, u->who, u->k->effect, turns(g, u->k), u->k->magnitude, 0);
    return e != HANDLE_NONE;
}

bool itemuse_unidentified(const game_t *g, const obj_t *o)
{
    const item_kind_t *k = item_kind(g, o);
    bool plus_unknown = (k->slot != SLOT_NONE || k->cls == IC_WAND) && !(o->flags & IF_KNOWN);
    return !ident_known(g, o->kind) || plus_unknown;
}

void itemuse_identify(game_t *g, handle_t it)
{
    obj_t *o = reg_get(&g->reg, it);
    if (!o || o->type != OBJ_ITEM)
        return;
    ident_learn(g, o->kind);
    o->flags |= IF_KNOWN | IF_CURSE_SEEN;
    char d[96];
    item_describe(g, it, d, sizeof d);
    msg_add(g, "%c - %s.", 'a' + o->a[0], d);
}

/* One unknown item made known: the only one at once; with more, the
 * player chooses (itemui's identify prompt), anyone else the first. */
static bool use_identify(game_t *g, const use_t *u)
{
    handle_t inv[INV_SLOTS], first = HANDLE_NONE;
    int n = item_inventory(g, u->who, inv), unknown = 0;
    for (int i = 0; i < n; i++) {
        if (inv[i] == u->it || !itemuse_unidentified(g, reg_get(&g->reg, inv[i])))
            continue;
        if (!unknown++)
            first = inv[i];
    }
    if (!unknown)
        msg_add(g, "You have nothing to identify.");
    else if (unknown > 1 && u->player)
        g->items.screen = ITEMUI_IDENTIFY;
    else
        itemuse_identify(g, first);
    return true;
}

static bool use_teleport(game_t *g, const use_t *u)
{
    obj_t *o = reg_get(&g->reg, u->who);
    const level_t *lv = o ? g->levels[o->depth] : NULL;
    for (int tries = 0; lv && tries < 1000; tries++) {
        int x = (int)rng_below(&g->play, (uint32_t)lv->w),
            y = (int)rng_below(&g->play, (uint32_t)lv->h);
        if (level_terrain(lv, x, y) != MAP_FLOOR || level_creature_at(g, o->depth, x, y))
            continue;
        o->x = (int16_t)x;
        o->y = (int16_t)y;
        reg_refile(&g->reg, u->who);
        item_say(g, "<Actor> <v:Actor:blinks/blink> away.", u->who, HANDLE_NONE);
        if (u->player)
            vision_update(g);
        return true;
    }
    return false;
}

static bool use_map(game_t *g, const use_t *u)
{
    (void)u;
    level_t *lv = level_current(g);
    for (int y = 0; lv && y < lv->h; y++)
        for (int x = 0; x < lv->w; x++) {
            bool near_open = false;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    near_open |= level_passable(g, lv, x + dx, y + dy);
            if (near_open)
                lv->seen[y * lv->w + x] = 1;
        }
    if (lv)
        level_all_changed(lv);
    msg_add(g, "A map of the level forms in your mind.");
    return true;
}

static bool use_light(game_t *g, const use_t *u)
{
    level_t *lv = level_current(g);
    const obj_t *o = reg_get(&g->reg, u->who);
    for (int y = o->y - 10; lv && y <= o->y + 10; y++)
        for (int x = o->x - 10; x <= o->x + 10; x++)
            if (level_in(lv, x, y))
                lv->seen[y * lv->w + x] = 1;
    if (lv)
        level_rows_changed(lv, o->y - 10, o->y + 11);
    msg_add(g, "The area is lit up.");
    return true;
}

/* The equipped item in a slot group (weapons, or any armour piece). */
static handle_t worn(game_t *g, handle_t who, bool weapon)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, who, inv);
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        const item_kind_t *k = item_kind(g, o);
        bool armour = k->cls == IC_ARMOUR || k->cls == IC_SHIELD || k->cls == IC_HELM;
        if ((o->flags & IF_EQUIPPED) && (weapon ? k->slot == SLOT_WEAPON : armour))
            return inv[i];
    }
    return HANDLE_NONE;
}

static bool enchant(game_t *g, const use_t *u, bool weapon)
{
    handle_t h = worn(g, u->who, weapon);
    obj_t *o = reg_get(&g->reg, h);
    if (!o) {
        msg_add(g, "Your hands tingle for a moment.");
        return true;
    }
    /* "Your robe glows blue", not "Your +1 robe": named by what it is, the
     * new enchantment shown by its name in the pack from now on */
    uint8_t known = o->flags & IF_KNOWN;
    o->flags &= (uint8_t)~IF_KNOWN;
    item_tell(g, "<Poss:Victim> <obj> glow<s:Obj> blue for a moment.", HANDLE_NONE, h, u->who);
    o->flags |= known;
    if (o->hp < ENCHANT_MAX)
        o->hp++;
    if (o->hp >= 0)
        o->flags &= (uint8_t)~IF_CURSED;
    return true;
}

static bool use_enchant_weapon(game_t *g, const use_t *u)
{
    return enchant(g, u, true);
}
static bool use_enchant_armour(game_t *g, const use_t *u)
{
    return enchant(g, u, false);
}

static bool use_remove_curse(game_t *g, const use_t *u)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, u->who, inv), freed = 0;
    for (int i = 0; i < n; i++) {
        obj_t *o = reg_get(&g->reg, inv[i]);
        if ((o->flags & IF_EQUIPPED) && (o->flags & IF_CURSED)) {
            o->flags &= (uint8_t)~IF_CURSED;
            freed++;
        }
    }
    msg_add(g,
            freed ? "You feel as if someone is watching over you." : "You feel a moment of calm.");
    return freed > 0;
}

static bool use_curse(game_t *g, const use_t *u)
{
    handle_t h = worn(g, u->who, true);
    if (!h)
        h = worn(g, u->who, false);
    obj_t *o = reg_get(&g->reg, h);
    if (!o) {
        msg_add(g, "You feel a malevolent aura pass you by.");
        return false;
    }
    o->flags |= IF_CURSED | IF_CURSE_SEEN;
    o->hp--;
    item_tell(g, "<Poss:Victim> <obj> glow<s:Obj> black.", HANDLE_NONE, h, u->who);
    return true;
}

static bool use_fear(game_t *g, const use_t *u)
{
    const level_t *lv = level_current(g);
    msg_add(g, "You hear maniacal laughter.");
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == u->who || o->depth != g->depth ||
            !level_visible(lv, o->x, o->y))
            continue;
        status_apply(g, h, u->k->effect, turns(g, u->k), 1, combat_dc(g, u->who));
    }
    return true;
}

/* Monsters of this depth around the reader, by the level's own tables
 * (creature_pick_kind: a unique once a game, within its depths). */
static bool use_summon(game_t *g, const use_t *u)
{
    const level_t *lv = level_current(g);
    int made = 0, want = 2 + (int)rng_below(&g->play, 2);
    for (int i = 0; i < 8 && made < want; i++) {
        static const int8_t D[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                       {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
        const obj_t *o = reg_get(&g->reg, u->who);
        int x = o->x + D[i][0], y = o->y + D[i][1];
        if (!level_passable(g, lv, x, y) || level_creature_at(g, g->depth, x, y))
            continue;
        int kind = creature_pick_kind(g, &g->play, atlas_danger(g, g->depth));
        if (kind < 0 || !creature_make(g, (uint16_t)kind, g->depth, x, y, &g->play, MAKE_AWARE))
            break;
        made++;
    }
    msg_add(g, made ? "Monsters appear out of thin air!" : "You hear a distant howl.");
    return made > 0;
}

static bool use_eat(game_t *g, const use_t *u)
{
    if (!u->player)
        return false;
    g->items.food += u->k->nutrition;
    if (g->items.food > FOOD_MAX)
        g->items.food = FOOD_MAX;
    msg_add(g, g->items.food > FOOD_MAX - 2000 ? "You are full." : "That tastes good.");
    return true;
}

/* The first creature on the line from who through the cell (dx, dy) from
 * it (a direction, or the cell aimed at), the missiles' line; peacefuls
 * not aimed at are passed by (target.h). */
static handle_t bolt_target(game_t *g, handle_t who, int dx, int dy)
{
    const obj_t *o = reg_get(&g->reg, who);
    target_cell_t path[TARGET_RANGE_MAX];
    int n = target_path(g, o->x, o->y, o->x + dx, o->y + dy, BOLT_RANGE, path);
    return target_first(g, o->depth, who, path, n, o->x + dx, o->y + dy, NULL);
}

/* The event's damage type for an item's (IDT_*): weapons' kinds of blow
 * all hit; the elements and magic keep their own, for resistances and
 * handlers (the flesh golem) to see. */
static const uint8_t ITEM_TO_DAMAGE[IDT_COUNT] = {
    [IDT_NONE] = DT_HIT,
    [IDT_SLASH] = DT_HIT,
    [IDT_PIERCE] = DT_HIT,
    [IDT_BLUNT] = DT_HIT,
    [IDT_FIRE] = DT_FIRE,
    [IDT_COLD] = DT_COLD,
    [IDT_LIGHTNING] = DT_LIGHTNING,
    [IDT_MAGIC] = DT_MAGIC,
};

/* The event damage type (DT_*) of an item damage type (IDT_*). */
static uint8_t itemuse_damage_type(uint8_t idt)
{
    return idt < IDT_COUNT ? ITEM_TO_DAMAGE[idt] : DT_HIT;
}

/* A wand's bolt: a direct spell of the wand's damage type. */
static bool use_bolt(game_t *g, const use_t *u)
{
    handle_t t = bolt_target(g, u->who, u->dx, u->dy);
    if (!t) {
        msg_add(g, "The bolt flies off into the distance.");
        return true;
    }
    item_say(g, "The bolt strikes <actor>.", t, HANDLE_NONE);
    ev_info_t d = {.type = EV_DAMAGE,
                   .actor = u->who,
                   .victim = t,
                   .map = -1,
                   .dtype = itemuse_damage_type(u->k->dtype),
                   .flags = EVF_SPELL};
    d.amount[0] = dice_roll(&u->k->power, &g->play);
    event_throw(g, &d);
    return true;
}

static bool use_bolt_effect(game_t *g, const use_t *u)
{
    handle_t t = bolt_target(g, u->who, u->dx, u->dy);
    if (!t) {
        msg_add(g, "Nothing happens.");
        return false;
    }
    creature_disturb(g, t);
    return status_apply(g, t, u->k->effect, turns(g, u->k), u->k->magnitude ? u->k->magnitude : 1,
                        combat_dc(g, u->who)) != HANDLE_NONE;
}

/* What a spell effect does (the kind's `does`), from the item's own
 * numbers: along the line towards (dx, dy) for one that aims, else on
 * the user. */
static bool use_cast(game_t *g, const use_t *u)
{
    const obj_t *o = reg_get(&g->reg, u->who);
    if (!o || !u->k->does)
        return false;
    spell_kind_t s = {.effect = (uint8_t)(u->k->does - 1),
                      .dtype = itemuse_damage_type(u->k->dtype),
                      .dice = u->k->effect >= 0 ? u->k->duration : u->k->power,
                      .status = u->k->effect,
                      .radius = u->k->radius};
    return spell_cast_kind(g, u->who, &s, o->x + u->dx, o->y + u->dy);
}

/* A book: its spell learnt (itemuse_use has checked that it may be). */
static bool use_learn(game_t *g, const use_t *u)
{
    return u->player && chargen_learn(g, u->k->spell, true);
}

static const use_fn_t USES[USE_COUNT] = {
    [USE_HEAL] = use_heal,
    [USE_CURE] = use_cure,
    [USE_RESTORE] = use_restore,
    [USE_EFFECT] = use_effect,
    [USE_IDENTIFY] = use_identify,
    [USE_TELEPORT] = use_teleport,
    [USE_MAP] = use_map,
    [USE_ENCHANT_WEAPON] = use_enchant_weapon,
    [USE_ENCHANT_ARMOUR] = use_enchant_armour,
    [USE_REMOVE_CURSE] = use_remove_curse,
    [USE_FEAR] = use_fear,
    [USE_EAT] = use_eat,
    [USE_BOLT] = use_bolt,
    [USE_BOLT_EFFECT] = use_bolt_effect,
    [USE_LIGHT] = use_light,
    [USE_CURSE] = use_curse,
    [USE_SUMMON] = use_summon,
    [USE_CAST] = use_cast,
    [USE_LEARN] = use_learn,
};

static const char *const USE_VERB[IC_COUNT] = {[IC_POTION] = "<Actor> drink<s:Actor> <obj>.",
                                               [IC_SCROLL] = "<Actor> read<s:Actor> <obj>.",
                                               [IC_WAND] = "<Actor> zap<s:Actor> <obj>.",
                                               [IC_FOOD] = "<Actor> eat<s:Actor> <obj>."};

int itemuse_use(game_t *g, handle_t who, handle_t it, int dx, int dy)
{
    obj_t *o = reg_get(&g->reg, it);
    if (!o || o->type != OBJ_ITEM || o->target != who)
        return 0;
    use_t u = {who, it, o->kind, item_kind(g, o), dx, dy, who == g->player};
    if (!u.k->use || !USES[u.k->use] || !USE_VERB[u.k->cls])
        return 0;
    if (u.k->use == USE_LEARN && (!u.player || !chargen_learn(g, u.k->spell, false)))
        return 0; /* a book the reader cannot learn from stays unread */
    if (u.k->cls == IC_WAND && o->remaining <= 0) {
        if (u.player)
            msg_add(g, "Nothing happens: the wand is empty.");
        o->flags |= IF_KNOWN;
        return SCHED_MOVE;
    }
    /* one of a stack, told as one */
    obj_t saved = *o;
    o->magnitude = 1;
    item_say(g, USE_VERB[u.k->cls], who, it);
    o = reg_get(&g->reg, it);
    o->magnitude = saved.magnitude;
    if (u.k->cls == IC_WAND)
        o->remaining--;
    else
        item_use_up(g, it);
    bool seen = USES[u.k->use](g, &u);
    const level_t *lv = level_current(g);
    const obj_t *w = reg_get(&g->reg, who);
    bool visible = u.player || (w && lv && w->depth == g->depth && level_visible(lv, w->x, w->y));
    if (seen && visible)
        ident_seen_use(g, who, u.kind);
    return SCHED_MOVE;
}

bool itemuse_power(game_t *g, handle_t who, int use, const dice_t *power)
{
    if (use <= USE_NONE || use >= USE_COUNT || !USES[use] || use == USE_BOLT ||
        use == USE_BOLT_EFFECT || use == USE_EAT || use == USE_CAST || use == USE_LEARN)
        return false;
    item_kind_t k = {.use = (uint8_t)use, .power = *power, .effect = -1};
    use_t u = {who, HANDLE_NONE, 0, &k, 0, 0, who == g->player};
    return USES[use](g, &u);
}

/* What a monster wants: healing and curing potions, wands that hurt or
 * hinder. */
static bool monster_wants(const item_kind_t *k)
{
    if (k->cls == IC_POTION)
        return k->use == USE_HEAL || k->use == USE_CURE;
    return k->cls == IC_WAND &&
           (k->use == USE_BOLT || k->use == USE_BOLT_EFFECT || k->use == USE_CAST);
}

/* Only a mind that uses items reads, quaffs, zaps or picks up (no beast,
 * no mindless thing). */
static bool uses_items(const game_t *g, const obj_t *m)
{
    return m->type == OBJ_CREATURE && creature_mind(g, m)->uses_items;
}

/* A charged wand aimed at the player: only along one of the eight lines,
 * with the player the first creature on it, within range. */
static int zap_at_player(game_t *g, handle_t m, const obj_t *o, const handle_t *inv, int n)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    int dx = p->x - o->x, dy = p->y - o->y, adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
    int d = adx > ady ? adx : ady;
    if (p->depth != o->depth || d < 2 || d > BOLT_RANGE || (dx && dy && adx != ady))
        return 0;
    int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
    if (bolt_target(g, m, sx, sy) != g->player)
        return 0;
    for (int i = 0; i < n; i++) {
        const obj_t *w = reg_get(&g->reg, inv[i]);
        const item_kind_t *k = item_kind(g, w);
        if (k->cls == IC_WAND && monster_wants(k) && w->remaining > 0 && rng_percent(&g->play, 50))
            return itemuse_use(g, m, inv[i], sx, sy);
    }
    return 0;
}

int itemuse_monster(game_t *g, handle_t m, bool sees)
{
    obj_t *o = reg_get(&g->reg, m);
    if (!o || !uses_items(g, o))
        return 0;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, m, inv);
    if (o->hp * 3 <= o->hp_max)
        for (int i = 0; i < n; i++) {
            const item_kind_t *k = item_kind(g, reg_get(&g->reg, inv[i]));
            if (k->cls == IC_POTION && monster_wants(k))
                return itemuse_use(g, m, inv[i], 0, 0);
        }
    return n && sees ? zap_at_player(g, m, o, inv, n) : 0;
}

int itemuse_monster_pick_up(game_t *g, handle_t m)
{
    const obj_t *o = reg_get(&g->reg, m);
    if (!o || !uses_items(g, o))
        return 0;
    handle_t it = itemuse_wanted_near(g, m, 0, NULL, NULL);
    if (!it || item_pick_up(g, m, it) < 0)
        return 0;
    return SCHED_MOVE;
}

static int cheb_from(const obj_t *o, int x, int y)
{
    int dx = x - o->x, dy = y - o->y;
    dx = dx < 0 ? -dx : dx, dy = dy < 0 ? -dy : dy;
    return dx > dy ? dx : dy;
}

/* The nearest item on the floor o wants within radius, the first in slot
 * order of those as near: through every object. */
static handle_t wanted_by_walk(const game_t *g, const obj_t *o, int radius)
{
    handle_t best = HANDLE_NONE;
    int bd = radius + 1;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *it = reg_get(&g->reg, h);
        if (it->type != OBJ_ITEM || it->target || it->depth != o->depth)
            continue;
        int d = cheb_from(o, it->x, it->y);
        if (d < bd && monster_wants(item_kind(g, it)))
            bd = d, best = h;
    }
    return best;
}

/* The same through the map index: the cells within radius, a tie going to
 * the lower slot (the one a walk of every object meets first). */
static handle_t wanted_by_index(const game_t *g, const obj_t *o, int radius)
{
    handle_t best = HANDLE_NONE;
    int bd = radius + 1;
    for (int y = o->y - radius; y <= o->y + radius; y++)
        for (int x = o->x - radius; x <= o->x + radius; x++) {
            int d = cheb_from(o, x, y);
            if (d > bd || !reg_index_covers(&g->reg, o->depth, x, y))
                continue;
            for (handle_t h = reg_index_at(&g->reg, x, y); h; h = reg_index_next_at(&g->reg, h)) {
                const obj_t *it = reg_get(&g->reg, h);
                if (it->type != OBJ_ITEM || it->target || !monster_wants(item_kind(g, it)))
                    continue;
                if (d < bd || (h & OBJ_INDEX_MASK) < (best & OBJ_INDEX_MASK))
                    bd = d, best = h;
            }
        }
    return best;
}

handle_t itemuse_wanted_near(const game_t *g, handle_t m, int radius, int *x, int *y)
{
    const obj_t *o = reg_get(&g->reg, m);
    if (!o || !uses_items(g, o))
        return HANDLE_NONE;
    bool ix = g->reg.ix.depth >= 0 && g->reg.ix.depth == o->depth;
    handle_t best = ix ? wanted_by_index(g, o, radius) : wanted_by_walk(g, o, radius);
    const obj_t *it = reg_get(&g->reg, best);
    if (it && x)
        *x = it->x;
    if (it && y)
        *y = it->y;
    return best;
}

void itemuse_monster_kit(game_t *g, handle_t m, rng_t *r)
{
    if (!rng_percent(r, 12))
        return;
    int pick = -1, seen = 0;
    for (uint16_t k = 0; k < g->c->n_items; k++) {
        const item_kind_t *ik = &g->c->items[k];
        if (ik->cls == IC_POTION && (ik->use == USE_HEAL || ik->use == USE_CURE) &&
            rng_below(r, (uint32_t)++seen) == 0)
            pick = k;
    }
    if (pick >= 0)
        item_new(g, (uint16_t)pick, 1, m, 0, 0, 0, r);
}

void itemuse_drop_all(game_t *g, handle_t who)
{
    const obj_t *c = reg_get(&g->reg, who);
    if (!c)
        return;
    int16_t depth = c->depth, x = c->x, y = c->y;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_ITEM || o->target != who)
            continue;
        o->target = HANDLE_NONE;
        o->flags &= (uint8_t)~IF_EQUIPPED;
        o->a[0] = 0;
        o->depth = depth;
        o->x = x;
        o->y = y;
        reg_refile(&g->reg, h);
    }
}
