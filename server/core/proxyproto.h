/* proxyproto — the PROXY protocol header (HAProxy's, version 2 binary and
 * version 1 text) that a balancer sends first on a connection to say whom
 * it carries, and the list of networks (`proxy-from`) whose connections
 * must start with one. Pure functions over bytes: no sockets, no state.
 *
 * A connection from a listed network is read up to the end of its header
 * before anything else; the header's source address then stands for the
 * peer everywhere (budget, bans, logs, sessions). A header from anywhere
 * else is never looked for: it is whatever the gateway makes of bad input.
 *
 * Caps: a v2 header is at most PROXY_HEADER_MAX bytes (the 16-byte prefix
 * and up to PROXY_HEADER_MAX - 16 of addresses and TLVs, which are
 * skipped); a v1 line at most PROXY_V1_MAX, as the specification says. */
#ifndef WARREN_PROXYPROTO_H
#define WARREN_PROXYPROTO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROXY_HEADER_MAX 536 /* v2: prefix, addresses, a few TLVs */
#define PROXY_V1_MAX     107 /* "PROXY TCP6 ... \r\n" at its longest */
#define PROXY_ADDR_MAX   46  /* INET6_ADDRSTRLEN */
#define PROXY_NETS_MAX   32  /* networks in proxy-from */

enum {
    PROXY_MORE = 0, /* a header so far: wait for more bytes */
    PROXY_BAD = -1, /* not a header, or a broken one: close the connection */
};

typedef struct {
    bool local;                /* LOCAL/UNKNOWN (the balancer's own check): no client named */
    char addr[PROXY_ADDR_MAX]; /* the client's address as text (IPv4-mapped IPv6 as IPv4) */
    unsigned port;             /* its source port */
} proxy_client_t;

/* Reads the header at the start of buf[0..len). Returns its length in bytes
 * (> 0) with *out filled, PROXY_MORE when the bytes so far are the start of
 * one, or PROXY_BAD with *why (a static message) set. Never reads past len. */
int proxy_parse(const uint8_t *buf, size_t len, proxy_client_t *out, const char **why);

/* A network: an address and how many of its leading bits must match. */
typedef struct {
    uint8_t family; /* 4 or 6 */
    uint8_t bits;
    uint8_t addr[16];
} proxy_net_t;

typedef struct {
    int n;
    proxy_net_t net[PROXY_NETS_MAX];
} proxy_nets_t;

/* "ADDR[/BITS], ..." (spaces around commas allowed; "" is an empty list).
 * 0, or -1 with *why. */
int proxy_nets_parse(const char *text, proxy_nets_t *out, const char **why);
/* Whether the address text addr (IPv4, IPv6, IPv4-mapped IPv6) lies in one
 * of the networks. */
bool proxy_nets_match(const proxy_nets_t *nets, const char *addr);

#endif
