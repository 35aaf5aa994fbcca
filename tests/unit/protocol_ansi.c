/* Unit tests: protocol/ansi — exact bytes for small known cases. The
 * property test (tests/integration/test_ansi_property.py) checks random
 * grids against a real terminal emulator. */
#include <check.h>
#include <string.h>
#include "ansi.h"
#include "hosted/vtgrid.h"

static const ansi_profile_t P256 = {ANSI_COLORS_256, true, false, false, false};

#define KEY_START "\033(B\033[m\033[H\033[2J"

/* Grid a, copied into b with clean rows: tests then change b. */
typedef struct {
    screen_t *a, *b;
    buf_t out;
} pair_t;

static pair_t pair_new(int w, int h)
{
    pair_t p = {screen_new(w, h), screen_new(w, h), {0}};
    screen_cursor(p.a, 0, 0, false);
    screen_cursor(p.b, 0, 0, false);
    screen_clean(p.b);
    buf_init(&p.out);
    return p;
}

static void pair_free(pair_t *p)
{
    screen_free(p->a);
    screen_free(p->b);
    buf_free(&p->out);
}

/* a := b, both clean: the baseline for the next change */
static void pair_commit(pair_t *p)
{
    screen_copy(p->a, p->b);
    screen_clean(p->b);
}

#define ck_assert_bytes(buf, lit)                            \
    do {                                                     \
        ck_assert_uint_eq((buf)->len, sizeof(lit) - 1);      \
        ck_assert_mem_eq((buf)->data, lit, sizeof(lit) - 1); \
    } while (0)

/* The diff from p's a to its b under prof (p's out reset first) is lit. */
#define ck_assert_diff(p, prof, lit)                \
    do {                                            \
        buf_reset(&(p)->out);                       \
        ansi_diff(prof, (p)->a, (p)->b, &(p)->out); \
        ck_assert_bytes(&(p)->out, lit);            \
    } while (0)

static const style_t BOLD = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_BOLD};

START_TEST(identical_grids_give_nothing)
{
    pair_t p = pair_new(10, 3);
    screen_text(p.b, 0, 1, BOLD, "same");
    pair_commit(&p);
    screen_text(p.b, 0, 1, BOLD, "same"); /* rewrite: row stays clean */
    ansi_diff(&P256, p.a, p.b, &p.out);
    ck_assert_uint_eq(p.out.len, 0);
    screen_touch_all(p.b); /* dirty but equal rows cost nothing either */
    ansi_profile_t sync = P256;
    sync.sync = true;
    ansi_diff(&sync, p.a, p.b, &p.out);
    ck_assert_uint_eq(p.out.len, 0);
    pair_free(&p);
}
END_TEST

START_TEST(one_cell_change)
{
    pair_t p = pair_new(10, 3);
    screen_put(p.b, 3, 1, 'x', STYLE_DEFAULT);
    /* hidden cursor: position unknown */
    ck_assert_diff(&p, &P256, "\033[2;4Hx");
    pair_free(&p);
}
END_TEST

START_TEST(relative_moves_from_a_known_cursor)
{
    pair_t p = pair_new(10, 3);
    screen_cursor(p.a, 0, 0, true);
    screen_cursor(p.b, 0, 0, true);
    screen_put(p.b, 3, 1, 'x', STYLE_DEFAULT);
    /* down by LF at column 0, forward 3, draw, home again */
    ck_assert_diff(&p, &P256, "\n\033[3Cx\033[H");
    pair_free(&p);
}
END_TEST

/* A move of one row up or down is RI or IND (two bytes, not three) where
 * the profile scrolls; ASCII-only profiles keep CUU and CUD. */
START_TEST(one_row_moves_are_ri_and_ind)
{
    pair_t p = pair_new(10, 3);
    screen_cursor(p.a, 5, 1, true);
    screen_cursor(p.b, 5, 1, true);
    pair_commit(&p);
    screen_put(p.b, 5, 0, 'x', STYLE_DEFAULT);
    ck_assert_diff(&p, &P256, "\033Mx\033D\b");
    ansi_profile_t ascii = {ANSI_COLORS_16, false, false, false, false};
    ck_assert_diff(&p, &ascii, "\033[Ax\033[B\b");
    pair_free(&p);
}
END_TEST

/* A reset and a colour is CSI ;31m: the empty parameter is 0. */
START_TEST(sgr_reset_is_an_empty_parameter)
{
    pair_t p = pair_new(4, 1);
    screen_put(p.b, 0, 0, 'a', BOLD);
    screen_put(p.b, 1, 0, 'b', (style_t){1, SCREEN_DEFAULT_COLOR, 0});
    ck_assert_diff(&p, &P256, "\033[H\033[1ma\033[;31mb\033[m");
    pair_free(&p);
}
END_TEST

START_TEST(attribute_change_only)
{
    pair_t p = pair_new(10, 3);
    screen_put(p.b, 3, 1, 'x', STYLE_DEFAULT);
    pair_commit(&p);
    screen_put(p.b, 3, 1, 'x', BOLD);
    ck_assert_diff(&p, &P256, "\033[2;4H\033[1mx\033[m");
    pair_free(&p);
}
END_TEST

START_TEST(blank_tail_uses_erase_line)
{
    pair_t p = pair_new(20, 2);
    screen_text(p.b, 0, 0, STYLE_DEFAULT, "hello world");
    pair_commit(&p);
    screen_text(p.b, 5, 0, STYLE_DEFAULT, "      ");
    ck_assert_diff(&p, &P256, "\033[1;7H\033[K"); /* column 5 was a space already */
    pair_free(&p);
}
END_TEST

START_TEST(short_blank_tail_writes_spaces)
{
    pair_t p = pair_new(20, 2);
    screen_text(p.b, 0, 0, STYLE_DEFAULT, "ab");
    pair_commit(&p);
    screen_put(p.b, 1, 0, ' ', STYLE_DEFAULT);
    ck_assert_diff(&p, &P256, "\033[1;2H "); /* one space beats ESC [ K */
    pair_free(&p);
}
END_TEST

START_TEST(short_gap_is_overwritten)
{
    pair_t p = pair_new(10, 1);
    screen_text(p.b, 0, 0, STYLE_DEFAULT, "abcdef");
    pair_commit(&p);
    screen_put(p.b, 0, 0, 'X', STYLE_DEFAULT);
    screen_put(p.b, 2, 0, 'Y', STYLE_DEFAULT);
    ck_assert_diff(&p, &P256, "\033[HXbY");
    pair_free(&p);
}
END_TEST

START_TEST(sgr_reset_when_shorter)
{
    screen_t *s = screen_new(4, 1);
    style_t loud = {1, SCREEN_DEFAULT_COLOR, ATTR_BOLD | ATTR_UNDERLINE};
    screen_put(s, 0, 0, 'a', loud);
    screen_put(s, 1, 0, 'b', STYLE_DEFAULT);
    screen_put(s, 2, 0, 'c', (style_t){1, 4, ATTR_BOLD | ATTR_DIM});
    screen_put(s, 3, 0, 'd', (style_t){1, 4, ATTR_BOLD});
    screen_cursor(s, 0, 0, false);
    buf_t out;
    buf_init(&out);
    ansi_keyframe(&P256, s, &out);
    /* 'b': reset beats 22;24;39; 'd': dropping dim (22) re-adds bold */
    ck_assert_bytes(&out, "\033(B\033[m\033[H\033[2J\033[1;4;31ma\033[mb\033[1;2;31;44mc\033[22;1md"
                          "\033[m\033[?25l");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(keyframe_places_and_shows_cursor)
{
    screen_t *s = screen_new(3, 1);
    screen_text(s, 0, 0, STYLE_DEFAULT, "ab");
    screen_cursor(s, 2, 0, true);
    buf_t out;
    buf_init(&out);
    ansi_keyframe(&P256, s, &out);
    ck_assert_bytes(&out, "\033(B\033[m\033[H\033[2Jab\033[?25h");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(last_column_never_assumes_the_cursor)
{
    pair_t p = pair_new(3, 2);
    screen_cursor(p.a, 1, 1, true);
    screen_cursor(p.b, 1, 1, true);
    screen_put(p.b, 2, 1, 'z', STYLE_DEFAULT); /* the bottom-right cell */
    /* rewriting the blank at column 1 beats a move; after z the terminal
     * waits to wrap, so the way back is absolute (CHA), never BS */
    ck_assert_diff(&p, &P256, " z\033[2G");
    pair_free(&p);
}
END_TEST

START_TEST(cursor_visibility_changes)
{
    pair_t p = pair_new(4, 2);
    screen_cursor(p.b, 1, 1, true);
    ck_assert_diff(&p, &P256, "\033[2;2H\033[?25h");
    pair_commit(&p);
    screen_cursor(p.b, 3, 0, false);
    ck_assert_diff(&p, &P256, "\033[?25l"); /* a hidden cursor is not moved */
    pair_free(&p);
}
END_TEST

START_TEST(sync_brackets_wrap_a_frame)
{
    ansi_profile_t sync = P256;
    sync.sync = true;
    pair_t p = pair_new(4, 1);
    screen_put(p.b, 0, 0, 'q', STYLE_DEFAULT);
    ck_assert_diff(&p, &sync, "\033[?2026h\033[Hq\033[?2026l");
    pair_free(&p);
}
END_TEST

START_TEST(sixteen_colours_map_to_nearest)
{
    ansi_profile_t p16 = {ANSI_COLORS_16, true, false, false, false};
    pair_t p = pair_new(4, 1);
    screen_put(p.b, 0, 0, 'r', (style_t){196, 21, 0});  /* bright red on blue */
    screen_put(p.b, 1, 0, 's', (style_t){9, 4, 0});     /* the same on 16 colours */
    screen_put(p.b, 2, 0, 't', (style_t){244, 232, 0}); /* grey on near-black */
    ck_assert_diff(&p, &p16, "\033[H\033[91;44mrs\033[90;40mt\033[m");
    ck_assert_diff(&p, &P256,
                   "\033[H\033[38;5;196;48;5;21mr\033[91;44ms\033[38;5;244;48;5;232mt\033[m");
    pair_free(&p);
}
END_TEST

START_TEST(ascii_fallbacks)
{
    ansi_profile_t dec = {ANSI_COLORS_16, false, true, false, false};
    ansi_profile_t ascii = {ANSI_COLORS_16, false, false, false, false};
    pair_t p = pair_new(6, 1);
    screen_text(p.b, 0, 0, STYLE_DEFAULT,
                "\xe2\x94\x80\xe2\x95\x91\xc3\xa9\xe2\x96\x88"
                "a");
    screen_put(p.b, 5, 0, 0x1B, STYLE_DEFAULT); /* a raw ESC never reaches the terminal */
    ck_assert_diff(&p, &dec, "\033[H\033(0qx\033(B?\033(0a\033(Ba?");
    ck_assert_diff(&p, &ascii, "\033[H-|?#a?");
    ck_assert_diff(&p, &P256,
                   "\033[H\xe2\x94\x80\xe2\x95\x91\xc3\xa9\xe2\x96\x88"
                   "a?");
    pair_free(&p);
}
END_TEST

/* The map's glyphs on each profile: floor, deep water (} in ASCII: a
 * shallow pool is ~), tree, a joined wall, and an accented letter that has
 * no fallback (names may use it). */
START_TEST(map_glyphs_per_profile)
{
    ansi_profile_t p16 = {ANSI_COLORS_16, true, false, false, true};
    ansi_profile_t dec = {ANSI_COLORS_16, false, true, false, false};
    ansi_profile_t ascii = {ANSI_COLORS_16, false, false, false, false};
    pair_t p = pair_new(6, 1);
    screen_text(p.b, 0, 0, STYLE_DEFAULT,
                "\xc2\xb7\xe2\x89\x88\xe2\x99\xa3\xe2\x94\x8c\xe2\x95\x90\xc3\xa9");
    ck_assert_diff(&p, &P256,
                   "\033[H\xc2\xb7\xe2\x89\x88\xe2\x99\xa3\xe2\x94\x8c\xe2\x95\x90\xc3\xa9");
    /* few-glyph fonts: the DEC chart's own code points, else ASCII */
    ck_assert_diff(&p, &p16, "\033[H\xc2\xb7}&\xe2\x94\x8c\xe2\x94\x80\xc3\xa9");
    ck_assert_diff(&p, &dec, "\033[H\033(0~\033(B}&\033(0lq\033(B?");
    ck_assert_diff(&p, &ascii, "\033[H.}&+-?");
    buf_reset(&p.out);
    ansi_keyframe(&ascii, p.b, &p.out);
    ck_assert_bytes(&p.out, KEY_START ".}&+-?\033[?25l");
    pair_free(&p);
}
END_TEST

START_TEST(wide_and_combining_become_placeholders)
{
    pair_t p = pair_new(3, 1);
    screen_put(p.b, 0, 0, 0x4E2D, STYLE_DEFAULT); /* CJK: two columns */
    screen_put(p.b, 1, 0, 0x0301, STYLE_DEFAULT); /* combining acute */
    screen_put(p.b, 2, 0, 0x3A9, STYLE_DEFAULT);  /* Omega: fine */
    ck_assert_diff(&p, &P256, "\033[H??\xce\xa9");
    pair_free(&p);
}
END_TEST

START_TEST(size_change_gives_keyframe)
{
    screen_t *a = screen_new(4, 2), *b = screen_new(5, 2);
    buf_t out, key;
    buf_init(&out);
    buf_init(&key);
    screen_put(b, 4, 1, 'k', STYLE_DEFAULT);
    ansi_diff(&P256, a, b, &out);
    ansi_keyframe(&P256, b, &key);
    ck_assert_uint_eq(out.len, key.len);
    ck_assert_mem_eq(out.data, key.data, key.len);
    buf_free(&out);
    buf_free(&key);
    screen_free(a);
    screen_free(b);
}
END_TEST

START_TEST(profiles_for_terminal_names)
{
    ansi_profile_t p;
    ansi_profile_for_term(&p, NULL);
    ck_assert(p.colors == ANSI_COLORS_256 && p.utf8);
    ansi_profile_for_term(&p, "XTERM-256color");
    ck_assert(p.colors == ANSI_COLORS_256 && p.utf8);
    ansi_profile_for_term(&p, "screen.xterm-256color");
    ck_assert(p.colors == ANSI_COLORS_256);
    ck_assert(!p.fallbacks);
    ansi_profile_for_term(&p, "xterm");
    ck_assert(p.colors == ANSI_COLORS_16 && p.utf8 && p.fallbacks);
    ansi_profile_for_term(&p, "linux");
    ck_assert(p.colors == ANSI_COLORS_16 && p.utf8 && p.fallbacks);
    ansi_profile_for_term(&p, "ansi");
    ck_assert(p.colors == ANSI_COLORS_16 && !p.utf8 && !p.dec_graphics);
    ansi_profile_for_term(&p, "xterm-color");
    ck_assert(p.colors == ANSI_COLORS_16);
    ansi_profile_for_term(&p, "vt220");
    ck_assert(p.colors == ANSI_COLORS_16 && !p.utf8 && p.dec_graphics);
    ansi_profile_for_term(&p, "VT100");
    ck_assert(!p.utf8 && p.dec_graphics);
    ansi_profile_for_term(&p, "dumb");
    ck_assert(!p.utf8 && !p.dec_graphics);
    ansi_profile_for_term(&p, "ascii");
    ck_assert(!p.utf8 && !p.dec_graphics);
    ansi_profile_for_term(&p, "no-such-terminal");
    ck_assert(p.colors == ANSI_COLORS_256 && p.utf8 && !p.sync && !p.rep);
    /* REP only where terminfo has it (curses sends it there already) */
    static const struct {
        const char *name;
        bool rep;
    } REPS[] = {{"xterm-256color", true},   {"XTERM", true},          {"xterm-kitty", false},
                {"screen-256color", false}, {"tmux-256color", false}, {"linux", false},
                {"putty", false},           {"vt220", false},         {"xterm-color", false}};
    for (size_t i = 0; i < sizeof REPS / sizeof REPS[0]; i++) {
        ansi_profile_for_term(&p, REPS[i].name);
        ck_assert_msg(p.rep == REPS[i].rep, "%s: rep %d", REPS[i].name, p.rep);
    }
}
END_TEST

START_TEST(profile_ids_are_small_and_distinct)
{
    int seen[ANSI_PROFILE_IDS] = {0};
    for (int c = 0; c < 3; c++)
        for (int u = 0; u < 2; u++)
            for (int d = 0; d < 2; d++)
                for (int s = 0; s < 2; s++)
                    for (int f = 0; f < 4; f++) {
                        ansi_profile_t p = {(ansi_colors_t)c, u, d, s, f & 1, f >> 1};
                        int id = ansi_profile_id(&p);
                        ck_assert_int_ge(id, 0);
                        ck_assert_int_lt(id, ANSI_PROFILE_IDS);
                        /* DEC graphics mean nothing with UTF-8, fallbacks
                         * and REP nothing without it: same frames */
                        if ((u && d) || (!u && f))
                            continue;
                        ck_assert_int_eq(seen[id], 0);
                        seen[id] = 1;
                    }
}
END_TEST

/* ---- keyframes ------------------------------------------------------------ */

static const ansi_profile_t P16 = {ANSI_COLORS_16, true, false, false, false};
static const ansi_profile_t PREP = {ANSI_COLORS_256, true, false, false, false, true};
static const ansi_profile_t PDEC = {ANSI_COLORS_16, false, true, false, false};
static const ansi_profile_t PASCII = {ANSI_COLORS_16, false, false, false, false};

/* keyframe(s) into out (reset first) */
static void key_of(const ansi_profile_t *p, const screen_t *s, buf_t *out)
{
    buf_reset(out);
    ansi_keyframe(p, s, out);
}

START_TEST(keyframe_of_blank_grid)
{
    screen_t *s = screen_new(200, 60);
    buf_t out;
    buf_init(&out);
    screen_cursor(s, 0, 0, false);
    key_of(&P256, s, &out);
    ck_assert_bytes(&out, KEY_START "\033[?25l");
    screen_cursor(s, 150, 40, true);
    key_of(&P256, s, &out);
    ck_assert_bytes(&out, KEY_START "\033[41;151H\033[?25h");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(keyframe_gaps_overwrite_or_move)
{
    screen_t *s = screen_new(40, 3);
    screen_cursor(s, 0, 0, false);
    screen_text(s, 2, 0, STYLE_DEFAULT, "ab");
    screen_text(s, 5, 0, STYLE_DEFAULT, "cd");  /* one blank: a space beats CUF */
    screen_text(s, 20, 0, STYLE_DEFAULT, "ef"); /* far: a move (CHA, as short as CUF) */
    screen_text(s, 0, 2, STYLE_DEFAULT, "gh");  /* next rows: CR and LFs */
    buf_t out;
    buf_init(&out);
    key_of(&P256, s, &out);
    ck_assert_bytes(&out, KEY_START "  ab cd\033[21Gef\r\n\ngh\033[?25l");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(keyframe_attributes_and_runs)
{
    screen_t *s = screen_new(12, 2);
    screen_cursor(s, 3, 1, true);
    style_t ul = {SCREEN_DEFAULT_COLOR, SCREEN_DEFAULT_COLOR, ATTR_UNDERLINE | ATTR_REVERSE};
    style_t blink = {SCREEN_DEFAULT_COLOR, 4, ATTR_BLINK | ATTR_DIM};
    screen_text(s, 0, 0, ul, "uuu");
    screen_text(s, 3, 0, blink, "bb");
    screen_text(s, 5, 0, BOLD, "B");
    /* two then three box glyphs: runs of even and odd length */
    screen_fill(s, 0, 1, 2, 1, 0x2550, STYLE_DEFAULT);
    screen_fill(s, 2, 1, 3, 1, 0x2551, (style_t){250, SCREEN_DEFAULT_COLOR, 0});
    buf_t out;
    buf_init(&out);
    key_of(&P256, s, &out);
    /* LF moves whatever the pen; the cursor goes back by two BS */
    ck_assert_bytes(&out, KEY_START "\033[4;7muuu\033[;2;5;44mbb\033[;1mB"
                                    "\r\n\033[m\xe2\x95\x90\xe2\x95\x90"
                                    "\033[38;5;250m\xe2\x95\x91\xe2\x95\x91\xe2\x95\x91"
                                    "\033[m\b\b\033[?25h");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(keyframe_profiles)
{
    screen_t *s = screen_new(8, 2);
    screen_cursor(s, 0, 0, false);
    screen_box(s, 0, 0, 3, 2, (style_t){196, SCREEN_DEFAULT_COLOR, 0});
    screen_put(s, 4, 0, 0xE9, (style_t){21, 244, ATTR_BOLD});
    screen_put(s, 5, 0, 0x4E2D, STYLE_DEFAULT); /* wide: a placeholder */
    buf_t out;
    buf_init(&out);
    key_of(&P256, s, &out);
    /* a blank under a coloured pen: a move beats a pen reset and a space */
    ck_assert_bytes(&out, KEY_START
                    "\033[38;5;196m\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90"
                    "\033[C\033[1;38;5;21;48;5;244m\xc3\xa9\033[m?"
                    "\r\n\033[38;5;196m\xe2\x94\x94\xe2\x94\x80\xe2\x94\x98\033[m\033[?25l");
    key_of(&P16, s, &out);
    ck_assert_bytes(&out,
                    KEY_START "\033[91m\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90"
                              "\033[C\033[1;34;100m\xc3\xa9\033[m?"
                              "\r\n\033[91m\xe2\x94\x94\xe2\x94\x80\xe2\x94\x98\033[m\033[?25l");
    key_of(&PDEC, s, &out);
    ck_assert_bytes(&out, KEY_START "\033(0\033[91mlqk\033[C\033(B\033[1;34;100m?\033[m?"
                                    "\r\n\033(0\033[91mmqj\033[m\033(B\033[?25l");
    key_of(&PASCII, s, &out);
    ck_assert_bytes(&out, KEY_START "\033[91m+-+\033[C\033[1;34;100m?\033[m?"
                                    "\r\n\033[91m+-+\033[m\033[?25l");
    ansi_profile_t sync = P256;
    sync.sync = true;
    screen_clear(s);
    screen_put(s, 1, 1, 'z', STYLE_DEFAULT);
    key_of(&sync, s, &out);
    ck_assert_bytes(&out, "\033[?2026h" KEY_START "\n\033[Cz\033[?25l\033[?2026l");
    buf_free(&out);
    screen_free(s);
}
END_TEST

START_TEST(keyframe_wide_grid_last_column)
{
    screen_t *s = screen_new(SCREEN_MAX_W, 3);
    screen_cursor(s, SCREEN_MAX_W - 1, 2, true);
    screen_put(s, SCREEN_MAX_W - 1, 0, 'r', STYLE_DEFAULT); /* then the terminal waits to wrap */
    screen_put(s, SCREEN_MAX_W - 2, 1, 's', STYLE_DEFAULT);
    buf_t out;
    buf_init(&out);
    key_of(&P256, s, &out);
    /* after the last column the way down is absolute, never LF */
    ck_assert_bytes(&out, KEY_START "\033[512Gr\033[2;511Hs\033D\033[?25h");
    buf_free(&out);
    screen_free(s);
}
END_TEST

/* Seeded random grids: cells from helpers and raw (attributes outside
 * ATTR_ALL, colours past 255, padding bytes set), every glyph class. */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rnd(uint64_t *s, int n)
{
    return (int)(rnd_next(s) % (uint64_t)n);
}

static const uint32_t ODD_GLYPHS[] = {' ',    ' ',    ' ',    'a',  '#',     0xB7,
                                      0x2500, 0x2551, 0x2588, 0xE9, 0x3A9,   0x4E2D,
                                      0x301,  0x1B,   0x9B,   0x7F, 0x1F600, 0x110000};

static screen_t *random_grid(uint64_t *r)
{
    bool big = rnd(r, 8) == 0;
    int w = 1 + rnd(r, big ? SCREEN_MAX_W : 40), h = 1 + rnd(r, big ? 60 : 10);
    screen_t *s = screen_new(w, h);
    int dens = rnd(r, 101), rich = rnd(r, 4);
    for (int i = 0; i < w * h; i++) {
        if (rnd(r, 100) >= dens)
            continue;
        cell_t c = screen_blank();
        c.ch = ODD_GLYPHS[rnd(r, (int)(sizeof ODD_GLYPHS / sizeof ODD_GLYPHS[0]))];
        if (rich >= 1 && rnd(r, 3) == 0)
            c.fg = (uint16_t)rnd(r, 258);
        if (rich >= 2 && rnd(r, 4) == 0)
            c.bg = (uint16_t)rnd(r, 258);
        if (rich >= 3 && rnd(r, 4) == 0)
            c.attr = (uint8_t)rnd(r, 256);
        if (rnd(r, 40) == 0)
            c.fg = (uint16_t)rnd_next(r), c.attr |= 0x400;
        int len = rnd(r, 2) ? 1 + rnd(r, 6) : 1; /* runs of equal cells */
        for (int j = i; j < i + len && j < w * h; j++)
            s->cells[j] = c;
        i += len - 1;
    }
    screen_cursor(s, rnd(r, w + 2) - 1, rnd(r, h + 2) - 1, rnd(r, 2));
    screen_touch_all(s);
    return s;
}

/* Rows of b that differ from a. */
static int rows_drawn(const screen_t *a, const screen_t *b)
{
    int n = 0;
    for (int y = 0; y < b->h; y++)
        n += memcmp(a->cells + (size_t)y * b->w, b->cells + (size_t)y * b->w,
                    sizeof(cell_t) * (size_t)b->w) != 0;
    return n;
}

/* A keyframe draws what a top-down diff from a blank grid draws: both
 * paths make the same choices, so their bytes must match exactly. */
START_TEST(keyframe_equals_diff_from_blank)
{
    const ansi_profile_t *profiles[] = {&P256, &P16, &PDEC, &PASCII, &PREP};
    uint64_t r = 2026;
    buf_t key, diff;
    buf_init(&key);
    buf_init(&diff);
    for (int n = 0; n < 400; n++) {
        screen_t *b = random_grid(&r), *a = screen_new(b->w, b->h);
        screen_cursor(a, 0, 0, true);
        for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
            key_of(profiles[i], b, &key);
            buf_reset(&diff);
            buf_puts(&diff, KEY_START);
            ansi_diff(profiles[i], a, b, &diff);
            if (b->cur_visible)
                buf_puts(&diff, "\033[?25h");
            if (rows_drawn(a, b) <= 4) { /* also tried bottom up (ansi.c): never longer */
                ck_assert_uint_le(diff.len, key.len);
                continue;
            }
            ck_assert_uint_eq(key.len, diff.len);
            ck_assert_mem_eq(key.data, diff.data, key.len);
        }
        screen_free(a);
        screen_free(b);
    }
    buf_free(&key);
    buf_free(&diff);
}
END_TEST

/* Rows 2-20 of a 40x24 grid hold distinct lines; b has them moved by k
 * rows (up when k > 0) inside that block, fresh lines where the block
 * opened. */
static void moved_block(pair_t *p, int k)
{
    for (int y = 2; y <= 20; y++)
        screen_textf(p->b, 0, y, STYLE_DEFAULT, "map line %02d, not like the others", y);
    pair_commit(p);
    for (int y = 2; y <= 20; y++) {
        int from = y + k;
        if (from >= 2 && from <= 20)
            screen_textf(p->b, 0, y, STYLE_DEFAULT, "map line %02d, not like the others", from);
        else
            screen_textf(p->b, 0, y, STYLE_DEFAULT, "a fresh line %02d of other text   ", y);
    }
}

/* The scroll region is the whole block that moved, its first row to its
 * last (the rows a shift brings back, counted and bounded per shift). */
START_TEST(scroll_region_spans_the_moved_rows)
{
    for (int k = -2; k <= 2; k += 4) {
        pair_t p = pair_new(40, 24);
        moved_block(&p, k);
        ansi_diff(&P256, p.a, p.b, &p.out);
        ck_assert_ptr_nonnull(memmem(p.out.data, p.out.len, "\033[3;21r", 7));
        ck_assert_ptr_nonnull(
            memmem(p.out.data, p.out.len, k > 0 ? "\033D\033D" : "\033M\033M", 4));
        pair_free(&p);
    }
}
END_TEST

/* A row at the block's edge that changed beyond the move (a creature
 * stepped there) moves with the block and is patched: the region is the
 * whole block, and the row is not drawn again. */
START_TEST(scroll_region_takes_a_row_changed_beyond_the_move)
{
    for (int k = -2; k <= 2; k += 4) {
        pair_t p = pair_new(40, 24);
        moved_block(&p, k);
        int edge = k > 0 ? 2 : 20; /* where the block's first row landed */
        screen_put(p.b, 5, edge, '@', STYLE_DEFAULT);
        ansi_diff(&P256, p.a, p.b, &p.out);
        ck_assert_ptr_nonnull(memmem(p.out.data, p.out.len, "\033[3;21r", 7));
        ck_assert_ptr_null(memmem(p.out.data, p.out.len, "map line", 8));
        pair_free(&p);
    }
}
END_TEST

/* Fewer than ANSI_DIFF_SEARCH_ROWS rows dirty in b, and ansi_diff reads
 * of a only those rows (frames.c sends such a frame from the rows the
 * frame before had there alone): a's other rows scrambled, the same
 * bytes; the changed rows are often a's neighbours moved up or down or
 * sideways, what the searches would find if they began there. */
START_TEST(few_dirty_rows_read_only_those_of_the_old_grid)
{
    static const ansi_profile_t PROFS[] = {
        {ANSI_COLORS_256, true, false, false, false},
        {ANSI_COLORS_16, false, true, false, false},
    };
    uint32_t r = 12345;
    int moved = 0;
    for (int round = 0; round < 3000; round++) {
        screen_t *a = screen_new(40, 12), *b = screen_new(40, 12), *a2 = screen_new(40, 12);
        for (int y = 0; y < a->h; y++) {
            r = r * 1103515245u + 12345u;
            screen_textf(a, (int)(r >> 20) % 4, y,
                         (style_t){(uint16_t)(r >> 8) % 8, SCREEN_DEFAULT_COLOR, 0},
                         "row %d of the old screen %u", y, (r >> 12) % 100);
        }
        screen_cursor(a, 3, 4, true);
        screen_copy(b, a);
        screen_clean(b);
        r = r * 1103515245u + 12345u;
        int n = 1 + (int)(r >> 16) % (ANSI_DIFF_SEARCH_ROWS - 1),
            y0 = 1 + (int)(r >> 8) % (a->h - 3);
        for (int i = 0; i < n; i++) {
            int y = y0 + i, how = (int)(r >> (4 + 2 * i)) % 4;
            int from = how == 0 ? y + 1 : how == 1 ? y - 1 : y;
            int dx = how == 2 ? 2 : 0;
            moved += how < 3;
            for (int x = 0; x < b->w; x++) {
                const cell_t *c = screen_at(a, x + dx < a->w ? x + dx : x, from);
                screen_put(b, x, y, how == 3 ? (uint32_t)('a' + (x + (int)r) % 26) : c->ch,
                           (style_t){c->fg, c->bg, c->attr});
            }
        }
        screen_cursor(b, 5, y0, true);
        screen_copy(a2, a);
        for (int y = 0; y < a->h; y++)
            if (!b->dirty[y])
                screen_fill(a2, 0, y, a2->w, 1, '#', (style_t){3, 4, ATTR_BOLD});
        for (size_t i = 0; i < sizeof PROFS / sizeof PROFS[0]; i++) {
            buf_t want, got;
            buf_init(&want), buf_init(&got);
            ansi_diff(&PROFS[i], a, b, &want);
            ansi_diff(&PROFS[i], a2, b, &got);
            ck_assert_msg(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
                          "round %d, profile %zu: the diff read rows clean in b", round, i);
            buf_free(&want), buf_free(&got);
        }
        screen_free(a), screen_free(b), screen_free(a2);
    }
    ck_assert_int_gt(moved, 3000);
}
END_TEST

/* With REP, a run of one ASCII glyph goes out once and repeated, in a
 * diff (up to its last changed cell: the unchanged ones in it are written
 * again) and in a keyframe; runs too short to pay, runs of a UTF-8 glyph
 * and every run without REP go out glyph by glyph. */
START_TEST(runs_of_a_glyph_are_repeated)
{
    pair_t p = pair_new(40, 2);
    screen_text(p.b, 2, 0, STYLE_DEFAULT, "##########");
    screen_text(p.b, 20, 0, STYLE_DEFAULT, "aaaab"); /* too short to pay */
    for (int x = 30; x < 36; x++)
        screen_put(p.b, x, 0, 0x2500, STYLE_DEFAULT); /* not ASCII */
    screen_text(p.b, 0, 1, STYLE_DEFAULT, "x.x.x.x.x");
    ck_assert_diff(&p, &PREP,
                   "\033[1;3H#\033[9b\033[8Caaaab\033[5C"
                   "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
                   "\xe2\x94\x80\r\nx.x.x.x.x");
    pair_commit(&p);
    screen_text(p.b, 2, 0, STYLE_DEFAULT, "x.......x"); /* over the run but its last cell */
    screen_text(p.b, 0, 1, STYLE_DEFAULT, ".........");
    ck_assert_diff(&p, &PREP, "\033[1;3Hx.\033[6bx\r\n.\033[8b");
    buf_reset(&p.out);
    screen_clear(p.b);
    screen_text(p.b, 2, 0, STYLE_DEFAULT, "x.......x#");
    screen_text(p.b, 0, 1, STYLE_DEFAULT, ".........");
    ansi_keyframe(&PREP, p.b, &p.out);
    ck_assert_bytes(&p.out, KEY_START "  x.\033[6bx#\r\n.\033[8b\033[?25l");
    buf_reset(&p.out);
    ansi_diff(&P256, p.a, p.b, &p.out);
    ck_assert_ptr_null(memmem(p.out.data, p.out.len, "b", 1)); /* no REP without the profile's */
    pair_free(&p);
}
END_TEST

/* The searches' pre-tests skip a search only where it could find
 * nothing: on random map-like screens that slid sideways, up or down or
 * both beside a panel, redrawn in part or not moved at all, every profile
 * gets the same bytes from ansi_diff as from the searches always run. */
static uint64_t rng_step(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void random_map(screen_t *s, uint64_t *x)
{
    static const char TILES[] = "  ..#+|-@$";
    for (int y = 0; y < s->h; y++)
        for (int c = 0; c < s->w; c++) {
            uint64_t r = rng_step(x);
            style_t st = {(uint16_t)(r >> 8 & 3 ? SCREEN_DEFAULT_COLOR : r >> 12 & 15),
                          SCREEN_DEFAULT_COLOR, 0};
            screen_put(s, c, y, (uint32_t)TILES[r % (sizeof TILES - 1)], st);
        }
}

/* b := a moved by (dx, dy) left of a panel, what came in random, then a
 * few cells drawn over. */
static void random_move(const screen_t *a, screen_t *b, uint64_t *x)
{
    int panel = (int)(rng_step(x) % 20), mapw = a->w - panel;
    int dx = (int)(rng_step(x) % 9) - 4, dy = (int)(rng_step(x) % 5) - 2;
    screen_copy(b, a);
    screen_touch_all(b);
    if (rng_step(x) % 4 == 0)
        dx = dy = 0;
    for (int y = 0; y < a->h; y++)
        for (int c = 0; c < mapw; c++) {
            const cell_t *from = screen_at(a, c + dx, y + dy);
            if (!from || c + dx >= mapw) {
                screen_put(b, c, y, rng_step(x) % 3 ? '.' : '#', STYLE_DEFAULT);
                continue;
            }
            screen_put(b, c, y, from->ch, (style_t){from->fg, from->bg, (uint8_t)from->attr});
        }
    for (int i = (int)(rng_step(x) % 40); i > 0; i--)
        screen_put(b, (int)(rng_step(x) % (uint64_t)a->w), (int)(rng_step(x) % (uint64_t)a->h), 'k',
                   STYLE_DEFAULT);
    screen_cursor(b, (int)(rng_step(x) % (uint64_t)a->w), (int)(rng_step(x) % (uint64_t)a->h),
                  rng_step(x) % 2);
}

START_TEST(pre_tests_skip_only_searches_that_find_nothing)
{
    ansi_profile_t profs[4];
    ansi_profile_for_term(&profs[0], "xterm-256color");
    ansi_profile_for_term(&profs[1], "xterm");
    ansi_profile_for_term(&profs[2], "screen");
    ansi_profile_for_term(&profs[3], "vt100");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    buf_t fast, full;
    buf_init(&fast);
    buf_init(&full);
    int moved = 0;
    for (int i = 0; i < 90; i++) {
        int w = i % 2 ? 80 : 132, h = i % 2 ? 24 : 43;
        screen_t *a = screen_new(w, h), *b = screen_new(w, h);
        random_map(a, &x);
        if (i % 3 == 0) /* a screen of a few tiles: windows repeat */
            for (int y = 0; y < h; y += 2)
                screen_text(a, 0, y, STYLE_DEFAULT, "#..#..#..#..#..#..#..#..#..#..#..#..");
        random_move(a, b, &x);
        for (int p = 0; p < 4; p++) {
            buf_reset(&fast);
            buf_reset(&full);
            ansi_diff(&profs[p], a, b, &fast);
            ansi_diff_exhaustive(&profs[p], a, b, &full);
            ck_assert_uint_eq(fast.len, full.len);
            ck_assert_mem_eq(fast.data, full.data, fast.len);
            moved += memmem(full.data, full.len, "P", 1) != NULL; /* DCH: a shift */
        }
        screen_free(a);
        screen_free(b);
    }
    ck_assert_int_gt(moved, 20); /* the shifts were there to be found */
    buf_free(&fast);
    buf_free(&full);
}
END_TEST

/* A field of grass and scattered trees (the town's), rows 1-21 of an
 * 80x24 screen; cell (x, y) of the field at column x + ox. */
static void field(screen_t *s, int ox, int oy)
{
    const style_t green = {2, SCREEN_DEFAULT_COLOR, 0};
    for (int y = 1; y <= 21; y++)
        for (int x = 0; x < s->w; x++) {
            unsigned h = (unsigned)(x + ox) * 2654435761u ^ (unsigned)(y + oy) * 40503u;
            screen_put(s, x, y, (h >> 7) % 17 ? '"' : 0x2663, green);
        }
    screen_text(s, 0, 22, STYLE_DEFAULT, "Adventurer the dwarf fighter  XL 1");
}

/* keyframe(a) + diff(a, b) played through libvterm shows b exactly. */
static void ck_assert_plays(const ansi_profile_t *prof, const screen_t *a, const screen_t *b,
                            const buf_t *diff)
{
    vtgrid_t *g = vtgrid_new(a->w, a->h, NULL, NULL);
    screen_t *shown = screen_new(a->w, a->h);
    buf_t key;
    buf_init(&key);
    ansi_keyframe(prof, a, &key);
    vtgrid_write(g, key.data, key.len);
    vtgrid_write(g, diff->data, diff->len);
    vtgrid_sync(g, shown, true);
    for (int i = 0; i < b->w * b->h; i++)
        ck_assert_msg(cell_eq(&shown->cells[i], &b->cells[i]), "cell %d,%d", i % b->w, i / b->w);
    ck_assert(!b->cur_visible || (shown->cur_x == b->cur_x && shown->cur_y == b->cur_y));
    buf_free(&key);
    screen_free(shown);
    vtgrid_free(g);
}

/* A view that slid 20 columns over such a field (the town's view when
 * the player crosses it): with REP, every row of the field is shifted by
 * DCH or ICH, though each differs from its unshifted self in fewer cells
 * than came in (a tree moves, and a move and a glyph draw it, where REP
 * draws the columns that came in in a few bytes); without REP, rows where
 * that is fewer bytes. The shifts all go first, so that the rows drawn
 * after them keep their pen from row to row. */
START_TEST(sideways_field_shifts_every_row_first)
{
    ansi_profile_t profs[2];
    ansi_profile_for_term(&profs[0], "xterm-256color");
    ansi_profile_for_term(&profs[1], "tmux-256color");
    for (int i = 0; i < 4; i++) {
        int k = i % 2 ? -20 : 20;
        const ansi_profile_t *prof = &profs[i / 2];
        pair_t p = pair_new(80, 24);
        field(p.b, k > 0 ? 0 : 20, 0);
        pair_commit(&p);
        field(p.b, k > 0 ? 20 : 0, 0);
        screen_cursor(p.b, 40, 12, true);
        ansi_diff(prof, p.a, p.b, &p.out);
        const char *op = k > 0 ? "\033[20P" : "\033[20@";
        const char *at = p.out.data, *end = p.out.data + p.out.len, *last = NULL;
        int ops = 0;
        for (const char *f; (f = memmem(at, (size_t)(end - at), op, 5)); at = f + 5)
            ops++, last = f;
        ck_assert_msg(prof->rep ? ops == 21 : ops > 10, "case %d: %d rows shifted", i, ops);
        const char *glyph = memchr(p.out.data, '"', p.out.len);
        ck_assert_ptr_nonnull(glyph);
        ck_assert(last < glyph);
        ck_assert_plays(prof, p.a, p.b, &p.out);
        pair_free(&p);
    }
}
END_TEST

/* The same field moved 20 columns and 3 rows at once: the rows scroll
 * in a region, shift, and what came in is drawn; libvterm shows the
 * result exactly. */
START_TEST(field_moved_both_ways_plays_exactly)
{
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    for (int i = 0; i < 4; i++) {
        int k = i % 2 ? -20 : 20, dy = i / 2 ? -3 : 3;
        pair_t p = pair_new(80, 24);
        field(p.b, k > 0 ? 0 : 20, dy > 0 ? 0 : 3);
        pair_commit(&p);
        field(p.b, k > 0 ? 20 : 0, dy > 0 ? 3 : 0);
        ansi_diff(&prof, p.a, p.b, &p.out);
        ck_assert_ptr_nonnull(memmem(p.out.data, p.out.len, k > 0 ? "\033[20P" : "\033[20@", 5));
        ck_assert_plays(&prof, p.a, p.b, &p.out);
        pair_free(&p);
    }
}
END_TEST

/* A frame of two to four changed rows with the cursor on the first is
 * encoded in both orders, the second reading the rows the first kept
 * (their changes and cells): over random map-like screens, changes at a
 * row's ends and either side of every eighth column (where the search
 * for a row's change steps eight cells at a time), the frames
 * play exactly in libvterm under every profile. */
START_TEST(step_upward_frames_play_exactly)
{
    ansi_profile_t xterm;
    ansi_profile_for_term(&xterm, "xterm-256color");
    const ansi_profile_t *profs[] = {&xterm, &P256, &P16, &PREP, &PDEC}; /* ASCII: no lines */
    static const uint32_t GLYPHS[] = {'@', 'k', '#', '.', ' ', 0x2500, 0x2502, 0xB7};
    uint64_t x = 0x5EEDull;
    int twice = 0;
    for (int n = 0; n < 100; n++) {
        int w = n % 3 == 0 ? 80 : n % 3 == 1 ? 132 : 9 + (int)(rng_step(&x) % 60);
        int h = 6 + (int)(rng_step(&x) % 20);
        pair_t p = pair_new(w, h);
        random_map(p.b, &x);
        pair_commit(&p);
        int rows = 2 + (int)(rng_step(&x) % 3), ys[4], first = h;
        for (int i = 0; i < rows; i++) {
            ys[i] = (int)(rng_step(&x) % (uint64_t)h);
            first = ys[i] < first ? ys[i] : first;
        }
        for (int i = 0; i < rows; i++)
            for (int k = 1 + (int)(rng_step(&x) % 3); k > 0; k--) {
                uint64_t r = rng_step(&x);
                int at = r % 4 == 0   ? 0
                         : r % 4 == 1 ? w - 1
                         : r % 4 == 2 ? 8 * (int)(r >> 8 & 15) + (int)(r >> 12 & 3) - 1
                                      : (int)((r >> 16) % (uint64_t)w);
                at = at < 0 ? 0 : at % w;
                style_t st = {(uint16_t)(r >> 20 & 1 ? SCREEN_DEFAULT_COLOR : r >> 24 & 15),
                              SCREEN_DEFAULT_COLOR, (uint8_t)(r >> 28 & 1 ? ATTR_BOLD : 0)};
                for (int c = at; c < at + 1 + (int)(r >> 32 & 3) && c < w; c++)
                    screen_put(p.b, c, ys[i], GLYPHS[(r >> 36) % 8], st);
            }
        for (size_t i = 0; i < sizeof profs / sizeof profs[0]; i++) {
            screen_cursor(p.b, (int)(rng_step(&x) % (uint64_t)w), first, true);
            buf_reset(&p.out);
            ansi_diff(profs[i], p.a, p.b, &p.out);
            ck_assert_plays(profs[i], p.a, p.b, &p.out);
            twice += rows_drawn(p.a, p.b) >= 2;
        }
        pair_free(&p);
    }
    ck_assert_int_gt(twice, 300); /* most frames took both orders */
}
END_TEST

/* A field of grass and trees of its own density (one tree in `every`
 * cells) over columns [0, x1) of rows 1-21, seen from (ox, oy), the @ at
 * (px, 11), a panel right of x1 and a status line. */
static void field_seen(screen_t *s, int ox, int oy, int every, int x1, int px)
{
    const style_t green = {2, SCREEN_DEFAULT_COLOR, 0}, tree = {10, SCREEN_DEFAULT_COLOR, 0};
    for (int y = 1; y <= 21; y++)
        for (int x = 0; x < s->w; x++) {
            unsigned h = (unsigned)(x + ox) * 2654435761u ^ (unsigned)(y + oy) * 40503u;
            bool t = (h >> 7) % (unsigned)every == 0;
            if (x >= x1)
                screen_put(s, x, y, x == x1 ? 0x2502 : ' ', STYLE_DEFAULT);
            else
                screen_put(s, x, y, t ? 0x2663 : (h >> 11) % 5 ? '"' : 0xB7, t ? tree : green);
        }
    if (x1 + 2 < s->w)
        screen_textf(s, x1 + 2, 3, STYLE_DEFAULT, "HP %d", 10 + ox % 7);
    screen_put(s, px, 11, '@', (style_t){15, SCREEN_DEFAULT_COLOR, ATTR_BOLD});
    screen_textf(s, 0, 22, STYLE_DEFAULT, "Adventurer  Town  T:%d", 100 + ox + oy);
    screen_cursor(s, px, 11, true);
}

/* Whether out holds a DCH or an ICH (CSI n P, CSI n @). */
static bool has_shift_op(const buf_t *out)
{
    for (size_t i = 0; i + 2 < out->len; i++) {
        if (out->data[i] != '\033' || out->data[i + 1] != '[')
            continue;
        size_t j = i + 2;
        while (j < out->len && out->data[j] >= '0' && out->data[j] <= '9')
            j++;
        if (j > i + 2 && j < out->len && (out->data[j] == 'P' || out->data[j] == '@'))
            return true;
    }
    return false;
}

/* The bytes of many views moved sideways (by 1 to 20 columns, either
 * way, some up or down too, with and without a panel, sparse and dense
 * trees) are those the encoder wrote before its trials of a row's
 * shifts had a byte budget (a trial stops once it cannot win): its
 * choices are the same, the unshifted row kept on a tie. The hash is of
 * every frame's bytes, for two terminals with REP and one without. */
#define SHIFTED_BYTES 153691
#define SHIFTED_HASH  0xdf8bf6cfd481dd66ull
START_TEST(shifted_views_keep_their_bytes)
{
    static const int KS[] = {1, -1, 2, -2, 3, -3, 7, -7, 20, -20};
    const char *terms[] = {"xterm-256color", "tmux-256color", "xterm"};
    uint64_t hash = 0xcbf29ce484222325ull;
    size_t bytes = 0;
    int shifts = 0;
    for (int ti = 0; ti < 3; ti++) {
        ansi_profile_t prof;
        ansi_profile_for_term(&prof, terms[ti]);
        for (int c = 0; c < 80; c++) {
            int k = KS[c % 10], dy = c % 7 == 3 ? (c % 2 ? 1 : -1) : 0;
            int every = 3 + c % 23, x1 = c % 3 ? 80 : 58 + c % 9, px = 20 + c % 37;
            pair_t p = pair_new(80, 24);
            field_seen(p.b, 100 + c, 50, every, x1, px);
            pair_commit(&p);
            field_seen(p.b, 100 + c - k, 50 + dy, every, x1, px + (c % 4 ? 0 : 1));
            ansi_diff(&prof, p.a, p.b, &p.out);
            for (size_t i = 0; i < p.out.len; i++)
                hash = (hash ^ (uint8_t)p.out.data[i]) * 0x100000001b3ull;
            bytes += p.out.len;
            shifts += has_shift_op(&p.out);
            pair_free(&p);
        }
    }
    ck_assert_int_gt(shifts, 100); /* the shifts were there to be planned */
    ck_assert_msg(bytes == SHIFTED_BYTES && hash == SHIFTED_HASH, "%zu bytes, hash %016llx", bytes,
                  (unsigned long long)hash);
}
END_TEST

Suite *suite_protocol_ansi(void)
{
    Suite *s = suite_create("protocol_ansi");
    TCase *t = tcase_create("core");
    tcase_add_test(t, identical_grids_give_nothing);
    tcase_add_test(t, scroll_region_spans_the_moved_rows);
    tcase_add_test(t, scroll_region_takes_a_row_changed_beyond_the_move);
    tcase_add_test(t, one_cell_change);
    tcase_add_test(t, relative_moves_from_a_known_cursor);
    tcase_add_test(t, one_row_moves_are_ri_and_ind);
    tcase_add_test(t, sgr_reset_is_an_empty_parameter);
    tcase_add_test(t, attribute_change_only);
    tcase_add_test(t, blank_tail_uses_erase_line);
    tcase_add_test(t, short_blank_tail_writes_spaces);
    tcase_add_test(t, short_gap_is_overwritten);
    tcase_add_test(t, sgr_reset_when_shorter);
    tcase_add_test(t, keyframe_places_and_shows_cursor);
    tcase_add_test(t, last_column_never_assumes_the_cursor);
    tcase_add_test(t, cursor_visibility_changes);
    tcase_add_test(t, sync_brackets_wrap_a_frame);
    tcase_add_test(t, sixteen_colours_map_to_nearest);
    tcase_add_test(t, ascii_fallbacks);
    tcase_add_test(t, map_glyphs_per_profile);
    tcase_add_test(t, wide_and_combining_become_placeholders);
    tcase_add_test(t, size_change_gives_keyframe);
    tcase_add_test(t, profiles_for_terminal_names);
    tcase_add_test(t, profile_ids_are_small_and_distinct);
    tcase_add_test(t, few_dirty_rows_read_only_those_of_the_old_grid);
    tcase_add_test(t, runs_of_a_glyph_are_repeated);
    tcase_add_test(t, pre_tests_skip_only_searches_that_find_nothing);
    tcase_add_test(t, sideways_field_shifts_every_row_first);
    tcase_add_test(t, shifted_views_keep_their_bytes);
    tcase_add_test(t, field_moved_both_ways_plays_exactly);
    tcase_add_test(t, step_upward_frames_play_exactly);
    suite_add_tcase(s, t);
    TCase *k = tcase_create("keyframe");
    tcase_add_test(k, keyframe_of_blank_grid);
    tcase_add_test(k, keyframe_gaps_overwrite_or_move);
    tcase_add_test(k, keyframe_attributes_and_runs);
    tcase_add_test(k, keyframe_profiles);
    tcase_add_test(k, keyframe_wide_grid_last_column);
    tcase_add_test(k, keyframe_equals_diff_from_blank);
    suite_add_tcase(s, k);
    return s;
}
