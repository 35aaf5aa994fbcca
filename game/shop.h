/* shop — the town's services and the shops of the Warren: keepers,
 * stock, prices by Cha, buying, selling, the temple's healing and
 * uncursing, the sage's identification, and thieves.
 *
 * Shops are content (shop_kind_t, game/content/town.lua): a keeper (a
 * creature kind flagged peaceful) in a region. The town's buildings take
 * the town shops' regions in order; a dungeon level may get a shop room
 * by the shop's chance. Stock lies on the shop's floor unpaid (IF_UNPAID):
 * it may be picked up, and is paid for on the trade screen (PROMPT_SHOP,
 * opened by bumping the keeper or with `p`); walking out with unpaid
 * goods angers the keeper, who then fights like any monster. */
#ifndef WARREN_SHOP_H
#define WARREN_SHOP_H
#include <stdbool.h>
#include "world.h"

/* Keepers and stock for a new level (the town always, a dungeon level by
 * chance), from a stream of the level's own: 0, or -1 on OOM. */
int shop_populate(game_t *g, level_t *lv);
/* The shop kind whose region holds (x, y) on lv, or NULL. */
const shop_kind_t *shop_at(const game_t *g, const level_t *lv, int x, int y);
/* True while o is a keeper that has not been angered. */
bool shop_peaceful(const game_t *g, const obj_t *o);
/* What an item is worth to a shop (before Cha), and the gold the player
 * pays for it or is paid for it (Cha both ways; an unidentified kind
 * sells only for its class's base). */
int shop_value(const game_t *g, handle_t it);
int shop_buy_price(const game_t *g, handle_t it);
int shop_sell_price(const game_t *g, handle_t it);
/* The player bumped keeper k, or pressed `p` (the keeper of the shop the
 * player stands in, or one next to the player): opens the trade screen.
 * Ticks spent (0). */
int shop_open(game_t *g, handle_t keeper);
/* Whether keeper stands in a shop, where a bump trades with it. */
bool shop_trades(const game_t *g, handle_t keeper);
int shop_cmd_trade(game_t *g);
/* After the player's step from (ox, oy): leaving a shop with unpaid goods
 * angers its keeper (the goods are the thief's now). */
void shop_left(game_t *g, int ox, int oy);
/* The player hurt h: a keeper turns on the player (nothing otherwise). */
void shop_provoke(game_t *g, handle_t h);
/* The trade screen (prompt.h's PROMPT_SHOP row). */
int shop_key(game_t *g, key_event_t k);
void shop_draw(game_t *g, screen_t *s);
/* The trade screen's modes (game_t.shop_mode). */
enum { SHOP_BUY = 0, SHOP_SELL, SHOP_IDENTIFY, SHOP_MODES };

#endif
