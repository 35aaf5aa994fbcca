/* Unit tests: server/hashq — the password hashing queue: lines served in
 * turn, suspect addresses last, the bounds, done on the loop, and free
 * with jobs still waiting. Real threads, real libuv loop. */
#include <check.h>
#include <stdatomic.h>
#include <string.h>
#include <uv.h>
#include "hashq.h"

typedef struct {
    char order[32]; /* job names in the order they ran */
    int ran;
    atomic_int gate; /* the first job waits until it opens */
    int done;
    uv_thread_t loop_thread;
    int done_off_loop;
} log_t;

typedef struct {
    log_t *log;
    char name;
} job_t;

static void work(void *p)
{
    job_t *j = p;
    while (!atomic_load(&j->log->gate))
        uv_sleep(1);
    j->log->order[j->log->ran++] = j->name; /* one thread: no race */
}

static void done(void *p)
{
    job_t *j = p;
    uv_thread_t self = uv_thread_self();
    j->log->done++;
    j->log->done_off_loop += !uv_thread_equal(&self, &j->log->loop_thread);
}

/* With one thread held on a first job, the rest queue up: clean lines in
 * turn, then the suspect line, each line in its own order. */
START_TEST(round_robin_clean_first)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    log_t log = {0};
    log.loop_thread = uv_thread_self();
    hashq_t *q = hashq_new(&loop, 1, 64, 4);
    ck_assert_ptr_nonnull(q);
    job_t jobs[] = {{&log, '0'}, {&log, 'a'}, {&log, 'b'}, {&log, 'c'}, {&log, 'x'},
                    {&log, 'y'}, {&log, 'z'}, {&log, 'B'}, {&log, 'C'}};
    const char *addr[] = {"w", "s", "s", "s", "1", "1", "1", "2", "2"};
    const bool suspect[] = {false, true, true, true, false, false, false, false, false};
    ck_assert_int_eq(hashq_submit(q, addr[0], suspect[0], work, done, &jobs[0]), 0);
    uv_sleep(20); /* the thread takes job 0 and waits at the gate (taken later: the same order) */
    for (int i = 1; i < 9; i++)
        ck_assert_int_eq(hashq_submit(q, addr[i], suspect[i], work, done, &jobs[i]), 0);
    ck_assert_int_eq(hashq_pending(q), 9);
    atomic_store(&log.gate, 1);
    while (log.done < 9)
        uv_run(&loop, UV_RUN_ONCE);
    ck_assert_str_eq(log.order, "0xByCzabc");
    ck_assert_int_eq(log.done_off_loop, 0);
    ck_assert_int_eq(hashq_pending(q), 0);
    hashq_free(q);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static void open_gate_later(void *p)
{
    uv_sleep(100);
    atomic_store(&((log_t *)p)->gate, 1);
}

START_TEST(bounded_per_address_and_in_all)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    log_t log = {0};
    log.loop_thread = uv_thread_self();
    hashq_t *q = hashq_new(&loop, 1, 5, 2);
    job_t j[8];
    for (int i = 0; i < 8; i++)
        j[i] = (job_t){&log, (char)('a' + i)};
    ck_assert_int_eq(hashq_submit(q, "A", false, work, done, &j[0]), 0);
    ck_assert_int_eq(hashq_submit(q, "A", false, work, done, &j[1]), 0);
    ck_assert(!hashq_room(q, "A", false));
    ck_assert_int_eq(hashq_submit(q, "A", false, work, done, &j[2]), -1); /* per address */
    ck_assert(hashq_room(q, "B", false));
    ck_assert_int_eq(hashq_submit(q, "B", false, work, done, &j[3]), 0);
    ck_assert_int_eq(hashq_submit(q, "C", false, work, done, &j[4]), 0);
    ck_assert_int_eq(hashq_submit(q, "D", false, work, done, &j[5]), 0);
    ck_assert_int_eq(hashq_submit(q, "E", false, work, done, &j[6]), -1); /* in all */
    ck_assert_int_eq(hashq_pending(q), 5);
    /* freed with everything waiting: a job in hand finishes (the gate opens
     * a moment later), the rest never run; done comes for each */
    uv_thread_t opener;
    uv_thread_create(&opener, open_gate_later, &log);
    hashq_free(q);
    uv_thread_join(&opener);
    ck_assert_int_eq(log.done, 5);
    ck_assert_int_le(log.ran, 1); /* the thread may not have picked one yet */
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* The last quarter of the queue is for newcomers: addresses with no job
 * in it and no failures. */
START_TEST(room_kept_for_newcomers)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    log_t log = {0};
    log.loop_thread = uv_thread_self();
    hashq_t *q = hashq_new(&loop, 1, 8, 8);
    job_t j[9];
    for (int i = 0; i < 9; i++)
        j[i] = (job_t){&log, (char)('a' + i)};
    for (int i = 0; i < 6; i++) /* two lines, three jobs each */
        ck_assert_int_eq(hashq_submit(q, i % 2 ? "s1" : "s2", true, work, done, &j[i]), 0);
    ck_assert(!hashq_room(q, "s1", true)); /* in the queue already */
    ck_assert(!hashq_room(q, "s3", true)); /* suspect */
    ck_assert_int_eq(hashq_submit(q, "s1", false, work, done, &j[6]), -1);
    ck_assert(hashq_room(q, "fresh", false));
    ck_assert_int_eq(hashq_submit(q, "fresh", false, work, done, &j[6]), 0);
    ck_assert_int_eq(hashq_submit(q, "fresh2", false, work, done, &j[7]), 0);
    ck_assert(!hashq_room(q, "fresh3", false)); /* 8: full for everyone */
    atomic_store(&log.gate, 1);
    while (log.done < 8)
        uv_run(&loop, UV_RUN_ONCE);
    /* the newcomers jumped the queue: right after whatever was in hand */
    const char *gh = strstr(log.order, "gh");
    ck_assert_ptr_nonnull(gh);
    ck_assert_int_le((int)(gh - log.order), 1);
    hashq_free(q);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *suite_server_hashq(void)
{
    Suite *s = suite_create("server_hashq");
    TCase *t = tcase_create("hashq");
    tcase_add_test(t, round_robin_clean_first);
    tcase_add_test(t, bounded_per_address_and_in_all);
    tcase_add_test(t, room_kept_for_newcomers);
    suite_add_tcase(s, t);
    return s;
}
