/* Unit tests: server/proxyproto — the PROXY protocol header (v2 binary, v1
 * text) a balancer sends first, and proxy-from's networks. */
#include <check.h>
#include <string.h>
#include "proxyproto.h"

static const uint8_t SIG[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D,
                                0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

/* A v2 PROXY header over TCP/IPv4 from 203.0.113.9:40000 to 10.0.0.2:23,
 * with extra bytes of TLVs after the addresses. Returns its length. */
static size_t v2_ipv4(uint8_t *b, size_t tlvs)
{
    memcpy(b, SIG, 12);
    b[12] = 0x21; /* version 2, PROXY */
    b[13] = 0x11; /* IPv4, stream */
    size_t body = 12 + tlvs;
    b[14] = (uint8_t)(body >> 8);
    b[15] = (uint8_t)body;
    const uint8_t a[12] = {203, 0, 113, 9, 10, 0, 0, 2, 0x9C, 0x40, 0, 23};
    memcpy(b + 16, a, 12);
    memset(b + 28, 0xEE, tlvs);
    return 16 + body;
}

START_TEST(v2_ipv4_whole_and_in_pieces)
{
    uint8_t b[64];
    size_t n = v2_ipv4(b, 5);
    proxy_client_t c;
    const char *why = NULL;
    for (size_t k = 0; k < n; k++) /* every prefix is "more", never bad */
        ck_assert_int_eq(proxy_parse(b, k, &c, &why), PROXY_MORE);
    memcpy(b + n, "GET / HTTP/1.1\r\n", 16); /* what follows is not the header's */
    ck_assert_int_eq(proxy_parse(b, n + 16, &c, &why), (int)n);
    ck_assert_str_eq(c.addr, "203.0.113.9");
    ck_assert_uint_eq(c.port, 40000);
    ck_assert(!c.local);
}
END_TEST

START_TEST(v2_ipv6_mapped_and_local)
{
    uint8_t b[64] = {0};
    memcpy(b, SIG, 12);
    b[12] = 0x21;
    b[13] = 0x21; /* IPv6, stream */
    b[15] = 36;
    b[16 + 10] = b[16 + 11] = 0xFF; /* ::ffff:192.0.2.1 */
    b[16 + 12] = 192, b[16 + 13] = 0, b[16 + 14] = 2, b[16 + 15] = 1;
    proxy_client_t c;
    const char *why = NULL;
    ck_assert_int_eq(proxy_parse(b, 52, &c, &why), 52);
    ck_assert_str_eq(c.addr, "192.0.2.1");
    b[16 + 10] = 0x20; /* a real IPv6 address */
    ck_assert_int_eq(proxy_parse(b, 52, &c, &why), 52);
    ck_assert(strchr(c.addr, ':'));
    b[12] = 0x20; /* LOCAL: the balancer's own health check, no client */
    ck_assert_int_eq(proxy_parse(b, 52, &c, &why), 52);
    ck_assert(c.local);
}
END_TEST

START_TEST(v2_broken_headers)
{
    uint8_t b[PROXY_HEADER_MAX + 64];
    proxy_client_t c;
    const char *why = NULL;
    size_t n = v2_ipv4(b, 0);
    b[12] = 0x11; /* version 1 in binary */
    ck_assert_int_eq(proxy_parse(b, n, &c, &why), PROXY_BAD);
    ck_assert(why && why[0]);
    v2_ipv4(b, 0);
    b[12] = 0x22; /* command 2 */
    ck_assert_int_eq(proxy_parse(b, n, &c, &why), PROXY_BAD);
    v2_ipv4(b, 0);
    b[15] = 4; /* IPv4 needs 12 bytes of addresses */
    ck_assert_int_eq(proxy_parse(b, 20, &c, &why), PROXY_BAD);
    v2_ipv4(b, 0);
    b[14] = 0xFF; /* 65 KB announced: over the cap at once, not awaited */
    ck_assert_int_eq(proxy_parse(b, 16, &c, &why), PROXY_BAD);
    ck_assert(strstr(why, "too long"));
    n = v2_ipv4(b, PROXY_HEADER_MAX - 28); /* exactly the cap */
    ck_assert_int_eq(proxy_parse(b, n, &c, &why), (int)n);
    b[5] = 'X'; /* the signature broken */
    ck_assert_int_eq(proxy_parse(b, n, &c, &why), PROXY_BAD);
}
END_TEST

START_TEST(v1_lines)
{
    const char *ok = "PROXY TCP4 198.51.100.7 10.0.0.2 5555 23\r\nhello";
    proxy_client_t c;
    const char *why = NULL;
    size_t line = strlen(ok) - 5;
    for (size_t k = 0; k < line; k++)
        ck_assert_int_eq(proxy_parse((const uint8_t *)ok, k, &c, &why), PROXY_MORE);
    ck_assert_int_eq(proxy_parse((const uint8_t *)ok, strlen(ok), &c, &why), (int)line);
    ck_assert_str_eq(c.addr, "198.51.100.7");
    ck_assert_uint_eq(c.port, 5555);
    const char *v6 = "PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n";
    ck_assert_int_eq(proxy_parse((const uint8_t *)v6, strlen(v6), &c, &why), (int)strlen(v6));
    ck_assert_str_eq(c.addr, "2001:db8::1");
    const char *unk = "PROXY UNKNOWN\r\n";
    ck_assert_int_eq(proxy_parse((const uint8_t *)unk, strlen(unk), &c, &why), (int)strlen(unk));
    ck_assert(c.local);
    const char *bads[] = {
        "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
        "PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n",
        "PROXY TCP4 1.2.3.4 5.6.7.8 70000 2\r\n",
        "PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n",
        "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
        "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
        "PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
        "GET / HTTP/1.1\r\n",
        "\xff\xfd\x18",
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++)
        ck_assert_int_eq(proxy_parse((const uint8_t *)bads[i], strlen(bads[i]), &c, &why),
                         PROXY_BAD);
    char longline[200];
    memset(longline, 'A', sizeof longline);
    memcpy(longline, "PROXY ", 6);
    ck_assert_int_eq(proxy_parse((const uint8_t *)longline, sizeof longline, &c, &why), PROXY_BAD);
}
END_TEST

START_TEST(networks)
{
    proxy_nets_t n;
    const char *why = NULL;
    ck_assert_int_eq(proxy_nets_parse("127.0.0.1, 10.0.0.0/8,2001:db8::/32", &n, &why), 0);
    ck_assert_int_eq(n.n, 3);
    ck_assert(proxy_nets_match(&n, "127.0.0.1"));
    ck_assert(!proxy_nets_match(&n, "127.0.0.2"));
    ck_assert(proxy_nets_match(&n, "10.200.3.4"));
    ck_assert(proxy_nets_match(&n, "::ffff:10.1.1.1")); /* a mapped peer */
    ck_assert(!proxy_nets_match(&n, "11.0.0.1"));
    ck_assert(proxy_nets_match(&n, "2001:db8:ff::5"));
    ck_assert(!proxy_nets_match(&n, "2001:db9::5"));
    ck_assert(!proxy_nets_match(&n, "local"));
    ck_assert_int_eq(proxy_nets_parse("", &n, &why), 0);
    ck_assert_int_eq(n.n, 0);
    ck_assert(!proxy_nets_match(&n, "127.0.0.1")); /* default: nobody */
    ck_assert_int_eq(proxy_nets_parse("192.168.1.0/23", &n, &why), 0);
    ck_assert(proxy_nets_match(&n, "192.168.0.9"));
    ck_assert(!proxy_nets_match(&n, "192.168.2.9"));
    const char *bads[] = {"10.0.0.0/33", "10.0.0.0/",       "host.example",
                          "1.2.3.4,",    "1.2.3.4 5.6.7.8", "::ffff:1.2.3.4/8",
                          "::1/129",     "1.2.3.4/-1",      "1.2.3.4/0x8"};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        why = NULL;
        ck_assert_msg(proxy_nets_parse(bads[i], &n, &why) == -1 && why, "%s", bads[i]);
    }
}
END_TEST

Suite *suite_server_proxyproto(void)
{
    Suite *s = suite_create("server_proxyproto");
    TCase *t = tcase_create("proxyproto");
    tcase_add_test(t, v2_ipv4_whole_and_in_pieces);
    tcase_add_test(t, v2_ipv6_mapped_and_local);
    tcase_add_test(t, v2_broken_headers);
    tcase_add_test(t, v1_lines);
    tcase_add_test(t, networks);
    suite_add_tcase(s, t);
    return s;
}
