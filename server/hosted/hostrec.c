/* hostrec — a hosted game's recording as it runs (hostrec.h). */
#include "hostrec.h"
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "db_hosted.h"
#include "log.h"
#include "recchunk.h"

/* An end asked for before the row was known: done once it is. */
typedef struct {
    bool due;
    int64_t time;
    bool has_score;
    db_hosted_score_t score; /* strings point into text */
    char *text;
} end_due_t;

struct hostrec {
    server_t *srv;
    char game[DB_HOSTED_ID_MAX];
    int64_t user;
    int64_t id;       /* the row; 0 until the database answers */
    bool opening;     /* the open is on its way */
    bool off;         /* the open failed: nothing is written */
    bool closing;     /* its owner let go: free once the open and timer are done */
    bool truncated;   /* record-max or record-per-day reached */
    bool told;        /* the truncated flag is stored */
    int64_t bytes;    /* raw output recorded in the row */
    int64_t cap;      /* bytes the row may hold: record-max, less once the row is known */
    int64_t unsaved;  /* of which not yet written */
    int64_t base_ms;  /* this run's time 0 on the row's clock */
    uint64_t t0;      /* uv_now at the start of this run */
    recchunk_t chunk; /* collecting */
    buf_t z;          /* a compressed chunk */
    uv_timer_t timer; /* HOSTREC_FLUSH_MS after a chunk's first record */
    bool timer_closed;
    end_due_t end;
};

static void rec_free(hostrec_t *r)
{
    recchunk_free(&r->chunk);
    buf_free(&r->z);
    free(r->end.text);
    free(r);
}

static void maybe_free(hostrec_t *r)
{
    if (r->closing && !r->opening && r->timer_closed)
        rec_free(r);
}

static uint64_t rel_ms(const hostrec_t *r)
{
    return uv_now(r->srv->loop) - r->t0;
}

/* ---- writing chunks ------------------------------------------------------------------- */

void hostrec_flush(hostrec_t *r)
{
    if (!r || r->off || !r->id)
        return;
    uv_timer_stop(&r->timer);
    bool flag = r->truncated && !r->told;
    if (r->chunk.records == 0 && !flag)
        return;
    buf_reset(&r->z);
    const void *data = NULL;
    size_t len = 0;
    int64_t ms = 0;
    if (r->chunk.records) {
        if (recchunk_compress(&r->chunk, &r->z) < 0) {
            log_error("recording %lld: out of memory, a chunk lost", (long long)r->id);
            recchunk_reset(&r->chunk);
            buf_free(&r->z);
            return;
        }
        data = r->z.data;
        len = r->z.len;
        ms = r->base_ms + (int64_t)r->chunk.ms0;
    }
    db_hosted_chunk_add(r->srv->db, r->id, ms, data, len, r->unsaved, r->truncated, NULL, NULL);
    r->unsaved = 0;
    r->told = r->truncated;
    recchunk_free(&r->chunk); /* idle games hold no buffers: a chunk is seconds apart */
    recchunk_init(&r->chunk);
    buf_free(&r->z);
}

static void on_timer(uv_timer_t *t)
{
    hostrec_flush(t->data);
}

/* After a record: written when big enough, else within HOSTREC_FLUSH_MS. */
static void after_record(hostrec_t *r)
{
    if (r->chunk.raw.len >= HOSTREC_CHUNK_RAW)
        hostrec_flush(r);
    else if (r->chunk.records == 1 && r->id)
        uv_timer_start(&r->timer, on_timer, HOSTREC_FLUSH_MS, 0);
}

/* Which cap r->cap is, for the log. */
static const char *cap_name(const hostrec_t *r)
{
    return r->cap < r->srv->cfg.record_max ? "record-per-day" : "record-max";
}

/* The cap: what is past it is dropped, cut at the byte, and the row marked. */
static void hostrec_cut(hostrec_t *r)
{
    r->truncated = true;
    log_info("recording user=%lld game=%s: %s reached at %lld bytes, truncated", (long long)r->user,
             r->game, cap_name(r), (long long)r->bytes);
    hostrec_flush(r);
}

void hostrec_output(hostrec_t *r, const char *bytes, size_t len)
{
    if (!r || r->off || r->truncated || len == 0)
        return;
    int64_t room = r->cap - r->bytes;
    bool cut = (int64_t)len > room;
    if (cut)
        len = room > 0 ? (size_t)room : 0; /* the recording fills up to the cap */
    if (len && recchunk_output(&r->chunk, rel_ms(r), bytes, len) < 0) {
        hostrec_flush(r); /* full while the row was not known yet: make room */
        if (recchunk_output(&r->chunk, rel_ms(r), bytes, len) < 0)
            len = 0;
    }
    r->bytes += (int64_t)len;
    r->unsaved += (int64_t)len;
    if (cut)
        hostrec_cut(r);
    else if (len)
        after_record(r);
}

void hostrec_resize(hostrec_t *r, int w, int h)
{
    if (!r || r->off || r->truncated)
        return;
    if (recchunk_resize(&r->chunk, rel_ms(r), w, h) == 0)
        after_record(r);
}

/* ---- the row -------------------------------------------------------------------------- */

static void end_now(hostrec_t *r, int64_t end_time, const db_hosted_score_t *score)
{
    hostrec_flush(r);
    db_hosted_game_end(r->srv->db, r->id, end_time, score, NULL, NULL);
}

static int64_t wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* What the row may hold: record-max, or less when the account's other
 * recordings of the last 24 hours leave less of record-per-day. */
static int64_t row_cap(const server_t *srv, const db_hosted_game_t *g)
{
    int64_t max = srv->cfg.record_max, day = srv->cfg.record_per_day;
    if (day <= 0)
        return max;
    int64_t room = day > g->day_bytes ? day - g->day_bytes : 0;
    return g->bytes + room < max ? g->bytes + room : max;
}

/* What this run recorded before its row was known passes the row's cap:
 * cut at the byte, the row marked. */
static void cut_early(hostrec_t *r, const db_hosted_game_t *g)
{
    int64_t room = r->cap > g->bytes ? r->cap - g->bytes : 0;
    int64_t kept = recchunk_cut(&r->chunk, (size_t)room);
    r->unsaved = kept > 0 ? kept : 0;
    r->bytes = g->bytes + r->unsaved;
    r->truncated = true;
    log_info("recording user=%lld game=%s: %s reached at %lld bytes, truncated", (long long)r->user,
             r->game, cap_name(r), (long long)r->bytes);
}

static void on_open(void *ud, int status, const db_hosted_game_t *g, const db_hosted_score_t *s,
                    const db_hosted_chunk_t *c, size_t n)
{
    hostrec_t *r = ud;
    (void)s, (void)c, (void)n;
    r->opening = false;
    if (status == DB_ENOTFOUND) /* no row made: the account's day is recorded in full */
        log_info("recording user=%lld game=%s: record-per-day reached, not recorded",
                 (long long)r->user, r->game);
    else if (status != DB_OK)
        log_error("recording user=%lld game=%s: cannot open its row (%d)", (long long)r->user,
                  r->game, status);
    if (status != DB_OK) {
        r->off = true;
        if (r->end.due && r->end.has_score)
            db_hosted_score_add(r->srv->db, &r->end.score, NULL, NULL);
        maybe_free(r);
        return;
    }
    r->id = g->id;
    r->bytes += g->bytes; /* a run of a game recorded before: its bytes count too */
    r->cap = row_cap(r->srv, g);
    if (!g->truncated && r->bytes > r->cap)
        cut_early(r, g);
    if (g->truncated) { /* cut before: this run adds nothing */
        recchunk_reset(&r->chunk);
        r->bytes = g->bytes;
        r->unsaved = 0;
        r->truncated = true;
    }
    r->told = g->truncated;
    int64_t base = wall_ms() - g->start_time * 1000 - (int64_t)rel_ms(r);
    r->base_ms = base > g->last_ms ? base : g->last_ms + 1;
    log_info("recording %lld user=%lld game=%s %s", (long long)r->id, (long long)r->user, r->game,
             g->chunks ? "goes on" : "started");
    if (r->end.due)
        end_now(r, r->end.time, r->end.has_score ? &r->end.score : NULL);
    else if (r->closing || r->chunk.raw.len >= HOSTREC_CHUNK_RAW)
        hostrec_flush(r);
    else if (r->chunk.records)
        uv_timer_start(&r->timer, on_timer, HOSTREC_FLUSH_MS, 0);
    maybe_free(r);
}

int64_t hostrec_id(const hostrec_t *r)
{
    return r ? r->id : 0;
}

hostrec_t *hostrec_open(server_t *srv, int64_t user, const char *game, int w, int h)
{
    if (srv->cfg.record_max <= 0 || !srv->db)
        return NULL;
    hostrec_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = srv;
    r->user = user;
    r->cap = srv->cfg.record_max;
    snprintf(r->game, sizeof r->game, "%s", game);
    recchunk_init(&r->chunk);
    buf_init(&r->z);
    uv_timer_init(srv->loop, &r->timer);
    uv_unref((uv_handle_t *)&r->timer);
    r->timer.data = r;
    r->t0 = uv_now(srv->loop);
    r->opening = true;
    recchunk_resize(&r->chunk, 0, w, h); /* each run says its size first */
    db_hosted_game_open(srv->db, user, game, (int64_t)time(NULL), w, h, srv->cfg.record_per_day,
                        on_open, r);
    return r;
}

/* A copy of score whose strings live in one block (end.text). */
static void keep_score(end_due_t *e, const db_hosted_score_t *s)
{
    const char *f[] = {s->game, s->name, s->role, s->race, s->gender, s->align, s->death};
    size_t n = 0;
    for (int i = 0; i < 7; i++)
        n += strlen(f[i]) + 1;
    if (!(e->text = malloc(n)))
        return;
    e->score = *s;
    const char **to[] = {&e->score.game,   &e->score.name,  &e->score.role, &e->score.race,
                         &e->score.gender, &e->score.align, &e->score.death};
    char *p = e->text;
    for (int i = 0; i < 7; i++) {
        size_t l = strlen(f[i]) + 1;
        memcpy(p, f[i], l);
        *to[i] = p;
        p += l;
    }
    e->has_score = true;
}

void hostrec_end(hostrec_t *r, const db_hosted_score_t *score)
{
    if (r->off) {
        if (score)
            db_hosted_score_add(r->srv->db, score, NULL, NULL);
        return;
    }
    if (r->id) {
        end_now(r, (int64_t)time(NULL), score);
        return;
    }
    r->end.due = true;
    r->end.time = (int64_t)time(NULL);
    if (score)
        keep_score(&r->end, score);
    if (score && !r->end.has_score) /* no memory to keep it: stored unlinked */
        db_hosted_score_add(r->srv->db, score, NULL, NULL);
}

static void on_timer_closed(uv_handle_t *h)
{
    hostrec_t *r = h->data;
    r->timer_closed = true;
    maybe_free(r);
}

void hostrec_close(hostrec_t *r)
{
    if (!r)
        return;
    hostrec_flush(r);
    r->closing = true;
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
}
