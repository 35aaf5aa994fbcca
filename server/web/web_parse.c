/* web_parse — request text readers for the web gateway; see web_parse.h. */
#include "web_parse.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void web_copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

bool web_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > WEB_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool web_parse_id(const char *s, size_t n, int64_t *id)
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

bool web_file_ok(const char *s, size_t n)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    if (n == 0 || n > 100 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!s[i] || !strchr(ok, s[i]) || (s[i] == '.' && i + 1 < n && s[i + 1] == '.'))
            return false;
    return true;
}

/* Whether s[0..n) is a parameter of the kind named kind[0..klen). */
static bool param_ok(const char *kind, size_t klen, const char *s, size_t n)
{
    int64_t id;
    if (klen == 1 && kind[0] == '*')
        return true;
    if (klen == 4 && memcmp(kind, "name", 4) == 0)
        return web_name_ok(s, n);
    if (klen == 3 && memcmp(kind, "who", 3) == 0) { /* NAME or NAME/GAME */
        const char *slash = memchr(s, '/', n);
        size_t a = slash ? (size_t)(slash - s) : n;
        return web_name_ok(s, a) && (!slash || web_name_ok(slash + 1, n - a - 1));
    }
    if (klen == 2 && memcmp(kind, "id", 2) == 0)
        return web_parse_id(s, n, &id);
    if (klen == 4 && memcmp(kind, "file", 4) == 0)
        return web_file_ok(s, n);
    return false; /* a pattern with an unknown kind matches nothing */
}

bool web_route_match(const char *pattern, const char *path, char *param, size_t cap)
{
    param[0] = 0;
    size_t pre = strcspn(pattern, "{*");
    if (!pattern[pre])
        return strcmp(pattern, path) == 0;
    const char *kind = pattern + pre + (pattern[pre] == '{');
    size_t klen = pattern[pre] == '{' ? strcspn(kind, "}") : 1;
    if (pattern[pre] == '{' && kind[klen] != '}')
        return false; /* not a pattern */
    const char *suffix = kind + klen + (pattern[pre] == '{');
    size_t plen = strlen(path), slen = strlen(suffix);
    if (plen < pre + slen || strncmp(path, pattern, pre) != 0 ||
        strcmp(path + plen - slen, suffix) != 0)
        return false;
    size_t n = plen - pre - slen;
    if (!param_ok(kind, klen, path + pre, n))
        return false;
    if (n >= cap)
        n = cap - 1;
    memcpy(param, path + pre, n);
    param[n] = 0;
    return true;
}

const web_route_t *web_route_find(const web_route_t *routes, size_t n, unsigned method,
                                  const char *path, char *param, size_t cap)
{
    for (size_t i = 0; i < n; i++)
        if ((routes[i].methods & method) && web_route_match(routes[i].pattern, path, param, cap))
            return &routes[i];
    param[0] = 0;
    return NULL;
}

/* Whether path is "/" and segments of web_name_ok's characters. */
static bool path_plain(const char *path)
{
    if (path[0] != '/')
        return false;
    for (const char *p = path + 1;;) {
        size_t n = strcspn(p, "/");
        if (!web_name_ok(p, n))
            return false;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

unsigned web_ws_refusal(const web_route_t *routes, size_t n, const char *path)
{
    char param[WEB_WHO_MAX + 1];
    if (web_route_find(routes, n, WEB_WS, path, param, sizeof param))
        return 0;
    return path_plain(path) ? 404 : 400;
}

bool web_origin_matches(const char *origin, const char *host)
{
    const char *o = strstr(origin, "://");
    return o && strcmp(o + 3, host) == 0;
}

/* A session token is plain base64url-ish text. */
static bool token_ok(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] == '-' || v[i] == '_' || (v[i] >= '0' && v[i] <= '9') ||
              ((v[i] | 0x20) >= 'a' && (v[i] | 0x20) <= 'z')))
            return false;
    return true;
}

void web_cookie_find(const char *hdr, char *out, size_t outlen)
{
    out[0] = 0;
    const size_t kl = strlen(WEB_COOKIE_NAME);
    for (const char *p = hdr; *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        if (strncmp(p, WEB_COOKIE_NAME, kl) == 0 && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t vl = strcspn(v, ";");
            while (vl && v[vl - 1] == ' ')
                vl--;
            if (vl < outlen && token_ok(v, vl)) {
                memcpy(out, v, vl);
                out[vl] = 0;
            }
            return;
        }
        p += strcspn(p, ";");
    }
}

bool web_addr_canon(const char *s, size_t n, char *out, size_t outlen)
{
    char in[INET6_ADDRSTRLEN + 1];
    unsigned char bin[16];
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= sizeof in || outlen < INET6_ADDRSTRLEN)
        return false;
    memcpy(in, s, n);
    in[n] = 0;
    if (inet_pton(AF_INET, in, bin) == 1)
        return inet_ntop(AF_INET, bin, out, (socklen_t)outlen) != NULL;
    if (inet_pton(AF_INET6, in, bin) != 1)
        return false;
    if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)bin))
        return inet_ntop(AF_INET, bin + 12, out, (socklen_t)outlen) != NULL;
    return inet_ntop(AF_INET6, bin, out, (socklen_t)outlen) != NULL;
}

bool web_addr_listed(const char *addr, const char *list)
{
    char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
    if (!list || !web_addr_canon(addr, strlen(addr), a, sizeof a))
        return false;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (web_addr_canon(p, n, b, sizeof b) && strcmp(a, b) == 0)
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

bool web_client_addr(const char *peer, const char *xff, const char *trusted, char *out,
                     size_t outlen)
{
    web_copy_str(out, outlen, peer);
    if (!xff || !web_addr_listed(peer, trusted))
        return false;
    /* right to left: each trusted hop vouches for the one before it */
    char addr[INET6_ADDRSTRLEN];
    for (size_t end = strlen(xff); end > 0;) {
        size_t start = end;
        while (start > 0 && xff[start - 1] != ',')
            start--;
        if (!web_addr_canon(xff + start, end - start, addr, sizeof addr))
            return false; /* not an address: believe nothing of it */
        if (!web_addr_listed(addr, trusted) || start == 0) {
            web_copy_str(out, outlen, addr);
            return true;
        }
        end = start - 1;
    }
    return false;
}

bool web_forwarded_https(const char *proto)
{
    const char *last = proto ? strrchr(proto, ',') : NULL;
    last = last ? last + 1 : proto;
    if (!last)
        return false;
    while (*last == ' ' || *last == '\t')
        last++;
    size_t n = strcspn(last, " \t");
    return n == 5 && strncasecmp(last, "https", 5) == 0 && last[n + strspn(last + n, " \t")] == 0;
}

bool web_referer_matches(const char *referer, const char *host)
{
    const char *o = strstr(referer, "://");
    if (!o)
        return false;
    o += 3;
    size_t n = strcspn(o, "/?#");
    return strlen(host) == n && strncmp(o, host, n) == 0;
}

void web_referer_path(const char *referer, const char *host, char *out, size_t cap)
{
    out[0] = 0;
    if (!web_referer_matches(referer, host))
        return;
    const char *p = strstr(referer, "://") + 3;
    p += strcspn(p, "/?#");
    if (*p == '/' && strcspn(p, "#") < cap)
        snprintf(out, cap, "%.*s", (int)strcspn(p, "#"), p);
}

/* ---- the head of a request ------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The request line's target (line: n bytes, no line end) as
 * libwebsockets would read it: its parameters (lws keeps each in a slot
 * of the table its header fields share), or -1 when a '%' is not two hex
 * digits or is %00 (lws answers the first with a 403 of its own and
 * drops the connection without a word on the second). */
static int target_params(const char *line, size_t n)
{
    const char *sp = memchr(line, ' ', n);
    int params = 0;
    bool query = false;
    for (size_t i = sp ? (size_t)(sp - line) + 1 : n; i < n && line[i] != ' '; i++) {
        if (line[i] == '%' && (i + 2 >= n || hexval(line[i + 1]) < 0 || hexval(line[i + 2]) < 0 ||
                               (line[i + 1] == '0' && line[i + 2] == '0')))
            return -1;
        if (line[i] == '?' && !query)
            query = true, params = 1;
        else if (line[i] == '&' && query)
            params++;
    }
    return params;
}

int web_head_check(const char *buf, size_t len)
{
    size_t at = 0;
    while (at < len && (buf[at] == '\r' || buf[at] == '\n'))
        at++;        /* empty lines before the request line are allowed (RFC 9112 2.2) */
    int fields = -1; /* the request line is not a field */
    int params = 0;  /* ... but its query's parameters count as fields */
    while (at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        if (memchr(buf + at, 0, end - at))
            return WEB_HEAD_BAD;
        if (fields >= 0 && (buf[at] == ' ' || buf[at] == '\t'))
            return WEB_HEAD_BAD; /* obs-fold: a field continued on the next line */
        if (!nl)
            break;
        size_t n = end - at - (end > at && buf[end - 1] == '\r');
        if (n == 0)
            return end + 1 > WEB_HEAD_MAX ? WEB_HEAD_TOO_LARGE : (int)(end + 1);
        if (fields >= 0 && !memchr(buf + at, ':', n))
            return WEB_HEAD_BAD;
        if (fields < 0 && (params = target_params(buf + at, n)) < 0)
            return WEB_HEAD_BAD;
        if (++fields + params > WEB_HEAD_FIELDS)
            return WEB_HEAD_TOO_LARGE;
        at = end + 1;
    }
    return len >= WEB_HEAD_MAX ? WEB_HEAD_TOO_LARGE : WEB_HEAD_MORE;
}

/* Whether the n bytes at s hold word as a comma-separated token, case
 * ignored, spaces and tabs around it allowed. */
static bool has_token(const char *s, size_t n, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i < n;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
            i++;
        size_t end = i;
        while (end < n && s[end] != ',')
            end++;
        size_t e = end;
        while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
            e--;
        if (e - i == wl && strncasecmp(s + i, word, wl) == 0)
            return true;
        i = end;
    }
    return false;
}

bool web_head_upgrade(const char *buf, size_t len)
{
    static const char name[] = "upgrade:";
    const size_t nl = sizeof name - 1;
    for (size_t at = 0; at < len;) {
        const char *eol = memchr(buf + at, '\n', len - at);
        size_t end = eol ? (size_t)(eol - buf) : len;
        size_t n = end - at - (end > at && buf[end - 1] == '\r');
        if (n > nl && strncasecmp(buf + at, name, nl) == 0 &&
            has_token(buf + at + nl, n - nl, "websocket"))
            return true;
        at = end + 1;
    }
    return false;
}

bool web_head_field(const char *buf, size_t len, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name), o = 0;
    bool found = false;
    const char *eol = memchr(buf, '\n', len); /* the request line is no field */
    for (size_t at = eol ? (size_t)(eol - buf) + 1 : len; at < len;) {
        eol = memchr(buf + at, '\n', len - at);
        size_t end = eol ? (size_t)(eol - buf) : len, v = at + nl, e = end;
        if (end - at > nl && strncasecmp(buf + at, name, nl) == 0) {
            while (v < e && (buf[v] == ' ' || buf[v] == '\t'))
                v++;
            while (e > v && (buf[e - 1] == ' ' || buf[e - 1] == '\t' || buf[e - 1] == '\r'))
                e--;
            if (o + (found ? 1 : 0) + (e - v) >= cap)
                return false;
            if (found)
                out[o++] = ',';
            memcpy(out + o, buf + v, e - v);
            o += e - v;
            found = true;
        }
        at = end + 1;
    }
    if (cap)
        out[o] = 0;
    return found;
}

int web_head_body(const char *buf, size_t len)
{
    char v[WEB_HEAD_MAX]; /* any field's values fit: the head is no longer */
    if (web_head_field(buf, len, "transfer-encoding:", v, sizeof v))
        return WEB_HEAD_NO_LENGTH;
    if (!web_head_field(buf, len, "content-length:", v, sizeof v))
        return 0;
    size_t first = strcspn(v, ",");
    if (first == 0 || strspn(v, "0123456789") != first)
        return WEB_HEAD_BAD;
    for (const char *p = v + first; *p; p += first + 1) /* repeats must agree */
        if (strncmp(p + 1, v, first) != 0 || (p[first + 1] && p[first + 1] != ','))
            return WEB_HEAD_BAD;
    return first > 9 || strtol(v, NULL, 10) > WEB_BODY_MAX ? WEB_HEAD_BODY_LARGE : 0;
}

int web_form_get(const char *form, size_t len, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && form[end] != '&')
            end++;
        if (end - i > nl && memcmp(form + i, name, nl) == 0 && form[i + nl] == '=') {
            size_t o = 0;
            for (size_t k = i + nl + 1; k < end; k++) {
                char c = form[k];
                if (c == '+')
                    c = ' ';
                else if (c == '%' && k + 2 < end && hexval(form[k + 1]) >= 0 &&
                         hexval(form[k + 2]) >= 0) {
                    c = (char)(hexval(form[k + 1]) * 16 + hexval(form[k + 2]));
                    k += 2;
                }
                if (o + 1 >= outlen)
                    return -1;
                out[o++] = c;
            }
            out[o] = 0;
            return (int)o;
        }
        i = end + 1;
    }
    return -1;
}

/* ---- Accept-Encoding ------------------------------------------------------------ */

/* The q-value of one "coding;param;..." element: 1 when absent, 0 when
 * "q=0", "q=0.", "q=0.000" (any zeros), else 1. */
static int coding_q(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != ';')
            continue;
        size_t j = i + 1;
        while (j < n && (p[j] == ' ' || p[j] == '\t'))
            j++;
        if (j + 1 >= n || (p[j] != 'q' && p[j] != 'Q') || p[j + 1] != '=')
            continue;
        size_t k = j + 2, end = k;
        while (end < n && p[end] != ';' && p[end] != ' ' && p[end] != '\t')
            end++;
        if (end == k || p[k] != '0')
            return 1;
        for (k++; k < end; k++)
            if (p[k] != '0' && !(p[k] == '.' && k == j + 3))
                return 1;
        return 0;
    }
    return 1;
}

bool web_accepts_gzip(const char *hdr)
{
    int gzip = -1, star = -1;
    for (const char *p = hdr; p && *p;) {
        size_t n = strcspn(p, ",");
        const char *s = p;
        size_t m = n;
        while (m && (*s == ' ' || *s == '\t'))
            s++, m--;
        size_t name = strcspn(s, ";, \t");
        name = name < m ? name : m;
        if ((name == 4 && strncasecmp(s, "gzip", 4) == 0) ||
            (name == 6 && strncasecmp(s, "x-gzip", 6) == 0))
            gzip = gzip > 0 ? gzip : coding_q(s + name, m - name);
        else if (name == 1 && s[0] == '*')
            star = star > 0 ? star : coding_q(s + name, m - name);
        p += n + (p[n] == ',');
    }
    return gzip >= 0 ? gzip > 0 : star > 0;
}
