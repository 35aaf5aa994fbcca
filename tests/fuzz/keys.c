/* Fuzz target: terminal input bytes into the key decoder. The first bytes
 * choose where the input is cut into reads and when the Esc timeout fires;
 * every key that comes out must be a valid event. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "keys.h"

static void check_key(void *ud, key_event_t k)
{
    (void)ud;
    bool ok;
    if (k.code >= KEY_BASE)
        ok = k.code < KEY_LAST_NAMED_;
    else if (k.code < 0x20 || k.code == 0x7F)
        ok = k.code != 0; /* control keys; NUL is padding */
    else if (k.code < 0x7F)
        ok = true;
    else
        ok = k.code >= 0xA0 && !(k.code >= 0xD800 && k.code <= 0xDFFF);
    if (!ok || (k.mods & ~7u))
        abort();
    uint8_t packed[6];
    key_event_t back;
    size_t n = key_pack(k, packed);
    if (!n || key_unpack(packed, n, &back) != n || back.code != k.code || back.mods != k.mods)
        abort();
    char name[8];
    key_name(k, name, sizeof name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keydec_t d;
    size_t at = 0;
    uint32_t seed = 0;
    if (size >= 4) {
        memcpy(&seed, data, 4);
        data += 4;
        size -= 4;
    }
    keydec_init(&d);
    while (at < size) {
        size_t step = 1 + seed % 7;
        seed = seed * 1103515245u + 12345u;
        if (step > size - at)
            step = size - at;
        keydec_feed(&d, data + at, step, check_key, NULL);
        if (d.npend > sizeof d.pend)
            abort();
        if ((seed >> 16) % 5 == 0 && keydec_pending(&d))
            keydec_timeout(&d, check_key, NULL);
        at += step;
    }
    keydec_timeout(&d, check_key, NULL);
    if (keydec_pending(&d))
        abort();
    return 0;
}
