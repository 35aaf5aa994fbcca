/* rbuild — the answer to a request for a replay body (the frames or the
 * asciicast of a Warren game or of a hosted recording), once its row has
 * been read: from the cache (bodycache.h) when that body is there
 * ("x-warren-cache: hit"); else the request waits for the build of that
 * body already under way, or a new one (records' replay jobs: read and
 * work as the caller gives them, work writing b->body on the thread pool)
 * and every request that waited for it is answered from the one result,
 * which the cache keeps ("x-warren-cache: miss").
 *
 * Answers never copy the body: a client that takes gzip gets the cached
 * gzip as it is, one that does not gets it inflated a piece at a time as
 * it reads (web_reply_source). A build about to start, or to go on with
 * its next round (a hosted recording is read a few chunks a round), lets
 * go of the requests whose clients have gone and, with none left, stops
 * there; a busy queue answers 503 with Retry-After (records.h).
 *
 * Bodies the cache let go of (evicted, or too big to keep) live on while
 * their clients read them, however slowly: while they hold more than
 * held_max (replay-cache, or replay-max without a cache), a body not in
 * the cache and not being built is not built but answered 503 with
 * Retry-After, so slow readers of many bodies cannot grow the daemon;
 * and one address is sent at most RECORDS_READERS_PER_ADDR bodies at
 * once (more: 503), so one client cannot hold all of that room. Nor can
 * it keep the build threads to itself (asking for a live recording again
 * and again, each new size a build of its own): a build is charged to the
 * address that started it, and one address starts at most
 * RECORDS_BUILDS_PER_ADDR builds that are running or waiting (more: 503
 * with Retry-After); waiting for a build already under way is free.
 *
 * Loop thread only, but for what work touches: b's producer fields. Not a
 * contract outside server/records/. */
#ifndef WARREN_RBUILD_H
#define WARREN_RBUILD_H
#include "body.h"
#include "pages_impl.h"
#include "bodycache.h"
#include "records.h"

typedef struct rbuild rbuild_t;
struct rbuild {
    /* read-only once started */
    bodycache_key_t key;
    server_t *srv;
    bool cast;               /* the asciicast, else the frames */
    char title[256];         /* the cast's */
    db_hosted_game_t hosted; /* a hosted recording's row, as read first */
    /* the producer's (read and work), freed with the build */
    body_t body; /* opened before work first runs: at most replay-max */
    void *state; /* anything more it keeps between rounds */
    void (*state_free)(void *state);
    int status; /* work's failure: an HTTP status, and err */
    char err[200];
    /* private */
    list_t node;        /* records.builds */
    list_t waiters;     /* page_t.wnode */
    budget_slot_t slot; /* records.builders: charged to the starter's address */
    bool opened;
    uint64_t t0; /* when work first ran */
    records_job_fn work;
};

/* Answers p (a page of a replay body: p->cast says which) for key. title
 * is the cast's; read (NULL: the game's row and journal into the job) and
 * work are the job's, with j->ud the build. */
void rbuild_answer(page_t *p, const bodycache_key_t *key, const char *title, records_job_fn read,
                   records_job_fn work);

#endif
