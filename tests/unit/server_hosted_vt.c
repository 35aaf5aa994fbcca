/* Unit tests: server/hosted's terminal side — vtguard (what reaches
 * libvterm) and vtgrid (libvterm's screen in Warren's grid). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "ansi.h"
#include "hosted/vtgrid.h"
#include "hosted/vtguard.h"

/* ---- vtgrid ---------------------------------------------------------------------- */

static void feed(vtgrid_t *g, const char *s)
{
    vtgrid_write(g, s, strlen(s));
}

static const cell_t *at(const screen_t *s, int x, int y)
{
    const cell_t *c = screen_at(s, x, y);
    ck_assert_ptr_nonnull(c);
    return c;
}

/* Row y's text from column x, n cells (ASCII cells only). */
static void row_text(const screen_t *s, int x, int y, int n, char *out)
{
    for (int i = 0; i < n; i++) {
        uint32_t ch = at(s, x + i, y)->ch;
        out[i] = ch < 0x80 ? (char)ch : '?';
    }
    out[n] = 0;
}

START_TEST(vtgrid_colours_attributes_and_cursor)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(10, 10);
    feed(g, "\x1b[1;31mRED\x1b[0m");
    feed(g, "\x1b[2;1H\x1b[38;5;200mP\x1b[48;2;255;0;0mQ\x1b[0m");
    feed(g, "\x1b[3;1H\x1b[4;7mU\x1b[0m\x1b[5mB\x1b[0m\x1b[2mD\x1b[0m");
    feed(g, "\x1b[4;1H\xe6\x97\xa5x");
    feed(g, "\x1b[5;1H\x1b[94mBRIGHT\x1b[0m\x1b[38;2;128;128;128mG");
    feed(g, "\x1b[10;20H\x1b[?25l");
    ck_assert(vtgrid_damaged(g));
    ck_assert_int_eq(vtgrid_sync(g, s, false), 80 * 24); /* another size: all */
    ck_assert(!vtgrid_damaged(g));
    ck_assert_int_eq(s->w, 80);
    ck_assert_int_eq(s->h, 24);
    const cell_t *c = at(s, 0, 0);
    ck_assert_uint_eq(c->ch, 'R');
    ck_assert_uint_eq(c->fg, 1);
    ck_assert_uint_eq(c->bg, SCREEN_DEFAULT_COLOR);
    ck_assert_uint_eq(c->attr, ATTR_BOLD);
    ck_assert_uint_eq(at(s, 3, 0)->fg, SCREEN_DEFAULT_COLOR); /* after SGR 0 */
    ck_assert_uint_eq(at(s, 3, 0)->attr, 0);
    ck_assert_uint_eq(at(s, 0, 1)->fg, 200);
    ck_assert_uint_eq(at(s, 0, 1)->bg, SCREEN_DEFAULT_COLOR);
    ck_assert_uint_eq(at(s, 1, 1)->fg, 200);
    ck_assert_uint_eq(at(s, 1, 1)->bg, 196); /* 24-bit red: the cube's red */
    ck_assert_uint_eq(at(s, 0, 2)->attr, ATTR_UNDERLINE | ATTR_REVERSE);
    ck_assert_uint_eq(at(s, 1, 2)->attr, ATTR_BLINK);
    ck_assert_uint_eq(at(s, 2, 2)->ch, 'D');
    ck_assert_uint_eq(at(s, 2, 2)->attr, 0);      /* faint: libvterm 0.1.4 has none */
    ck_assert_uint_eq(at(s, 0, 3)->ch, 0x65E5);   /* wide: first cell */
    ck_assert_uint_eq(at(s, 1, 3)->ch, ' ');      /* its second column */
    ck_assert_uint_eq(at(s, 2, 3)->ch, 'x');      /* the row does not shift */
    ck_assert_uint_eq(at(s, 0, 4)->fg, 12);       /* bright blue */
    ck_assert_uint_eq(at(s, 6, 4)->fg, 232 + 12); /* grey 128 on the ramp */
    ck_assert_int_eq(s->cur_x, 19);
    ck_assert_int_eq(s->cur_y, 9);
    ck_assert(!s->cur_visible);
    feed(g, "\x1b[?25h");
    ck_assert(vtgrid_damaged(g));
    vtgrid_sync(g, s, false);
    ck_assert(s->cur_visible);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

START_TEST(vtgrid_copies_only_damage)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    feed(g, "hello\r\nworld");
    vtgrid_sync(g, s, true);
    screen_clean(s);
    ck_assert_int_eq(vtgrid_sync(g, s, false), 0); /* nothing changed */
    feed(g, "\x1b[6;11HZ");
    int cells = vtgrid_sync(g, s, false);
    ck_assert_int_gt(cells, 0);
    ck_assert_int_le(cells, 3); /* the cell and one on each side */
    for (int y = 0; y < 24; y++)
        ck_assert_int_eq(s->dirty[y] != 0, y == 5);
    ck_assert_uint_eq(at(s, 10, 5)->ch, 'Z');
    screen_clean(s);
    feed(g, "\x1b[6;11HZ"); /* the same cell again: damaged, not changed */
    vtgrid_sync(g, s, false);
    ck_assert(!s->dirty[5]);
    /* an erase of nothing (ED 1 on the top row) then a glyph: still copied */
    feed(g, "\x1b[H\x1b[1JJ");
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 0, 0)->ch, 'J');
    feed(g, "\x1b[1;1Hh");
    /* a scroll moves every row: all of them are copied */
    feed(g, "\x1b[24;1H\n");
    vtgrid_sync(g, s, false);
    char t[6];
    row_text(s, 0, 0, 5, t);
    ck_assert_str_eq(t, "world");
    ck_assert_uint_eq(at(s, 10, 4)->ch, 'Z');
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* A frame is drawn into a copy of the last one sent, which may carry what
 * was drawn over the game (a chat strip, a notice) or be another viewer's
 * screen: the rows that are not what the last sync left are copied whole,
 * the others only where the terminal changed. */
START_TEST(vtgrid_puts_right_a_screen_drawn_over)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24), *other = screen_new(80, 24);
    feed(g, "hello\r\nworld");
    vtgrid_sync(g, s, false); /* the first sync copies all */
    screen_clean(s);
    ck_assert_int_eq(vtgrid_sync(g, s, false), 0); /* nothing changed */
    screen_text(s, 0, 1, STYLE_DEFAULT, "CHAT STRIP");
    screen_clean(s);
    ck_assert_int_eq(vtgrid_sync(g, s, false), 80); /* that row, whole */
    char t[11];
    row_text(s, 0, 1, 10, t);
    ck_assert_str_eq(t, "world     ");
    for (int y = 0; y < 24; y++)
        ck_assert_int_eq(s->dirty[y] != 0, y == 1);
    feed(g, "\x1b[1;1HJ");
    /* another screen: only its rows that differ (blank rows are alike) */
    ck_assert_int_eq(vtgrid_sync(g, other, false), 2 * 80);
    row_text(other, 0, 0, 5, t);
    ck_assert_str_eq(t, "Jello");
    row_text(other, 0, 1, 5, t);
    ck_assert_str_eq(t, "world");
    screen_free(other);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

typedef struct {
    char data[64];
    size_t len;
} replies_t;

static void on_reply(const char *b, size_t n, void *user)
{
    replies_t *r = user;
    ck_assert_uint_le(r->len + n, sizeof r->data - 1);
    memcpy(r->data + r->len, b, n);
    r->len += n;
    r->data[r->len] = 0;
}

START_TEST(vtgrid_answers_queries)
{
    replies_t r = {{0}, 0};
    vtgrid_t *g = vtgrid_new(80, 24, on_reply, &r);
    feed(g, "\x1b[5;7H\x1b[6n");
    ck_assert_str_eq(r.data, "\x1b[5;7R");
    r.len = 0;
    feed(g, "\x1b[c");
    ck_assert_int_eq(strncmp(r.data, "\x1b[?", 3), 0); /* device attributes */
    vtgrid_free(g);
}
END_TEST

START_TEST(vtgrid_resizes_and_reverses)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    feed(g, "top");
    vtgrid_sync(g, s, true);
    ck_assert_int_eq(vtgrid_resize(g, 0, 24), -1);
    ck_assert_int_eq(vtgrid_resize(g, SCREEN_MAX_W + 1, 24), -1);
    ck_assert_int_eq(vtgrid_resize(g, 100, 30), 0);
    int w, h;
    vtgrid_size(g, &w, &h);
    ck_assert(w == 100 && h == 30);
    ck_assert_int_eq(vtgrid_sync(g, s, false), 100 * 30);
    ck_assert(s->w == 100 && s->h == 30);
    char t[4];
    row_text(s, 0, 0, 3, t);
    ck_assert_str_eq(t, "top");
    feed(g, "\x1b[?5h"); /* DECSCNM: the whole screen in reverse video */
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 0, 0)->attr, ATTR_REVERSE);
    ck_assert_uint_eq(at(s, 99, 29)->attr, ATTR_REVERSE);
    feed(g, "\x1b[7mX\x1b[?5l"); /* reverse on reverse: normal */
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 3, 0)->attr, ATTR_REVERSE);
    ck_assert_uint_eq(at(s, 0, 0)->attr, 0);
    screen_free(s);
    vtgrid_free(g);
    ck_assert_ptr_null(vtgrid_new(0, 24, NULL, NULL));
}
END_TEST

/* A hosted game's terminal costs one screen of four bytes a cell beside
 * libvterm's parser and state (libvterm's own screen layer kept two
 * screens of 36-byte cells: 144 KB at 80x24). The alternate screen costs
 * nothing more while the primary one under it is blank, as it is for a
 * program under a pty of its own. */
#define ONE_GRID(w, h) ((size_t)(w) * (h)*4)
#define VT_STATE_MAX   4096 /* libvterm's state and parser, vtgrid's own fields */

START_TEST(vtgrid_memory_is_one_grid)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    ck_assert_uint_le(vtgrid_memory(g), ONE_GRID(80, 24) + VT_STATE_MAX);
    feed(g, "\x1b[?1049h\x1b[H\x1b[2J\x1b[1;31m@\x1b[m......");
    ck_assert_uint_le(vtgrid_memory(g), ONE_GRID(80, 24) + VT_STATE_MAX);
    feed(g, "\x1b[?1049l");
    feed(g, "shell prompt$ ");
    feed(g, "\x1b[?1049h"); /* the primary screen is kept now */
    size_t two = vtgrid_memory(g);
    ck_assert_uint_ge(two, 2 * ONE_GRID(80, 24));
    ck_assert_uint_le(two, 2 * ONE_GRID(80, 24) + VT_STATE_MAX);
    feed(g, "\x1b[?1049l");
    ck_assert_uint_le(vtgrid_memory(g), ONE_GRID(80, 24) + VT_STATE_MAX);
    ck_assert_int_eq(vtgrid_resize(g, 132, 43), 0);
    ck_assert_uint_le(vtgrid_memory(g), ONE_GRID(132, 43) + VT_STATE_MAX);
    vtgrid_sync(g, s, true);
    char t[15];
    row_text(s, 0, 0, 14, t);
    ck_assert_str_eq(t, "shell prompt$ ");
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* Each cell names its style in a table of the screen's styles: with more
 * distinct styles than the table holds at once, the new ones show in the
 * default style, nothing breaks, and styles no longer on the screen make
 * room again. */
START_TEST(vtgrid_styles_fill_and_free)
{
    vtgrid_t *g = vtgrid_new(256, 16, NULL, NULL);
    screen_t *s = screen_new(1, 1);
    char seq[64];
    for (int bg = 0; bg < 9; bg++) /* 2304 styles, one cell each */
        for (int fg = 0; fg < 256; fg++) {
            snprintf(seq, sizeof seq, "\x1b[%d;%dH\x1b[38;5;%d;48;5;%dmx", bg + 1, fg + 1, fg, bg);
            feed(g, seq);
        }
    vtgrid_sync(g, s, true);
    ck_assert_uint_eq(at(s, 200, 0)->fg, 200);
    ck_assert_uint_eq(at(s, 254, 7)->bg, 7); /* the 2048th style, with the default's */
    ck_assert_uint_eq(at(s, 255, 7)->bg, SCREEN_DEFAULT_COLOR);
    ck_assert_uint_eq(at(s, 255, 8)->ch, 'x');
    ck_assert_uint_eq(at(s, 255, 8)->fg, SCREEN_DEFAULT_COLOR); /* the table was full */
    ck_assert_uint_le(vtgrid_memory(g), ONE_GRID(256, 16) + 2048 * 6 + VT_STATE_MAX);
    feed(g, "\x1b[m\x1b[2J\x1b[H\x1b[38;5;9;48;5;3mA\x1b[38;5;10mB"); /* room again */
    vtgrid_sync(g, s, true);
    ck_assert_uint_eq(at(s, 0, 0)->fg, 9);
    ck_assert_uint_eq(at(s, 0, 0)->bg, 3);
    ck_assert_uint_eq(at(s, 1, 0)->fg, 10);
    ck_assert_uint_eq(at(s, 2, 0)->bg, SCREEN_DEFAULT_COLOR);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* The alternate screen (1049, 1047): the primary screen comes back as it
 * was, whatever was drawn over it, and after a resize in between. */
START_TEST(vtgrid_alternate_screen_keeps_the_primary)
{
    vtgrid_t *g = vtgrid_new(20, 5, NULL, NULL);
    screen_t *s = screen_new(20, 5);
    feed(g, "\x1b[44m\x1b[2Jprimary\x1b[3;2H");
    feed(g, "\x1b[?1049h");
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 0, 0)->ch, ' '); /* erased with the pen */
    ck_assert_uint_eq(at(s, 0, 0)->bg, 4);
    feed(g, "\x1b[m\x1b[Halternate\x1b[5;20H");
    vtgrid_sync(g, s, false);
    char t[10];
    row_text(s, 0, 0, 9, t);
    ck_assert_str_eq(t, "alternate");
    ck_assert_int_eq(vtgrid_resize(g, 30, 6), 0);
    feed(g, "\x1b[?1049l"); /* the cursor saved by 1049 comes back too */
    vtgrid_sync(g, s, false);
    ck_assert(s->w == 30 && s->h == 6);
    row_text(s, 0, 0, 9, t);
    ck_assert_str_eq(t, "primary  ");
    ck_assert_uint_eq(at(s, 8, 0)->bg, 4);
    ck_assert_uint_eq(at(s, 25, 0)->bg, SCREEN_DEFAULT_COLOR); /* new cells: the pen's */
    ck_assert_int_eq(s->cur_x, 1);
    ck_assert_int_eq(s->cur_y, 2);
    feed(g, "\x1b[?1047hX\x1b[?1047h"); /* in twice: still one primary kept */
    feed(g, "\x1b[?1047l\x1b[?1047l");  /* out twice */
    vtgrid_sync(g, s, false);
    row_text(s, 0, 0, 7, t);
    ck_assert_str_eq(t, "primary");
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* Protected cells (DECSCA) survive a selective erase (DECSED, DECSEL)
 * and not an ordinary one; insert and delete move cells along the row. */
START_TEST(vtgrid_selective_erase_and_insertion)
{
    vtgrid_t *g = vtgrid_new(20, 3, NULL, NULL);
    screen_t *s = screen_new(20, 3);
    feed(g, "ab\x1b[1\"qKEEP\x1b[0\"qcd\x1b[?2J");
    vtgrid_sync(g, s, false);
    char t[9];
    row_text(s, 0, 0, 8, t);
    ck_assert_str_eq(t, "  KEEP  ");
    feed(g, "\x1b[1;3H\x1b[2@");
    vtgrid_sync(g, s, false);
    row_text(s, 0, 0, 8, t);
    ck_assert_str_eq(t, "    KEEP");
    feed(g, "\x1b[1;1H\x1b[3P\x1b[2;1Hrow2\x1b[1;1H\x1b[L");
    vtgrid_sync(g, s, false);
    row_text(s, 0, 1, 5, t);
    ck_assert_str_eq(t, " KEEP");
    row_text(s, 0, 2, 4, t);
    ck_assert_str_eq(t, "row2");
    feed(g, "\x1b[2;1H\x1b[K");
    vtgrid_sync(g, s, false);
    row_text(s, 0, 1, 5, t);
    ck_assert_str_eq(t, "     ");
    /* a protected wide character keeps its first column only, as libvterm's
     * screen did: the second is erased with the pen */
    feed(g, "\x1b[3;1H\x1b[1\"q\xe6\x97\xa5\x1b[0\"q\x1b[4m\x1b[?2J\x1b[m");
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 0, 2)->ch, 0x65E5);
    ck_assert_uint_eq(at(s, 1, 2)->attr, ATTR_UNDERLINE);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* What crashes libvterm 0.1.4 must not reach it: a CSI with more than 16
 * parameters (it writes past its array), a wide character in one column. */
START_TEST(vtgrid_survives_libvterm_limits)
{
    ck_assert_ptr_null(vtgrid_new(1, 24, NULL, NULL));
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    ck_assert_int_eq(vtgrid_resize(g, 1, 24), -1);
    char seq[400] = "\x1b[4";
    for (int i = 0; i < 40; i++)
        strcat(seq, i % 2 ? ";1" : ":5");
    strcat(seq, ";31mA\x1b[0m");
    feed(g, seq);
    /* split across writes, C0 inside, an ESC restarting it: still counted */
    feed(g, "\x1b[5;\n5;5;5;5;5;5;5;5;5;5;5;5");
    feed(g, ";5;5;5;5;5;5;5;5;5;5;7mB\x1b[0m\x1b\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;7mC");
    feed(g, "\x1b[0m");
    feed(g, "\x1b[1;4;");
    feed(g, "5;7;38;5;82mD\x1b[0m\xe6\x97\xa5");
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 0, 0)->ch, 'A');
    ck_assert_uint_eq(at(s, 0, 0)->attr, ATTR_UNDERLINE | ATTR_BOLD); /* 31 was cut */
    ck_assert_uint_eq(at(s, 0, 0)->fg, SCREEN_DEFAULT_COLOR);
    /* the line feed inside the sequence moved the cursor down a row */
    ck_assert_uint_eq(at(s, 1, 1)->ch, 'B');
    ck_assert_uint_eq(at(s, 1, 1)->attr, ATTR_BLINK);
    ck_assert_uint_eq(at(s, 2, 1)->ch, 'C');
    ck_assert_uint_eq(at(s, 2, 1)->attr, ATTR_BOLD);
    ck_assert_uint_eq(at(s, 3, 1)->ch, 'D');
    ck_assert_uint_eq(at(s, 3, 1)->attr, ATTR_BOLD | ATTR_UNDERLINE | ATTR_BLINK | ATTR_REVERSE);
    ck_assert_uint_eq(at(s, 3, 1)->fg, 82);
    ck_assert_uint_eq(at(s, 4, 1)->ch, 0x65E5);
    ck_assert_int_eq(vtgrid_resize(g, 2, 3), 0);
    feed(g, "\x1b[1;2H\xe6\x97\xa5\xe6\x97\xa5x"); /* wide at the last column */
    vtgrid_sync(g, s, false);
    ck_assert_int_eq(s->w, 2);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* After a resize the cursor is on the screen and the margins are the
 * screen's (libvterm 0.1.4 leaves a negative cursor row and stale margins). */
START_TEST(vtgrid_settles_after_a_resize)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    feed(g, "\x1b[24;1Hbottom\x1b[1;3H");
    ck_assert_int_eq(vtgrid_resize(g, 80, 20), 0); /* scrolls the bottom row up */
    feed(g, "X");
    vtgrid_sync(g, s, false);
    char t[8];
    row_text(s, 0, 19, 6, t);
    ck_assert_str_eq(t, "bottom");
    ck_assert_uint_eq(at(s, 2, 0)->ch, 'X'); /* where the cursor was */
    feed(g, "\x1b[2J\x1b[5;10r");
    ck_assert_int_eq(vtgrid_resize(g, 80, 3), 0); /* the margins now lie below */
    feed(g, "\x1b[Ha\r\nb\r\nc\r\nd");
    vtgrid_sync(g, s, false);
    for (int y = 0; y < 3; y++)
        ck_assert_uint_eq(at(s, 0, y)->ch, (uint32_t) "bcd"[y]);
    feed(g, "\x1b[2"); /* a sequence cut by the resize is dropped, not misread */
    ck_assert_int_eq(vtgrid_resize(g, 80, 4), 0);
    feed(g, ";5HY");
    vtgrid_sync(g, s, false);
    ck_assert_uint_eq(at(s, 1, 2)->ch, ';');
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

START_TEST(vtgrid_shows_double_width_lines_at_normal_width)
{
    vtgrid_t *g = vtgrid_new(20, 4, NULL, NULL);
    screen_t *s = screen_new(20, 4), *full = screen_new(1, 1);
    feed(g, "\x1b[7m\x1b[2;1H0123456789abcdefghij\x1b[2;1H");
    vtgrid_sync(g, s, false);
    feed(g, "\x1b#6Wide"); /* double width: the row's right half goes */
    vtgrid_sync(g, s, false);
    char t[21];
    row_text(s, 0, 1, 20, t);
    ck_assert_str_eq(t, "Wide456789          ");
    ck_assert_uint_eq(at(s, 15, 1)->attr, 0);
    feed(g, "\x1b#5"); /* single width again */
    vtgrid_sync(g, s, false);
    vtgrid_sync(g, full, true);
    ck_assert_mem_eq(s->cells, full->cells, sizeof(cell_t) * 20 * 4);
    screen_free(full);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* The grid's own text: what a copy shows (a wide character's second
 * column and a double-width line's right half blank), never a cell
 * another draw put over a copy (a chat strip). */
START_TEST(vtgrid_text_is_the_programs_screen)
{
    vtgrid_t *g = vtgrid_new(20, 3, NULL, NULL);
    screen_t *s = screen_new(20, 3);
    feed(g, "\xc3\xa9\xe6\x97\xa5x\x1b[2;1H0123456789abcdefghij\x1b[2;1H\x1b#6Wide");
    vtgrid_sync(g, s, false);
    screen_text(s, 10, 2, STYLE_DEFAULT, "drawn over");
    buf_t b;
    buf_init(&b);
    vtgrid_text(g, &b);
    const char *want = "\xc3\xa9\xe6\x97\xa5 x                \n"
                       "Wide456789          \n"
                       "                    \n";
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.len, strlen(want));
    ck_assert_mem_eq(b.data, want, b.len);
    buf_free(&b);
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* REP repeats the glyph before it (libvterm 0.1.4 would hang on one with
 * nothing before it): the glyph's columns' worth, with the pen in use. */
START_TEST(vtgrid_repeats_glyphs_itself)
{
    vtgrid_t *g = vtgrid_new(80, 24, NULL, NULL);
    screen_t *s = screen_new(80, 24);
    feed(g, "\x1b[b\x1b[5b\xcc\x81\x1b[b\x1b[2;1Hx\xc2\x85\x1b[3b"); /* nothing to repeat */
    feed(g, "\x1b[3;1H\x1b[31mx\x1b[3b\x1b[0m|");
    feed(g, "\x1b[4;1H\xe6\x97\xa5\x1b[");
    feed(g, "4");
    feed(g, "b|\x1b[5;78H-\x1b[10bZ");
    feed(g, "\x1b[7;1H\x1b[?2bq\x1b[1 bq"); /* not REP: a leader, an intermediate */
    vtgrid_sync(g, s, true);
    char t[8];
    row_text(s, 0, 2, 5, t);
    ck_assert_str_eq(t, "xxxx|");
    ck_assert_uint_eq(at(s, 3, 2)->fg, 1);
    ck_assert_uint_eq(at(s, 4, 2)->fg, SCREEN_DEFAULT_COLOR);
    for (int x = 0; x < 6; x += 2) /* 4 more columns: two more wide glyphs */
        ck_assert_uint_eq(at(s, x, 3)->ch, 0x65E5);
    ck_assert_uint_eq(at(s, 6, 3)->ch, '|');
    row_text(s, 77, 4, 3, t);
    ck_assert_str_eq(t, "---");              /* cut at the end of the row */
    ck_assert_uint_eq(at(s, 0, 5)->ch, 'Z'); /* which then wraps as REP would */
    row_text(s, 0, 6, 2, t);
    ck_assert_str_eq(t, "qq");
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

START_TEST(vtgrid_nearest_palette_entry)
{
    ck_assert_int_eq(vtgrid_nearest256(255, 0, 0), 196);
    ck_assert_int_eq(vtgrid_nearest256(0, 0, 0), 16);
    ck_assert_int_eq(vtgrid_nearest256(255, 255, 255), 231);
    ck_assert_int_eq(vtgrid_nearest256(95, 135, 175), 16 + 36 + 12 + 3);
    ck_assert_int_eq(vtgrid_nearest256(128, 128, 128), 244); /* ramp beats the cube */
    ck_assert_int_eq(vtgrid_nearest256(238, 238, 238), 255);
    ck_assert_int_eq(vtgrid_nearest256(250, 5, 3), 196);
}
END_TEST

/* ---- vtguard ---------------------------------------------------------------------- */

typedef struct {
    char out[512]; /* what libvterm would get; a REP shows as "<REP n>" */
    size_t len;
} sink_buf_t;

static void sink_emit(const char *b, size_t n, void *user)
{
    sink_buf_t *k = user;
    ck_assert_uint_lt(k->len + n, sizeof k->out);
    memcpy(k->out + k->len, b, n);
    k->len += n;
    k->out[k->len] = 0;
}

static void sink_rep(unsigned count, void *user)
{
    sink_buf_t *k = user;
    k->len += (size_t)snprintf(k->out + k->len, sizeof k->out - k->len, "<REP %u>", count);
}

static void sink_restored(void *user)
{
    sink_buf_t *k = user;
    k->len += (size_t)snprintf(k->out + k->len, sizeof k->out - k->len, "<R>");
}

/* Runs the chunks (NULL-terminated) through a fresh guard. */
static const char *guarded(sink_buf_t *k, const char *const *chunks)
{
    vtguard_t g;
    vtguard_init(&g);
    vtguard_sink_t sink = {sink_emit, sink_rep, k, sink_restored};
    k->len = 0;
    k->out[0] = 0;
    for (; *chunks; chunks++)
        vtguard_write(&g, *chunks, strlen(*chunks), &sink);
    return k->out;
}

/* What a guard makes of output written in chunks: each case's chunks go
 * through a fresh guard in turn (NULL after the last), and want is what
 * libvterm gets. */
typedef struct {
    const char *chunks[8];
    const char *want;
} guard_case_t;

#define PLAIN "hello \x1b[1;31mred\x1b[0m \xe6\x97\xa5 \x1b]0;title\x07 \x1b(0q\x1b(B"

static const guard_case_t GUARD_CASES[] = {
    /* ordinary output passes; split anywhere, the same bytes come out */
    {{PLAIN}, PLAIN},
    {{"he", "llo \x1b", "[1;3", "1mred \xe6", "\x97", "\xa5!"},
     "hello \x1b[1;31mred \xe6\x97\xa5!"},
    /* 16 parameters pass; from the 16th separator on, the rest is dropped */
    {{"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m"},
     "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m"},
    {{"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18:19mX"},
     "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16mX"},
    {{"\x1b[;;;;;;;;;", ";;;;;;", ";;;;H"}, "\x1b[;;;;;;;;;;;;;;;H"},
    /* after intermediates, after C0 inside, after a string: still a CSI */
    {{"\x1b \x1b[;;;;;;;;;;;;;;;;;;m"}, "\x1b \x1b[;;;;;;;;;;;;;;;m"},
    {{"\x1b (\n[;;;;;;;;;;;;;;;;;;m"}, "\x1b (\n[;;;;;;;;;;;;;;;m"},
    {{"\x1b]0;\x1b[;;;;;;;;;;;;;;;;;;m"}, "\x1b]0;\x1b[;;;;;;;;;;;;;;;m"},
    /* a C1 control in UTF-8 form, dropped, does not end the count */
    {{"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15\xc2\x8d;16;17;18mX"},
     "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16mX"},
    {{"\x1b[1;\xc4", "\x80;;;;;;;;;;;;;;;;;;m"},
     "\x1b[1;\xc4\x80;;;;;;;;;;;;;;;;;;m"}, /* text ends it */
    /* a parameter keeps six digits */
    {{"\x1b[12345678;99999999999H"}, "\x1b[123456;999999H"},
    /* CAN ends a sequence: what follows is text again */
    {{"\x1b[;;\x18;;;;;;;;;;;;;;;;;;"}, "\x1b[;;\x18;;;;;;;;;;;;;;;;;;"},
    /* REP is taken out */
    {{"x\x1b[b"}, "x\x1b[\x18<REP 1>"},
    {{"x\x1b[0b"}, "x\x1b[0\x18<REP 1>"},
    {{"x\x1b[", "12", "b."}, "x\x1b[12\x18<REP 12>."},
    {{"x\x1b[4;5b"}, "x\x1b[4;5\x18<REP 4>"},
    /* with a leader or an intermediate it is another sequence */
    {{"\x1b[?4b\x1b[4 b"}, "\x1b[?4b\x1b[4 b"},
    /* after each form of DECRC the sink hears of it, once libvterm has it */
    {{"a\x1b", "8b\x1b[?1049lc\x1b[?1048;25ld\x1b[u"},
     "a\x1b"
     "8<R>b\x1b[?1049l<R>c\x1b[?1048;25l<R>d\x1b[u<R>"},
    {{"\x1b(8\x1b[1l\x1b[?1049h8"}, "\x1b(8\x1b[1l\x1b[?1049h8"},
    /* only whole UTF-8 passes: broken sequences become U+FFFD; so do 5- and
     * 6-byte forms */
    {{"a\xe6\x97"
      "b"},
     "a\xef\xbf\xbd"
     "b"},
    {{"\xc4\xc4\x80"}, "\xef\xbf\xbd\xc4\x80"},
    {{"\xc4\x1b[m"}, "\xef\xbf\xbd\x1b[m"},
    {{"\xf8\x88\x80\x80\x80"}, "\xef\xbf\xbd\x88\x80\x80\x80"},
    /* C1 controls in UTF-8 form are dropped (libvterm 0.1.4 crashes erasing
     * them); the 7-bit forms and U+00A0 on pass */
    {{"a\xc2\x8d\x1b[Jb\xc2\x84\xc2\x9f\xc2\xa0"}, "a\x1b[Jb\xc2\xa0"},
    {{"\x1bM\x1b"
      "D"},
     "\x1bM\x1b"
     "D"},
    /* a sequence split across writes is held, not cut */
    {{"\xf0\x9f", "\x98", "\x80!"}, "\xf0\x9f\x98\x80!"},
    /* a byte >= 0x80 ends a CSI and may start text: held the same way */
    {{"\x1b[1\xc4"
      "0"},
     "\x1b[1\xef\xbf\xbd"
     "0"},
};

START_TEST(vtguard_cases)
{
    sink_buf_t k;
    ck_assert_msg(!strcmp(guarded(&k, GUARD_CASES[_i].chunks), GUARD_CASES[_i].want),
                  "GUARD_CASES[%d]: not what libvterm should get", _i);
}
END_TEST

/* A cursor saved on a taller screen comes back on the screen: libvterm
 * 0.1.4 would index its line table with it (DECDHL then writes past it). */
START_TEST(vtgrid_restored_cursor_stays_on_the_screen)
{
    vtgrid_t *g = vtgrid_new(68, 8, NULL, NULL);
    screen_t *s = screen_new(1, 1);
    feed(g, "\x1b[30;3H\x1b"
            "7");
    ck_assert_int_eq(vtgrid_resize(g, 126, 6), 0);
    feed(g, "\x1b"
            "8\x1b#3X");
    vtgrid_sync(g, s, true);
    ck_assert_uint_eq(at(s, 2, 5)->ch, 'X');
    feed(g, "\x1b[?1049h\x1b[8;9H\x1b[?1048h");
    ck_assert_int_eq(vtgrid_resize(g, 40, 4), 0);
    feed(g, "\x1b[?1048lY");
    vtgrid_sync(g, s, true);
    ck_assert_uint_eq(at(s, 8, 3)->ch, 'Y');
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* What crashed libvterm 0.1.4 through the guard: C1 controls in UTF-8
 * form, then an erase. */
START_TEST(vtgrid_survives_c1_in_utf8)
{
    vtgrid_t *g = vtgrid_new(80, 16, NULL, NULL);
    screen_t *s = screen_new(1, 1);
    static const char out[] = "x\xc2\x8d\x01\x1b[\x00\x00JJ\xc2\x84\x1b[K\xc2\x85\x1b[2Jy";
    vtgrid_write(g, out, sizeof out - 1);
    vtgrid_sync(g, s, true);
    /* "x", "J" written, the screen erased, "y" where the cursor stood */
    ck_assert_uint_eq(at(s, 0, 0)->ch, ' ');
    ck_assert_uint_eq(at(s, 2, 0)->ch, 'y');
    screen_free(s);
    vtgrid_free(g);
}
END_TEST

/* ---- ansi diffs through a real terminal ------------------------------------------ */

/* A map-like screen: rows 1..h-4 random tiles in a few colours (some rows
 * blank), a status row, from the xorshift state *r. */
static uint64_t next(uint64_t *r)
{
    *r ^= *r << 13;
    *r ^= *r >> 7;
    *r ^= *r << 17;
    return *r;
}

static void random_row(screen_t *s, int y, uint64_t *r)
{
    static const char TILES[] = "..#+<>@$%";
    if (next(r) % 5 == 0)
        return; /* a blank row */
    for (int x = 0; x < s->w; x++) {
        uint64_t v = next(r);
        style_t st = {(uint16_t)(v >> 8 & 15), v >> 12 & 3 ? SCREEN_DEFAULT_COLOR : 4,
                      (uint8_t)(v >> 16 & 1 ? ATTR_BOLD : 0)};
        screen_put(s, x, y, v % 3 ? (uint32_t)TILES[v % 9] : ' ', st);
    }
}

/* Every cell of what the terminal shows equals the grid's. */
static void same_screen(const screen_t *shown, const screen_t *want)
{
    for (int y = 0; y < want->h; y++)
        for (int x = 0; x < want->w; x++) {
            const cell_t *a = at(shown, x, y), *b = at(want, x, y);
            ck_assert_msg(cell_eq(a, b), "(%d,%d): %x/%d/%d/%d, want %x/%d/%d/%d", x, y, a->ch,
                          a->fg, a->bg, a->attr, b->ch, b->fg, b->bg, b->attr);
        }
    ck_assert_int_eq(shown->cur_x, want->cur_x);
    ck_assert_int_eq(shown->cur_y, want->cur_y);
}

START_TEST(ansi_scrolled_diffs_play_exactly)
{
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    uint64_t r = 0x2545F4914F6CDD1Dull;
    int scrolled = 0;
    for (int round = 0; round < 200; round++) {
        int w = 40 + (int)(next(&r) % 41), h = 12 + (int)(next(&r) % 13), map = h - 4;
        screen_t *a = screen_new(w, h), *b = screen_new(w, h), *shown = screen_new(w, h);
        vtgrid_t *g = vtgrid_new(w, h, NULL, NULL);
        for (int y = 1; y <= map; y++)
            random_row(a, y, &r);
        screen_textf(a, 0, h - 2, STYLE_DEFAULT, "Status %d", round);
        screen_cursor(a, (int)(next(&r) % (uint64_t)w), 1 + (int)(next(&r) % (uint64_t)map), true);
        /* b: the map slid k rows up or down (new rows come in), a new status */
        int k = 1 + (int)(next(&r) % (uint64_t)(map - 1));
        k = next(&r) & 1 ? k : -k;
        for (int y = 1; y <= map; y++) {
            int from = y + k;
            if (from >= 1 && from <= map)
                memcpy(b->cells + (size_t)y * w, a->cells + (size_t)from * w, sizeof(cell_t) * w);
            else
                random_row(b, y, &r);
        }
        screen_textf(b, 0, h - 2, STYLE_DEFAULT, "Status %d!", round);
        screen_cursor(b, (int)(next(&r) % (uint64_t)w), 1 + (int)(next(&r) % (uint64_t)map), true);
        screen_touch_all(b);
        buf_t out;
        buf_init(&out);
        ansi_keyframe(&prof, a, &out);
        size_t key = out.len;
        ansi_diff(&prof, a, b, &out);
        scrolled += strstr(out.data + key, "\x1b[r") != NULL;
        vtgrid_write(g, out.data, out.len);
        vtgrid_sync(g, shown, true);
        same_screen(shown, b);
        buf_free(&out);
        vtgrid_free(g);
        screen_free(a);
        screen_free(b);
        screen_free(shown);
    }
    ck_assert_int_gt(scrolled, 100); /* most rounds took the scrolling path */
}
END_TEST

START_TEST(ansi_scroll_only_where_it_pays)
{
    ansi_profile_t rich, plain;
    ansi_profile_for_term(&rich, "xterm-256color");
    ansi_profile_for_term(&plain, "dumb");
    screen_t *a = screen_new(80, 24), *b = screen_new(80, 24);
    for (int y = 1; y <= 20; y++) /* a different text on each row */
        screen_textf(a, 0, y, STYLE_DEFAULT, "row %d ..#..#..##..", y);
    for (int y = 1; y <= 20; y++)
        if (y + 5 <= 20)
            memcpy(b->cells + (size_t)y * 80, a->cells + (size_t)(y + 5) * 80, sizeof(cell_t) * 80);
    screen_touch_all(b);
    buf_t s1, s2, s3;
    buf_init(&s1);
    buf_init(&s2);
    buf_init(&s3);
    ansi_diff(&rich, a, b, &s1);
    ansi_diff(&plain, a, b, &s2);
    /* the region, five indexes at its bottom, the margins reset */
    ck_assert_ptr_nonnull(strstr(s1.data, "\x1b[2;21r"));
    ck_assert_ptr_nonnull(strstr(s1.data, "\x1b"
                                          "D\x1b"
                                          "D\x1b"
                                          "D\x1b"
                                          "D\x1b"
                                          "D\x1b[r"));
    ck_assert_ptr_null(strstr(s2.data, "r\x1b")); /* an ASCII-only terminal: redrawn */
    ck_assert_uint_lt(s1.len * 3, s2.len);
    /* one changed row is never scrolled */
    screen_copy(b, a);
    screen_clean(b);
    screen_put(b, 3, 3, 'X', STYLE_DEFAULT);
    ansi_diff(&rich, a, b, &s3);
    ck_assert_ptr_null(strstr(s3.data, "\x1b[r"));
    buf_free(&s1);
    buf_free(&s2);
    buf_free(&s3);
    screen_free(a);
    screen_free(b);
}
END_TEST

/* One random map tile at (x, y), as random_row draws them. */
static void random_cell(screen_t *s, int x, int y, uint64_t *r)
{
    static const char TILES[] = "..#+<>@$%";
    uint64_t v = next(r);
    style_t st = {(uint16_t)(v >> 8 & 15), v >> 12 & 3 ? SCREEN_DEFAULT_COLOR : 4,
                  (uint8_t)(v >> 16 & 1 ? ATTR_BOLD : 0)};
    screen_put(s, x, y, v % 3 ? (uint32_t)TILES[v % 9] : ' ', st);
}

static void copy_cell(screen_t *s, int x, int y, const cell_t *c)
{
    screen_put(s, x, y, c->ch, (style_t){c->fg, c->bg, (uint8_t)c->attr});
}

/* Plays keyframe(a) + diff(a, b) in libvterm under prof and checks the
 * screen equals b; returns whether the diff deleted or inserted cells. */
static bool plays_exactly(const ansi_profile_t *prof, const screen_t *a, const screen_t *b,
                          size_t *diff_len)
{
    screen_t *shown = screen_new(b->w, b->h);
    vtgrid_t *g = vtgrid_new(b->w, b->h, NULL, NULL);
    buf_t out;
    buf_init(&out);
    ansi_keyframe(prof, a, &out);
    size_t key = out.len;
    ansi_diff(prof, a, b, &out);
    bool shifted = false;
    for (size_t i = key; i + 2 < out.len; i++) /* CSI digits P or @ */
        if (out.data[i] == '\x1b' && out.data[i + 1] == '[') {
            size_t j = i + 2;
            while (j < out.len && out.data[j] >= '0' && out.data[j] <= '9')
                j++;
            shifted |= j < out.len && (out.data[j] == 'P' || out.data[j] == '@');
        }
    if (diff_len)
        *diff_len = out.len - key;
    vtgrid_write(g, out.data, out.len);
    vtgrid_sync(g, shown, true);
    same_screen(shown, b);
    buf_free(&out);
    vtgrid_free(g);
    screen_free(shown);
    return shifted;
}

/* b: a's map (columns [0, mapw) of rows 1..map) moved dx columns and dy
 * rows (new cells random), the panel right of it kept or redrawn. */
static void slide_map(const screen_t *a, screen_t *b, int mapw, int map, int dx, int dy,
                      uint64_t *r)
{
    screen_copy(b, a);
    for (int y = 1; y <= map; y++)
        for (int x = 0; x < mapw; x++) {
            int fx = x + dx, fy = y + dy;
            if (fx >= 0 && fx < mapw && fy >= 1 && fy <= map)
                copy_cell(b, x, y, at(a, fx, fy));
            else
                random_cell(b, x, y, r);
        }
    screen_touch_all(b);
}

START_TEST(ansi_shifted_diffs_play_exactly)
{
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    uint64_t r = 0x9E3779B97F4A7C15ull;
    int shifted = 0, rounds = 300;
    for (int round = 0; round < rounds; round++) {
        int w = 48 + (int)(next(&r) % 33), h = 12 + (int)(next(&r) % 13), map = h - 4;
        int panel = round % 3 ? 4 + (int)(next(&r) % 12) : 0, mapw = w - panel;
        screen_t *a = screen_new(w, h), *b = screen_new(w, h);
        for (int y = 1; y <= map; y++) {
            random_row(a, y, &r);
            if (panel)
                screen_textf(a, mapw, y, (style_t){3, SCREEN_DEFAULT_COLOR, 0}, " P%d-%d   ", y,
                             round);
        }
        screen_textf(a, 0, h - 2, STYLE_DEFAULT, "Status %d", round);
        /* a sideways move, by more than half the map every fourth round,
         * and up or down by a few rows every other round */
        int dx = 1 + (int)(next(&r) % (uint64_t)(round % 4 ? mapw / 2 : mapw - mapw / 2 - 1));
        dx = round % 4 ? dx : mapw / 2 + dx;
        dx = next(&r) & 1 ? dx : -dx;
        int dy = round % 2 ? 0 : (int)(next(&r) % 7) - 3;
        slide_map(a, b, mapw, map, dx, dy, &r);
        if (panel && round % 5 == 1) /* the panel changes too, on one row */
            screen_textf(b, mapw, 2, STYLE_DEFAULT, " changed");
        screen_textf(b, 0, h - 2, STYLE_DEFAULT, "Status %d!", round);
        screen_cursor(b, (int)(next(&r) % (uint64_t)w), 1 + (int)(next(&r) % (uint64_t)map), true);
        shifted += plays_exactly(&prof, a, b, NULL);
        screen_free(a);
        screen_free(b);
    }
    ck_assert_int_gt(shifted, rounds / 2); /* most rounds took the sideways path */
}
END_TEST

/* A 60-column map of distinct rows beside a 20-column panel. */
static void map_and_panel(screen_t *a)
{
    for (int y = 1; y <= 20; y++) {
        for (int x = 0; x < 60; x++)
            screen_put(
                a, x, y, (uint32_t) "..#..+..##.~~.<>" [(x * x * 7 + y * 13 + x * y) % 16],
                (style_t) { (uint16_t)(1 + (x + y) % 6), SCREEN_DEFAULT_COLOR, 0 });
        screen_textf(a, 60, y, STYLE_DEFAULT, " panel line %d", y);
    }
    screen_textf(a, 0, 22, STYLE_DEFAULT, "Status");
}

START_TEST(ansi_shift_keeps_a_panel_and_pays)
{
    ansi_profile_t rich, vt100;
    ansi_profile_for_term(&rich, "xterm-256color");
    ansi_profile_for_term(&vt100, "vt100");
    uint64_t r = 7;
    screen_t *a = screen_new(80, 24), *b = screen_new(80, 24);
    map_and_panel(a);
    size_t shifted_len, plain_len;
    /* left by 10: DCH at each row's start, ICH where the panel begins */
    slide_map(a, b, 60, 20, 10, 0, &r);
    ck_assert(plays_exactly(&rich, a, b, &shifted_len));
    ck_assert(!plays_exactly(&vt100, a, b, &plain_len)); /* no ICH on a VT100 */
    ck_assert_uint_lt(shifted_len * 2, plain_len);
    /* by 45, more than half the map: left it shifts (deleting), right it
     * would insert more cells than tmux 3.3 clears, so it draws */
    slide_map(a, b, 60, 20, 45, 0, &r);
    ck_assert(plays_exactly(&rich, a, b, &shifted_len));
    ck_assert(!plays_exactly(&vt100, a, b, &plain_len));
    ck_assert_uint_lt(shifted_len, plain_len);
    slide_map(a, b, 60, 20, -45, 0, &r);
    ck_assert(!plays_exactly(&rich, a, b, NULL));
    /* diagonally */
    slide_map(a, b, 60, 20, 12, -4, &r);
    ck_assert(plays_exactly(&rich, a, b, &shifted_len));
    ck_assert(!plays_exactly(&vt100, a, b, &plain_len));
    ck_assert_uint_lt(shifted_len * 2, plain_len);
    screen_free(a);
    screen_free(b);
}
END_TEST

START_TEST(ansi_shift_only_where_it_pays)
{
    ansi_profile_t rich;
    ansi_profile_for_term(&rich, "xterm-256color");
    uint64_t r = 11;
    screen_t *a = screen_new(80, 24), *b = screen_new(80, 24);
    map_and_panel(a);
    /* two rows moved: too few to look for a shift */
    screen_copy(b, a);
    for (int x = 0; x < 59; x++) {
        copy_cell(b, x, 5, at(a, x + 1, 5));
        copy_cell(b, x, 6, at(a, x + 1, 6));
    }
    ck_assert(!plays_exactly(&rich, a, b, NULL));
    /* every row moved by one, then most of each row drawn anew: the few
     * cells a shift would keep do not pay for it */
    slide_map(a, b, 60, 20, 1, 0, &r);
    for (int y = 1; y <= 20; y++)
        for (int x = 0; x < 60; x++)
            if (x % 10 > 1)
                random_cell(b, x, y, &r);
    ck_assert(!plays_exactly(&rich, a, b, NULL));
    screen_free(a);
    screen_free(b);
}
END_TEST

Suite *suite_server_hosted_vt(void)
{
    Suite *s = suite_create("server.hosted_vt");
    TCase *t = tcase_create("core");
    tcase_add_loop_test(t, vtguard_cases, 0, (int)(sizeof GUARD_CASES / sizeof *GUARD_CASES));
    tcase_add_test(t, vtgrid_colours_attributes_and_cursor);
    tcase_add_test(t, vtgrid_copies_only_damage);
    tcase_add_test(t, vtgrid_puts_right_a_screen_drawn_over);
    tcase_add_test(t, vtgrid_answers_queries);
    tcase_add_test(t, vtgrid_resizes_and_reverses);
    tcase_add_test(t, vtgrid_survives_c1_in_utf8);
    tcase_add_test(t, ansi_scrolled_diffs_play_exactly);
    tcase_add_test(t, ansi_scroll_only_where_it_pays);
    tcase_add_test(t, ansi_shifted_diffs_play_exactly);
    tcase_add_test(t, ansi_shift_keeps_a_panel_and_pays);
    tcase_add_test(t, ansi_shift_only_where_it_pays);
    tcase_add_test(t, vtgrid_survives_libvterm_limits);
    tcase_add_test(t, vtgrid_settles_after_a_resize);
    tcase_add_test(t, vtgrid_shows_double_width_lines_at_normal_width);
    tcase_add_test(t, vtgrid_text_is_the_programs_screen);
    tcase_add_test(t, vtgrid_repeats_glyphs_itself);
    tcase_add_test(t, vtgrid_nearest_palette_entry);
    tcase_add_test(t, vtgrid_memory_is_one_grid);
    tcase_add_test(t, vtgrid_alternate_screen_keeps_the_primary);
    tcase_add_test(t, vtgrid_selective_erase_and_insertion);
    tcase_add_test(t, vtgrid_styles_fill_and_free);
    tcase_add_test(t, vtgrid_restored_cursor_stays_on_the_screen);
    suite_add_tcase(s, t);
    return s;
}
