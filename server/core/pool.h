/* pool — libuv's thread pool, started and sized when the daemon starts.
 *
 * libuv makes its pool's threads at the first uv_queue_work and calls
 * abort() when it cannot make one. Left to chance, that first use comes
 * with the first detach snapshot or replay, perhaps when hosted programs
 * have used up the user's process limit: the whole daemon would die. So
 * the pool is started before anything else: its size is set
 * (UV_THREADPOOL_SIZE, POOL_THREADS unless the environment already gives
 * one), that many threads are made and joined once to learn that they
 * can be (a failure is a message, not an abort), then one no-op job makes
 * libuv start its threads. After that nothing in the daemon makes a
 * thread: the database's, the hashing queue's and the loops' are made in
 * server_open, and libuv never makes more. */
#ifndef WARREN_POOL_H
#define WARREN_POOL_H
#include <uv.h>

#define POOL_THREADS 4

/* Call first, before anything queues work on loop; runs loop until the
 * pool answers (nothing else may be on it yet). 0, or -1 logged. */
int pool_start(uv_loop_t *loop);

#endif
