/* proxyproto — the PROXY protocol header and proxy-from networks; see
 * proxyproto.h. Layout from HAProxy's proxy-protocol.txt: v2 is a 12-byte
 * signature, a version/command byte, a family/transport byte, a 16-bit
 * length and then that many bytes (addresses first, TLVs after). */
#include "proxyproto.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t V2_SIG[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D,
                                   0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
static const char V1_SIG[] = "PROXY ";

#define V2_PREFIX 16

/* ::ffff:a.b.c.d (compared by bytes: a buffer need not be aligned) */
static bool v4_mapped(const uint8_t *a)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    return memcmp(a, prefix, sizeof prefix) == 0;
}

static int bad(const char **why, const char *msg)
{
    *why = msg;
    return PROXY_BAD;
}

/* An address of family (AF_INET/AF_INET6) as text; an IPv4 address mapped
 * into IPv6 is written as IPv4, as the listener writes peers. */
static void addr_text(int family, const uint8_t *a, char *out)
{
    if (family == AF_INET6 && v4_mapped(a)) {
        family = AF_INET;
        a += 12;
    }
    if (!inet_ntop(family, a, out, PROXY_ADDR_MAX))
        snprintf(out, PROXY_ADDR_MAX, "?");
}

/* ---- version 2 ------------------------------------------------------------------------ */

/* The addresses block of a PROXY command: family 1 (IPv4) or 2 (IPv6);
 * 0 (unspecified) and 3 (Unix) name no address we can use. */
static int v2_addresses(const uint8_t *p, size_t n, int fam, proxy_client_t *out, const char **why)
{
    if (fam == 0 || fam == 3) {
        out->local = true;
        return 0;
    }
    size_t need = fam == 1 ? 12 : 36, alen = fam == 1 ? 4 : 16;
    if (n < need)
        return bad(why, "PROXY v2 header: address block too short");
    addr_text(fam == 1 ? AF_INET : AF_INET6, p, out->addr);
    out->port = (unsigned)p[2 * alen] << 8 | p[2 * alen + 1];
    return 0;
}

static int v2_parse(const uint8_t *buf, size_t len, proxy_client_t *out, const char **why)
{
    if (len < V2_PREFIX)
        return PROXY_MORE;
    int ver = buf[12] >> 4, cmd = buf[12] & 0x0F, fam = buf[13] >> 4, proto = buf[13] & 0x0F;
    size_t body = (size_t)buf[14] << 8 | buf[15];
    if (ver != 2)
        return bad(why, "PROXY v2 header: unknown version");
    if (cmd > 1 || fam > 3 || proto > 2)
        return bad(why, "PROXY v2 header: unknown command or family");
    if (V2_PREFIX + body > PROXY_HEADER_MAX)
        return bad(why, "PROXY v2 header: too long");
    if (len < V2_PREFIX + body)
        return PROXY_MORE;
    if (cmd == 0) { /* LOCAL: the balancer's own connection (a health check) */
        out->local = true;
        return (int)(V2_PREFIX + body);
    }
    if (proto == 2)
        return bad(why, "PROXY v2 header: a datagram on a stream");
    if (v2_addresses(buf + V2_PREFIX, body, fam, out, why))
        return PROXY_BAD;
    return (int)(V2_PREFIX + body);
}

/* ---- version 1 ------------------------------------------------------------------------ */

/* A port in decimal, 0..65535, no sign, no leading zero; -1 if not. */
static long v1_port(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 5 || strspn(s, "0123456789") != n || (n > 1 && s[0] == '0'))
        return -1;
    long v = strtol(s, NULL, 10);
    return v <= 65535 ? v : -1;
}

/* "TCP4 SRC DST SPORT DPORT" (the line after "PROXY ", without CRLF). */
static int v1_fields(char *line, proxy_client_t *out, const char **why)
{
    char *f[6];
    int n = 0;
    for (char *p = line; n < 6; n++) {
        f[n] = p;
        char *sp = strchr(p, ' ');
        if (!sp) {
            n++;
            break;
        }
        *sp = 0;
        p = sp + 1;
    }
    if (!strcmp(f[0], "UNKNOWN")) {
        out->local = true;
        return 0;
    }
    int family = !strcmp(f[0], "TCP4") ? AF_INET : !strcmp(f[0], "TCP6") ? AF_INET6 : 0;
    uint8_t src[16], dst[16];
    if (!family || n != 5)
        return bad(why, "PROXY v1 header: expected TCP4 or TCP6 and four fields");
    long sport = v1_port(f[3]);
    if (inet_pton(family, f[1], src) != 1 || inet_pton(family, f[2], dst) != 1 || sport < 0 ||
        v1_port(f[4]) < 0)
        return bad(why, "PROXY v1 header: bad address or port");
    addr_text(family, src, out->addr);
    out->port = (unsigned)sport;
    return 0;
}

static int v1_parse(const uint8_t *buf, size_t len, proxy_client_t *out, const char **why)
{
    size_t n = len < PROXY_V1_MAX ? len : PROXY_V1_MAX;
    const uint8_t *cr = memchr(buf, '\r', n);
    if (!cr)
        return len >= PROXY_V1_MAX ? bad(why, "PROXY v1 header: no end of line") : PROXY_MORE;
    size_t at = (size_t)(cr - buf);
    if (at + 1 >= len)
        return PROXY_MORE;
    if (buf[at + 1] != '\n')
        return bad(why, "PROXY v1 header: CR without LF");
    char line[PROXY_V1_MAX + 1];
    size_t ln = at - (sizeof V1_SIG - 1);
    memcpy(line, buf + sizeof V1_SIG - 1, ln);
    line[ln] = 0;
    if (strlen(line) != ln)
        return bad(why, "PROXY v1 header: NUL byte");
    if (v1_fields(line, out, why))
        return PROXY_BAD;
    return (int)(at + 2);
}

/* ---- either ---------------------------------------------------------------------------- */

int proxy_parse(const uint8_t *buf, size_t len, proxy_client_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    size_t v2 = len < sizeof V2_SIG ? len : sizeof V2_SIG;
    size_t v1 = len < sizeof V1_SIG - 1 ? len : sizeof V1_SIG - 1;
    if (len == 0)
        return PROXY_MORE;
    if (memcmp(buf, V2_SIG, v2) == 0)
        return v2 < sizeof V2_SIG ? PROXY_MORE : v2_parse(buf, len, out, why);
    if (memcmp(buf, V1_SIG, v1) == 0)
        return v1 < sizeof V1_SIG - 1 ? PROXY_MORE : v1_parse(buf, len, out, why);
    return bad(why, "no PROXY header from a proxy-from address");
}

/* ---- networks ------------------------------------------------------------------------- */

/* addr as 4 or 16 bytes (an IPv4-mapped IPv6 address as IPv4); 4, 6 or 0. */
static int addr_bytes(const char *addr, uint8_t out[16])
{
    if (inet_pton(AF_INET, addr, out) == 1)
        return 4;
    if (inet_pton(AF_INET6, addr, out) != 1)
        return 0;
    if (v4_mapped(out)) {
        memmove(out, out + 12, 4);
        return 4;
    }
    return 6;
}

/* One "ADDR[/BITS]" (n bytes at s) into *net; 0 or -1. */
static int net_parse(const char *s, size_t n, proxy_net_t *net)
{
    char one[64];
    if (n == 0 || n >= sizeof one)
        return -1;
    memcpy(one, s, n);
    one[n] = 0;
    char *slash = strchr(one, '/');
    if (slash)
        *slash++ = 0;
    int fam = addr_bytes(one, net->addr);
    long max = fam == 4 ? 32 : 128, bits = max;
    bool v6_text = strchr(one, ':') != NULL;
    if (!fam || (v6_text && fam == 4))
        return -1; /* "::ffff:1.2.3.4/8" would be ambiguous: refused */
    if (slash) {
        char *end;
        if (!*slash || strspn(slash, "0123456789") != strlen(slash) || strlen(slash) > 3)
            return -1;
        bits = strtol(slash, &end, 10);
    }
    if (bits > max)
        return -1;
    net->family = (uint8_t)fam;
    net->bits = (uint8_t)bits;
    return 0;
}

int proxy_nets_parse(const char *text, proxy_nets_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    const char *p = text + strspn(text, " \t");
    if (!*p)
        return 0;
    for (;;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, ", \t");
        if (out->n == PROXY_NETS_MAX)
            return *why = "too many networks (at most 32)", -1;
        if (net_parse(p, n, &out->net[out->n]))
            return *why = "expected addresses or networks like 127.0.0.1, 10.0.0.0/8, ::1", -1;
        out->n++;
        p += n;
        p += strspn(p, " \t");
        if (!*p)
            return 0;
        if (*p++ != ',')
            return *why = "expected a comma between networks", -1;
    }
}

static bool net_match(const proxy_net_t *net, int fam, const uint8_t *a)
{
    if (net->family != fam)
        return false;
    int full = net->bits / 8, rest = net->bits % 8;
    if (memcmp(net->addr, a, (size_t)full) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xFF << (8 - rest));
    return (net->addr[full] & mask) == (a[full] & mask);
}

bool proxy_nets_match(const proxy_nets_t *nets, const char *addr)
{
    uint8_t a[16];
    int fam = nets && nets->n ? addr_bytes(addr, a) : 0;
    for (int i = 0; fam && i < nets->n; i++)
        if (net_match(&nets->net[i], fam, a))
            return true;
    return false;
}
