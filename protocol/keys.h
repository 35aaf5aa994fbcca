/* keys — decodes terminal input bytes (and the browser's JSON key messages)
 * into key events. Pure code: the caller owns the decoder state and drives
 * the lone-Esc timeout.
 *
 * A key event is a code and modifiers. Codes below KEY_BASE are Unicode code
 * points: printable characters, and control keys as their ASCII control code
 * (Ctrl-A = 0x01, Tab = 0x09, Enter = 0x0D, Esc = 0x1B, Backspace = 0x7F).
 * Codes from KEY_BASE up are the named keys below. */
#ifndef WARREN_KEYS_H
#define WARREN_KEYS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEY_BASE 0x110000u
#define KEY_LIST(X) \
    X(UP)           \
    X(DOWN)         \
    X(LEFT)         \
    X(RIGHT)        \
    X(HOME)         \
    X(END)          \
    X(PGUP)         \
    X(PGDN)         \
    X(INSERT)       \
    X(DELETE)       \
    X(KP_CENTER)    \
    X(F1)           \
    X(F2)           \
    X(F3)           \
    X(F4)           \
    X(F5)           \
    X(F6)           \
    X(F7)           \
    X(F8)           \
    X(F9)           \
    X(F10)          \
    X(F11)          \
    X(F12)

enum {
    KEY_FIRST_NAMED_ = KEY_BASE - 1,
#define KEY_ENUM_(n) KEY_##n,
    KEY_LIST(KEY_ENUM_)
#undef KEY_ENUM_
        KEY_LAST_NAMED_
};

enum { KEYMOD_ALT = 1, KEYMOD_CTRL = 2, KEYMOD_SHIFT = 4 };

enum { KEY_ENTER = 0x0D, KEY_ESC = 0x1B, KEY_TAB = 0x09, KEY_BACKSPACE = 0x7F };

typedef struct {
    uint32_t code;
    uint8_t mods;
} key_event_t;

typedef void (*key_cb)(void *ud, key_event_t k);

/* Decoder state; plain struct, keydec_init before use, no free needed. */
typedef struct {
    uint8_t pend[32]; /* bytes of an unfinished sequence */
    size_t npend;
    bool after_cr; /* swallow LF / NUL after CR (telnet CR LF, CR NUL) */
} keydec_t;

void keydec_init(keydec_t *d);
/* Feeds bytes; calls cb for each complete key. Sequences split across calls
 * are kept until complete. Invalid bytes are skipped, never turned into keys. */
void keydec_feed(keydec_t *d, const uint8_t *in, size_t len, key_cb cb, void *ud);
/* True when a lone Esc (or an unfinished sequence) waits: the caller should
 * call keydec_timeout after a short delay (e.g. 50 ms) without new input. */
bool keydec_pending(const keydec_t *d);
/* Resolves what is pending: a lone Esc becomes KEY_ESC, an Esc-prefixed
 * partial sequence becomes Esc followed by its bytes as keys. */
void keydec_timeout(keydec_t *d, key_cb cb, void *ud);

/* Decodes one browser key message (JSON, see protocol/README.md) into keys.
 * Returns the number of keys delivered, or -1 on malformed input (nothing
 * delivered). */
int keys_from_json(const char *msg, size_t len, key_cb cb, void *ud);

/* Name of a key for help screens and logs ("a", "^A", "Esc", "Up", "F5",
 * "M-x"). Writes at most n bytes including NUL; returns out. */
char *key_name(key_event_t k, char *out, size_t n);

/* Compact encoding for journals: 1-5 bytes. Returns bytes written (<= 6). */
size_t key_pack(key_event_t k, uint8_t out[6]);
/* Reads one packed key; returns bytes used, or 0 when malformed/truncated. */
size_t key_unpack(const uint8_t *in, size_t len, key_event_t *k);

#endif
