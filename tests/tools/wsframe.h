/* wsframe — the header of a websocket message as a server sends it
 * (RFC 6455: unmasked; 2, 4 or 10 bytes before the payload), for the test
 * clients that read warrend's websockets with plain sockets
 * (tests/tools/web_fanout.c, tests/spectate/spectate.c). */
#ifndef WARREN_WSFRAME_H
#define WARREN_WSFRAME_H
#include <stdbool.h>
#include <stddef.h>

/* The message at b, of which avail bytes have come: its opcode, where its
 * payload starts (*head) and how long it is (*len). false until the whole
 * message has come. */
static inline bool wsframe_next(const unsigned char *b, size_t avail, int *op, size_t *head,
                                size_t *len)
{
    if (avail < 2)
        return false;
    size_t n = b[1] & 0x7f, h = 2;
    if (n == 126) {
        if (avail < 4)
            return false;
        n = (size_t)b[2] << 8 | b[3];
        h = 4;
    } else if (n == 127) {
        if (avail < 10)
            return false;
        n = 0;
        for (int i = 2; i < 10; i++)
            n = n << 8 | b[i];
        h = 10;
    }
    if (avail - h < n)
        return false;
    *op = b[0] & 0x0f;
    *head = h;
    *len = n;
    return true;
}

#endif
