/* client: one `warren` session — the user's terminal joined to a warrend
 * telnet gateway (TCP or Unix socket) on a libuv loop.
 *
 * The client is an ordinary telnet client: it agrees to NAWS (window size,
 * sent again on SIGWINCH), TTYPE (from $TERM), BINARY, and lets the server
 * ECHO and suppress go-ahead. In ssh mode it also agrees to NEW-ENVIRON and
 * answers SEND with USERVAR "REMOTE_ADDR" = the ssh client's address, which
 * the daemon trusts only on its Unix socket.
 */
#ifndef WARREN_CLIENT_CLIENT_H
#define WARREN_CLIENT_CLIENT_H

#include <uv.h>

#include "target.h"

typedef struct client_opts_t {
    target_t target;
    const char *ttype;       /* terminal type to report; borrowed */
    const char *remote_addr; /* ssh mode: address for REMOTE_ADDR, or NULL */
    int ssh;                 /* 1: offer NEW-ENVIRON */
} client_opts_t;

typedef struct client_t client_t;

/* Creates a client on loop; nothing starts until client_start(). The
 * options are copied. NULL when out of memory. Free with client_free()
 * after the loop has finished running. */
client_t *client_new(uv_loop_t *loop, const client_opts_t *opts);

/* Starts connecting, reading the terminal and watching signals. Returns 0
 * or a negative libuv error (the message is then in client_message()). */
int client_start(client_t *c);

/* After uv_run() returns: the process exit status and the line to print
 * for the user (empty when there is nothing to say). */
int client_exit_code(const client_t *c);
const char *client_message(const client_t *c);

void client_free(client_t *c);

#endif
