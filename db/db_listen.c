/* db_listen — LISTEN/NOTIFY between nodes (db_listen.h): the sending is a
 * statement of the table queued on the writer, the listening a libpq
 * connection of its own, read without blocking. */
#include "db_listen.h"
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

struct db_listen {
    PGconn *h;
};

void db_notify(db_t *db, const char *channel, const char *payload, const char *key, db_done_cb cb,
               void *ud)
{
    const char *node = db_lease_node_(db, NULL);
    if (!node && !cb) /* one node alone (SQLite): nobody to tell */
        return;
    if (!node) /* cb is still answered: DB_ECLOSED when closing, else DB_OK (a no-op) */
        node = "";
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_NOTIFY,
             DB_ARGS(DB_TEXT_MAX(channel, 64), DB_TEXT_MAX(payload, DB_NOTIFY_PAYLOAD_MAX),
                     DB_TEXT_MAX(node, 64), DB_TEXT_MAX(key, DB_EVENT_KEY_LEN + 1)));
}

static int read_node_event(const db_cur_t *st, void *row)
{
    db_node_event_t *e = row;
    e->next = db_col_int(st, 0);
    e->id = db_col_int(st, 1); /* NULL (0): the row that only says next */
    e->xid = db_col_int(st, 2);
    db_col_copy(st, 3, e->payload, sizeof e->payload);
    db_col_copy(st, 4, e->key, sizeof e->key);
    e->age_ms = db_col_int(st, 5);
    return DB_OK;
}

const db_row_t db_row_node_event = {sizeof(db_node_event_t), 6, read_node_event, NULL};

void db_deliver_node_events(const db_op_t *op)
{
    op->cb.fn.node_events(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

void db_events_since(db_t *db, int64_t from, const char *node, db_node_events_cb cb, void *ud)
{
    db_queue(db, DB_ON(node_events, cb, ud), 0, DB_STMT_EVENTS_SINCE,
             DB_ARGS(DB_INT(from), DB_TEXT_MAX(node, 64), DB_INT(DB_EVENTS_KEEP_ROWS)));
}

void db_events_prune(db_t *db)
{
    db_queue(db, DB_ON(done, NULL, NULL), 0, DB_STMT_EVENTS_PRUNE,
             DB_ARGS(DB_INT(DB_EVENTS_KEEP_MS)));
}

static int read_pair(const db_cur_t *st, void *row)
{
    db_pair_t *p = row;
    p->a = db_col_int(st, 0);
    p->b = db_col_int(st, 1);
    return DB_OK;
}

const db_row_t db_row_pair = {sizeof(db_pair_t), 2, read_pair, NULL};

void db_deliver_pairs(const db_op_t *op)
{
    op->cb.fn.pairs(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

/* ids as a JSON array ("[1,2]"): both dialects read it as rows. */
void db_users_gone(db_t *db, const int64_t *ids, size_t n, db_pairs_cb cb, void *ud)
{
    char *json = malloc(n * 21 + 3), *at = json;
    if (!json)
        return cb(ud, DB_ENOMEM, NULL, 0);
    *at++ = '[';
    for (size_t i = 0; i < n; i++)
        at += sprintf(at, "%s%lld", i ? "," : "", (long long)ids[i]);
    *at++ = ']';
    *at = '\0';
    db_queue(db, DB_ON(pairs, cb, ud), 0, DB_STMT_USERS_GONE, DB_ARGS(DB_TEXT(json)));
    free(json);
}

#define LOGIN_HASH_MAX 64 /* hex digits of a session's hash (webgw_token_hash) */

/* [["HASH",ID],...]: a hash is hex digits, nothing to escape (one that
 * is not, or too long, stands as "" and matches no session). */
void db_logins_gone(db_t *db, const char *const *hashes, const int64_t *users, size_t n,
                    int64_t now, db_pairs_cb cb, void *ud)
{
    char *json = malloc(n * (LOGIN_HASH_MAX + 26) + 3), *at = json;
    if (!json)
        return cb(ud, DB_ENOMEM, NULL, 0);
    *at++ = '[';
    for (size_t i = 0; i < n; i++) {
        size_t len = strspn(hashes[i], "0123456789abcdef");
        if (len > LOGIN_HASH_MAX || hashes[i][len])
            len = 0;
        at += sprintf(at, "%s[\"%.*s\",%lld]", i ? "," : "", (int)len, hashes[i],
                      (long long)users[i]);
    }
    *at++ = ']';
    *at = '\0';
    db_queue(db, DB_ON(pairs, cb, ud), 0, DB_STMT_LOGINS_GONE, DB_ARGS(DB_TEXT(json), DB_INT(now)));
    free(json);
}

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void set_err(char *err, size_t n, const char *what, PGconn *h)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s", h ? PQerrorMessage(h) : "out of memory");
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    snprintf(err, n, "%s: %s", what, msg);
}

/* Keepalives as the writer's (db_pg.c): a vanished server is noticed in
 * seconds, so the listener connects again (to a promoted standby). */
static PGconn *connect_url(const char *url)
{
    static const char *const keys[] = {"keepalives",
                                       "keepalives_idle",
                                       "keepalives_interval",
                                       "keepalives_count",
                                       "connect_timeout",
                                       "application_name",
                                       "dbname",
                                       NULL};
    const char *vals[] = {"1", "10", "2", "3", "5", "warrend listener", url, NULL};
    return PQconnectdbParams(keys, vals, 1);
}

db_listen_t *db_listen_open(const char *url, const char *channel, char *err, size_t errlen)
{
    db_listen_t *l = calloc(1, sizeof *l);
    PGconn *h = l ? connect_url(url) : NULL;
    char sql[128];
    PGresult *r = NULL;
    if (h && PQstatus(h) == CONNECTION_OK) {
        PQsetNoticeProcessor(h, quiet, NULL);
        char *id = PQescapeIdentifier(h, channel, strlen(channel));
        snprintf(sql, sizeof sql, "LISTEN %s", id ? id : "\"\"");
        PQfreemem(id);
        r = PQexec(h, sql);
    }
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK || PQsetnonblocking(h, 1) != 0) {
        set_err(err, errlen, "cannot listen for other nodes' events", h);
        PQclear(r);
        PQfinish(h);
        free(l);
        return NULL;
    }
    PQclear(r);
    l->h = h;
    return l;
}

int db_listen_fd(const db_listen_t *l)
{
    return PQsocket(l->h);
}

int db_listen_read(db_listen_t *l, db_listen_cb cb, void *ud, char *err, size_t errlen)
{
    if (!PQconsumeInput(l->h) || PQstatus(l->h) != CONNECTION_OK) {
        set_err(err, errlen, "connection for other nodes' events lost", l->h);
        return DB_ERR;
    }
    for (PGnotify *n; (n = PQnotifies(l->h)); PQfreemem(n))
        cb(ud, n->extra);
    return DB_OK;
}

void db_listen_close(db_listen_t *l)
{
    if (!l)
        return;
    PQfinish(l->h);
    free(l);
}
