/* routes — every URL warrend answers, one row each (web_route_t, web.h),
 * in routes.c. The web gateway matches each request against the rows in
 * order; the first that fits takes it. Adding a page is adding a row and
 * its handler (in web/ or records/). The table sits here, beside main.c,
 * because its rows name handlers of two layers: the web gateway's own
 * pages and the records' above it; main.c hands it to webgw_start. */
#ifndef WARREN_ROUTES_H
#define WARREN_ROUTES_H
#include <stddef.h>
#include "web.h"

extern const web_route_t WEB_ROUTES[];
extern const size_t WEB_NROUTES;

#endif
