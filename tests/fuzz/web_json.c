/* Fuzz target: the web gateway's JSON envelope checker (server/web/web_json.c),
 * which reads every websocket text message before anything else does. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "web_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    if (!web_json_is_object(s, size))
        return 0;
    const char *v;
    size_t vl;
    long n;
    char out[64];
    bool b;
    static const char *keys[] = {"t", "w", "h", "text", ""};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (web_json_member(s, size, keys[i], &v, &vl) == 0 && (v < s || v + vl > s + size))
            __builtin_trap(); /* a value span must lie inside the input */
        (void)web_json_int(s, size, keys[i], -1000000, 1000000, &n);
        (void)web_json_str_is(s, size, keys[i], "resize");
        int sl = web_json_string(s, size, keys[i], out, sizeof out);
        if (sl >= (int)sizeof out || (sl >= 0 && out[sl] != 0))
            __builtin_trap();
        (void)web_json_bool(s, size, keys[i], &b);
    }
    return 0;
}
