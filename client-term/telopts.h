/* telopts: what the `warren` client agrees to in the server's telnet
 * stream, and its reading of NEW-ENVIRON requests. Pure functions, so the
 * client's handling of server bytes can be tested and fuzzed without a
 * socket (tests/fuzz/client_telnet.c drives them through libtelnet). */
#ifndef WARREN_CLIENT_TELOPTS_H
#define WARREN_CLIENT_TELOPTS_H

#include <stddef.h>
#include <libtelnet.h>

#define TELOPTS_N 7 /* entries telopts_fill writes, the -1 end included */

/* Options we agree to: us = we will do it when asked, him = we let the
 * server do it. NAWS only makes sense with a real terminal (is_tty);
 * NEW-ENVIRON only in ssh mode. */
void telopts_fill(telnet_telopt_t out[TELOPTS_N], int is_tty, int ssh);

/* A NEW-ENVIRON subnegotiation from the server (b, n: after the option
 * byte). Returns -1 when it is not a request, 1 when it asks for
 * REMOTE_ADDR (or for everything), 0 for a request that names only other
 * variables. */
int telopts_environ_request(const unsigned char *b, size_t n);

#endif
