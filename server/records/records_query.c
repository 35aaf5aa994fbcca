/* records_query — score page URLs and HTML escaping (records_query.h). */
#include <stdio.h>
#include <string.h>
#include "records_query.h"
#include "web_parse.h"

typedef struct {
    const char *name;
    int64_t secs;
    const char *words;
} period_t;

static const period_t periods[] = {
    {"all", 0, "all time"},
    {"day", 86400, "the last 24 hours"},
    {"week", 7 * 86400, "the last 7 days"},
    {"month", 30 * 86400, "the last 30 days"},
    {"year", 365 * 86400, "the last 365 days"},
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

int rq_game_error(const char *rest, char *err, size_t errlen)
{
    int64_t id;
    if (!web_parse_id(rest, strcspn(rest, "/."), &id))
        return fail(err, errlen, 400, "bad game id: a game id is a positive decimal number");
    return fail(err, errlen, 404, "no such page");
}

int rq_player_name(const char *rest, char name[24], char *err, size_t errlen)
{
    size_t n = strlen(rest);
    name[0] = '\0';
    if (n < 2 || n > 20 || !all_of(rest, n, "0123456789_-"))
        return fail(err, errlen, 400, "bad player name: 2-20 letters, digits, _ or -");
    memcpy(name, rest, n + 1);
    return 0;
}

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int month_days(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

int rq_daily_date(const char *rest, char day[11], char *err, size_t errlen)
{
    day[0] = '\0';
    if (strlen(rest) != 10 || rest[4] != '-' || rest[7] != '-')
        return fail(err, errlen, 400, "bad date: a date is YYYY-MM-DD (UTC), e.g. 2026-11-28");
    int y = digits(rest, 4), m = digits(rest + 5, 2), d = digits(rest + 8, 2);
    if (y < 2000 || m < 1 || m > 12 || d < 1 || d > month_days(y, m))
        return fail(err, errlen, 400, "bad date: no such day (YYYY-MM-DD, years 2000-9999)");
    memcpy(day, rest, 11);
    return 0;
}

/* One "name=value" query argument of /scores. */
static int scores_arg(const char *a, rq_filter_t *q, char *err, size_t errlen)
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
                q->period_words = periods[i].words;
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

int rq_scores_filter(const char *const *args, int nargs, rq_filter_t *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->period = periods[0].name;
    f->period_words = periods[0].words;
    if (err && errlen)
        err[0] = '\0';
    for (int i = 0; i < nargs; i++) {
        int ret = args && args[i] ? scores_arg(args[i], f, err, errlen) : 0;
        if (ret)
            return ret;
    }
    return 0;
}
