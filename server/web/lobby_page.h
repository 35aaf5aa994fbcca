/* lobby_page — what the lobby page (/) says above and below its live
 * games, filled into the client's index.html by site.c:
 *   <!--welcome-->  the server's name and message of the day
 *                   (siteinfo.h), how to connect (telnet and ssh lines,
 *                   each in a field to copy) and a Play button per game
 *                   (Warren's, then each [game ID] section's)
 *   <!--feed-->     recent deaths, wins and milestones across games
 *                   (db_feed_recent), each linking its game's page
 * The feed is read from the database at most once every LOBBY_FEED_MS
 * (requests while a read is under way wait for it) and kept as HTML in
 * the gateway (webgw_t.feed). /api/feed serves what
 * the section holds below its heading, {"html":"<ul>...</ul>"}, which
 * the lobby's script (lobby.js) reads again every 15 seconds, so a death
 * or a win shows without a reload. Loop thread only. */
#ifndef WARREN_LOBBY_PAGE_H
#define WARREN_LOBBY_PAGE_H
#include "buf.h"
#include "webgw.h"

#define LOBBY_FEED_MS   3000 /* the feed is read again after this */
#define LOBBY_FEED_ROWS 20

void lobby_page_welcome(webgw_t *g, buf_t *b);
void lobby_page_feed(webgw_t *g, buf_t *b); /* the feed as last read */
/* Reads the feed again when it is older than LOBBY_FEED_MS, then calls
 * then(ud) (at once when it is fresh or there is no database). */
void lobby_page_refresh(webgw_t *g, void (*then)(void *ud), void *ud);
/* The route table's handler of /api/feed (ctx: the webgw_t). */
int lobby_page_api(void *ctx, const web_http_t *req);

#endif
