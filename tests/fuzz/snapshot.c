/* Fuzz target: snapshot loading (game_load) must never crash, leak or hang.
 *
 * The first byte picks how the rest is used, so mutations reach every layer:
 *   0  the blob as it is (header checks, CRC)
 *   1  the blob with its CRC fixed up (zlib and the state parser)
 *   2  raw state bytes wrapped in a valid header and zlib stream (the parser)
 * A blob that loads is then played, rendered, hashed and saved again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "game.h"
#include "ser.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_crc(uint8_t *b, size_t len)
{
    if (len < 24)
        return;
    uLong c = crc32(0L, b, 20);
    c = crc32(c, b + 24, (uInt)(len - 24));
    put_le(b + 20, c, 4);
}

static uint8_t *wrap_raw(const content_t *c, const uint8_t *raw, size_t n, size_t *len)
{
    uLongf bound = compressBound((uLong)n);
    uint8_t *b = malloc(24 + bound);
    if (!b || compress2(b + 24, &bound, raw, (uLong)n, 1) != Z_OK) {
        free(b);
        return NULL;
    }
    memcpy(b, "WRNS", 4);
    put_le(b + 4, GAME_SNAPSHOT_VERSION, 2);
    put_le(b + 6, 0, 2);
    put_le(b + 8, ser_fnv(SER_FNV_INIT, content_version(c), strlen(content_version(c))), 8);
    put_le(b + 16, n, 4);
    *len = 24 + bound;
    fix_crc(b, *len);
    return b;
}

static void exercise(game_t *g, script_vm_t *vm)
{
    static const char KEYS[] = "hjklyubn.><Qn";
    for (int i = 0; KEYS[i]; i++)
        game_input(g, vm, (key_event_t){(uint32_t)KEYS[i], 0});
    screen_t *s = screen_new(80, 24);
    if (s)
        game_render(g, s, NULL);
    screen_free(s);
    game_status_t st;
    game_status(g, &st);
    buf_t b;
    buf_init(&b);
    game_snapshot(g, &b);
    game_dump(g, &b);
    buf_free(&b);
    (void)game_hash(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static content_t *c;
    static script_vm_t *vm; /* kept for the whole run, like the content */
    if (!c)
        c = content_load(NULL, NULL, 0);
    if (!vm)
        vm = script_vm_new();
    if (!c || !vm || size < 1 || size > (1u << 20))
        return 0;
    size_t len = size - 1;
    uint8_t *blob = NULL;
    if (data[0] % 3 == 2) {
        blob = wrap_raw(c, data + 1, len, &len);
    } else {
        blob = malloc(len ? len : 1);
        if (blob)
            memcpy(blob, data + 1, len);
        if (blob && data[0] % 3 == 1)
            fix_crc(blob, len);
    }
    if (!blob)
        return 0;
    char err[160];
    game_t *g = game_load(c, blob, len, err, sizeof err);
    if (g)
        exercise(g, vm);
    game_free(g);
    free(blob);
    return 0;
}
