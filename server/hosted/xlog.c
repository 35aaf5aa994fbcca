/* xlog — an xlogfile row into a struct, through a table of known keys. */
#include "xlog.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "screen.h"

typedef enum { X_TEXT, X_INT, X_BITS } xkind_t;

typedef struct {
    const char *key;
    xkind_t kind;
    size_t off, size;
    unsigned required; /* a bit of REQUIRED_ALL, or 0 */
} xfield_t;

#define T(k, f)                                                             \
    {                                                                       \
        k, X_TEXT, offsetof(xlog_row_t, f), sizeof(((xlog_row_t *)0)->f), 0 \
    }
#define I(k)                                                   \
    {                                                          \
#k, X_INT, offsetof(xlog_row_t, k), sizeof(int64_t), 0 \
    }
#define B(k)                                                     \
    {                                                            \
#k, X_BITS, offsetof(xlog_row_t, k), sizeof(uint64_t), 0 \
    }
enum { REQ_NAME = 1, REQ_POINTS = 2, REQ_DEATH = 4, REQUIRED_ALL = 7 };

static const xfield_t FIELDS[] = {
    T("version", version),
    {"name", X_TEXT, offsetof(xlog_row_t, name), sizeof(((xlog_row_t *)0)->name), REQ_NAME},
    T("role", role),
    T("race", race),
    T("gender", gender),
    T("align", align),
    T("gender0", gender0),
    T("align0", align0),
    {"death", X_TEXT, offsetof(xlog_row_t, death), sizeof(((xlog_row_t *)0)->death), REQ_DEATH},
    T("while", while_),
    {"points", X_INT, offsetof(xlog_row_t, points), sizeof(int64_t), REQ_POINTS},
    I(turns),
    I(realtime),
    I(starttime),
    I(endtime),
    I(deathdate),
    I(birthdate),
    I(deathdnum),
    I(deathlev),
    I(maxlvl),
    I(hp),
    I(maxhp),
    I(deaths),
    I(uid),
    B(conduct),
    B(achieve),
    B(flags),
};
#undef T
#undef I
#undef B
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

static const xfield_t *field_find(const char *key, size_t n)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strlen(FIELDS[i].key) == n && !memcmp(FIELDS[i].key, key, n))
            return &FIELDS[i];
    return NULL;
}

/* Shown as it is: not a control (C0, DEL, C1) and not a bidirectional
 * control, which would reorder the text around it where a page shows it. */
static bool shown_as_is(uint32_t cp)
{
    return cp >= 0x20 && !(cp >= 0x7F && cp <= 0x9F) && !(cp >= 0x202A && cp <= 0x202E) &&
           !(cp >= 0x2066 && cp <= 0x2069) && cp != 0xFFFD;
}

/* Text cut to the field at a character's end; what is not shown as it is
 * (and each byte that is not UTF-8, NUL too) becomes '?'. */
static void set_text(char *dst, size_t size, const char *v, size_t n)
{
    size_t o = 0;
    for (size_t i = 0, used; i < n; i += used) {
        uint32_t cp = utf8_decode((const uint8_t *)v + i, n - i, &used);
        bool keep = shown_as_is(cp);
        size_t len = keep ? used : 1;
        if (o + len > size - 1)
            break;
        if (keep)
            memcpy(dst + o, v + i, used);
        else
            dst[o] = '?';
        o += len;
    }
    dst[o] = 0;
}

static int set_number(const xfield_t *f, char *field, const char *v, size_t n)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf || memchr(v, 0, n))
        return -1;
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    if (f->kind == X_BITS) {
        if (buf[0] == '-')
            return -1;
        uint64_t u = strtoull(buf, &end, 0);
        if (errno || *end)
            return -1;
        memcpy(field, &u, sizeof u);
        return 0;
    }
    int64_t s = strtoll(buf, &end, 10);
    if (errno || *end)
        return -1;
    memcpy(field, &s, sizeof s);
    return 0;
}

int xlog_parse(const char *line, size_t len, xlog_row_t *row, char *err, size_t errlen)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len > XLOG_LINE_MAX) {
        snprintf(err, errlen, "row longer than %d bytes", XLOG_LINE_MAX);
        return -1;
    }
    memset(row, 0, sizeof *row);
    char sep = memchr(line, '\t', len) ? '\t' : ':';
    unsigned have = 0;
    for (size_t at = 0; at < len;) {
        const char *f = line + at, *end = memchr(f, sep, len - at);
        size_t n = end ? (size_t)(end - f) : len - at;
        at += n + 1;
        if (n == 0)
            continue;
        const char *eq = memchr(f, '=', n);
        if (!eq) {
            snprintf(err, errlen, "field \"%.*s\" has no '='", (int)(n < 20 ? n : 20), f);
            return -1;
        }
        size_t klen = (size_t)(eq - f), vlen = n - klen - 1;
        const xfield_t *x = field_find(f, klen);
        if (!x)
            continue;
        char *dst = (char *)row + x->off;
        if (x->kind == X_TEXT)
            set_text(dst, x->size, eq + 1, vlen);
        else if (set_number(x, dst, eq + 1, vlen) < 0) {
            snprintf(err, errlen, "%s: not a number", x->key);
            return -1;
        }
        have |= x->required;
    }
    if ((have & REQUIRED_ALL) != REQUIRED_ALL || !row->name[0]) {
        snprintf(err, errlen, "a row needs name, points and death");
        return -1;
    }
    return 0;
}
