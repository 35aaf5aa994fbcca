/* db_social — what players leave for each other and where their games
 * stand: a game's place on the scores. */
#include "db_internal.h"

void db_game_rank(db_t *db, int64_t game, db_number_cb cb, void *ud)
{
    db_queue(db, DB_ON(number, cb, ud), 0, DB_STMT_GAME_RANK, DB_ARGS(DB_INT(game)));
}

void db_deliver_number(const db_op_t *op)
{
    const int64_t *n = db_op_first(op, 0);
    op->cb.fn.number(op->cb.ud, op->status, n ? *n : 0);
}

/* ---- mail -------------------------------------------------------------------- */

static int read_mail(const db_cur_t *st, void *row)
{
    db_mail_t *m = row;
    m->id = db_col_int(st, 0);
    db_col_copy(st, 1, m->from, sizeof m->from);
    m->sent = db_col_int(st, 2);
    db_col_copy(st, 3, m->text, sizeof m->text);
    return DB_OK;
}

const db_row_t db_row_mail = {sizeof(db_mail_t), 4, read_mail, NULL};

void db_mail_send(db_t *db, int64_t to, int64_t from, int64_t now, const char *text, int per_hour,
                  db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_MAIL_INSERT,
             DB_ARGS(DB_INT(to), DB_INT(from), DB_INT(now), DB_TEXT_MAX(text, DB_MAIL_MAX + 1),
                     DB_INT(per_hour)));
}

void db_mail_unseen(db_t *db, int64_t user, db_mail_cb cb, void *ud)
{
    db_queue(db, DB_ON(mail, cb, ud), 0, DB_STMT_MAIL_UNSEEN, DB_ARGS(DB_INT(user)));
}

void db_mail_seen(db_t *db, int64_t user, int64_t upto_id, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_MAIL_SEEN, DB_ARGS(DB_INT(user), DB_INT(upto_id)));
}

void db_mail_purge(db_t *db, int64_t before, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_MAIL_PURGE, DB_ARGS(DB_INT(before)));
}

void db_deliver_mail(const db_op_t *op)
{
    op->cb.fn.mail(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

/* ---- bans and mutes ------------------------------------------------------------ */

static int read_sanction(const db_cur_t *st, void *row)
{
    db_sanction_t *s = row;
    db_col_copy(st, 0, s->net, sizeof s->net);
    s->user = db_col_int(st, 1);
    s->until = db_col_int(st, 2);
    return DB_OK;
}

const db_row_t db_row_sanction = {sizeof(db_sanction_t), 3, read_sanction, NULL};

void db_ban_put(db_t *db, const char *net, int64_t until, int64_t now, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_BAN_PUT,
             DB_ARGS(DB_TEXT_MAX(net, 64), DB_INT(until), DB_INT(now)));
}

void db_ban_delete(db_t *db, const char *net, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_BAN_DELETE, DB_ARGS(DB_TEXT(net)));
}

void db_bans_list(db_t *db, db_sanctions_cb cb, void *ud)
{
    db_queue(db, DB_ON(sanctions, cb, ud), 0, DB_STMT_BANS_ALL, DB_NOARGS);
}

void db_mute_put(db_t *db, int64_t user, int64_t until, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_MUTE_PUT, DB_ARGS(DB_INT(user), DB_INT(until)));
}

void db_mute_delete(db_t *db, int64_t user, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_MUTE_DELETE, DB_ARGS(DB_INT(user)));
}

void db_mutes_list(db_t *db, db_sanctions_cb cb, void *ud)
{
    db_queue(db, DB_ON(sanctions, cb, ud), 0, DB_STMT_MUTES_ALL, DB_NOARGS);
}

void db_deliver_sanctions(const db_op_t *op)
{
    op->cb.fn.sanctions(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

/* ---- renaming and deleting accounts ------------------------------------------------ */

void db_user_rename(db_t *db, int64_t user, const char *name, const char *key, db_done_cb cb,
                    void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), user, DB_STMT_USER_RENAME,
             DB_ARGS(DB_INT(user), DB_TEXT_MAX(name, DB_NAME_MAX), DB_TEXT_MAX(key, DB_NAME_MAX)));
}

void db_user_delete(db_t *db, int64_t user, const char *node, db_done_cb cb, void *ud)
{
    static const int steps[] = {
        DB_STMT_USER_GAMES_JOURNAL_DELETE,
        DB_STMT_USER_GAMES_SNAPSHOTS_DELETE,
        DB_STMT_USER_GAMES_MILESTONES_DELETE,
        DB_STMT_USER_GAMES_DUMPS_DELETE,
        DB_STMT_USER_GAMES_DELETE,
        DB_STMT_USER_HOSTED_CHUNKS_DELETE,
        DB_STMT_USER_HOSTED_GAMES_DELETE,
        DB_STMT_USER_HOSTED_SCORES_DELETE,
        DB_STMT_USER_HOSTED_FILES_DELETE,
        DB_STMT_USER_HOSTED_FILE_SETS_DELETE,
        DB_STMT_USER_GAME_NAME_RETIRE, /* kept, never given again */
        DB_STMT_USER_DELETE,
    };
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), user);
    if (node && node[0]) {
        /* the leases first: a holder's batch (its lease row shared, then
         * its game's row) is waited for whole, never half */
        db_op_step(op, DB_STMT_USER_LEASES_LOCK, DB_ARGS(DB_INT(user)));
        db_op_step(op, DB_STMT_USER_GAMES_LOCK, DB_ARGS(DB_INT(user)));
        db_op_step(op, DB_STMT_USER_LEASES_FREE, DB_ARGS(DB_INT(user), DB_TEXT(node)));
    }
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        db_op_step(op, steps[i], DB_ARGS(DB_INT(user)));
    db_submit(db, op);
}
