/* db_bench — what the store costs per operation, through db.h only: journal
 * appends (the one write every key makes) and single-row reads, on a real
 * SQLite file in a temporary directory, or the empty database DB names (a
 * postgresql:// URL too); with NODE, the appends fenced by that node's
 * game leases (db_lease_fence: several nodes on one PostgreSQL). The best
 * of five rounds.
 *
 *   db_bench [appends [DB [NODE]]]           (default 100000, a new SQLite file)
 *   BENCH db.append.per_s X appends/s        (queued in one burst, until the last ack)
 *   BENCH db.append.queue_ns X ns            (loop-thread cost of one db_journal_append call)
 *   BENCH db.append.paced_per_s X appends/s  (100 per loop turn, one commit per turn)
 *   BENCH db.read.per_s X reads/s            (db_game_get, 10,000 queued at once) */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include "db.h"

#define ROUNDS 5
#define READS  10000
#define PACE   100 /* appends per loop turn in the paced run */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
    uv_loop_t loop;
    db_t *db;
    int64_t game;
    long acked, failed;
} bench_t;

static void on_done(void *ud, int status, int64_t id)
{
    bench_t *b = ud;
    (void)id;
    b->acked++;
    b->failed += status != DB_OK;
}

static void on_game(void *ud, int status, const db_game_t *g)
{
    bench_t *b = ud;
    (void)g;
    b->acked++;
    b->failed += status != DB_OK;
}

static void expect_all(bench_t *b, long n, const char *what)
{
    if (b->acked != n || b->failed) {
        fprintf(stderr, "db_bench: %s: %ld of %ld acknowledged, %ld failed: %s\n", what, b->acked,
                n, b->failed, db_error(b->db));
        exit(1);
    }
}

/* A fresh game for a round, so its seqs start at 1. */
static int64_t new_game(bench_t *b, int64_t user)
{
    db_game_new_t g = {.user = user, .seed = 1, .content_version = "bench", .start_time = 1};
    b->acked = b->failed = 0;
    int64_t id = db_game_create(b->db, &g, on_done, b);
    uv_run(&b->loop, UV_RUN_DEFAULT);
    expect_all(b, 1, "game");
    db_game_mark_broken(b->db, id, "bench", NULL, NULL); /* frees the user's live slot */
    uv_run(&b->loop, UV_RUN_DEFAULT);
    return id;
}

/* Every append queued in one loop turn; returns the wall time to the last ack. */
static double burst(bench_t *b, long n, double *queue_s)
{
    uint8_t keys[4] = {'h', 'j', 'k', 'l'};
    b->acked = b->failed = 0;
    double t0 = now_s();
    for (long i = 0; i < n; i++)
        db_journal_append(b->db, b->game, i + 1, keys, 1 + (size_t)(i & 3), 40, on_done, b);
    *queue_s = now_s() - t0;
    uv_run(&b->loop, UV_RUN_DEFAULT);
    double t = now_s() - t0;
    expect_all(b, n, "burst");
    return t;
}

typedef struct {
    bench_t *b;
    long next, n;
} pace_t;

static void pace_turn(uv_idle_t *h)
{
    pace_t *p = h->data;
    uint8_t k = 'j';
    for (int i = 0; i < PACE && p->next < p->n; i++, p->next++)
        db_journal_append(p->b->db, p->b->game, p->next + 1, &k, 1, 40, on_done, p->b);
    if (p->next == p->n)
        uv_idle_stop(h);
}

/* PACE appends per loop turn, as keys from many sessions arrive. */
static double paced(bench_t *b, long n)
{
    pace_t p = {b, 0, n};
    uv_idle_t idle;
    uv_idle_init(&b->loop, &idle);
    idle.data = &p;
    b->acked = b->failed = 0;
    double t0 = now_s();
    uv_idle_start(&idle, pace_turn);
    uv_run(&b->loop, UV_RUN_DEFAULT);
    double t = now_s() - t0;
    uv_close((uv_handle_t *)&idle, NULL);
    uv_run(&b->loop, UV_RUN_DEFAULT);
    expect_all(b, n, "paced");
    return t;
}

static double reads(bench_t *b)
{
    b->acked = b->failed = 0;
    double t0 = now_s();
    for (int i = 0; i < READS; i++)
        db_game_get(b->db, b->game, on_game, b);
    uv_run(&b->loop, UV_RUN_DEFAULT);
    double t = now_s() - t0;
    expect_all(b, READS, "reads");
    return t;
}

int main(int argc, char **argv)
{
    /* Steady state, as in the daemon: freed memory stays for the next round
     * instead of going back to the kernel (page faults would swamp the
     * loop-side cost being measured). */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (n <= 0 || argc > 4) {
        fprintf(stderr, "usage: db_bench [appends [DB [NODE]]]\n");
        return 2;
    }
    char dir[] = "/tmp/warren-dbbench-XXXXXX", path[512], err[256];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s", argc > 2 ? argv[2] : "");
    if (!path[0])
        snprintf(path, sizeof path, "%s/bench.db", dir);
    bench_t b = {0};
    uv_loop_init(&b.loop);
    b.db = db_open(&b.loop, path, err, sizeof err);
    if (!b.db) {
        fprintf(stderr, "db_bench: %s\n", err);
        return 1;
    }
    if (argc > 3)
        db_lease_fence(b.db, argv[3], 60000);
    db_user_create(b.db, "bench", "bench", "$h", 1, on_done, &b);
    uv_run(&b.loop, UV_RUN_DEFAULT);
    expect_all(&b, 1, "user");
    double best_burst = 1e9, best_queue = 1e9, best_paced = 1e9, best_read = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        double q;
        b.game = new_game(&b, 1);
        double t = burst(&b, n, &q);
        best_burst = t < best_burst ? t : best_burst;
        best_queue = q < best_queue ? q : best_queue;
        b.game = new_game(&b, 1);
        t = paced(&b, n);
        best_paced = t < best_paced ? t : best_paced;
        t = reads(&b);
        best_read = t < best_read ? t : best_read;
    }
    printf("BENCH db.append.per_s %.0f appends/s\n", n / best_burst);
    printf("BENCH db.append.queue_ns %.0f ns\n", best_queue / n * 1e9);
    printf("BENCH db.append.paced_per_s %.0f appends/s\n", n / best_paced);
    printf("BENCH db.read.per_s %.0f reads/s\n", READS / best_read);
    db_close(b.db);
    uv_run(&b.loop, UV_RUN_DEFAULT);
    uv_loop_close(&b.loop);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
