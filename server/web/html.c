/* html — escaping text for the pages (html.h). */
#include "html.h"
#include <stdbool.h>
#include "screen.h"

/* Bytes at p[0..len) (p[0] >= 0x80) that form one valid UTF-8 sequence, or 0
 * when they do not (the same decoding the JSON writer uses). */
static size_t utf8_valid(const char *p, size_t len)
{
    size_t used;
    utf8_decode((const uint8_t *)p, len, &used);
    return used > 1 ? used : 0;
}

void html_escape(buf_t *out, const char *s, size_t len)
{
    static const char *const ent[] = {
        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;"};
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t seq = c >= 0x80 ? utf8_valid(s + i, len - i) : 1;
        if (seq > 1) {
            i += seq - 1;
            continue;
        }
        if (!seq) {
            buf_put(out, s + start, i - start);
            buf_put_utf8(out, 0xFFFD);
            start = i + 1;
            continue;
        }
        bool special = c < sizeof ent / sizeof ent[0] && ent[c];
        bool drop = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F;
        if (!special && !drop)
            continue;
        buf_put(out, s + start, i - start);
        if (special)
            buf_puts(out, ent[c]);
        start = i + 1;
    }
    buf_put(out, s + start, len - start);
}

void url_escape(buf_t *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            buf_putc(out, (char)c);
            continue;
        }
        buf_putc(out, '%');
        buf_putc(out, hex[c >> 4]);
        buf_putc(out, hex[c & 15]);
    }
}
