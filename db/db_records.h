/* db_records — the reads behind the score pages and replay verification:
 * filtered score tables, a player's totals, finished games not yet verified.
 * Same rules as db.h: queued from the loop thread, run on a reader thread,
 * called back on the loop with borrowed results. */
#ifndef WARREN_DB_RECORDS_H
#define WARREN_DB_RECORDS_H
#include "db.h"

typedef struct {
    const char *race, *cls; /* "" or NULL = any; matched ignoring case (copied) */
    int64_t since;          /* only games that ended at or after this time (0 = all) */
    size_t limit, offset;
} db_scores_filter_t;

/* Finished games matching f, by score (highest first, then earliest end). */
void db_scores_filtered(db_t *db, const db_scores_filter_t *f, db_games_cb cb, void *ud);

typedef struct {
    int64_t games; /* every game the user started */
    int64_t finished, live;
    int64_t verified, mismatched; /* finished games whose replay agreed / disagreed */
    int64_t turns;                /* summed over finished and live games (a live
                                     game's as of its last snapshot) */
    int max_depth;                /* deepest level reached in any game */
    int64_t first_start, last_end;
    int64_t best_game; /* id of the best finished game, 0 when none */
    int64_t best_score;
} db_player_totals_t;

typedef void (*db_totals_cb)(void *ud, int status, const db_player_totals_t *t);
void db_player_totals(db_t *db, int64_t user, db_totals_cb cb, void *ud);

/* Hosted games' end rows (db.h, db_hosted_score_t; strings borrowed for
 * the callback): of one [game ID] by points (highest first, then earliest
 * end), or of one user, newest first. */
typedef void (*db_hosted_cb)(void *ud, int status, const db_hosted_score_t *r, size_t n);
void db_hosted_scores_top(db_t *db, const char *game, size_t limit, size_t offset, db_hosted_cb cb,
                          void *ud);
void db_hosted_scores_of_user(db_t *db, int64_t user, size_t limit, db_hosted_cb cb, void *ud);

/* One line of the lobby's feed of recent events across games, newest
 * first: kind is an end of Warren's game ("dead", "won", "quit": text its
 * cause, score its score, link its games id), one of its milestones
 * ("milestone": text, score the turn, at the game's end time) or a hosted
 * game's end ("hosted": game its [game ID], text the xlogfile's death,
 * score its points, link its recording, 0 when none). Strings borrowed
 * for the callback. */
typedef struct {
    int64_t time;
    const char *player, *game, *kind, *text;
    int64_t link, score;
    int depth;
} db_feed_t;
typedef void (*db_feed_cb)(void *ud, int status, const db_feed_t *f, size_t n);
/* The newest limit lines (of each kind's newest limit). */
void db_feed_recent(db_t *db, size_t limit, db_feed_cb cb, void *ud);

/* Finished games with verified = 0 and id > after_id, by id, at most limit. */
void db_games_unverified(db_t *db, int64_t after_id, size_t limit, db_games_cb cb, void *ud);

#endif
