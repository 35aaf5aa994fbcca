/* peerwire — the messages of the node-to-node stream (peer.h): framing,
 * encoding and a parser for what another node sends. Pure: no sockets,
 * no loop, so the parser is fuzzed on its own (tests/fuzz/peerwire.c).
 *
 * A message is a 4-byte big-endian length (of what follows it, at most
 * PEER_MSG_MAX), a type byte and its body:
 *   HELLO   u8 n, secret[n], u8 m, node[m],
 *           [u16 version]                         first, both ways
 *   WATCH   i64 game                              send me game's screens
 *   UNWATCH i64 game                              no more
 *   SCREEN  i64 game, u16 w, h, cx, cy, u8 flags, u16 rows,
 *           rows x (u16 y, w x cell)              a frame: the rows changed
 *   GONE    i64 game, reason text                 not (or no longer) here
 * A cell is u32 (code point | attributes << 21), u16 fg, u16 bg. A SCREEN
 * with PEER_KEYFRAME carries every row; one of another size than the
 * mirror's is refused unless it is a keyframe. Integers are big-endian.
 *
 * The stream grows without breaking a node of an older build (a rolling
 * upgrade, deploy/RUNNING.md): a message of a type this build does not
 * know is read as PEER_UNKNOWN and skipped (it is bounded like any, by
 * PEER_MSG_MAX), and bytes past the fields a HELLO, WATCH, UNWATCH or
 * SCREEN has here are skipped too (a GONE's reason is the rest of it).
 * A HELLO's version (PEER_VERSION; none: a build before versions, 1)
 * says what the other node reads: a node sends its version only to one
 * that sent its own (the caller), or when calling one not known to be
 * older (peer.c tries again without it when such a node hangs up on
 * it); builds before versions refuse any byte past their fields.
 *
 * Bad input (a length past the cap, a field past its message, a size
 * past SCREEN_MAX_*, a row out of range, a message before HELLO) is
 * refused with a message; nothing is applied. */
#ifndef WARREN_PEERWIRE_H
#define WARREN_PEERWIRE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "screen.h"

enum { PEER_UNKNOWN = 0, PEER_HELLO, PEER_WATCH, PEER_UNWATCH, PEER_SCREEN, PEER_GONE };
#define PEER_VERSION   2 /* this build's stream (HELLO); 1: a build that sends none */
#define PEER_KEYFRAME  1 /* SCREEN flags: every row */
#define PEER_CURSOR_ON 2 /* SCREEN flags: the cursor is shown */
#define PEER_TEXT_MAX  63
/* The largest message: a keyframe of the largest screen. */
#define PEER_MSG_MAX   (32 + (size_t)SCREEN_MAX_H * (2 + (size_t)SCREEN_MAX_W * 8))
/* The largest HELLO (type, two texts with their lengths, the version and
 * room for fields of newer builds): the most a node reads of a link
 * before that link's HELLO is through. */
#define PEER_HELLO_MAX (3 + 2 * (size_t)PEER_TEXT_MAX + 64)

/* One message, pointing into the bytes it was read from (valid while they are). */
typedef struct {
    int type;
    int64_t game;
    char secret[PEER_TEXT_MAX + 1], node[PEER_TEXT_MAX + 1]; /* HELLO */
    int version;                                             /* HELLO: 1 when none sent */
    char reason[128];                                        /* GONE */
    int w, h, cx, cy, flags, nrows;                          /* SCREEN */
    const uint8_t *rows;                                     /* SCREEN: nrows x (2 + 8w) */
} peer_msg_t;

/* The first message in p[0, n): 1 with *used its bytes and m filled; 0
 * when more bytes are needed; -1 when it is bad (*why says how). */
int peerwire_next(const uint8_t *p, size_t n, size_t *used, peer_msg_t *m, const char **why);
/* The first message in p[0, n) of a link, as peerwire_next, once its
 * HELLO is through (ready); before it, only a HELLO: a length past
 * PEER_HELLO_MAX is refused from its 4 bytes, unread, and so is any other
 * type. So 4 + PEER_HELLO_MAX bytes read before the HELLO always hold a
 * whole message or a refusal (never 0). */
int peerwire_next_link(const uint8_t *p, size_t n, bool ready, size_t *used, peer_msg_t *m,
                       const char **why);
/* A SCREEN's rows into scr (resized to w x h for a keyframe): 0, or -1
 * with *why when it does not fit scr (nothing changed then). */
int peerwire_apply(const peer_msg_t *m, screen_t *scr, const char **why);

/* Encoders: append one message to b; -1 when out of memory. */
/* version 0: none sent (what a build before versions reads). */
int peerwire_hello(buf_t *b, const char *secret, const char *node, int version);
int peerwire_game(buf_t *b, int type, int64_t game); /* WATCH, UNWATCH */
int peerwire_gone(buf_t *b, int64_t game, const char *reason);
/* A SCREEN of cur: every row when prev is NULL or another size (a
 * keyframe), else the rows that differ from prev. Returns the rows put
 * (0: nothing changed and nothing appended), -1 when out of memory. */
int peerwire_screen(buf_t *b, int64_t game, const screen_t *cur, const screen_t *prev);

#endif
