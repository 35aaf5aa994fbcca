/* item — item objects, stacks, inventory letters, weight, equipment. */
#include "item.h"
#include <stdio.h>
#include <string.h>
#include "creature.h"
#include "ego.h"
#include "grammar.h"
#include "ident.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "status.h"
#include "travel.h"
#include "world.h"

const item_kind_t *item_kind(const game_t *g, const obj_t *it)
{
    return it && it->kind < g->c->n_items ? &g->c->items[it->kind] : NULL;
}

static obj_t *item_get(const game_t *g, handle_t h)
{
    obj_t *o = reg_get(&g->reg, h);
    return o && o->type == OBJ_ITEM ? o : NULL;
}

static handle_t worn_in(const game_t *g, handle_t who, int slot, int skip);
static bool is_gear(const item_kind_t *k)
{
    return k->slot != SLOT_NONE;
}
static bool has_plus(const item_kind_t *k)
{
    return k->cls == IC_WEAPON || k->cls == IC_ARMOUR || k->cls == IC_SHIELD || k->cls == IC_HELM;
}

/* ---- per-game state ------------------------------------------------------------ */

int item_state_init(game_t *g)
{
    size_t n = g->c->n_items ? g->c->n_items : 1;
    g->items.known = gcalloc(&g->al, n, 1);
    g->items.flavour = gcalloc(&g->al, n, 1);
    if (!g->items.known || !g->items.flavour)
        return -1;
    g->items.food = FOOD_START;
    ident_deal(g);
    return 0;
}

void item_state_free(game_t *g)
{
    gfree(&g->al, g->items.known);
    gfree(&g->al, g->items.flavour);
}

void item_state_save(const game_t *g, ser_t *s)
{
    ser_u16(s, g->c->n_items);
    for (uint16_t k = 0; k < g->c->n_items; k++)
        ser_u8(s, g->items.known[k]);
    ser_i32(s, g->items.food);
    ser_i32(s, g->items.gold);
    ser_u8(s, g->items.screen);
    ser_u8(s, g->items.verb);
    ser_u32(s, g->items.chosen);
}

void item_state_load(game_t *g, rd_t *in)
{
    if (rd_u16(in) != g->c->n_items) {
        rd_fail(in, "bad item kind count");
        return;
    }
    ident_deal(g); /* the flavours of the loaded seed */
    for (uint16_t k = 0; k < g->c->n_items && !in->bad; k++) {
        uint8_t v = rd_u8(in);
        if (v > 1)
            rd_fail(in, "bad known flag");
        g->items.known[k] = v;
    }
    g->items.food = rd_i32(in);
    g->items.gold = rd_i32(in);
    g->items.screen = rd_u8(in);
    g->items.verb = rd_u8(in);
    g->items.chosen = rd_u32(in);
    if (g->items.food < FOOD_DEAD || g->items.food > FOOD_MAX || g->items.gold < 0 ||
        g->items.screen >= ITEMUI_COUNT)
        rd_fail(in, "bad item state");
}

/* A loaded item must lie on an existing level or be held by a live creature
 * with a unique letter; stacks only of stacking kinds. */
void item_check(game_t *g, rd_t *in)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && !in->bad; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_ITEM)
            continue;
        const item_kind_t *k = item_kind(g, o);
        if (!k || o->magnitude < 1 || o->magnitude > 100000 ||
            (o->magnitude > 1 && !(k->flags & IKF_STACK)) || o->hp < -100 || o->hp > 100 ||
            o->remaining < 0 || o->remaining > 1000 || o->a[1] < 0 || o->a[1] > g->c->n_egos) {
            rd_fail(in, "bad item");
            return;
        }
        if (o->target) {
            const obj_t *c = reg_get(&g->reg, o->target);
            if (!c || c->type != OBJ_CREATURE || o->a[0] < 0 || o->a[0] >= INV_SLOTS ||
                item_by_letter(g, o->target, 'a' + o->a[0]) != h)
                rd_fail(in, "bad item holder");
        } else {
            const level_t *lv = o->depth >= 0 && o->depth < LEVEL_IDS ? g->levels[o->depth] : NULL;
            if (!lv || !level_in(lv, o->x, o->y) || (o->flags & IF_EQUIPPED))
                rd_fail(in, "bad item place");
        }
    }
    if (g->items.chosen && !item_get(g, g->items.chosen))
        rd_fail(in, "bad chosen item");
    status_recount(g);
}

/* ---- making items ------------------------------------------------------------- */

/* Enchantment, curse and charges of a new item. */
static void item_roll(const item_kind_t *k, obj_t *o, rng_t *r)
{
    if (k->flags & IKF_CURSED)
        o->flags |= IF_CURSED;
    if (k->cls == IC_WAND)
        o->remaining = dice_roll(&k->charges, r);
    if (!has_plus(k))
        return;
    int roll = (int)rng_below(r, 100);
    if (roll < 20) {
        o->hp = (int32_t)rng_range(r, 1, 3);
    } else if (roll < 30) {
        o->hp = -(int32_t)rng_range(r, 1, 3);
        o->flags |= IF_CURSED;
    }
}

/* Whether a and b (of kind k) are one stack. What is known of an
 * enchantment or a curse tells two apart only where the kind has them: a
 * potion named by the sage stacks with one from the starting pack. */
static bool stacks_with(const obj_t *a, const obj_t *b, const item_kind_t *k)
{
    uint8_t keep = IF_CURSED | IF_UNPAID;
    if (has_plus(k) || k->cls == IC_WAND)
        keep |= IF_KNOWN | IF_CURSE_SEEN;
    return (k->flags & IKF_STACK) && a->kind == b->kind && a->hp == b->hp &&
           (a->flags & keep) == (b->flags & keep) && !((a->flags | b->flags) & IF_EQUIPPED);
}

/* Puts a loose item (no holder) into holder's pack: merges it into a stack
 * or gives it the first free letter. NONE when the pack has no letter free. */
static handle_t inv_add(game_t *g, handle_t h, handle_t holder)
{
    obj_t *o = item_get(g, h);
    const item_kind_t *k = item_kind(g, o);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, holder, inv);
    for (int i = 0; i < n; i++) {
        obj_t *s = item_get(g, inv[i]);
        if (stacks_with(s, o, k)) {
            s->magnitude += o->magnitude;
            reg_del(&g->reg, h);
            return inv[i];
        }
    }
    uint32_t used = 0;
    for (int i = 0; i < n; i++)
        used |= 1u << item_get(g, inv[i])->a[0];
    for (int l = 0; l < INV_SLOTS; l++) {
        if (used & (1u << l))
            continue;
        o->target = holder;
        o->t = (o->flags & IF_UNPAID) ? (uint64_t)o->a[0] : 0; /* its stock letter, kept */
        o->a[0] = l;
        o->depth = -1;
        o->x = o->y = 0;
        reg_refile(&g->reg, h);
        return h;
    }
    return HANDLE_NONE;
}

handle_t item_new(game_t *g, uint16_t kind, int count, handle_t holder, int depth, int x, int y,
                  rng_t *r)
{
    if (kind >= g->c->n_items)
        return HANDLE_NONE;
    const item_kind_t *k = &g->c->items[kind];
    obj_t *o;
    handle_t h = reg_new(&g->reg, OBJ_ITEM, &o);
    if (!h)
        return HANDLE_NONE;
    o->kind = kind;
    o->magnitude = (k->flags & IKF_STACK) && count > 1 ? count : 1;
    o->depth = (int16_t)depth;
    o->x = (int16_t)x;
    o->y = (int16_t)y;
    reg_refile(&g->reg, h);
    if (r)
        item_roll(k, o, r);
    if (k->flags & IKF_CURSED)
        o->flags |= IF_CURSED;
    int art = ego_artifact_index(g->c, kind);
    if (art >= 0) { /* an artifact: known as it is, made once */
        g->pc.artifacts_made |= 1ull << art;
        o->hp = 0;
        o->flags |= IF_KNOWN;
    }
    if (!holder)
        return h;
    const obj_t *c = reg_get(&g->reg, holder);
    handle_t in = c ? inv_add(g, h, holder) : HANDLE_NONE;
    if (in)
        return in;
    o = item_get(g, h); /* no room: it lands at the holder's feet */
    o->depth = c ? c->depth : (int16_t)depth;
    o->x = c ? c->x : (int16_t)x;
    o->y = c ? c->y : (int16_t)y;
    reg_refile(&g->reg, h);
    return h;
}

static int pick_kind(const game_t *g, rng_t *r, int depth)
{
    int total = 0;
    for (uint16_t i = 0; i < g->c->n_items; i++) {
        const item_kind_t *k = &g->c->items[i];
        if (!(k->flags & IKF_UNIQUE) && k->min_depth <= depth && k->max_depth >= depth &&
            !ego_artifact_made(g, i))
            total += k->freq;
    }
    if (total <= 0)
        return -1;
    int roll = (int)rng_below(r, (uint32_t)total);
    for (uint16_t i = 0; i < g->c->n_items; i++) {
        const item_kind_t *k = &g->c->items[i];
        if ((k->flags & IKF_UNIQUE) || k->min_depth > depth || k->max_depth < depth ||
            ego_artifact_made(g, i))
            continue;
        roll -= k->freq;
        if (roll < 0)
            return i;
    }
    return -1;
}

static int free_floor(game_t *g, const level_t *lv, rng_t *r, int *x, int *y)
{
    for (int tries = 0; tries < 500; tries++) {
        *x = (int)rng_below(r, (uint32_t)lv->w);
        *y = (int)rng_below(r, (uint32_t)lv->h);
        if (level_terrain(lv, *x, *y) == MAP_FLOOR && !item_floor_at(g, lv->depth, *x, *y))
            return 0;
    }
    return -1;
}

int item_treasure_at(game_t *g, int depth, int as_deep, int x, int y, rng_t *r)
{
    int k = pick_kind(g, r, as_deep);
    if (k < 0)
        return 0;
    const item_kind_t *ik = &g->c->items[k];
    int count = ik->cls == IC_GOLD ? dice_roll(&ik->power, r) * (1 + as_deep / 2) : 1;
    return item_new(g, (uint16_t)k, count, HANDLE_NONE, depth, x, y, r) ? 0 : -1;
}

/* Treasure comes with the level, once: resting never makes more. */
int item_populate(game_t *g, int depth, rng_t *r)
{
    const level_t *lv = depth >= 0 && depth < LEVEL_IDS ? g->levels[depth] : NULL;
    if (!lv)
        return 0;
    int danger = atlas_danger(g, depth), want = 6 + (int)rng_below(r, 4) + danger / 3, x, y;
    for (int i = 0; i < want; i++) {
        int k = pick_kind(g, r, danger);
        if (k < 0 || free_floor(g, lv, r, &x, &y) < 0)
            break;
        const item_kind_t *ik = &g->c->items[k];
        int count = ik->cls == IC_GOLD ? dice_roll(&ik->power, r) * (1 + danger / 2) : 1;
        handle_t it = item_new(g, (uint16_t)k, count, HANDLE_NONE, depth, x, y, r);
        if (!it)
            return -1;
        ego_roll(g, it, danger, r);
    }
    return 0;
}

/* One known item of kit for the new character, worn when it is gear and
 * its slot is free. A name content lacks is skipped. */
static int kit_item(game_t *g, const char *name, int count)
{
    for (uint16_t k = 0; k < g->c->n_items; k++) {
        if (strcmp(g->c->items[k].name, name) != 0)
            continue;
        handle_t h = item_new(g, k, count, g->player, 0, 0, 0, NULL);
        obj_t *o = reg_get(&g->reg, h);
        if (!o)
            return -1;
        o->flags |= IF_KNOWN;
        ident_learn(g, k);
        int slot = g->c->items[k].slot;
        if (slot != SLOT_NONE && o->target == g->player && !worn_in(g, g->player, slot, 0))
            o->flags |= IF_EQUIPPED;
        return 0;
    }
    return 0;
}

/* The kit a new character starts with: the class's (content's class kit
 * list; "24 arrow" is a stack of 24) and two rations of food. */
int item_start_kit(game_t *g)
{
    const class_kind_t *ck = g->pc.cls < g->c->n_classes ? &g->c->classes[g->pc.cls] : NULL;
    for (int i = 0; ck && i < CLASS_KIT_MAX && ck->kit[i][0]; i++) {
        const char *name = ck->kit[i];
        int count = 0; /* "24 arrow": a stack */
        while (*name >= '0' && *name <= '9')
            count = count * 10 + (*name++ - '0');
        while (*name == ' ')
            name++;
        if (kit_item(g, name, count > 0 ? count : 1) < 0)
            return -1;
    }
    return kit_item(g, "ration of food", 2);
}

/* ---- names ----------------------------------------------------------------------- */

/* The item's name as the player knows it, for the grammar: "potion of
 * healing" or "fizzing violet potion", "+1 long sword", with count. */
typedef struct {
    char name[80], plural[80];
    int count;
} item_name_t;

static void name_of(const game_t *g, const obj_t *o, bool reveal, item_name_t *out)
{
    const item_kind_t *k = item_kind(g, o);
    char base[64], pl[64];
    if (reveal || ident_known(g, o->kind)) {
        snprintf(base, sizeof base, "%s", k->name);
        if (k->plural[0])
            snprintf(pl, sizeof pl, "%s", k->plural);
        else
            gram_plural(pl, sizeof pl, k->name);
    } else {
        ident_flavour_name(g, o->kind, base, sizeof base, pl, sizeof pl);
    }
    out->count = o->magnitude;
    int e = ego_of(g, o);
    if (e >= 0 && !(k->flags & IKF_ARTIFACT) && (reveal || (o->flags & IF_KNOWN))) {
        size_t bl = strlen(base), pl_len = strlen(pl); /* "long sword of flame" */
        snprintf(base + bl, sizeof base - bl, " %s", g->c->egos[e].name);
        snprintf(pl + pl_len, sizeof pl - pl_len, " %s", g->c->egos[e].name);
    }
    if (has_plus(k) && !(k->flags & IKF_ARTIFACT) && (reveal || (o->flags & IF_KNOWN))) {
        snprintf(out->name, sizeof out->name, "%+d %s", (int)o->hp, base);
        snprintf(out->plural, sizeof out->plural, "%+d %s", (int)o->hp, pl);
    } else {
        memcpy(out->name, base, sizeof base);
        memcpy(out->plural, pl, sizeof pl);
    }
}

static void item_name(const game_t *g, handle_t h, item_name_t *out)
{
    const obj_t *o = item_get(g, h);
    if (!o) {
        snprintf(out->name, sizeof out->name, "thing");
        snprintf(out->plural, sizeof out->plural, "things");
        out->count = 1;
        return;
    }
    name_of(g, o, false, out);
}

static const char *const WORN_AS[SLOT_COUNT] = {
    [SLOT_WEAPON] = "wielded", [SLOT_BODY] = "worn",    [SLOT_SHIELD] = "on arm",
    [SLOT_HEAD] = "on head",   [SLOT_RING] = "on hand", [SLOT_NECK] = "around neck",
    [SLOT_LAUNCHER] = "ready"};

/* The grammar's noun for an item named nm: one of a kind ("the
 * Heartstone"), a proper name (artifacts: "Emberfang"), a mass noun. */
static gram_noun_t noun_of(const game_t *g, const obj_t *o, const item_name_t *nm)
{
    const item_kind_t *k = item_kind(g, o);
    gram_noun_t noun = {nm->name, nm->plural, nm->count, GRAM_IT, GRAM_PERCEIVED};
    if (k->flags & IKF_UNIQUE)
        noun.flags |= GRAM_UNIQUE;
    if (k->flags & IKF_ARTIFACT)
        noun.flags |= GRAM_PROPER;
    if (k->flags & IKF_MASS)
        noun.flags |= GRAM_MASS;
    return noun;
}

static void describe(const game_t *g, const obj_t *o, bool reveal, char *out, size_t n)
{
    item_name_t nm;
    name_of(g, o, reveal, &nm);
    const item_kind_t *k = item_kind(g, o);
    gram_arg_t a = {"obj", noun_of(g, o, &nm)};
    int len = gram_phrase(out, n, "<a:obj>", &a, 1);
    if (len < 0)
        len = 0;
    if (k->cls == IC_WAND && (reveal || (o->flags & IF_KNOWN)))
        len += snprintf(out + len, n - (size_t)len, " (%d charge%s)", (int)o->remaining,
                        o->remaining == 1 ? "" : "s");
    if ((o->flags & IF_CURSED) && (reveal || (o->flags & IF_CURSE_SEEN)) && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, " (cursed)");
    if ((o->flags & IF_EQUIPPED) && (size_t)len < n)
        snprintf(out + len, n - (size_t)len, " (%s)", WORN_AS[k->slot]);
}

void item_describe(const game_t *g, handle_t h, char *out, size_t n)
{
    const obj_t *o = item_get(g, h);
    if (!o) {
        snprintf(out, n, "nothing");
        return;
    }
    describe(g, o, false, out, n);
    size_t len = strlen(out);
    if (h == g->quiver && o->target == g->player && len < n)
        snprintf(out + len, n - len, " (in quiver)");
}

void item_tell(game_t *g, const char *tmpl, handle_t actor, handle_t it, handle_t victim)
{
    gram_arg_t args[3];
    int n = 0;
    if (actor)
        args[n++] = (gram_arg_t){"actor", creature_noun(g, actor)};
    if (victim)
        args[n++] = (gram_arg_t){"victim", creature_noun(g, victim)};
    item_name_t nm;
    if (it) {
        item_name(g, it, &nm);
        const obj_t *o = item_get(g, it);
        args[n] = (gram_arg_t){"obj", o ? noun_of(g, o, &nm)
                                        : (gram_noun_t){nm.name, nm.plural, 1, GRAM_IT, 0}};
        args[n++].noun.flags |= GRAM_PERCEIVED | GRAM_INDEFINITE;
    }
    char text[MSG_LEN];
    if (gram_format(text, sizeof text, tmpl, args, n) > 0)
        msg_add(g, "%s", text);
}

void item_say(game_t *g, const char *tmpl, handle_t actor, handle_t it)
{
    item_tell(g, tmpl, actor, it, HANDLE_NONE);
}

/* ---- where items are --------------------------------------------------------------- */

int item_inventory(const game_t *g, handle_t holder, handle_t out[INV_SLOTS])
{
    handle_t by[INV_SLOTS] = {0};
    for (handle_t h = reg_next_held(&g->reg, holder, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, holder, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == holder && holder && o->a[0] >= 0 &&
            o->a[0] < INV_SLOTS)
            by[o->a[0]] = h;
    }
    int n = 0;
    for (int l = 0; l < INV_SLOTS; l++)
        if (by[l])
            out[n++] = by[l];
    return n;
}

handle_t item_by_letter(const game_t *g, handle_t holder, int letter)
{
    if (letter < 'a' || letter >= 'a' + INV_SLOTS || !holder)
        return HANDLE_NONE;
    for (handle_t h = reg_next_held(&g->reg, holder, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, holder, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == holder && o->a[0] == letter - 'a')
            return h;
    }
    return HANDLE_NONE;
}

/* A walk of what may lie at (depth, x, y), slot order: the cell's objects
 * when the map index covers it, else every object (the caller checks). */
static handle_t next_at(const game_t *g, int depth, int x, int y, handle_t after)
{
    if (!reg_index_covers(&g->reg, depth, x, y))
        return reg_next(&g->reg, after);
    return after ? reg_index_next_at(&g->reg, after) : reg_index_at(&g->reg, x, y);
}

handle_t item_floor_at(const game_t *g, int depth, int x, int y)
{
    handle_t top = HANDLE_NONE;
    for (handle_t h = next_at(g, depth, x, y, HANDLE_NONE); h; h = next_at(g, depth, x, y, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && o->depth == depth && o->x == x && o->y == y)
            top = h;
    }
    return top;
}

int item_carried_weight(const game_t *g, handle_t holder)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, holder, inv), w = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = item_get(g, inv[i]);
        w += item_kind(g, o)->weight * o->magnitude;
    }
    return w;
}

/* The items on a cell, top first, at most max (how many there are). */
static int floor_items(const game_t *g, int depth, int x, int y, handle_t *out, int max)
{
    int n = 0;
    for (handle_t h = next_at(g, depth, x, y, HANDLE_NONE); h; h = next_at(g, depth, x, y, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_ITEM || o->target || o->depth != depth || o->x != x || o->y != y)
            continue;
        if (n < max) { /* newest on top: shift the others down */
            for (int i = n; i > 0; i--)
                out[i] = out[i - 1];
            out[0] = h;
        }
        n++;
    }
    return n;
}

int item_floor_list(const game_t *g, int depth, int x, int y, char *out, size_t n)
{
    handle_t top[ITEM_LIST_MAX + 1];
    int count = floor_items(g, depth, x, y, top, ITEM_LIST_MAX + 1);
    size_t len = 0;
    out[0] = 0;
    if (count > ITEM_LIST_MAX) {
        snprintf(out, n, "%d things", count);
        return count;
    }
    for (int i = 0; i < count && len < n; i++) {
        char d[96];
        item_describe(g, top[i], d, sizeof d);
        const char *sep = i == 0 ? "" : i == count - 1 ? " and " : ", ";
        len += (size_t)snprintf(out + len, n - len, "%s%s", sep, d);
    }
    return count;
}

/* Whether the loose item it fits into holder's pack: within the weight
 * the player carries, and onto a stack or a free letter. */
static bool fits_in_pack(const game_t *g, handle_t holder, handle_t it)
{
    const obj_t *o = item_get(g, it);
    const item_kind_t *k = item_kind(g, o);
    if (item_carried_weight(g, holder) + k->weight * o->magnitude > CARRY_CAPACITY)
        return false;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, holder, inv);
    for (int i = 0; i < n; i++)
        if (stacks_with(item_get(g, inv[i]), o, k))
            return true;
    return n < INV_SLOTS;
}

/* An own missile's pickup line, logged after message before: an earlier
 * one of this input for the same letter gives way to it, so a run over
 * many piles says the stack once, as it ends ("e - 11 arrows"). */
static void own_line(game_t *g, uint32_t before)
{
    if (g->nmsg != before + 1)
        return; /* folded, or more than one line: left as it is */
    uint32_t at = g->own_line - 1;
    if (g->own_line && at < before && msg_at(g, at)->text[0] == msg_at(g, before)->text[0] &&
        msg_restate(g, at))
        return;
    g->own_line = before + 1;
}

/* The player's own missiles among here[n] taken up again: the ticks. One
 * that does not fit is left lying, marked, without a word. */
static int own_missiles(game_t *g, const handle_t *here, int n)
{
    uint32_t said = g->said;
    int took = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = reg_get(&g->reg, here[i]);
        uint32_t before = g->nmsg;
        if (o && (o->flags & IF_THROWN) && fits_in_pack(g, g->player, here[i]) &&
            item_pick_up(g, g->player, here[i]) == 0) {
            own_line(g, before);
            took++;
        }
    }
    g->said_aside += g->said - said;
    return took ? SCHED_MOVE : 0;
}

void item_mark_visited(game_t *g, int depth, int x, int y)
{
    for (handle_t h = next_at(g, depth, x, y, HANDLE_NONE); h; h = next_at(g, depth, x, y, h)) {
        obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && o->depth == depth && o->x == x && o->y == y)
            o->flags |= IF_VISITED;
    }
}

/* Whether a loose item on the cell has not been stood on yet: a walk
 * stops to say it. A shop's stock is not one (it is the shop's, and
 * explore goes past it; the trade screen lists it). */
static bool unvisited_at(game_t *g, int depth, int x, int y)
{
    for (handle_t h = next_at(g, depth, x, y, HANDLE_NONE); h; h = next_at(g, depth, x, y, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && o->depth == depth && o->x == x && o->y == y &&
            !(o->flags & (IF_VISITED | IF_UNPAID)))
            return true;
    }
    return false;
}

int item_arrive(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p)
        return 0;
    int depth = p->depth, x = p->x, y = p->y;
    /* a travel or an explore passes what was seen here before unsaid */
    bool say = !travel_walking(g) || unvisited_at(g, depth, x, y);
    item_mark_visited(g, depth, x, y);
    handle_t here[ITEM_LIST_MAX + 1];
    int n = floor_items(g, depth, x, y, here, ITEM_LIST_MAX + 1);
    if (n == 0)
        return 0; /* nothing here: no gold to take, nothing to say */
    n = n <= ITEM_LIST_MAX ? n : ITEM_LIST_MAX + 1;
    for (int i = 0; i < n && !g->gold_by_hand; i++)
        if (item_kind(g, reg_get(&g->reg, here[i]))->cls == IC_GOLD)
            item_pick_up(g, g->player, here[i]); /* deletes only that one */
    int cost = own_missiles(g, here, n);
    char what[MSG_LEN];
    if (say && item_floor_list(g, depth, x, y, what, sizeof what) > 0)
        msg_add(g, "You see here %s.", what);
    return cost;
}

/* ---- moving items ------------------------------------------------------------------ */

handle_t item_give(game_t *g, handle_t it, handle_t holder, int n)
{
    obj_t *o = item_get(g, it);
    if (!o)
        return HANDLE_NONE;
    if (n <= 0 || n >= o->magnitude) {
        o->target = HANDLE_NONE;
        reg_refile(&g->reg, it);
        handle_t in = inv_add(g, it, holder);
        if (in) /* in a pack again; one left lying keeps its mark */
            item_get(g, in)->flags &= (uint8_t) ~(IF_THROWN | IF_VISITED);
        return in;
    }
    obj_t copy = *o, *p;
    handle_t h = reg_new(&g->reg, OBJ_ITEM, &p);
    if (!h)
        return HANDLE_NONE;
    *p = copy;
    p->magnitude = n;
    p->target = HANDLE_NONE;
    handle_t in = inv_add(g, h, holder);
    if (!in) {
        reg_del(&g->reg, h);
        return HANDLE_NONE;
    }
    item_get(g, in)->flags &= (uint8_t) ~(IF_THROWN | IF_VISITED);
    item_get(g, it)->magnitude -= n;
    return in;
}

void item_use_up(game_t *g, handle_t it)
{
    obj_t *o = item_get(g, it);
    if (!o)
        return;
    if (--o->magnitude <= 0)
        reg_del(&g->reg, it);
}

int item_pick_up(game_t *g, handle_t who, handle_t it)
{
    obj_t *o = item_get(g, it);
    if (!o || o->target)
        return -1;
    const item_kind_t *k = item_kind(g, o);
    if (k->cls == IC_GOLD) {
        if (who == g->player) {
            g->items.gold += o->magnitude;
            item_say(g, "<Actor> pick<s:Actor> up <obj>.", who, it);
        }
        reg_del(&g->reg, it);
        return 0;
    }
    if (who == g->player &&
        item_carried_weight(g, who) + k->weight * o->magnitude > CARRY_CAPACITY) {
        item_say(g, "<Obj> <is:Obj> too heavy for you to carry.", HANDLE_NONE, it);
        return -1;
    }
    handle_t in = item_give(g, it, who, 0);
    if (!in) {
        if (who == g->player)
            msg_add(g, "Your pack is full.");
        return -1;
    }
    if (who != g->player) {
        item_say(g, "<Actor> pick<s:Actor> up <obj>.", who, in);
        return 0;
    }
    char d[96];
    item_describe(g, in, d, sizeof d);
    msg_add(g, "%c - %s.", 'a' + item_get(g, in)->a[0], d);
    int art = ego_artifact_index(g->c, item_get(g, in)->kind);
    if (art >= 0 && !(g->pc.artifacts_found >> art & 1)) {
        g->pc.artifacts_found |= 1ull << art;
        msg_milestone(g, "artifact", "found %s", k->name);
    }
    return 0;
}

/* n of it (all when n is 0 or more), carried by who, split off as a loose
 * item at who's feet: its handle, NONE on OOM. Unpaid goods put down whole
 * take their stock letter back (a part split off has none yet). */
static handle_t loose_at_feet(game_t *g, handle_t it, int n, handle_t who)
{
    handle_t h = it;
    if (n > 0 && n < item_get(g, it)->magnitude) {
        obj_t copy = *item_get(g, it), *p;
        h = reg_new(&g->reg, OBJ_ITEM, &p);
        if (!h)
            return HANDLE_NONE;
        *p = copy;
        p->magnitude = n;
        item_get(g, it)->magnitude -= n;
    }
    const obj_t *c = reg_get(&g->reg, who);
    obj_t *o = item_get(g, h);
    o->target = HANDLE_NONE;
    o->a[0] = h == it && (o->flags & IF_UNPAID) && o->t <= INV_SLOTS ? (int32_t)o->t : 0;
    o->t = 0;
    o->depth = c->depth;
    o->x = c->x;
    o->y = c->y;
    reg_refile(&g->reg, h);
    return h;
}

handle_t item_detach(game_t *g, handle_t it)
{
    const obj_t *o = item_get(g, it);
    if (!o || !reg_get(&g->reg, o->target) || (o->flags & IF_EQUIPPED))
        return HANDLE_NONE;
    return loose_at_feet(g, it, 1, o->target);
}

/* Drops n of it at who's feet (loose, no letter). */
int item_drop(game_t *g, handle_t who, handle_t it, int count)
{
    obj_t *o = item_get(g, it);
    if (!o || !reg_get(&g->reg, who) || o->target != who)
        return -1;
    if ((o->flags & IF_EQUIPPED) && item_unequip(g, who, it) < 0)
        return -1;
    handle_t h = loose_at_feet(g, it, count, who);
    if (!h)
        return -1;
    if (who == g->player) /* put down: declined, as one stepped over is */
        reg_get(&g->reg, h)->flags |= IF_VISITED;
    item_say(g, "<Actor> drop<s:Actor> <obj>.", who, h);
    return 0;
}

/* ---- equipment ------------------------------------------------------------------------ */

static handle_t worn_in(const game_t *g, handle_t who, int slot, int skip)
{
    for (handle_t h = reg_next_held(&g->reg, who, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, who, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && o->target == who && (o->flags & IF_EQUIPPED) &&
            item_kind(g, o)->slot == slot && skip-- <= 0)
            return h;
    }
    return HANDLE_NONE;
}

int item_equip(game_t *g, handle_t who, handle_t it)
{
    obj_t *o = item_get(g, it);
    if (!o || o->target != who)
        return -1;
    const item_kind_t *k = item_kind(g, o);
    if (!is_gear(k)) {
        item_say(g, "You cannot wear or wield <obj>.", HANDLE_NONE, it);
        return -1;
    }
    if (o->flags & IF_EQUIPPED) {
        msg_add(g, "You are already using that.");
        return -1;
    }
    handle_t old = worn_in(g, who, k->slot, k->slot == SLOT_RING ? 1 : 0);
    if (old && item_unequip(g, who, old) < 0)
        return -1;
    if (o->magnitude > 1) { /* one of a stack */
        it = item_give(g, it, who, 1);
        o = item_get(g, it);
        if (!o)
            return -1;
    }
    o->flags |= IF_EQUIPPED;
    if (k->speed && who == g->player)
        ident_seen_use(g, who, o->kind);
    item_say(g,
             k->slot == SLOT_WEAPON || k->slot == SLOT_LAUNCHER ? "<Actor> wield<s:Actor> <obj>."
                                                                : "<Actor> put<s:Actor> on <obj>.",
             who, it);
    if (o->flags & IF_CURSED) {
        o->flags |= IF_CURSE_SEEN;
        if (who == g->player)
            msg_add(g, "It feels deathly cold: it is cursed!");
    }
    return 0;
}

int item_unequip(game_t *g, handle_t who, handle_t it)
{
    obj_t *o = item_get(g, it);
    if (!o || o->target != who || !(o->flags & IF_EQUIPPED))
        return -1;
    if (o->flags & IF_CURSED) {
        o->flags |= IF_CURSE_SEEN;
        item_say(g, "<Actor> cannot let go of <obj>: it is cursed!", who, it);
        return -1;
    }
    o->flags &= (uint8_t)~IF_EQUIPPED;
    item_say(g, "<Actor> take<s:Actor> off <obj>.", who, it);
    /* back into a stack it matches, if any */
    o->target = HANDLE_NONE;
    inv_add(g, it, who);
    return 0;
}

void item_gear(const game_t *g, handle_t who, bool known_only, gear_t *out)
{
    memset(out, 0, sizeof *out);
    for (handle_t h = reg_next_held(&g->reg, who, HANDLE_NONE); h;
         h = reg_next_held(&g->reg, who, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_ITEM || o->target != who || !(o->flags & IF_EQUIPPED))
            continue;
        const item_kind_t *k = item_kind(g, o);
        if (k->slot == SLOT_LAUNCHER)
            continue; /* a bow adds to its shots only (missile.c) */
        bool kind_known = !known_only || ident_known(g, o->kind);
        int plus = !known_only || (o->flags & IF_KNOWN) ? o->hp : 0;
        ego_gear(g, o, known_only, out);
        if (kind_known) {
            out->resist |= k->resist;
            out->to_hit += k->to_hit;
            out->damage += k->damage;
            out->defence += k->defence;
            out->absorb += k->absorb;
            out->speed += k->speed;
        }
        if (k->slot == SLOT_WEAPON) {
            out->armed = true;
            out->dmg = k->power;
            out->dtype = k->dtype;
            out->to_hit += plus;
            out->damage += plus;
        } else if (has_plus(k)) {
            out->defence += plus;
        }
    }
}

/* ---- the dump ------------------------------------------------------------------------- */

void item_dump(const game_t *g, buf_t *out)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    char d[128];
    buf_puts(out, "\nEquipment:\n");
    int worn = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = item_get(g, inv[i]);
        if (!(o->flags & IF_EQUIPPED))
            continue;
        describe(g, o, true, d, sizeof d);
        buf_printf(out, "  %c) %s\n", 'a' + o->a[0], d);
        worn++;
    }
    if (!worn)
        buf_puts(out, "  (nothing)\n");
    buf_puts(out, "\nInventory:\n");
    int carried = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *o = item_get(g, inv[i]);
        if (o->flags & IF_EQUIPPED)
            continue;
        describe(g, o, true, d, sizeof d);
        buf_printf(out, "  %c) %s\n", 'a' + o->a[0], d);
        carried++;
    }
    if (!carried)
        buf_puts(out, "  (nothing)\n");
    buf_printf(out, "  %d gold pieces; carrying %d.%d of %d lb\n", (int)g->items.gold,
               item_carried_weight(g, g->player) / 10, item_carried_weight(g, g->player) % 10,
               CARRY_CAPACITY / 10);
}
