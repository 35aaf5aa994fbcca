/* hostclose: the closes here of an account's hosted games, each waiting
 * on home's loop (a real libuv loop and its timers) until none of its
 * games runs and their last copies are stored. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "hostclose.h"
#include "peer.h"
#include "server.h"

typedef struct {
    int done, not_done;
} counts_t;

static void count(void *ud, bool done)
{
    counts_t *n = ud;
    if (done)
        n->done++;
    else
        n->not_done++;
}

/* One loop as its own home, a listener for other nodes on (hostclose
 * reads only whether there is one), a last copy of account 7's hosted
 * game on its way. */
static void home_open(server_t *home, uv_loop_t *loop, peer_hosted_t *copy)
{
    memset(home, 0, sizeof *home);
    ck_assert_int_eq(uv_loop_init(loop), 0);
    home->loop = loop;
    hmap_init(&home->sess_by_user);
    list_init(&home->hostcopies.games);
    home->lease.notify = (struct notify *)home;
    *copy = (peer_hosted_t){.game = 3, .user = 7};
    list_push_back(&home->hostcopies.games, &copy->node);
}

static void home_close(server_t *home, uv_loop_t *loop)
{
    hostclose_stop(home);
    uv_run(loop, UV_RUN_DEFAULT); /* the timers closed */
    ck_assert_int_eq(uv_loop_close(loop), 0);
    hmap_fini(&home->sess_by_user);
}

/* A flood of asks (a hostile or looping node's hclose events): past
 * HOSTCLOSE_HERES the closes are answered not done at once, none waits
 * (no list or timer grows); those waiting are done once the copy is. */
START_TEST(closes_waiting_at_once_are_capped)
{
    static server_t home;
    static uv_loop_t loop;
    peer_hosted_t copy;
    home_open(&home, &loop, &copy);
    counts_t n = {0};
    for (int i = 0; i < HOSTCLOSE_HERES + 40; i++)
        hostclose_here(&home, 7, count, &n);
    ck_assert_int_eq(n.done, 0);
    ck_assert_int_eq(n.not_done, 40);
    list_remove(&copy.node); /* the last copy stored */
    while (n.done < HOSTCLOSE_HERES)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_int_eq(n.not_done, 40);
    list_push_back(&home.hostcopies.games, &copy.node);
    hostclose_here(&home, 7, count, &n); /* their places free again */
    ck_assert_int_eq(n.not_done, 40);
    home_close(&home, &loop);
    ck_assert_int_eq(n.not_done, 41); /* the stop answers the one waiting */
}
END_TEST

/* The log (stderr) into a file, its lines counted back (the test forked). */
static FILE *capture(void)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(dup2(fileno(f), 2), 0);
    return f;
}

static int lines_in(FILE *f)
{
    fflush(stderr);
    rewind(f);
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    return n;
}

/* A flood of asks past HOSTCLOSE_HERES writes one line within the
 * minute, not one per ask (a hostile node cannot fill the disk). */
START_TEST(a_flood_of_closes_past_the_cap_logs_a_bounded_number_of_lines)
{
    static server_t home;
    static uv_loop_t loop;
    peer_hosted_t copy;
    home_open(&home, &loop, &copy);
    counts_t n = {0};
    FILE *f = capture();
    for (int i = 0; i < HOSTCLOSE_HERES + 10000; i++)
        hostclose_here(&home, 7, count, &n);
    ck_assert_int_eq(n.not_done, 10000);
    ck_assert_int_eq(lines_in(f), 1);
    home_close(&home, &loop);
    ck_assert_int_eq(n.not_done, 10000 + HOSTCLOSE_HERES);
}
END_TEST

Suite *suite_server_hostclose(void)
{
    Suite *s = suite_create("server_hostclose");
    TCase *t = tcase_create("hostclose");
    tcase_add_test(t, closes_waiting_at_once_are_capped);
    tcase_add_test(t, a_flood_of_closes_past_the_cap_logs_a_bounded_number_of_lines);
    suite_add_tcase(s, t);
    return s;
}
