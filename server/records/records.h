/* records — finished games inside warrend: verification by replay, the
 * score pages and their JSON API, the browser replay's frames and the
 * asciicast export. Loop thread only; database reads go to db's reader
 * threads and replays to libuv's thread pool: at most replay-builds jobs
 * at once, hosted recordings' builds at most one fewer (at least one), so
 * the pool always has threads for the rest of the daemon and Warren's own
 * replays always have one.
 *
 * Replay bodies (the frames and the asciicasts of Warren's games and of
 * hosted recordings) are built once (rbuild.h), at most replay-max bytes
 * each, and kept gzipped in a cache of replay-cache bytes (bodycache.h). A
 * build waits in a queue of at most replay-queue; past it the request is
 * answered 503 with Retry-After. A build whose every request has gone
 * is dropped before it starts, or between two of its rounds.
 *
 * Verification: when a game ends, and at start for every finished game not
 * yet checked, its journal is replayed from the seed and the result (end
 * kind, cause, turns, depths, level, score and the dump) compared with the
 * stored record: games.verified becomes 1 (agrees) or -1 (mismatch, logged
 * with the first difference). A game from another content version is left
 * unchecked (0). */
#ifndef WARREN_RECORDS_H
#define WARREN_RECORDS_H
#include <stdint.h>
#include "budget.h"
#include "db.h"
#include "hooks.h"
#include "journal.h"
#include "list.h"
#include "server.h"
#include "web.h"

#define RECORDS_RETRY_S          5 /* Retry-After of a 503 for a busy replay */
/* replay bodies one address (addrkey.h) is sent at once (rbuild.h) */
#define RECORDS_READERS_PER_ADDR 16
/* replay bodies being built or waiting to be, for one address (rbuild.h) */
#define RECORDS_BUILDS_PER_ADDR  2

typedef struct records records_t;
typedef struct records_job records_job_t;
typedef struct bodycache bodycache_t;

#define RECORDS_SCORES_WAIT 16 /* /scores pages waiting for the one score read */

struct records {
    server_t *srv;
    int running;                        /* jobs reading or on the thread pool */
    int running_hosted;                 /* of which builds of hosted recordings */
    int jobs_max, hosted_max, wait_max; /* replay-builds, one fewer, replay-queue */
    uint64_t body_max;                  /* replay-max */
    size_t held_max;    /* gzip bytes slow readers may hold off the cache (rbuild.h) */
    bool held_full;     /* over it: said once in the log, until it is not */
    budget_t *readers;  /* bodies being sent, per address (RECORDS_READERS_PER_ADDR) */
    budget_t *builders; /* builds, per starting address (RECORDS_BUILDS_PER_ADDR) */
    list_t waiting;     /* records_job_t.node, first come first served (as they fit) */
    int nwaiting;       /* refusable (page) jobs waiting */
    bodycache_t *cache;
    list_t builds;         /* rbuild_t.node: replay bodies being built (rbuild.c) */
    int64_t backlog_after; /* the backlog's next batch starts after this id */
    bool backlog_more, backlog_reading;
    char *replay_tpl; /* client-web/dist/replay.html, read at start; NULL if not built */
    /* /scores reads (pages.c): one at a time, RECORDS_SCORES_WAIT waiting */
    bool scores_reading;
    list_t scores_waiting; /* page_t.wnode, first come first served */
    int nscores_waiting;
    bool scores_full; /* refusing: said once in the log, until one is let wait again */
};

/* Reads the replay page template from web_root (NULL: no replay page). */
records_t *records_new(server_t *srv, const char *web_root); /* NULL on OOM */
/* After uv_run has returned (every job has finished by then). NULL is fine. */
void records_free(records_t *r);

/* Registers with the core (hooks.h): a Warren game's stored end is
 * verified (game_stored). */
void records_hooks(hooks_t *h);
/* At start: verifies every finished game still unchecked, a batch at a time. */
void records_verify_backlog(server_t *srv);

/* ---- replay jobs (verify.c), shared with the pages ---- */

typedef void (*records_job_fn)(records_job_t *j);
struct records_job {
    server_t *srv;
    list_t node; /* records_t.waiting */
    int64_t game_id;
    int status; /* 0, or an HTTP-like status: 404 no such finished game, 503 busy/stopping, 500 */
    char err[200];
    db_game_t game;
    journal_t journal; /* the game's, owned */
    char *dump;        /* the stored dump (with want_dump), owned */
    size_t dump_len;
    bool want_dump;
    bool refusable; /* a page's job: refused with 503 when too many wait */
    bool hosted;    /* a hosted recording's build: takes a hosted slot */
    bool again;     /* set by work: read and work once more before done */
    /* NULL or true: start it (or go on to its next round); false: drop it
     * (done with 503) without starting or going on */
    bool (*wanted)(records_job_t *j);
    /* NULL: reads game_id's row and journal; else reads what work needs and
     * calls records_job_read_done */
    records_job_fn read;
    records_job_fn work; /* thread pool: reads the fields above, writes its own */
    records_job_fn done; /* loop: always called once, then the job is freed */
    void *ud;
    uv_work_t req;
};

/* Reads game_id and its journal (and dump), runs work off the loop, then
 * done on the loop; when work sets again, read and work run once more
 * first (read must be set then). j is owned by the caller until done
 * returns; the caller frees it there with records_job_free. */
void records_job_start(records_job_t *j);
/* A job's own read (j->read) is over: status 0 queues its work, else the
 * job ends with that HTTP-like status and msg. */
void records_job_read_done(records_job_t *j, int status, const char *msg);
void records_job_free(records_job_t *j);

/* ---- pages (pages.c) ---- */

/* The route table's handlers (server/routes.c) for the records URLs
 * (records_query.h): gw is the webgw_t; req->route->arg is RECORDS_JSON for
 * the /api/ rows. Each answers with web_reply, now or later (a POST gets
 * 405 once the URL is checked), and returns 0, or -1 when out of memory. */
enum { RECORDS_HTML = 0, RECORDS_JSON = 1 };
int records_scores(void *gw, const web_http_t *req);        /* /scores */
int records_player(void *gw, const web_http_t *req);        /* /player/NAME */
int records_hosted_scores(void *gw, const web_http_t *req); /* /scores/ID: a hosted game's */
int records_game(void *gw, const web_http_t *req);          /* /game/{id} */
int records_dump(void *gw, const web_http_t *req);          /* /game/{id}/dump */
int records_cast(void *gw, const web_http_t *req);          /* /game/{id}.cast */
int records_replay(void *gw, const web_http_t *req);        /* /game/{id}/replay, the page */
int records_frames(void *gw, const web_http_t *req);        /* /api/game/{id}/replay */
int records_bad_game(void *gw, const web_http_t *req);      /* any other /game/...: 400 or 404 */
int records_daily(void *gw, const web_http_t *req); /* /daily, /daily/DATE (daily_pages.c) */
/* Hosted games' recordings (hosted_pages.c): /hosted/{id}, its .cast, its
 * /replay page and /api/hosted/{id}/replay frames. */
int records_hosted_game(void *gw, const web_http_t *req);
int records_hosted_cast(void *gw, const web_http_t *req);
int records_hosted_replay(void *gw, const web_http_t *req);
int records_hosted_frames(void *gw, const web_http_t *req);

#endif
