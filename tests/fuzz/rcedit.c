/* Fuzz target: the telnet rc file editor (server/screens/rcedit.c). The
 * file is the player's own (any bytes, the web's /rc page or the hosted
 * game may have written it), the keys what a telnet client types. The
 * first two bytes choose the screen's size, the next two the file's
 * length; the file follows, then the terminal bytes, through the key
 * decoder. Whatever the bytes: a file past the bounds is refused with a
 * message; one taken comes back unchanged as its lines (CRLF read as LF)
 * until edited, and is refused exactly when gamecfg_rc_check (what the
 * web's /options/ID saves) refuses it, with the same words; after any
 * key the text keeps its bounds, and the screen
 * shows only printable characters with the cursor on it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "gamecfg.h"
#include "keys.h"
#include "rcedit.h"
#include "screen.h"

typedef struct {
    rcedit_t *e;
    screen_t *scr;
    unsigned keys;
    bool done;
} run_t;

/* The text the editor must give back for a file it took unchanged: each
 * line ended by "\n", a "\r" before one dropped. */
static void lines_of(const uint8_t *text, size_t len, buf_t *out)
{
    for (size_t at = 0; at < len;) {
        const uint8_t *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - text - at) : len - at;
        size_t keep = n && text[at + n - 1] == '\r' ? n - 1 : n;
        buf_put(out, text + at, keep);
        buf_put(out, "\n", 1);
        at += n + 1;
    }
}

static void check_text(const rcedit_t *e)
{
    buf_t b;
    buf_init(&b);
    rcedit_text(e, &b);
    if (b.failed || b.len > RCEDIT_TEXT_MAX || (b.len && b.data[b.len - 1] != '\n'))
        abort();
    size_t lines = 0;
    for (size_t at = 0; at < b.len; lines++) {
        const char *nl = memchr(b.data + at, '\n', b.len - at);
        if ((size_t)(nl - b.data) - at > RCEDIT_LINE_MAX)
            abort();
        at = (size_t)(nl - b.data) + 1;
    }
    char err[160];
    if (lines > RCEDIT_LINES || gamecfg_rc_check(b.data, b.len, err, sizeof err) < 0)
        abort(); /* what telnet saves, /options/ID would save too */
    buf_free(&b);
}

static void check_screen(const screen_t *s)
{
    for (int i = 0; i < s->w * s->h; i++) {
        uint32_t ch = s->cells[i].ch;
        if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0) || ch > 0x10FFFF ||
            (ch >= 0xD800 && ch < 0xE000))
            abort();
    }
    if (s->cur_x < 0 || s->cur_x >= s->w || s->cur_y < 0 || s->cur_y >= s->h)
        abort();
}

static void on_key(void *ud, key_event_t k)
{
    run_t *r = ud;
    if (r->done)
        return;
    rcedit_result_t res = rcedit_key(r->e, k);
    if (res != RCEDIT_GOING && res != RCEDIT_SAVE && res != RCEDIT_QUIT)
        abort();
    if (res == RCEDIT_SAVE && r->keys % 3 == 0)
        rcedit_notice(r->e, "could not save: the disk is full");
    r->done = res == RCEDIT_QUIT;
    if (++r->keys % 8 == 0) {
        check_text(r->e);
        rcedit_draw(r->e, r->scr);
        check_screen(r->scr);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    int w = 20 + data[0] % 181, h = 8 + data[1] % 60;
    size_t len = (size_t)data[2] | (size_t)data[3] << 8;
    data += 4;
    size -= 4;
    if (len > size)
        len = size;
    char err[160] = "";
    rcedit_t *e = rcedit_new("nethack rc", (const char *)data, len, err, sizeof err);
    char why[160] = "";
    int web = gamecfg_rc_check((const char *)data, len, why, sizeof why);
    if ((web < 0) != (e == NULL) || (web < 0 && strcmp(err, why)))
        abort(); /* the web takes what telnet's editor opens, and says the same of the rest */
    if (!e) {
        if (!err[0])
            abort();
        return 0;
    }
    buf_t want, got;
    buf_init(&want);
    buf_init(&got);
    lines_of(data, len, &want);
    rcedit_text(e, &got);
    if (!memchr(data, 0, len) &&
        (got.len != want.len || (got.len && memcmp(got.data, want.data, got.len))))
        abort(); /* a file without NUL bytes comes back as its lines */
    buf_free(&want);
    buf_free(&got);
    run_t r = {e, screen_new(w, h), 0, false};
    if (!r.scr)
        abort();
    keydec_t d;
    keydec_init(&d);
    keydec_feed(&d, data + len, size - len, on_key, &r);
    keydec_timeout(&d, on_key, &r);
    check_text(e);
    rcedit_draw(e, r.scr);
    check_screen(r.scr);
    screen_free(r.scr);
    rcedit_free(e);
    return 0;
}
