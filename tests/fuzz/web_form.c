/* Fuzz target: web_form_get (server/web/web_parse.c), which reads every form
 * field and query argument a browser posts (login, register, pages). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "web_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *form = (const char *)data;
    static const char *names[] = {"name", "password", "password2", "next", "a", ""};
    char out[64];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int n = web_form_get(form, size, names[i], out, sizeof out);
        if (n >= (int)sizeof out || (n >= 0 && out[n] != 0))
            __builtin_trap();
        char one[1];
        n = web_form_get(form, size, names[i], one, sizeof one);
        if (n > 0)
            __builtin_trap(); /* only the empty value fits one byte */
    }
    return 0;
}
