/* routes — the route table; see routes.h. Handlers get the webgw_t. */
#include "lobby_page.h"
#include "records.h"
#include "routes.h"
#include "webgw.h"

#define PAGE (WEB_GET | WEB_HEAD) /* a file of the built client (client-web/dist) */
#define CALL (WEB_GET | WEB_POST) /* a handler (HEAD too): forms post, records answer 405 */
#define SHOW WEB_GET              /* a page of the client filled in by site.c (HEAD too) */

const web_route_t WEB_ROUTES[] = {
    /* the browser client's pages and bundles */
    {SHOW, "/", .handler = webgw_page, .arg = WEBGW_LOBBY_PAGE},
    {SHOW, "/index.html", .handler = webgw_page, .arg = WEBGW_LOBBY_PAGE},
    {SHOW, "/play", .handler = webgw_page, .arg = WEBGW_PLAY_PAGE},
    {SHOW, "/play/{name}", .handler = webgw_page, .arg = WEBGW_PLAY_PAGE},  /* [game ID] */
    {SHOW, "/watch/{who}", .handler = webgw_page, .arg = WEBGW_WATCH_PAGE}, /* NAME[/GAME] */
    {PAGE, "/assets/{file}", .file = "assets/", .immutable = true},
    /* websockets (webgw.c): the lobby, your own game, someone's game */
    {WEB_WS, "/ws/lobby", .arg = WEB_LOBBY},
    {WEB_WS, "/ws/play", .arg = WEB_PLAY},
    {WEB_WS, "/ws/play/{name}", .arg = WEB_PLAY},
    {WEB_WS, "/ws/watch/{who}", .arg = WEB_WATCH},
    /* accounts (login.c) */
    {CALL, "/login", .handler = webgw_login},
    {CALL, "/register", .handler = webgw_register},
    {CALL, "/logout", .handler = webgw_logout},
    {CALL, "/password", .handler = webgw_password},
    {CALL, "/options", .handler = webgw_options},
    {CALL, "/options/{name}", .handler = webgw_rc}, /* a [game ID]'s rc file */
    /* a balancer's health check: 503 while draining (health_page.c) */
    {SHOW, "/health", .handler = webgw_health},
    /* mail between players (mail_page.c) */
    {CALL, "/mail", .handler = webgw_mail},
    /* the lobby's feed of recent ends, for its script (web/lobby_page.c) */
    {WEB_GET, "/api/feed", .handler = lobby_page_api},
    /* finished games (records/pages.c): HTML, and JSON under /api/ */
    {CALL, "/scores", .handler = records_scores},
    {CALL, "/api/scores", .handler = records_scores, .arg = RECORDS_JSON},
    {CALL, "/scores/{name}", .handler = records_hosted_scores}, /* [game ID] */
    {CALL, "/api/scores/{name}", .handler = records_hosted_scores, .arg = RECORDS_JSON},
    {CALL, "/player/*", .handler = records_player},
    {CALL, "/api/player/*", .handler = records_player, .arg = RECORDS_JSON},
    {CALL, "/game/{id}", .handler = records_game},
    {CALL, "/api/game/{id}", .handler = records_game, .arg = RECORDS_JSON},
    {CALL, "/game/{id}/dump", .handler = records_dump},
    {CALL, "/game/{id}.cast", .handler = records_cast},
    {CALL, "/game/{id}/replay", .handler = records_replay},
    {CALL, "/api/game/{id}/replay", .handler = records_frames, .arg = RECORDS_JSON},
    {CALL, "/game/*", .handler = records_bad_game},
    {CALL, "/api/game/*", .handler = records_bad_game, .arg = RECORDS_JSON},
    /* the daily game's board (records/daily_pages.c): today, or a day's */
    {CALL, "/daily", .handler = records_daily},
    {CALL, "/api/daily", .handler = records_daily, .arg = RECORDS_JSON},
    {CALL, "/daily/*", .handler = records_daily},
    {CALL, "/api/daily/*", .handler = records_daily, .arg = RECORDS_JSON},
    /* hosted games' recordings (records/hosted_pages.c): not `games` ids */
    {CALL, "/hosted/{id}", .handler = records_hosted_game},
    {CALL, "/api/hosted/{id}", .handler = records_hosted_game, .arg = RECORDS_JSON},
    {CALL, "/hosted/{id}.cast", .handler = records_hosted_cast},
    {CALL, "/hosted/{id}/replay", .handler = records_hosted_replay},
    {CALL, "/api/hosted/{id}/replay", .handler = records_hosted_frames, .arg = RECORDS_JSON},
    {CALL, "/hosted/*", .handler = records_bad_game},
    {CALL, "/api/hosted/*", .handler = records_bad_game, .arg = RECORDS_JSON},
    /* the rest: a page saying there is none, in the site's layout (site.c),
     * or for the API an error as its other answers give them */
    {CALL, "/api/*", .handler = webgw_api_not_found},
    {CALL, "/*", .handler = webgw_not_found},
};

const size_t WEB_NROUTES = sizeof WEB_ROUTES / sizeof WEB_ROUTES[0];
