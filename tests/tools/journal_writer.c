/* journal_writer — the journal writer's statements in a loop, as db.c and
 * db_sqlite.c run them: the schema of db/schema.sql, n games (10,000) with
 * pre rows each (20), then rows more each, the games keying in another
 * order every round, r rows a commit (10) at rate rows a second (10,000;
 * 0: flat out), each row JOURNAL_PREV then JOURNAL_INSERT, WAL with
 * synchronous=NORMAL, a checkpointer thread beside it (PASSIVE when asked
 * at 1,000 WAL pages, at most every 100 ms; at 8,000 the writer itself).
 * Prints the writer thread's CPU per row, the checkpointer's and the
 * process's. Options page=, cache= (KB), mmap= (MB), sort=1 (a commit's
 * rows by game), noprev=1, values=1 (INSERT ... VALUES), multi=1 (a commit's
 * r rows in one INSERT ... VALUES of r rows, each row's JOURNAL_PREV first).
 * arrival=1: the other layout. New rows go to journal_new, a rowid table
 * in arrival order (a commit dirties a few shared pages); seq continuity
 * is the writer's own map of each game's last stored seq (no seek); every
 * move= rows (10,000) the writer moves them into journal in one
 * transaction (INSERT ... SELECT in arrival order, or by (game, seq) with
 * order=1, then DELETE). The moves run in the timed loop and their share
 * is printed; index=1 gives journal_new an index on (game, seq);
 * slices=S moves every move/S rows the rows of the next S-th of the games
 * (by id: their rows sit on neighbouring leaves), a shorter stall. Then
 * reads= (100) games are read from both parts, as a restore would, with
 * the rows still in journal_new (move=15000: 10,000 of them).
 * memstatus=0: SQLite keeps no memory statistics (SQLITE_CONFIG_MEMSTATUS).
 * Also printed: WAL frames a row (the wal hook's page counts).
 *   bin/tools/journal_writer /tmp/jw.db db/schema.sql rows=10 [page=2048 ...]
 * The measured loop is measure(): valgrind --tool=callgrind
 * --collect-atstart=no '--toggle-collect=measure*' counts its instructions. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *path;
static int N = 10000, P = 20, M = 20, R = 10, PAGE = 4096, CACHE = 0, SORT = 0, MMAP = 0,
           NOPREV = 0, VALUES = 0, RATE = 10000, ARRIVAL = 0, MOVE = 10000, ORDER = 0, READS = 100,
           INDEX = 0, SLICES = 1, MEMSTATUS = 1, MULTI = 0;
static sqlite3_stmt *multi_ins; /* multi=1: a commit's R rows in one INSERT */
static atomic_int wal_pages, stop, want;
static long long frames, last_pages;
static int ckpt_mark = 8000;
static void due(sqlite3 *h)
{
    int p = atomic_load(&wal_pages);
    if (p < 1000) {
        ckpt_mark = 8000;
        return;
    }
    if (p < ckpt_mark) {
        atomic_store(&want, 1);
        return;
    }
    if (sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) != SQLITE_BUSY)
        ckpt_mark = p + 1000;
}

static double cpu_us(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void ex(sqlite3 *h, const char *sql)
{
    char *e = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &e) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, e);
        exit(1);
    }
}

static int on_wal(void *ud, sqlite3 *h, const char *n, int pages)
{
    (void)ud, (void)h, (void)n;
    frames += pages >= last_pages ? pages - last_pages : pages;
    last_pages = pages;
    atomic_store(&wal_pages, pages);
    return SQLITE_OK;
}

static double ck_cpu;
static void *ckpt(void *arg)
{
    (void)arg;
    sqlite3 *h;
    sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    ex(h, "PRAGMA synchronous = NORMAL");
    while (!atomic_load(&stop)) {
        if (!atomic_exchange(&want, 0)) {
            usleep(1000);
            continue;
        }
        sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        usleep(100000);
    }
    ck_cpu = cpu_us(CLOCK_THREAD_CPUTIME_ID);
    sqlite3_close(h);
    return NULL;
}

static char *slurp(const char *f)
{
    FILE *fp = fopen(f, "r");
    if (!fp)
        exit(1);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

static int cmp64(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static sqlite3_stmt *prep(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v3(h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(h));
        exit(1);
    }
    return st;
}

static void step(sqlite3_stmt *st, int want)
{
    int r = sqlite3_step(st);
    if (r != want) {
        fprintf(stderr, "step %d: %s\n", r, sqlite3_errmsg(sqlite3_db_handle(st)));
        exit(1);
    }
    sqlite3_reset(st);
}

/* The arrival layout's parts: each game's last stored seq (the writer's
 * map, in place of JOURNAL_PREV), the move and its statements. */
static int *last_seq;
static sqlite3_stmt *move_ins, *move_del, *move_max;
static long long moved_rows, moves;
static double move_us, move_max_us;
static int slice;

static void move_rows(void)
{
    double t0 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
    sqlite3 *h = sqlite3_db_handle(move_ins);
    ex(h, "BEGIN");
    if (sqlite3_step(move_max) != SQLITE_ROW)
        exit(1);
    long long top = sqlite3_column_int64(move_max, 0);
    sqlite3_reset(move_max);
    long long lo = (long long)slice * N / SLICES + 1, hi = (long long)(slice + 1) * N / SLICES + 1;
    slice = (slice + 1) % SLICES;
    sqlite3_bind_int64(move_ins, 1, top);
    sqlite3_bind_int64(move_ins, 2, lo);
    sqlite3_bind_int64(move_ins, 3, hi);
    step(move_ins, SQLITE_DONE);
    moved_rows += sqlite3_changes(h);
    sqlite3_bind_int64(move_del, 1, top);
    sqlite3_bind_int64(move_del, 2, lo);
    sqlite3_bind_int64(move_del, 3, hi);
    step(move_del, SQLITE_DONE);
    ex(h, "COMMIT");
    moves++;
    double us = cpu_us(CLOCK_THREAD_CPUTIME_ID) - t0;
    move_us += us;
    if (us > move_max_us)
        move_max_us = us;
}

static long long __attribute__((noinline))
measure(sqlite3 *h, sqlite3_stmt *prev, sqlite3_stmt *ins, sqlite3_stmt *begin,
        sqlite3_stmt *commit, long long *order, long long *batch, long long *commitsp)
{
    (void)h;
    long long since_move = 0;
    unsigned char key[2] = {'h', 0};
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long long rows = 0, commits = 0;
    for (int s = P + 1; s <= P + M; s++) {
        for (int i = N - 1; i > 0; i--) { /* each second the games key in another order */
            int j = rand() % (i + 1);
            long long t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < N; i += R) {
            int n = i + R <= N ? R : N - i;
            memcpy(batch, order + i, sizeof *batch * n);
            if (SORT)
                qsort(batch, n, sizeof *batch, cmp64);
            step(begin, SQLITE_DONE);
            for (int k = 0; k < n; k++) {
                if (ARRIVAL) {
                    if (last_seq[batch[k]] != s - 1) {
                        fprintf(stderr, "gap: game %lld seq %d\n", batch[k], s);
                        exit(1);
                    }
                } else if (!NOPREV) {
                    sqlite3_bind_int64(prev, 1, batch[k]);
                    sqlite3_bind_int64(prev, 2, s);
                    step(prev, SQLITE_ROW);
                }
                if (MULTI && n == R) {
                    sqlite3_bind_int64(multi_ins, 4 * k + 1, batch[k]);
                    sqlite3_bind_int64(multi_ins, 4 * k + 2, s);
                    sqlite3_bind_blob(multi_ins, 4 * k + 3, key, 1, SQLITE_STATIC);
                    sqlite3_bind_int64(multi_ins, 4 * k + 4, 1000);
                    rows++;
                    continue;
                }
                sqlite3_bind_int64(ins, 1, batch[k]);
                sqlite3_bind_int64(ins, 2, s);
                sqlite3_bind_blob(ins, 3, key, 1, SQLITE_STATIC);
                sqlite3_bind_int64(ins, 4, 1000);
                step(ins, SQLITE_DONE);
                rows++;
            }
            if (MULTI && n == R)
                step(multi_ins, SQLITE_DONE);
            step(commit, SQLITE_DONE);
            commits++;
            if (ARRIVAL) {
                for (int k = 0; k < n; k++) /* stored: the map moves on only now */
                    last_seq[batch[k]] = s;
                since_move += n;
                if (since_move >= MOVE / SLICES) {
                    move_rows();
                    since_move = 0;
                }
            }
            due(h);
            if (RATE) {
                next.tv_nsec += 1000000000LL * R / RATE;
                while (next.tv_nsec >= 1000000000L) {
                    next.tv_nsec -= 1000000000L;
                    next.tv_sec++;
                }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            }
        }
    }
    *commitsp = commits;
    return rows;
}

/* A restore's read: one game's rows after seq 0 from both parts, as
 * JOURNAL_AFTER would read them (journal_new has no index: a scan). */
static void read_games(sqlite3 *h, const long long *order)
{
    sqlite3_stmt *rd =
        prep(h, ARRIVAL ? "SELECT seq, keys, ms FROM journal WHERE game = ?1 AND seq > ?2 "
                          "UNION ALL SELECT seq, keys, ms FROM journal_new WHERE game = ?1 AND "
                          "seq > ?2 ORDER BY seq"
                        : "SELECT seq, keys, ms FROM journal WHERE game = ?1 AND seq > ?2 "
                          "ORDER BY seq");
    sqlite3_stmt *cnt = prep(h, "SELECT count(*) FROM journal_new");
    if (sqlite3_step(cnt) != SQLITE_ROW)
        exit(1);
    long long pending = sqlite3_column_int64(cnt, 0);
    sqlite3_finalize(cnt);
    double t0 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
    long long got = 0;
    for (int i = 0; i < READS && i < N; i++) {
        sqlite3_bind_int64(rd, 1, order[i]);
        sqlite3_bind_int64(rd, 2, 0);
        int r;
        long long want = 1;
        while ((r = sqlite3_step(rd)) == SQLITE_ROW) {
            if (sqlite3_column_int64(rd, 0) != want++) {
                fprintf(stderr, "read: game %lld out of order\n", order[i]);
                exit(1);
            }
            got++;
        }
        if (r != SQLITE_DONE || want != P + M + 1) {
            fprintf(stderr, "read: game %lld has %lld rows\n", order[i], want - 1);
            exit(1);
        }
        sqlite3_reset(rd);
    }
    double t1 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
    if (READS)
        printf("reads: %d games, %lld rows, %.1f us a game (%lld rows in journal_new)\n",
               READS < N ? READS : N, got, (t1 - t0) / (READS < N ? READS : N), pending);
    sqlite3_finalize(rd);
}

static const struct {
    const char *name;
    int *v;
} opts[] = {
    {"n", &N},           {"pre", &P},         {"rows", &M},
    {"r", &R},           {"page", &PAGE},     {"cache", &CACHE},
    {"sort", &SORT},     {"mmap", &MMAP},     {"noprev", &NOPREV},
    {"values", &VALUES}, {"rate", &RATE},     {"arrival", &ARRIVAL},
    {"move", &MOVE},     {"order", &ORDER},   {"reads", &READS},
    {"index", &INDEX},   {"slices", &SLICES}, {"memstatus", &MEMSTATUS},
    {"multi", &MULTI},
};

int main(int argc, char **argv)
{
    path = argv[1];
    const char *schema = argv[2];
    for (int i = 3; i < argc; i++) {
        int v = 0;
        char k[32];
        if (sscanf(argv[i], "%31[^=]=%d", k, &v) != 2) {
            fprintf(stderr, "journal_writer: %s is not name=number\n", argv[i]);
            return 2;
        }
        int *p = NULL;
        for (size_t o = 0; o < sizeof opts / sizeof *opts; o++)
            if (!strcmp(k, opts[o].name))
                p = opts[o].v;
        if (!p) {
            fprintf(stderr, "journal_writer: no option %s\n", k);
            return 2;
        }
        *p = v;
    }
    unlink(path);
    char w[512];
    snprintf(w, sizeof w, "%s-wal", path);
    unlink(w);
    snprintf(w, sizeof w, "%s-shm", path);
    unlink(w);
    if (!MEMSTATUS)
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3 *h;
    sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                    NULL);
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA page_size = %d", PAGE);
    ex(h, sql);
    ex(h, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
    if (CACHE) {
        snprintf(sql, sizeof sql, "PRAGMA cache_size = -%d", CACHE);
        ex(h, sql);
    }
    if (MMAP) {
        snprintf(sql, sizeof sql, "PRAGMA mmap_size = %d", MMAP * 1048576);
        ex(h, sql);
    }
    sqlite3_wal_hook(h, on_wal, NULL);
    ex(h, slurp(schema));
    ex(h, "CREATE TABLE journal_new (game INTEGER NOT NULL, seq INTEGER NOT NULL, "
          "keys BLOB NOT NULL, ms INTEGER NOT NULL DEFAULT -1)");
    if (INDEX)
        ex(h, "CREATE INDEX journal_new_game ON journal_new(game, seq)");
    ex(h, "BEGIN");
    sqlite3_stmt *u =
        prep(h, "INSERT INTO users(name, name_key, pwhash, created) VALUES(?1, ?1, 'x', 0)");
    sqlite3_stmt *g = prep(h, "INSERT INTO games(user, seed, content_version, start_time) "
                              "VALUES(?1, 1, 'v', 0)");
    for (int i = 0; i < N; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "u%d", i);
        sqlite3_bind_text(u, 1, nm, -1, SQLITE_TRANSIENT);
        step(u, SQLITE_DONE);
        sqlite3_bind_int64(g, 1, sqlite3_last_insert_rowid(h));
        step(g, SQLITE_DONE);
    }
    ex(h, "COMMIT");
    sqlite3_stmt *prev = prep(h, "SELECT 1 FROM journal WHERE game = ?1 AND seq = ?2 - 1");
    sqlite3_stmt *ins =
        prep(h, VALUES ? "INSERT INTO journal(game, seq, keys, ms) VALUES (?1, ?2, ?3, ?4)"
                       : "INSERT INTO journal(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4");
    sqlite3_stmt *begin = prep(h, "BEGIN"), *commit = prep(h, "COMMIT");
    if (MULTI) {
        char *m = malloc(64 + 24 * (size_t)R);
        strcpy(m, "INSERT INTO journal(game, seq, keys, ms) VALUES ");
        for (int k = 0; k < R; k++)
            strcat(m, k ? ", (?, ?, ?, ?)" : "(?, ?, ?, ?)");
        multi_ins = prep(h, m);
        free(m);
    }
    sqlite3_stmt *ins_new =
        prep(h, VALUES ? "INSERT INTO journal_new(game, seq, keys, ms) VALUES (?1, ?2, ?3, ?4)"
                       : "INSERT INTO journal_new(game, seq, keys, ms) SELECT ?1, ?2, ?3, ?4");
    move_ins = prep(h, ORDER ? "INSERT INTO journal(game, seq, keys, ms) SELECT game, seq, "
                               "keys, ms FROM journal_new WHERE rowid <= ?1 AND game >= ?2 AND "
                               "game < ?3 ORDER BY game, seq"
                             : "INSERT INTO journal(game, seq, keys, ms) SELECT game, seq, "
                               "keys, ms FROM journal_new WHERE rowid <= ?1 AND game >= ?2 AND "
                               "game < ?3");
    move_del = prep(h, "DELETE FROM journal_new WHERE rowid <= ?1 AND game >= ?2 AND game < ?3");
    move_max = prep(h, "SELECT coalesce(max(rowid), 0) FROM journal_new");
    last_seq = calloc(N + 1, sizeof *last_seq);
    long long *order = malloc(sizeof *order * N), *batch = malloc(sizeof *batch * R);
    for (int i = 0; i < N; i++)
        order[i] = i + 1;
    srand(1);
    unsigned char key[2] = {'h', 0};
    /* preload, not timed: each game P rows, games in turn */
    for (int s = 1; s <= P; s++) {
        ex(h, "BEGIN");
        for (int i = 0; i < N; i++) {
            sqlite3_bind_int64(ins, 1, order[i]);
            sqlite3_bind_int64(ins, 2, s);
            sqlite3_bind_blob(ins, 3, key, 1, SQLITE_STATIC);
            sqlite3_bind_int64(ins, 4, 1000);
            step(ins, SQLITE_DONE);
            last_seq[order[i]] = s;
        }
        ex(h, "COMMIT");
    }
    ex(h, "PRAGMA wal_checkpoint(TRUNCATE)");
    pthread_t ct;
    pthread_create(&ct, NULL, ckpt, NULL);
    double t0 = cpu_us(CLOCK_THREAD_CPUTIME_ID), p0 = cpu_us(CLOCK_PROCESS_CPUTIME_ID);
    long long commits = 0;
    fprintf(stderr, "start\n");
    long long f0 = frames;
    long long rows =
        measure(h, prev, ARRIVAL ? ins_new : ins, begin, commit, order, batch, &commits);
    double t1 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
    long long f1 = frames;
    atomic_store(&stop, 1);
    pthread_join(ct, NULL);
    double p1 = cpu_us(CLOCK_PROCESS_CPUTIME_ID);
    printf("page=%d cache=%d sort=%d mmap=%d noprev=%d values=%d r=%d arrival=%d move=%d "
           "order=%d index=%d slices=%d: writer %.2f us/row (moves %.2f of it, %lld moves of %lld "
           "rows, the longest %.1f ms), "
           "checkpointer %.2f us/row, process %.2f us/row, WAL frames %.3f a row (%lld rows, "
           "%lld commits)\n",
           PAGE, CACHE, SORT, MMAP, NOPREV, VALUES, R, ARRIVAL, ARRIVAL ? MOVE : 0, ORDER, INDEX,
           SLICES, (t1 - t0) / rows, move_us / rows, moves, moved_rows, move_max_us / 1000,
           ck_cpu / rows, (p1 - p0) / rows, (double)(f1 - f0) / rows, rows, commits);
    read_games(h, order);
    free(order);
    free(batch);
    free(last_seq);
    return 0;
}
