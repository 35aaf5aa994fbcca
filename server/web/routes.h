/* routes — every URL warrend answers, one row each (web_route_t, web.h),
 * in routes.c. The web gateway matches each request against the rows in
 * order; the first that fits takes it. Adding a page is adding a row and
 * its handler. */
#ifndef WARREN_ROUTES_H
#define WARREN_ROUTES_H
#include <stddef.h>
#include "web.h"

extern const web_route_t WEB_ROUTES[];
extern const size_t WEB_NROUTES;

#endif
