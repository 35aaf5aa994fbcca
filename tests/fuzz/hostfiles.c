/* Fuzz target: a bundle of a player's hosted files (server/hosted/
 * hostfiles.c). A bundle is built from what a hostile program left in its
 * player's directory and comes back from the database into a player's
 * directory, so whatever the bytes, it is read whole or refused with a
 * reason; every file read has a path a bundle may hold (names of
 * [A-Za-z0-9._+-], never "." or "..", no leading, trailing or doubled
 * '/', HOSTFILES_DEPTH names at most) and its bytes within the input; a
 * bundle read whole builds back to the very same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/hostfiles.h"

#define NAME_SET "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"

static void check_path(const char *p)
{
    size_t len = strlen(p);
    if (len == 0 || len > HOSTFILES_PATH_MAX || p[0] == '/' || p[len - 1] == '/' || strstr(p, "//"))
        abort();
    int depth = 0;
    for (const char *c = p; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || n > HOSTFILES_NAME_MAX || strspn(c, NAME_SET) < n ||
            (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            abort();
        depth++;
        c += n + (c[n] == '/');
    }
    if (depth > HOSTFILES_DEPTH)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hostfiles_reader_t r;
    hostfiles_file_t f;
    uint32_t n;
    char err[160] = "";
    size_t max = 1 << 16;
    if (hostfiles_open(&r, data, size, max, &n, err, sizeof err) < 0) {
        if (!err[0])
            abort();
        return 0;
    }
    if (n > HOSTFILES_FILES_MAX)
        abort();
    hostfiles_buf_t b;
    if (hostfiles_buf_init(&b, max) < 0)
        return 0;
    int got;
    uint32_t k = 0;
    while ((got = hostfiles_next(&r, &f, err, sizeof err)) > 0) {
        k++;
        check_path(f.path);
        if (!hostfiles_path_ok(f.path, strlen(f.path)) || f.data < data ||
            f.data + f.len > data + size)
            abort();
        if (hostfiles_add(&b, f.path, f.data, f.len, err, sizeof err) < 0)
            abort(); /* what was read within max builds within it */
    }
    if (got < 0 && !err[0])
        abort();
    if (got == 0 && (k != n || b.len != size || memcmp(b.p, data, size) != 0))
        abort();
    uint32_t n2;
    if ((hostfiles_check(data, size, max, &n2, err, sizeof err) == 0) != (got == 0))
        abort();
    hostfiles_buf_free(&b);
    return 0;
}
