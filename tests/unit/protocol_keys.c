/* Unit tests: protocol/keys — terminal sequences, browser messages, names
 * and the packed journal form. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys.h"

/* Decoded keys as their names joined by spaces. */
typedef struct {
    char text[512];
    int n;
} names_t;

static void names_add(void *ud, key_event_t k)
{
    names_t *o = ud;
    char nm[32];
    key_name(k, nm, sizeof nm);
    size_t len = strlen(o->text);
    snprintf(o->text + len, sizeof o->text - len, "%s%s", len ? " " : "", nm);
    o->n++;
}

static void names_mark(names_t *o, const char *s)
{
    size_t len = strlen(o->text);
    snprintf(o->text + len, sizeof o->text - len, "%s%s", len ? " " : "", s);
}

/* Feeds in[0..len) cut at the given points; "|" marks a pending Esc, after
 * which the timeout's keys follow. */
static void decode_cut(const char *in, size_t len, const size_t *cuts, int ncuts, names_t *o)
{
    keydec_t d;
    size_t at = 0;
    memset(o, 0, sizeof *o);
    keydec_init(&d);
    for (int i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        keydec_feed(&d, (const uint8_t *)in + at, end - at, names_add, o);
        at = end;
    }
    if (keydec_pending(&d)) {
        names_mark(o, "|");
        keydec_timeout(&d, names_add, o);
        if (keydec_pending(&d))
            ck_abort_msg("still pending after the timeout");
    }
}

typedef struct {
    const char *in;
    size_t len;
    const char *want;
} kcase_t;
#define K(s, w)             \
    {                       \
        s, sizeof(s) - 1, w \
    }

static const kcase_t CASES[] = {
    /* plain and control */
    K("a", "a"),
    K("hi!", "h i !"),
    K(" ", "Space"),
    K("\x01", "^A"),
    K("\t", "Tab"),
    K("\x7f", "Backspace"),
    K("\x08", "^H"),
    K("\n", "^J"),
    K("\x1f", "^_"),
    /* telnet line ends: CR NUL and CR LF are one Enter */
    K("\r", "Enter"),
    K("\r\n", "Enter"),
    K("\r\0", "Enter"),
    K("\r\r\n", "Enter Enter"),
    K("\r\n\n", "Enter ^J"),
    K("\r\nx", "Enter x"),
    K("\0", ""),
    K("a\0b", "a b"),
    /* UTF-8, and invalid bytes that must give nothing */
    K("\xc3\xa9", "\xc3\xa9"),
    K("\xe2\x82\xac", "\xe2\x82\xac"),
    K("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"),
    K("\xe2\x82\xac\xc3\xa9", "\xe2\x82\xac \xc3\xa9"),
    K("\xff", ""),
    K("\xfe\xc0\xc1\xf5", ""),
    K("\x80"
      "a",
      "a"),
    K("\xc3", ""),
    K("\xc3x", "x"),
    K("\xe2\x82x", "x"),
    K("\xc0\xaf", ""),
    K("\xe0\x80\xaf", ""),
    K("\xed\xa0\x80", ""),
    K("\xf4\x90\x80\x80", ""),
    K("\xc2\x9b", ""),
    K("\xc3\xc3\xa9", "\xc3\xa9"),
    K("\xf0\x9f\x98\x1b[A", "Up"),
    /* Esc and Alt */
    K("\x1b", "| Esc"),
    K("\x1bx", "M-x"),
    K("\x1b\x01", "M-^A"),
    K("\x1b\x1b", "| Esc Esc"),
    K("\x1b\x1bx", "Esc M-x"),
    K("\x1b\xc3\xa9", "M-\xc3\xa9"),
    K("\x1b\r", "M-Enter"),
    K("\x1b\r\n", "M-Enter"),
    K("\x1b\x7f", "M-Backspace"),
    K("\x1b\xff", "Esc"),
    K("\x1b\0", "Esc"),
    K("\x1b\x1b[A", "M-Up"),
    K("\x1b\x1b\x1b", "Esc | Esc Esc"),
    /* arrows and editing keys, CSI and SS3 */
    K("\x1b[A", "Up"),
    K("\x1b[B", "Down"),
    K("\x1b[C", "Right"),
    K("\x1b[D", "Left"),
    K("\x1bOA", "Up"),
    K("\x1bOB", "Down"),
    K("\x1bOC", "Right"),
    K("\x1bOD", "Left"),
    K("\x1b[H", "Home"),
    K("\x1b[F", "End"),
    K("\x1bOH", "Home"),
    K("\x1bOF", "End"),
    K("\x1b[1~", "Home"),
    K("\x1b[2~", "Insert"),
    K("\x1b[3~", "Delete"),
    K("\x1b[4~", "End"),
    K("\x1b[5~", "PgUp"),
    K("\x1b[6~", "PgDn"),
    K("\x1b[7~", "Home"),
    K("\x1b[8~", "End"),
    /* modifiers: xterm, old SS3, rxvt */
    K("\x1b[1;5A", "C-Up"),
    K("\x1b[1;2B", "S-Down"),
    K("\x1b[1;3C", "M-Right"),
    K("\x1b[1;8D", "C-M-S-Left"),
    K("\x1b[1;9A", "M-Up"),
    K("\x1b[3;5~", "C-Delete"),
    K("\x1b[5;2~", "S-PgUp"),
    K("\x1bO5A", "C-Up"),
    K("\x1b[1;5P", "C-F1"),
    K("\x1b[15;2~", "S-F5"),
    K("\x1b[Z", "S-Tab"),
    K("\x1b[a", "S-Up"),
    K("\x1b[d", "S-Left"),
    K("\x1bOa", "C-Up"),
    K("\x1bOc", "C-Right"),
    K("\x1b[2$", "S-Insert"),
    K("\x1b[3^", "C-Delete"),
    K("\x1b[5@", "C-S-PgUp"),
    K("\x1b[27;5;97~", "^A"),
    K("\x1b[27;3;120~", "M-x"),
    K("\x1b[27;5;13~", "C-Enter"),
    K("\x1b[97;5u", "^A"),
    K("\x1b[233u", "\xc3\xa9"),
    K("\x1b[1;17A", ""),
    K("\x1b[27;5;55296~", ""),
    K("\x1b[27;5;1114112~", ""),
    K("\x1b[150u", ""),
    K("\x1b[;5u", ""),
    K("\x1b[64;5u", "C-@"),
    K("\x1b[27;5;0~", ""),
    /* function keys: vt100 SS3, vt220 CSI n ~, linux console */
    K("\x1bOP", "F1"),
    K("\x1bOQ", "F2"),
    K("\x1bOR", "F3"),
    K("\x1bOS", "F4"),
    K("\x1b[11~", "F1"),
    K("\x1b[12~", "F2"),
    K("\x1b[13~", "F3"),
    K("\x1b[14~", "F4"),
    K("\x1b[15~", "F5"),
    K("\x1b[17~", "F6"),
    K("\x1b[18~", "F7"),
    K("\x1b[19~", "F8"),
    K("\x1b[20~", "F9"),
    K("\x1b[21~", "F10"),
    K("\x1b[23~", "F11"),
    K("\x1b[24~", "F12"),
    K("\x1b[[A", "F1"),
    K("\x1b[[B", "F2"),
    K("\x1b[[C", "F3"),
    K("\x1b[[D", "F4"),
    K("\x1b[[E", "F5"),
    K("\x1b[16~", ""),
    K("\x1b[[Z", ""),
    K("\x1b[[\rx", "Enter x"),
    /* keypad: application mode gives the characters; centre key */
    K("\x1bOp", "0"),
    K("\x1bOq", "1"),
    K("\x1bOr", "2"),
    K("\x1bOs", "3"),
    K("\x1bOt", "4"),
    K("\x1bOu", "5"),
    K("\x1bOv", "6"),
    K("\x1bOw", "7"),
    K("\x1bOx", "8"),
    K("\x1bOy", "9"),
    K("\x1bOM", "Enter"),
    K("\x1bOj", "*"),
    K("\x1bOk", "+"),
    K("\x1bOl", ","),
    K("\x1bOm", "-"),
    K("\x1bOn", "."),
    K("\x1bOo", "/"),
    K("\x1bOX", "="),
    K("\x1b[E", "KP5"),
    K("\x1b[G", "KP5"),
    K("\x1bOE", "KP5"),
    /* unknown, interrupted and partial sequences */
    K("\x1b[99~", ""),
    K("\x1b[?1;2c", ""),
    K("\x1b[<0;1;2M", ""),
    K("\x1b[I", ""),
    K("\x1b[1;2;3;4A", ""),
    K("\x1b[1:5A", ""),
    K("\x1b[ Ax", "x"),
    K("\x1b[Ax", "Up x"),
    K("\x1b[1;5Xa", "a"),
    K("\x1bOz", ""),
    K("\x1b[1\r", "Enter"),
    K("\x1b[\x1b[A", "Up"),
    K("\x1bO\x01", "^A"),
    K("\x1b[1\xc3\xa9", "\xc3\xa9"),
    K("\x1b[", "| Esc ["),
    K("\x1b[1;", "| Esc [ 1 ;"),
    K("\x1bO", "| Esc O"),
    K("\x1b\x1b[", "| Esc Esc ["),
    K("ab\x1b[Acd\x1b", "a b Up c d | Esc"),
};

START_TEST(sequences_whole_and_split)
{
    const kcase_t *c = &CASES[_i];
    names_t o, p;
    decode_cut(c->in, c->len, NULL, 0, &o);
    ck_assert_msg(!strcmp(o.text, c->want), "case %d: got '%s' want '%s'", _i, o.text, c->want);
    /* every single cut, and byte by byte */
    for (size_t s = 1; s < c->len; s++) {
        decode_cut(c->in, c->len, &s, 1, &p);
        if (strcmp(p.text, c->want))
            ck_abort_msg("case %d cut %zu: '%s'", _i, s, p.text);
    }
    size_t cuts[64];
    int n = 0;
    for (size_t s = 1; s < c->len && n < 64; s++)
        cuts[n++] = s;
    decode_cut(c->in, c->len, cuts, n, &p);
    ck_assert_str_eq(p.text, c->want);
}
END_TEST

START_TEST(overlong_sequences_are_dropped)
{
    char in[300];
    names_t o;
    /* 100 parameter digits, then a final byte: all dropped, the next key stays */
    int n = snprintf(in, sizeof in, "\x1b[");
    for (int i = 0; i < 100; i++)
        in[n++] = '1';
    n += snprintf(in + n, sizeof in - (size_t)n, "Ax");
    decode_cut(in, (size_t)n, NULL, 0, &o);
    ck_assert_str_eq(o.text, "x");
    /* interrupted by a control: dropped, the control stays */
    n = snprintf(in, sizeof in, "\x1b[");
    for (int i = 0; i < 40; i++)
        in[n++] = ';';
    in[n++] = '\r';
    decode_cut(in, (size_t)n, NULL, 0, &o);
    ck_assert_str_eq(o.text, "Enter");
    /* still open at the timeout: nothing */
    n = snprintf(in, sizeof in, "\x1b\x1b[");
    for (int i = 0; i < 60; i++)
        in[n++] = '9';
    decode_cut(in, (size_t)n, NULL, 0, &o);
    ck_assert_str_eq(o.text, "|");
}
END_TEST

START_TEST(pending_and_timeout)
{
    keydec_t d;
    names_t o;
    memset(&o, 0, sizeof o);
    keydec_init(&d);
    ck_assert(!keydec_pending(&d));
    keydec_feed(&d, (const uint8_t *)"\x1b", 1, names_add, &o);
    ck_assert(keydec_pending(&d));
    ck_assert_int_eq(o.n, 0);
    keydec_feed(&d, (const uint8_t *)"[1;5", 4, names_add, &o);
    ck_assert(keydec_pending(&d));
    keydec_feed(&d, (const uint8_t *)"D", 1, names_add, &o);
    ck_assert(!keydec_pending(&d));
    ck_assert_str_eq(o.text, "C-Left");
    /* a split UTF-8 character waits without a timeout */
    keydec_feed(&d, (const uint8_t *)"\xe2\x82", 2, names_add, &o);
    ck_assert(!keydec_pending(&d));
    keydec_timeout(&d, names_add, &o); /* nothing to resolve: keeps it */
    keydec_feed(&d, (const uint8_t *)"\xac", 1, names_add, &o);
    ck_assert_str_eq(o.text, "C-Left \xe2\x82\xac");
    /* CR then LF in the next read is still one Enter */
    keydec_feed(&d, (const uint8_t *)"\r", 1, names_add, &o);
    keydec_feed(&d, (const uint8_t *)"\n", 1, names_add, &o);
    ck_assert_str_eq(o.text, "C-Left \xe2\x82\xac Enter");
    ck_assert_int_eq(o.n, 3);
}
END_TEST

static bool event_ok(key_event_t k)
{
    if (k.mods & ~7u)
        return false;
    if (k.code >= KEY_BASE)
        return k.code < KEY_LAST_NAMED_;
    if (k.code < 0x20 || k.code == 0x7F)
        return k.code != 0;
    return k.code >= 0xA0 ? !(k.code >= 0xD800 && k.code <= 0xDFFF) : k.code < 0x7F;
}

static void check_event(void *ud, key_event_t k)
{
    /* plain if: ck_assert in a hot loop talks to the runner every call */
    if (!event_ok(k))
        ck_abort_msg("bad key %x mods %x", k.code, k.mods);
    (*(int *)ud)++;
}

/* Random bytes in random pieces: every key valid, pend never overflows. */
START_TEST(random_bytes_make_only_valid_keys)
{
    static const char alphabet[] = "\x1b\x1b\x1b[[O;0159~AaPpu\r\n\0\xc3\xa9\xe2\x82\xf0\x9f\xff";
    srand(1234);
    int keys = 0;
    for (int round = 0; round < 2000; round++) {
        keydec_t d;
        uint8_t in[200];
        keydec_init(&d);
        size_t n = (size_t)(rand() % 200);
        for (size_t i = 0; i < n; i++)
            in[i] =
                rand() % 2 ? (uint8_t)rand() : (uint8_t)alphabet[rand() % (sizeof alphabet - 1)];
        size_t at = 0;
        while (at < n) {
            size_t step = 1 + (size_t)rand() % 8;
            if (step > n - at)
                step = n - at;
            keydec_feed(&d, in + at, step, check_event, &keys);
            if (d.npend > sizeof d.pend)
                ck_abort_msg("pend overflow");
            if (rand() % 10 == 0)
                keydec_timeout(&d, check_event, &keys);
            at += step;
        }
    }
    ck_assert_int_gt(keys, 1000);
}
END_TEST

START_TEST(names)
{
    char out[32];
    key_event_t k = {'x', KEYMOD_ALT};
    ck_assert_str_eq(key_name(k, out, sizeof out), "M-x");
    k = (key_event_t){1, 0};
    ck_assert_str_eq(key_name(k, out, sizeof out), "^A");
    k = (key_event_t){KEY_F5, 0};
    ck_assert_str_eq(key_name(k, out, sizeof out), "F5");
    k = (key_event_t){KEY_ESC, 0};
    ck_assert_str_eq(key_name(k, out, sizeof out), "Esc");
    k = (key_event_t){KEY_UP, KEYMOD_CTRL | KEYMOD_SHIFT};
    ck_assert_str_eq(key_name(k, out, sizeof out), "C-S-Up");
    k = (key_event_t){0xD800, 0};
    ck_assert_str_eq(key_name(k, out, sizeof out), "?");
    k = (key_event_t){KEY_BACKSPACE, 0};
    ck_assert_str_eq(key_name(k, out, 3), "Ba");
    ck_assert_str_eq(key_name(k, out, 1), "");
    k = (key_event_t){0xE9, KEYMOD_ALT}; /* "M-é" is 4 bytes: never cut inside é */
    ck_assert_str_eq(key_name(k, out, 4), "M-");
    ck_assert_str_eq(key_name(k, out, 5), "M-\xc3\xa9");
    for (uint32_t c = KEY_BASE; c < KEY_LAST_NAMED_; c++) {
        k = (key_event_t){c, 0};
        ck_assert(strcmp(key_name(k, out, sizeof out), "?") != 0);
    }
}
END_TEST

static bool valid_key(key_event_t k)
{
    if (k.mods & ~7u)
        return false;
    if (k.code >= KEY_BASE)
        return k.code < KEY_LAST_NAMED_;
    return !(k.code >= 0x80 && k.code < 0xA0) && !(k.code >= 0xD800 && k.code <= 0xDFFF);
}

START_TEST(pack_round_trips_every_key)
{
    uint8_t b[6];
    key_event_t r;
    for (uint32_t c = 0; c < KEY_LAST_NAMED_ + 3; c++) {
        for (uint8_t m = 0; m < 9; m++) {
            if (m && m < 7 && c % 97)
                continue; /* all codes for mods 0 and 7 */
            key_event_t k = {c, m};
            size_t n = key_pack(k, b);
            if (!valid_key(k)) {
                if (n)
                    ck_abort_msg("packed invalid key %x/%u", c, m);
                continue;
            }
            if (n < 1 || n > 5 || key_unpack(b, n, &r) != n || r.code != c || r.mods != m ||
                key_unpack(b, n - 1, &r) != 0)
                ck_abort_msg("key %x/%u does not round-trip", c, m);
        }
    }
}
END_TEST

/* Any bytes: either rejected, or exactly the canonical packing of a valid key. */
START_TEST(unpack_rejects_malformed)
{
    uint8_t in[6], again[6];
    key_event_t k;
    srand(99);
    for (uint32_t v = 0; v < 0x10000 + 200000; v++) {
        size_t len = 2;
        if (v < 0x10000) {
            in[0] = (uint8_t)(v >> 8);
            in[1] = (uint8_t)v;
        } else {
            len = 3 + (size_t)rand() % 3;
            for (size_t i = 0; i < len; i++)
                in[i] = (uint8_t)rand();
            in[0] = (uint8_t)(0x80 | (in[0] & 0x1F));
        }
        size_t n = key_unpack(in, len, &k);
        if (n && (!valid_key(k) || key_pack(k, again) != n || memcmp(in, again, n)))
            ck_abort_msg("accepted non-canonical bytes %02x %02x", in[0], in[1]);
    }
    ck_assert_uint_eq(key_unpack(in, 0, &k), 0);
    ck_assert_uint_eq(key_unpack((const uint8_t *)"\x80\x41", 2, &k), 0);     /* not shortest */
    ck_assert_uint_eq(key_unpack((const uint8_t *)"\x81\x00\xe9", 3, &k), 0); /* not shortest */
    ck_assert_uint_eq(key_unpack((const uint8_t *)"\x80\x85", 2, &k), 0);     /* C1 */
    ck_assert_uint_eq(key_unpack((const uint8_t *)"\xa0\x41", 2, &k), 0);     /* bad flags */
    ck_assert_uint_eq(key_unpack((const uint8_t *)"\x83\x00\x00\x41", 4, &k), 0);
}
END_TEST

/* ---- browser messages --------------------------------------------------- */

typedef struct {
    const char *msg;
    size_t len;
    int ret;
    const char *want;
} jcase_t;
#define J(s, r, w)             \
    {                          \
        s, sizeof(s) - 1, r, w \
    }

static const jcase_t JCASES[] = {
    J("{\"t\":\"k\",\"key\":\"ArrowUp\"}", 1, "Up"),
    J("{\"t\":\"k\",\"key\":\"ArrowUp\",\"mods\":[\"ctrl\"]}", 1, "C-Up"),
    J("{\"t\":\"k\",\"key\":\"ArrowLeft\",\"mods\":[\"shift\",\"alt\"]}", 1, "M-S-Left"),
    J("{\"t\":\"k\",\"key\":\"PageDown\",\"mods\":[]}", 1, "PgDn"),
    J("{\"t\":\"k\",\"key\":\"a\",\"mods\":[\"ctrl\"]}", 1, "^A"),
    J("{\"t\":\"k\",\"key\":\"A\",\"mods\":[\"shift\"]}", 1, "A"),
    J("{\"t\":\"k\",\"key\":\"x\",\"mods\":[\"meta\"]}", 1, "M-x"),
    J("{\"t\":\"k\",\"key\":\"\xc3\xa9\"}", 1, "\xc3\xa9"),
    J("{\"t\":\"k\",\"key\":\"\\u00e9\"}", 1, "\xc3\xa9"),
    J("{\"t\":\"k\",\"key\":\"\\ud83d\\ude00\"}", 1, "\xf0\x9f\x98\x80"),
    J("{\"t\":\"k\",\"key\":\" \"}", 1, "Space"),
    J("{\"t\":\"k\",\"key\":\"@\",\"mods\":[\"ctrl\"]}", 1, "C-@"),
    J("{\"t\":\"k\",\"key\":\"[\",\"mods\":[\"ctrl\"]}", 1, "Esc"),
    J("{\"t\":\"k\",\"key\":\"\\\"\"}", 1, "\""),
    J("{\"t\":\"k\",\"key\":\"Enter\"}", 1, "Enter"),
    J("{\"t\":\"k\",\"key\":\"Escape\"}", 1, "Esc"),
    J("{\"t\":\"k\",\"key\":\"Tab\",\"mods\":[\"shift\"]}", 1, "S-Tab"),
    J("{\"t\":\"k\",\"key\":\"Backspace\"}", 1, "Backspace"),
    J("{\"t\":\"k\",\"key\":\"F12\"}", 1, "F12"),
    J("{\"t\":\"k\",\"key\":\"Clear\"}", 1, "KP5"),
    J("{\"t\":\"k\",\"key\":\"Shift\"}", 0, ""),
    J("{\"t\":\"k\",\"key\":\"Dead\"}", 0, ""),
    J("{\"t\":\"k\",\"key\":\"\"}", 0, ""),
    J("{\"t\":\"k\",\"key\":\"\\u0001\"}", 0, ""),
    J("{\"t\":\"i\",\"data\":\"ab\\u001b[A\\r\"}", 4, "a b Up Enter"),
    J("{\"t\":\"i\",\"data\":\"\\u001b\"}", 1, "Esc"),
    J("{\"t\":\"i\",\"data\":\"\\u001bx\"}", 1, "M-x"),
    J("{\"t\":\"i\",\"data\":\"\\u001b[\"}", 2, "Esc ["),
    J("{\"t\":\"i\",\"data\":\"\\r\\n\\u0000\"}", 1, "Enter"),
    J("{\"t\":\"i\",\"data\":\"\xe2\x82\xac\\/\"}", 2, "\xe2\x82\xac /"),
    J("{\"t\":\"i\",\"data\":\"\"}", 0, ""),
    J(" {\n \"data\" : \"x\" ,\t\"t\" : \"i\" } \r\n", 1, "x"),
    /* malformed: -1, nothing delivered */
    J("", -1, ""),
    J("{", -1, ""),
    J("{}", -1, ""),
    J("[]", -1, ""),
    J("null", -1, ""),
    J("{\"t\":\"x\"}", -1, ""),
    J("{\"t\":\"k\"}", -1, ""),
    J("{\"t\":\"i\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"data\":\"b\"}", -1, ""),
    J("{\"t\":\"i\",\"data\":\"a\",\"mods\":[]}", -1, ""),
    J("{\"t\":\"k\",\"t\":\"k\",\"key\":\"a\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"x\":1}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"mods\":[\"hyper\"]}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"mods\":[\"alt\",\"alt\",\"alt\",\"alt\",\"alt\"]}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"mods\":[\"alt\",]}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",\"mods\":\"alt\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\"}x", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\",}", -1, ""),
    J("{\"t\":\"k\" \"key\":\"a\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\"", -1, ""),
    J("{\"t\":\"k\",\"key\":\"a\nb\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\xff\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\xc3\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\ud800\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\udc00\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\ud800\\u0041\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\x\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\u12\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"\\u12g4\"}", -1, ""),
    J("{'t':'k','key':'a'}", -1, ""),
    J("{\"t\":{\"t\":\"k\"},\"key\":\"a\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":7}", -1, ""),
    J("{\"t\":\"i\",\"data\":\"a\"}\0", -1, ""),
    J("{\"t\":\"i\"\0,\"data\":\"a\"}", -1, ""),
    J("{\"t\":\"k\",\"key\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", -1, ""),
};

START_TEST(json_messages)
{
    const jcase_t *c = &JCASES[_i];
    names_t o;
    memset(&o, 0, sizeof o);
    int r = keys_from_json(c->msg, c->len, names_add, &o);
    ck_assert_msg(r == c->ret, "case %d: returned %d", _i, r);
    ck_assert_int_eq(o.n, r < 0 ? 0 : r);
    ck_assert_msg(!strcmp(o.text, c->want), "case %d: got '%s'", _i, o.text);
}
END_TEST

START_TEST(json_message_limits)
{
    static char msg[6000];
    names_t o;
    /* 1000 typed characters are fine; 2000 are too many */
    int n = snprintf(msg, sizeof msg, "{\"t\":\"i\",\"data\":\"");
    for (int i = 0; i < 1000; i++)
        msg[n++] = 'z';
    n += snprintf(msg + n, sizeof msg - (size_t)n, "\"}");
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(keys_from_json(msg, (size_t)n, names_add, &o), 1000);
    n = snprintf(msg, sizeof msg, "{\"t\":\"i\",\"data\":\"");
    for (int i = 0; i < 2000; i++)
        msg[n++] = 'z';
    n += snprintf(msg + n, sizeof msg - (size_t)n, "\"}");
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(keys_from_json(msg, (size_t)n, names_add, &o), -1);
    ck_assert_int_eq(o.n, 0);
    /* a valid message padded with whitespace past the size limit */
    n = snprintf(msg, sizeof msg, "{\"t\":\"k\",\"key\":\"a\"}");
    memset(msg + n, ' ', 5000);
    ck_assert_int_eq(keys_from_json(msg, (size_t)n, names_add, &o), 1);
    ck_assert_int_eq(keys_from_json(msg, (size_t)n + 5000, names_add, &o), -1);
    ck_assert_int_eq(keys_from_json(NULL, 0, names_add, &o), -1);
}
END_TEST

Suite *suite_protocol_keys(void)
{
    Suite *s = suite_create("protocol_keys");
    TCase *tc = tcase_create("keys");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, sequences_whole_and_split, 0, (int)(sizeof CASES / sizeof CASES[0]));
    tcase_add_test(tc, overlong_sequences_are_dropped);
    tcase_add_test(tc, pending_and_timeout);
    tcase_add_test(tc, random_bytes_make_only_valid_keys);
    tcase_add_test(tc, names);
    tcase_add_test(tc, pack_round_trips_every_key);
    tcase_add_test(tc, unpack_rejects_malformed);
    tcase_add_loop_test(tc, json_messages, 0, (int)(sizeof JCASES / sizeof JCASES[0]));
    tcase_add_test(tc, json_message_limits);
    suite_add_tcase(s, tc);
    return s;
}
