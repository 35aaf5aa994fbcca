/* records_query — reads what a score page's URL asks for (its parameter
 * and query arguments; server/routes.c has the URLs; web/html.h escapes
 * what they show). Pure functions over outside input, fuzzed by
 * tests/fuzz/records_query.c.
 *
 *   /scores  /api/scores        ?race=R&class=C&period=all|day|week|month|year
 *   /player/NAME  /api/player/NAME
 *   /game/ID  /api/game/ID       summary, milestones, dump
 *   /game/ID/dump                the dump as text/plain
 *   /game/ID.cast                asciicast v2
 *   /game/ID/replay              the browser player
 *   /api/game/ID/replay          its frames (JSON)
 *   /daily  /daily/DATE  /api/daily/DATE   the daily game's board
 * ID is a decimal game id (1..10^15); NAME is 2-20 of [A-Za-z0-9_-]; R and
 * C are 0-15 of [A-Za-z_-]; unknown query arguments are ignored. Each
 * reader returns 0, or an HTTP status (400, 404) with a one-line message
 * in err. */
#ifndef WARREN_RECORDS_QUERY_H
#define WARREN_RECORDS_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"

/* What /scores filters on. */
typedef struct {
    char race[16], cls[16];
    const char *period;       /* static string from the period table */
    int64_t period_secs;      /* 0 = all time */
    const char *period_words; /* "all time", "the last 7 days", ... */
} rq_filter_t;

/* The "name=value" query arguments of /scores into f. */
int rq_scores_filter(const char *const *args, int nargs, rq_filter_t *f, char *err, size_t errlen);
/* The NAME of /player/NAME (everything after "/player/") into name. */
int rq_player_name(const char *rest, char name[24], char *err, size_t errlen);
/* The DATE of /daily/DATE (everything after "/daily/") into day: exactly
 * YYYY-MM-DD, a real calendar date of the years 2000-9999; else 400. */
int rq_daily_date(const char *rest, char day[11], char *err, size_t errlen);
/* Why a /game/ URL no route took is refused (rest: after "/game/"): 400
 * when it does not start with an ID, else 404 (no such page). */
int rq_game_error(const char *rest, char *err, size_t errlen);

#endif
