/* siteinfo — what the first screens say about this server: its name and
 * message of the day (server-name, motd), the site's address for links
 * shown on terminals, and how to connect (telnet, ssh), the same on the
 * telnet banner and in the web lobby.
 *
 * Addresses: the host players reach is public-url's when it is set, else
 * the listener's own (its address, or 127.0.0.1 for a wildcard one); the
 * telnet port is the telnet listener's. All outputs are NUL-terminated,
 * "" when there is nothing to say (no listener, no ssh-login). */
#ifndef WARREN_SITEINFO_H
#define WARREN_SITEINFO_H
#include <stdbool.h>
#include <stddef.h>
#include "config.h"

typedef struct server server_t;

#define SITEINFO_NAME_DEFAULT "Warren"

/* The server's name: server-name, else "Warren". Borrowed from c. */
const char *siteinfo_name(const config_t *c);
/* "URL" of the site without a trailing '/': public-url, else
 * http://HTTP-ADDR; "" when there is no web listener nor public-url. */
void siteinfo_url(const config_t *c, char *out, size_t n);
/* "telnet HOST PORT" (the port left out when it is 23). */
void siteinfo_telnet(const config_t *c, char *out, size_t n);
/* Live games on every loop, and on the other nodes sharing the database
 * (peer.h; ended ones not yet gone left out), read from each loop's
 * counters without parking it: any loop may ask, and it may be one off
 * while a game on another loop comes or goes. With away false, those
 * whose player left them (kept live for their grace period) are left out
 * too: the games being played now. */
int siteinfo_live(const server_t *srv, bool away);
/* "ssh USER@HOST" (with " -p PORT" when ssh-login names one). */
void siteinfo_ssh(const config_t *c, char *out, size_t n);

#endif
