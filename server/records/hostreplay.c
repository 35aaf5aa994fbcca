/* hostreplay — a hosted game's recording played back (hostreplay.h). */
#include "hostreplay.h"
#include <stdio.h>
#include <string.h>
#include "ansi.h"
#include "json.h"
#include "recchunk.h"
#include "replay.h"
#include "vtgrid.h"

/* ---- walking the records ------------------------------------------------------------ */

/* Called per record with its playback time (gaps capped). */
typedef int (*play_fn)(void *ud, const recevent_t *e, uint64_t play_ms);

typedef struct {
    play_fn fn;
    void *ud;
    uint64_t idle, last, play;
} walker_t;

static int walk_event(void *ud, const recevent_t *e)
{
    walker_t *w = ud;
    uint64_t gap = e->ms > w->last ? e->ms - w->last : 0;
    w->play += gap < w->idle ? gap : w->idle;
    if (e->ms > w->last)
        w->last = e->ms;
    return w->fn(w->ud, e, w->play);
}

static int walk(const hostreplay_input_t *in, play_fn fn, void *ud, char *err, size_t n)
{
    walker_t w = {fn, ud, (uint64_t)(in->idle_ms > 0 ? in->idle_ms : REPLAY_IDLE_MS), 0, 0};
    buf_t scratch;
    buf_init(&scratch);
    int rc = 0;
    for (size_t i = 0; i < in->n && rc == 0; i++) {
        const db_hosted_chunk_t *c = &in->chunks[i];
        rc = recchunk_decode(c->ms > 0 ? (uint64_t)c->ms : 0, c->data, c->len, &scratch, walk_event,
                             &w, err, n);
    }
    buf_free(&scratch);
    return rc;
}

static void put_time(buf_t *o, uint64_t ms)
{
    buf_printf(o, "[%llu.%03u, ", (unsigned long long)(ms / 1000), (unsigned)(ms % 1000));
}

/* ---- asciicast -------------------------------------------------------------------------- */

typedef struct {
    buf_t *out;
    buf_t text;    /* the event's bytes: the carry, then the record */
    char carry[4]; /* a UTF-8 sequence the last record cut */
    size_t ncarry;
} cast_t;

/* Bytes at the end of p[0..n) that start a UTF-8 sequence not finished. */
static size_t utf8_cut(const unsigned char *p, size_t n)
{
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned char c = p[n - back];
        if ((c & 0xC0) == 0x80)
            continue; /* a continuation byte: look further back */
        size_t need = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

static int cast_event(void *ud, const recevent_t *e, uint64_t play)
{
    cast_t *c = ud;
    if (e->kind == 'r') {
        put_time(c->out, play);
        buf_printf(c->out, "\"r\", \"%dx%d\"]\n", e->w, e->h);
        return c->out->failed ? -1 : 0;
    }
    buf_reset(&c->text);
    buf_put(&c->text, c->carry, c->ncarry);
    buf_put(&c->text, e->data, e->len);
    if (c->text.failed)
        return -1;
    c->ncarry = utf8_cut((const unsigned char *)c->text.data, c->text.len);
    c->text.len -= c->ncarry;
    memcpy(c->carry, c->text.data + c->text.len, c->ncarry);
    if (c->text.len == 0)
        return 0;
    put_time(c->out, play);
    buf_puts(c->out, "\"o\", ");
    json_put_string(c->out, c->text.data, c->text.len);
    buf_puts(c->out, "]\n");
    return c->out->failed ? -1 : 0;
}

int hostreplay_cast(const hostreplay_input_t *in, const char *title, buf_t *out, char *err,
                    size_t errlen)
{
    int idle = in->idle_ms > 0 ? in->idle_ms : REPLAY_IDLE_MS;
    buf_printf(
        out,
        "{\"version\": 2, \"width\": %d, \"height\": %d, \"idle_time_limit\": %d.%03d, \"title\": ",
        in->w, in->h, idle / 1000, idle % 1000);
    json_put_string(out, title ? title : "", title ? strlen(title) : 0);
    buf_puts(out, ", \"env\": {\"TERM\": \"xterm-256color\"}}\n");
    cast_t c = {.out = out};
    buf_init(&c.text);
    int rc = walk(in, cast_event, &c, err, errlen);
    buf_free(&c.text);
    if (rc == 0 && out->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return rc;
}

/* ---- frames ---------------------------------------------------------------------------- */

typedef struct {
    vtgrid_t *g;
    screen_t *term;       /* the terminal's screen, at its size */
    screen_t *cur, *prev; /* the player's, at the largest size */
    ansi_profile_t prof;
    buf_t diff, key, *out;
    uint64_t index, kf_index, bytes;
    bool dirty, resized;  /* since the last frame */
    bool last_key;        /* the last frame written carries a keyframe */
    uint64_t last_ms;     /* and its time */
    uint64_t dirty_since; /* the time of the first change since the last frame */
    int failed;
} framer_t;

static void frame_put(framer_t *f, uint64_t ms, bool key)
{
    buf_t *o = f->out;
    buf_puts(o, f->index ? ",\n[" : "[");
    buf_put_uint(o, f->index);
    buf_putc(o, ',');
    buf_put_uint(o, ms);
    buf_putc(o, ',');
    json_put_string(o, f->diff.data ? f->diff.data : "", f->diff.len);
    if (key) {
        buf_putc(o, ',');
        json_put_string(o, f->key.data, f->key.len);
    }
    buf_putc(o, ']');
}

/* The terminal's screen now, as frame f->index at ms; nothing when it
 * looks the same as the last frame. */
static void emit(framer_t *f, uint64_t ms)
{
    f->dirty = false;
    if (vtgrid_sync(f->g, f->term, true) < 0) {
        f->failed = 1;
        return;
    }
    screen_blit(f->cur, f->term);
    buf_reset(&f->diff);
    buf_reset(&f->key);
    if (f->index == 0)
        ansi_keyframe(&f->prof, f->cur, &f->diff);
    else
        ansi_diff(&f->prof, f->prev, f->cur, &f->diff);
    if (f->index && f->diff.len == 0)
        return;
    bool key = f->index == 0 || f->resized || f->index >= f->kf_index + HOSTREPLAY_KEY_EVERY;
    f->last_key = key;
    if (key) {
        ansi_keyframe(&f->prof, f->cur, &f->key);
        f->kf_index = f->index;
        f->resized = false;
    }
    screen_copy(f->prev, f->cur);
    screen_clean(f->prev);
    screen_clean(f->cur);
    if (f->diff.failed || f->key.failed)
        f->failed = 1;
    else
        frame_put(f, ms, key);
    f->last_ms = ms;
    f->index++;
}

static int frame_event(void *ud, const recevent_t *e, uint64_t play)
{
    framer_t *f = ud;
    if (f->dirty && play - f->dirty_since >= HOSTREPLAY_MERGE_MS)
        emit(f, f->dirty_since);
    int w, h;
    vtgrid_size(f->g, &w, &h);
    if (e->kind == 'o') {
        vtgrid_write(f->g, e->data, e->len);
        f->bytes += e->len;
    } else if (e->w == w && e->h == h) {
        return 0; /* each run says its size: no change */
    } else if (vtgrid_resize(f->g, e->w, e->h) == 0) {
        f->resized = true;
    }
    if (!f->dirty) {
        f->dirty = true;
        f->dirty_since = play;
    }
    return f->failed || f->out->failed ? -1 : 0;
}

typedef struct {
    int w, h;
} size_max_t;

static int size_event(void *ud, const recevent_t *e, uint64_t play)
{
    size_max_t *m = ud;
    (void)play;
    if (e->kind == 'r') {
        m->w = e->w > m->w ? e->w : m->w;
        m->h = e->h > m->h ? e->h : m->h;
    }
    return 0;
}

static void framer_close(framer_t *f)
{
    vtgrid_free(f->g);
    screen_free(f->term);
    screen_free(f->cur);
    screen_free(f->prev);
    buf_free(&f->diff);
    buf_free(&f->key);
}

static int framer_open(framer_t *f, const hostreplay_input_t *in, const size_max_t *m, buf_t *out)
{
    memset(f, 0, sizeof *f);
    f->out = out;
    buf_init(&f->diff);
    buf_init(&f->key);
    ansi_profile_for_term(&f->prof, "xterm-256color");
    f->g = vtgrid_new(in->w, in->h, NULL, NULL);
    f->term = screen_new(in->w, in->h);
    f->cur = screen_new(m->w, m->h);
    f->prev = screen_new(m->w, m->h);
    return f->g && f->term && f->cur && f->prev ? 0 : -1;
}

int hostreplay_frames_json(const hostreplay_input_t *in, buf_t *out, char *err, size_t errlen)
{
    int idle = in->idle_ms > 0 ? in->idle_ms : REPLAY_IDLE_MS;
    size_max_t m = {in->w, in->h};
    if (walk(in, size_event, &m, err, errlen) < 0)
        return -1;
    framer_t f;
    if (framer_open(&f, in, &m, out) < 0) {
        framer_close(&f);
        snprintf(err, errlen, "a bad size %dx%d, or out of memory", in->w, in->h);
        return -1;
    }
    buf_printf(out, "{\"w\":%d,\"h\":%d,\"keyframe_turns\":%d,\"idle_ms\":%d,\"frames\":[\n", m.w,
               m.h, HOSTREPLAY_KEY_EVERY, idle);
    emit(&f, 0);
    int rc = walk(in, frame_event, &f, err, errlen);
    if (rc == 0 && f.dirty)
        emit(&f, f.dirty_since);
    if (rc == 0 && !f.last_key) { /* the end is one keyframe away too */
        buf_reset(&f.diff);
        buf_reset(&f.key);
        ansi_keyframe(&f.prof, f.cur, &f.key);
        frame_put(&f, f.last_ms, true);
        f.index++;
    }
    buf_printf(out, "],\"turns\":%llu,\"bytes\":%llu}\n",
               (unsigned long long)(f.index ? f.index - 1 : 0), (unsigned long long)f.bytes);
    framer_close(&f);
    if (rc == 0 && (f.failed || out->failed)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return rc;
}
