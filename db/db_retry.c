/* db_retry — a write transaction PostgreSQL ended for another's locks (a
 * deadlock, a serialization failure: DB_ECONFLICT) run again whole, by the
 * writer thread that ran it (db.c's write_tried): its ops as they were
 * before the first try, a short randomized pause between tries.
 *
 * Safe to run again: nothing of a batch leaves the transaction before its
 * COMMIT (a NOTIFY is sent at the commit; a sequence's values taken are
 * only lost), and a batch is run again only when one of its statements
 * was refused before any COMMIT was sent (write_each's conflict): a
 * COMMIT whose answer was lost (db_pg.c's write_all: DB_ERR) never is.
 * An op that runs code of its own (db_op_t.run) is never run again. */
#include <sodium.h>
#include <stdlib.h>
#include <time.h>
#include "db_internal.h"

bool db_retry_keep(db_retry_t *k, const db_op_t *ops)
{
    size_t n = 0;
    *k = (db_retry_t){0};
    for (const db_op_t *op = ops; op; op = op->next, n++)
        if (op->run)
            return false;
    k->status = malloc((n ? n : 1) * sizeof *k->status);
    k->id = malloc((n ? n : 1) * sizeof *k->id);
    if (!k->status || !k->id) {
        db_retry_free(k);
        return false;
    }
    n = 0;
    for (const db_op_t *op = ops; op; op = op->next, n++) {
        k->status[n] = op->status;
        k->id[n] = op->id;
    }
    k->n = n;
    return true;
}

/* The rows a reading step of op returned, dropped: the next try reads
 * them again. */
static void drop_rows(db_op_t *op)
{
    for (int j = 0; op->res && j < DB_RES_MAX; j++) {
        db_rows_t *r = &op->res[j];
        for (size_t i = 0; r->row && r->row->free && i < r->n; i++)
            r->row->free((char *)r->v + i * r->row->size);
        r->n = 0;
    }
}

void db_retry_reset(const db_retry_t *k, db_op_t *ops)
{
    size_t i = 0;
    for (db_op_t *op = ops; op && i < k->n; op = op->next, i++) {
        op->status = k->status[i];
        op->id = k->id[i];
        if (op->status == DB_OK) { /* a failure of its building keeps its message */
            free(op->err);
            op->err = NULL;
        }
        drop_rows(op);
    }
}

void db_retry_free(db_retry_t *k)
{
    free(k->status);
    free(k->id);
    *k = (db_retry_t){0};
}

uint32_t db_retry_pause_ms(int tried)
{
    uint32_t base = DB_RETRY_PAUSE_MS << (tried - 1); /* 10, 20 ms ... */
    return base + randombytes_uniform(base);          /* apart from the other side's try */
}

void db_retry_pause(int tried)
{
    uint32_t ms = db_retry_pause_ms(tried);
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}
