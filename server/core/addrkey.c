/* addrkey — the key per-address limits charge; see addrkey.h. */
#include "addrkey.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void copy_cut(char *out, size_t outlen, const char *s)
{
    if (outlen)
        snprintf(out, outlen, "%s", s ? s : "");
}

/* A scope id as the kernel names interfaces (or their index): at most
 * IF_NAMESIZE - 1 bytes of [A-Za-z0-9._-]. */
static bool scope_ok(const char *s, size_t n)
{
    if (n == 0 || n >= IF_NAMESIZE)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
            return false;
    return true;
}

/* Clears every bit of the 16-byte address past the first bits. */
static void mask6(unsigned char a[16], int bits)
{
    for (int i = 0; i < 16; i++) {
        int keep = bits - i * 8;
        a[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (unsigned char)(0xff << (8 - keep));
    }
}

/* The key of the IPv6 address text a (no scope), with scope (n bytes) after. */
static int key6(const char *a, const char *scope, size_t n, int bits, char *out, size_t outlen)
{
    unsigned char bin[16];
    char text[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET6, a, bin) != 1)
        return -1;
    if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)bin))
        return inet_ntop(AF_INET, bin + 12, out, (socklen_t)outlen) ? 0 : -1;
    mask6(bin, bits);
    if (!inet_ntop(AF_INET6, bin, text, sizeof text))
        return -1;
    char len[8] = "";
    if (bits < ADDRKEY_V6_MAX)
        snprintf(len, sizeof len, "/%d", bits);
    int w = snprintf(out, outlen, "%s%s%s%.*s", text, len, n ? "%" : "", (int)n, scope);
    return w > 0 && (size_t)w < outlen ? 0 : -1;
}

int addrkey(const char *addr, int v6_bits, char *out, size_t outlen)
{
    char a[INET6_ADDRSTRLEN];
    unsigned char bin[4];
    int bits = v6_bits < ADDRKEY_V6_MIN   ? ADDRKEY_V6_MIN
               : v6_bits > ADDRKEY_V6_MAX ? ADDRKEY_V6_MAX
                                          : v6_bits;
    size_t n = addr ? strcspn(addr, "%") : 0;
    int ret = -1;
    if (n > 0 && n < sizeof a && out && outlen > 0) {
        memcpy(a, addr, n);
        a[n] = 0;
        const char *scope = addr[n] ? addr + n + 1 : "";
        size_t sn = strlen(scope);
        if (inet_pton(AF_INET, a, bin) == 1)
            ret = addr[n] ? -1 : inet_ntop(AF_INET, bin, out, (socklen_t)outlen) ? 0 : -1;
        else if (!addr[n] || scope_ok(scope, sn))
            ret = key6(a, scope, sn, bits, out, outlen);
    }
    if (ret < 0)
        copy_cut(out, outlen, addr);
    return ret;
}
