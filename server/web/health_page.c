/* health_page — GET /health, what a balancer (HAProxy's `option httpchk
 * GET /health`) asks before it sends players here: 200 "ok" while this
 * node takes players; 503 with the reason ("draining": warren-admin drain,
 * drain.h; "stopping"; "storage lost": nothing could be saved) when it
 * should get no new ones. Never cached, never logged: it comes every
 * second or two. And while draining, what the account pages refuse. */
#include <stdio.h>
#include <string.h>
#include "drain.h"
#include "webgw.h"

int webgw_health(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    const server_t *srv = g->srv;
    const char *why = drain_of(srv)       ? "draining"
                      : srv->stopping     ? "stopping"
                      : srv->storage.lost ? "storage lost"
                                          : NULL;
    char body[64];
    int n = snprintf(body, sizeof body, "%s\n", why ? why : "ok");
    web_reply(g->web, req->id, why ? 503 : 200, "text/plain; charset=utf-8", NULL, body, (size_t)n);
    return 0;
}

bool webgw_drain_refuses(webgw_t *g, const web_http_t *req)
{
    const drain_t *d = drain_of(g->srv);
    if (!d || !req->post)
        return false;
    char msg[DRAIN_MESSAGE_MAX + 2];
    snprintf(msg, sizeof msg, "%s\n", d->message);
    webgw_reply_text(g, req->id, 503, msg);
    return true;
}
