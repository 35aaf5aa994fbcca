/* web_json — a strict recursive-descent checker; see web_json.h. */
#include "web_json.h"
#include <string.h>

typedef struct {
    const unsigned char *p, *end;
} jcur_t;

static void skip_ws(jcur_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool is_hex(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

/* One UTF-8 sequence starting at c->p (a byte >= 0x80): shortest forms only,
 * no surrogates, nothing past U+10FFFF. */
static bool utf8_seq(jcur_t *c)
{
    unsigned char b = *c->p;
    int n = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC2 ? 1 : -1;
    if (n < 0 || b > 0xF4 || c->end - c->p <= n)
        return false;
    unsigned long cp = b & (0x3F >> n);
    for (int i = 1; i <= n; i++) {
        if ((c->p[i] & 0xC0) != 0x80)
            return false;
        cp = (cp << 6) | (c->p[i] & 0x3F);
    }
    static const unsigned long min[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return false;
    c->p += n + 1;
    return true;
}

static bool parse_string(jcur_t *c)
{
    c->p++; /* opening quote */
    while (c->p < c->end) {
        unsigned char ch = *c->p;
        if (ch == '"') {
            c->p++;
            return true;
        }
        if (ch < 0x20)
            return false;
        if (ch == '\\') {
            if (c->end - c->p < 2)
                return false;
            unsigned char e = c->p[1];
            if (e == 'u') {
                if (c->end - c->p < 6)
                    return false;
                for (int i = 2; i < 6; i++)
                    if (!is_hex(c->p[i]))
                        return false;
                c->p += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                c->p += 2;
            } else {
                return false;
            }
        } else if (ch >= 0x80) {
            if (!utf8_seq(c))
                return false;
        } else {
            c->p++;
        }
    }
    return false;
}

static bool parse_digits(jcur_t *c)
{
    const unsigned char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s;
}

static bool parse_number(jcur_t *c)
{
    if (*c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!parse_digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!parse_digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!parse_digits(c))
            return false;
    }
    return true;
}

static bool parse_word(jcur_t *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
        return false;
    c->p += n;
    return true;
}

static bool parse_value(jcur_t *c, int depth);

/* Object or array body after the opening bracket. */
static bool parse_container(jcur_t *c, int depth, bool object)
{
    char close = object ? '}' : ']';
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        if (object) {
            skip_ws(c);
            if (c->p >= c->end || *c->p != '"' || !parse_string(c))
                return false;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':')
                return false;
            c->p++;
        }
        if (!parse_value(c, depth + 1))
            return false;
        skip_ws(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == close) {
            c->p++;
            return true;
        }
        if (*c->p != ',')
            return false;
        c->p++;
    }
}

static bool parse_value(jcur_t *c, int depth)
{
    if (depth > WEB_JSON_DEPTH)
        return false;
    skip_ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{': return parse_container(c, depth, true);
    case '[': return parse_container(c, depth, false);
    case '"': return parse_string(c);
    case 't': return parse_word(c, "true");
    case 'f': return parse_word(c, "false");
    case 'n': return parse_word(c, "null");
    default:
        if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'))
            return parse_number(c);
        return false;
    }
}

bool web_json_is_object(const char *s, size_t n)
{
    jcur_t c = {(const unsigned char *)s, (const unsigned char *)s + n};
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{' || !parse_value(&c, 1))
        return false;
    skip_ws(&c);
    return c.p == c.end;
}

int web_json_member(const char *s, size_t n, const char *key, const char **val, size_t *vlen)
{
    jcur_t c = {(const unsigned char *)s, (const unsigned char *)s + n};
    size_t klen = strlen(key);
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return -1;
    c.p++;
    for (;;) {
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '"')
            return -1;
        const unsigned char *k = c.p + 1;
        if (!parse_string(&c))
            return -1;
        bool match = (size_t)(c.p - 1 - k) == klen && memcmp(k, key, klen) == 0;
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ':')
            return -1;
        c.p++;
        skip_ws(&c);
        const unsigned char *v = c.p;
        if (!parse_value(&c, 2))
            return -1;
        if (match) {
            *val = (const char *)v;
            *vlen = (size_t)(c.p - v);
            return 0;
        }
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ',')
            return -1;
        c.p++;
    }
}

bool web_json_str_is(const char *s, size_t n, const char *key, const char *want)
{
    const char *v;
    size_t vl, wl = strlen(want);
    if (web_json_member(s, n, key, &v, &vl) < 0)
        return false;
    return vl == wl + 2 && v[0] == '"' && memcmp(v + 1, want, wl) == 0;
}

int web_json_int(const char *s, size_t n, const char *key, long lo, long hi, long *out)
{
    const char *v;
    size_t vl;
    if (web_json_member(s, n, key, &v, &vl) < 0 || vl == 0 || vl > 12)
        return -1;
    long x = 0;
    size_t i = v[0] == '-';
    if (i == vl)
        return -1;
    for (; i < vl; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (v[i] - '0');
    }
    if (v[0] == '-')
        x = -x;
    if (x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = (unsigned char)p[i];
        v = v << 4 | (unsigned)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return v;
}

/* Appends code point cp as UTF-8; false when it does not fit. */
static bool put_utf8(char *out, size_t cap, size_t *o, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80)
        b[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    if (*o + n >= cap)
        return false;
    memcpy(out + *o, b, n);
    *o += n;
    return true;
}

/* One escape at v[i] == '\\' (already checked by parse_string); returns the
 * input bytes used, or 0 when the output is full. */
static size_t unescape(const char *v, size_t i, size_t end, char *out, size_t cap, size_t *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char e = v[i + 1];
    if (e != 'u') {
        const char *k = strchr(from, e);
        return put_utf8(out, cap, o, (unsigned char)to[k - from]) ? 2 : 0;
    }
    unsigned cp = hex4(v + i + 2);
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 12 <= end && v[i + 6] == '\\' && v[i + 7] == 'u') {
        unsigned lo = hex4(v + i + 8);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            used = 12;
        }
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        cp = 0xFFFD;
    return put_utf8(out, cap, o, cp) ? used : 0;
}

int web_json_string(const char *s, size_t n, const char *key, char *out, size_t cap)
{
    const char *v;
    size_t vl, o = 0;
    if (!cap || web_json_member(s, n, key, &v, &vl) < 0 || vl < 2 || v[0] != '"')
        return -1;
    for (size_t i = 1; i + 1 < vl;) {
        if (v[i] == '\\') {
            size_t used = unescape(v, i, vl - 1, out, cap, &o);
            if (!used)
                return -1;
            i += used;
            continue;
        }
        if (o + 1 >= cap)
            return -1;
        out[o++] = v[i++];
    }
    out[o] = 0;
    return (int)o;
}

int web_json_bool(const char *s, size_t n, const char *key, bool *out)
{
    const char *v;
    size_t vl;
    if (web_json_member(s, n, key, &v, &vl) < 0)
        return -1;
    if (vl == 4 && memcmp(v, "true", 4) == 0)
        *out = true;
    else if (vl == 5 && memcmp(v, "false", 5) == 0)
        *out = false;
    else
        return -1;
    return 0;
}
