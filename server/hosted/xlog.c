/* xlog — an xlogfile row into a struct, through a table of known keys. */
#include "xlog.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "screen.h"

typedef enum { X_TEXT, X_INT, X_BITS, X_DATE } xkind_t;

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
#define N(k, f, kind, req)                                     \
    {                                                          \
        k, kind, offsetof(xlog_row_t, f), sizeof(int64_t), req \
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
    /* Crawl's logfile */
    T("v", version),
    T("cls", role),
    N("sc", points, X_INT, REQ_POINTS),
    N("turn", turns, X_INT, 0),
    N("dur", realtime, X_INT, 0),
    N("start", starttime, X_DATE, 0),
    N("end", endtime, X_DATE, 0),
    N("absdepth", deathlev, X_INT, 0),
    N("mhp", maxhp, X_INT, 0),
    {"ktyp", X_TEXT, offsetof(xlog_row_t, ktyp), sizeof(((xlog_row_t *)0)->ktyp), REQ_DEATH},
    T("killer", killer),
    {"tmsg", X_TEXT, offsetof(xlog_row_t, death), sizeof(((xlog_row_t *)0)->death), REQ_DEATH},
};
#undef T
#undef I
#undef B
#undef N
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
 * (and each byte that is not UTF-8, NUL too) becomes '?'. With colons,
 * "::" is one ':'. */
static void set_text(char *dst, size_t size, const char *v, size_t n, bool colons)
{
    size_t o = 0;
    for (size_t i = 0, used; i < n; i += used) {
        uint32_t cp = utf8_decode((const uint8_t *)v + i, n - i, &used);
        bool keep = shown_as_is(cp);
        size_t len = keep ? used : 1;
        if (colons && cp == ':' && i + 1 < n && v[i + 1] == ':')
            used = 2; /* one ':' written, two read */
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

/* Crawl's local time, YYYYMMDDHHMMSS with the month from 0, then S
 * (standard time) or D (daylight saving), as Unix seconds. */
static int set_date(char *field, const char *v, size_t n)
{
    static const int WIDTH[] = {4, 2, 2, 2, 2, 2};
    int part[6];
    if (n != 15 || (v[14] != 'S' && v[14] != 'D'))
        return -1;
    for (size_t i = 0, at = 0; i < 6; at += (size_t)WIDTH[i++]) {
        part[i] = 0;
        for (int d = 0; d < WIDTH[i]; d++) {
            if (v[at + (size_t)d] < '0' || v[at + (size_t)d] > '9')
                return -1;
            part[i] = part[i] * 10 + (v[at + (size_t)d] - '0');
        }
    }
    struct tm tm = {.tm_year = part[0] - 1900,
                    .tm_mon = part[1],
                    .tm_mday = part[2],
                    .tm_hour = part[3],
                    .tm_min = part[4],
                    .tm_sec = part[5],
                    .tm_isdst = v[14] == 'D'};
    if (part[1] > 11 || part[2] < 1 || part[2] > 31 || part[3] > 23 || part[4] > 59 || part[5] > 60)
        return -1;
    int64_t t = (int64_t)mktime(&tm);
    memcpy(field, &t, sizeof t);
    return 0;
}

static int set_number(const xfield_t *f, char *field, const char *v, size_t n)
{
    if (f->kind == X_DATE)
        return set_date(field, v, n);
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

/* The length of the field at f (n bytes left): up to sep, where with ':'
 * a "::" is a ':' of the value, not the end. */
static size_t field_len(const char *f, size_t n, char sep)
{
    for (size_t i = 0; i < n; i++) {
        if (f[i] != sep)
            continue;
        if (sep == ':' && i + 1 < n && f[i + 1] == ':') {
            i++;
            continue;
        }
        return i;
    }
    return n;
}

/* Crawl's ends that say more than "killed by": its ktyp, what to say. */
static const struct {
    const char *ktyp, *says;
} CRAWL_ENDS[] = {
    {"winning", "escaped with the Orb"},  {"leaving", "got out of the dungeon alive"},
    {"quitting", "quit the game"},        {"starvation", "starved to death"},
    {"pois", "succumbed to poison"},      {"water", "drowned"},
    {"lava", "burnt to a crisp in lava"}, {"falling_down_stairs", "fell down a flight of stairs"},
};

/* death from Crawl's ktyp and killer: "quit the game", "killed by a
 * jackal", else "died (KTYP)". */
static void crawl_death(xlog_row_t *row)
{
    for (size_t i = 0; i < sizeof CRAWL_ENDS / sizeof CRAWL_ENDS[0]; i++)
        if (!strcmp(row->ktyp, CRAWL_ENDS[i].ktyp)) {
            snprintf(row->death, sizeof row->death, "%s", CRAWL_ENDS[i].says);
            return;
        }
    if (row->killer[0])
        snprintf(row->death, sizeof row->death, "killed by %s", row->killer);
    else
        snprintf(row->death, sizeof row->death, "died (%s)", row->ktyp);
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
        const char *f = line + at;
        size_t n = field_len(f, len - at, sep);
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
            set_text(dst, x->size, eq + 1, vlen, sep == ':');
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
    if (!row->death[0])
        crawl_death(row);
    return 0;
}
