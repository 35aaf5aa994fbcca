/* hostcopy — a hosted game's files kept in the shared database
 * (hostcopy.h). */
#include "hostcopy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "conn.h"
#include "db_hosted.h"
#include "hostfiles.h"
#include "lease.h"
#include "log.h"
#include "peer.h"
#include "session.h"
#include "spawner.h"

_Static_assert(sizeof(((db_hosted_file_t *)0)->path) > HOSTFILES_PATH_MAX,
               "a path read is stored whole, never cut to another name");

static bool copying(const server_t *srv, const gamecfg_t *g)
{
    return lease_on(srv) && g->copy_bytes > 0 && srv->spawner;
}

/* ---- a bundle in a memfd ------------------------------------------------------------ */

/* The rows of a set as a bundle in a new memfd: its descriptor, or -1
 * with err. */
static int rows_to_memfd(const db_hosted_file_t *files, size_t n, size_t max, char *err,
                         size_t errlen)
{
    hostfiles_buf_t b;
    if (hostfiles_buf_init(&b, max) < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    int ret = 0;
    for (size_t i = 0; ret == 0 && i < n; i++)
        ret = hostfiles_add(&b, files[i].path, files[i].data, files[i].len, err, errlen);
    int fd = ret < 0 ? -1 : hostfiles_memfd();
    if (ret == 0 && fd < 0)
        snprintf(err, errlen, "memfd: %s", strerror(errno));
    for (size_t at = 0; fd >= 0 && at < b.len;) {
        ssize_t w = write(fd, b.p + at, b.len - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "memfd: %s", strerror(errno));
            close(fd);
            fd = -1;
        } else
            at += (size_t)w;
    }
    if (fd >= 0 && hostfiles_seal(fd) < 0) { /* sealed before the spawner maps it */
        snprintf(err, errlen, "memfd not sealed: %s", strerror(errno));
        close(fd);
        fd = -1;
    }
    hostfiles_buf_free(&b);
    return fd;
}

/* ---- before a start ----------------------------------------------------------------- */

typedef struct {
    conn_t *c; /* conn_ref'd meanwhile */
    int64_t user;
    const gamecfg_t *g; /* borrowed from the server's config */
    hostcopy_go_fn *go;
    int64_t gen;
    size_t nfiles;
    char from[DB_HOSTED_NODE_MAX];
} before_t;

static bool still_waits(const before_t *b)
{
    const conn_t *c = b->c;
    return !c->closing && c->place == CONN_WAIT && c->user_id == b->user;
}

/* This node holds the player's set from now on; the game starts. */
static void before_go(before_t *b)
{
    server_t *srv = b->c->srv;
    db_hosted_files_claim(srv->db, b->user, b->g->id, srv->cfg.node, (int64_t)time(NULL), NULL,
                          NULL);
    b->go(b->c, b->g);
}

static void before_done(before_t *b)
{
    conn_unref(b->c);
    free(b);
}

/* say: lines, on a screen of their own (any key: the menu). */
static void before_refuse(before_t *b, const char *say)
{
    if (still_waits(b))
        conn_message(b->c, say);
    before_done(b);
}

static void on_restored(int fd, const char *note, const char *err, void *ud)
{
    before_t *b = ud;
    conn_t *c = b->c;
    char say[400];
    (void)fd;
    (void)note;
    if (err) {
        log_error("hosted files not restored user=%s game=%s gen=%lld from=%s: %s", c->user,
                  b->g->id, (long long)b->gen, b->from, err);
        snprintf(say, sizeof say,
                 "Your %s game from server %s could not be put in place here,\n"
                 "so it does not start: try again in a moment.",
                 b->g->name, b->from);
        before_refuse(b, say);
        return;
    }
    log_info("hosted files restored user=%s game=%s gen=%lld from=%s files=%zu", c->user, b->g->id,
             (long long)b->gen, b->from, b->nfiles);
    if (still_waits(b))
        before_go(b);
    before_done(b);
}

/* The set's files written into the player's directory here. */
static void restore(before_t *b, const db_hosted_file_t *files, size_t n)
{
    conn_t *c = b->c;
    char err[200];
    int fd = rows_to_memfd(files, n, (size_t)b->g->copy_bytes, err, sizeof err);
    b->nfiles = n;
    if (fd >= 0 && spawner_files_write(c->srv->spawner, b->g->id, c->game_name, fd, on_restored, b,
                                       err, sizeof err) == 0) {
        close(fd);
        return;
    }
    if (fd >= 0)
        close(fd);
    on_restored(-1, "", err, b);
}

/* Whether set's files were read as the ids g's games run as here (or as
 * ids unknown: copied before they were kept): a game keeps its uid in
 * its files' names (NetHack's save is UIDNAME), so files restored under
 * other ids would not be its own. Else why in why. */
static bool same_ids(server_t *srv, const gamecfg_t *g, const db_hosted_file_set_t *set, char *why,
                     size_t whylen)
{
    uid_t uid;
    gid_t gid;
    if (set->uid < 0 && set->gid < 0)
        return true;
    if (spawner_game_ids(srv->spawner, g->id, &uid, &gid) < 0)
        return snprintf(why, whylen, "no such game here"), false;
    if ((int64_t)uid == set->uid && (int64_t)gid == set->gid)
        return true;
    snprintf(why, whylen,
             "games here run as uid=%lld gid=%lld (the games user must have the same ids on "
             "every node)",
             (long long)uid, (long long)gid);
    return false;
}

static void on_set(void *ud, int status, const db_hosted_file_set_t *set,
                   const db_hosted_file_t *files, size_t n)
{
    before_t *b = ud;
    server_t *srv = b->c->srv;
    char say[400];
    if (!still_waits(b)) {
        before_done(b);
    } else if (session_find_kind(srv, b->user, b->g->id)) {
        b->go(b->c, b->g); /* another of the player's connections started it meanwhile */
        before_done(b);
    } else if (status == DB_ENOTFOUND ||
               (status == DB_OK &&
                (!strcmp(set->node, srv->cfg.node) || (set->gen == 0 && set->bytes >= 0)))) {
        before_go(b); /* nothing copied elsewhere: the files here are the newest */
        before_done(b);
    } else if (status != DB_OK) {
        log_error("hosted files lookup failed user=%s game=%s: %d", b->c->user, b->g->id, status);
        conn_menu(b->c, "The game store is not available. Please try again.");
        before_done(b);
    } else if (set->bytes < 0) {
        log_warn("hosted start refused user=%s game=%s: its files at node %s were over copy-max",
                 b->c->user, b->g->id, set->node);
        snprintf(say, sizeof say,
                 "Your %s game is on server %s: its files were too large to copy\n"
                 "here, so it cannot go on here. It goes on once that server is\n"
                 "back; an admin can help.",
                 b->g->name, set->node);
        before_refuse(b, say);
    } else if (!same_ids(srv, b->g, set, say, sizeof say)) {
        log_error("hosted files not restored user=%s game=%s gen=%lld from=%s: they were "
                  "copied as uid=%lld gid=%lld, %s",
                  b->c->user, b->g->id, (long long)set->gen, set->node, (long long)set->uid,
                  (long long)set->gid, say);
        snprintf(say, sizeof say,
                 "Your %s game from server %s cannot be put in place here: this\n"
                 "server runs its games as another system user. It goes on once\n"
                 "that server is back; an admin can help.",
                 b->g->name, set->node);
        before_refuse(b, say);
    } else {
        b->gen = set->gen;
        snprintf(b->from, sizeof b->from, "%s", set->node);
        restore(b, files, n);
    }
}

void hostcopy_before(conn_t *c, const gamecfg_t *g, hostcopy_go_fn *go)
{
    server_t *srv = c->srv;
    if (!copying(srv, g)) {
        go(c, g);
        return;
    }
    session_t *m = session_find_named(srv, c->user, g->id);
    if (m && m->mirror) { /* it runs on another node still: a copy there would fork it */
        char say[400];
        const char *node = peer_node_of(m);
        log_info("hosted start refused user=%s game=%s: it runs on node %s", c->user, g->id,
                 node ? node : "?");
        snprintf(say, sizeof say, "Your %s game still runs on server %s: choose it again soon.",
                 g->name, node ? node : "?");
        conn_menu(c, say);
        return;
    }
    before_t *b = calloc(1, sizeof *b);
    if (!b) {
        conn_menu(c, "The game cannot start now.");
        return;
    }
    *b = (before_t){.c = c, .user = c->user_id, .g = g, .go = go};
    conn_ref(c);
    conn_set_place(c, CONN_WAIT);
    db_hosted_files_get(srv->db, c->user_id, g->id, on_set, b);
}

/* ---- a running game's copies -------------------------------------------------------- */

struct hostcopy {
    server_t *srv;
    peer_hosted_t line; /* the heartbeat's line while its session gives none */
    int64_t user;
    const gamecfg_t *g;
    char player[32], dir[32];
    uv_timer_t timer;
    list_t queued;    /* in srv's hostcopies.waiting: its last copy waits for a place */
    uint64_t order;   /* its place in that queue (0: never in it) */
    bool busy;        /* a read at the spawner */
    bool dirty;       /* the program wrote since the last read began */
    bool ending;      /* its last copy: freed after it */
    bool over;        /* the last read was over copy-max */
    bool told_skip;   /* files not copied were logged */
    bool told_rate;   /* a copy held back by copy-rate was logged */
    bool told_busy;   /* a read put off (files not still) was logged */
    bool told_full;   /* a last copy the spawner had no place for was logged */
    int tries;        /* its last copy asked again so far (HOSTCOPY_RETRIES at most) */
    uint64_t refused; /* reads the spawner had no place for while it ran: said once, counted */
    uint64_t last;    /* when the last read began (ms) */
    uint64_t wait;    /* ms from then to the next: the last stored copy's budget */
    uint64_t sum;     /* the last stored bundle's checksum (0: none) */
    uint64_t read_no; /* the last read asked: its number among the server's (hostcopies.asked) */
    uint64_t newer;   /* the newest read whose copy another run of the game stored: its number */
    bool twin;        /* another run of the player's game had copies here meanwhile */
};

/* Whether a copy of another run of the player's game, read after hc's
 * last read was asked, was stored: hc's copy is older than what the
 * database holds. Runs of one player's game overlap only when a new run
 * starts while the last copy of the one before is on its way (twins):
 * their copies are stored in the order they were read, so the database
 * never goes back in time, and a copy dropped so is older than one
 * stored (nothing lost). */
static bool superseded(const hostcopy_t *hc)
{
    return hc->twin && hc->newer > hc->read_no;
}

/* hc stored the copy of its last read: its twins are told. */
static void stored_by(hostcopy_t *hc)
{
    if (!hc->twin)
        return;
    LIST_EACH (it, &hc->srv->hostcopies.games) {
        hostcopy_t *o = LIST_ITEM(it, hostcopy_t, line.node);
        if (o != hc && o->user == hc->user && !strcmp(o->g->id, hc->g->id) &&
            o->newer < hc->read_no)
            o->newer = hc->read_no;
    }
}

/* Another run of the player's game still copied here (its last copy on
 * its way): hc and it are twins. */
static void find_twin(hostcopy_t *hc)
{
    LIST_EACH (it, &hc->srv->hostcopies.games) {
        hostcopy_t *o = LIST_ITEM(it, hostcopy_t, line.node);
        if (o != hc && o->user == hc->user && !strcmp(o->g->id, hc->g->id))
            o->twin = hc->twin = true;
    }
}

/* A copy not stored: one of a newer run, read later, is. */
static void drop_older(const hostcopy_t *hc)
{
    log_info("hosted files of user=%s game=%s: a copy not stored: its next run's, read after it, "
             "is stored already",
             hc->player, hc->g->id);
}

static void copy_now(hostcopy_t *hc);
static void arm_head(server_t *srv);
static void queue_tick(server_t *srv);
static void queue_next(server_t *srv);

static void on_closed(uv_handle_t *h)
{
    free(h->data);
}

/* Freed; the reads refused while it ran, said once more, with their
 * count. */
static void hc_free(hostcopy_t *hc)
{
    server_t *srv = hc->srv;
    void (*after)(server_t *) = srv->hostcopies.after;
    if (hc->refused > 1)
        log_info("hosted files of user=%s game=%s: %llu reads refused while it ran", hc->player,
                 hc->g->id, (unsigned long long)hc->refused);
    list_remove(&hc->line.node); /* the next heartbeat says it runs here no more */
    if (list_linked(&hc->queued)) {
        list_remove(&hc->queued);
        arm_head(srv);
    }
    uv_close((uv_handle_t *)&hc->timer, on_closed);
    if (--srv->hostcopies.live || !after)
        return;
    srv->hostcopies.after = NULL; /* its store is queued before what after writes */
    after(srv);
}

static void on_timer(uv_timer_t *t)
{
    hostcopy_t *hc = t->data;
    if (list_linked(&hc->queued)) /* the first waiting last copy's fallback */
        queue_tick(hc->srv);
    else
        copy_now(hc);
}

/* The next read: now when due, else when it is. One later than
 * HOSTCOPY_EVERY_MS would have it (copy-rate's budget) is counted, and
 * said once a game. */
static void schedule(hostcopy_t *hc)
{
    uint64_t now = now_ms(hc->srv), due = hc->last + hc->wait;
    if (hc->busy || uv_is_active((uv_handle_t *)&hc->timer))
        return;
    uint64_t in = hc->ending || due <= now ? 0 : due - now;
    if (in && hc->wait > HOSTCOPY_EVERY_MS) {
        hc->srv->hostcopies.throttled++;
        if (!hc->told_rate) {
            hc->told_rate = true;
            log_warn("hosted copies of user=%s game=%s held back by copy-rate (%llu KB/s): "
                     "the next in %llu s",
                     hc->player, hc->g->id, (unsigned long long)(hc->g->copy_rate >> 10),
                     (unsigned long long)((in + 999) / 1000));
        }
    }
    uv_timer_start(&hc->timer, on_timer, in, 0);
}

/* A copy of len bytes stored: the next waits max(HOSTCOPY_EVERY_MS,
 * len / copy-rate). */
static void budget(hostcopy_t *hc, size_t len)
{
    uint64_t rate = hc->g->copy_rate, ms = rate ? (uint64_t)len * 1000 / rate : 0;
    hc->wait = ms > HOSTCOPY_EVERY_MS ? ms : HOSTCOPY_EVERY_MS;
}

/* A copy's store, said in the log when it did not happen. */
typedef struct {
    char player[32], game[GAMECFG_ID_MAX + 1];
} put_t;

static void on_put(void *ud, int status, int64_t id)
{
    put_t *p = ud;
    (void)id;
    if (status == DB_ENOTFOUND)
        log_warn("hosted files of user=%s game=%s not stored: another node holds them now",
                 p->player, p->game);
    else if (status != DB_OK)
        log_warn("hosted files of user=%s game=%s not stored: %d", p->player, p->game, status);
    free(p);
}

/* user's files of the game stored (rows NULL: over copy-max). */
static void put(hostcopy_t *hc, const db_hosted_file_t *rows, size_t n, int64_t bytes)
{
    put_t *p = malloc(sizeof *p);
    if (p) {
        snprintf(p->player, sizeof p->player, "%s", hc->player);
        snprintf(p->game, sizeof p->game, "%s", hc->g->id);
    }
    uid_t uid = (uid_t)-1;
    gid_t gid = (gid_t)-1;
    bool ids = spawner_game_ids(hc->srv->spawner, hc->g->id, &uid, &gid) == 0;
    db_hosted_files_put(hc->srv->db, hc->user, hc->g->id, hc->srv->cfg.node, (int64_t)time(NULL),
                        ids ? (int64_t)uid : -1, ids ? (int64_t)gid : -1, rows, n, bytes,
                        p ? on_put : NULL, p);
}

static uint64_t checksum(const void *p, size_t len)
{
    uLong a = adler32(0L, Z_NULL, 0), c = crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < len;) { /* zlib takes a uInt at a time */
        uInt n = len - at > (1u << 30) ? (1u << 30) : (uInt)(len - at);
        a = adler32(a, (const Bytef *)p + at, n);
        c = crc32(c, (const Bytef *)p + at, n);
        at += n;
    }
    return ((uint64_t)a << 32 | (uint64_t)c) | 1; /* never 0 */
}

/* A bundle read (p, len bytes): stored unless the same as the last. */
static void store(hostcopy_t *hc, const void *p, size_t len)
{
    uint64_t sum = checksum(p, len);
    if (sum == hc->sum)
        return;
    if (superseded(hc)) {
        drop_older(hc);
        return;
    }
    hostfiles_reader_t r;
    hostfiles_file_t f;
    uint32_t n;
    char err[200];
    if (hostfiles_open(&r, p, len, (size_t)hc->g->copy_bytes, &n, err, sizeof err) < 0) {
        log_error("hosted files of user=%s game=%s: %s", hc->player, hc->g->id, err);
        return;
    }
    db_hosted_file_t *rows = calloc(n ? n : 1, sizeof *rows);
    size_t k = 0;
    int got = 0;
    while (rows && k < n && (got = hostfiles_next(&r, &f, err, sizeof err)) > 0) {
        snprintf(rows[k].path, sizeof rows[k].path, "%s", f.path);
        rows[k].data = f.data;
        rows[k++].len = f.len;
    }
    if (rows && got >= 0) {
        hc->srv->hostcopies.stored++;
        put(hc, rows, k, (int64_t)len);
        stored_by(hc);
        if (hc->ending)
            log_info("hosted files of user=%s game=%s: last copy stored (%zu bytes)", hc->player,
                     hc->g->id, len);
        budget(hc, len);
        hc->sum = sum;
    }
    free(rows);
}

/* A read over copy-max: said once a run of them, the set marked. */
static void over_cap(hostcopy_t *hc, const char *err)
{
    if (hc->over)
        return;
    if (superseded(hc)) {
        drop_older(hc);
        return;
    }
    hc->over = true;
    hc->sum = 0;
    stored_by(hc);
    log_warn("hosted files over copy-max user=%s game=%s (%llu MB): %s: not copied", hc->player,
             hc->g->id, (unsigned long long)(hc->g->copy_bytes >> 20), err);
    put(hc, NULL, 0, -1);
}

/* A read put off as the files were not still: counted, said once a
 * game. */
static void put_off(hostcopy_t *hc, const char *err)
{
    hc->srv->hostcopies.busy++;
    if (hc->told_busy)
        return;
    hc->told_busy = true;
    log_info("hosted files of user=%s game=%s %s: copied once still", hc->player, hc->g->id, err);
}

/* How often a last copy is asked again before it is given up:
 * HOSTCOPY_RETRIES (test-copy-retries in tests), at most
 * HOSTCOPY_STOP_RETRIES once warrend stops. */
static int retries_max(const hostcopy_t *hc)
{
    int n = hc->srv->cfg.test_copy_retries > 0 ? hc->srv->cfg.test_copy_retries : HOSTCOPY_RETRIES;
    return hc->srv->stopping && n > HOSTCOPY_STOP_RETRIES ? HOSTCOPY_STOP_RETRIES : n;
}

/* A last copy asked again too often (why: the last refusal): given up,
 * said, counted, hc freed. The player's files stay on this node's disk;
 * another node would restore the copy stored before, if any. */
static void give_up(hostcopy_t *hc, const char *why)
{
    hc->srv->hostcopies.given_up++;
    log_error("hosted files of user=%s game=%s: last copy given up after %d tries in %d s (%s): "
              "its files stay on this node's disk; another node would restore the copy before "
              "(if any)",
              hc->player, hc->g->id, hc->tries - 1, (hc->tries - 1) * HOSTCOPY_RETRY_MS / 1000,
              why);
    hc_free(hc);
}

/* The read again in HOSTCOPY_RETRY_MS, the last one too (its program
 * was still at work: hung up, it may be saving; or the spawner had no
 * place for it, many games ending at once; the loop waits for that one,
 * as it waits for a read at the spawner), at most retries_max times for
 * the last. why: the refusal. */
static void retry(hostcopy_t *hc, const char *why)
{
    if (hc->ending && ++hc->tries > retries_max(hc)) {
        give_up(hc, why);
        return;
    }
    hc->dirty = true;
    if (hc->ending)
        uv_ref((uv_handle_t *)&hc->timer);
    uv_timer_start(&hc->timer, on_timer, HOSTCOPY_RETRY_MS, 0);
}

/* ---- last copies waiting for a place, first in first out ----------------------------- */

static hostcopy_t *queue_head(server_t *srv)
{
    list_t *n = list_front(&srv->hostcopies.waiting);
    return n ? LIST_ITEM(n, hostcopy_t, queued) : NULL;
}

/* The first waiting last copy asked again in HOSTCOPY_RETRY_MS unless a
 * place frees before (the others wait without a timer). */
static void arm_head(server_t *srv)
{
    hostcopy_t *hc = queue_head(srv);
    if (!hc || uv_is_active((uv_handle_t *)&hc->timer))
        return;
    uv_ref((uv_handle_t *)&hc->timer); /* the loop waits for it */
    uv_timer_start(&hc->timer, on_timer, HOSTCOPY_RETRY_MS, 0);
}

/* A place may be free (the spawner answered a request or reported an
 * exit: spawner_on_place): the waiting last copies asked in turn, each
 * leaving the queue once the spawner takes it, until one is refused (it
 * stays first). */
static void queue_next(server_t *srv)
{
    hostcopy_t *hc;
    while ((hc = queue_head(srv)) != NULL) {
        uv_timer_stop(&hc->timer);
        hc->dirty = true;
        copy_now(hc);
        if (queue_head(srv) == hc)
            return;
    }
}

/* hc into the queue at its place: the back when new, else before those
 * that joined after it (its read taken, then refused at the spawner). */
static void queue_join(hostcopy_t *hc)
{
    list_t *q = &hc->srv->hostcopies.waiting, *at = q->prev;
    if (!hc->order)
        hc->order = ++hc->srv->hostcopies.joined;
    while (at != q && LIST_ITEM(at, hostcopy_t, queued)->order > hc->order)
        at = at->prev;
    list_insert_after(at, &hc->queued);
}

/* The first's timer: each waiting last copy has waited HOSTCOPY_RETRY_MS
 * more (given up past retries_max), then the first asked again. */
static void queue_tick(server_t *srv)
{
    LIST_EACH (it, &srv->hostcopies.waiting) {
        hostcopy_t *hc = LIST_ITEM(it, hostcopy_t, queued);
        if (++hc->tries > retries_max(hc))
            give_up(hc, SPAWNER_FILES_FULL);
    }
    queue_next(srv);
}

/* A last copy the spawner had no place for (err; or earlier ones wait):
 * counted, said once a game; it waits in turn behind those before it. */
static void wait_place(hostcopy_t *hc, const char *err)
{
    hc->srv->hostcopies.waited++;
    if (!hc->told_full) {
        hc->told_full = true;
        log_info("hosted files of user=%s game=%s: %s: its last copy asked again", hc->player,
                 hc->g->id, err);
    }
    hc->dirty = true;
    if (!hc->tries)
        hc->tries = 1;
    if (!list_linked(&hc->queued))
        queue_join(hc);
    arm_head(hc->srv);
}

/* A running game's read the spawner had no place for (or refused
 * otherwise): asked again later; counted, said once a game (and its count
 * as it ends). */
static void refused(hostcopy_t *hc, const char *err)
{
    hc->srv->hostcopies.refused++;
    if (hc->refused++ == 0)
        log_warn("hosted files of user=%s game=%s not read while it runs: %s (said once a game, "
                 "counted in health)",
                 hc->player, hc->g->id, err);
}

static void on_read(int fd, const char *note, const char *err, void *ud)
{
    hostcopy_t *hc = ud;
    hc->busy = false;
    spawner_read_t kind = spawner_read_kind(err); /* the spawner's codes, no other words */
    bool busy = kind == SPAWNER_READ_BUSY;
    bool no_place = kind == SPAWNER_READ_FULL;
    bool full = no_place && hc->ending;
    if (kind == SPAWNER_READ_SAME)
        hc->srv->hostcopies.same++; /* nothing changed: nothing read */
    else if (busy)
        put_off(hc, err);
    else if (kind == SPAWNER_READ_OVER)
        over_cap(hc, err + strlen(SPAWNER_FILES_OVER));
    else if (no_place && !full)
        refused(hc, err);
    else if (err && !full)
        log_warn("hosted files of user=%s game=%s not read: %s", hc->player, hc->g->id, err);
    if (!err && note[0] && !hc->told_skip) {
        hc->told_skip = true;
        log_warn("hosted files of user=%s game=%s: %s", hc->player, hc->g->id, note);
    }
    size_t len = 0;
    char why[120];
    void *p = fd >= 0 ? hostfiles_map(fd, &len, why, sizeof why) : NULL;
    if (fd >= 0 && !p) /* an unsealed memfd could shrink under the map: never stored */
        log_error("hosted files of user=%s game=%s not stored: %s", hc->player, hc->g->id, why);
    if (p) {
        hc->over = false;
        store(hc, p, len);
        munmap(p, len);
    }
    if (fd >= 0)
        close(fd);
    if (full) /* the last copy: the spawner had no job for it */
        wait_place(hc, err);
    else if (busy) /* not still (being written): again soon, whether the program draws or not */
        retry(hc, err);
    else if (hc->ending && hc->dirty) /* it ended during that read: one more, the last */
        copy_now(hc);
    else if (hc->ending)
        hc_free(hc);
    else if (hc->dirty || no_place) { /* no place: again in turn, drawn or not */
        hc->dirty = true;
        schedule(hc);
    }
}

/* Whether hc stands back for last copies waiting before it: a running
 * game's read, or a last copy not first among them. */
static bool behind(const hostcopy_t *hc)
{
    const list_t *q = &hc->srv->hostcopies.waiting;
    return !list_empty(q) && list_front(q) != &hc->queued;
}

static void copy_now(hostcopy_t *hc)
{
    char err[200];
    if (hc->busy || !hc->dirty)
        return;
    if (behind(hc) && hc->ending) {
        wait_place(hc, "earlier last copies wait for a place");
        return;
    }
    if (behind(hc)) {
        refused(hc, "last copies wait for a place");
        uv_timer_start(&hc->timer, on_timer, HOSTCOPY_EVERY_MS, 0);
        return;
    }
    hc->dirty = false;
    hc->last = now_ms(hc->srv);
    if (spawner_files_read(hc->srv->spawner, hc->g->id, hc->dir, on_read, hc, err, sizeof err) ==
        0) {
        hc->read_no = ++hc->srv->hostcopies.asked;
        hc->busy = true;
        if (list_linked(&hc->queued)) { /* it waits no more: the next is first */
            list_remove(&hc->queued);
            arm_head(hc->srv);
        }
        return;
    }
    bool full = !strcmp(err, SPAWNER_FILES_FULL);
    if (hc->ending && full) { /* the last copy: soon, however many games end at once */
        wait_place(hc, err);
        return;
    }
    if (hc->ending) {
        log_warn("hosted files of user=%s game=%s not read: %s", hc->player, hc->g->id, err);
        hc_free(hc);
    } else { /* the spawner is busy: later */
        refused(hc, err);
        hc->dirty = true;
        uv_timer_start(&hc->timer, on_timer, HOSTCOPY_EVERY_MS, 0);
    }
}

hostcopy_t *hostcopy_new(server_t *srv, int64_t game, int64_t user, const char *player,
                         const gamecfg_t *g, const char *dir)
{
    if (!copying(srv, g))
        return NULL;
    hostcopy_t *hc = calloc(1, sizeof *hc);
    if (!hc)
        return NULL;
    *hc = (hostcopy_t){.srv = srv, .user = user, .g = g, .wait = HOSTCOPY_EVERY_MS};
    snprintf(hc->player, sizeof hc->player, "%s", player);
    snprintf(hc->dir, sizeof hc->dir, "%s", dir);
    list_init(&hc->queued);
    hc->line = (peer_hosted_t){.game = game, .user = user, .player = hc->player, .g = g};
    list_push_back(&srv->hostcopies.games, &hc->line.node);
    find_twin(hc);
    uv_timer_init(srv->loop, &hc->timer);
    hc->timer.data = hc;
    uv_unref((uv_handle_t *)&hc->timer);
    srv->hostcopies.live++;
    return hc;
}

void hostcopy_changed(hostcopy_t *hc)
{
    if (!hc || hc->ending)
        return;
    hc->dirty = true;
    schedule(hc);
}

bool hostcopy_over(const hostcopy_t *hc)
{
    return hc && hc->over;
}

static void on_place(void *user)
{
    queue_next(user);
}

void hostcopy_attach(server_t *home)
{
    if (home->spawner)
        spawner_on_place(home->spawner, on_place, home);
}

void hostcopy_after_last(server_t *home, void (*fn)(server_t *home))
{
    if (!home->hostcopies.live) {
        fn(home);
        return;
    }
    log_info("node %s: heartbeat and leases kept until %d hosted games' last copies are stored "
             "or given up",
             home->cfg.node, home->hostcopies.live);
    home->hostcopies.after = fn;
}

void hostcopy_end(hostcopy_t *hc)
{
    if (!hc)
        return;
    hc->ending = true;
    hc->dirty = true;
    if (hc->busy) /* its answer frees it */
        return;
    uv_timer_stop(&hc->timer);
    copy_now(hc);
}
