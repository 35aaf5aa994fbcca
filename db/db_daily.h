/* db_daily — the daily game's table (schema.sql: daily): whether an
 * account may start today's game, the game and its daily row made in one
 * transaction, and a day's board. Same rules as db.h: queued from the loop
 * thread, called back on the loop with borrowed results. The day is text,
 * YYYY-MM-DD (UTC), checked by the caller. */
#ifndef WARREN_DB_DAILY_H
#define WARREN_DB_DAILY_H
#include "db.h"

#define DB_DAY_MAX 11 /* "YYYY-MM-DD" and its NUL */

/* What an account may do about day's game (db_daily_state's number). */
typedef enum {
    DB_DAILY_NEW = 0,   /* no attempt yet and no game in progress: it may start */
    DB_DAILY_LIVE = 1,  /* its attempt of that day is in progress: resume it */
    DB_DAILY_OTHER = 2, /* another game is in progress: finish it first */
    DB_DAILY_DONE = 3,  /* its one attempt of that day is over */
} db_daily_state_t;

/* cb's n is a db_daily_state_t. */
void db_daily_state(db_t *db, const char *day, int64_t user, db_number_cb cb, void *ud);
/* The game of g (as db_game_create: its id returned, or a negative DB_E*
 * and no callback) with its daily row for day and its first journal row
 * (keys, the character's choice), in one transaction: DB_EEXISTS, and
 * nothing stored, when the account already has a live game or an attempt
 * that day. */
int64_t db_daily_create(db_t *db, const char *day, const db_game_new_t *g, const uint8_t *keys,
                        size_t len, db_done_cb cb, void *ud);
/* Day's games, at most limit: those finished and verified by replay
 * first, by score (highest first, then earliest end), then the others
 * (live, unchecked, mismatched, broken) in the same order. */
void db_daily_board(db_t *db, const char *day, size_t limit, db_games_cb cb, void *ud);

#endif
