/* db_listen — LISTEN/NOTIFY between nodes (db_listen.h): the sending is a
 * statement of the table queued on the writer, the listening a libpq
 * connection of its own, read without blocking. */
#include "db_listen.h"
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

struct db_listen {
    PGconn *h;
};

void db_notify(db_t *db, const char *channel, const char *payload)
{
    if (!db_lease_node_(db, NULL)) /* one node alone (SQLite): nobody to tell */
        return;
    db_queue(db, DB_ON(done, NULL, NULL), 0, DB_STMT_NOTIFY,
             DB_ARGS(DB_TEXT_MAX(channel, 64), DB_TEXT_MAX(payload, DB_NOTIFY_PAYLOAD_MAX)));
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
