/* db_hosted — hosted games' recordings (db_hosted.h). Statements live in
 * db_internal.h's table. */
#include <stdlib.h>
#include <string.h>
#include "db_hosted.h"
#include "db_internal.h"

/* ---- rows -------------------------------------------------------------------------- */

static int read_hosted_game(const db_cur_t *st, void *row)
{
    db_hosted_game_t *g = row;
    g->id = db_col_int(st, 0);
    g->user = db_col_int(st, 1);
    db_col_copy(st, 2, g->player, sizeof g->player);
    db_col_copy(st, 3, g->game, sizeof g->game);
    g->start_time = db_col_int(st, 4);
    g->end_time = db_col_int(st, 5);
    g->width = (int)db_col_int(st, 6);
    g->height = (int)db_col_int(st, 7);
    g->bytes = db_col_int(st, 8);
    g->truncated = db_col_int(st, 9) != 0;
    g->score = db_col_int(st, 10);
    g->chunks = db_col_int(st, 11);
    g->last_ms = db_col_int(st, 12);
    g->day_bytes = db_col_int(st, 13);
    return DB_OK;
}

const db_row_t db_row_hosted_game = {sizeof(db_hosted_game_t), 14, read_hosted_game, NULL};

static int read_chunk(const db_cur_t *st, void *row)
{
    db_hosted_chunk_t *c = row;
    c->seq = db_col_int(st, 0);
    c->ms = db_col_int(st, 1);
    return (c->data = db_col_dup(st, 2, &c->len)) ? DB_OK : DB_ENOMEM;
}

static void free_chunk(void *row)
{
    free((void *)((db_hosted_chunk_t *)row)->data);
}

const db_row_t db_row_hosted_chunk = {sizeof(db_hosted_chunk_t), 3, read_chunk, free_chunk};

/* ---- writes ------------------------------------------------------------------------ */

void db_hosted_game_open(db_t *db, int64_t user, const char *game, int64_t start_time, int w, int h,
                         int64_t day_max, db_hosted_game_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(hosted_game, cb, ud), 0);
    db_op_step(op, DB_STMT_HOSTED_GAME_INSERT,
               DB_ARGS(DB_INT(user), DB_TEXT_MAX(game, DB_HOSTED_ID_MAX), DB_INT(start_time),
                       DB_INT(w), DB_INT(h), DB_INT(start_time - 86400), DB_INT(day_max)));
    db_op_step(op, DB_STMT_HOSTED_GAME_OPEN,
               DB_ARGS(DB_INT(user), DB_TEXT(game), DB_INT(start_time - 86400)));
    db_submit(db, op);
}

void db_hosted_chunk_add(db_t *db, int64_t id, int64_t ms, const void *data, size_t len,
                         int64_t bytes, bool truncated, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), id);
    if (data)
        db_op_step(op, DB_STMT_HOSTED_CHUNK_INSERT,
                   DB_ARGS(DB_INT(id), DB_INT(ms), DB_BLOB(data, len)));
    db_op_step(op, DB_STMT_HOSTED_GAME_BYTES,
               DB_ARGS(DB_INT(id), DB_INT(bytes), DB_INT(truncated ? 1 : 0)));
    db_submit(db, op);
}

void db_hosted_game_end(db_t *db, int64_t id, int64_t end_time, const db_hosted_score_t *r,
                        db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), id);
    if (r) {
        db_op_step(op, DB_STMT_HOSTED_SCORE_INSERT,
                   DB_ARGS(DB_INT(r->user), DB_TEXT(r->game), DB_TEXT(r->name), DB_TEXT(r->role),
                           DB_TEXT(r->race), DB_TEXT(r->gender), DB_TEXT(r->align),
                           DB_INT(r->max_depth), DB_TEXT(r->death), DB_INT(r->points),
                           DB_INT(r->turns), DB_INT(r->realtime), DB_INT(r->start_time),
                           DB_INT(r->end_time)));
        db_op_step(op, DB_STMT_HOSTED_GAME_LINK,
                   DB_ARGS(DB_INT(id), DB_TEXT(r->game), DB_TEXT(r->name), DB_INT(r->start_time),
                           DB_INT(r->end_time)));
    }
    db_op_step(op, DB_STMT_HOSTED_GAME_END, DB_ARGS(DB_INT(id), DB_INT(end_time)));
    db_submit(db, op);
}

/* ---- reads ------------------------------------------------------------------------- */

void db_hosted_game_get(db_t *db, int64_t id, db_hosted_game_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(hosted_game, cb, ud), 0);
    db_op_step(op, DB_STMT_HOSTED_GAME_BY_ID, DB_ARGS(DB_INT(id)));
    db_op_step(op, DB_STMT_HOSTED_GAME_SCORE, DB_ARGS(DB_INT(id)));
    db_submit(db, op);
}

void db_hosted_game_chunks(db_t *db, int64_t id, int64_t after, int64_t upto, int limit,
                           db_hosted_game_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(hosted_game, cb, ud), 0);
    db_op_step(op, DB_STMT_HOSTED_GAME_BY_ID, DB_ARGS(DB_INT(id)));
    db_op_step(op, DB_STMT_HOSTED_CHUNKS,
               DB_ARGS(DB_INT(id), DB_INT(after), DB_INT(upto), DB_INT(limit)));
    db_submit(db, op);
}

void db_hosted_ends_since(db_t *db, int64_t user, int64_t since, int limit, db_game_ids_cb cb,
                          void *ud)
{
    db_queue(db, DB_ON(game_ids, cb, ud), 0, DB_STMT_HOSTED_ENDS_SINCE,
             DB_ARGS(DB_INT(user), DB_INT(since), DB_INT(limit)));
}

/* Results are told apart by their row: the game, its score, its chunks. */
static const void *result_of(const db_op_t *op, const db_row_t *row, size_t *n)
{
    for (int k = 0; k < DB_RES_MAX; k++)
        if (db_op_count(op, k) && op->res[k].row == row) {
            if (n)
                *n = db_op_count(op, k);
            return db_op_first(op, k);
        }
    if (n)
        *n = 0;
    return NULL;
}

void db_deliver_hosted_game(const db_op_t *op)
{
    size_t n;
    const db_hosted_game_t *g = result_of(op, &db_row_hosted_game, NULL);
    const db_hosted_score_t *s = result_of(op, &db_row_hosted, NULL);
    const db_hosted_chunk_t *c = result_of(op, &db_row_hosted_chunk, &n);
    op->cb.fn.hosted_game(op->cb.ud, g ? op->status : (op->status ? op->status : DB_ENOTFOUND), g,
                          s, c, n);
}

/* ---- a hosted game's files ---------------------------------------------------------- */

static int read_file_set(const db_cur_t *st, void *row)
{
    db_hosted_file_set_t *s = row;
    s->gen = db_col_int(st, 0);
    db_col_copy(st, 1, s->node, sizeof s->node);
    s->bytes = db_col_int(st, 2);
    s->uid = db_col_int(st, 3);
    s->gid = db_col_int(st, 4);
    return DB_OK;
}

const db_row_t db_row_hosted_file_set = {sizeof(db_hosted_file_set_t), 5, read_file_set, NULL};

static int read_file(const db_cur_t *st, void *row)
{
    db_hosted_file_t *f = row;
    db_col_copy(st, 0, f->path, sizeof f->path);
    return (f->data = db_col_dup(st, 1, &f->len)) ? DB_OK : DB_ENOMEM;
}

static void free_file(void *row)
{
    free((void *)((db_hosted_file_t *)row)->data);
}

const db_row_t db_row_hosted_file = {sizeof(db_hosted_file_t), 2, read_file, free_file};

void db_hosted_files_claim(db_t *db, int64_t user, const char *game, const char *node, int64_t at,
                           db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), user, DB_STMT_HOSTED_FILES_CLAIM,
             DB_ARGS(DB_INT(user), DB_TEXT_MAX(game, DB_HOSTED_ID_MAX),
                     DB_TEXT_MAX(node, DB_HOSTED_NODE_MAX), DB_INT(at)));
}

void db_hosted_files_put(db_t *db, int64_t user, const char *game, const char *node, int64_t at,
                         int64_t uid, int64_t gid, const db_hosted_file_t *files, size_t n,
                         int64_t bytes, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), user);
    db_op_game(op, DB_OP_NO_GAME);
    db_op_step(op, DB_STMT_HOSTED_FILES_GEN,
               DB_ARGS(DB_INT(user), DB_TEXT_MAX(game, DB_HOSTED_ID_MAX),
                       DB_INT(files ? bytes : -1), DB_INT(at),
                       DB_TEXT_MAX(node, DB_HOSTED_NODE_MAX), DB_INT(uid), DB_INT(gid)));
    if (files)
        db_op_step(op, DB_STMT_HOSTED_FILES_CLEAR, DB_ARGS(DB_INT(user), DB_TEXT(game)));
    for (size_t i = 0; files && i < n; i++)
        db_op_step(op, DB_STMT_HOSTED_FILE_INSERT,
                   DB_ARGS(DB_INT(user), DB_TEXT(game),
                           DB_TEXT_MAX(files[i].path, DB_HOSTED_PATH_MAX),
                           DB_BLOB(files[i].data, files[i].len)));
    db_submit(db, op);
}

void db_hosted_files_get(db_t *db, int64_t user, const char *game, db_hosted_files_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(hosted_files, cb, ud), 0);
    db_op_step(op, DB_STMT_HOSTED_FILE_SET, DB_ARGS(DB_INT(user), DB_TEXT(game)));
    db_op_step(op, DB_STMT_HOSTED_FILES, DB_ARGS(DB_INT(user), DB_TEXT(game)));
    db_submit(db, op);
}

void db_deliver_hosted_files(const db_op_t *op)
{
    size_t n;
    const db_hosted_file_set_t *s = result_of(op, &db_row_hosted_file_set, NULL);
    const db_hosted_file_t *f = result_of(op, &db_row_hosted_file, &n);
    op->cb.fn.hosted_files(op->cb.ud, s ? op->status : (op->status ? op->status : DB_ENOTFOUND), s,
                           f, n);
}
