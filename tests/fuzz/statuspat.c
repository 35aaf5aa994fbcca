/* Fuzz target: a hosted game's status pattern (server/core/statuspat.c)
 * matched against a program's screen, which the program (and so its
 * player) writes: any bytes, not only UTF-8. The input is a pattern, a
 * NUL, then the screen's text; the shipped patterns (deploy/games/) read
 * the same text too. A match or none, never a crash: the depth is 0 to
 * 1,000,000, the turn at most UINT64_MAX / 2, and a screen that does not
 * match leaves both as they were. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "statuspat.h"

static const char *const SHIPPED[] = {
    "Dlvl:(?<depth>\\d+)(?:.*T:(?<turn>\\d+))?",                   /* nethack.conf */
    "Place: [^\\n:]*:(?<depth>\\d+)[\\s\\S]*?Time: (?<turn>\\d+)", /* crawl.conf */
};

static void read_screen(statuspat_t *p, const char *text, size_t len)
{
    int depth = -7;
    uint64_t turn = 7;
    bool hit = statuspat_match(p, text, len, &depth, &turn);
    if (!hit && (depth != -7 || turn != 7))
        abort();
    if (depth != -7 && (depth < 0 || depth > 1000000))
        abort();
    if (turn > UINT64_MAX / 2)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    const char *text = nul ? (const char *)nul + 1 : (const char *)data;
    size_t len = nul ? size - (size_t)(nul + 1 - data) : size;
    char err[160];
    for (size_t i = 0; i < sizeof SHIPPED / sizeof *SHIPPED; i++) {
        statuspat_t *p = statuspat_new(SHIPPED[i], err, sizeof err);
        if (!p)
            abort();
        read_screen(p, text, len);
        statuspat_free(p);
    }
    if (nul) { /* the pattern given, when it is one */
        statuspat_t *p = statuspat_new((const char *)data, err, sizeof err);
        if (p)
            read_screen(p, text, len);
        else if (!err[0])
            abort();
        statuspat_free(p);
    }
    return 0;
}
