/* db_feed — the lobby's feed of recent deaths, wins and milestones across
 * games (db_records.h). The statement is FEED_RECENT in db_internal.h. */
#include <stdlib.h>
#include "db_internal.h"
#include "db_records.h"

static int read_feed(const db_cur_t *st, void *row)
{
    db_feed_t *f = row;
    f->time = db_col_int(st, 0);
    const char **text[] = {&f->player, &f->game, &f->kind, &f->text};
    for (int i = 0; i < 4; i++)
        if (!(*text[i] = db_col_dup(st, 1 + i, NULL)))
            return DB_ENOMEM;
    f->link = db_col_int(st, 5);
    f->score = db_col_int(st, 6);
    f->depth = (int)db_col_int(st, 7);
    return DB_OK;
}

static void free_feed(void *row)
{
    db_feed_t *f = row;
    const char *text[] = {f->player, f->game, f->kind, f->text};
    for (int i = 0; i < 4; i++)
        free((char *)text[i]);
}

const db_row_t db_row_feed = {sizeof(db_feed_t), 8, read_feed, free_feed};

void db_feed_recent(db_t *db, size_t limit, db_feed_cb cb, void *ud)
{
    db_queue(db, DB_ON(feed, cb, ud), 0, DB_STMT_FEED_RECENT, DB_ARGS(DB_INT(limit)));
}

void db_deliver_feed(const db_op_t *op)
{
    op->cb.fn.feed(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}
