/* addrkey — the key every per-address limit charges a client to: the
 * connection budget, the request rate, login throttles, registrations, the
 * hashing queue's share, hosted games and the log's cap.
 *
 * One holder of an IPv6 address usually holds its whole /64 (2^64
 * addresses), so an IPv6 client is charged to its network prefix, not to
 * the address: "2001:db8:0:1::/64" (`ipv6-prefix` bits, 32 to 128; at 128
 * the address itself). An IPv4 address is its own key, and an IPv4-mapped
 * IPv6 address (::ffff:192.0.2.1) the IPv4 one. A scope id ("fe80::1%eth0")
 * stays on the key, so links are told apart.
 *
 * The key is made once, where a client's address becomes known (conn.h's
 * conn_set_ip, the web door, X-Forwarded-For), so that every limit sees
 * the same one; logs and the administrator's views show the full address,
 * and bans (moderation.h) match it. Pure functions: no state. */
#ifndef WARREN_ADDRKEY_H
#define WARREN_ADDRKEY_H
#include <stddef.h>

#define ADDRKEY_MAX        64 /* a key with its NUL (budget.h's BUDGET_ADDR_MAX) */
#define ADDRKEY_V6_DEFAULT 64
#define ADDRKEY_V6_MIN     32
#define ADDRKEY_V6_MAX     128

/* The key of the address text addr, IPv6 cut to v6_bits (clamped to
 * ADDRKEY_V6_MIN..MAX), into out (ADDRKEY_MAX bytes are always enough).
 * 0; or -1 when addr is no address (NULL, empty, "local", a scope id that
 * is no interface name, out too small), and out is then the text itself,
 * cut to fit, so a caller that must charge something still charges that. */
int addrkey(const char *addr, int v6_bits, char *out, size_t outlen);

#endif
