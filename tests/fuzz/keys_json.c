/* Fuzz target: browser key messages. Malformed input must return -1 having
 * delivered nothing; otherwise the return value counts valid keys. */
#include <stdint.h>
#include <stdlib.h>
#include "keys.h"

static void count_key(void *ud, key_event_t k)
{
    uint8_t packed[6];
    key_event_t back;
    size_t n = key_pack(k, packed); /* 0 for an invalid key */
    if (!n || key_unpack(packed, n, &back) != n)
        abort();
    (*(int *)ud)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int got = 0;
    int r = keys_from_json((const char *)data, size, count_key, &got);
    if (r < 0 ? got != 0 || r != -1 : got != r)
        abort();
    return 0;
}
