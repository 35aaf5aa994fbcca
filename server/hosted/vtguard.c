/* vtguard — a byte-at-a-time follower of UTF-8, ESC and CSI sequences. */
#include "vtguard.h"

typedef enum { G_TEXT = 0, G_ESC, G_ESC_INTER, G_CSI, G_CSI_TAIL } state_t;

#define SEPS_MAX   15 /* libvterm holds 16 parameters */
#define DIGITS_MAX 6

/* What a byte becomes: itself (in the run of kept bytes), out[0..n)
 * instead, or a REP. */
typedef enum { S_KEEP, S_SWAP, S_REP } step_t;

static const uint8_t FFFD[3] = {0xEF, 0xBF, 0xBD};

void vtguard_init(vtguard_t *g)
{
    *g = (vtguard_t){0};
}

/* Bytes that leave a pending ESC or CSI pending in libvterm. */
static bool stays(uint8_t c)
{
    return c < 0x20 || c == 0x7F;
}

/* After "ESC [" (no UTF-8 is held then: ESC flushed it). */
static void csi_start(vtguard_t *g)
{
    g->state = G_CSI;
    g->seps = g->digits = 0;
    g->cut = false;
    g->plain = true;
    g->first = 0;
}

static step_t csi_param(vtguard_t *g, uint8_t c)
{
    if (c >= '0' && c <= '9') {
        if (g->cut || g->digits == DIGITS_MAX)
            return S_SWAP;
        g->digits++;
        if (g->seps == 0)
            g->first = g->first * 10 + (uint32_t)(c - '0');
        return S_KEEP;
    }
    if (g->cut || g->seps == SEPS_MAX) { /* ';' or ':' */
        g->cut = true;
        return S_SWAP;
    }
    g->seps++;
    g->digits = 0;
    return S_KEEP;
}

static step_t csi_byte(vtguard_t *g, uint8_t c)
{
    if ((c >= '0' && c <= '9') || c == ';' || c == ':')
        return csi_param(g, c);
    if (stays(c))
        return S_KEEP;
    if (c >= 0x3C && c <= 0x3F) { /* a leader, or a byte ending the CSI there */
        g->plain = false;
        return S_KEEP;
    }
    if (c >= 0x20 && c <= 0x2F) {
        g->plain = false;
        g->state = G_CSI_TAIL;
        return S_KEEP;
    }
    g->state = G_TEXT;
    /* DECRC's forms (a leader's 'l' may be 1048 or 1049) */
    g->after = (c == 'l' && !g->plain) || (c == 'u' && g->plain);
    return c == 'b' && g->plain ? S_REP : S_KEEP;
}

/* A byte >= 0x80: UTF-8 sequences are held until complete, so libvterm's
 * decoder never meets an unfinished one, whatever state its parser is in. */
static step_t text_byte(vtguard_t *g, uint8_t c, uint8_t *out, size_t *n)
{
    if (c < 0xC0) { /* a continuation byte */
        if (!g->held)
            return S_KEEP; /* a stray one: libvterm shows U+FFFD */
        g->hold[g->held++] = c;
        if (g->held < g->need)
            return S_SWAP;
        if (g->need == 2 && g->hold[0] == 0xC2 && g->hold[1] < 0xA0) {
            g->held = 0; /* a C1 control in UTF-8 form: dropped */
            return S_SWAP;
        }
        for (int i = 0; i < g->held; i++)
            out[(*n)++] = g->hold[i];
        g->held = 0;
        return S_SWAP;
    }
    if (c >= 0xF8) {
        for (int i = 0; i < 3; i++)
            out[(*n)++] = FFFD[i];
        return S_SWAP;
    }
    g->hold[0] = c;
    g->held = 1;
    g->need = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return S_SWAP;
}

/* Bytes >= 0x80 that reach libvterm end a CSI there; a C1 control in
 * UTF-8 form, dropped here, never reaches it, so the CSI goes on. */
static void end_csi(vtguard_t *g)
{
    if (g->state == G_CSI || g->state == G_CSI_TAIL)
        g->state = G_TEXT;
}

static step_t step(vtguard_t *g, uint8_t c, uint8_t *out, size_t *n)
{
    *n = 0;
    if (g->held && (c < 0x80 || c >= 0xC0)) { /* the held sequence is broken */
        g->held = 0;
        end_csi(g); /* U+FFFD goes out */
        for (int i = 0; i < 3; i++)
            out[(*n)++] = FFFD[i];
        step_t s = step(g, c, out + 3, n);
        *n += 3;
        if (s == S_KEEP)
            out[(*n)++] = c;
        return s == S_REP ? S_REP : S_SWAP;
    }
    if (c >= 0x80) { /* UTF-8 in any state: an ESC stays pending */
        step_t s = text_byte(g, c, out, n);
        if (s == S_KEEP || *n > 0)
            end_csi(g);
        return s;
    }
    if (c == 0x1B) {
        g->state = G_ESC;
        return S_KEEP;
    }
    if (c == 0x18 || c == 0x1A) { /* CAN, SUB: any sequence ends */
        g->state = G_TEXT;
        return S_KEEP;
    }
    switch ((state_t)g->state) {
    case G_TEXT: return S_KEEP;
    case G_ESC:
        g->after = c == '8'; /* DECRC */
        if (c == '[')
            csi_start(g);
        else if (c >= 0x20 && c <= 0x2F)
            g->state = G_ESC_INTER;
        else if (c >= 0x30 && c <= 0x7E)
            g->state = G_TEXT;
        return S_KEEP;
    case G_ESC_INTER: /* libvterm takes '[' as CSI even after intermediates */
        if (c == '[')
            csi_start(g);
        else if (c >= 0x30 && c <= 0x7E)
            g->state = G_TEXT;
        return S_KEEP;
    case G_CSI: return csi_byte(g, c);
    case G_CSI_TAIL:
        if (!stays(c) && (c < 0x20 || c > 0x2F))
            g->state = G_TEXT;
        return S_KEEP;
    }
    return S_KEEP;
}

void vtguard_write(vtguard_t *g, const void *bytes, size_t len, const vtguard_sink_t *k)
{
    const uint8_t *p = bytes;
    uint8_t out[8];
    size_t start = 0, n;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (g->state == G_TEXT && c < 0x80 && c != 0x1B && !g->held)
            continue; /* plain text: the common case */
        step_t s = step(g, c, out, &n);
        if (s == S_KEEP && !g->after)
            continue;
        size_t end = s == S_KEEP ? i + 1 : i; /* a kept byte goes out before restored */
        if (end > start)
            k->emit((const char *)p + start, end - start, k->user);
        start = i + 1;
        if (n)
            k->emit((const char *)out, n, k->user);
        if (s == S_REP) {
            k->emit("\x18", 1, k->user);
            k->rep(g->first ? g->first : 1, k->user);
        }
        if (g->after && k->restored)
            k->restored(k->user);
        g->after = false;
    }
    if (len > start)
        k->emit((const char *)p + start, len - start, k->user);
}

void vtguard_cancel(vtguard_t *g)
{
    g->state = G_TEXT;
}
