/* Fuzz target: the score pages' URL readers and escapers
 * (server/records/records_query.c): every query argument of /scores, every
 * /player/ name, every /daily/ date and every /game/ URL no route takes
 * goes through them, and
 * every stored text through html_escape. Input: a path, then query
 * arguments, separated by newlines. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "records_query.h"

static void check_escaped(const char *s, size_t n)
{
    buf_t b;
    buf_init(&b);
    html_escape(&b, s, n);
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] == '<' || b.data[i] == '>' || b.data[i] == '"' || b.data[i] == '\'' ||
            (unsigned char)b.data[i] < 0x09)
            __builtin_trap(); /* markup survived escaping */
    buf_reset(&b);
    url_escape(&b, s);
    for (size_t i = 0; i < b.len; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~%",
                    b.data[i]))
            __builtin_trap();
    buf_free(&b);
}

/* What follows prefix in path (and "/api/" before it), else all of path:
 * what the route table hands the player and bad-game pages as their parameter. */
static const char *after(const char *path, const char *prefix)
{
    if (strncmp(path, "/api/", 5) == 0)
        path += 4;
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 ? path + n : path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    check_escaped(s, size);
    const char *parts[16 + 1];
    int n = 0;
    for (char *p = s, *nl; n <= 16; p = nl + 1) {
        parts[n++] = p;
        if (!(nl = strchr(p, '\n')))
            break;
        *nl = '\0';
    }
    rq_filter_t f;
    char err[160], name[24];
    int ret = rq_scores_filter(parts + 1, n - 1, &f, err, sizeof err);
    if (ret == 0 && (!f.period || strlen(f.race) > 15 || strlen(f.cls) > 15 ||
                     strchr(f.race, '<') || strchr(f.cls, '<')))
        __builtin_trap();
    if (ret && (ret != 400 || !err[0]))
        __builtin_trap();
    ret = rq_player_name(after(parts[0], "/player/"), name, err, sizeof err);
    if (ret == 0 && (strlen(name) < 2 || strlen(name) > 20 || strpbrk(name, "<>&/. \"'")))
        __builtin_trap();
    if (ret && (ret != 400 || !err[0] || name[0]))
        __builtin_trap();
    char day[11];
    ret = rq_daily_date(after(parts[0], "/daily/"), day, err, sizeof err);
    if (ret == 0 &&
        (strlen(day) != 10 || day[4] != '-' || day[7] != '-' || strspn(day, "0123456789-") != 10))
        __builtin_trap();
    if (ret && (ret != 400 || !err[0] || day[0]))
        __builtin_trap();
    ret = rq_game_error(after(parts[0], "/game/"), err, sizeof err);
    if ((ret != 400 && ret != 404) || !err[0])
        __builtin_trap();
    free(s);
    return 0;
}
