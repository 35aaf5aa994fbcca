/* retention — what warrend keeps only for a while, deleted on home's
 * one-second tick: at the first tick after start, then every
 * RETENTION_EVERY_S seconds.
 *   web sessions      rows of the sessions table past their expiry (a
 *                     login's cookie lasts 30 days; logging out deletes
 *                     its row at once)
 *   read mail         mail read more than MAIL_KEEP_DAYS ago (mail.h):
 *                     nothing shows it again
 *   login throttles   entries of accounts.h's throttle table gone quiet
 * Each deletion is logged when it removed something. Home loop only. */
#ifndef WARREN_RETENTION_H
#define WARREN_RETENTION_H
#include "server.h"

#define RETENTION_EVERY_S 3600

/* Home, once a second (after server_tick counted it). */
void retention_tick(server_t *home);

#endif
