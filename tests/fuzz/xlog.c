/* Fuzz target: xlogfile rows (server/hosted/xlog.c), written by the games
 * warrend hosts (NetHack's xlogfile, Crawl's logfile) and read back for
 * scores. A row parses or is refused with
 * a message; an accepted row has a name and text fields that are
 * NUL-terminated UTF-8, free of control characters (C0, DEL, C1) and of
 * bidirectional controls. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/xlog.h"
#include "screen.h"

static void check_text(const char *s, size_t size)
{
    const char *end = memchr(s, 0, size);
    if (!end)
        abort();
    for (size_t used; s < end; s += used) {
        uint32_t cp = utf8_decode((const uint8_t *)s, (size_t)(end - s), &used);
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
            (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFFFD)
            abort();
    }
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
    TEXT(ktyp);
    TEXT(killer);
    if (!r.name[0])
        abort();
    return 0;
}
