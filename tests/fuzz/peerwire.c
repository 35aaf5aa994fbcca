/* Fuzz target: the node-to-node stream's messages (peerwire.h), read as
 * they could arrive from another node (a link's reader before and after
 * its HELLO too): every message the parser accepts
 * is applied to a mirror screen (a SCREEN) or bounded (a HELLO's texts,
 * a GONE's reason), a used length never passes what was given, and bad
 * input always comes with a message. A SCREEN that applied is encoded
 * again, and the result read back must parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "peerwire.h"

static void check_screen(const peer_msg_t *m, screen_t *scr)
{
    const char *why = NULL;
    if (peerwire_apply(m, scr, &why) < 0) {
        if (!why)
            abort();
        return;
    }
    if (scr->w != m->w || scr->h != m->h)
        abort();
    buf_t b;
    buf_init(&b);
    if (peerwire_screen(&b, m->game, scr, NULL) > 0) {
        peer_msg_t again;
        size_t used = 0;
        if (peerwire_next((const uint8_t *)b.data, b.len, &used, &again, &why) != 1 ||
            used != b.len || again.nrows != scr->h)
            abort();
    }
    buf_free(&b);
}

/* A link's reader (peerwire_next_link): before HELLO only a HELLO, of
 * at most a HELLO's bytes, and a buffer of that many bytes never waits
 * for more; past it, as peerwire_next. */
static void check_link(const uint8_t *data, size_t size)
{
    peer_msg_t m, plain;
    size_t used = 0, plain_used = 0;
    const char *why = NULL, *plain_why = NULL;
    int r = peerwire_next_link(data, size, false, &used, &m, &why);
    if ((r < 0 && !why) || (r == 0 && size >= 4 + PEER_HELLO_MAX))
        abort();
    if (r == 1 && (m.type != PEER_HELLO || used > 4 + PEER_HELLO_MAX || used > size))
        abort();
    r = peerwire_next_link(data, size, true, &used, &m, &why);
    int plain_r = peerwire_next(data, size, &plain_used, &plain, &plain_why);
    if (r != plain_r || (r == 1 && used != plain_used))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_link(data, size);
    screen_t *scr = screen_new(80, 24);
    if (!scr)
        return 0;
    size_t at = 0, used = 0;
    peer_msg_t m;
    const char *why = NULL;
    int r;
    while ((r = peerwire_next(data + at, size - at, &used, &m, &why)) == 1) {
        if (used < 5 || used > size - at)
            abort();
        at += used;
        if (strlen(m.secret) > PEER_TEXT_MAX || strlen(m.node) > PEER_TEXT_MAX ||
            strlen(m.reason) >= sizeof m.reason)
            abort();
        if (m.type == PEER_SCREEN)
            check_screen(&m, scr);
    }
    if (r < 0 && !why)
        abort();
    screen_free(scr);
    return 0;
}
