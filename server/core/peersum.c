/* peersum — the heartbeat row's lines of a node's games (peersum.h). */
#include "peersum.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "screen.h"

#define NUM_MAX   ((uint64_t)1 << 62) /* turns, idle ms and game ids at most */
#define DEPTH_MAX 1000000             /* depth, deepest level, experience level at most */

static bool plain_byte(unsigned char c)
{
    return c > ' ' && c <= '~' && c != '%';
}

static void put_text(buf_t *b, const char *s, size_t max)
{
    static const char hex[] = "0123456789ABCDEF";
    if (!s[0]) {
        buf_putc(b, '-');
        return;
    }
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (plain_byte(c) && !(i == 0 && c == '-' && !s[1]))
            buf_putc(b, (char)c);
        else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            buf_put(b, e, 3);
        }
    }
}

/* The KEY=VALUE text fields: where each is in a game, how long at most
 * (both the writer and the reader go by this). */
static const struct {
    const char *key;
    size_t at, max;
} texts[] = {{"kind", offsetof(peersum_game_t, kind), PEERSUM_ID_MAX},
             {"name", offsetof(peersum_game_t, name), PEERSUM_NAME_MAX},
             {"player", offsetof(peersum_game_t, player), PEERSUM_ID_MAX}};

void peersum_put(buf_t *b, const peersum_game_t *g)
{
    buf_printf(b, "%lld %d %d %d %llu %d %d %llu ", (long long)g->game, g->depth, g->max_depth,
               g->xl, (unsigned long long)g->turn, g->w, g->h, (unsigned long long)g->idle_ms);
    put_text(b, g->race, PEERSUM_TEXT_MAX);
    buf_putc(b, ' ');
    put_text(b, g->cls, PEERSUM_TEXT_MAX);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        const char *t = (const char *)g + texts[i].at;
        if (t[0]) {
            buf_printf(b, " %s=", texts[i].key);
            put_text(b, t, texts[i].max);
        }
    }
    if (g->user)
        buf_printf(b, " user=%lld", (long long)g->user);
    if (g->min_w || g->min_h)
        buf_printf(b, " min=%dx%d", g->min_w, g->min_h);
    if (g->away)
        buf_puts(b, " away=1");
    buf_putc(b, '\n');
}

/* ---- the parser ------------------------------------------------------------------------ */

typedef struct {
    const char *p, *end;
    const char *why;
} cur_t;

/* The next field (up to a space or the line's end): its bytes and length. */
static const char *field(cur_t *c, size_t *len)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\n')
        c->p++;
    *len = (size_t)(c->p - s);
    return s;
}

/* One separator: a space, or the line's end when last. */
static bool sep(cur_t *c, bool last)
{
    if (c->p < c->end && *c->p == (last ? '\n' : ' ')) {
        c->p++;
        return true;
    }
    c->why = last ? "a line does not end where it should" : "a line has a field missing";
    return false;
}

/* s[0, n) as a decimal number up to max. */
static bool decimal(const char *s, size_t n, uint64_t max, uint64_t *v)
{
    *v = 0;
    if (n == 0 || n > 20)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || *v > (max - (uint64_t)(s[i] - '0')) / 10)
            return false;
        *v = *v * 10 + (uint64_t)(s[i] - '0');
    }
    return true;
}

/* A number field; minus (unless NULL) lets a '-' before it through, and says so. */
static bool num(cur_t *c, uint64_t max, uint64_t *v, bool *minus)
{
    size_t n;
    const char *s = field(c, &n);
    bool neg = minus && n > 1 && s[0] == '-';
    if (minus)
        *minus = neg;
    if (!decimal(s + neg, n - neg, max, v)) {
        c->why = "a number is missing, not one, or out of range";
        return false;
    }
    return sep(c, false);
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
        return (ch | 0x20) - 'a' + 10;
    return -1;
}

/* s[0, n) percent-encoded into out (max bytes at most); "-" is empty. */
static bool decode(cur_t *c, const char *s, size_t n, char *out, size_t max)
{
    size_t k = 0;
    memset(out, 0,
           max + 1); /* a field said twice leaves no tail of the first: games compare whole */
    if (n == 1 && s[0] == '-') {
        out[0] = 0;
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '%') {
            int hi = i + 2 < n ? hexval(s[i + 1]) : -1, lo = hi >= 0 ? hexval(s[i + 2]) : -1;
            ch = lo >= 0 ? hi * 16 + lo : -1;
            i += 2;
        } else if (!plain_byte((unsigned char)ch))
            ch = -1;
        if (ch <= 0 || k == max) {
            c->why = ch <= 0 ? "a text is badly encoded" : "a text is too long";
            return false;
        }
        out[k++] = (char)ch;
    }
    out[k] = 0;
    if (!k) {
        c->why = "a text is empty";
        return false;
    }
    return true;
}

/* A percent-encoded text field into out (PEERSUM_TEXT_MAX bytes at most). */
static bool text(cur_t *c, char *out)
{
    size_t n;
    const char *s = field(c, &n);
    return decode(c, s, n, out, PEERSUM_TEXT_MAX) && sep(c, false);
}

/* ---- the KEY=VALUE fields ---- */

typedef bool (*extra_fn)(cur_t *c, const char *v, size_t n, peersum_game_t *g);

static bool ex_user(cur_t *c, const char *v, size_t n, peersum_game_t *g)
{
    uint64_t u;
    if (!decimal(v, n, NUM_MAX, &u)) {
        c->why = "a user is not a number, or out of range";
        return false;
    }
    g->user = (int64_t)u;
    return true;
}

static bool ex_min(cur_t *c, const char *v, size_t n, peersum_game_t *g)
{
    const char *x = memchr(v, 'x', n);
    uint64_t w, h;
    if (!x || !decimal(v, (size_t)(x - v), SCREEN_MAX_W, &w) ||
        !decimal(x + 1, n - (size_t)(x - v) - 1, SCREEN_MAX_H, &h)) {
        c->why = "a min-size is not WxH within a screen";
        return false;
    }
    g->min_w = (int)w, g->min_h = (int)h;
    return true;
}

static bool ex_away(cur_t *c, const char *v, size_t n, peersum_game_t *g)
{
    if (n != 1 || (v[0] != '0' && v[0] != '1')) {
        c->why = "away is not 0 or 1";
        return false;
    }
    g->away = v[0] == '1';
    return true;
}

/* The KEY=VALUE fields that are not texts (those are texts[]'s). */
static const struct {
    const char *key;
    extra_fn fn;
} extras[] = {{"user", ex_user}, {"min", ex_min}, {"away", ex_away}};

static bool key_byte(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

/* One KEY=VALUE field: read when known, skipped when not. */
static bool extra(cur_t *c, peersum_game_t *g)
{
    size_t n, k = 0;
    const char *s = field(c, &n);
    while (k < n && k < PEERSUM_KEY_MAX + 1 && key_byte(s[k]))
        k++;
    if (n > PEERSUM_FIELD_MAX || k == 0 || k > PEERSUM_KEY_MAX || k == n || s[k] != '=') {
        c->why = n > PEERSUM_FIELD_MAX ? "a field is too long" : "a field is not KEY=VALUE";
        return false;
    }
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strlen(texts[i].key) == k && !memcmp(texts[i].key, s, k))
            return decode(c, s + k + 1, n - k - 1, (char *)g + texts[i].at, texts[i].max);
    for (size_t i = 0; i < sizeof extras / sizeof *extras; i++)
        if (strlen(extras[i].key) == k && !memcmp(extras[i].key, s, k))
            return extras[i].fn(c, s + k + 1, n - k - 1, g);
    return true; /* a newer build's: skipped */
}

/* What follows the class: KEY=VALUE fields up to the line's end. */
static bool extras_read(cur_t *c, peersum_game_t *g)
{
    for (int i = 0; c->p < c->end && *c->p == ' '; i++) {
        c->p++;
        if (i == PEERSUM_EXTRA_MAX) {
            c->why = "a line has too many fields";
            return false;
        }
        if (!extra(c, g))
            return false;
    }
    return sep(c, true);
}

static bool line(cur_t *c, peersum_game_t *g)
{
    uint64_t v[8];
    static const uint64_t max[8] = {NUM_MAX, DEPTH_MAX,    DEPTH_MAX,    DEPTH_MAX,
                                    NUM_MAX, SCREEN_MAX_W, SCREEN_MAX_H, NUM_MAX};
    bool minus = false;
    for (int i = 0; i < 8; i++)
        if (!num(c, max[i], &v[i], i == 0 ? &minus : NULL))
            return false;
    if (v[0] == 0) {
        c->why = "a game id is 0";
        return false;
    }
    memset(g, 0, sizeof *g); /* the padding and the texts' tails too: games compare whole */
    g->game = minus ? -(int64_t)v[0] : (int64_t)v[0];
    g->depth = (int)v[1], g->max_depth = (int)v[2], g->xl = (int)v[3];
    g->turn = v[4];
    g->w = (int)v[5], g->h = (int)v[6];
    g->idle_ms = v[7];
    size_t n;
    if (!text(c, g->race))
        return false;
    const char *cls = field(c, &n);
    return decode(c, cls, n, g->cls, PEERSUM_TEXT_MAX) && extras_read(c, g);
}

static int game_cmp(const void *a, const void *b)
{
    const peersum_game_t *x = a, *y = b;
    return (x->game > y->game) - (x->game < y->game);
}

/* Lines in text[0, n): each ends in '\n'. */
static size_t count_lines(const char *text, size_t n)
{
    size_t k = 0;
    for (const char *p = text, *end = text + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        k++;
    return k;
}

static int refuse(peersum_game_t *v, const char **why, const char *msg)
{
    free(v);
    *why = msg;
    return -1;
}

int peersum_parse(const char *text, size_t n, peersum_game_t **out, size_t *nout, const char **why)
{
    *out = NULL;
    *nout = 0;
    if (!n)
        return 0; /* nothing said: no games */
    if (text[n - 1] != '\n')
        return refuse(NULL, why, "the last line is not ended");
    size_t lines = count_lines(text, n);
    if (lines > PEERSUM_GAMES_MAX)
        return refuse(NULL, why, "too many games");
    if (!lines)
        return 0;
    peersum_game_t *v = malloc(lines * sizeof *v);
    if (!v)
        return refuse(NULL, why, "out of memory");
    cur_t c = {text, text + n, NULL};
    for (size_t i = 0; i < lines; i++)
        if (!line(&c, &v[i]))
            return refuse(v, why, c.why);
    qsort(v, lines, sizeof *v, game_cmp);
    for (size_t i = 1; i < lines; i++)
        if (v[i].game == v[i - 1].game)
            return refuse(v, why, "a game is named twice");
    *out = v;
    *nout = lines;
    return 0;
}

const peersum_game_t *peersum_find(const peersum_game_t *v, size_t n, int64_t game)
{
    peersum_game_t key = {.game = game};
    return n ? bsearch(&key, v, n, sizeof *v, game_cmp) : NULL;
}
