/* lineedit — the prompts' one-line editor; see lineedit.h. */
#include "lineedit.h"
#include <string.h>

static int is_cont(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* UTF-8 of a printable code point into u; 0 for what a line never holds
 * (controls, C1 controls, surrogates, named keys). */
static size_t encode(uint32_t cp, char u[4])
{
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || (cp >= 0xD800 && cp < 0xE000) || cp >= 0x110000)
        return 0;
    if (cp < 0x80) {
        u[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (char)(0xF0 | cp >> 18);
    u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static size_t prev_char(const char *line, size_t at)
{
    while (at > 0 && is_cont(line[--at]))
        ;
    return at;
}

static size_t next_char(const char *line, size_t len, size_t at)
{
    if (at < len)
        at++;
    while (at < len && is_cont(line[at]))
        at++;
    return at;
}

/* Removes bytes [from, to) of the line. */
static void cut(char *line, size_t *len, size_t from, size_t to)
{
    memmove(line + from, line + to, *len - to);
    *len -= to - from;
}

static line_action_t insert(char *line, size_t *len, size_t *at, size_t max, key_event_t k)
{
    char u[4];
    size_t n = k.mods & (KEYMOD_ALT | KEYMOD_CTRL) ? 0 : encode(k.code, u);
    if (!n)
        return LINE_IGNORED;
    if (*len + n > max)
        return LINE_FULL;
    memmove(line + *at + n, line + *at, *len - *at);
    memcpy(line + *at, u, n);
    *len += n;
    *at += n;
    return LINE_EDITED;
}

/* The keys that move the cursor or delete: the new cursor, the range cut. */
static int edit_key(const char *line, size_t len, size_t at, uint32_t code, size_t r[3])
{
    size_t to = at, from = at, cur = at;
    if (code == KEY_LEFT)
        cur = prev_char(line, at);
    else if (code == KEY_RIGHT)
        cur = next_char(line, len, at);
    else if (code == KEY_HOME || code == 0x01)
        cur = 0;
    else if (code == KEY_END || code == 0x05)
        cur = len;
    else if (code == KEY_BACKSPACE || code == 0x08)
        cur = from = prev_char(line, at);
    else if (code == KEY_DELETE || code == 0x04)
        to = next_char(line, len, at);
    else if (code == 0x15) /* Ctrl-U */
        cur = from = 0, to = len;
    else
        return 0;
    r[0] = cur, r[1] = from, r[2] = to;
    return 1;
}

line_action_t lineedit_key_at(char *line, size_t *len, size_t *at, size_t max, key_event_t k)
{
    if (*at > *len)
        *at = *len;
    if (k.code == KEY_ESC)
        return LINE_CANCEL;
    if (k.code == KEY_ENTER || k.code == '\n')
        return LINE_ENTER;
    size_t r[3];
    line_action_t a = LINE_EDITED;
    if (edit_key(line, *len, *at, k.code, r)) {
        cut(line, len, r[1], r[2]);
        *at = r[0];
    } else {
        a = insert(line, len, at, max, k);
    }
    line[*len] = 0;
    return a;
}

line_action_t lineedit_key(char *line, size_t *len, size_t max, key_event_t k)
{
    size_t at = *len;
    if (k.code == KEY_LEFT || k.code == KEY_RIGHT || k.code == KEY_HOME || k.code == KEY_END ||
        k.code == KEY_DELETE || k.code == 0x01 || k.code == 0x04 || k.code == 0x05)
        return LINE_IGNORED; /* no cursor to move: it stays at the end */
    return lineedit_key_at(line, len, &at, max, k);
}

int lineedit_cols(const char *line, size_t n)
{
    int cols = 0;
    for (size_t i = 0; i < n && line[i]; i++)
        cols += !is_cont(line[i]);
    return cols;
}

const char *lineedit_tail(const char *line, size_t len, int room)
{
    size_t at = len;
    for (int i = 0; i < room && at > 0; i++)
        at = prev_char(line, at);
    return line + at;
}
