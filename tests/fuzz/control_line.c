/* Fuzz target: the admin control socket's request parser. Bytes arrive in
 * pieces (the first byte picks where to cut); a result must be a known
 * command with a NUL-terminated argument that fits, or a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "control_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t cut = data[0] % 64;
    data++, size--;
    if (size > 4 * CTL_LINE_MAX)
        size = 4 * CTL_LINE_MAX;
    char arg[CTL_LINE_MAX];
    for (size_t got = cut < size ? cut : size;; got = got + 64 < size ? got + 64 : size) {
        ctl_cmd_t cmd = CTL_NCMDS;
        const char *err = NULL;
        int ret = control_parse((const char *)data, got, &cmd, arg, sizeof arg, &err);
        if (ret < 0 && (!err || !err[0]))
            abort();
        if (ret > 0) {
            if (cmd >= CTL_NCMDS || strlen(arg) >= sizeof arg)
                abort();
            if (cmd == CTL_ANNOUNCE)
                for (const char *p = arg; *p; p++)
                    if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7E)
                        abort();
        }
        if (ret != 0 || got == size)
            break;
    }
    return 0;
}
