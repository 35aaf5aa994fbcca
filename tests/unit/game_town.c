/* Unit tests: the town and shops — keepers and stock in the town's
 * buildings, buying and selling for gold at prices set by Cha, the
 * temple's healing and uncursing, the sage's identification, keepers that
 * trade when bumped and turn on thieves, shops in the dungeon, and the
 * trade screen kept in saves. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chargen.h"
#include "creature.h"
#include "content.h"
#include "event.h"
#include "helpers.h"
#include "ident.h"
#include "item.h"
#include "itemuse.h"
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "render.h"
#include "shop.h"
#include "vision.h"
#include "world.h"

static int region_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_regions; i++)
        if (!strcmp(c->regions[i].name, name))
            return i;
    ck_abort_msg("no region %s", name);
    return -1;
}

/* A new character (human fighter) standing in the town. */
static game_t *in_town(const content_t *c, uint64_t seed)
{
    game_t *g = game_new(c, seed, NULL);
    ck_assert_ptr_nonnull(g);
    chargen_create(g, 0, 0);
    ck_assert_int_eq(g->depth, 0);
    return g;
}

/* The keeper of the shop whose region is named, on the current level. */
static handle_t keeper_of(game_t *g, const char *region)
{
    int r = region_named(g->c, region);
    const level_t *lv = level_current(g);
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        const shop_kind_t *sh =
            shop_peaceful(g, o) && o->depth == g->depth ? shop_at(g, lv, o->x, o->y) : NULL;
        if (sh && sh->region == r)
            return h;
    }
    return HANDLE_NONE;
}

/* The shop keeper k keeps. */
static const shop_kind_t *shop_of(game_t *g, handle_t k)
{
    const obj_t *o = reg_get(&g->reg, k);
    return shop_at(g, level_current(g), o->x, o->y);
}

/* The player moves next to keeper k, inside its shop. */
static void beside(game_t *g, handle_t k)
{
    const obj_t *o = reg_get(&g->reg, k);
    const level_t *lv = level_current(g);
    const shop_kind_t *sh = shop_at(g, lv, o->x, o->y);
    obj_t *p = reg_get(&g->reg, g->player);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int x = o->x + dx, y = o->y + dy;
            if ((dx || dy) && level_terrain(lv, x, y) == MAP_FLOOR && shop_at(g, lv, x, y) == sh &&
                !level_creature_at(g, g->depth, x, y)) {
                p->x = (int16_t)x, p->y = (int16_t)y;
                reg_refile(&g->reg, g->player);
                vision_update(g);
                return;
            }
        }
    ck_abort_msg("no room beside the keeper");
}

/* The first unpaid thing on the floor of k's shop, in registry order. */
static handle_t first_ware(game_t *g, handle_t k)
{
    const obj_t *ko = reg_get(&g->reg, k);
    const level_t *lv = level_current(g);
    const shop_kind_t *sh = shop_at(g, lv, ko->x, ko->y);
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && (o->flags & IF_UNPAID) &&
            shop_at(g, lv, o->x, o->y) == sh)
            return h;
    }
    return HANDLE_NONE;
}

START_TEST(the_town_has_its_shops)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        game_t *g = in_town(C, seed);
        ck_assert_int_eq(g->items.gold, C->prices.start_gold);
        ck_assert(C->prices.start_gold > 0);
        handle_t store = keeper_of(g, "the general store");
        ck_assert_msg(store && keeper_of(g, "the temple") && keeper_of(g, "the sage's house"),
                      "seed %d: a town shop without its keeper", (int)seed);
        int wares = 0;
        const level_t *lv = level_current(g);
        for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
            const obj_t *o = reg_get(&g->reg, h);
            if (o->type != OBJ_ITEM || !(o->flags & IF_UNPAID))
                continue;
            ck_assert_ptr_nonnull(shop_at(g, lv, o->x, o->y)); /* stock lies in shops only */
            wares++;
        }
        ck_assert_int_ge(wares, 5);
        ck_assert(first_ware(g, store));
        game_free(g);
    }
}
END_TEST

START_TEST(bumping_a_keeper_opens_the_trade_screen)
{
    game_t *g = in_town(C, 3);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    const obj_t *ko = reg_get(&g->reg, k), *p = reg_get(&g->reg, g->player);
    int hp = ko->hp;
    creature_step(g, g->player, ko->x - p->x, ko->y - p->y);
    ck_assert_int_eq(g->prompt, PROMPT_SHOP);
    ck_assert_int_eq(reg_get(&g->reg, k)->hp, hp); /* no blow */
    key(g, KEY_ESC);
    ck_assert_int_eq(g->prompt, PROMPT_NONE);
    key(g, 'p'); /* the command too, from beside it */
    ck_assert_int_eq(g->prompt, PROMPT_SHOP);
    ck_assert(g->shop_keeper == k);
    game_free(g);
}
END_TEST

/* What the player carries of kind (NONE if nothing). */
static handle_t carried_kind(game_t *g, uint16_t kind)
{
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        if (reg_get(&g->reg, inv[i])->kind == kind)
            return inv[i];
    return HANDLE_NONE;
}

static void view_row(game_t *g, int y, char *out, size_t n);

START_TEST(buying_and_selling)
{
    game_t *g = in_town(C, 4);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    g->items.gold = 5000;
    handle_t it = first_ware(g, k);
    int price = shop_buy_price(g, it);
    ck_assert_int_eq(price, pc_price(g, shop_value(g, it)));
    uint16_t kind = reg_get(&g->reg, it)->kind;
    keys(g, "pa");
    ck_assert_int_eq(g->items.gold, 5000 - price);
    it = carried_kind(g, kind); /* perhaps now part of a stack carried before */
    const obj_t *o = reg_get(&g->reg, it);
    ck_assert(o && o->target == g->player && !(o->flags & IF_UNPAID));
    /* sell it back: the list is what the shop deals in, not worn, each
     * under its letter in the pack (not its place in the list) */
    key(g, 'S');
    ck_assert_int_eq(g->shop_mode, SHOP_SELL);
    const shop_kind_t *sh = shop_of(g, k);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), at = -1, fits = 0;
    for (int i = 0; i < n; i++) {
        const obj_t *x = reg_get(&g->reg, inv[i]);
        if (!(sh->classes & (1u << item_kind(g, x)->cls)) || (x->flags & IF_EQUIPPED))
            continue;
        if (inv[i] == it)
            at = fits;
        fits++;
    }
    ck_assert_int_ge(at, 0);
    int letter = 'a' + reg_get(&g->reg, it)->a[0];
    ck_assert_int_ne(letter, 'a' + at); /* the two orders differ here */
    char row[96], want[8];
    snprintf(want, sizeof want, "%c) ", letter);
    bool listed = false;
    for (int y = 3; y < 20 && !listed; y++) {
        view_row(g, y, row, sizeof row);
        listed = strstr(row, want) != NULL;
    }
    ck_assert_msg(listed, "no %s in the sell list", want);
    int gold = g->items.gold, paid = shop_sell_price(g, it);
    ck_assert_int_lt(paid, price);
    int count = reg_get(&g->reg, it)->magnitude;
    key(g, (uint32_t)letter);
    ck_assert_int_eq(g->items.gold, gold + paid);
    const obj_t *after = reg_get(&g->reg, it);
    ck_assert(count > 1 ? after && after->magnitude == count - 1 : after == NULL);
    game_free(g);
}
END_TEST

/* Row y of the 80x24 view, as text. */
static void view_row(game_t *g, int y, char *out, size_t n)
{
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    size_t at = 0;
    for (int x = 0; x < s->w && at + 1 < n; x++) {
        uint32_t ch = screen_at(s, x, y)->ch;
        out[at++] = ch < 0x80 ? (char)ch : '?';
    }
    out[at] = 0;
    screen_free(s);
}

/* A full pack to sell is listed whole on 80x24: every thing the shop
 * buys under its letter, in two columns when one does not hold them,
 * the services and the way out still below. */
START_TEST(a_full_pack_to_sell_is_listed_whole)
{
    game_t *g = in_town(C, 4);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    const shop_kind_t *sh = shop_of(g, k);
    handle_t inv[INV_SLOTS];
    for (uint16_t i = 0; i < C->n_items && item_inventory(g, g->player, inv) < INV_SLOTS; i++)
        if (sh->classes & (1u << C->items[i].cls))
            item_new(g, i, 1, g->player, 0, 0, 0, NULL);
    int n = item_inventory(g, g->player, inv);
    ck_assert_int_eq(n, INV_SLOTS);
    keys(g, "pS");
    ck_assert_int_eq(g->shop_mode, SHOP_SELL);
    char all[24 * 96] = "", row[96];
    for (int y = 0; y < 24; y++) {
        view_row(g, y, row, sizeof row);
        strncat(all, row, sizeof all - strlen(all) - 1);
        strncat(all, "\n", sizeof all - strlen(all) - 1);
    }
    for (int i = 0; i < n; i++) {
        const obj_t *x = reg_get(&g->reg, inv[i]);
        if ((x->flags & IF_EQUIPPED) || !(sh->classes & (1u << item_kind(g, x)->cls)))
            continue;
        char want[4] = {(char)('a' + x->a[0]), ')', ' ', 0};
        ck_assert_msg(strstr(all, want), "no %s in the sell list:\n%s", want, all);
    }
    ck_assert_msg(strstr(all, "Escape or space leaves."), "%s", all);
    game_free(g);
}
END_TEST

/* The buy list row lettered l on the trade screen, into out: whether
 * there is one. */
static bool buy_row(game_t *g, int l, char *out, size_t n)
{
    char want[4] = {(char)l, ')', ' ', 0};
    for (int y = 3; y < 18; y++) {
        view_row(g, y, out, n);
        if (!strncmp(out + 2, want, 3))
            return true;
    }
    return false;
}

/* Stock keeps its letter across purchases: buying one from the middle of
 * the list leaves the next one's letter buying that same thing (the list
 * does not close up under it). */
START_TEST(stock_keeps_its_letter_when_one_is_bought)
{
    game_t *g = in_town(C, 4);
    beside(g, keeper_of(g, "the general store"));
    g->items.gold = 5000;
    key(g, 'p');
    char rows[26][96];
    int n = 0;
    while (n < 26 && buy_row(g, 'a' + n, rows[n], sizeof rows[n]))
        n++;
    int mid = 1; /* an item whose successor reads unlike the one after */
    while (mid + 2 < n && !strcmp(rows[mid + 1], rows[mid + 2]))
        mid++;
    ck_assert_msg(mid + 2 < n, "too few different wares (%d)", n);
    key(g, (uint32_t)('a' + mid));
    char row[96];
    ck_assert(buy_row(g, 'a' + mid + 1, row, sizeof row));
    ck_assert_str_eq(row, rows[mid + 1]);
    ck_assert(!buy_row(g, 'a' + mid, row, sizeof row)); /* bought: a gap */
    buf_t b; /* the letters hold through a save and resume */
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    buf_free(&b);
    game_free(g);
    g = h;
    int gold = g->items.gold, price = atoi(rows[mid + 1] + 49); /* "  x) name(43) price" */
    ck_assert_int_gt(price, 0);
    key(g, (uint32_t)('a' + mid + 1));
    ck_assert_int_eq(g->items.gold, gold - price);
    ck_assert(!buy_row(g, 'a' + mid + 1, row, sizeof row));
    ck_assert(buy_row(g, 'a' + mid + 2, row, sizeof row));
    ck_assert_str_eq(row, rows[mid + 2]);
    game_free(g);
}
END_TEST

/* Stock without a letter of its own (as saved before stock kept letters)
 * takes the first free letters, in order, when the trade screen opens. */
START_TEST(unlettered_stock_takes_the_first_free_letters)
{
    game_t *g = in_town(C, 4);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    key(g, 'p');
    char before[3][96], row[96];
    for (int i = 0; i < 3; i++)
        ck_assert(buy_row(g, 'a' + i, before[i], sizeof before[i]));
    key(g, KEY_ESC);
    const obj_t *ko = reg_get(&g->reg, k);
    const level_t *lv = g->levels[ko->depth];
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && (o->flags & IF_UNPAID) &&
            shop_at(g, lv, o->x, o->y) == shop_of(g, k))
            o->a[0] = 0;
    }
    key(g, 'p');
    for (int i = 0; i < 3; i++) {
        ck_assert(buy_row(g, 'a' + i, row, sizeof row));
        ck_assert_str_eq(row, before[i]);
    }
    game_free(g);
}
END_TEST

/* The unpaid thing lettered l (a stock letter + 1 in a[0]) on the floor
 * of k's shop. */
static handle_t ware_lettered(game_t *g, handle_t k, int l)
{
    const shop_kind_t *sh = shop_of(g, k);
    const level_t *lv = level_current(g);
    for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_ITEM && !o->target && (o->flags & IF_UNPAID) && o->a[0] == l - 'a' + 1 &&
            shop_at(g, lv, o->x, o->y) == sh)
            return h;
    }
    return HANDLE_NONE;
}

/* Unpaid goods carried keep their stock letter, as NetHack's inventory
 * letters hold: picked up, one is listed under the letter it had lying
 * in the shop; buying another or putting one back moves no letter. */
START_TEST(carried_unpaid_goods_keep_their_letters)
{
    game_t *g = in_town(C, 4);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    g->items.gold = 5000;
    key(g, 'p');
    char rows[26][96], row[96];
    int n = 0;
    while (n < 26 && buy_row(g, 'a' + n, rows[n], sizeof rows[n]))
        n++;
    int l1 = 1, l2 = 2; /* two wares of different kinds, not stacking */
    while (l2 < n && !strcmp(rows[l1] + 5, rows[l2] + 5))
        l2++;
    ck_assert_msg(l2 + 1 < n, "too few different wares (%d)", n);
    key(g, KEY_ESC);
    handle_t h1 = ware_lettered(g, k, 'a' + l1), h2 = ware_lettered(g, k, 'a' + l2);
    ck_assert(h1 && h2);
    /* the later letter first, so the pack's order differs from the shop's */
    ck_assert_int_eq(item_pick_up(g, g->player, h2), 0);
    ck_assert_int_eq(item_pick_up(g, g->player, h1), 0);
    key(g, 'p');
    ck_assert(buy_row(g, 'a' + l1, row, sizeof row));
    ck_assert_str_eq(row, rows[l1]);
    ck_assert(buy_row(g, 'a' + l2, row, sizeof row));
    ck_assert_str_eq(row, rows[l2]);
    key(g, (uint32_t)('a' + l1)); /* bought: the other keeps its letter */
    ck_assert(!buy_row(g, 'a' + l1, row, sizeof row));
    ck_assert(buy_row(g, 'a' + l2, row, sizeof row));
    ck_assert_str_eq(row, rows[l2]);
    key(g, KEY_ESC);
    handle_t c2 = HANDLE_NONE, inv[INV_SLOTS];
    int ni = item_inventory(g, g->player, inv);
    for (int i = 0; i < ni; i++)
        if (reg_get(&g->reg, inv[i])->flags & IF_UNPAID)
            c2 = inv[i];
    ck_assert(c2);
    buf_t b; /* carried, the letter holds through a save and resume */
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    buf_free(&b);
    game_free(g);
    g = h;
    ck_assert_int_eq(item_drop(g, g->player, c2, 0), 0); /* put back in the shop */
    key(g, 'p');
    ck_assert(buy_row(g, 'a' + l2, row, sizeof row));
    ck_assert_str_eq(row, rows[l2]);
    ck_assert(buy_row(g, 'a' + l2 + 1, row, sizeof row));
    ck_assert_str_eq(row, rows[l2 + 1]);
    game_free(g);
}
END_TEST

/* The trade screen's title starts its sentence with a capital: "The
 * general store. You have 120 gold." */
START_TEST(the_trade_screen_title_is_a_sentence)
{
    game_t *g = in_town(C, 3);
    beside(g, keeper_of(g, "the general store"));
    key(g, 'p');
    ck_assert_int_eq(g->prompt, PROMPT_SHOP);
    char row[81];
    view_row(g, 0, row, sizeof row);
    ck_assert_msg(!strncmp(row, "  The general store. You have ", 30), "%s", row);
    game_free(g);
}
END_TEST

/* Look's Tab goes to every creature in view, a shopkeeper too (aiming's
 * Tab passes the peaceful by). */
START_TEST(look_tab_finds_the_keeper)
{
    game_t *g = in_town(C, 3);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    const obj_t *ko = reg_get(&g->reg, k);
    key(g, ';');
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    key(g, KEY_TAB);
    ck_assert_int_eq(g->prompt, PROMPT_LOOK);
    ck_assert(g->cur_x == ko->x && g->cur_y == ko->y);
    key(g, KEY_ESC);
    game_free(g);
}
END_TEST

/* The trade screen covers the message line, so it says itself what each
 * key did: what was bought, what cost too much; the next key clears it. */
START_TEST(the_trade_screen_says_what_happened)
{
    game_t *g = in_town(C, 4);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    char row[96];
    g->items.gold = 0;
    keys(g, "pa");
    ck_assert_int_eq(g->prompt, PROMPT_SHOP);
    view_row(g, 1, row, sizeof row);
    ck_assert_msg(strstr(row, "You cannot afford that"), "%s", row);
    g->items.gold = 5000;
    key(g, 'a');
    view_row(g, 1, row, sizeof row);
    ck_assert_msg(strstr(row, "You buy "), "%s", row);
    key(g, 'S'); /* to the sell list: nothing said */
    view_row(g, 1, row, sizeof row);
    ck_assert_msg(!strstr(row, "You"), "%s", row);
    game_free(g);
}
END_TEST

/* Keepers at their trade do not stop a walk when they come into view: in
 * the town (seed 11, whose priest comes into view on the way) one travel
 * to the stairs down gets there. */
START_TEST(keepers_do_not_stop_a_walk)
{
    game_t *g = game_new(C, 11, NULL);
    ck_assert_ptr_nonnull(g);
    keys(g, "ac");
    for (int i = 0; i < 12; i++)
        keys_paged(g, "o");
    uint32_t from = g->nmsg;
    keys_paged(g, "_>.");
    const obj_t *p = reg_get(&g->reg, g->player);
    const level_t *lv = level_current(g);
    ck_assert_int_eq(g->depth, 0);
    ck_assert_msg(p->x == lv->down_x && p->y == lv->down_y, "%s", last_msg(g));
    ck_assert(!said_since(g, from, "You see a priest"));
    game_free(g);
}
END_TEST

/* The town has no treasure lying about: all that lies there is the
 * shops' stock, which explore passes, in sight or underfoot, without a
 * stop ("You see a buckler.", "You see here..."). Explore goes on through
 * the shops until nothing is left to explore. */
START_TEST(explore_passes_a_shops_stock)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        game_t *g = in_town(C, seed);
        uint32_t from = g->nmsg;
        int stops = 0;
        while (stops < 40 && !said_since(g, from, "There is nothing left to explore here.")) {
            uint32_t before = g->nmsg;
            keys_paged(g, "o");
            stops++;
            for (uint32_t i = before; i < g->nmsg; i++) {
                const char *m = msg_at(g, i)->text;
                ck_assert_msg(strncmp(m, "You see ", 8) || !strncmp(m, "You see no ", 11),
                              "seed %llu stop %d: %s", (unsigned long long)seed, stops, m);
            }
        }
        ck_assert_int_lt(stops, 40);
        game_free(g);
    }
}
END_TEST

START_TEST(charisma_sets_prices)
{
    game_t *g = in_town(C, 5);
    handle_t it = first_ware(g, keeper_of(g, "the general store"));
    itemuse_identify(g, it);
    g->pc.ab[AB_CHA] = 18;
    int buy_hi = shop_buy_price(g, it), sell_hi = shop_sell_price(g, it);
    g->pc.ab[AB_CHA] = 5;
    int buy_lo = shop_buy_price(g, it), sell_lo = shop_sell_price(g, it);
    ck_assert_int_lt(buy_hi, buy_lo);
    ck_assert_int_ge(sell_hi, sell_lo);
    ck_assert_int_lt(sell_hi, buy_hi); /* a shop never pays what it asks */
    game_free(g);
}
END_TEST

START_TEST(the_temple_heals_and_lifts_curses_for_gold)
{
    game_t *g = in_town(C, 6);
    handle_t k = keeper_of(g, "the temple");
    const shop_kind_t *sh = shop_of(g, k);
    beside(g, k);
    obj_t *p = reg_get(&g->reg, g->player);
    p->hp = 1;
    g->items.gold = 0;
    uint32_t from = g->nmsg;
    keys(g, "p1");
    ck_assert_int_eq(reg_get(&g->reg, g->player)->hp, 1);
    ck_assert(said_since(g, from, "cannot afford"));
    g->items.gold = 1000;
    key(g, '1');
    p = reg_get(&g->reg, g->player);
    ck_assert_int_eq(p->hp, p->hp_max);
    ck_assert_int_eq(g->items.gold, 1000 - pc_price(g, sh->service[SERVICE_HEAL]));
    /* a cursed cap held on */
    handle_t cap = item_new(g, item_named(C, "leather cap"), 1, g->player, 0, 0, 0, &g->play);
    ck_assert_int_eq(item_equip(g, g->player, cap), 0);
    reg_get(&g->reg, cap)->flags |= IF_CURSED;
    int gold = g->items.gold;
    key(g, '2');
    ck_assert(!(reg_get(&g->reg, cap)->flags & IF_CURSED));
    ck_assert_int_eq(g->items.gold, gold - pc_price(g, sh->service[SERVICE_UNCURSE]));
    game_free(g);
}
END_TEST

START_TEST(the_sage_identifies_for_gold)
{
    game_t *g = in_town(C, 7);
    handle_t k = keeper_of(g, "the sage's house");
    beside(g, k);
    uint16_t kind = 0;
    while (kind < C->n_items && (C->items[kind].cls != IC_POTION || ident_known(g, kind)))
        kind++;
    ck_assert_int_lt(kind, C->n_items); /* some potion is still a flavour */
    handle_t pot = item_new(g, kind, 1, g->player, 0, 0, 0, &g->play);
    ck_assert(!ident_known(g, kind));
    g->items.gold = 500;
    keys(g, "p1"); /* its only service */
    ck_assert_int_eq(g->shop_mode, SHOP_IDENTIFY);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), at = -1, unknown = 0;
    for (int i = 0; i < n; i++) {
        if (!itemuse_unidentified(g, reg_get(&g->reg, inv[i])))
            continue;
        if (inv[i] == pot)
            at = unknown;
        unknown++;
    }
    ck_assert_int_ge(at, 0);
    key(g, (uint32_t)('a' + reg_get(&g->reg, pot)->a[0])); /* its letter in the pack */
    ck_assert(ident_known(g, kind));
    const shop_kind_t *sh = shop_of(g, k);
    ck_assert_int_eq(g->items.gold, 500 - pc_price(g, sh->service[SERVICE_IDENTIFY]));
    game_free(g);
}
END_TEST

START_TEST(walking_out_with_unpaid_goods_angers_the_keeper)
{
    game_t *g = in_town(C, 8);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    handle_t it = first_ware(g, k);
    ck_assert_int_eq(item_pick_up(g, g->player, it), 0);
    handle_t inv[INV_SLOTS];
    int n = item_inventory(g, g->player, inv), unpaid = 0;
    for (int i = 0; i < n; i++)
        unpaid += (reg_get(&g->reg, inv[i])->flags & IF_UNPAID) != 0;
    ck_assert_int_eq(unpaid, 1); /* carried, still the shop's */
    obj_t *p = reg_get(&g->reg, g->player);
    int ox = p->x, oy = p->y;
    const level_t *lv = level_current(g);
    /* out on the road (the arrival spot), as a step out would leave it */
    p->x = lv->up_x, p->y = lv->up_y;
    ck_assert_ptr_null(shop_at(g, lv, p->x, p->y));
    size_t ms = g->nms;
    shop_left(g, ox, oy);
    const obj_t *ko = reg_get(&g->reg, k);
    ck_assert(ko->flags & OF_ANGRY);
    ck_assert(!shop_peaceful(g, ko));
    n = item_inventory(g, g->player, inv);
    for (int i = 0; i < n; i++)
        ck_assert(!(reg_get(&g->reg, inv[i])->flags & IF_UNPAID));
    ck_assert_uint_eq(g->nms, ms + 1);
    ck_assert_str_eq(g->ms[ms].kind, "theft");
    game_free(g);
}
END_TEST

START_TEST(a_keeper_hurt_by_the_player_fights)
{
    game_t *g = in_town(C, 10);
    handle_t k = keeper_of(g, "the temple");
    ev_info_t e = {
        .type = EV_DAMAGE, .actor = HANDLE_NONE, .victim = k, .map = -1, .dtype = DT_HIT};
    e.amount[0] = 1;
    event_throw(g, &e); /* not the player's doing: still peaceful */
    ck_assert(shop_peaceful(g, reg_get(&g->reg, k)));
    e.actor = g->player;
    event_throw(g, &e);
    ck_assert(!shop_peaceful(g, reg_get(&g->reg, k)));
    ck_assert(reg_get(&g->reg, k)->flags & OF_AWARE);
    game_free(g);
}
END_TEST

START_TEST(shops_appear_in_the_dungeon)
{
    int den = region_named(C, "a trader's den"), found = 0;
    for (uint64_t seed = 1; seed <= 8 && !found; seed++) {
        game_t *g = game_new(C, seed, NULL);
        for (int d = 3; d <= 16; d++) {
            level_t *lv = level_new(g, MAPGEN_DEFAULT_W, MAPGEN_DEFAULT_H, d);
            g->levels[d] = lv;
            ck_assert_int_eq(level_generate(g, lv), 0);
            for (int r = 0; r < lv->nregions; r++)
                found += lv->regions[r].kind == den;
        }
        if (found) { /* its keeper stands in it, peaceful, with wares around */
            int keepers = 0, wares = 0;
            for (handle_t h = reg_next(&g->reg, 0); h; h = reg_next(&g->reg, h)) {
                const obj_t *o = reg_get(&g->reg, h);
                const level_t *lv = o->depth > 0 ? g->levels[o->depth] : NULL;
                const shop_kind_t *sh = lv ? shop_at(g, lv, o->x, o->y) : NULL;
                keepers +=
                    o->type == OBJ_CREATURE && shop_peaceful(g, o) && sh && sh->region == den;
                wares += o->type == OBJ_ITEM && (o->flags & IF_UNPAID) && sh;
            }
            ck_assert_int_ge(keepers, 1);
            ck_assert_int_ge(wares, 1);
        }
        game_free(g);
    }
    ck_assert_int_ge(found, 1);
}
END_TEST

START_TEST(the_trade_screen_is_saved)
{
    game_t *g = in_town(C, 9);
    handle_t k = keeper_of(g, "the general store");
    beside(g, k);
    keys(g, "pS");
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_int_eq(h->prompt, PROMPT_SHOP);
    ck_assert_int_eq(h->shop_mode, SHOP_SELL);
    ck_assert(h->shop_keeper == k);
    ck_assert_uint_eq(game_hash(h), game_hash(g));
    buf_free(&b);
    game_free(h);
    game_free(g);
}
END_TEST

/* The top row of g's 80x24 view. */
static void top_row(game_t *g, char *out)
{
    screen_t *s = screen_new(80, 24);
    game_view_t v = {0};
    render_full(g, s, &v);
    for (int x = 0; x < 80; x++) {
        uint32_t ch = screen_at(s, x, 0)->ch;
        out[x] = ch < 0x80 ? (char)ch : '?';
    }
    out[80] = 0;
    screen_free(s);
}

/* The closed door farthest from the player, out of sight. */
static int far_door(game_t *g, const level_t *lv)
{
    const obj_t *p = reg_get(&g->reg, g->player);
    int best = -1, bd = 0;
    for (int i = 0; i < lv->w * lv->h; i++) {
        int x = i % lv->w, y = i / lv->w, d = abs(x - p->x) + abs(y - p->y);
        if (lv->terrain[i] == MAP_DOOR_CLOSED && !level_visible(lv, x, y) && d > bd)
            best = i, bd = d;
    }
    ck_assert_int_ge(best, 0);
    return best;
}

/* The town is home: from the first turn its layout is known (SEEN_MAP),
 * a door out of sight too, so travel takes the player there at once; its
 * wares are not (look on an unseen shop's floor names none) until seen.
 * A save keeps what is known. */
START_TEST(the_home_town_is_known_from_the_start)
{
    game_t *g = in_town(C, 3);
    level_t *lv = level_current(g);
    for (int i = 0; i < lv->w * lv->h; i++)
        ck_assert_msg(lv->seen[i] & SEEN_MAP, "cell %d,%d unknown", i % lv->w, i / lv->w);
    handle_t k = keeper_of(g, "the general store"), ware = first_ware(g, k);
    const obj_t *w = reg_get(&g->reg, ware);
    int wx = w->x, wy = w->y;
    ck_assert(!(lv->seen[wy * lv->w + wx] & SEEN_EYES));
    char row[81];
    keys(g, ";");
    g->cur_x = (int16_t)wx, g->cur_y = (int16_t)wy;
    top_row(g, row);
    ck_assert_msg(!strncmp(row, "A floor in the general store.", 29), "%s", row);
    key(g, KEY_ESC);
    int door = far_door(g, lv), dx = door % lv->w, dy = door / lv->w;
    keys(g, "_");
    g->cur_x = (int16_t)dx, g->cur_y = (int16_t)dy;
    keys_paged(g, ".");
    const obj_t *p = reg_get(&g->reg, g->player);
    ck_assert_msg(abs(p->x - dx) <= 1 && abs(p->y - dy) <= 1, "at %d,%d for %d,%d: %s", p->x, p->y,
                  dx, dy, last_msg(g));
    beside(g, k);
    ck_assert(lv->seen[wy * lv->w + wx] & SEEN_EYES);
    keys(g, ";");
    g->cur_x = (int16_t)wx, g->cur_y = (int16_t)wy;
    top_row(g, row);
    ck_assert_msg(strstr(row, ", on a floor"), "%s", row);
    key(g, KEY_ESC);
    buf_t b;
    buf_init(&b);
    ck_assert_int_eq(game_snapshot(g, &b), 0);
    char err[128];
    game_t *h = game_load(C, (const uint8_t *)b.data, b.len, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_int_eq(memcmp(h->levels[0]->seen, lv->seen, (size_t)lv->w * (size_t)lv->h), 0);
    buf_free(&b);
    game_free(h);
    game_free(g);
}
END_TEST

Suite *suite_game_town(void)
{
    Suite *s = suite_create("game_town");
    TCase *t = tcase_create("town");
    with_shipped_content(t);
    tcase_add_test(t, the_town_has_its_shops);
    tcase_add_test(t, the_trade_screen_title_is_a_sentence);
    tcase_add_test(t, look_tab_finds_the_keeper);
    tcase_add_test(t, bumping_a_keeper_opens_the_trade_screen);
    tcase_add_test(t, buying_and_selling);
    tcase_add_test(t, a_full_pack_to_sell_is_listed_whole);
    tcase_add_test(t, stock_keeps_its_letter_when_one_is_bought);
    tcase_add_test(t, unlettered_stock_takes_the_first_free_letters);
    tcase_add_test(t, carried_unpaid_goods_keep_their_letters);
    tcase_add_test(t, the_trade_screen_says_what_happened);
    tcase_add_test(t, keepers_do_not_stop_a_walk);
    tcase_add_test(t, charisma_sets_prices);
    tcase_add_test(t, explore_passes_a_shops_stock);
    tcase_add_test(t, the_temple_heals_and_lifts_curses_for_gold);
    tcase_add_test(t, the_sage_identifies_for_gold);
    tcase_add_test(t, walking_out_with_unpaid_goods_angers_the_keeper);
    tcase_add_test(t, a_keeper_hurt_by_the_player_fights);
    tcase_add_test(t, shops_appear_in_the_dungeon);
    tcase_add_test(t, the_trade_screen_is_saved);
    tcase_add_test(t, the_home_town_is_known_from_the_start);
    suite_add_tcase(s, t);
    return s;
}
