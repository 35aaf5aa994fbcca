/* hostreplay — a hosted game's recording played back (hostreplay.h). */
#include "hostreplay.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ansi.h"
#include "json.h"
#include "recchunk.h"
#include "replay.h"
#include "vtgrid.h"

static void put_time(buf_t *o, uint64_t ms)
{
    buf_printf(o, "[%llu.%03u, ", (unsigned long long)(ms / 1000), (unsigned)(ms % 1000));
}

/* ---- asciicast -------------------------------------------------------------------------- */

/* The cast is what the terminal shows, as a watcher's terminal gets it:
 * the records run through a terminal (vtgrid.h) and each one's change to
 * its screen goes out as the ANSI encoder's diff (a keyframe first and
 * after a resize), so none of the program's own sequences reach a player. */
typedef struct {
    vtgrid_t *g;
    screen_t *now, *shown; /* the terminal's screen; what the events drew */
    ansi_profile_t prof;
    buf_t text; /* one event's bytes */
    bool drawn; /* shown is drawn at this size: diffs, else a keyframe */
} cast_t;

static int cast_open(cast_t *c, const hostreplay_opts_t *o)
{
    ansi_profile_for_term(&c->prof, "xterm-256color");
    c->g = vtgrid_new(o->w, o->h, NULL, NULL);
    c->now = screen_new(o->w, o->h);
    c->shown = screen_new(o->w, o->h);
    return c->g && c->now && c->shown ? 0 : -1;
}

static void cast_close(cast_t *c)
{
    vtgrid_free(c->g);
    screen_free(c->now);
    screen_free(c->shown);
}

/* The terminal's screen now, as an "o" event at play; nothing when it
 * looks as the last event left it. */
static int cast_draw(cast_t *c, buf_t *out, uint64_t play)
{
    if (vtgrid_sync(c->g, c->now, !c->drawn) < 0)
        return -1;
    buf_reset(&c->text);
    if (c->drawn)
        ansi_diff(&c->prof, c->shown, c->now, &c->text);
    else
        ansi_keyframe(&c->prof, c->now, &c->text);
    if (c->text.failed || screen_copy(c->shown, c->now) < 0)
        return -1;
    screen_clean(c->shown);
    screen_clean(c->now);
    c->drawn = true;
    if (c->text.len == 0)
        return 0;
    put_time(out, play);
    buf_puts(out, "\"o\", ");
    json_put_string(out, c->text.data, c->text.len);
    buf_puts(out, "]\n");
    return 0;
}

static int cast_event(cast_t *c, buf_t *out, const recevent_t *e, uint64_t play)
{
    if (e->kind == 'o') {
        vtgrid_write(c->g, e->data, e->len);
        return cast_draw(c, out, play);
    }
    int w, h;
    vtgrid_size(c->g, &w, &h);
    if (vtgrid_resize(c->g, e->w, e->h) < 0)
        return -1;
    put_time(out, play);
    buf_printf(out, "\"r\", \"%dx%d\"]\n", e->w, e->h);
    if (e->w == w && e->h == h)
        return 0; /* each run says its size: no change */
    c->drawn = false;
    return cast_draw(c, out, play);
}

static void cast_head(buf_t *out, const hostreplay_opts_t *o, int idle)
{
    const char *title = o->title ? o->title : "";
    buf_printf(
        out,
        "{\"version\": 2, \"width\": %d, \"height\": %d, \"idle_time_limit\": %d.%03d, \"title\": ",
        o->w, o->h, idle / 1000, idle % 1000);
    json_put_string(out, title, strlen(title));
    buf_puts(out, ", \"env\": {\"TERM\": \"xterm-256color\"}}\n");
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
    uint64_t idle;        /* the longest gap between two frames */
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

static int frame_event(framer_t *f, const recevent_t *e, uint64_t play)
{
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
    if (!f->dirty) { /* merged output never stretches a gap past idle */
        f->dirty = true;
        f->dirty_since = f->index && play > f->last_ms + f->idle ? f->last_ms + f->idle : play;
    }
    return f->failed ? -1 : 0;
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

static int framer_open(framer_t *f, const hostreplay_opts_t *o, int idle, buf_t *out)
{
    memset(f, 0, sizeof *f);
    f->out = out;
    f->idle = (uint64_t)idle;
    buf_init(&f->diff);
    buf_init(&f->key);
    ansi_profile_for_term(&f->prof, "xterm-256color");
    f->g = vtgrid_new(o->w, o->h, NULL, NULL);
    f->term = screen_new(o->w, o->h);
    f->cur = screen_new(o->maxw, o->maxh);
    f->prev = screen_new(o->maxw, o->maxh);
    return f->g && f->term && f->cur && f->prev ? 0 : -1;
}

/* The frames' end: the pending change, a last keyframe, the totals. */
static void framer_end(framer_t *f, bool cut)
{
    if (f->dirty)
        emit(f, f->dirty_since);
    if (!f->last_key) { /* the end is one keyframe away too */
        buf_reset(&f->diff);
        buf_reset(&f->key);
        ansi_keyframe(&f->prof, f->cur, &f->key);
        frame_put(f, f->last_ms, true);
        f->index++;
    }
    buf_printf(f->out, "],\"turns\":%llu,\"bytes\":%llu,\"truncated\":%s}\n",
               (unsigned long long)(f->index ? f->index - 1 : 0), (unsigned long long)f->bytes,
               cut ? "true" : "false");
}

/* ---- a replay, a chunk at a time --------------------------------------------------- */

struct hostreplay {
    hostreplay_kind_t kind;
    body_t *out;
    uint64_t idle, last, play; /* the gap cap, the last record's time, playback time */
    buf_t scratch;             /* one chunk inflated */
    cast_t cast;
    framer_t frames;
    bool opened, stopped;
    bool failed; /* out of memory */
};

/* One record: its playback time (gaps capped), then the cast or frames. */
static int replay_event(void *ud, const recevent_t *e)
{
    hostreplay_t *r = ud;
    uint64_t gap = e->ms > r->last ? e->ms - r->last : 0;
    r->play += gap < r->idle ? gap : r->idle;
    if (e->ms > r->last)
        r->last = e->ms;
    int ret = r->kind == HOSTREPLAY_CAST ? cast_event(&r->cast, &r->out->text, e, r->play)
                                         : frame_event(&r->frames, e, r->play);
    r->failed = r->failed || ret < 0;
    if (ret == 0 && body_full(r->out))
        ret = -1;
    return ret;
}

hostreplay_t *hostreplay_new(hostreplay_kind_t kind, const hostreplay_opts_t *o, body_t *out,
                             char *err, size_t errlen)
{
    hostreplay_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    hostreplay_opts_t m = *o;
    m.maxw = m.maxw > m.w ? m.maxw : m.w;
    m.maxh = m.maxh > m.h ? m.maxh : m.h;
    int idle = m.idle_ms > 0 ? m.idle_ms : REPLAY_IDLE_MS;
    *r = (hostreplay_t){.kind = kind, .out = out, .idle = (uint64_t)idle};
    buf_init(&r->scratch);
    buf_init(&r->cast.text);
    r->opened = true;
    if (kind == HOSTREPLAY_CAST ? cast_open(&r->cast, &m)
                                : framer_open(&r->frames, &m, idle, &out->text)) {
        snprintf(err, errlen, "a bad size %dx%d, or out of memory", m.w, m.h);
        hostreplay_free(r);
        return NULL;
    }
    if (kind == HOSTREPLAY_CAST) {
        cast_head(&out->text, &m, idle);
        return r;
    }
    buf_printf(&out->text, "{\"w\":%d,\"h\":%d,\"keyframe_turns\":%d,\"idle_ms\":%d,\"frames\":[\n",
               m.maxw, m.maxh, HOSTREPLAY_KEY_EVERY, idle);
    emit(&r->frames, 0);
    return r;
}

int hostreplay_feed(hostreplay_t *r, const db_hosted_chunk_t *c, char *err, size_t errlen)
{
    if (r->stopped)
        return 1;
    int ret = recchunk_decode(c->ms > 0 ? (uint64_t)c->ms : 0, c->data, c->len, &r->scratch,
                              replay_event, r, err, errlen);
    if (ret == 0)
        return 0;
    if (!r->out->cut) {
        if (r->failed || r->out->text.failed || r->out->gz.failed)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->stopped = true; /* the body is full: not an error */
    err[0] = '\0';
    return 1;
}

int hostreplay_end(hostreplay_t *r, char *err, size_t errlen)
{
    if (r->kind == HOSTREPLAY_CAST && r->out->cut)
        body_cast_cut(r->out, r->play);
    else if (r->kind == HOSTREPLAY_FRAMES)
        framer_end(&r->frames, r->out->cut);
    if (r->frames.failed || body_close(r->out)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void hostreplay_free(hostreplay_t *r)
{
    if (!r)
        return;
    if (r->opened && r->kind == HOSTREPLAY_CAST)
        cast_close(&r->cast);
    else if (r->opened)
        framer_close(&r->frames);
    buf_free(&r->scratch);
    buf_free(&r->cast.text);
    free(r);
}

/* ---- window sizes --------------------------------------------------------------------- */

typedef struct {
    int w, h;
} size_max_t;

static int size_event(void *ud, const recevent_t *e)
{
    size_max_t *m = ud;
    if (e->kind == 'r') {
        m->w = e->w > m->w ? e->w : m->w;
        m->h = e->h > m->h ? e->h : m->h;
    }
    return 0;
}

int hostreplay_sizes(const db_hosted_chunk_t *c, int *w, int *h, buf_t *scratch, char *err,
                     size_t errlen)
{
    size_max_t m = {*w, *h};
    int ret = recchunk_decode(c->ms > 0 ? (uint64_t)c->ms : 0, c->data, c->len, scratch, size_event,
                              &m, err, errlen);
    *w = m.w;
    *h = m.h;
    return ret;
}

/* ---- a whole recording at once ------------------------------------------------------- */

static int whole(hostreplay_kind_t kind, const hostreplay_input_t *in, const char *title,
                 body_t *out, char *err, size_t errlen)
{
    hostreplay_opts_t o = {in->w, in->h, in->w, in->h, in->idle_ms, title};
    buf_t scratch;
    buf_init(&scratch);
    int ret = 0;
    for (size_t i = 0; kind == HOSTREPLAY_FRAMES && i < in->n && ret == 0; i++)
        ret = hostreplay_sizes(&in->chunks[i], &o.maxw, &o.maxh, &scratch, err, errlen);
    buf_free(&scratch);
    hostreplay_t *r = ret == 0 ? hostreplay_new(kind, &o, out, err, errlen) : NULL;
    if (!r)
        return -1;
    for (size_t i = 0; i < in->n && ret == 0; i++)
        ret = hostreplay_feed(r, &in->chunks[i], err, errlen);
    ret = ret < 0 ? -1 : hostreplay_end(r, err, errlen);
    hostreplay_free(r);
    return ret;
}

int hostreplay_cast(const hostreplay_input_t *in, const char *title, body_t *out, char *err,
                    size_t errlen)
{
    return whole(HOSTREPLAY_CAST, in, title, out, err, errlen);
}

int hostreplay_frames_json(const hostreplay_input_t *in, body_t *out, char *err, size_t errlen)
{
    return whole(HOSTREPLAY_FRAMES, in, NULL, out, err, errlen);
}
