/* telnet — the telnet gateway, as the daemon sees it: listeners on TCP
 * and the Unix socket (`warren --ssh` and the ssh login command come in
 * there), each client a conn (conn.h) whose bytes become keys. With
 * loops = N a conn in a game on another loop is handed to that loop: each
 * loop has its part (telnetgw_attach, registered as a loop hook).
 * Loop thread only. */
#ifndef WARREN_TELNET_H
#define WARREN_TELNET_H
#include "server.h"

typedef struct hooks hooks_t;

/* Registers its part on the other loops (hooks.h: loop_start, loop_stop,
 * loop_free). */
void telnetgw_hooks(hooks_t *h);
/* Home: its part, then the listeners of cfg.telnet and cfg.socket. */
int telnetgw_listen(server_t *s);
void telnetgw_stop(server_t *s); /* stops listening; also after a failed start */
void telnetgw_free(server_t *s); /* after uv_run returned */
void telnetgw_tick(server_t *s); /* home, once a second: idle timeouts */

#endif
