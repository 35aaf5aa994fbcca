/* Unit tests: the records URLs (route table rows, records_query), escaping,
 * server/records/replay (frames,
 * asciicast, errors) and db/db_records (filtered scores, totals, the
 * verification backlog) on a real SQLite file and libuv loop. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "ansi.h"
#include <zlib.h>
#include "db_records.h"
#include "bodycache.h"
#include "records.h"
#include "html.h"
#include "records_query.h"
#include "replay.h"
#include "routes.h"
#include "web_parse.h"
#include "webgw.h"

/* ---- records URLs: the route table's rows and records_query ---------------------- */

typedef int (*handler_t)(void *, const web_http_t *);

/* What warrend's route table does with a GET of path: the handler, whether
 * it answers JSON, and the parameter. */
static handler_t route_of(const char *path, bool *api, char *param)
{
    const web_route_t *r = web_route_find(WEB_ROUTES, WEB_NROUTES, WEB_GET, path, param, 64);
    *api = r && r->arg == RECORDS_JSON;
    return r ? r->handler : NULL;
}

/* The status the records pages give path before any database read: 0 when
 * it goes on, 400 or 404 with a message, -1 when no records row takes it. */
static int url_status(const char *path, char *err)
{
    bool api;
    char param[64], name[24];
    handler_t h = route_of(path, &api, param);
    if (h == records_bad_game)
        return rq_game_error(param, err, 160);
    if (h == records_player)
        return rq_player_name(param, name, err, 160);
    /* the lobby, /play and the addresses no page has are the site's */
    return h && h != webgw_page && h != webgw_not_found && h != webgw_api_not_found ? 0 : -1;
}

START_TEST(routes)
{
    static const struct {
        const char *path;
        handler_t handler;
        bool api;
        const char *param;
    } cases[] = {
        {"/scores", records_scores, false, ""},
        {"/api/scores", records_scores, true, ""},
        {"/game/42", records_game, false, "42"},
        {"/api/game/42", records_game, true, "42"},
        {"/game/7/dump", records_dump, false, "7"},
        {"/game/7.cast", records_cast, false, "7"},
        {"/game/7/replay", records_replay, false, "7"},
        {"/api/game/7/replay", records_frames, true, "7"},
        {"/game/999999999999999", records_game, false, "999999999999999"},
        {"/player/Bob", records_player, false, "Bob"},
        {"/api/player/ab", records_player, true, "ab"},
        {"/game/0", records_bad_game, false, "0"},
        {"/api/game/3.cast", records_bad_game, true, "3.cast"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool api;
        char param[64];
        ck_assert_msg(route_of(cases[i].path, &api, param) == cases[i].handler, "%s",
                      cases[i].path);
        ck_assert_int_eq(api, cases[i].api);
        ck_assert_str_eq(param, cases[i].param);
    }
    static const struct {
        const char *path;
        int status;
    } refused[] = {
        {"/game/1000000000000000", 400},
        {"/game/0", 400},
        {"/game/", 400},
        {"/game/-3", 400},
        {"/game/3a", 400},
        {"/game/3/", 404},
        {"/api/game/3.cast", 404},
        {"/api/game/3/dump", 404},
        {"/game/3/replay/x", 404},
        {"/", -1},
        {"/play", -1},
        {"/api/other", -1},
        {"/scoresx", -1},
        {"", -1},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char err[160] = "";
        int ret = url_status(refused[i].path, err);
        ck_assert_msg(ret == refused[i].status, "%s: %d", refused[i].path, ret);
        if (ret > 0)
            ck_assert_msg(err[0], "%s: no message", refused[i].path);
    }
}
END_TEST

START_TEST(players)
{
    char err[160], name[24];
    ck_assert_int_eq(rq_player_name("Bob_the-2nd", name, err, sizeof err), 0);
    ck_assert_str_eq(name, "Bob_the-2nd");
    ck_assert_int_eq(url_status("/api/player/ab", err), 0);
    const char *bad[] = {"/player/a",
                         "/player/",
                         "/player/abcdefghijklmnopqrstu",
                         "/player/a b",
                         "/player/a<b",
                         "/player/a.b",
                         "/player/ab/c",
                         "/player/\xc3\xa9t\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(url_status(bad[i], err) == 400, "%s", bad[i]);
}
END_TEST

START_TEST(score_filters)
{
    rq_filter_t q;
    char err[160];
    const char *ok[] = {"race=Elf", "class=rogue", "period=week", "other=<x>", "flag"};
    ck_assert_int_eq(rq_scores_filter(ok, 5, &q, err, sizeof err), 0);
    ck_assert_str_eq(q.race, "Elf");
    ck_assert_str_eq(q.cls, "rogue");
    ck_assert_str_eq(q.period, "week");
    ck_assert_int_eq(q.period_secs, 7 * 86400);
    const char *none[] = {"period=", "race="};
    ck_assert_int_eq(rq_scores_filter(none, 2, &q, err, sizeof err), 0);
    ck_assert_str_eq(q.period, "all");
    ck_assert_int_eq(q.period_secs, 0);
    ck_assert_str_eq(q.race, "");
    const char *bad[] = {"period=forever",         "race=<b>", "race=elf1",
                         "class=aaaaaaaaaaaaaaaa", "race=a b", "class=%00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(rq_scores_filter(&bad[i], 1, &q, err, sizeof err) == 400, "%s", bad[i]);
        ck_assert(strlen(err) > 5);
    }
}
END_TEST

static char *esc(const char *s, size_t n, bool url)
{
    static char out[512];
    buf_t b;
    buf_init(&b);
    if (url)
        url_escape(&b, s);
    else
        html_escape(&b, s, n);
    snprintf(out, sizeof out, "%.*s", (int)b.len, b.data ? b.data : "");
    buf_free(&b);
    return out;
}

START_TEST(escaping)
{
    const char s[] = "<a href=\"x\">it's & \x1b[31m\x07\ttab\nline\x7f</a>";
    ck_assert_str_eq(esc(s, sizeof s - 1, false),
                     "&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; [31m\ttab\nline&lt;/a&gt;");
    ck_assert_str_eq(esc("caf\xc3\xa9", 5, false), "caf\xc3\xa9");
    ck_assert_str_eq(esc("", 0, false), "");
    /* invalid UTF-8 (a stray continuation, a cut sequence, an overlong, a
     * surrogate) becomes U+FFFD a byte each; valid sequences pass */
    ck_assert_str_eq(esc("a\x80<\xc3", 4, false), "a\xef\xbf\xbd&lt;\xef\xbf\xbd");
    ck_assert_str_eq(esc("\xc0\xaf\xed\xa0\x80", 5, false),
                     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_str_eq(esc("\xf0\x9f\x90\x87\xef\xbf\xbd", 7, false), "\xf0\x9f\x90\x87\xef\xbf\xbd");
    const char nul[] = "a\0<";
    ck_assert_str_eq(esc(nul, 3, false), "a&lt;");
    ck_assert_str_eq(esc("Bob_the-2nd.~", 0, true), "Bob_the-2nd.~");
    ck_assert_str_eq(esc("a b/<\"?&\xc3\xa9", 0, true), "a%20b%2F%3C%22%3F%26%C3%A9");
}
END_TEST

/* ---- replay -------------------------------------------------------------------------- */

typedef struct {
    content_t *c;
    uint8_t keys[256];
    db_journal_row_t rows[256];
    size_t n;
} rfx_t;

static const char RKEYS[] = "....hjkl....yubn........lllljjjj........Qy";

static void rfx_open(rfx_t *f, const char *keys)
{
    char err[256];
    f->c = content_load(NULL, err, sizeof err);
    ck_assert_msg(f->c != NULL, "%s", err);
    f->n = strlen(keys);
    for (size_t i = 0; i < f->n; i++) {
        f->keys[i] = (uint8_t)keys[i];
        f->rows[i] = (db_journal_row_t){(int64_t)i + 1, &f->keys[i], 1, DB_MS_UNKNOWN};
    }
}

/* The same game played directly, rendered at 80x24. */
static game_t *direct(const rfx_t *f, size_t nkeys, screen_t *s)
{
    game_options_t opt = {"zed"};
    game_t *g = game_new(f->c, 99, &opt);
    script_vm_t *vm = script_vm_new();
    for (size_t i = 0; i < nkeys; i++)
        game_input(g, vm, (key_event_t){f->keys[i], 0});
    script_vm_free(vm);
    game_view_t v = {.turns = true}; /* as replays draw */
    game_render(g, s, &v);
    return g;
}

typedef struct {
    screen_t *term; /* what a terminal shows after the diffs (by re-rendering) */
    size_t frames, keyframes;
    uint64_t last_turn;
    bool monotonic;
    buf_t all;     /* every diff, in order */
    buf_t lastkey; /* the last keyframe's bytes */
    size_t lastkey_at;
} sink_t;

static int sink(void *ud, const replay_frame_t *fr)
{
    sink_t *s = ud;
    ck_assert_uint_eq(fr->index, s->frames);
    s->monotonic &= fr->turn >= s->last_turn;
    s->last_turn = fr->turn;
    s->frames++;
    s->keyframes += fr->key != NULL;
    if (fr->index == 0)
        ck_assert_ptr_nonnull(fr->key); /* the first frame is a keyframe */
    buf_put(&s->all, fr->diff, fr->diff_len);
    if (fr->key) {
        buf_reset(&s->lastkey);
        buf_put(&s->lastkey, fr->key, fr->key_len);
        s->lastkey_at = fr->index;
    }
    return 0;
}

START_TEST(replay_matches_direct_play)
{
    rfx_t f;
    rfx_open(&f, RKEYS);
    replay_input_t in = {f.c, 99, "zed", f.rows, f.n};
    sink_t s = {.monotonic = true};
    buf_init(&s.all);
    buf_init(&s.lastkey);
    replay_result_t res;
    char err[200];
    replay_opts_t o = {80, 24, 10};
    ck_assert_int_eq(replay_run(&in, &o, sink, &s, &res, err, sizeof err), 0);
    screen_t *scr = screen_new(80, 24);
    game_t *g = direct(&f, f.n, scr);
    ck_assert_uint_eq(res.hash, game_hash(g));
    ck_assert_uint_eq(res.keys, f.n);
    ck_assert_uint_eq(res.keys_after_end, 0);
    ck_assert_int_eq(res.end.state, GAME_QUIT);
    buf_t dump;
    buf_init(&dump);
    game_dump(g, &dump);
    ck_assert_uint_eq(dump.len, res.dump.len);
    ck_assert(memcmp(dump.data, res.dump.data, dump.len) == 0);
    ck_assert_uint_eq(s.frames, f.n + 1);
    ck_assert(s.monotonic);
    ck_assert_uint_ge(s.keyframes, 2);
    ck_assert_uint_gt(s.all.len, 1000);
    /* the last keyframe draws exactly the directly played game at that key */
    ck_assert_uint_gt(s.lastkey_at, 0);
    screen_t *at = screen_new(80, 24);
    game_t *g2 = direct(&f, s.lastkey_at, at);
    ansi_profile_t prof;
    ansi_profile_for_term(&prof, "xterm-256color");
    buf_t want;
    buf_init(&want);
    ansi_keyframe(&prof, at, &want);
    ck_assert_uint_eq(want.len, s.lastkey.len);
    ck_assert(memcmp(want.data, s.lastkey.data, want.len) == 0);
    buf_free(&want);
    game_free(g2);
    screen_free(at);
    buf_free(&dump);
    buf_free(&s.all);
    buf_free(&s.lastkey);
    replay_result_free(&res);
    game_free(g);
    screen_free(scr);
    content_free(f.c);
}
END_TEST

START_TEST(replay_counts_keys_after_the_end_and_rejects_bad_journals)
{
    rfx_t f;
    rfx_open(&f, "..Qy...");
    replay_input_t in = {f.c, 99, "zed", f.rows, f.n};
    replay_result_t res;
    char err[200];
    ck_assert_int_eq(replay_run(&in, NULL, NULL, NULL, &res, err, sizeof err), 0);
    ck_assert_uint_eq(res.keys_after_end, 3);
    ck_assert_int_eq(res.end.state, GAME_QUIT);
    replay_result_free(&res);
    f.rows[2].seq = 7; /* a gap */
    ck_assert_int_eq(replay_run(&in, NULL, NULL, NULL, &res, err, sizeof err), -1);
    ck_assert_str_eq(err, "journal gap at seq 7");
    replay_result_free(&res);
    f.rows[2].seq = 3;
    uint8_t bad[2] = {0x83, 0x01}; /* a 4-byte code: never written */
    f.rows[1] = (db_journal_row_t){2, bad, 2, DB_MS_UNKNOWN};
    ck_assert_int_eq(replay_run(&in, NULL, NULL, NULL, &res, err, sizeof err), -1);
    ck_assert_str_eq(err, "bad key bytes at seq 2");
    replay_result_free(&res);
    replay_opts_t tiny = {3, 3, 0};
    ck_assert_int_eq(replay_run(&in, &tiny, NULL, NULL, &res, err, sizeof err), -1);
    replay_result_free(&res);
    content_free(f.c);
}
END_TEST

START_TEST(frames_json_and_asciicast)
{
    rfx_t f;
    rfx_open(&f, RKEYS);
    replay_input_t in = {f.c, 99, "zed", f.rows, f.n};
    body_t jb, cb;
    ck_assert_int_eq(body_open(&jb, 0, false), 0);
    ck_assert_int_eq(body_open(&cb, 0, false), 0);
    char err[200];
    ck_assert_int_eq(replay_frames_json(&in, NULL, &jb, err, sizeof err), 0);
    ck_assert_int_eq(replay_asciicast(&in, NULL, 0.5, "a \"title\"\n", &cb, err, sizeof err), 0);
    buf_putc(&jb.text, '\0');
    buf_putc(&cb.text, '\0');
    buf_t j = jb.text, c = cb.text;
    const char *jhead =
        "{\"w\":80,\"h\":24,\"keyframe_turns\":50,\"idle_ms\":2000,\"frames\":[\n[0,0,\"";
    ck_assert_msg(strncmp(j.data, jhead, strlen(jhead)) == 0, "%.60s", j.data);
    ck_assert_ptr_nonnull(strstr(j.data, "\"keys\":42,"));
    ck_assert_ptr_nonnull(strstr(j.data, ",\"truncated\":false}\n"));
    ck_assert_ptr_nonnull(
        strstr(j.data, ",4200,\""));            /* frame 42: keys without times 100 ms apart */
    ck_assert_ptr_null(strchr(j.data, '\x1b')); /* escaped as \u001b */
    ck_assert_ptr_nonnull(strstr(j.data, "\\u001b["));
    const char *head =
        "{\"version\": 2, \"width\": 80, \"height\": 24, \"idle_time_limit\": 2.000, "
        "\"title\": \"a \\\"title\\\"\\n\", "
        "\"env\": {\"TERM\": \"xterm-256color\"}}\n[0.000, \"o\", \"";
    ck_assert_msg(strncmp(c.data, head, strlen(head)) == 0, "%.120s", c.data);
    ck_assert_ptr_nonnull(strstr(c.data, "\n[21.000, \"o\", ")); /* frame 42 at 0.5 s each */
    ck_assert_ptr_null(strstr(c.data, "truncated"));
    body_free(&jb);
    body_free(&cb);
    content_free(f.c);
}
END_TEST

/* Frame times from recorded key times: gaps as recorded, capped at the idle
 * limit, later keys of one row at once, rows without a time a step apart. */
typedef struct {
    uint64_t ms[64];
    size_t n;
} times_t;

static int times_sink(void *ud, const replay_frame_t *fr)
{
    times_t *t = ud;
    ck_assert_uint_eq(fr->index, t->n);
    if (t->n < 64)
        t->ms[t->n++] = fr->ms;
    return 0;
}

START_TEST(frame_times_follow_the_journal)
{
    rfx_t f;
    rfx_open(&f, "....hj..");
    /* rows: '.' 300, '.' 50, '.' 9000 (idle), '.' 1234, "hj" one row 400, '.' '.' unknown */
    static const int64_t ms[] = {300, 50, 9000, 1234, 400, DB_MS_UNKNOWN, DB_MS_UNKNOWN};
    db_journal_row_t rows[7];
    for (size_t i = 0; i < 7; i++)
        rows[i] =
            (db_journal_row_t){(int64_t)i + 1, &f.keys[i < 5 ? i : i + 1], i == 4 ? 2 : 1, ms[i]};
    replay_input_t in = {f.c, 99, "zed", rows, 7};
    times_t t = {{0}, 0};
    replay_result_t res;
    char err[200];
    ck_assert_int_eq(replay_run(&in, NULL, times_sink, &t, &res, err, sizeof err), 0);
    replay_result_free(&res);
    static const uint64_t want[] = {0, 300, 350, 2350, 3584, 3984, 3984, 4084, 4184};
    ck_assert_uint_eq(t.n, 9);
    for (size_t i = 0; i < 9; i++)
        ck_assert_uint_eq(t.ms[i], want[i]);
    /* a lower idle limit and another step */
    replay_opts_t o = {.idle_ms = 1000, .step_ms = 250};
    t.n = 0;
    ck_assert_int_eq(replay_run(&in, &o, times_sink, &t, &res, err, sizeof err), 0);
    replay_result_free(&res);
    ck_assert_uint_eq(t.ms[3], 1350);
    ck_assert_uint_eq(t.ms[4], 2350); /* 1234 ms capped too */
    ck_assert_uint_eq(t.ms[8], 2750 + 500);
    /* the same times in the JSON frames and the asciicast; the cast says its idle limit */
    body_t jb, cb;
    ck_assert_int_eq(body_open(&jb, 0, false), 0);
    ck_assert_int_eq(body_open(&cb, 0, false), 0);
    ck_assert_int_eq(replay_frames_json(&in, &o, &jb, err, sizeof err), 0);
    ck_assert_int_eq(replay_asciicast(&in, &o, 0.5, "t", &cb, err, sizeof err), 0);
    buf_putc(&jb.text, '\0');
    buf_putc(&cb.text, '\0');
    buf_t j = jb.text, c = cb.text;
    ck_assert_ptr_nonnull(strstr(j.data, "\"idle_ms\":1000,"));
    ck_assert_ptr_nonnull(strstr(j.data, ",1350,\""));
    ck_assert_ptr_nonnull(strstr(j.data, ",3250,\""));
    ck_assert_ptr_nonnull(strstr(c.data, "\"idle_time_limit\": 1.000,"));
    ck_assert_ptr_nonnull(strstr(c.data, "\n[1.350, \"o\", "));
    ck_assert_ptr_nonnull(
        strstr(c.data, "\n[3.750, \"o\", ")); /* untimed keys 0.5 s apart in the cast */
    body_free(&jb);
    body_free(&cb);
    content_free(f.c);
}
END_TEST

/* ---- the replay cache ------------------------------------------------------------------- */

static bodycache_entry_t *put(bodycache_t *c, bodycache_kind_t kind, int64_t id, int64_t v,
                              size_t len)
{
    buf_t gz;
    buf_init(&gz);
    for (size_t i = 0; i < len; i++)
        buf_putc(&gz, (char)('a' + i % 26));
    bodycache_key_t k = {kind, id, v, 0};
    bodycache_entry_t *e = bodycache_put(c, &k, &gz, len * 10);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_null(gz.data); /* taken */
    return e;
}

static bool has(bodycache_t *c, bodycache_kind_t kind, int64_t id, int64_t v)
{
    bodycache_key_t k = {kind, id, v, 0};
    bodycache_entry_t *e = bodycache_get(c, &k);
    bodycache_unref(e);
    return e != NULL;
}

/* Oldest out first past the byte cap; a newer size of a recording drops
 * the older; an entry still read outlives its eviction; one larger than
 * the cap is handed out, never kept. */
START_TEST(replay_cache_bounds_and_references)
{
    bodycache_t *c = bodycache_new(1000);
    bodycache_unref(put(c, BODYCACHE_GAME_CAST, 1, 0, 400));
    bodycache_unref(put(c, BODYCACHE_GAME_FRAMES, 1, 0, 400));
    ck_assert(has(c, BODYCACHE_GAME_CAST, 1, 0)); /* now the newest */
    bodycache_entry_t *held = put(c, BODYCACHE_HOSTED_CAST, 7, 3, 400);
    ck_assert_uint_eq(bodycache_count(c), 2);
    ck_assert_uint_le(bodycache_bytes(c), 1000);
    ck_assert(!has(c, BODYCACHE_GAME_FRAMES, 1, 0)); /* the oldest went */
    ck_assert(has(c, BODYCACHE_GAME_CAST, 1, 0));
    bodycache_unref(put(c, BODYCACHE_HOSTED_CAST, 7, 5, 100)); /* the recording grew */
    ck_assert(!has(c, BODYCACHE_HOSTED_CAST, 7, 3));
    ck_assert(has(c, BODYCACHE_HOSTED_CAST, 7, 5));
    ck_assert_uint_eq(held->gz_len, 400); /* still readable: freed by its last unref */
    ck_assert_int_eq(held->gz[399], 'a' + 399 % 26);
    bodycache_unref(held);
    bodycache_entry_t *big = put(c, BODYCACHE_GAME_CAST, 2, 0, 2000);
    ck_assert_uint_eq(big->len, 20000);
    ck_assert(!has(c, BODYCACHE_GAME_CAST, 2, 0));
    ck_assert_uint_le(bodycache_bytes(c), 1000);
    bodycache_unref(big);
    bodycache_entry_t *kept = put(c, BODYCACHE_GAME_CAST, 3, 0, 10);
    bodycache_free(c); /* a reader outlives the cache too */
    ck_assert_int_eq(kept->gz[0], 'a');
    bodycache_unref(kept);
    bodycache_t *none = bodycache_new(0); /* replay-cache = 0: nothing kept */
    bodycache_unref(put(none, BODYCACHE_GAME_CAST, 1, 0, 1));
    ck_assert(!has(none, BODYCACHE_GAME_CAST, 1, 0));
    bodycache_free(none);
}
END_TEST

/* Bodies let go of while read are held: evicted, replaced or too big,
 * their bytes count in bodycache_held until their last reader is done,
 * also when the cache is gone first. */
START_TEST(replay_cache_counts_bodies_held_by_readers)
{
    bodycache_t *c = bodycache_new(1000);
    bodycache_entry_t *a = put(c, BODYCACHE_HOSTED_CAST, 1, 0, 600);
    ck_assert_uint_eq(bodycache_held(c), 0); /* kept: the cache counts it */
    bodycache_entry_t *b = put(c, BODYCACHE_HOSTED_CAST, 2, 0, 600);
    ck_assert_uint_eq(bodycache_held(c), 600); /* a evicted, still read */
    bodycache_entry_t *big = put(c, BODYCACHE_GAME_FRAMES, 3, 0, 1500);
    ck_assert_uint_eq(bodycache_held(c), 2100);                       /* never kept, read */
    bodycache_entry_t *b2 = put(c, BODYCACHE_HOSTED_CAST, 2, 1, 100); /* b grew */
    ck_assert_uint_eq(bodycache_held(c), 2700);
    bodycache_unref(b2);
    bodycache_unref(put(c, BODYCACHE_GAME_CAST, 4, 0, 950)); /* b2 evicted, unread: freed */
    ck_assert_uint_eq(bodycache_count(c), 1);
    ck_assert_uint_eq(bodycache_held(c), 2700);
    bodycache_unref(a);
    ck_assert_uint_eq(bodycache_held(c), 2100);
    bodycache_unref(big);
    ck_assert_uint_eq(bodycache_held(c), 600);
    bodycache_entry_t *last = put(c, BODYCACHE_GAME_CAST, 5, 0, 2000);
    bodycache_free(c); /* readers outlive the cache */
    ck_assert_int_eq(b->gz[0], 'a');
    bodycache_unref(b);
    bodycache_unref(last);
}
END_TEST

/* Warren's replays cut at the body's cap: the frames end with
 * "truncated":true, the cast with its note; gzipped as made. */
START_TEST(replays_cut_at_the_cap)
{
    rfx_t f;
    rfx_open(&f, RKEYS);
    replay_input_t in = {f.c, 99, "zed", f.rows, f.n};
    char err[200];
    body_t j, c;
    ck_assert_int_eq(body_open(&j, 6000, false), 0);
    ck_assert_int_eq(body_open(&c, 6000, true), 0);
    ck_assert_int_eq(replay_frames_json(&in, NULL, &j, err, sizeof err), 0);
    ck_assert_int_eq(replay_asciicast(&in, NULL, 0.5, "t", &c, err, sizeof err), 0);
    ck_assert(j.cut && c.cut);
    buf_putc(&j.text, 0);
    ck_assert_uint_ge(j.text.len, 6000);
    ck_assert_uint_lt(j.text.len, 6000 + 8000); /* one more frame and its keyframe at most */
    ck_assert_msg(strstr(j.text.data, ",\"truncated\":true}\n"), "%s", j.text.data);
    ck_assert_ptr_null(strstr(j.text.data, "\"keys\":42,")); /* stopped before the end */
    ck_assert_uint_eq(c.text.len, 0);                        /* all gzipped */
    z_stream z = {0};
    char back[20000];
    ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)c.gz.data;
    z.avail_in = (uInt)c.gz.len;
    z.next_out = (Bytef *)back;
    z.avail_out = sizeof back - 1;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    back[z.total_out] = 0;
    inflateEnd(&z);
    ck_assert_msg(strstr(back, BODY_CUT_NOTE "\\r\\n\"]\n"), "%s", back);
    body_free(&j);
    body_free(&c);
    content_free(f.c);
}
END_TEST

/* ---- db_records ------------------------------------------------------------------------ */

typedef struct {
    char dir[64];
    uv_loop_t loop;
    db_t *db;
} dfx_t;

typedef struct {
    int status;
    size_t n;
    int64_t ids[16];
    db_player_totals_t t;
} got_t;

static void on_games(void *ud, int status, const db_game_t *g, size_t n)
{
    got_t *r = ud;
    r->status = status;
    r->n = n;
    for (size_t i = 0; i < n && i < 16; i++)
        r->ids[i] = g[i].id;
}

static void on_totals(void *ud, int status, const db_player_totals_t *t)
{
    got_t *r = ud;
    r->status = status;
    if (t)
        r->t = *t;
}

static int64_t finished_game(dfx_t *f, int64_t user, const char *race, const char *cls,
                             int64_t score, int64_t end_time, int64_t turns)
{
    db_game_new_t ng = {user, 1, "c1", race, cls, end_time - 10};
    int64_t id = db_game_create(f->db, &ng, NULL, NULL);
    db_game_end_t e = {end_time, turns, 2, 3, 1, score, "quit", "quit"};
    db_game_finish(f->db, id, &e, NULL, 0, "", 0, NULL, NULL);
    return id;
}

START_TEST(filtered_scores_totals_and_backlog)
{
    dfx_t f;
    snprintf(f.dir, sizeof f.dir, "/tmp/warren-rectest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f.dir));
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/w.db", f.dir);
    ck_assert_int_eq(uv_loop_init(&f.loop), 0);
    f.db = db_open(&f.loop, path, err, sizeof err);
    ck_assert_msg(f.db != NULL, "%s", err);
    db_user_create(f.db, "Ann", "ann", "h", 1, NULL, NULL);
    db_user_create(f.db, "Ben", "ben", "h", 1, NULL, NULL);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    int64_t a1 = finished_game(&f, 1, "elf", "mage", 50, 1000, 10);
    int64_t a2 = finished_game(&f, 1, "human", "fighter", 300, 5000, 30);
    int64_t b1 = finished_game(&f, 2, "elf", "fighter", 200, 6000, 20);
    db_game_new_t live = {1, 9, "c1", "elf", "mage", 7000};
    db_game_create(f.db, &live, NULL, NULL);
    db_game_set_verified(f.db, a2, 1, NULL, NULL);
    db_game_set_verified(f.db, b1, -1, NULL, NULL);
    got_t all = {0}, elves = {0}, recent = {0}, fighters = {0}, page2 = {0};
    db_scores_filtered(f.db, &(db_scores_filter_t){NULL, NULL, 0, 10, 0}, on_games, &all);
    db_scores_filtered(f.db, &(db_scores_filter_t){"ELF", "", 0, 10, 0}, on_games, &elves);
    db_scores_filtered(f.db, &(db_scores_filter_t){"", "", 4000, 10, 0}, on_games, &recent);
    db_scores_filtered(f.db, &(db_scores_filter_t){"elf", "Fighter", 0, 10, 0}, on_games,
                       &fighters);
    db_scores_filtered(f.db, &(db_scores_filter_t){"", "", 0, 1, 1}, on_games, &page2);
    got_t ta = {0}, tn = {0}, back = {0}, back2 = {0};
    db_player_totals(f.db, 1, on_totals, &ta);
    db_player_totals(f.db, 99, on_totals, &tn);
    db_games_unverified(f.db, 0, 10, on_games, &back);
    db_games_unverified(f.db, a1, 10, on_games, &back2);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(all.n, 3);
    ck_assert(all.ids[0] == a2 && all.ids[1] == b1 && all.ids[2] == a1);
    ck_assert(elves.n == 2 && elves.ids[0] == b1 && elves.ids[1] == a1);
    ck_assert(recent.n == 2 && recent.ids[0] == a2 && recent.ids[1] == b1);
    ck_assert(fighters.n == 1 && fighters.ids[0] == b1);
    ck_assert(page2.n == 1 && page2.ids[0] == b1);
    ck_assert_int_eq(ta.status, DB_OK);
    ck_assert_int_eq(ta.t.games, 3);
    ck_assert_int_eq(ta.t.finished, 2);
    ck_assert_int_eq(ta.t.live, 1);
    ck_assert_int_eq(ta.t.verified, 1);
    ck_assert_int_eq(ta.t.mismatched, 0);
    ck_assert_int_eq(ta.t.turns, 40);
    ck_assert_int_eq(ta.t.max_depth, 3);
    ck_assert_int_eq(ta.t.best_game, a2);
    ck_assert_int_eq(ta.t.best_score, 300);
    ck_assert_int_eq(ta.t.last_end, 5000);
    ck_assert_int_eq(tn.status, DB_OK);
    ck_assert_int_eq(tn.t.games, 0);
    ck_assert_int_eq(tn.t.best_game, 0);
    ck_assert(back.n == 1 && back.ids[0] == a1);
    ck_assert_uint_eq(back2.n, 0);
    db_close(f.db);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&f.loop), 0);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f.dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_server_records(void)
{
    Suite *s = suite_create("server.records");
    TCase *t = tcase_create("core");
    tcase_add_test(t, routes);
    tcase_add_test(t, players);
    tcase_add_test(t, score_filters);
    tcase_add_test(t, escaping);
    tcase_add_test(t, replay_matches_direct_play);
    tcase_add_test(t, replay_counts_keys_after_the_end_and_rejects_bad_journals);
    tcase_add_test(t, frames_json_and_asciicast);
    tcase_add_test(t, frame_times_follow_the_journal);
    tcase_add_test(t, replay_cache_bounds_and_references);
    tcase_add_test(t, replay_cache_counts_bodies_held_by_readers);
    tcase_add_test(t, replays_cut_at_the_cap);
    tcase_add_test(t, filtered_scores_totals_and_backlog);
    suite_add_tcase(s, t);
    return s;
}
