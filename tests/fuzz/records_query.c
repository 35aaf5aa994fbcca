/* Fuzz target: the score pages' URL reader and escapers
 * (server/records_query.c): every request path and query argument under
 * /scores, /player/ and /game/ goes through rq_parse, and every stored text
 * through html_escape. The fuzz build links only protocol/ and game/, so the
 * source is included. Input: a path, then query arguments, separated by
 * newlines. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../server/records/records_query.c"

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
    rq_t q;
    char err[160];
    int rc = rq_parse(parts[0], parts + 1, n - 1, &q, err, sizeof err);
    if (rc == 0) {
        if (q.page < RQ_SCORES || q.page > RQ_GAME_FRAMES || !q.period)
            __builtin_trap();
        if ((q.page == RQ_PLAYER) != (q.name[0] != '\0'))
            __builtin_trap();
        if (q.page >= RQ_GAME && (q.id <= 0 || q.id >= 1000000000000000LL))
            __builtin_trap();
        if (strlen(q.race) > 15 || strlen(q.cls) > 15 || strchr(q.race, '<') || strchr(q.cls, '<'))
            __builtin_trap();
    } else if (rc > 0 && (rc != 400 && rc != 404))
        __builtin_trap();
    else if (rc > 0 && !err[0])
        __builtin_trap();
    free(s);
    return 0;
}
