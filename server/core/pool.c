/* pool — libuv's thread pool started at start-up (pool.h). */
#include "pool.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"

#define POOL_MAX        1024       /* libuv's own bound on UV_THREADPOOL_SIZE */
#define POOL_STACK_SIZE (8u << 20) /* what libuv 1.44 gives each pool thread */

/* The size libuv will read: the environment's, else POOL_THREADS (set). */
static int pool_size(void)
{
    const char *v = getenv("UV_THREADPOOL_SIZE");
    if (!v || !*v) {
        char n[16];
        snprintf(n, sizeof n, "%d", POOL_THREADS);
        setenv("UV_THREADPOOL_SIZE", n, 1);
        return POOL_THREADS;
    }
    int n = atoi(v); /* as libuv reads it */
    return n < 1 ? 1 : n > POOL_MAX ? POOL_MAX : n;
}

typedef struct {
    uv_mutex_t mu;
    uv_cond_t cv;
    bool go;
} gate_t;

static void probe_main(void *arg)
{
    gate_t *g = arg;
    uv_mutex_lock(&g->mu);
    while (!g->go)
        uv_cond_wait(&g->cv, &g->mu);
    uv_mutex_unlock(&g->mu);
}

/* Makes n threads like libuv's, all alive at once, then lets them end:
 * 0, or the error of the first that could not be made. */
static int pool_probe(int n)
{
    uv_thread_t *t = calloc((size_t)n, sizeof *t);
    gate_t g = {.go = false};
    if (!t || uv_mutex_init(&g.mu)) {
        free(t);
        return UV_ENOMEM;
    }
    uv_cond_init(&g.cv);
    uv_thread_options_t opt = {UV_THREAD_HAS_STACK_SIZE, POOL_STACK_SIZE};
    int made = 0, err = 0;
    while (made < n && !(err = uv_thread_create_ex(&t[made], &opt, probe_main, &g)))
        made++;
    uv_mutex_lock(&g.mu);
    g.go = true;
    uv_cond_broadcast(&g.cv);
    uv_mutex_unlock(&g.mu);
    for (int i = 0; i < made; i++)
        uv_thread_join(&t[i]);
    uv_cond_destroy(&g.cv);
    uv_mutex_destroy(&g.mu);
    free(t);
    return err;
}

static void noop_work(uv_work_t *w)
{
    (void)w;
}

static void noop_done(uv_work_t *w, int status)
{
    (void)status;
    *(bool *)w->data = true;
}

int pool_start(uv_loop_t *loop)
{
    int n = pool_size();
    int err = pool_probe(n);
    if (err) {
        log_error("thread pool: cannot make %d threads (%s): is the process limit too low?", n,
                  uv_strerror(err));
        return -1;
    }
    bool done = false;
    uv_work_t w = {.data = &done};
    if ((err = uv_queue_work(loop, &w, noop_work, noop_done))) {
        log_error("thread pool: %s", uv_strerror(err));
        return -1;
    }
    while (!done)
        uv_run(loop, UV_RUN_ONCE);
    log_info("thread pool: %d threads", n);
    return 0;
}
