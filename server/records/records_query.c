/* records_query — score page URLs and HTML escaping (records_query.h). */
#include <stdio.h>
#include <string.h>
#include "records_query.h"

typedef struct {
    const char *name;
    int64_t secs;
} period_t;

static const period_t periods[] = {
    {"all", 0}, {"day", 86400}, {"week", 7 * 86400}, {"month", 30 * 86400}, {"year", 365 * 86400},
};

static bool all_of(const char *s, size_t n, const char *extra)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr(extra, c);
        if (!ok || c == '\0')
            return false;
    }
    return true;
}

static int fail(char *err, size_t errlen, int status, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return status;
}

/* A decimal id of 1..15 digits, no sign, no leading zero; n bytes of s. */
static bool parse_id(const char *s, size_t n, int64_t *id)
{
    if (n == 0 || n > 15 || s[0] == '0')
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *id = v;
    return true;
}

static int parse_game(const char *rest, bool api, rq_t *q, char *err, size_t errlen)
{
    size_t n = strcspn(rest, "/.");
    if (!parse_id(rest, n, &q->id))
        return fail(err, errlen, 400, "bad game id: a game id is a positive decimal number");
    const char *tail = rest + n;
    static const struct {
        const char *tail;
        bool api;
        rq_page_t page;
    } tails[] = {
        {"", false, RQ_GAME},
        {"", true, RQ_GAME},
        {"/dump", false, RQ_GAME_DUMP},
        {".cast", false, RQ_GAME_CAST},
        {"/replay", false, RQ_GAME_REPLAY},
        {"/replay", true, RQ_GAME_FRAMES},
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++)
        if (tails[i].api == api && strcmp(tail, tails[i].tail) == 0) {
            q->page = tails[i].page;
            return 0;
        }
    return fail(err, errlen, 404, "no such page");
}

static int parse_player(const char *rest, rq_t *q, char *err, size_t errlen)
{
    size_t n = strlen(rest);
    if (n < 2 || n > 20 || !all_of(rest, n, "0123456789_-"))
        return fail(err, errlen, 400, "bad player name: 2-20 letters, digits, _ or -");
    memcpy(q->name, rest, n + 1);
    q->page = RQ_PLAYER;
    return 0;
}

/* One "name=value" query argument of /scores. */
static int scores_arg(const char *a, rq_t *q, char *err, size_t errlen)
{
    const char *eq = strchr(a, '=');
    size_t kl = eq ? (size_t)(eq - a) : strlen(a);
    const char *v = eq ? eq + 1 : "";
    size_t vl = strlen(v);
    char *dst = NULL;
    if (kl == 4 && memcmp(a, "race", 4) == 0)
        dst = q->race;
    else if (kl == 5 && memcmp(a, "class", 5) == 0)
        dst = q->cls;
    else if (kl == 6 && memcmp(a, "period", 6) == 0) {
        for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++)
            if (strcmp(v, periods[i].name) == 0 || (vl == 0 && i == 0)) {
                q->period = periods[i].name;
                q->period_secs = periods[i].secs;
                return 0;
            }
        return fail(err, errlen, 400, "bad period: one of all, day, week, month, year");
    } else
        return 0; /* unknown arguments are ignored */
    if (vl > 15 || !all_of(v, vl, "_-"))
        return fail(err, errlen, 400,
                    kl == 4 ? "bad race: up to 15 letters" : "bad class: up to 15 letters");
    memcpy(dst, v, vl + 1);
    return 0;
}

static bool starts(const char *s, const char *prefix, const char **rest)
{
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0)
        return false;
    *rest = s + n;
    return true;
}

int rq_parse(const char *path, const char *const *args, int nargs, rq_t *q, char *err,
             size_t errlen)
{
    memset(q, 0, sizeof *q);
    q->period = periods[0].name;
    if (err && errlen)
        err[0] = '\0';
    const char *p = path ? path : "", *rest;
    if (starts(p, "/api/", &rest)) {
        q->api = true;
        p = rest - 1;
    }
    if (strcmp(p, "/scores") == 0) {
        q->page = RQ_SCORES;
        for (int i = 0; i < nargs; i++) {
            int rc = args && args[i] ? scores_arg(args[i], q, err, errlen) : 0;
            if (rc)
                return rc;
        }
        return 0;
    }
    if (starts(p, "/player/", &rest))
        return parse_player(rest, q, err, errlen);
    if (starts(p, "/game/", &rest))
        return parse_game(rest, q->api, q, err, errlen);
    return -1;
}

void html_escape(buf_t *out, const char *s, size_t len)
{
    static const char *const ent[] = {
        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;"};
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool special = c < sizeof ent / sizeof ent[0] && ent[c];
        bool drop = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F;
        if (!special && !drop)
            continue;
        buf_put(out, s + start, i - start);
        if (special)
            buf_puts(out, ent[c]);
        start = i + 1;
    }
    buf_put(out, s + start, len - start);
}

void url_escape(buf_t *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            buf_putc(out, (char)c);
            continue;
        }
        buf_putc(out, '%');
        buf_putc(out, hex[c >> 4]);
        buf_putc(out, hex[c & 15]);
    }
}
