/* rcedit — the telnet rc file editor (rcedit.h). */
#include "rcedit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gamecfg.h"
#include "lineedit.h"

typedef enum { MODE_CHOOSE, MODE_CHANGE, MODE_INSERT } edit_mode_t;

struct rcedit {
    char title[80];
    char **lines; /* owned, each NUL-terminated */
    int n, cap;
    int cur;                        /* the chosen line */
    size_t bytes;                   /* the text's size: the lines and their newlines */
    edit_mode_t mode;               /* choosing, or typing the line cur */
    char line[RCEDIT_LINE_MAX + 1]; /* what is typed */
    size_t line_len, line_at;       /* its bytes; the cursor's byte offset */
    bool changed;
    char notice[100];
};

static const style_t st_title = {14, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
static const style_t st_cur = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_REVERSE};
static const style_t st_dim = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_DIM};
static const style_t st_msg = {9, SCREEN_DEFAULT_COLOR, ATTR_BOLD};

/* Puts a copy of s (n bytes) at line i, moving the others down. */
static int insert_at(rcedit_t *e, int i, const char *s, size_t n)
{
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 32;
        char **l = realloc(e->lines, sizeof *l * (size_t)cap);
        if (!l)
            return -1;
        e->lines = l;
        e->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, n);
    copy[n] = 0;
    memmove(&e->lines[i + 1], &e->lines[i], sizeof *e->lines * (size_t)(e->n - i));
    e->lines[i] = copy;
    e->n++;
    e->bytes += n + 1;
    return 0;
}

static void delete_at(rcedit_t *e, int i)
{
    e->bytes -= strlen(e->lines[i]) + 1;
    free(e->lines[i]);
    memmove(&e->lines[i], &e->lines[i + 1], sizeof *e->lines * (size_t)(e->n - i - 1));
    e->n--;
}

rcedit_t *rcedit_new(const char *title, const char *text, size_t len, char *err, size_t errlen)
{
    if (gamecfg_rc_check(text, len, err, errlen) < 0) /* what /options/ID saves too */
        return NULL;
    rcedit_t *e = calloc(1, sizeof *e);
    snprintf(err, errlen, "out of memory");
    if (!e)
        return NULL;
    snprintf(e->title, sizeof e->title, "%s", title);
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - text - at) : len - at;
        size_t keep = n && text[at + n - 1] == '\r' ? n - 1 : n;
        if (insert_at(e, e->n, text + at, keep) < 0) {
            rcedit_free(e);
            return NULL;
        }
        at += n + 1;
    }
    return e;
}

void rcedit_free(rcedit_t *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->n; i++)
        free(e->lines[i]);
    free(e->lines);
    free(e);
}

void rcedit_notice(rcedit_t *e, const char *msg)
{
    snprintf(e->notice, sizeof e->notice, "%s", msg);
}

bool rcedit_changed(const rcedit_t *e)
{
    return e->changed;
}

void rcedit_text(const rcedit_t *e, buf_t *out)
{
    for (int i = 0; i < e->n; i++) {
        buf_puts(out, e->lines[i]);
        buf_putc(out, '\n');
    }
}

/* ---- keys ------------------------------------------------------------------------- */

static void start_typing(rcedit_t *e, edit_mode_t mode)
{
    e->mode = mode;
    snprintf(e->line, sizeof e->line, "%s", mode == MODE_CHANGE ? e->lines[e->cur] : "");
    e->line_len = e->line_at = strlen(e->line);
}

/* Enter while typing: the line replaces line cur, if the file stays in bounds. */
static void keep_line(rcedit_t *e)
{
    size_t old = strlen(e->lines[e->cur]);
    if (e->bytes - old + e->line_len > RCEDIT_TEXT_MAX) {
        rcedit_notice(e, "That would make the file larger than 8192 bytes.");
        return;
    }
    char *copy = strdup(e->line);
    if (!copy) {
        rcedit_notice(e, "Out of memory.");
        return;
    }
    free(e->lines[e->cur]);
    e->lines[e->cur] = copy;
    e->bytes = e->bytes - old + e->line_len;
    e->mode = MODE_CHOOSE;
    e->changed = true;
}

static void typing_key(rcedit_t *e, key_event_t k)
{
    switch (lineedit_key_at(e->line, &e->line_len, &e->line_at, RCEDIT_LINE_MAX, k)) {
    case LINE_ENTER: keep_line(e); return;
    case LINE_CANCEL:
        if (e->mode == MODE_INSERT) /* the new line goes again */
            delete_at(e, e->cur--);
        if (e->cur < 0)
            e->cur = 0;
        e->mode = MODE_CHOOSE;
        return;
    case LINE_FULL: rcedit_notice(e, "A line holds at most 200 bytes."); return;
    case LINE_EDITED:
    case LINE_IGNORED: return;
    }
}

static void insert_line(rcedit_t *e)
{
    if (e->n >= RCEDIT_LINES || e->bytes + 1 > RCEDIT_TEXT_MAX) {
        rcedit_notice(e, "The file is as large as it may be.");
        return;
    }
    int at = e->n ? e->cur + 1 : 0;
    if (insert_at(e, at, "", 0) < 0) {
        rcedit_notice(e, "Out of memory.");
        return;
    }
    e->cur = at;
    e->changed = true;
    start_typing(e, MODE_INSERT);
}

/* Moves the chosen line by d (clamped). */
static void move(rcedit_t *e, int d)
{
    e->cur += d;
    if (e->cur >= e->n)
        e->cur = e->n - 1;
    if (e->cur < 0)
        e->cur = 0;
}

rcedit_result_t rcedit_key(rcedit_t *e, key_event_t k)
{
    e->notice[0] = 0;
    if (e->mode != MODE_CHOOSE) {
        typing_key(e, k);
        return RCEDIT_GOING;
    }
    uint32_t c = k.mods & KEYMOD_CTRL ? 0 : k.code;
    if (c == KEY_UP || c == 'k')
        move(e, -1);
    else if (c == KEY_DOWN || c == 'j')
        move(e, 1);
    else if (c == KEY_PGUP || c == KEY_PGDN)
        move(e, c == KEY_PGUP ? -10 : 10);
    else if (c == KEY_HOME || c == KEY_END)
        move(e, c == KEY_HOME ? -e->n : e->n);
    else if ((c == KEY_ENTER || c == 'c') && e->n)
        start_typing(e, MODE_CHANGE);
    else if (c == 'i')
        insert_line(e);
    else if (c == 'd' && e->n) {
        delete_at(e, e->cur);
        move(e, 0);
        e->changed = true;
    } else if (c == 's')
        return RCEDIT_SAVE;
    else if (c == 'q' || c == KEY_ESC)
        return RCEDIT_QUIT;
    return RCEDIT_GOING;
}

/* ---- drawing ------------------------------------------------------------------------ */

/* s with control characters shown as '?', its first room characters (a
 * character is a cell). */
static void put_line(screen_t *scr, int x, int y, style_t st, const char *s, int room)
{
    char shown[RCEDIT_LINE_MAX + 1];
    size_t n = 0;
    for (int cols = 0; s[n] && n < RCEDIT_LINE_MAX; n++) {
        if (((unsigned char)s[n] & 0xC0) != 0x80 && cols++ == room)
            break;
        shown[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7F ? '?' : s[n];
    }
    shown[n] = 0;
    screen_text(scr, x, y, st, shown);
}

/* The first character shown of the line being typed: the cursor in view. */
static int typing_from(const rcedit_t *e, int room)
{
    int col = lineedit_cols(e->line, e->line_at);
    return col < room ? 0 : col - room + 1;
}

/* The line being typed from its character first. */
static const char *from_char(const char *s, int first)
{
    for (; first > 0 && *s; first--)
        for (s++; ((unsigned char)*s & 0xC0) == 0x80; s++)
            ;
    return s;
}

void rcedit_draw(const rcedit_t *e, screen_t *scr)
{
    screen_clear(scr);
    screen_text(scr, 1, 0, st_title, e->title);
    int rows = scr->h - 4, first = 2, room = scr->w - 6;
    int top = e->cur < rows ? 0 : e->cur - rows + 1;
    for (int i = top; i < e->n && i - top < rows; i++) {
        int y = first + i - top;
        bool here = i == e->cur;
        screen_textf(scr, 0, y, st_dim, "%4d", i + 1);
        bool typing = here && e->mode != MODE_CHOOSE;
        const char *text = typing ? from_char(e->line, typing_from(e, room)) : e->lines[i];
        put_line(scr, 5, y, here ? st_cur : STYLE_DEFAULT, text, room);
    }
    if (e->n == 0)
        screen_text(scr, 5, first, st_dim, "(empty: i inserts a line)");
    if (e->notice[0])
        screen_text(scr, 1, scr->h - 2, st_msg, e->notice);
    screen_text(scr, 1, scr->h - 1, st_dim,
                e->mode == MODE_CHOOSE
                    ? "Up/Down move  Enter change  i insert  d delete  s save  q quit unsaved"
                    : "Type the line.  Left/Right move  Enter keeps it  Esc drops the change");
    int cy = first + e->cur - top;
    int cx = 5 + lineedit_cols(e->line, e->line_at) - typing_from(e, room);
    screen_cursor(scr, cx < scr->w ? cx : scr->w - 1, cy, e->mode != MODE_CHOOSE && cy < scr->h);
}
