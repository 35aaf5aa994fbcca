/* replay — a finished game played again from seed + journal (replay.h). */
#include <stdio.h>
#include <string.h>
#include "ansi.h"
#include "journal.h"
#include "json.h"
#include "replay.h"

typedef struct {
    replay_opts_t opts; /* every field filled (opts_or_defaults) */
    replay_frame_cb cb;
    void *ud;
    game_t *g;
    script_vm_t *vm; /* this replay's own: the call may run on any thread */
    screen_t *cur, *prev;
    ansi_profile_t prof;
    buf_t diff, key;
    uint64_t index, kf_turn, kf_index;
    uint64_t ms; /* the playback time of the frame being made */
    int failed;  /* the callback failed */
    bool cut;    /* the callback said stop here */
    replay_result_t *res;
} player_t;

/* The options as given, with a default for every field left 0. */
static replay_opts_t opts_or_defaults(const replay_opts_t *opts)
{
    replay_opts_t o = opts ? *opts : (replay_opts_t){0};
    if (!o.w)
        o.w = 80;
    if (!o.h)
        o.h = 24;
    if (o.keyframe_turns <= 0)
        o.keyframe_turns = 50;
    if (o.idle_ms <= 0)
        o.idle_ms = REPLAY_IDLE_MS;
    if (o.step_ms <= 0)
        o.step_ms = REPLAY_STEP_MS;
    return o;
}

/* Renders the game, diffs against the previous frame and hands it on. */
static void emit_frame(player_t *p)
{
    if (!p->cb || p->failed || p->cut)
        return;
    game_view_t v = {.turns = true}; /* a replay shows how the turns went */
    game_render(p->g, p->cur, &v);
    game_status_t st;
    game_status(p->g, &st);
    uint64_t every = (uint64_t)p->opts.keyframe_turns;
    bool key =
        p->index == 0 || st.turn >= p->kf_turn + every || p->index >= p->kf_index + 2 * every;
    buf_reset(&p->diff);
    buf_reset(&p->key);
    if (p->index == 0)
        ansi_keyframe(&p->prof, p->cur, &p->diff);
    else
        ansi_diff(&p->prof, p->prev, p->cur, &p->diff);
    if (key) {
        ansi_keyframe(&p->prof, p->cur, &p->key);
        p->kf_turn = st.turn;
        p->kf_index = p->index;
    }
    screen_copy(p->prev, p->cur);
    screen_clean(p->prev);
    screen_clean(p->cur);
    if (p->diff.failed || p->key.failed) {
        p->failed = 1;
        return;
    }
    replay_frame_t f = {p->index,
                        st.turn,
                        p->ms,
                        p->diff.data ? p->diff.data : "",
                        p->diff.len,
                        key ? p->key.data : NULL,
                        key ? p->key.len : 0};
    int r = p->cb(p->ud, &f);
    p->failed = r < 0;
    p->cut = r > 0;
}

/* The gap before the key at off of row (see "Times" in replay.h). */
static uint64_t key_gap(const player_t *p, const db_journal_row_t *row, size_t off)
{
    uint64_t idle = (uint64_t)p->opts.idle_ms;
    if (row->ms < 0)
        return (uint64_t)p->opts.step_ms;
    if (off > 0)
        return 0;
    return (uint64_t)row->ms < idle ? (uint64_t)row->ms : idle;
}

/* One journal key: played, counted and drawn (journal_key_fn). */
static const char *play_key(void *ud, const db_journal_row_t *row, size_t off, key_event_t k)
{
    player_t *p = ud;
    game_status_t st;
    game_status(p->g, &st);
    if (st.state != GAME_RUNNING && !st.more) /* paging the last --More-- is not after */
        p->res->keys_after_end++;
    game_input(p->g, p->vm, k);
    p->res->keys++;
    p->index++;
    p->ms += key_gap(p, row, off);
    emit_frame(p);
    return p->failed ? "frame output failed" : p->cut ? "cut" : NULL;
}

static int player_open(player_t *p, const replay_input_t *in, char *err, size_t errlen)
{
    int w = p->opts.w, h = p->opts.h;
    p->g = journal_new_game(in->content, in->seed, in->name);
    p->vm = script_vm_new();
    p->cur = screen_new(w, h);
    p->prev = screen_new(w, h);
    ansi_profile_for_term(&p->prof, "xterm-256color");
    buf_init(&p->diff);
    buf_init(&p->key);
    if (!p->g || !p->vm || !p->cur || !p->prev) {
        snprintf(err, errlen, p->g ? "bad replay size %dx%d" : "out of memory", w, h);
        return -1;
    }
    return 0;
}

static void player_close(player_t *p)
{
    game_free(p->g);
    script_vm_free(p->vm);
    screen_free(p->cur);
    screen_free(p->prev);
    buf_free(&p->diff);
    buf_free(&p->key);
}

int replay_run(const replay_input_t *in, const replay_opts_t *opts, replay_frame_cb cb, void *ud,
               replay_result_t *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    buf_init(&res->dump);
    player_t p = {.opts = opts_or_defaults(opts), .cb = cb, .ud = ud, .res = res};
    int ret = player_open(&p, in, err, errlen);
    if (ret == 0)
        emit_frame(&p);
    uint64_t seq = 0;
    if (ret == 0)
        ret = journal_play(in->rows, in->nrows, &seq, play_key, &p, err, errlen);
    if (p.cut && !p.failed) { /* stopped where the callback said: no error */
        ret = 0;
        res->cut = true;
        err[0] = '\0';
    }
    if (ret == 0 && p.failed) {
        snprintf(err, errlen, "frame output failed");
        ret = -1;
    }
    if (ret == 0) {
        game_status(p.g, &res->end);
        res->hash = game_hash(p.g);
        game_dump(p.g, &res->dump);
    }
    player_close(&p);
    return ret;
}

void replay_result_free(replay_result_t *res)
{
    buf_free(&res->dump);
}

/* ---- the browser player's frames ------------------------------------------------ */

typedef struct {
    body_t *out;
    size_t nframes;
} json_sink_t;

/* After each frame or event: stop (1) once the body is full. */
static int body_after(body_t *b)
{
    return !body_full(b) ? 0 : b->cut ? 1 : -1;
}

static int json_frame_out(void *ud, const replay_frame_t *f)
{
    json_sink_t *s = ud;
    buf_t *o = &s->out->text;
    buf_puts(o, s->nframes++ ? ",\n[" : "[");
    buf_put_uint(o, f->turn);
    buf_putc(o, ',');
    buf_put_uint(o, f->ms);
    buf_putc(o, ',');
    json_put_string(o, f->diff, f->diff_len);
    if (f->key) {
        buf_putc(o, ',');
        json_put_string(o, f->key, f->key_len);
    }
    buf_putc(o, ']');
    return body_after(s->out);
}

/* The body's end: an error when memory ran out. */
static int body_end(body_t *b, int ret, char *err, size_t errlen)
{
    if (ret == 0 && body_close(b)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return ret;
}

int replay_frames_json(const replay_input_t *in, const replay_opts_t *opts, body_t *out, char *err,
                       size_t errlen)
{
    replay_opts_t o = opts_or_defaults(opts);
    buf_printf(&out->text, "{\"w\":%d,\"h\":%d,\"keyframe_turns\":%d,\"idle_ms\":%d,\"frames\":[\n",
               o.w, o.h, o.keyframe_turns, o.idle_ms);
    json_sink_t s = {out, 0};
    replay_result_t res;
    int ret = replay_run(in, &o, json_frame_out, &s, &res, err, errlen);
    if (ret == 0)
        buf_printf(&out->text,
                   "],\"turns\":%llu,\"keys\":%llu,\"hash\":\"%016llx\",\"truncated\":%s}\n",
                   (unsigned long long)res.end.turn, (unsigned long long)res.keys,
                   (unsigned long long)res.hash, res.cut ? "true" : "false");
    replay_result_free(&res);
    return body_end(out, ret, err, errlen);
}

/* ---- asciicast v2 -------------------------------------------------------------------- */

typedef struct {
    body_t *out;
    uint64_t ms; /* the last event's time */
} cast_sink_t;

static int cast_frame_out(void *ud, const replay_frame_t *f)
{
    cast_sink_t *s = ud;
    if (f->diff_len == 0)
        return 0;
    s->ms = f->ms;
    buf_printf(&s->out->text, "[%llu.%03u, \"o\", ", (unsigned long long)(f->ms / 1000),
               (unsigned)(f->ms % 1000));
    json_put_string(&s->out->text, f->diff, f->diff_len);
    buf_puts(&s->out->text, "]\n");
    return body_after(s->out);
}

int replay_asciicast(const replay_input_t *in, const replay_opts_t *opts, double step,
                     const char *title, body_t *out, char *err, size_t errlen)
{
    replay_opts_t o = opts_or_defaults(opts);
    o.step_ms = step > 0 && step < 3600 ? (int)(step * 1000 + 0.5) : 200;
    buf_printf(
        &out->text,
        "{\"version\": 2, \"width\": %d, \"height\": %d, \"idle_time_limit\": %d.%03d, \"title\": ",
        o.w, o.h, o.idle_ms / 1000, o.idle_ms % 1000);
    json_put_string(&out->text, title ? title : "", title ? strlen(title) : 0);
    buf_puts(&out->text, ", \"env\": {\"TERM\": \"xterm-256color\"}}\n");
    cast_sink_t s = {out, 0};
    replay_result_t res;
    int ret = replay_run(in, &o, cast_frame_out, &s, &res, err, errlen);
    if (ret == 0 && res.cut)
        body_cast_cut(out, s.ms);
    replay_result_free(&res);
    return body_end(out, ret, err, errlen);
}
