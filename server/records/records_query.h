/* records_query — reads the URLs of the score pages (what a request asks
 * for) and escapes text for HTML. Pure functions over outside input, fuzzed
 * by tests/fuzz/records_query.c.
 *
 *   /scores  /api/scores        ?race=R&class=C&period=all|day|week|month|year
 *   /player/NAME  /api/player/NAME
 *   /game/ID  /api/game/ID       summary, milestones, dump
 *   /game/ID/dump                the dump as text/plain
 *   /game/ID.cast                asciicast v2
 *   /game/ID/replay              the browser player
 *   /api/game/ID/replay          its frames (JSON)
 * ID is a decimal game id (1..10^15); NAME is 2-20 of [A-Za-z0-9_-]; R and
 * C are 0-15 of [A-Za-z_-]; unknown query arguments are ignored. */
#ifndef WARREN_RECORDS_QUERY_H
#define WARREN_RECORDS_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

typedef enum {
    RQ_SCORES = 1,
    RQ_PLAYER,
    RQ_GAME,
    RQ_GAME_DUMP,
    RQ_GAME_CAST,
    RQ_GAME_REPLAY, /* the page */
    RQ_GAME_FRAMES, /* /api/game/ID/replay */
} rq_page_t;

typedef struct {
    rq_page_t page;
    bool api; /* under /api/: answer JSON */
    int64_t id;
    char name[24];
    char race[16], cls[16];
    const char *period;  /* static string from the period table */
    int64_t period_secs; /* 0 = all time */
} rq_t;

/* Fills q from a decoded path and "name=value" query arguments.
 * Returns 0 when the request is a records page, -1 when the path is not
 * one of ours (nothing written to err), or an HTTP status (400, 404) with
 * a one-line message in err. */
int rq_parse(const char *path, const char *const *args, int nargs, rq_t *q, char *err,
             size_t errlen);

/* Appends s (len bytes) escaped for HTML text and attribute values: & < > "
 * ' become entities; control characters other than tab and newline are
 * dropped. */
void html_escape(buf_t *out, const char *s, size_t len);
/* Appends s percent-encoded for one URL path segment (safe in HTML too). */
void url_escape(buf_t *out, const char *s);
static inline void html_escape_str(buf_t *out, const char *s)
{
    size_t n = 0;
    while (s && s[n])
        n++;
    html_escape(out, s, n);
}

#endif
