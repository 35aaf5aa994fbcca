/* Fuzz target: warrend's config file parser (config_parse, what
 * config_load_file runs on a file's bytes). Whatever the text, the result
 * is 0 or -1 with a "name:line: message" error, and every setting stays
 * within its bounds: strings NUL-terminated in their fields, numbers in
 * their ranges, addresses that config_split_addr accepts; the test-only
 * keys the start warns of are named in full or cut short, never past the
 * room given, and only test-* names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"

#define STR_OK(f) (memchr((f), 0, sizeof(f)) != NULL)

static void check_addr(const char *a)
{
    char host[128];
    int port;
    if (a[0] && (config_split_addr(a, host, sizeof host, &port) || port < 1 || port > 65535))
        abort();
}

/* config_test_keys into room of a size the input picks (0 to 63 bytes,
 * then a full line): NUL-terminated inside it, each name a test-* key. */
static void check_test_keys(const config_t *c, size_t size)
{
    char out[256], small[64];
    memset(small, 'x', sizeof small);
    size_t n = size % sizeof small;
    int count = config_test_keys(c, small, n);
    if (n && !memchr(small, 0, n))
        abort();
    for (size_t i = n; i < sizeof small; i++) /* nothing past the room */
        if (small[i] != 'x')
            abort();
    if (config_test_keys(c, out, sizeof out) != count || count < 0 || count > 16)
        abort();
    for (char *k = out; *k; k = strstr(k, ", ") ? strstr(k, ", ") + 2 : k + strlen(k))
        if (strncmp(k, "test-", 5) != 0)
            abort();
    if ((count == 0) != (out[0] == 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    config_t c;
    char err[256];
    config_defaults(&c);
    err[0] = 0;
    int ret = config_parse(&c, (const char *)data, size, "fuzz.conf", err, sizeof err);
    if (ret != 0 && (ret != -1 || strncmp(err, "fuzz.conf:", 10) != 0))
        abort();
    if (!STR_OK(c.telnet) || !STR_OK(c.http) || !STR_OK(c.socket) || !STR_OK(c.db) ||
        !STR_OK(c.content))
        abort();
    check_addr(c.telnet);
    check_addr(c.http);
    if (c.grace < 0 || c.grace > 86400 * 7 || c.max_conns < 1 || c.max_per_ip < 1 ||
        c.input_rate < 1 || c.idle_timeout < 1 || c.snapshot_every < 1 || c.outq_max < 4096 ||
        c.listen_backlog < 1)
        abort();
    if (ret != 0 && c.games.n != 0) /* a file that fails adds no game */
        abort();
    check_test_keys(&c, size);
    config_free(&c);
    return 0;
}
