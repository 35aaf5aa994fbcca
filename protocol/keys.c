/* keys — terminal input bytes to key events, and the compact journal form.
 *
 * The decoder appends each input byte to a small pending buffer and parses
 * from its start: a parse either yields a key, needs more bytes, or drops a
 * prefix that can never become a key (the byte that broke it is parsed
 * again). So split reads and invalid bytes need no special cases.
 * keys_from_json (the browser's messages, protocol/README.md) comes last: a
 * small strict JSON reader that feeds typed text through a decoder too. */
#include "keys.h"
#include <stdio.h>
#include <string.h>

enum { R_MORE = 0, R_KEY = 1, R_DROP = -1, R_LONG = -2 };

/* An escape sequence longer than this is not a key: it is discarded up to
 * its final byte. Must stay below sizeof pend minus an Alt prefix. */
#define SEQ_MAX      24
/* pend = ESC [ CAN marks "discarding an overlong sequence"; a kept sequence
 * never holds a control byte, so the mark cannot be real input. */
#define DISCARD_MARK 0x18

typedef struct {
    uint32_t code;
    uint8_t mods;
} keydef_t;

/* ---- key validity and normal form -------------------------------------- */

static bool code_valid(uint32_t c)
{
    if (c >= KEY_BASE)
        return c < KEY_LAST_NAMED_;
    if (c < 0x80)
        return true;
    if (c < 0xA0)
        return false; /* C1 controls are not keys */
    return c < 0xD800 || c > 0xDFFF;
}

static bool key_valid(key_event_t k)
{
    return !(k.mods & ~7u) && code_valid(k.code);
}

/* What a terminal would send: Ctrl with a letter or [\]^_ is the control
 * code itself; Shift is already in a printable character. Ctrl-@ stays
 * '@' with Ctrl: code 0 (NUL) is never a key. */
static key_event_t key_make(uint32_t code, uint8_t mods)
{
    key_event_t k = {code, mods};
    if ((mods & KEYMOD_CTRL) && ((code >= 'A' && code <= '_') || (code >= 'a' && code <= 'z'))) {
        k.code = code & 0x1F;
        k.mods &= (uint8_t) ~(KEYMOD_CTRL | KEYMOD_SHIFT);
    }
    if (k.code >= 0x20 && k.code < KEY_BASE && k.code != 0x7F)
        k.mods &= (uint8_t)~KEYMOD_SHIFT;
    return k;
}

/* ---- UTF-8 -------------------------------------------------------------- */

/* Scans one UTF-8 sequence. Returns its length (> 0) with *cp set; 0 when p
 * is a valid but truncated prefix; -k when the first k bytes must go. */
static int utf8_scan(const uint8_t *p, size_t n, uint32_t *cp)
{
    uint8_t c = p[0], lo = 0x80, hi = 0xBF;
    int len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2 || c > 0xF4)
        return -1;
    if (c < 0xE0) {
        len = 2;
        *cp = c & 0x1F;
    } else if (c < 0xF0) {
        len = 3;
        *cp = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* overlong */
        hi = c == 0xED ? 0x9F : 0xBF; /* surrogates */
    } else {
        len = 4;
        *cp = c & 0x07;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
    }
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return 0;
        uint8_t b = p[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF))
            return -i;
        *cp = (*cp << 6) | (b & 0x3F);
    }
    return len;
}

static int parse_utf8(const uint8_t *p, size_t n, key_event_t *k, size_t *used)
{
    uint32_t cp;
    int r = utf8_scan(p, n, &cp);
    if (r == 0)
        return R_MORE;
    *used = (size_t)(r < 0 ? -r : r);
    if (r < 0 || cp < 0xA0)
        return R_DROP;
    *k = key_make(cp, 0);
    return R_KEY;
}

/* ---- escape sequences ----------------------------------------------------- */

/* Final byte (0x40..0x7E) of CSI / SS3 sequences without a number key. */
#define FIN(c) [(c)-0x40]
static const keydef_t CSI_FINAL[63] = {
    FIN('A') = {KEY_UP, 0},
    FIN('B') = {KEY_DOWN, 0},
    FIN('C') = {KEY_RIGHT, 0},
    FIN('D') = {KEY_LEFT, 0},
    FIN('E') = {KEY_KP_CENTER, 0},
    FIN('F') = {KEY_END, 0},
    FIN('G') = {KEY_KP_CENTER, 0},
    FIN('H') = {KEY_HOME, 0},
    FIN('P') = {KEY_F1, 0},
    FIN('Q') = {KEY_F2, 0},
    FIN('R') = {KEY_F3, 0},
    FIN('S') = {KEY_F4, 0},
    FIN('Z') = {KEY_TAB, KEYMOD_SHIFT},
    /* rxvt: shifted arrows */
    FIN('a') = {KEY_UP, KEYMOD_SHIFT},
    FIN('b') = {KEY_DOWN, KEYMOD_SHIFT},
    FIN('c') = {KEY_RIGHT, KEYMOD_SHIFT},
    FIN('d') = {KEY_LEFT, KEYMOD_SHIFT},
};
static const keydef_t SS3_FINAL[63] = {
    FIN('A') = {KEY_UP, 0},
    FIN('B') = {KEY_DOWN, 0},
    FIN('C') = {KEY_RIGHT, 0},
    FIN('D') = {KEY_LEFT, 0},
    FIN('E') = {KEY_KP_CENTER, 0},
    FIN('F') = {KEY_END, 0},
    FIN('H') = {KEY_HOME, 0},
    FIN('P') = {KEY_F1, 0},
    FIN('Q') = {KEY_F2, 0},
    FIN('R') = {KEY_F3, 0},
    FIN('S') = {KEY_F4, 0},
    FIN('M') = {KEY_ENTER, 0},
    /* application keypad: the characters on the keys */
    FIN('X') = {'=', 0},
    FIN('j') = {'*', 0},
    FIN('k') = {'+', 0},
    FIN('l') = {',', 0},
    FIN('m') = {'-', 0},
    FIN('n') = {'.', 0},
    FIN('o') = {'/', 0},
    FIN('p') = {'0', 0},
    FIN('q') = {'1', 0},
    FIN('r') = {'2', 0},
    FIN('s') = {'3', 0},
    FIN('t') = {'4', 0},
    FIN('u') = {'5', 0},
    FIN('v') = {'6', 0},
    FIN('w') = {'7', 0},
    FIN('x') = {'8', 0},
    FIN('y') = {'9', 0},
    /* rxvt: control arrows */
    FIN('a') = {KEY_UP, KEYMOD_CTRL},
    FIN('b') = {KEY_DOWN, KEYMOD_CTRL},
    FIN('c') = {KEY_RIGHT, KEYMOD_CTRL},
    FIN('d') = {KEY_LEFT, KEYMOD_CTRL},
};
#undef FIN

/* CSI n ~ (vt220, linux console, rxvt). */
static const uint32_t TILDE_KEY[25] = {
    [1] = KEY_HOME, [2] = KEY_INSERT, [3] = KEY_DELETE, [4] = KEY_END,  [5] = KEY_PGUP,
    [6] = KEY_PGDN, [7] = KEY_HOME,   [8] = KEY_END,    [11] = KEY_F1,  [12] = KEY_F2,
    [13] = KEY_F3,  [14] = KEY_F4,    [15] = KEY_F5,    [17] = KEY_F6,  [18] = KEY_F7,
    [19] = KEY_F8,  [20] = KEY_F9,    [21] = KEY_F10,   [23] = KEY_F11, [24] = KEY_F12,
};

typedef struct {
    unsigned v[3];
    int n;
} params_t;

/* Decimal parameters separated by ';'; anything else (private markers,
 * sub-parameters, more than three) makes the sequence unknown. */
static bool params_parse(const uint8_t *p, size_t len, params_t *pa)
{
    memset(pa, 0, sizeof *pa);
    if (!len)
        return true;
    pa->n = 1;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == ';') {
            if (pa->n == 3)
                return false;
            pa->n++;
        } else if (p[i] >= '0' && p[i] <= '9') {
            unsigned *v = &pa->v[pa->n - 1];
            /* saturates far above any meaningful value, so it stays invalid */
            if (*v < 0x1000000)
                *v = *v * 10 + (unsigned)(p[i] - '0');
        } else {
            return false;
        }
    }
    return true;
}

/* xterm modifier parameter: 1 + (shift 1 | alt 2 | ctrl 4 | meta 8). */
static bool mods_from_param(unsigned m, uint8_t *mods)
{
    if (m == 0)
        m = 1;
    if (m > 16)
        return false;
    unsigned b = m - 1;
    *mods = (uint8_t)((b & 1 ? KEYMOD_SHIFT : 0) | (b & 10 ? KEYMOD_ALT : 0) |
                      (b & 4 ? KEYMOD_CTRL : 0));
    return true;
}

static bool key_from_def(keydef_t d, uint8_t extra, key_event_t *k)
{
    if (!d.code)
        return false;
    *k = key_make(d.code, d.mods | extra);
    return true;
}

/* CSI n ~ and rxvt's CSI n ^ / $ / @ (ctrl, shift, ctrl+shift);
 * CSI 27;m;c ~ is xterm's modifyOtherKeys. */
static bool key_from_tilde(const params_t *pa, uint8_t fin, key_event_t *k)
{
    uint8_t mods = 0;
    if (pa->n == 3 && pa->v[0] == 27 && fin == '~') {
        if (!mods_from_param(pa->v[1], &mods) || !pa->v[2] || !code_valid(pa->v[2]) ||
            pa->v[2] >= KEY_BASE)
            return false;
        *k = key_make(pa->v[2], mods);
        return true;
    }
    if (pa->n < 1 || pa->n > 2 || pa->v[0] >= 25 || !TILDE_KEY[pa->v[0]])
        return false;
    if (fin == '~') {
        if (!mods_from_param(pa->n == 2 ? pa->v[1] : 1, &mods))
            return false;
    } else {
        if (pa->n != 1)
            return false;
        mods = fin == '^' ? KEYMOD_CTRL : fin == '$' ? KEYMOD_SHIFT : KEYMOD_CTRL | KEYMOD_SHIFT;
    }
    *k = key_make(TILDE_KEY[pa->v[0]], mods);
    return true;
}

/* CSI code ; mods u (the "fixterms" / kitty form). */
static bool key_from_csi_u(const params_t *pa, key_event_t *k)
{
    uint8_t mods = 0;
    if (pa->n < 1 || pa->n > 2 || !pa->v[0] || !code_valid(pa->v[0]) || pa->v[0] >= KEY_BASE)
        return false;
    if (!mods_from_param(pa->n == 2 ? pa->v[1] : 1, &mods))
        return false;
    *k = key_make(pa->v[0], mods);
    return true;
}

/* Letter finals: no parameters, "1;m" (xterm), or a lone "m" (old SS3 form). */
static bool key_from_letter(const keydef_t *table, const params_t *pa, uint8_t fin, key_event_t *k)
{
    uint8_t mods = 0;
    unsigned m = pa->n == 2 ? pa->v[1] : pa->n == 1 ? pa->v[0] : 1;
    if (pa->n == 2 && pa->v[0] > 1)
        return false;
    if (!mods_from_param(m, &mods))
        return false;
    return key_from_def(table[fin - 0x40], mods, k);
}

static bool key_from_seq(bool ss3, const uint8_t *par, size_t plen, uint8_t fin, key_event_t *k)
{
    params_t pa;
    if (!params_parse(par, plen, &pa))
        return false;
    if (ss3)
        return key_from_letter(SS3_FINAL, &pa, fin, k);
    if (fin == '~' || fin == '^' || fin == '$' || fin == '@')
        return key_from_tilde(&pa, fin, k);
    if (fin == 'u')
        return key_from_csi_u(&pa, k);
    return key_from_letter(CSI_FINAL, &pa, fin, k);
}

/* Linux console F1-F5: ESC [ [ A..E. */
static int parse_linux_fkey(const uint8_t *p, size_t n, key_event_t *k, size_t *used)
{
    if (n < 4)
        return R_MORE;
    uint8_t c = p[3];
    if (c >= 'A' && c <= 'E') {
        *used = 4;
        *k = key_make(KEY_F1 + (uint32_t)(c - 'A'), 0);
        return R_KEY;
    }
    *used = c >= 0x20 && c <= 0x7E ? 4 : 3;
    return R_DROP;
}

/* p = ESC [ ... or ESC O ...: parameter and intermediate bytes up to a final
 * byte. A control or non-ASCII byte interrupts: the prefix is dropped. */
static int parse_seq(const uint8_t *p, size_t n, key_event_t *k, size_t *used)
{
    bool ss3 = p[1] == 'O';
    if (!ss3 && n > 2 && p[2] == '[')
        return parse_linux_fkey(p, n, k, used);
    for (size_t i = 2; i < n; i++) {
        uint8_t c = p[i];
        /* rxvt ends shifted keys with '$', an intermediate byte elsewhere */
        bool fin = (c >= 0x40 && c <= 0x7E) || (c == '$' && !ss3);
        if (fin) {
            *used = i + 1;
            return key_from_seq(ss3, p + 2, i - 2, c, k) ? R_KEY : R_DROP;
        }
        if (c < 0x20 || c > 0x3F) {
            *used = i;
            return R_DROP;
        }
    }
    return n >= SEQ_MAX ? R_LONG : R_MORE;
}

static int parse_esc(const uint8_t *p, size_t n, key_event_t *k, size_t *used)
{
    if (n < 2)
        return R_MORE;
    uint8_t c = p[1];
    *used = 1;
    if (c == '[' || c == 'O')
        return parse_seq(p, n, k, used);
    if (c == KEY_ESC) {
        /* ESC ESC [ A: Alt with a sequence (rxvt); ESC ESC x: Esc, then Alt-x */
        if (n < 3)
            return R_MORE;
        if (p[2] == '[' || p[2] == 'O') {
            int r = parse_seq(p + 1, n - 1, k, used);
            if (r == R_KEY || r == R_DROP)
                (*used)++;
            if (r == R_KEY)
                k->mods |= KEYMOD_ALT;
            return r;
        }
        *k = key_make(KEY_ESC, 0);
        return R_KEY;
    }
    key_event_t in = {c, 0};
    size_t u = 1;
    int r = c >= 0x80 ? parse_utf8(p + 1, n - 1, &in, &u) : c ? R_KEY : R_DROP;
    if (r == R_MORE)
        return R_MORE;
    if (r == R_KEY) {
        *k = key_make(in.code, in.mods | KEYMOD_ALT);
        *used = 1 + u;
    } else {
        *k = key_make(KEY_ESC, 0); /* what follows is dropped on its own */
    }
    return R_KEY;
}

static int parse_one(const uint8_t *p, size_t n, key_event_t *k, size_t *used)
{
    *used = 1;
    if (p[0] == KEY_ESC)
        return parse_esc(p, n, k, used);
    if (p[0] >= 0x80)
        return parse_utf8(p, n, k, used);
    if (p[0] == 0)
        return R_DROP; /* telnet padding */
    *k = key_make(p[0], 0);
    return R_KEY;
}

/* ---- the decoder ------------------------------------------------------------ */

void keydec_init(keydec_t *d)
{
    memset(d, 0, sizeof *d);
}

static void pend_consume(keydec_t *d, size_t n)
{
    memmove(d->pend, d->pend + n, d->npend - n);
    d->npend -= n;
}

static bool discarding(const keydec_t *d)
{
    return d->npend >= 3 && d->pend[0] == KEY_ESC && d->pend[1] == '[' &&
           d->pend[2] == DISCARD_MARK;
}

/* One step of discarding an overlong sequence; false when it needs input. */
static bool discard_step(keydec_t *d)
{
    if (d->npend == 3)
        return false;
    uint8_t c = d->pend[3];
    if (c >= 0x20 && c <= 0x3F) {
        d->pend[3] = d->pend[d->npend - 1];
        d->npend--;
    } else {
        pend_consume(d, c >= 0x40 && c <= 0x7E ? 4 : 3);
    }
    return true;
}

static void drain(keydec_t *d, key_cb cb, void *ud)
{
    while (d->npend) {
        if (d->after_cr) {
            d->after_cr = false;
            if (d->pend[0] == '\n' || d->pend[0] == 0) {
                pend_consume(d, 1);
                continue;
            }
        }
        if (discarding(d)) {
            if (!discard_step(d))
                return;
            continue;
        }
        key_event_t k;
        size_t used = 1;
        int r = parse_one(d->pend, d->npend, &k, &used);
        if (r == R_MORE)
            return;
        if (r == R_LONG) {
            d->pend[0] = KEY_ESC;
            d->pend[1] = '[';
            d->pend[2] = DISCARD_MARK;
            d->npend = 3;
            continue;
        }
        bool cr = d->pend[used - 1] == '\r';
        pend_consume(d, used);
        if (r == R_KEY) {
            d->after_cr = cr;
            cb(ud, k);
        }
    }
}

void keydec_feed(keydec_t *d, const uint8_t *in, size_t len, key_cb cb, void *ud)
{
    for (size_t i = 0; i < len; i++) {
        if (d->npend == sizeof d->pend)
            d->npend = 0; /* cannot happen: SEQ_MAX */
        d->pend[d->npend++] = in[i];
        drain(d, cb, ud);
    }
}

bool keydec_pending(const keydec_t *d)
{
    return d->npend > 0 && d->pend[0] == KEY_ESC;
}

void keydec_timeout(keydec_t *d, key_cb cb, void *ud)
{
    while (keydec_pending(d)) {
        if (discarding(d)) {
            d->npend = 0;
            return;
        }
        uint8_t rest[sizeof d->pend];
        size_t n = d->npend - 1;
        memcpy(rest, d->pend + 1, n);
        d->npend = 0;
        cb(ud, key_make(KEY_ESC, 0));
        keydec_feed(d, rest, n, cb, ud);
    }
}

/* ---- names and packing ------------------------------------------------------ */

static const char *const NAMED_KEY[] = {
    "Up", "Down", "Left", "Right", "Home", "End", "PgUp", "PgDn", "Insert", "Delete", "KP5", "F1",
    "F2", "F3",   "F4",   "F5",    "F6",   "F7",  "F8",   "F9",   "F10",    "F11",    "F12",
};
_Static_assert(sizeof NAMED_KEY / sizeof NAMED_KEY[0] == KEY_LAST_NAMED_ - KEY_BASE,
               "a name for every named key");

static size_t utf8_put(uint32_t c, uint8_t *u)
{
    if (c < 0x80) {
        u[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        u[0] = (uint8_t)(0xC0 | c >> 6);
        u[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        u[0] = (uint8_t)(0xE0 | c >> 12);
        u[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    u[0] = (uint8_t)(0xF0 | c >> 18);
    u[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    u[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    u[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

static void code_name(uint32_t c, char *t, size_t n)
{
    if (c >= KEY_BASE)
        snprintf(t, n, "%s", NAMED_KEY[c - KEY_BASE]);
    else if (c == KEY_TAB)
        snprintf(t, n, "Tab");
    else if (c == KEY_ENTER)
        snprintf(t, n, "Enter");
    else if (c == KEY_ESC)
        snprintf(t, n, "Esc");
    else if (c == KEY_BACKSPACE)
        snprintf(t, n, "Backspace");
    else if (c == ' ')
        snprintf(t, n, "Space");
    else if (c < 0x20)
        snprintf(t, n, "^%c", (char)(c + '@'));
    else {
        uint8_t u[5] = {0};
        utf8_put(c, u);
        snprintf(t, n, "%s", (char *)u);
    }
}

char *key_name(key_event_t k, char *out, size_t n)
{
    char name[16], all[32];
    if (!n)
        return out;
    if (!key_valid(k)) {
        snprintf(name, sizeof name, "?");
    } else {
        code_name(k.code, name, sizeof name);
    }
    snprintf(all, sizeof all, "%s%s%s%s", k.mods & KEYMOD_CTRL ? "C-" : "",
             k.mods & KEYMOD_ALT ? "M-" : "", k.mods & KEYMOD_SHIFT ? "S-" : "", name);
    size_t len = strlen(all);
    if (len >= n) {
        len = n - 1;
        while (len && ((uint8_t)all[len] & 0xC0) == 0x80)
            len--; /* whole characters only */
    }
    memcpy(out, all, len);
    out[len] = 0;
    return out;
}

/* Packed form: a byte < 0x80 is that key without modifiers; otherwise
 * 0x80 | mods << 2 | (bytes - 1), then the code in 1-3 big-endian bytes,
 * always the shortest form, so every key has exactly one encoding. */
size_t key_pack(key_event_t k, uint8_t out[6])
{
    if (!key_valid(k))
        return 0;
    if (!k.mods && k.code < 0x80) {
        out[0] = (uint8_t)k.code;
        return 1;
    }
    size_t nb = k.code < 0x100 ? 1 : k.code < 0x10000 ? 2 : 3;
    out[0] = (uint8_t)(0x80 | k.mods << 2 | (nb - 1));
    for (size_t i = 0; i < nb; i++)
        out[1 + i] = (uint8_t)(k.code >> (8 * (nb - 1 - i)));
    return nb + 1;
}

size_t key_unpack(const uint8_t *in, size_t len, key_event_t *k)
{
    if (!len)
        return 0;
    if (in[0] < 0x80) {
        k->code = in[0];
        k->mods = 0;
        return 1;
    }
    size_t nb = (in[0] & 3u) + 1;
    if ((in[0] & 0x60) || nb == 4 || len < nb + 1)
        return 0;
    key_event_t r = {0, (uint8_t)((in[0] >> 2) & 7)};
    for (size_t i = 0; i < nb; i++)
        r.code = r.code << 8 | in[1 + i];
    if (nb > 1 && r.code < (1u << (8 * (nb - 1))))
        return 0; /* not the shortest */
    if (!r.mods && r.code < 0x80)
        return 0;
    if (!key_valid(r))
        return 0;
    *k = r;
    return nb + 1;
}

/* ---- browser key messages (JSON) ------------------------------------------ */

#define JK_MAX_MSG  4096 /* bytes of one message */
#define JK_MAX_TEXT 1024 /* decoded bytes of "data"; also bounds the keys */
#define JK_MAX_MODS 4

typedef struct {
    const uint8_t *p, *end;
} jcur_t;

typedef struct {
    char t[4], key[32], data[JK_MAX_TEXT + 1];
    size_t data_len;
    uint8_t mods;
    unsigned seen; /* bit per field: duplicates are errors */
} jmsg_t;

static void j_ws(jcur_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool j_eat(jcur_t *c, char ch)
{
    j_ws(c);
    if (c->p >= c->end || *c->p != (uint8_t)ch)
        return false;
    c->p++;
    return true;
}

static int j_hex4(jcur_t *c)
{
    int v = 0;
    if (c->end - c->p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        uint8_t h = *c->p++;
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* \uXXXX, with a surrogate pair as one code point; -1 when malformed. */
static long j_unicode(jcur_t *c)
{
    int hi = j_hex4(c);
    if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF))
        return -1;
    if (hi < 0xD800 || hi > 0xDBFF)
        return hi;
    if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
        return -1;
    c->p += 2;
    int lo = j_hex4(c);
    if (lo < 0xDC00 || lo > 0xDFFF)
        return -1;
    return 0x10000 + ((long)(hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* One escape after the backslash, decoded into u; 0 when malformed. */
static size_t j_escape(jcur_t *c, uint8_t *u)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (c->p >= c->end)
        return 0;
    uint8_t e = *c->p++;
    if (e == 'u') {
        long cp = j_unicode(c);
        return cp < 0 ? 0 : utf8_put((uint32_t)cp, u);
    }
    const char *f = e ? strchr(from, e) : NULL;
    if (!f)
        return 0;
    u[0] = (uint8_t)to[f - from];
    return 1;
}

/* A JSON string into out (NUL-terminated, at most cap - 1 bytes, valid
 * UTF-8); false when malformed or too long. */
static bool j_string(jcur_t *c, char *out, size_t cap, size_t *outlen)
{
    size_t n = 0;
    if (!j_eat(c, '"'))
        return false;
    for (;;) {
        if (c->p >= c->end || *c->p < 0x20)
            return false;
        uint8_t u[4];
        size_t k;
        uint32_t cp;
        if (*c->p == '"')
            break;
        if (*c->p == '\\') {
            c->p++;
            k = j_escape(c, u);
        } else {
            int r = utf8_scan(c->p, (size_t)(c->end - c->p), &cp);
            k = r > 0 ? (size_t)r : 0;
            if (k)
                memcpy(u, c->p, k);
            c->p += k;
        }
        if (!k || n + k >= cap)
            return false;
        memcpy(out + n, u, k);
        n += k;
    }
    c->p++;
    out[n] = 0;
    if (outlen)
        *outlen = n;
    return true;
}

static bool j_mods(jcur_t *c, uint8_t *mods)
{
    static const struct {
        const char *name;
        uint8_t mod;
    } MODS[] = {
        {"alt", KEYMOD_ALT}, {"meta", KEYMOD_ALT}, {"ctrl", KEYMOD_CTRL}, {"shift", KEYMOD_SHIFT}};
    if (!j_eat(c, '['))
        return false;
    if (j_eat(c, ']'))
        return true;
    for (int i = 0;; i++) {
        char name[8];
        size_t m = 0;
        if (i == JK_MAX_MODS || !j_string(c, name, sizeof name, NULL))
            return false;
        while (m < sizeof MODS / sizeof MODS[0] && strcmp(MODS[m].name, name))
            m++;
        if (m == sizeof MODS / sizeof MODS[0])
            return false;
        *mods |= MODS[m].mod;
        if (j_eat(c, ']'))
            return true;
        if (!j_eat(c, ','))
            return false;
    }
}

enum { F_T = 1, F_KEY = 2, F_DATA = 4, F_MODS = 8 };

static bool j_member(jcur_t *c, jmsg_t *m)
{
    char name[8];
    unsigned f;
    if (!j_string(c, name, sizeof name, NULL) || !j_eat(c, ':'))
        return false;
    f = !strcmp(name, "t")      ? F_T
        : !strcmp(name, "key")  ? F_KEY
        : !strcmp(name, "data") ? F_DATA
        : !strcmp(name, "mods") ? F_MODS
                                : 0;
    if (!f || (m->seen & f))
        return false;
    m->seen |= f;
    j_ws(c);
    switch (f) {
    case F_T: return j_string(c, m->t, sizeof m->t, NULL);
    case F_KEY: return j_string(c, m->key, sizeof m->key, NULL);
    case F_DATA: return j_string(c, m->data, sizeof m->data, &m->data_len);
    default: return j_mods(c, &m->mods);
    }
}

/* The whole message: one flat object, nothing after it but whitespace. */
static bool j_message(const char *msg, size_t len, jmsg_t *m)
{
    jcur_t c = {(const uint8_t *)msg, (const uint8_t *)msg + len};
    memset(m, 0, sizeof *m);
    if (len > JK_MAX_MSG || !j_eat(&c, '{'))
        return false;
    if (!j_eat(&c, '}')) {
        for (;;) {
            if (!j_member(&c, m))
                return false;
            if (j_eat(&c, '}'))
                break;
            if (!j_eat(&c, ','))
                return false;
        }
    }
    j_ws(&c);
    if (c.p != c.end || !(m->seen & F_T))
        return false;
    if (!strcmp(m->t, "k"))
        return (m->seen & (F_KEY | F_DATA)) == F_KEY;
    if (!strcmp(m->t, "i"))
        return (m->seen & (F_KEY | F_DATA | F_MODS)) == F_DATA;
    return false;
}

/* DOM KeyboardEvent.key values (and a few legacy spellings). */
static const struct {
    const char *name;
    uint32_t code;
} DOM_KEY[] = {
    {"ArrowUp", KEY_UP},
    {"ArrowDown", KEY_DOWN},
    {"ArrowLeft", KEY_LEFT},
    {"ArrowRight", KEY_RIGHT},
    {"Up", KEY_UP},
    {"Down", KEY_DOWN},
    {"Left", KEY_LEFT},
    {"Right", KEY_RIGHT},
    {"Home", KEY_HOME},
    {"End", KEY_END},
    {"PageUp", KEY_PGUP},
    {"PageDown", KEY_PGDN},
    {"Insert", KEY_INSERT},
    {"Delete", KEY_DELETE},
    {"Del", KEY_DELETE},
    {"Clear", KEY_KP_CENTER},
    {"F1", KEY_F1},
    {"F2", KEY_F2},
    {"F3", KEY_F3},
    {"F4", KEY_F4},
    {"F5", KEY_F5},
    {"F6", KEY_F6},
    {"F7", KEY_F7},
    {"F8", KEY_F8},
    {"F9", KEY_F9},
    {"F10", KEY_F10},
    {"F11", KEY_F11},
    {"F12", KEY_F12},
    {"Enter", KEY_ENTER},
    {"Escape", KEY_ESC},
    {"Esc", KEY_ESC},
    {"Tab", KEY_TAB},
    {"Backspace", KEY_BACKSPACE},
    {"Spacebar", ' '},
};

/* 0 when the key has no event here (Shift alone, dead keys, "Unidentified"). */
static uint32_t dom_key_code(const char *name)
{
    for (size_t i = 0; i < sizeof DOM_KEY / sizeof DOM_KEY[0]; i++)
        if (!strcmp(DOM_KEY[i].name, name))
            return DOM_KEY[i].code;
    uint32_t cp;
    size_t n = strlen(name);
    int r = n ? utf8_scan((const uint8_t *)name, n, &cp) : -1;
    if (r <= 0 || (size_t)r != n || cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
        return 0;
    return cp;
}

typedef struct {
    key_event_t keys[JK_MAX_TEXT];
    int n;
} jkeys_t;

static void jkeys_add(void *ud, key_event_t k)
{
    jkeys_t *ks = ud;
    if (ks->n < JK_MAX_TEXT)
        ks->keys[ks->n++] = k;
}

int keys_from_json(const char *msg, size_t len, key_cb cb, void *ud)
{
    jmsg_t m;
    jkeys_t ks;
    if (!msg || !j_message(msg, len, &m))
        return -1;
    ks.n = 0;
    if (m.t[0] == 'i') {
        /* typed text (xterm.js onData) is terminal input: decode it as such;
         * the message is complete, so a trailing Esc is a real Esc */
        keydec_t d;
        keydec_init(&d);
        keydec_feed(&d, (const uint8_t *)m.data, m.data_len, jkeys_add, &ks);
        keydec_timeout(&d, jkeys_add, &ks);
    } else {
        uint32_t code = dom_key_code(m.key);
        if (code)
            jkeys_add(&ks, key_make(code, m.mods));
    }
    for (int i = 0; i < ks.n; i++)
        cb(ud, ks.keys[i]);
    return ks.n;
}
