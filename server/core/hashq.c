/* hashq — a fair, bounded job queue on low-priority threads; see hashq.h.
 *
 * Under the mutex: the lines (one per address with jobs waiting or
 * running), the two rings of lines with jobs waiting (clean first, then
 * suspect), and the list of finished jobs. A uv_async_t wakes the loop to
 * deliver finished jobs. */
#include "hashq.h"
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "list.h"

#define HASHQ_ADDR_MAX    64
#define HASHQ_NICE        19
#define HASHQ_FRESH_SHARE 4 /* a quarter of the queue only new, clean addresses may use */

typedef struct line {
    list_t node;    /* hashq_t.lines */
    list_t ring;    /* on a ring while jobs wait in it */
    list_t waiting; /* job_t.node */
    int count;      /* jobs waiting or running */
    bool suspect;
    char addr[HASHQ_ADDR_MAX];
} line_t;

typedef struct {
    list_t node; /* its line's waiting list, then hashq_t.finished */
    line_t *line;
    hashq_fn work, done;
    void *ud;
} job_t;

struct hashq {
    uv_loop_t *loop;
    uv_async_t wake;
    uv_mutex_t mu;
    uv_cond_t cv;
    uv_thread_t *threads;
    int nthreads;
    int max_jobs, per_addr;
    int jobs; /* waiting or running */
    bool stop;
    list_t lines;
    list_t rings[2]; /* 0: clean lines, 1: suspect lines */
    list_t finished;
};

/* ---- the lines (mutex held) ------------------------------------------------------ */

static line_t *line_find(const hashq_t *q, const char *addr)
{
    LIST_EACH (it, &q->lines) {
        line_t *l = LIST_ITEM(it, line_t, node);
        if (strcmp(l->addr, addr) == 0)
            return l;
    }
    return NULL;
}

/* The last HASHQ_FRESH_SHARE of the queue is kept for addresses with no
 * job in it and no failures: someone arriving in the middle of a storm
 * still gets in. */
static bool room_locked(const hashq_t *q, const char *addr, bool suspect)
{
    const line_t *l = line_find(q, addr);
    bool fresh = !l && !suspect;
    int cap = fresh ? q->max_jobs : q->max_jobs - q->max_jobs / HASHQ_FRESH_SHARE;
    return q->jobs < cap && (!l || l->count < q->per_addr);
}

/* The next job in turn, taken off its line; NULL when none waits. */
static job_t *take_next(hashq_t *q)
{
    for (int r = 0; r < 2; r++) {
        list_t *n = list_pop_front(&q->rings[r]);
        if (!n)
            continue;
        line_t *l = LIST_ITEM(n, line_t, ring);
        job_t *j = LIST_ITEM(list_pop_front(&l->waiting), job_t, node);
        if (!list_empty(&l->waiting))
            list_push_back(&q->rings[r], &l->ring); /* its next job waits a turn */
        return j;
    }
    return NULL;
}

/* A finished job leaves its line; a line with nothing left goes. */
static void line_done(hashq_t *q, job_t *j)
{
    line_t *l = j->line;
    q->jobs--;
    if (--l->count == 0) {
        list_remove(&l->node);
        free(l);
    }
}

/* ---- the threads ------------------------------------------------------------------- */

static void worker(void *arg)
{
    hashq_t *q = arg;
    /* the games come first: hashing takes what CPU they leave */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), HASHQ_NICE);
    uv_mutex_lock(&q->mu);
    while (!q->stop) {
        job_t *j = take_next(q);
        if (!j) {
            uv_cond_wait(&q->cv, &q->mu);
            continue;
        }
        uv_mutex_unlock(&q->mu);
        j->work(j->ud);
        uv_mutex_lock(&q->mu);
        list_push_back(&q->finished, &j->node);
        uv_async_send(&q->wake);
    }
    uv_mutex_unlock(&q->mu);
}

/* Delivers finished jobs (and with all, the ones never run). */
static void deliver(hashq_t *q, bool all)
{
    list_t done;
    list_init(&done);
    uv_mutex_lock(&q->mu);
    for (list_t *n; (n = list_pop_front(&q->finished));)
        list_push_back(&done, n);
    for (int r = 0; all && r < 2; r++)
        for (list_t *n; (n = list_pop_front(&q->rings[r]));) {
            line_t *l = LIST_ITEM(n, line_t, ring);
            for (list_t *m; (m = list_pop_front(&l->waiting));)
                list_push_back(&done, m);
        }
    uv_mutex_unlock(&q->mu);
    for (list_t *n; (n = list_pop_front(&done));) {
        job_t *j = LIST_ITEM(n, job_t, node);
        uv_mutex_lock(&q->mu);
        line_done(q, j);
        bool idle = q->jobs == 0;
        uv_mutex_unlock(&q->mu);
        if (idle)
            uv_unref((uv_handle_t *)&q->wake);
        j->done(j->ud);
        free(j);
    }
}

static void on_wake(uv_async_t *h)
{
    deliver(h->data, false);
}

/* ---- new, free, submit --------------------------------------------------------------- */

hashq_t *hashq_new(uv_loop_t *loop, int threads, int max_jobs, int per_addr)
{
    hashq_t *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->loop = loop;
    q->max_jobs = max_jobs > 0 ? max_jobs : 1;
    q->per_addr = per_addr > 0 ? per_addr : 1;
    list_init(&q->lines);
    list_init(&q->rings[0]);
    list_init(&q->rings[1]);
    list_init(&q->finished);
    q->threads = calloc((size_t)(threads > 0 ? threads : 1), sizeof *q->threads);
    if (!q->threads || uv_mutex_init(&q->mu)) {
        free(q->threads);
        free(q);
        return NULL;
    }
    uv_cond_init(&q->cv);
    if (uv_async_init(loop, &q->wake, on_wake)) { /* no descriptor for its wakeups */
        uv_cond_destroy(&q->cv);
        uv_mutex_destroy(&q->mu);
        free(q->threads);
        free(q);
        return NULL;
    }
    q->wake.data = q;
    uv_unref((uv_handle_t *)&q->wake); /* keeps the loop alive only while jobs are out */
    for (int i = 0; i < (threads > 0 ? threads : 1); i++) {
        if (uv_thread_create(&q->threads[i], worker, q) != 0)
            break;
        q->nthreads++;
    }
    if (q->nthreads == 0) {
        hashq_free(q);
        return NULL;
    }
    return q;
}

static void on_wake_closed(uv_handle_t *h)
{
    hashq_t *q = h->data;
    uv_cond_destroy(&q->cv);
    uv_mutex_destroy(&q->mu);
    free(q->threads);
    free(q);
}

void hashq_free(hashq_t *q)
{
    if (!q)
        return;
    uv_mutex_lock(&q->mu);
    q->stop = true;
    uv_cond_broadcast(&q->cv);
    uv_mutex_unlock(&q->mu);
    for (int i = 0; i < q->nthreads; i++)
        uv_thread_join(&q->threads[i]);
    deliver(q, true);
    uv_close((uv_handle_t *)&q->wake, on_wake_closed);
}

int hashq_submit(hashq_t *q, const char *addr, bool suspect, hashq_fn work, hashq_fn done, void *ud)
{
    job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    *j = (job_t){.work = work, .done = done, .ud = ud};
    uv_mutex_lock(&q->mu);
    line_t *l = line_find(q, addr);
    if (!room_locked(q, addr, suspect) || (!l && !(l = calloc(1, sizeof *l)))) {
        uv_mutex_unlock(&q->mu);
        free(j);
        return -1;
    }
    if (l->count == 0) { /* new */
        size_t n = strlen(addr);
        memcpy(l->addr, addr, n < sizeof l->addr ? n : sizeof l->addr - 1);
        list_init(&l->waiting);
        list_init(&l->ring);
        list_push_back(&q->lines, &l->node);
    }
    l->suspect = suspect;
    l->count++;
    q->jobs++;
    j->line = l;
    list_push_back(&l->waiting, &j->node);
    if (!list_linked(&l->ring))
        list_push_back(&q->rings[l->suspect], &l->ring);
    uv_cond_signal(&q->cv);
    uv_mutex_unlock(&q->mu);
    uv_ref((uv_handle_t *)&q->wake);
    return 0;
}

bool hashq_room(hashq_t *q, const char *addr, bool suspect)
{
    uv_mutex_lock(&q->mu);
    bool ok = room_locked(q, addr, suspect);
    uv_mutex_unlock(&q->mu);
    return ok;
}

int hashq_pending(hashq_t *q)
{
    uv_mutex_lock(&q->mu);
    int n = q->jobs;
    uv_mutex_unlock(&q->mu);
    return n;
}
