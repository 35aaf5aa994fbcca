/* statuspat — a hosted game's status pattern (statuspat.h), on PCRE2. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "statuspat.h"
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A screen is a few KB: these bound what one bad pattern can cost. */
#define MATCH_LIMIT 100000
#define DEPTH_LIMIT 10000

struct statuspat {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
    int depth_group, turn_group; /* group numbers, or -1 */
};

static int group(const pcre2_code *code, const char *name)
{
    int n = pcre2_substring_number_from_name(code, (PCRE2_SPTR)name);
    return n > 0 ? n : -1;
}

statuspat_t *statuspat_new(const char *pattern, char *err, size_t errlen)
{
    int code;
    PCRE2_SIZE at;
    statuspat_t *p = calloc(1, sizeof *p);
    if (!p)
        return snprintf(err, errlen, "out of memory"), NULL;
    p->code =
        pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
    if (!p->code) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(err, errlen, "at offset %zu: %s", (size_t)at, (const char *)msg);
        free(p);
        return NULL;
    }
    p->depth_group = group(p->code, "depth");
    p->turn_group = group(p->code, "turn");
    p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    p->mc = pcre2_match_context_create(NULL);
    if (!p->md || !p->mc) {
        snprintf(err, errlen, "out of memory");
    } else if (p->depth_group < 0 && p->turn_group < 0) {
        snprintf(err, errlen, "it names no group (?<depth>...) or (?<turn>...)");
    } else {
        pcre2_set_match_limit(p->mc, MATCH_LIMIT);
        pcre2_set_depth_limit(p->mc, DEPTH_LIMIT);
        return p;
    }
    statuspat_free(p);
    return NULL;
}

void statuspat_free(statuspat_t *p)
{
    if (!p)
        return;
    pcre2_match_context_free(p->mc);
    pcre2_match_data_free(p->md);
    pcre2_code_free(p->code);
    free(p);
}

/* The decimal number group n captured in text, if it took part (digits
 * past what fits in max are ignored, so a long run saturates). */
static bool number(statuspat_t *p, const char *text, int n, uint64_t max, uint64_t *out)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
    if (n < 0 || (uint32_t)n >= pcre2_get_ovector_count(p->md) || ov[2 * n] == PCRE2_UNSET)
        return false;
    uint64_t v = 0;
    bool any = false;
    for (PCRE2_SIZE i = ov[2 * n]; i < ov[2 * n + 1]; i++) {
        if (text[i] < '0' || text[i] > '9')
            continue; /* "(?<turn>[\d,]+)": the digits count */
        any = true;
        v = v > (max - 9) / 10 ? max : v * 10 + (uint64_t)(text[i] - '0');
    }
    if (any)
        *out = v;
    return any;
}

bool statuspat_match(statuspat_t *p, const char *text, size_t len, int *depth, uint64_t *turn)
{
    if (!p || pcre2_match(p->code, (PCRE2_SPTR)text, len, 0, 0, p->md, p->mc) < 0)
        return false;
    uint64_t d;
    if (number(p, text, p->depth_group, 1000000, &d))
        *depth = (int)d;
    number(p, text, p->turn_group, UINT64_MAX / 2, turn);
    return true;
}
