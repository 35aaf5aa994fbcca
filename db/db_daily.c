/* db_daily — the daily game's rows (see db_daily.h). Statements live in
 * db_internal.h's table (DB_DAILY_STMTS). */
#include <string.h>
#include "db_daily.h"
#include "db_internal.h"

static bool day_ok(const char *day)
{
    return day && strlen(day) == DB_DAY_MAX - 1;
}

void db_daily_state(db_t *db, const char *day, int64_t user, db_number_cb cb, void *ud)
{
    db_queue(db, DB_ON(number, cb, ud), user, DB_STMT_DAILY_STATE,
             DB_ARGS(DB_TEXT_MAX(day, DB_DAY_MAX), DB_INT(user)));
}

int64_t db_daily_create(db_t *db, const char *day, const db_game_new_t *g, const uint8_t *keys,
                        size_t len, db_done_cb cb, void *ud)
{
    if (!db || !g || !g->content_version || !day_ok(day) || !keys || len == 0 ||
        strlen(g->content_version) >= DB_VERSION_MAX)
        return DB_EINVAL;
    int64_t id = db_next_game_id_(db);
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), id);
    db_op_step(op, DB_STMT_GAME_INSERT,
               DB_ARGS(DB_INT(id), DB_INT(g->user), DB_INT(g->seed), DB_TEXT(g->content_version),
                       DB_TEXT_MAX(g->race, DB_SHORT_MAX), DB_TEXT_MAX(g->cls, DB_SHORT_MAX),
                       DB_INT(g->start_time)));
    db_lease_step_new(db, op, id);
    db_op_step(op, DB_STMT_DAILY_INSERT,
               DB_ARGS(DB_TEXT_MAX(day, DB_DAY_MAX), DB_INT(g->user), DB_INT(id)));
    db_op_step(op, DB_STMT_JOURNAL_INSERT,
               DB_ARGS(DB_INT(id), DB_INT(1), DB_BLOB(keys, len), DB_INT(0)));
    db_submit(db, op);
    return id;
}

void db_daily_board(db_t *db, const char *day, size_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_DAILY_BOARD,
             DB_ARGS(DB_TEXT_MAX(day, DB_DAY_MAX), DB_INT(limit)));
}
