/* shop — keepers, stock, prices, trading, services and thieves (see shop.h). */
#include "shop.h"
#include <ctype.h>
#include <stdio.h>
#include "creature.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "status.h"
#include "voyage.h"

#define WARES_MAX    26 /* a letter each: a full pack, or a to z of stock */
/* Stock letters: a to z. */
#define SHOP_LETTERS 26
/* A stream of its own per level, apart from the map's, traps' and treasure's. */
#define SHOP_STREAM  0x3000u

/* ---- where shops are --------------------------------------------------------- */

static int region_kind_at(const level_t *lv, int x, int y)
{
    if (!level_in(lv, x, y))
        return -1;
    int r = lv->region[y * lv->w + x];
    return r >= 1 && r <= lv->nregions ? lv->regions[r - 1].kind : -1;
}

const shop_kind_t *shop_at(const game_t *g, const level_t *lv, int x, int y)
{
    int k = region_kind_at(lv, x, y);
    for (uint16_t i = 0; k >= 0 && i < g->c->n_shops; i++)
        if (g->c->shops[i].region == k)
            return &g->c->shops[i];
    return NULL;
}

bool shop_peaceful(const game_t *g, const obj_t *o)
{
    return o && o->type == OBJ_CREATURE && !(o->flags & OF_ANGRY) &&
           (creature_kind(g, o)->flags & CF_PEACEFUL);
}

/* Floor cells of region r (index + 1) into xs/ys: how many. */
static int region_floor(const level_t *lv, int r, int16_t *xs, int16_t *ys, int max)
{
    int n = 0;
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w && n < max; x++)
            if (lv->region[y * lv->w + x] == r && lv->terrain[y * lv->w + x] == MAP_FLOOR &&
                !lv->trap[y * lv->w + x])
                xs[n] = (int16_t)x, ys[n] = (int16_t)y, n++;
    return n;
}

/* A kind the shop stocks, by generation weight; -1 when none. */
static int stock_weight(const shop_kind_t *sh, const item_kind_t *ik)
{
    bool sold = (sh->classes & (1u << ik->cls)) && !(ik->flags & IKF_UNIQUE) &&
                ik->cls != IC_GOLD && ik->min_depth <= sh->stock_depth;
    return sold ? ik->freq : 0;
}

static int stock_kind(const game_t *g, const shop_kind_t *sh, rng_t *r)
{
    int total = 0;
    for (uint16_t k = 0; k < g->c->n_items; k++)
        total += stock_weight(sh, &g->c->items[k]);
    if (total <= 0)
        return -1;
    int pick = (int)rng_below(r, (uint32_t)total);
    for (uint16_t k = 0; k < g->c->n_items; k++)
        if ((pick -= stock_weight(sh, &g->c->items[k])) < 0)
            return k;
    return -1;
}

/* The keeper near the middle of region r, stock on the other floor cells. */
static int furnish(game_t *g, level_t *lv, const shop_kind_t *sh, int r, rng_t *rng)
{
    int16_t xs[256], ys[256];
    int n = region_floor(lv, r, xs, ys, 256);
    if (n < 2)
        return 0;
    int keep = n / 2;
    handle_t k =
        creature_make(g, (uint16_t)sh->keeper, lv->depth, xs[keep], ys[keep], rng, MAKE_AWARE);
    obj_t *o = reg_get(&g->reg, k);
    if (!o)
        return -1;
    o->flags &= (uint8_t) ~(OF_AWARE | OF_ASLEEP);
    for (int i = 0; i < sh->stock && n > 1; i++) {
        int at = (int)rng_below(rng, (uint32_t)n);
        if (at == keep)
            continue;
        int kind = stock_kind(g, sh, rng);
        if (kind < 0)
            break;
        handle_t it = item_new(g, (uint16_t)kind, 1, HANDLE_NONE, lv->depth, xs[at], ys[at], rng);
        obj_t *io = reg_get(&g->reg, it);
        if (!io)
            return -1;
        io->flags |= IF_UNPAID;
    }
    return 0;
}

/* The town's buildings take the town shops' regions in order. */
static int town_shops(game_t *g, level_t *lv, rng_t *rng)
{
    uint16_t next = 0;
    for (int r = 0; r < lv->nregions; r++) {
        if (lv->regions[r].shape != SHAPE_BUILDING)
            continue;
        while (next < g->c->n_shops && g->c->shops[next].max_depth != 0)
            next++;
        if (next >= g->c->n_shops)
            return 0;
        const shop_kind_t *sh = &g->c->shops[next++];
        lv->regions[r].kind = sh->region;
        if (furnish(g, lv, sh, r + 1, rng) < 0)
            return -1;
    }
    return 0;
}

static bool room_shape(int shape)
{
    return shape == SHAPE_RECT || shape == SHAPE_OCTAGON || shape == SHAPE_CROSS ||
           shape == SHAPE_CIRCLE;
}

/* A dungeon level may hold one shop: a room without stairs. */
static int dungeon_shop(game_t *g, level_t *lv, rng_t *rng)
{
    for (uint16_t i = 0; i < g->c->n_shops; i++) {
        const shop_kind_t *sh = &g->c->shops[i];
        int danger = atlas_danger(g, lv->depth);
        if (sh->max_depth == 0 || danger < sh->min_depth || danger > sh->max_depth ||
            !rng_percent(rng, sh->chance))
            continue;
        int up = lv->region[lv->up_y * lv->w + lv->up_x],
            down = lv->down_x >= 0 ? lv->region[lv->down_y * lv->w + lv->down_x] : 0;
        for (int r = 0; r < lv->nregions; r++) {
            int16_t xs[64], ys[64];
            if (!room_shape(lv->regions[r].shape) || r + 1 == up || r + 1 == down ||
                region_floor(lv, r + 1, xs, ys, 64) < sh->stock + 4)
                continue;
            lv->regions[r].kind = sh->region;
            lv->regions[r].lit = 1;
            return furnish(g, lv, sh, r + 1, rng);
        }
        return 0;
    }
    return 0;
}

int shop_populate(game_t *g, level_t *lv)
{
    if (!g->c->n_shops || g->levels[lv->depth] != lv)
        return 0;
    rng_t rng;
    rng_seed(&rng, rng_hash2(g->seed, SHOP_STREAM + (uint64_t)lv->depth), 5);
    int kind = atlas_kind(lv->depth);
    return kind == ATLAS_TOWN                             ? town_shops(g, lv, &rng)
           : kind == ATLAS_WARREN || kind == ATLAS_BRANCH ? dungeon_shop(g, lv, &rng)
                                                          : 0;
}

/* ---- prices ------------------------------------------------------------------- */

int shop_value(const game_t *g, handle_t it)
{
    const obj_t *o = reg_get(&g->reg, it);
    if (!o)
        return 0;
    const item_kind_t *k = item_kind(g, o);
    const price_table_t *p = &g->c->prices;
    int v = k->value > 0 ? k->value : p->base[k->cls] * (100 + p->per_depth * k->min_depth) / 100;
    if (o->hp > 0)
        v += p->per_plus * o->hp;
    return v > 1 ? v : 1;
}

int shop_buy_price(const game_t *g, handle_t it)
{
    return pc_price(g, shop_value(g, it));
}

int shop_sell_price(const game_t *g, handle_t it)
{
    const obj_t *o = reg_get(&g->reg, it);
    if (!o)
        return 0;
    const price_table_t *p = &g->c->prices;
    int v = itemuse_unidentified(g, o) ? p->base[item_kind(g, o)->cls] : shop_value(g, it);
    int gold = v * p->sell / 100 * (100 + 5 * pc_mod(g->pc.ab[AB_CHA])) / 100;
    return gold > 0 ? gold : (v > 0);
}

/* ---- the trade screen ---------------------------------------------------------- */

static const shop_kind_t *open_shop(const game_t *g)
{
    const obj_t *k = reg_get(&g->reg, g->shop_keeper);
    return k ? shop_at(g, g->levels[k->depth], k->x, k->y) : NULL;
}

/* Whether o is a ware of shop sh on the buy list: its stock (unpaid, on
 * its floor, keeper k's level) or unpaid goods the player carries. */
static bool is_ware(const game_t *g, const obj_t *o, const shop_kind_t *sh, const obj_t *k)
{
    if (o->type != OBJ_ITEM || !(o->flags & IF_UNPAID))
        return false;
    if (o->target)
        return o->target == g->player;
    return o->depth == k->depth && shop_at(g, g->levels[k->depth], o->x, o->y) == sh;
}

/* The letter (0 = a) a ware keeps: 1 + it in a[0] on the floor, in t while
 * carried (item.h); -1 none yet. */
static int stock_letter(const obj_t *o)
{
    int64_t l = o->target ? (int64_t)(o->t <= SHOP_LETTERS ? o->t : 0) : o->a[0];
    return l >= 1 && l <= SHOP_LETTERS ? (int)l - 1 : -1;
}

/* A ware keeps its letter while it is in the shop, on the floor or
 * carried. Into by[l], the ware under letter l: each with a letter of its
 * own (the first to claim one), then those without take the first free
 * letters, in registry order; one walk of the registry. */
static void stock_by_letter(const game_t *g, const shop_kind_t *sh, const obj_t *k,
                            handle_t by[SHOP_LETTERS])
{
    for (int l = 0; l < SHOP_LETTERS; l++)
        by[l] = HANDLE_NONE;
    handle_t rest[SHOP_LETTERS];
    int n = 0;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (!is_ware(g, o, sh, k))
            continue;
        int l = stock_letter(o);
        if (l >= 0 && !by[l])
            by[l] = h;
        else if (n < SHOP_LETTERS)
            rest[n++] = h;
    }
    for (int i = 0, l = 0; i < n; i++) {
        while (l < SHOP_LETTERS && by[l])
            l++;
        if (l < SHOP_LETTERS)
            by[l] = rest[i];
    }
}

/* Writes the open shop's letters down (stock_by_letter): they hold from
 * when the trade screen opens, whatever is bought, picked up or put back. */
static void letter_stock(game_t *g)
{
    const shop_kind_t *sh = open_shop(g);
    const obj_t *k = reg_get(&g->reg, g->shop_keeper);
    if (!sh || !k)
        return;
    handle_t by[SHOP_LETTERS];
    stock_by_letter(g, sh, k, by);
    for (int l = 0; l < SHOP_LETTERS; l++) {
        obj_t *o = by[l] ? reg_get(&g->reg, by[l]) : NULL;
        if (o && o->target)
            o->t = (uint64_t)l + 1;
        else if (o)
            o->a[0] = l + 1;
    }
}

/* Adds ware h under letter code at n: n + 1. */
static int ware_add(handle_t *w, int *letter, int n, handle_t h, int code)
{
    w[n] = h;
    letter[n] = code;
    return n + 1;
}

/* Buying lists the shop's stock and the unpaid goods the player carries
 * together, in letter order. */
static int buy_wares(const game_t *g, const shop_kind_t *sh, const obj_t *k, handle_t *w,
                     int *letter)
{
    handle_t by[SHOP_LETTERS];
    stock_by_letter(g, sh, k, by);
    int n = 0;
    for (int l = 0; l < SHOP_LETTERS && n < WARES_MAX; l++)
        if (by[l])
            n = ware_add(w, letter, n, by[l], 'a' + l);
    return n;
}

/* What the screen lists in this mode, each with its letter: buy, the
 * shop's stock and the unpaid goods carried (buy_wares); sell, the
 * carried things the shop deals in; identify, the unknown ones; these
 * two under their letters in the pack. */
static int wares(const game_t *g, handle_t w[WARES_MAX], int letter[WARES_MAX])
{
    const shop_kind_t *sh = open_shop(g);
    const obj_t *k = reg_get(&g->reg, g->shop_keeper);
    if (!sh || !k)
        return 0;
    if (g->shop_mode == SHOP_BUY)
        return buy_wares(g, sh, k, w, letter);
    int n = 0;
    handle_t inv[INV_SLOTS];
    int ni = item_inventory(g, g->player, inv);
    for (int i = 0; i < ni && n < WARES_MAX; i++) {
        const obj_t *o = reg_get(&g->reg, inv[i]);
        bool fits = g->shop_mode == SHOP_SELL ? (sh->classes & (1u << item_kind(g, o)->cls)) &&
                                                    !(o->flags & (IF_EQUIPPED | IF_UNPAID))
                                              : itemuse_unidentified(g, o);
        if (fits)
            n = ware_add(w, letter, n, inv[i], 'a' + o->a[0]);
    }
    return n;
}

/* The ware the key names: its index in w, or -1. */
static int ware_of_key(const int *letter, int n, uint32_t code)
{
    for (int i = 0; i < n; i++)
        if ((uint32_t)letter[i] == code)
            return i;
    return -1;
}

int shop_open(game_t *g, handle_t keeper)
{
    const obj_t *k = reg_get(&g->reg, keeper);
    if (!k || !shop_at(g, g->levels[k->depth], k->x, k->y)) {
        msg_add(g, "There is nobody here to trade with.");
        return 0;
    }
    g->shop_keeper = keeper;
    g->shop_mode = SHOP_BUY;
    g->prompt = PROMPT_SHOP;
    letter_stock(g);
    return 0;
}

bool shop_trades(const game_t *g, handle_t keeper)
{
    const obj_t *k = reg_get(&g->reg, keeper);
    return k && k->depth >= 0 && k->depth <= WORLD_MAX_DEPTH &&
           shop_at(g, g->levels[k->depth], k->x, k->y) != NULL;
}

int shop_cmd_trade(game_t *g)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (!shop_peaceful(g, o) || o->depth != p->depth)
            continue;
        const level_t *lv = g->levels[o->depth];
        int dx = o->x - p->x, dy = o->y - p->y;
        const shop_kind_t *sh = shop_at(g, lv, o->x, o->y);
        if ((dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) ||
            (sh && shop_at(g, lv, p->x, p->y) == sh))
            return shop_open(g, h);
    }
    msg_add(g, "There is nobody here to trade with.");
    return 0;
}

static bool pay(game_t *g, int gold)
{
    if (g->items.gold < gold) {
        msg_add(g, "You cannot afford that (%d gold; you have %d).", gold, (int)g->items.gold);
        return false;
    }
    g->items.gold -= gold;
    return true;
}

static int buy(game_t *g, handle_t it)
{
    int gold = shop_buy_price(g, it);
    obj_t *o = reg_get(&g->reg, it);
    if (!o->target &&
        item_carried_weight(g, g->player) + item_kind(g, o)->weight > CARRY_CAPACITY) {
        msg_add(g, "You cannot carry that much.");
        return 0;
    }
    if (!pay(g, gold))
        return 0;
    o->flags &= (uint8_t)~IF_UNPAID;
    char name[96];
    item_describe(g, it, name, sizeof name);
    if (!o->target && !item_give(g, it, g->player, 0)) {
        o = reg_get(&g->reg, it);
        o->flags |= IF_UNPAID;
        g->items.gold += gold;
        msg_add(g, "Your pack is full.");
        return 0;
    }
    msg_add(g, "You buy %s for %d gold.", name, gold);
    return SCHED_MOVE;
}

static int sell(game_t *g, handle_t it)
{
    int gold = shop_sell_price(g, it);
    char name[96];
    obj_t *o = reg_get(&g->reg, it);
    int count = o->magnitude;
    o->magnitude = 1;
    item_describe(g, it, name, sizeof name);
    o->magnitude = count;
    item_use_up(g, it);
    g->items.gold += gold;
    msg_add(g, "You sell %s for %d gold.", name, gold);
    return SCHED_MOVE;
}

static int heal(game_t *g, int gold)
{
    obj_t *p = reg_get(&g->reg, g->player);
    if (p->hp >= p->hp_max && !status_has(g, g->player, EFK_(BLIND) | EFK_(CONFUSED))) {
        msg_add(g, "You are not hurt.");
        return 0;
    }
    if (!pay(g, gold))
        return 0;
    p->hp = p->hp_max;
    status_cure(g, g->player, EFK_(BLIND) | EFK_(CONFUSED));
    msg_add(g, "The priest lays hands on you. You feel whole again.");
    return SCHED_MOVE;
}

static int uncurse(game_t *g, int gold)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), cursed = 0;
    for (int i = 0; i < n; i++)
        cursed += (reg_get(&g->reg, inv[i])->flags & IF_CURSED) != 0;
    if (!cursed) {
        msg_add(g, "Nothing you carry is cursed.");
        return 0;
    }
    if (!pay(g, gold))
        return 0;
    for (int i = 0; i < n; i++) {
        obj_t *o = reg_get(&g->reg, inv[i]);
        o->flags = (uint8_t)((o->flags & ~IF_CURSED) | IF_CURSE_SEEN);
    }
    msg_add(g, "The priest chants over your things. The curses are lifted.");
    return SCHED_MOVE;
}

/* The service the n-th offered one (0-based) of the keeper's is, or -1:
 * the list numbers what is offered, so an inn's only service is 1. */
static int service_nth(const shop_kind_t *sh, int n)
{
    for (int s = 0; s < SERVICES; s++)
        if (sh->service[s] && n-- == 0)
            return s;
    return -1;
}

/* A service (SERVICE_*) bought: ticks spent. */
static int service(game_t *g, const shop_kind_t *sh, int s)
{
    int gold = pc_price(g, sh->service[s]);
    switch (s) {
    case SERVICE_HEAL: return heal(g, gold);
    case SERVICE_UNCURSE: return uncurse(g, gold);
    case SERVICE_PASSAGE: return voyage_open(g);
    default: g->shop_mode = SHOP_IDENTIFY; return 0;
    }
}

static int identify(game_t *g, const shop_kind_t *sh, handle_t it)
{
    if (!pay(g, pc_price(g, sh->service[SERVICE_IDENTIFY])))
        return 0;
    itemuse_identify(g, it);
    g->shop_mode = SHOP_BUY;
    return SCHED_MOVE;
}

int shop_key(game_t *g, key_event_t k)
{
    const shop_kind_t *sh = open_shop(g);
    if (!sh || k.code == KEY_ESC || k.code == ' ') {
        g->prompt = PROMPT_NONE;
        return 0;
    }
    /* capitals, as the lower case letters are the list's (the pack's) */
    static const struct {
        uint32_t key;
        uint8_t mode;
    } MODE_KEYS[] = {{'S', SHOP_SELL}, {'B', SHOP_BUY}};
    for (size_t m = 0; m < sizeof MODE_KEYS / sizeof MODE_KEYS[0]; m++)
        if (k.code == MODE_KEYS[m].key && sh->classes) {
            g->shop_mode = MODE_KEYS[m].mode;
            return 0;
        }
    int s = k.code >= '1' && k.code <= '9' ? service_nth(sh, (int)k.code - '1') : -1;
    if (s >= 0)
        return service(g, sh, s);
    letter_stock(g);
    handle_t w[WARES_MAX];
    int letter[WARES_MAX];
    int n = wares(g, w, letter), i = ware_of_key(letter, n, k.code);
    if (i < 0)
        return 0;
    if (g->shop_mode == SHOP_SELL)
        return sell(g, w[i]);
    return g->shop_mode == SHOP_IDENTIFY ? identify(g, sh, w[i]) : buy(g, w[i]);
}

static void draw_services(game_t *g, screen_t *s, const shop_kind_t *sh, int y)
{
    static const char *const WHAT[SERVICES] = {"heal your wounds", "lift the curses on your things",
                                               "identify one thing", "passage, by the day"};
    for (int i = 0, n = 0; i < SERVICES && y < s->h; i++)
        if (sh->service[i])
            screen_textf(s, 2, y++, STYLE_DEFAULT, "%d) %-40s %5d gold", ++n, WHAT[i],
                         pc_price(g, sh->service[i]));
}

/* The wares from row y on, each with its letter and price, above the
 * services and the way out; in two columns, names cut shorter, when one
 * does not hold them (a full pack to sell on 80x24). Returns the row
 * after them. */
static int draw_wares(game_t *g, screen_t *s, const shop_kind_t *sh, const handle_t *w,
                      const int *letter, int n, int y)
{
    int rows = s->h - 6 - y, cols = n > rows ? 2 : 1, per = cols == 2 ? (n + 1) / 2 : n;
    int cw = (s->w - 2) / cols, name_w = cols == 2 ? cw - 3 - 11 - 2 : 43;
    for (int i = 0; i < n && rows > 0; i++) {
        if (i % per >= rows)
            continue;
        char name[80];
        item_describe(g, w[i], name, sizeof name);
        int gold = g->shop_mode == SHOP_BUY    ? shop_buy_price(g, w[i])
                   : g->shop_mode == SHOP_SELL ? shop_sell_price(g, w[i])
                                               : pc_price(g, sh->service[SERVICE_IDENTIFY]);
        screen_textf(s, 2 + (i / per) * cw, y + i % per, STYLE_DEFAULT, "%c) %-*.*s %5d gold",
                     letter[i], name_w, name_w, name, gold);
    }
    return y + (per < rows ? per : rows > 0 ? rows : 0);
}

void shop_draw(game_t *g, screen_t *s)
{
    static const char *const TITLE[SHOP_MODES] = {"Buy (a letter buys; S sells)",
                                                  "Sell (a letter sells; B buys)",
                                                  "Identify which? (a letter)"};
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    const shop_kind_t *sh = open_shop(g);
    if (!sh)
        return;
    char title[64]; /* "The general store.", a sentence's start */
    snprintf(title, sizeof title, "%s", g->c->regions[sh->region].name);
    title[0] = (char)toupper((unsigned char)title[0]);
    screen_textf(s, 2, 0, hi, "%s. You have %d gold.", title, (int)g->items.gold);
    msg_draw_new(g, s, 2, 1); /* what the last key bought, sold or was told */
    int y = 2;
    if (sh->classes || g->shop_mode == SHOP_IDENTIFY)
        screen_text(s, 2, y++, hi, TITLE[g->shop_mode]);
    handle_t w[WARES_MAX];
    int letter[WARES_MAX];
    int n = sh->classes || g->shop_mode == SHOP_IDENTIFY ? wares(g, w, letter) : 0;
    y = draw_wares(g, s, sh, w, letter, n, y);
    if (!n && (sh->classes || g->shop_mode == SHOP_IDENTIFY))
        screen_text(s, 4, y++, STYLE_DEFAULT, "(nothing)");
    draw_services(g, s, sh, y + 1);
    screen_text(s, 2, s->h - 1, hi, "Escape or space leaves.");
}

/* ---- thieves ------------------------------------------------------------------- */

void shop_provoke(game_t *g, handle_t h)
{
    obj_t *o = reg_get(&g->reg, h);
    if (!shop_peaceful(g, o))
        return;
    o->flags |= OF_ANGRY;
    creature_disturb(g, h);
    creature_say(g, "<Actor> shout<s:Actor>: \"You will pay for that!\"", h, HANDLE_NONE);
}

void shop_left(game_t *g, int ox, int oy)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    const shop_kind_t *sh = shop_at(g, lv, ox, oy);
    if (!sh || shop_at(g, lv, p->x, p->y) == sh)
        return;
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), stolen = 0;
    for (int i = 0; i < n; i++) {
        obj_t *o = reg_get(&g->reg, inv[i]);
        stolen += (o->flags & IF_UNPAID) != 0;
        o->flags &= (uint8_t)~IF_UNPAID;
    }
    if (!stolen)
        return;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        obj_t *o = reg_get(&g->reg, h);
        if (shop_peaceful(g, o) && o->depth == g->depth && shop_at(g, lv, o->x, o->y) == sh) {
            creature_say(g, "<Actor> shout<s:Actor>: \"Thief! Stop!\"", h, HANDLE_NONE);
            shop_provoke(g, h);
        }
    }
    msg_milestone(g, "theft", "stole from %s", g->c->regions[sh->region].name);
}
