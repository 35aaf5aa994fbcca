/* statuspat — a hosted game's status pattern: a PCRE2 regular expression
 * ([game ID]'s "status" key, gamecfg.h) matched against the program's
 * screen to find the depth and turn the lists show (watch list, lobby,
 * warren-admin games).
 *
 *     status = Dlvl:(?<depth>\d+).*T:(?<turn>\d+)
 *
 * The groups named depth and turn are read as decimal numbers; either may
 * be absent from the pattern. The screen is given as its rows joined by
 * '\n', so '.' stays within a row and a pattern may match on any row (the
 * first match from the top counts). Matching is capped (match and depth
 * limits), so a pattern that backtracks badly fails to match instead of
 * holding the loop.
 *
 * Ownership: statuspat_new returns an object freed with statuspat_free.
 * Not thread-safe (it keeps its match data); no global state. */
#ifndef WARREN_STATUSPAT_H
#define WARREN_STATUSPAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct statuspat statuspat_t;

/* Compiles pattern (UTF-8, NUL-terminated). NULL with a message in err
 * ("at offset N: ...") when it is not a valid pattern, names no depth or
 * turn group, or memory ran out. */
statuspat_t *statuspat_new(const char *pattern, char *err, size_t errlen);
void statuspat_free(statuspat_t *p); /* NULL is fine */

/* Matches text (len bytes). True when it matched: *depth and *turn hold
 * what the groups captured (left as they were for a group that is absent
 * or did not take part). */
bool statuspat_match(statuspat_t *p, const char *text, size_t len, int *depth, uint64_t *turn);

#endif
