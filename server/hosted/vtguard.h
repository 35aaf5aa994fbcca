/* vtguard — filters a program's output on its way to libvterm 0.1.4 so
 * that nothing in it can crash or hang the daemon. Faults of that version
 * it keeps away (each reproduced by the unit tests and the fuzz target):
 *   - CSI parameters go into a 16-entry array without a bounds check, so a
 *     sequence with more parameters writes past it: parameters from the
 *     16th separator to the end of the sequence are dropped, and any
 *     parameter is cut to 6 digits (keeping libvterm's int sums in range);
 *   - its UTF-8 decoder writes one code point past its buffer when an
 *     unfinished sequence meets an ASCII byte: a sequence is passed on only
 *     once complete, and a broken one becomes U+FFFD, as do bytes
 *     0xF8..0xFF (5- and 6-byte forms);
 *   - a C1 control written in UTF-8 (U+0080..U+009F) is kept as a glyph
 *     whose erasing later (CSI J, CSI K) dereferences NULL: such code
 *     points are dropped (the 7-bit forms, ESC D and the like, pass),
 *     and a CSI they stood in goes on (its parameters still counted);
 *   - REP (CSI Ps b) loops forever when the last glyph had a width below 1
 *     (none printed yet, a combining mark, a C1 control): REP never reaches
 *     libvterm; the sink gets CAN (which ends the sequence there) and a rep
 *     call, and repeats the glyph itself (vtgrid does).
 *   - a cursor restored (DECRC: ESC 8, CSI u, CSI ? 1048 l, CSI ? 1049 l)
 *     after the screen shrank may lie below it, and libvterm indexes its
 *     line table with it: the sink's restored call follows every such
 *     sequence (vtgrid puts the cursor back on the screen).
 * The stream is followed as libvterm's parser follows it, or a little more
 * widely: an ESC stays pending across C0 controls, DEL, intermediates and
 * bytes >= 0x80, and "ESC [" starts a CSI after intermediates too, as
 * there; every "ESC [" is taken for a CSI, even where libvterm would be in
 * an OSC or DCS string.
 *
 * A plain struct the owner embeds; vtguard_init before use. Pure: no
 * allocation, no global state. */
#ifndef WARREN_VTGUARD_H
#define WARREN_VTGUARD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    /* private */
    uint8_t state;  /* where the stream is: text, after ESC, in a CSI... */
    uint8_t seps;   /* parameter separators in the current CSI */
    uint8_t digits; /* digits in the current parameter */
    bool cut;       /* the rest of this CSI's parameters are dropped */
    bool plain;     /* no leader or intermediate byte: a final 'b' is REP */
    uint32_t first; /* the first parameter's value */
    uint8_t held;   /* bytes of an unfinished UTF-8 sequence in hold */
    uint8_t need;   /* its length when complete */
    uint8_t hold[4];
    bool after; /* a cursor restore just passed: call restored */
} vtguard_t;

typedef struct {
    void (*emit)(const char *bytes, size_t len, void *user); /* for libvterm */
    void (*rep)(unsigned count, void *user);                 /* a REP was here (after CAN) */
    void *user;
    void (*restored)(void *user); /* after a cursor restore; may be NULL */
} vtguard_sink_t;

void vtguard_init(vtguard_t *g);
/* Filters len bytes into the sink. A UTF-8 sequence split across calls is
 * held until it completes. */
void vtguard_write(vtguard_t *g, const void *bytes, size_t len, const vtguard_sink_t *sink);
/* The owner sent libvterm CAN itself: any sequence has ended there. */
void vtguard_cancel(vtguard_t *g);

#endif
