/* control — the administrator's control socket (cfg.control, mode 0600):
 * one request line per connection, its answer, then the socket closes;
 * `warren-admin` speaks it (control_parse.h reads the lines). Home loop
 * only. */
#ifndef WARREN_CONTROL_H
#define WARREN_CONTROL_H
#include "server.h"

int control_listen(server_t *s);
void control_stop(server_t *s);
void control_free(server_t *s); /* after uv_run returned */

#endif
