/* Unit tests: hosted games' recordings — the chunk format (recchunk) and
 * its playback as an asciicast and as the browser player's frames
 * (hostreplay). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "hosted/recchunk.h"
#include "records/hostreplay.h"

#define EV_MAX 16

typedef struct {
    recevent_t ev[EV_MAX];
    char data[EV_MAX][64];
    int n, stop_at;
} seen_t;

static int collect(void *ud, const recevent_t *e)
{
    seen_t *s = ud;
    if (s->n == s->stop_at || s->n == EV_MAX)
        return 1;
    s->ev[s->n] = *e;
    if (e->kind == 'o') {
        ck_assert_uint_lt(e->len, sizeof s->data[0]);
        memcpy(s->data[s->n], e->data, e->len);
        s->data[s->n][e->len] = 0;
    }
    s->n++;
    return 0;
}

/* Decodes a compressed chunk at ms into s: the decoder's result. */
static int decode(const buf_t *z, uint64_t ms, seen_t *s, char *err, size_t n)
{
    buf_t scratch;
    buf_init(&scratch);
    if (!s->stop_at)
        s->stop_at = -1;
    int ret = recchunk_decode(ms, z->data, z->len, &scratch, collect, s, err, n);
    buf_free(&scratch);
    return ret;
}

START_TEST(chunk_round_trip)
{
    recchunk_t c;
    recchunk_init(&c);
    ck_assert_int_eq(recchunk_resize(&c, 5, 80, 24), 0);
    ck_assert_int_eq(recchunk_output(&c, 7, "hello", 5), 0);
    ck_assert_int_eq(recchunk_output(&c, 300000, "\033[2J", 4), 0);
    ck_assert_int_eq(recchunk_output(&c, 299999, "late", 4), 0); /* earlier: taken as the last */
    ck_assert_int_eq(recchunk_resize(&c, 300010, 132, 50), 0);
    ck_assert_uint_eq(c.records, 5);
    ck_assert_uint_eq(c.ms0, 5);
    buf_t z;
    buf_init(&z);
    ck_assert_int_eq(recchunk_compress(&c, &z), 0);
    seen_t s = {0};
    char err[100] = "";
    ck_assert_int_eq(decode(&z, 1000 + c.ms0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 5);
    ck_assert_int_eq(s.ev[0].kind, 'r');
    ck_assert_int_eq(s.ev[0].w, 80);
    ck_assert_int_eq(s.ev[0].h, 24);
    ck_assert_uint_eq(s.ev[0].ms, 1005);
    ck_assert_str_eq(s.data[1], "hello");
    ck_assert_uint_eq(s.ev[1].ms, 1007);
    ck_assert_str_eq(s.data[2], "\033[2J");
    ck_assert_uint_eq(s.ev[2].ms, 301000);
    ck_assert_str_eq(s.data[3], "late");
    ck_assert_uint_eq(s.ev[3].ms, 301000);
    ck_assert_int_eq(s.ev[4].w, 132);
    ck_assert_uint_eq(s.ev[4].ms, 301010);
    recchunk_reset(&c);
    ck_assert_uint_eq(c.records, 0);
    ck_assert_uint_eq(c.raw.len, 0);
    buf_free(&z);
    recchunk_free(&c);
}
END_TEST

/* A chunk cut to a number of output bytes (an account's day of
 * recordings nearly used): the crossing record cut at the byte, the
 * output after it gone, sizes and times kept. */
START_TEST(chunk_cut_keeps_output_up_to_the_byte)
{
    recchunk_t c;
    recchunk_init(&c);
    ck_assert_int_eq(recchunk_resize(&c, 5, 80, 24), 0);
    ck_assert_int_eq(recchunk_output(&c, 7, "hello", 5), 0);
    ck_assert_int_eq(recchunk_output(&c, 9, "world!", 6), 0);
    ck_assert_int_eq(recchunk_resize(&c, 12, 100, 30), 0);
    ck_assert_int_eq(recchunk_output(&c, 15, "more", 4), 0);
    ck_assert_int_eq(recchunk_cut(&c, 7), 7);
    ck_assert_uint_eq(c.records, 4);
    ck_assert_uint_eq(c.ms0, 5);
    buf_t z;
    buf_init(&z);
    ck_assert_int_eq(recchunk_compress(&c, &z), 0);
    seen_t s = {0};
    char err[100] = "";
    ck_assert_int_eq(decode(&z, c.ms0, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 4);
    ck_assert_int_eq(s.ev[0].w, 80);
    ck_assert_str_eq(s.data[1], "hello");
    ck_assert_uint_eq(s.ev[1].ms, 7);
    ck_assert_str_eq(s.data[2], "wo");
    ck_assert_uint_eq(s.ev[2].ms, 9);
    ck_assert_int_eq(s.ev[3].kind, 'r');
    ck_assert_int_eq(s.ev[3].w, 100);
    ck_assert_uint_eq(s.ev[3].ms, 12);
    /* nothing left: the output goes, the sizes stay */
    ck_assert_int_eq(recchunk_cut(&c, 0), 0);
    ck_assert_uint_eq(c.records, 2);
    /* more room than output: all of it kept */
    ck_assert_int_eq(recchunk_output(&c, 20, "abc", 3), 0);
    ck_assert_int_eq(recchunk_cut(&c, 100), 3);
    ck_assert_uint_eq(c.records, 3);
    buf_free(&z);
    recchunk_free(&c);
}
END_TEST

START_TEST(chunk_refuses_what_it_cannot_store)
{
    recchunk_t c;
    recchunk_init(&c);
    ck_assert_int_eq(recchunk_output(&c, 0, "x", 0), -1);
    ck_assert_int_eq(recchunk_resize(&c, 0, 1, 24), -1);
    ck_assert_int_eq(recchunk_resize(&c, 0, 80, 0), -1);
    ck_assert_int_eq(recchunk_resize(&c, 0, 513, 24), -1);
    ck_assert_uint_eq(c.records, 0);
    char *big = calloc(1, RECCHUNK_RAW_MAX);
    ck_assert_int_eq(recchunk_output(&c, 0, big, RECCHUNK_RAW_MAX - 100), 0);
    ck_assert_int_eq(recchunk_output(&c, 1, big, 200), -1); /* past the chunk's bound */
    ck_assert_uint_eq(c.records, 1);
    free(big);
    recchunk_free(&c);
}
END_TEST

/* zlib of raw bytes as a chunk would be stored. */
static void zip(buf_t *z, const void *raw, size_t n)
{
    uLongf got = compressBound((uLong)n);
    buf_reset(z);
    ck_assert(buf_reserve(z, got));
    ck_assert_int_eq(compress((Bytef *)z->data, &got, raw, (uLong)n), Z_OK);
    z->len = got;
}

static void expect_refused(const void *raw, size_t n, const char *why)
{
    buf_t z;
    buf_init(&z);
    zip(&z, raw, n);
    seen_t s = {0};
    char err[100] = "";
    ck_assert_int_eq(decode(&z, 0, &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, why), "%s", err);
    buf_free(&z);
}

START_TEST(decoder_refuses_bad_chunks)
{
    expect_refused("x\0\1a", 4, "bad record");                /* an unknown kind */
    expect_refused("o\0\5abc", 6, "bad record");              /* output cut short */
    expect_refused("o\0\0", 3, "bad record");                 /* empty output */
    expect_refused("r\0\1\30", 4, "bad record");              /* one column */
    expect_refused("r\0\120", 3, "bad record");               /* no height */
    expect_refused("o\x80\x80\x80\x80\x80", 6, "bad record"); /* a varint never ends */
    char *big = calloc(1, RECCHUNK_RAW_MAX + 10);
    expect_refused(big, RECCHUNK_RAW_MAX + 10, "inflates past");
    free(big);
    seen_t s = {0};
    char err[100] = "";
    buf_t z;
    buf_init(&z);
    buf_puts(&z, "not zlib at all");
    ck_assert_int_eq(decode(&z, 0, &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "zlib"), "%s", err);
    zip(&z, "o\0\2ab", 5);
    z.len--; /* cut */
    ck_assert_int_eq(decode(&z, 0, &s, err, sizeof err), -1);
    zip(&z, "o\0\2ab", 5);
    buf_putc(&z, 'x'); /* something after the stream */
    ck_assert_int_eq(decode(&z, 0, &s, err, sizeof err), -1);
    zip(&z, "o\0\2abo\0\2cd", 10);
    s = (seen_t){.stop_at = 1};
    ck_assert_int_eq(decode(&z, 0, &s, err, sizeof err), -1); /* the reader stopped */
    ck_assert_int_eq(s.n, 1);
    buf_free(&z);
}
END_TEST

/* ---- playback ------------------------------------------------------------------------ */

/* A recording of one chunk: the records given as (ms, text) with "\1WxH"
 * for a resize. */
static void one_chunk(buf_t *z, db_hosted_chunk_t *ch, const uint64_t *ms, const char *const *text,
                      int n)
{
    recchunk_t c;
    recchunk_init(&c);
    for (int i = 0; i < n; i++) {
        int w, h;
        if (text[i][0] == 1 && sscanf(text[i] + 1, "%dx%d", &w, &h) == 2)
            ck_assert_int_eq(recchunk_resize(&c, ms[i], w, h), 0);
        else
            ck_assert_int_eq(recchunk_output(&c, ms[i], text[i], strlen(text[i])), 0);
    }
    buf_reset(z);
    ck_assert_int_eq(recchunk_compress(&c, z), 0);
    *ch = (db_hosted_chunk_t){1, (int64_t)c.ms0, z->data, z->len};
    recchunk_free(&c);
}

/* The cast draws what the terminal shows: a keyframe from a cleared
 * screen first, then each record's change to the screen (a UTF-8
 * sequence cut between two reads is drawn whole), at the record's time
 * with gaps capped; a resize's event, then a keyframe at the new size. */
START_TEST(cast_draws_the_screen_caps_gaps_and_resizes)
{
    const uint64_t ms[] = {0, 100, 150, 60000, 60500};
    const char *const text[] = {"\00180x24", "a\xe2\x94", "\x80z", "later", "\00190x30"};
    buf_t z;
    buf_init(&z);
    body_t b;
    ck_assert_int_eq(body_open(&b, 0, false), 0);
    db_hosted_chunk_t ch;
    one_chunk(&z, &ch, ms, text, 5);
    hostreplay_input_t in = {80, 24, &ch, 1, 0};
    char err[100] = "";
    ck_assert_int_eq(hostreplay_cast(&in, "t \"q\"", &b, err, sizeof err), 0);
    buf_putc(&b.text, 0);
    buf_t out = b.text;
    const char *want =
        "{\"version\": 2, \"width\": 80, \"height\": 24, \"idle_time_limit\": "
        "2.000, \"title\": \"t \\\"q\\\"\", \"env\": {\"TERM\": "
        "\"xterm-256color\"}}\n"
        "[0.000, \"r\", \"80x24\"]\n"
        "[0.100, \"o\", \"\\u001b(B\\u001b[m\\u001b[H\\u001b[2Ja\\u001b[?25h\"]\n"
        "[0.150, \"o\", \"\xe2\x94\x80z\"]\n"
        "[2.150, \"o\", \"later\"]\n"
        "[2.650, \"r\", \"90x30\"]\n"
        "[2.650, \"o\", "
        "\"\\u001b(B\\u001b[m\\u001b[H\\u001b[2Ja\xe2\x94\x80zlater\\u001b[?25h\"]\n";
    ck_assert_str_eq(out.data, want);
    buf_free(&z);
    body_free(&b);
}
END_TEST

/* A program's own sequences never reach the cast: titles, the clipboard,
 * device strings, 8-bit controls, the alternate screen, reports and the
 * bell are the terminal's business; the cast shows their effect. */
START_TEST(cast_keeps_none_of_the_programs_sequences)
{
    const uint64_t ms[] = {0, 10, 20, 30, 40};
    const char *const text[] = {"\00140x6",
                                "\033[?1049h\033]52;c;aGVsbG8=\007\033]0;a title\007top\r\n",
                                "\033P1$qm\033\\\033_apc\033\\\033^pm\033\\\xc2\x9b"
                                "31m\xc2\x9d"
                                "2;t\xc2\x9c",
                                "\x9b"
                                "2J\033[21t\033[?1000h\007\033[2;3Hmid\033[5;1H\033[1;31mred",
                                "\x9d"
                                "0;x\007 end"};
    buf_t z;
    buf_init(&z);
    body_t b;
    ck_assert_int_eq(body_open(&b, 0, false), 0);
    db_hosted_chunk_t ch;
    one_chunk(&z, &ch, ms, text, 5);
    hostreplay_input_t in = {40, 6, &ch, 1, 0};
    char err[100] = "";
    ck_assert_int_eq(hostreplay_cast(&in, "t", &b, err, sizeof err), 0);
    buf_putc(&b.text, 0);
    const char *out = b.text.data;
    static const char *const never[] = {"\\u001b]", "\\u001bP", "\\u001b_", "\\u001b^", "\\u0007",
                                        "\\u0090",  "\\u009b",  "\\u009c",  "\\u009d",  "?1049",
                                        "?1000",    "21t",      "52;",      "a title",  "\xc2\x9b"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        ck_assert_msg(!strstr(out, never[i]), "%s in %s", never[i], out);
    ck_assert_msg(strstr(out, "top") && strstr(out, "mid") && strstr(out, "red") &&
                      strstr(out, "\\u001b[1;31m") && strstr(out, " end"),
                  "%s", out);
    buf_free(&z);
    body_free(&b);
}
END_TEST

START_TEST(frames_merge_close_output_and_end_on_a_keyframe)
{
    const uint64_t ms[] = {0, 10, 15, 5000, 5005};
    const char *const text[] = {"\00130x5", "A", "B", "\033[2;1HC", "\00140x6"};
    buf_t z;
    buf_init(&z);
    body_t b;
    ck_assert_int_eq(body_open(&b, 0, false), 0);
    db_hosted_chunk_t ch;
    one_chunk(&z, &ch, ms, text, 5);
    hostreplay_input_t in = {30, 5, &ch, 1, 0};
    char err[100] = "";
    ck_assert_int_eq(hostreplay_frames_json(&in, &b, err, sizeof err), 0);
    buf_putc(&b.text, 0);
    buf_t out = b.text;
    /* the largest window; frame 0 blank, "AB" at 10 ms in one frame, "C"
     * at 2010 (the gap from frame 1 capped, though "B" came at 15) with
     * the resize just after: a keyframe */
    ck_assert_msg(
        strncmp(out.data, "{\"w\":40,\"h\":6,\"keyframe_turns\":100,\"idle_ms\":2000,", 48) == 0,
        "%s", out.data);
    ck_assert_ptr_nonnull(strstr(out.data, "\n[1,10,\"AB\"],"));
    ck_assert_msg(strstr(out.data, "\n[2,2010,\""), "%s", out.data);
    ck_assert_ptr_null(strstr(out.data, "\n[3,"));
    ck_assert_ptr_nonnull(strstr(out.data, "],\"turns\":2,\"bytes\":9,\"truncated\":false}\n"));
    const char *last = strstr(out.data, "\n[2,2010,\"");
    ck_assert_ptr_nonnull(strstr(last, "\",\"\\u001b")); /* frame 2: a diff and a keyframe */
    buf_free(&z);
    body_free(&b);
}
END_TEST

START_TEST(playback_refuses_a_bad_chunk)
{
    db_hosted_chunk_t ch = {1, 0, "garbage", 7};
    hostreplay_input_t in = {80, 24, &ch, 1, 0};
    body_t b;
    ck_assert_int_eq(body_open(&b, 0, false), 0);
    char err[100] = "";
    ck_assert_int_eq(hostreplay_cast(&in, "", &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "zlib"), "%s", err);
    body_free(&b);
    ck_assert_int_eq(body_open(&b, 0, false), 0);
    ck_assert_int_eq(hostreplay_frames_json(&in, &b, err, sizeof err), -1);
    body_free(&b);
}
END_TEST

/* A flood's chunks: lines of coloured text, n chunks of about 64 KB. */
static db_hosted_chunk_t *flood_chunks(size_t n, buf_t *store)
{
    db_hosted_chunk_t *chs = calloc(n, sizeof *chs);
    size_t *offs = calloc(n, sizeof *offs);
    ck_assert(chs && offs);
    uint64_t ms = 0, line = 0;
    for (size_t k = 0; k < n; k++) {
        recchunk_t c;
        recchunk_init(&c);
        for (int i = 0; i < 1000; i++, line++, ms += 3) {
            char t[96];
            int len = snprintf(t, sizeof t, "\033[3%dmflood %012llu abcdefghij\033[0m\r\n",
                               (int)(line % 8), (unsigned long long)line);
            ck_assert_int_eq(recchunk_output(&c, ms, t, (size_t)len), 0);
        }
        offs[k] = store->len;
        ck_assert_int_eq(recchunk_compress(&c, store), 0);
        chs[k] = (db_hosted_chunk_t){(int64_t)k + 1, (int64_t)c.ms0, NULL, store->len - offs[k]};
        recchunk_free(&c);
    }
    for (size_t k = 0; k < n; k++) /* the store may have moved while it grew */
        chs[k].data = store->data + offs[k];
    free(offs);
    return chs;
}

/* The gzipped body inflated, NUL-terminated. */
static void gunzip_all(const body_t *b, buf_t *out)
{
    http_gunz_t r;
    ck_assert_int_eq(http_gunz_open(&r, b->gz.data, b->gz.len), 0);
    char piece[5000];
    for (ssize_t n; (n = http_gunz_read(&r, piece, sizeof piece)) != 0;) {
        ck_assert_int_gt(n, 0);
        buf_put(out, piece, (size_t)n);
    }
    http_gunz_close(&r);
    buf_putc(out, 0);
}

/* Chunk by chunk into a gzipped body is the same document as all at once
 * in plain text; a cap cuts it after a frame or event, with its marker. */
START_TEST(playback_chunk_by_chunk_gzipped_and_cut)
{
    buf_t store, plain;
    buf_init(&store);
    buf_init(&plain);
    db_hosted_chunk_t *chs = flood_chunks(6, &store);
    hostreplay_input_t in = {80, 24, chs, 6, 0};
    char err[100] = "";
    for (int cast = 0; cast < 2; cast++) {
        body_t whole, zipped;
        ck_assert_int_eq(body_open(&whole, 0, false), 0);
        ck_assert_int_eq(cast ? hostreplay_cast(&in, "t", &whole, err, sizeof err)
                              : hostreplay_frames_json(&in, &whole, err, sizeof err),
                         0);
        ck_assert_int_eq(body_open(&zipped, 0, true), 0);
        hostreplay_opts_t o = {80, 24, 80, 24, 0, "t"};
        hostreplay_t *r = hostreplay_new(cast ? HOSTREPLAY_CAST : HOSTREPLAY_FRAMES, &o, &zipped,
                                         err, sizeof err);
        ck_assert_ptr_nonnull(r);
        for (size_t i = 0; i < 6; i++)
            ck_assert_int_eq(hostreplay_feed(r, &chs[i], err, sizeof err), 0);
        ck_assert_int_eq(hostreplay_end(r, err, sizeof err), 0);
        hostreplay_free(r);
        buf_reset(&plain);
        gunzip_all(&zipped, &plain);
        ck_assert_uint_eq(plain.len - 1, whole.text.len);
        ck_assert(memcmp(plain.data, whole.text.data, whole.text.len) == 0);
        ck_assert_uint_lt(zipped.gz.len, whole.text.len / 4); /* only the gzip is kept */
        ck_assert_uint_eq(zipped.text.len, 0);
        /* cut at 100 KB: stops there, says so, and ends well */
        body_t cut;
        ck_assert_int_eq(body_open(&cut, 100000, true), 0);
        ck_assert_int_eq(cast ? hostreplay_cast(&in, "t", &cut, err, sizeof err)
                              : hostreplay_frames_json(&in, &cut, err, sizeof err),
                         0);
        ck_assert(cut.cut);
        buf_reset(&plain);
        gunzip_all(&cut, &plain);
        ck_assert_uint_ge(plain.len, 100000);
        ck_assert_uint_lt(plain.len, 110000);
        if (cast) {
            const char *last = plain.data + plain.len - 2; /* the last line */
            while (last > plain.data && last[-1] != '\n')
                last--;
            ck_assert_msg(strncmp(last, "[", 1) == 0 && strstr(last, "\"o\", ") &&
                              strstr(last, BODY_CUT_NOTE),
                          "%s", last);
        } else {
            ck_assert_ptr_nonnull(strstr(plain.data, ",\"truncated\":true}\n"));
            ck_assert_ptr_null(strstr(whole.text.data, "\"truncated\":true"));
        }
        body_free(&whole);
        body_free(&zipped);
        body_free(&cut);
    }
    free(chs);
    buf_free(&store);
    buf_free(&plain);
}
END_TEST

Suite *suite_server_hosted_rec(void)
{
    Suite *s = suite_create("server.hosted_rec");
    TCase *t = tcase_create("core");
    tcase_add_test(t, chunk_round_trip);
    tcase_add_test(t, chunk_cut_keeps_output_up_to_the_byte);
    tcase_add_test(t, chunk_refuses_what_it_cannot_store);
    tcase_add_test(t, decoder_refuses_bad_chunks);
    tcase_add_test(t, cast_draws_the_screen_caps_gaps_and_resizes);
    tcase_add_test(t, cast_keeps_none_of_the_programs_sequences);
    tcase_add_test(t, frames_merge_close_output_and_end_on_a_keyframe);
    tcase_add_test(t, playback_refuses_a_bad_chunk);
    tcase_add_test(t, playback_chunk_by_chunk_gzipped_and_cut);
    suite_add_tcase(s, t);
    return s;
}
