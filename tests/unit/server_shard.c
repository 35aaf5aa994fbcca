/* Unit tests: server/shard's mailboxes — posts from another thread run on
 * the receiving loop's thread, in the order posted, every one of them, what
 * was posted before a close still runs, and a closed mailbox refuses. Two
 * real libuv loops on two threads. */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include <uv.h>
#include "server.h"
#include "shard.h"

#define NPOSTS 20000

typedef struct {
    server_t a, b; /* a: the test's thread; b: the other loop's */
    uv_loop_t la, lb;
    uv_thread_t tb;
    uv_thread_t main_thread;
    intptr_t next_b, next_a; /* the seq each side expects next */
    int wrong_b, wrong_a;    /* out of order, wrong loop or wrong thread */
    int closed_runs;         /* posts run during b's close */
} pair_t;

static pair_t *P; /* the callbacks' test state: one test at a time */

static void on_a(server_t *on, void *ud)
{
    intptr_t seq = (intptr_t)ud;
    uv_thread_t self = uv_thread_self();
    P->wrong_a += on != &P->a || seq != P->next_a || !uv_thread_equal(&self, &P->main_thread);
    P->next_a = seq + 1;
}

static void on_b(server_t *on, void *ud)
{
    intptr_t seq = (intptr_t)ud;
    uv_thread_t self = uv_thread_self();
    P->wrong_b += on != &P->b || seq != P->next_b || !uv_thread_equal(&self, &P->tb);
    P->next_b = seq + 1;
    if (shard_post(&P->a, on_a, ud)) /* the echo home */
        P->wrong_b++;
}

static void close_b(server_t *on, void *ud)
{
    (void)ud;
    shard_mailbox_close(on); /* runs what is queued behind this post */
}

static void count_closed(server_t *on, void *ud)
{
    (void)on, (void)ud;
    P->closed_runs++;
}

static void run_b(void *arg)
{
    pair_t *p = arg;
    uv_run(&p->lb, UV_RUN_DEFAULT); /* until its mailbox closes */
}

static void pair_open(pair_t *p)
{
    memset(p, 0, sizeof *p);
    P = p;
    p->main_thread = uv_thread_self();
    ck_assert_int_eq(uv_loop_init(&p->la), 0);
    ck_assert_int_eq(uv_loop_init(&p->lb), 0);
    ck_assert_int_eq(server_init(&p->a, &p->la), 0);
    ck_assert_int_eq(server_init(&p->b, &p->lb), 0);
    ck_assert_int_eq(shard_mailbox_open(&p->a), 0);
    ck_assert_int_eq(shard_mailbox_open(&p->b), 0);
    ck_assert_int_eq(uv_thread_create(&p->tb, run_b, p), 0);
}

static void pair_close(pair_t *p)
{
    uv_thread_join(&p->tb);
    shard_mailbox_close(&p->a);
    uv_run(&p->la, UV_RUN_DEFAULT);
    shard_mailbox_free(&p->a);
    shard_mailbox_free(&p->b);
    server_bufs_free(&p->a);
    server_bufs_free(&p->b);
    ck_assert_int_eq(uv_loop_close(&p->la), 0);
    ck_assert_int_eq(uv_loop_close(&p->lb), 0);
}

/* 20,000 posts each way, while both loops run: all run, in order, each on
 * its own loop's thread. */
START_TEST(posts_run_in_order_on_their_loop)
{
    pair_t p;
    pair_open(&p);
    for (intptr_t i = 0; i < NPOSTS; i++)
        ck_assert_int_eq(shard_post(&p.b, on_b, (void *)i), 0);
    while (p.next_a < NPOSTS)
        uv_run(&p.la, UV_RUN_ONCE);
    ck_assert_int_eq(shard_post(&p.b, close_b, NULL), 0);
    pair_close(&p);
    ck_assert_int_eq(p.next_b, NPOSTS);
    ck_assert_int_eq(p.wrong_b, 0);
    ck_assert_int_eq(p.wrong_a, 0);
}
END_TEST

/* What was posted before the close runs; after it, posts are refused and
 * their function never runs. */
START_TEST(closed_mailbox_refuses)
{
    pair_t p;
    pair_open(&p);
    ck_assert_int_eq(shard_post(&p.b, close_b, NULL), 0);
    int queued = 0;
    while (shard_post(&p.b, count_closed, NULL) == 0) /* until the close took */
        queued++;
    pair_close(&p);
    ck_assert_int_eq(p.closed_runs, queued); /* each accepted post ran */
    ck_assert_int_eq(shard_post(&p.b, count_closed, NULL), -1);
    ck_assert_int_eq(p.closed_runs, queued);
}
END_TEST

Suite *suite_server_shard(void)
{
    Suite *s = suite_create("server_shard");
    TCase *t = tcase_create("mailbox");
    tcase_add_test(t, posts_run_in_order_on_their_loop);
    tcase_add_test(t, closed_mailbox_refuses);
    suite_add_tcase(s, t);
    return s;
}
