/* Fuzz target: the PROXY protocol header (proxyproto.h) and proxy-from's
 * network list. The header is fed as it could arrive, a prefix at a time
 * (the first byte picks the step): a prefix is "more" until the whole
 * answer, a length never passes what was given or the cap, and an address
 * is text that fits. The key per-address limits make of an address
 * (addrkey.h) fits its buffer whatever the text, and a header's address
 * always has one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "addrkey.h"
#include "proxyproto.h"

static void check_nets(const uint8_t *data, size_t size)
{
    char text[256];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = 0;
    proxy_nets_t nets;
    const char *why = NULL;
    if (proxy_nets_parse(text, &nets, &why) == 0) {
        if (nets.n < 0 || nets.n > PROXY_NETS_MAX)
            abort();
        proxy_nets_match(&nets, "10.1.2.3");
        proxy_nets_match(&nets, "2001:db8::1");
    } else if (!why) {
        abort();
    }
}

/* The key of text at bits: NUL-terminated within the buffer, never past. */
static int check_key(const char *text, int bits)
{
    char key[ADDRKEY_MAX];
    int r = addrkey(text, bits, key, sizeof key);
    if ((r != 0 && r != -1) || memchr(key, 0, sizeof key) == NULL)
        abort();
    return r;
}

static void check_keys(const uint8_t *data, size_t size)
{
    char text[128];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = 0;
    int bits = size ? data[size - 1] : 64; /* out of range too: clamped */
    check_key(text, bits);
    check_key(text, 128);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = data[0] % 32 + 1;
    data++, size--;
    check_nets(data, size);
    proxy_client_t c;
    const char *why = NULL;
    int whole = proxy_parse(data, size, &c, &why);
    if (whole > (int)size || whole > PROXY_HEADER_MAX || (whole < 0 && !why))
        abort();
    if (whole > 0 && !c.local && memchr(c.addr, 0, sizeof c.addr) == NULL)
        abort();
    if (whole > 0 && !c.local && check_key(c.addr, data[0]) != 0)
        abort(); /* what a balancer names is an address with a key */
    check_keys(data, size);
    for (size_t got = 0; got < size; got += step) {
        int r = proxy_parse(data, got, &c, &why);
        if (r > 0 ? r != whole : r == PROXY_MORE ? 0 : whole != PROXY_BAD)
            abort(); /* a prefix that decides must decide as the whole does */
    }
    return 0;
}
