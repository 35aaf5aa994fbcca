/* Unit tests: server/session's latest keyed — a mirror placed by its last
 * key (session_keyed_at) among sessions that keyed locally, by a walk of
 * SESSION_RECENCY_WALK at most: the lists' reading (session_each_recent,
 * then a sort by last key as the lobby and the watch list do) gives the
 * true latest keyed for every length asked, a mirror past the walk
 * included once in its place, and a millisecond's keys whole. */
#include <check.h>
#include <stdlib.h>
#include "server.h"
#include "session.h"

typedef struct {
    server_t srv;
    session_t *s; /* n sessions; s[i] keyed at base + i (s[n-1] newest) */
    size_t n;
} recent_t;

/* n sessions on a server's lists, keyed one a millisecond from base on. */
static recent_t *recent_new(size_t n, uint64_t base)
{
    recent_t *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    list_init(&r->srv.by_recency);
    list_init(&r->srv.recency_late);
    r->s = calloc(n, sizeof *r->s);
    ck_assert_ptr_nonnull(r->s);
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        r->s[i].srv = &r->srv;
        r->s[i].last_key_ms = base + i;
        list_push_front(&r->srv.by_recency, &r->s[i].rnode);
    }
    return r;
}

static void recent_free(recent_t *r)
{
    free(r->s);
    free(r);
}

typedef struct {
    session_t **v;
    size_t n, cap, over; /* over: offered past cap (none may be) */
} taken_t;

static bool take(void *ud, session_t *s)
{
    taken_t *t = ud;
    if (t->n < t->cap)
        t->v[t->n++] = s;
    else
        t->over++;
    return true;
}

static int newest_first(const void *a, const void *b)
{
    const session_t *x = *(session_t *const *)a, *y = *(session_t *const *)b;
    if (x->last_key_ms != y->last_key_ms)
        return x->last_key_ms > y->last_key_ms ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The first need of the server's latest keyed as a list reads them. */
static size_t latest(recent_t *r, size_t need, session_t **out)
{
    taken_t t = {malloc((r->n + 1) * sizeof *t.v), 0, r->n + 1, 0};
    ck_assert_ptr_nonnull(t.v);
    session_each_recent(&r->srv, need, take, &t);
    ck_assert_uint_eq(t.over, 0);
    qsort(t.v, t.n, sizeof *t.v, newest_first);
    size_t n = t.n < need ? t.n : need;
    for (size_t i = 0; i < n; i++)
        out[i] = t.v[i];
    free(t.v);
    return n;
}

/* Every length a list may ask for gives the true newest first: all of
 * the sessions (m among them) sorted. */
static void lists_true(recent_t *r, session_t *m, size_t all)
{
    session_t **want = malloc(all * sizeof *want), **got = malloc(all * sizeof *got);
    ck_assert(want && got);
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        want[k++] = &r->s[i];
    if (m)
        want[k++] = m;
    ck_assert_uint_eq(k, all);
    qsort(want, all, sizeof *want, newest_first);
    for (size_t need = 1; need <= all + 1; need += need < 300 ? 1 : 97) {
        size_t n = latest(r, need, got);
        ck_assert_uint_eq(n, need < all ? need : all);
        size_t i = 0;
        while (i < n && got[i] == want[i])
            i++;
        ck_assert_msg(i == n, "need %zu: row %zu differs", need, i);
    }
    free(want);
    free(got);
}

/* Fewer newer than the walk: placed in its place in by_recency. */
START_TEST(within_the_walk)
{
    recent_t *r = recent_new(600, 1000);
    session_t m = {.srv = &r->srv};
    list_init(&m.rnode);
    session_keyed_at(&m, 1000 + 600 - 100); /* 100 keyed since */
    ck_assert(list_empty(&r->srv.recency_late));
    lists_true(r, &m, 601);
    recent_free(r);
}
END_TEST

/* More newer than the walk: on recency_late, listed once in its place at
 * every length; keyed again, back at by_recency's front. */
START_TEST(past_the_walk)
{
    recent_t *r = recent_new(2000, 1000);
    session_t m = {.srv = &r->srv};
    list_init(&m.rnode);
    list_push_front(&r->srv.by_recency, &m.rnode); /* as session_new puts it */
    session_keyed_at(&m, 1000 + 2000 - SESSION_RECENCY_WALK - 50);
    ck_assert(!list_empty(&r->srv.recency_late));
    lists_true(r, &m, 2001);
    session_keyed_at(&m, 9000);
    ck_assert(list_empty(&r->srv.recency_late));
    ck_assert_ptr_eq(r->srv.by_recency.next, &m.rnode);
    lists_true(r, &m, 2001);
    recent_free(r);
}
END_TEST

/* Sessions keyed in one millisecond (one loop turn) are taken whole
 * where the length asked cuts them: a sort by name then agrees page to
 * page. */
START_TEST(a_millisecond_whole)
{
    recent_t *r = recent_new(50, 1000);
    for (size_t i = 10; i < 40; i++) /* 30 keyed at once, after the first 10 */
        r->s[i].last_key_ms = 5000;
    for (size_t i = 40; i < 50; i++)
        r->s[i].last_key_ms = 6000 + i;
    session_t **got = malloc(50 * sizeof *got);
    taken_t t = {got, 0, 50, 0};
    session_each_recent(&r->srv, 12, take, &t);
    ck_assert_uint_eq(t.n, 40); /* the 10 newer, and all 30 of the millisecond */
    free(got);
    lists_true(r, NULL, 50);
    recent_free(r);
}
END_TEST

Suite *suite_server_recency(void)
{
    Suite *s = suite_create("server_recency");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, within_the_walk);
    tcase_add_test(tc, past_the_walk);
    tcase_add_test(tc, a_millisecond_whole);
    suite_add_tcase(s, tc);
    return s;
}
