/* siteinfo — the server's name, address and how to connect (siteinfo.h). */
#include "siteinfo.h"
#include <stdio.h>
#include <string.h>
#include "server.h"
#include "shard.h"

const char *siteinfo_name(const config_t *c)
{
    return c->server_name[0] ? c->server_name : SITEINFO_NAME_DEFAULT;
}

void siteinfo_url(const config_t *c, char *out, size_t n)
{
    const char *base = c->public_url;
    char made[160] = "";
    if (!base[0] && c->http[0]) {
        snprintf(made, sizeof made, "http://%s", c->http);
        base = made;
    }
    size_t len = strlen(base);
    while (len > 0 && base[len - 1] == '/')
        len--;
    snprintf(out, n, "%.*s", (int)len, base);
}

/* public-url's host ("https://example.org:8443/x" -> "example.org"), or "". */
static void url_host(const char *url, char *out, size_t n)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    size_t len = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?#");
    snprintf(out, n, "%.*s", (int)len, h);
}

/* The host a listener address stands for: a wildcard one is this machine. */
static void addr_host(const char *host, char *out, size_t n)
{
    bool any = !strcmp(host, "0.0.0.0") || !strcmp(host, "::") || !strcmp(host, "[::]") || !host[0];
    snprintf(out, n, "%s", any ? "127.0.0.1" : host);
}

void siteinfo_telnet(const config_t *c, char *out, size_t n)
{
    char host[200] = "", lhost[200];
    int port = 0;
    out[0] = 0;
    if (!c->telnet[0] || config_split_addr(c->telnet, lhost, sizeof lhost, &port) < 0)
        return;
    url_host(c->public_url, host, sizeof host);
    if (!host[0])
        addr_host(lhost, host, sizeof host);
    if (port == 23)
        snprintf(out, n, "telnet %s", host);
    else
        snprintf(out, n, "telnet %s %d", host, port);
}

void siteinfo_ssh(const config_t *c, char *out, size_t n)
{
    out[0] = 0;
    if (!c->ssh_login[0])
        return;
    const char *colon = strrchr(c->ssh_login, ':');
    if (colon && !strchr(colon, ']'))
        snprintf(out, n, "ssh %.*s -p %s", (int)(colon - c->ssh_login), c->ssh_login, colon + 1);
    else
        snprintf(out, n, "ssh %s", c->ssh_login);
}

int siteinfo_live(const server_t *srv, bool away)
{
    int n = 0;
    for (int i = 0; i < shard_count(srv); i++) {
        const server_t *k = shard_at(srv, i);
        n += atomic_load(&k->nsessions) - atomic_load(&k->nended);
        if (!away)
            n -= atomic_load(&k->naway);
    }
    const server_t *home = shard_at(srv, 0); /* other nodes' (mirrors are sessions) */
    n += atomic_load(&home->peer_unlisted);
    if (!away)
        n -= atomic_load(&home->peer_unlisted_away);
    return n > 0 ? n : 0; /* loads apart, a game gone between reads as -1 */
}
