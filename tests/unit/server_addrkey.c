/* Unit tests: server/addrkey — the key per-address limits charge: IPv4 as
 * it is, IPv4-mapped IPv6 as the IPv4, IPv6 cut to its prefix (64 bits by
 * default, 32 to 128), a scope id kept, and text that is no address
 * refused (-1, the text itself) without reading past it. */
#include <check.h>
#include <string.h>
#include "addrkey.h"

/* The key of addr at bits; ck_assert that addrkey said ok (1) or not (0). */
static const char *key_of(const char *addr, int bits, int ok)
{
    static char out[ADDRKEY_MAX];
    memset(out, 'x', sizeof out);
    ck_assert_int_eq(addrkey(addr, bits, out, sizeof out), ok ? 0 : -1);
    return out;
}

START_TEST(ipv4_as_it_is)
{
    ck_assert_str_eq(key_of("192.0.2.7", 64, 1), "192.0.2.7");
    ck_assert_str_eq(key_of("10.0.0.1", 128, 1), "10.0.0.1");
    ck_assert_str_eq(key_of("::ffff:192.0.2.7", 64, 1), "192.0.2.7"); /* mapped */
    ck_assert_str_eq(key_of("::FFFF:c000:0207", 64, 1), "192.0.2.7");
}
END_TEST

START_TEST(ipv6_to_its_prefix)
{
    /* one /64: one key, whatever the host half */
    ck_assert_str_eq(key_of("2001:db8::1", 64, 1), "2001:db8::/64");
    ck_assert_str_eq(key_of("2001:db8::2", 64, 1), "2001:db8::/64");
    ck_assert_str_eq(key_of("2001:DB8:0:0:ffff:ffff:ffff:ffff", 64, 1), "2001:db8::/64");
    /* the next /64 is another */
    ck_assert_str_eq(key_of("2001:db8:0:1::1", 64, 1), "2001:db8:0:1::/64");
    /* other prefixes; a bit boundary inside a byte */
    ck_assert_str_eq(key_of("2001:db8:abcd:1234::1", 48, 1), "2001:db8:abcd::/48");
    ck_assert_str_eq(key_of("2001:db8:abcd:12ff::1", 60, 1), "2001:db8:abcd:12f0::/60");
    ck_assert_str_eq(key_of("2001:db8:abcd:12ff::1", 57, 1), "2001:db8:abcd:1280::/57");
    /* 128: the address itself, canonical */
    ck_assert_str_eq(key_of("2001:0db8:0000::0001", 128, 1), "2001:db8::1");
    ck_assert_str_eq(key_of("::1", 128, 1), "::1");
    ck_assert_str_eq(key_of("::1", 64, 1), "::/64");
    /* out of range: clamped to 32..128 */
    ck_assert_str_eq(key_of("2001:db8:1:2::1", 0, 1), "2001:db8::/32");
    ck_assert_str_eq(key_of("2001:db8:1:2::1", 999, 1), "2001:db8:1:2::1");
}
END_TEST

START_TEST(scope_ids)
{
    ck_assert_str_eq(key_of("fe80::1%eth0", 64, 1), "fe80::/64%eth0");
    ck_assert_str_eq(key_of("fe80::2%eth0", 64, 1), "fe80::/64%eth0");
    ck_assert_str_eq(key_of("fe80::1%2", 64, 1), "fe80::/64%2");
    ck_assert_str_eq(key_of("fe80::1%lo", 128, 1), "fe80::1%lo");
    /* no interface name: refused, the text kept */
    ck_assert_str_eq(key_of("fe80::1%", 64, 0), "fe80::1%");
    ck_assert_str_eq(key_of("fe80::1%a b", 64, 0), "fe80::1%a b");
    ck_assert_str_eq(key_of("fe80::1%0123456789abcdef", 64, 0), "fe80::1%0123456789abcdef");
    ck_assert_str_eq(key_of("fe80::1%eth0%eth1", 64, 0), "fe80::1%eth0%eth1");
    ck_assert_str_eq(key_of("192.0.2.7%eth0", 64, 0), "192.0.2.7%eth0");
}
END_TEST

START_TEST(not_addresses)
{
    const char *bad[] = {"",
                         "local",
                         "?",
                         "192.0.2",
                         "192.0.2.256",
                         " 192.0.2.7",
                         "192.0.2.7 ",
                         "2001:db8::1::2",
                         "2001:db8::/64",
                         "[2001:db8::1]",
                         "1.2.3.4:80",
                         "%eth0",
                         "gggg::1",
                         "::ffff:1.2.3.4.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_str_eq(key_of(bad[i], 64, 0), bad[i]);
    char out[ADDRKEY_MAX] = "x";
    ck_assert_int_eq(addrkey(NULL, 64, out, sizeof out), -1);
    ck_assert_str_eq(out, "");
    /* a long text: cut to fit, never past out */
    char big[300];
    memset(big, '1', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_str_eq(key_of(big, 64, 0), big + sizeof big - ADDRKEY_MAX);
    /* out too small for the key: refused, cut, NUL-terminated */
    char small[8];
    ck_assert_int_eq(addrkey("2001:db8::1", 64, small, sizeof small), -1);
    ck_assert_str_eq(small, "2001:db");
    ck_assert_int_eq(addrkey("192.0.2.7", 64, NULL, 0), -1);
}
END_TEST

/* The longest keys fit ADDRKEY_MAX (budget.h's slot): every bit set, a
 * 15-byte scope id. */
START_TEST(the_longest_keys_fit)
{
    const char *full = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe%abcdefghijklmno";
    for (int bits = ADDRKEY_V6_MIN; bits <= ADDRKEY_V6_MAX; bits++) {
        char out[ADDRKEY_MAX];
        ck_assert_int_eq(addrkey(full, bits, out, sizeof out), 0);
        ck_assert_ptr_nonnull(strstr(out, "%abcdefghijklmno"));
    }
    ck_assert_str_eq(key_of("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", 128, 1),
                     "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
}
END_TEST

Suite *suite_server_addrkey(void)
{
    Suite *s = suite_create("server_addrkey");
    TCase *t = tcase_create("addrkey");
    tcase_add_test(t, ipv4_as_it_is);
    tcase_add_test(t, ipv6_to_its_prefix);
    tcase_add_test(t, scope_ids);
    tcase_add_test(t, not_addresses);
    tcase_add_test(t, the_longest_keys_fit);
    suite_add_tcase(s, t);
    return s;
}
