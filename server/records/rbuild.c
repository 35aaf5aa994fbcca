/* rbuild — replay bodies built once, cached, read by many (rbuild.h). */
#include "rbuild.h"
#include <stdlib.h>
#include <string.h>
#include "http_gzip.h"
#include "log.h"
#include "web.h"

static const char *const kind_names[] = {"game cast", "game frames", "hosted cast",
                                         "hosted frames"};

static bool kind_hosted(bodycache_kind_t k)
{
    return k == BODYCACHE_HOSTED_CAST || k == BODYCACHE_HOSTED_FRAMES;
}

static bool kind_cast(bodycache_kind_t k)
{
    return k == BODYCACHE_GAME_CAST || k == BODYCACHE_HOSTED_CAST;
}

/* p's gateway, NULL once it is gone (a build ending at shutdown). */
static web_t *page_web(const page_t *p)
{
    return p->srv->web ? p->web : NULL;
}

/* ---- a cached body read by one request ------------------------------------------------ */

typedef struct {
    bodycache_entry_t *e; /* referenced */
    budget_t *budget;     /* records' readers: slot counts this one */
    budget_slot_t slot;
    size_t off; /* gzip: bytes sent */
    bool plain; /* the client does not take gzip: inflated as it reads */
    http_gunz_t z;
} reader_t;

static ssize_t reader_read(void *ud, void *dst, size_t cap)
{
    reader_t *r = ud;
    if (r->plain)
        return http_gunz_read(&r->z, dst, cap);
    size_t n = r->e->gz_len - r->off < cap ? r->e->gz_len - r->off : cap;
    memcpy(dst, r->e->gz + r->off, n);
    r->off += n;
    return (ssize_t)n;
}

static void reader_close(void *ud)
{
    reader_t *r = ud;
    http_gunz_close(&r->z);
    bodycache_unref(r->e);
    budget_release(r->budget, &r->slot);
    free(r);
}

#define STR(x)  #x
#define XSTR(x) STR(x)

static const web_source_t entry_source = {reader_read, reader_close};

/* Answers p with e's body (a reference of its own), and frees p. */
static void answer_entry(page_t *p, bodycache_entry_t *e, bool hit)
{
    const char *hdrs[] = {"vary:",
                          "Accept-Encoding",
                          "x-warren-cache:",
                          hit ? "hit" : "miss",
                          "content-encoding:",
                          "gzip",
                          NULL};
    reader_t *r = calloc(1, sizeof *r);
    if (!r || (!p->gzip && http_gunz_open(&r->z, e->gz, e->gz_len))) {
        free(r);
        page_error(p, 500, "out of memory");
        return;
    }
    r->budget = p->srv->records->readers;
    if (budget_take(r->budget, &r->slot, p->key, p->key) != BUDGET_OK) {
        http_gunz_close(&r->z);
        free(r);
        page_error(p, 503,
                   "your address is being sent " XSTR(
                       RECORDS_READERS_PER_ADDR) " replays already: try again when one is done");
        return;
    }
    if (!p->gzip)
        hdrs[4] = NULL;
    r->e = e;
    r->plain = !p->gzip;
    bodycache_ref(e);
    const char *ctype = kind_cast(e->key.kind) ? "application/x-asciicast" : "application/json";
    if (web_reply_source(page_web(p), p->id, 200, ctype, hdrs, r->plain ? e->len : e->gz_len,
                         &entry_source, r))
        reader_close(r); /* the client has gone */
    page_free(p);
}

/* ---- builds ----------------------------------------------------------------------------- */

static rbuild_t *build_find(records_t *r, const bodycache_key_t *key)
{
    LIST_EACH (it, &r->builds) {
        rbuild_t *b = LIST_ITEM(it, rbuild_t, node);
        if (bodycache_key_eq(&b->key, key))
            return b;
    }
    return NULL;
}

/* Before the build starts and between its rounds: its requests whose
 * clients have gone are let go; with none left it is not worth going on. */
static bool build_wanted(records_job_t *j)
{
    rbuild_t *b = j->ud;
    LIST_EACH (it, &b->waiters) {
        page_t *p = LIST_ITEM(it, page_t, wnode);
        if (!web_pending(page_web(p), p->id)) {
            list_remove(&p->wnode);
            page_free(p);
        }
    }
    return !list_empty(&b->waiters);
}

/* Thread pool: the body opened on the first round, then the producer. */
static void build_work(records_job_t *j)
{
    rbuild_t *b = j->ud;
    if (!b->opened) {
        b->t0 = uv_hrtime();
        if (body_open(&b->body, b->srv->records->body_max, true)) {
            b->status = 500;
            snprintf(b->err, sizeof b->err, "out of memory");
            return;
        }
        b->opened = true;
    }
    b->work(j);
}

static void build_free(rbuild_t *b)
{
    list_remove(&b->node);
    budget_release(b->srv->records->builders, &b->slot);
    if (b->state_free)
        b->state_free(b->state);
    body_free(&b->body);
    free(b);
}

static void build_log(const rbuild_t *b, const bodycache_entry_t *e)
{
    log_info("replay built: %s %lld, %llu bytes%s, %zu gzipped, %llu ms", kind_names[b->key.kind],
             (long long)b->key.id, (unsigned long long)e->len,
             b->body.cut ? " (cut at replay-max)" : "", e->gz_len,
             (unsigned long long)((uv_hrtime() - b->t0) / 1000000));
}

/* On the loop, once: every request still there answered from the result
 * (or told the error), the result kept in the cache. */
static void build_done(records_job_t *j)
{
    rbuild_t *b = j->ud;
    int status = j->status ? j->status : b->status;
    char err[200];
    snprintf(err, sizeof err, "%s", j->status ? j->err : b->err);
    records_job_free(j);
    bodycache_entry_t *e = NULL;
    if (!status &&
        !(e = bodycache_put(b->srv->records->cache, &b->key, &b->body.gz, body_len(&b->body)))) {
        status = 500;
        snprintf(err, sizeof err, "out of memory");
    }
    if (e)
        build_log(b, e);
    else if (status == 500)
        log_error("replay of %s %lld failed: %s", kind_names[b->key.kind], (long long)b->key.id,
                  err);
    for (list_t *n; (n = list_pop_front(&b->waiters));) {
        page_t *p = LIST_ITEM(n, page_t, wnode);
        if (e)
            answer_entry(p, e, false);
        else
            page_error(p, status, err);
    }
    bodycache_unref(e);
    build_free(b);
}

static rbuild_t *build_new(page_t *p, const bodycache_key_t *key, const char *title,
                           records_job_fn work)
{
    rbuild_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->key = *key;
    b->srv = p->srv;
    b->cast = p->cast;
    snprintf(b->title, sizeof b->title, "%s", title);
    b->hosted = p->hosted;
    b->work = work;
    list_init(&b->waiters);
    list_push_back(&b->waiters, &p->wnode);
    list_push_back(&p->srv->records->builds, &b->node);
    return b;
}

/* Whether slow readers hold more than held_max of bodies the cache let
 * go; the log says when that begins and ends, not at each refusal. */
static bool held_full(records_t *r)
{
    size_t held = bodycache_held(r->cache);
    bool full = held > r->held_max;
    if (full != r->held_full)
        log_warn(full ? "replays: %zu bytes of bodies let go of are still being sent: new "
                        "builds answered 503 until they are below %zu"
                      : "replays: %zu bytes of bodies let go of are being sent: below %zu, "
                        "building again",
                 held, r->held_max);
    r->held_full = full;
    return full;
}

void rbuild_answer(page_t *p, const bodycache_key_t *key, const char *title, records_job_fn read,
                   records_job_fn work)
{
    records_t *r = p->srv->records;
    bodycache_entry_t *e = bodycache_get(r->cache, key);
    if (e) {
        answer_entry(p, e, true);
        bodycache_unref(e);
        return;
    }
    rbuild_t *b = build_find(r, key);
    if (b) { /* the same body is being built: wait for it */
        list_push_back(&b->waiters, &p->wnode);
        return;
    }
    if (held_full(r)) {
        page_error(p, 503, "the server is sending many replays: try again in a few seconds");
        return;
    }
    budget_slot_t slot = {0};
    if (budget_take(r->builders, &slot, p->key, p->key) != BUDGET_OK) {
        page_error(p, 503,
                   "your address has " XSTR(
                       RECORDS_BUILDS_PER_ADDR) " replays being built "
                                                "already: try again when one is done");
        return;
    }
    records_job_t *j = calloc(1, sizeof *j);
    if (!j || !(b = build_new(p, key, title, work))) {
        free(j);
        budget_release(r->builders, &slot);
        page_error(p, 500, "out of memory");
        return;
    }
    b->slot = slot;
    *j = (records_job_t){.srv = p->srv,
                         .game_id = key->id,
                         .refusable = true,
                         .hosted = kind_hosted(key->kind),
                         .read = read,
                         .work = build_work,
                         .done = build_done,
                         .wanted = build_wanted,
                         .ud = b};
    records_job_start(j);
}
