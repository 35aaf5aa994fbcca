/* hooks — the table of a server with nothing above it, and the calls the
 * layers make through it to one another (hooks.h). */
#include "hooks.h"
#include <stdio.h>
#include "conn.h"
#include "moderation.h"
#include "server.h"

const hooks_t hooks_none = {0};

void hooks_hosted_play(conn_t *c, const gamecfg_t *g)
{
    const hooks_hosted_t *h = c->srv->hooks->hosted;
    if (moderation_deleting(c->srv, c->user_id))
        conn_menu(c, MOD_DELETING_MSG);
    else if (h)
        h->play(c, g);
    else
        conn_menu(c, "Hosted games are not available.");
}

int hooks_rc_load(server_t *srv, const gamecfg_t *g, const char *user, hooks_rc_fn *fn, void *ud,
                  char *err, size_t errlen)
{
    const hooks_hosted_t *h = srv->hooks->hosted;
    if (h)
        return h->rc_load(srv, g, user, fn, ud, err, errlen);
    snprintf(err, errlen, "hosted games are not available");
    return -1;
}

int hooks_rc_save(server_t *srv, const gamecfg_t *g, const char *user, const char *text, size_t len,
                  hooks_rc_fn *fn, void *ud, char *err, size_t errlen)
{
    const hooks_hosted_t *h = srv->hooks->hosted;
    if (h)
        return h->rc_save(srv, g, user, text, len, fn, ud, err, errlen);
    snprintf(err, errlen, "hosted games are not available");
    return -1;
}
