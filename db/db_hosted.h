/* db_hosted — hosted games' recordings: a hosted_games row per game (never
 * a `games` row: nothing replays these through Warren's engine) and its
 * output in compressed chunks (hosted_chunks). Same rules as db.h: queued
 * from the loop thread, called back on the loop with borrowed results. */
#ifndef WARREN_DB_HOSTED_H
#define WARREN_DB_HOSTED_H
#include "db.h"

#define DB_HOSTED_ID_MAX 32 /* bytes of a [game ID], with its NUL */

typedef struct {
    int64_t id, user;
    char player[DB_NAME_MAX];
    char game[DB_HOSTED_ID_MAX];  /* [game ID] */
    int64_t start_time, end_time; /* Unix seconds; end 0 while it may go on */
    int width, height;            /* the window at the start */
    int64_t bytes;                /* raw output recorded */
    bool truncated;               /* record-max stopped the recording */
    int64_t score;                /* its hosted_scores row, 0 if none */
    int64_t chunks;               /* the highest chunk seq stored, 0 if none */
    int64_t last_ms;              /* the time of the newest chunk */
    int64_t day_bytes;            /* db_hosted_game_open only: raw output of the user's
                                     other recordings begun in the 24 hours before now */
} db_hosted_game_t;

typedef struct {
    int64_t seq, ms;
    const void *data; /* compressed (recchunk.h) */
    size_t len;
} db_hosted_chunk_t;

/* g is NULL when status is not DB_OK; score is its linked xlogfile row (or
 * NULL); chunks are given only by db_hosted_game_chunks. All borrowed. */
typedef void (*db_hosted_game_cb)(void *ud, int status, const db_hosted_game_t *g,
                                  const db_hosted_score_t *score, const db_hosted_chunk_t *chunks,
                                  size_t n);

/* The user's open recording of game (end_time 0), made when there is
 * none (start_time, width, height as given) unless day_max (> 0) bytes
 * are recorded already in the user's recordings begun after start_time -
 * 86400 (then DB_ENOTFOUND); its day_bytes counts the user's other
 * recordings begun then. */
void db_hosted_game_open(db_t *db, int64_t user, const char *game, int64_t start_time, int w, int h,
                         int64_t day_max, db_hosted_game_cb cb, void *ud);
/* One chunk (data copied; NULL: none), numbered after the row's last, and
 * bytes more raw output counted on the row; truncated sets its flag. */
void db_hosted_chunk_add(db_t *db, int64_t id, int64_t ms, const void *data, size_t len,
                         int64_t bytes, bool truncated, db_done_cb cb, void *ud);
/* The game ended at end_time: with score (an xlogfile row, stored as
 * db_hosted_score_add does) it is linked to that row. */
void db_hosted_game_end(db_t *db, int64_t id, int64_t end_time, const db_hosted_score_t *score,
                        db_done_cb cb, void *ud);

/* A recording's row and its score row; DB_ENOTFOUND if none. */
void db_hosted_game_get(db_t *db, int64_t id, db_hosted_game_cb cb, void *ud);
/* The same with its chunks after seq after, up to seq upto, in order: at
 * most limit of them (a recording is read a few chunks at a time). */
void db_hosted_game_chunks(db_t *db, int64_t id, int64_t after, int64_t upto, int limit,
                           db_hosted_game_cb cb, void *ud);
/* The end times (Unix seconds) of the user's xlogfile rows (any hosted
 * game) that ended after since, newest first: at most limit of them
 * (games-per-hour, hostgame.c). */
void db_hosted_ends_since(db_t *db, int64_t user, int64_t since, int limit, db_game_ids_cb cb,
                          void *ud);

/* ---- a hosted game's files, copied so that another node can restore it ---- */

#define DB_HOSTED_PATH_MAX 201 /* bytes of a file's path, with its NUL (hostfiles.h) */
#define DB_HOSTED_NODE_MAX 64

/* A player's set of files of a game: gen counts its copies, node holds
 * the game (only it may copy), bytes -1 when the last copy was over the
 * section's copy-max (the files kept are older), uid and gid the ids
 * its files were read as at the last copy (-1: unknown). */
typedef struct {
    int64_t gen;
    char node[DB_HOSTED_NODE_MAX];
    int64_t bytes;
    int64_t uid, gid;
} db_hosted_file_set_t;

/* One file of a set (data borrowed). */
typedef struct {
    char path[DB_HOSTED_PATH_MAX];
    const void *data;
    size_t len;
} db_hosted_file_t;

/* set is NULL unless status is DB_OK (DB_ENOTFOUND: no copy); set and
 * files borrowed for the call. */
typedef void (*db_hosted_files_cb)(void *ud, int status, const db_hosted_file_set_t *set,
                                   const db_hosted_file_t *files, size_t n);

/* node holds user's set of game from now on (made, empty, when none). */
void db_hosted_files_claim(db_t *db, int64_t user, const char *game, const char *node, int64_t at,
                           db_done_cb cb, void *ud);
/* user's files of game replaced by files (n of them, bytes in all; data
 * copied) and its generation counted, at (Unix seconds), read as uid
 * and gid (the game's user), in one transaction; files NULL: the copy
 * was over copy-max (bytes -1 kept, the older files too). DB_ENOTFOUND,
 * nothing changed, when node does not hold the set (another node
 * claimed it since). */
void db_hosted_files_put(db_t *db, int64_t user, const char *game, const char *node, int64_t at,
                         int64_t uid, int64_t gid, const db_hosted_file_t *files, size_t n,
                         int64_t bytes, db_done_cb cb, void *ud);
/* user's set of game and its files, in path order. */
void db_hosted_files_get(db_t *db, int64_t user, const char *game, db_hosted_files_cb cb, void *ud);

#endif
