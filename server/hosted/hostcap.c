/* hostcap — live hosted games counted in all and per address (hostcap.h). */
#include "hostcap.h"
#include <stdio.h>
#include "log.h"

int hostcap_open(server_t *srv)
{
    srv->hosted_cap = budget_new(srv->cfg.hosted_max, srv->cfg.hosted_per_ip);
    if (!srv->hosted_cap)
        return -1;
    log_info("hosted games: at most %d, %d per address", srv->cfg.hosted_max,
             srv->cfg.hosted_per_ip);
    return 0;
}

void hostcap_close(server_t *srv)
{
    budget_free(srv->hosted_cap);
    srv->hosted_cap = NULL;
}

int hostcap_take(server_t *srv, budget_slot_t *slot, const char *addr, const char *key, char *msg,
                 size_t n)
{
    int r = budget_take(srv->hosted_cap, slot, addr, key);
    if (r == BUDGET_OK)
        return 0;
    bool mine = r == BUDGET_ADDR;
    log_warn("hosted game refused ip=%s: %s", addr && addr[0] ? addr : "-",
             mine ? "hosted-per-ip reached" : "hosted-max reached");
    if (mine)
        snprintf(msg, n, "Your address already runs %d hosted games: end one to start another.",
                 srv->cfg.hosted_per_ip);
    else
        snprintf(msg, n, "The server runs all the hosted games it may (%d): try again later.",
                 srv->cfg.hosted_max);
    return -1;
}

void hostcap_release(server_t *srv, budget_slot_t *slot)
{
    if (slot->held)
        budget_release(srv->hosted_cap, slot);
}
