/* peerwire — the node-to-node stream's messages (peerwire.h). */
#include "peerwire.h"
#include <string.h>

/* ---- reading ------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, at;
    bool bad;
} rd_t;

static uint64_t rd_int(rd_t *r, int bytes)
{
    uint64_t v = 0;
    if (r->bad || r->n - r->at < (size_t)bytes) {
        r->bad = true;
        return 0;
    }
    for (int i = 0; i < bytes; i++)
        v = v << 8 | r->p[r->at++];
    return v;
}

/* A length-prefixed text, at most PEER_TEXT_MAX, no control bytes. */
static void rd_text(rd_t *r, char *out)
{
    size_t len = (size_t)rd_int(r, 1);
    if (r->bad || len > PEER_TEXT_MAX || r->n - r->at < len) {
        r->bad = true;
        out[0] = 0;
        return;
    }
    for (size_t i = 0; i < len; i++)
        if (r->p[r->at + i] < 0x20 || r->p[r->at + i] == 0x7f)
            r->bad = true;
    memcpy(out, r->p + r->at, len);
    out[len] = 0;
    r->at += len;
}

static bool cell_ok(const uint8_t *c)
{
    uint32_t v = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
    unsigned fg = (unsigned)c[4] << 8 | c[5], bg = (unsigned)c[6] << 8 | c[7];
    return (v & 0x1FFFFF) <= 0x10FFFF && fg <= SCREEN_DEFAULT_COLOR && bg <= SCREEN_DEFAULT_COLOR;
}

static int rd_screen(rd_t *r, peer_msg_t *m, const char **why)
{
    m->w = (int)rd_int(r, 2), m->h = (int)rd_int(r, 2);
    m->cx = (int)rd_int(r, 2), m->cy = (int)rd_int(r, 2);
    m->flags = (int)rd_int(r, 1), m->nrows = (int)rd_int(r, 2);
    if (r->bad || m->w < 1 || m->h < 1 || m->w > SCREEN_MAX_W || m->h > SCREEN_MAX_H ||
        m->nrows > m->h || m->cx >= m->w || m->cy >= m->h) {
        *why = "a screen of a bad size";
        return -1;
    }
    size_t rowb = 2 + (size_t)m->w * 8;
    if ((r->n - r->at) < rowb * (size_t)m->nrows) {
        *why = "a screen whose rows do not fill its message";
        return -1;
    }
    m->rows = r->p + r->at;
    for (int i = 0; i < m->nrows; i++) {
        const uint8_t *row = m->rows + rowb * (size_t)i;
        if (((int)row[0] << 8 | row[1]) >= m->h) {
            *why = "a screen row out of range";
            return -1;
        }
        for (int x = 0; x < m->w; x++)
            if (!cell_ok(row + 2 + 8 * (size_t)x)) {
                *why = "a bad cell";
                return -1;
            }
    }
    if ((m->flags & PEER_KEYFRAME) && m->nrows != m->h) {
        *why = "a keyframe without every row";
        return -1;
    }
    r->at = r->n; /* fields of a newer build: skipped */
    return 1;
}

static int rd_body(rd_t *r, peer_msg_t *m, const char **why)
{
    m->type = (int)rd_int(r, 1);
    if (m->type == PEER_HELLO) {
        rd_text(r, m->secret);
        rd_text(r, m->node);
        m->version = !r->bad && r->n - r->at >= 2 ? (int)rd_int(r, 2) : 1;
        if (!r->bad && m->version < 1) {
            *why = "a HELLO of version 0";
            return -1;
        }
        if (!r->bad)
            r->at = r->n; /* fields of a newer build: skipped */
    } else if (m->type >= PEER_WATCH && m->type <= PEER_GONE) {
        m->game = (int64_t)rd_int(r, 8);
        if (m->type == PEER_SCREEN && !r->bad)
            return rd_screen(r, m, why);
        if ((m->type == PEER_WATCH || m->type == PEER_UNWATCH) && !r->bad)
            r->at = r->n; /* fields of a newer build: skipped */
        if (m->type == PEER_GONE && !r->bad) {
            size_t len = r->n - r->at < sizeof m->reason - 1 ? r->n - r->at : sizeof m->reason - 1;
            for (size_t i = 0; i < len; i++) /* shown to watchers: printable only */
                m->reason[i] =
                    r->p[r->at + i] < 0x20 || r->p[r->at + i] >= 0x7f ? '?' : (char)r->p[r->at + i];
            m->reason[len] = 0;
            r->at = r->n;
        }
    } else {
        m->type = PEER_UNKNOWN; /* a newer build's: skipped whole */
        return 1;
    }
    if (r->bad || r->at != r->n) {
        *why = "a message of the wrong length";
        return -1;
    }
    return 1;
}

int peerwire_next(const uint8_t *p, size_t n, size_t *used, peer_msg_t *m, const char **why)
{
    memset(m, 0, sizeof *m);
    if (n < 4)
        return 0;
    size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    if (len < 1 || len > PEER_MSG_MAX) {
        *why = "a message length out of range";
        return -1;
    }
    if (n - 4 < len)
        return 0;
    rd_t r = {p + 4, len, 0, false};
    if (rd_body(&r, m, why) < 0)
        return -1;
    *used = 4 + len;
    return 1;
}

int peerwire_next_link(const uint8_t *p, size_t n, bool ready, size_t *used, peer_msg_t *m,
                       const char **why)
{
    if (!ready && n >= 4 &&
        ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]) > PEER_HELLO_MAX) {
        memset(m, 0, sizeof *m);
        *why = "a first message longer than a HELLO";
        return -1;
    }
    int r = peerwire_next(p, n, used, m, why);
    if (r > 0 && !ready && m->type != PEER_HELLO) {
        *why = "a message before HELLO";
        return -1;
    }
    return r;
}

int peerwire_apply(const peer_msg_t *m, screen_t *scr, const char **why)
{
    bool key = m->flags & PEER_KEYFRAME;
    if (!key && (scr->w != m->w || scr->h != m->h)) {
        *why = "a change to a screen of another size";
        return -1;
    }
    if (key && (scr->w != m->w || scr->h != m->h) && screen_resize(scr, m->w, m->h) < 0) {
        *why = "no memory for the screen";
        return -1;
    }
    size_t rowb = 2 + (size_t)m->w * 8;
    for (int i = 0; i < m->nrows; i++) {
        const uint8_t *row = m->rows + rowb * (size_t)i;
        int y = (int)row[0] << 8 | row[1];
        for (int x = 0; x < m->w; x++) {
            const uint8_t *c = row + 2 + 8 * (size_t)x;
            uint32_t v = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
            style_t st = {(uint16_t)(c[4] << 8 | c[5]), (uint16_t)(c[6] << 8 | c[7]),
                          (uint8_t)((v >> 21) & ATTR_ALL)};
            screen_put(scr, x, y, v & 0x1FFFFF, st);
        }
    }
    screen_cursor(scr, m->cx, m->cy, m->flags & PEER_CURSOR_ON);
    return 0;
}

/* ---- writing ------------------------------------------------------------------------ */

static void put_int(buf_t *b, uint64_t v, int bytes)
{
    uint8_t o[8];
    for (int i = 0; i < bytes; i++)
        o[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    buf_put(b, o, (size_t)bytes);
}

/* The message begun at b->len - 0 gets its length once its body is in. */
static size_t msg_begin(buf_t *b, int type)
{
    size_t at = b->len;
    put_int(b, 0, 4);
    put_int(b, (uint64_t)type, 1);
    return at;
}

static int msg_end(buf_t *b, size_t at)
{
    if (b->failed)
        return -1;
    size_t len = b->len - at - 4;
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (char)(len >> (8 * (3 - i)));
    return 0;
}

static void put_text(buf_t *b, const char *s)
{
    size_t n = strlen(s);
    n = n > PEER_TEXT_MAX ? PEER_TEXT_MAX : n;
    put_int(b, n, 1);
    buf_put(b, s, n);
}

int peerwire_hello(buf_t *b, const char *secret, const char *node, int version)
{
    size_t at = msg_begin(b, PEER_HELLO);
    put_text(b, secret);
    put_text(b, node);
    if (version)
        put_int(b, (uint64_t)version, 2);
    return msg_end(b, at);
}

int peerwire_game(buf_t *b, int type, int64_t game)
{
    size_t at = msg_begin(b, type);
    put_int(b, (uint64_t)game, 8);
    return msg_end(b, at);
}

int peerwire_gone(buf_t *b, int64_t game, const char *reason)
{
    size_t at = msg_begin(b, PEER_GONE);
    put_int(b, (uint64_t)game, 8);
    buf_put(b, reason, strlen(reason) < 127 ? strlen(reason) : 127);
    return msg_end(b, at);
}

static void put_row(buf_t *b, const screen_t *s, int y)
{
    put_int(b, (uint64_t)y, 2);
    for (int x = 0; x < s->w; x++) {
        const cell_t *c = screen_at(s, x, y);
        put_int(b, (uint64_t)c->ch | (uint64_t)(c->attr & ATTR_ALL) << 21, 4);
        put_int(b, c->fg, 2);
        put_int(b, c->bg, 2);
    }
}

int peerwire_screen(buf_t *b, int64_t game, const screen_t *cur, const screen_t *prev)
{
    bool key = !prev || prev->w != cur->w || prev->h != cur->h;
    size_t rowb = sizeof(cell_t) * (size_t)cur->w;
    int n = 0;
    for (int y = 0; y < cur->h; y++)
        n += key ||
             memcmp(cur->cells + (size_t)y * cur->w, prev->cells + (size_t)y * cur->w, rowb) != 0;
    bool cursor_moved = !key && (prev->cur_x != cur->cur_x || prev->cur_y != cur->cur_y ||
                                 prev->cur_visible != cur->cur_visible);
    if (n == 0 && !cursor_moved)
        return 0;
    size_t at = msg_begin(b, PEER_SCREEN);
    put_int(b, (uint64_t)game, 8);
    put_int(b, (uint64_t)cur->w, 2);
    put_int(b, (uint64_t)cur->h, 2);
    put_int(b, (uint64_t)(cur->cur_x < 0 || cur->cur_x >= cur->w ? 0 : cur->cur_x), 2);
    put_int(b, (uint64_t)(cur->cur_y < 0 || cur->cur_y >= cur->h ? 0 : cur->cur_y), 2);
    put_int(b, (uint64_t)((key ? PEER_KEYFRAME : 0) | (cur->cur_visible ? PEER_CURSOR_ON : 0)), 1);
    put_int(b, (uint64_t)n, 2);
    for (int y = 0; y < cur->h; y++)
        if (key || memcmp(cur->cells + (size_t)y * cur->w, prev->cells + (size_t)y * cur->w, rowb))
            put_row(b, cur, y);
    return msg_end(b, at) < 0 ? -1 : (n ? n : 1);
}
