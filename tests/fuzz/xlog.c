/* Fuzz target: xlogfile rows (server/hosted/xlog.c), written by the games
 * warrend hosts and read back for scores. A row parses or is refused with
 * a message; an accepted row has a name and text fields that are
 * NUL-terminated and free of control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/xlog.h"

static void check_text(const char *s, size_t size)
{
    const char *end = memchr(s, 0, size);
    if (!end)
        abort();
    for (; s < end; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            abort();
}

#define TEXT(f) check_text(r.f, sizeof r.f)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xlog_row_t r;
    char err[128] = "";
    if (xlog_parse((const char *)data, size, &r, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    TEXT(version);
    TEXT(name);
    TEXT(role);
    TEXT(race);
    TEXT(gender);
    TEXT(align);
    TEXT(gender0);
    TEXT(align0);
    TEXT(death);
    TEXT(while_);
    if (!r.name[0])
        abort();
    return 0;
}
