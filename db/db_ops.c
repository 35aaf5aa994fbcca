/* db_ops — the operations of db.h: each public function names its
 * statements (db_internal.h's table) and fills their arguments; the row
 * readers turn result rows into db.h's types; the db_deliver_* functions
 * hand results to each callback type. */
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

/* ---- users ----------------------------------------------------------------- */

void db_user_create(db_t *db, const char *name, const char *name_key, const char *pwhash,
                    int64_t created, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), 0);
    db_op_step(op, DB_STMT_USER_INSERT,
               DB_ARGS(DB_TEXT_MAX(name, DB_NAME_MAX), DB_TEXT_MAX(name_key, DB_NAME_MAX),
                       DB_TEXT_MAX(pwhash, DB_PWHASH_MAX), DB_INT(created)));
    db_op_game(op, DB_OP_NO_GAME);
    db_submit(db, op);
}

void db_user_set_password(db_t *db, int64_t user, const char *pwhash, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), user, DB_STMT_USER_SET_PW,
             DB_ARGS(DB_INT(user), DB_TEXT_MAX(pwhash, DB_PWHASH_MAX)));
}

void db_user_set_options(db_t *db, int64_t user, const char *options, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), user, DB_STMT_USER_SET_OPTIONS,
             DB_ARGS(DB_INT(user), DB_TEXT_MAX(options, DB_OPTIONS_MAX)));
}

void db_user_set_locked(db_t *db, int64_t user, bool locked, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), user, DB_STMT_USER_SET_LOCKED,
             DB_ARGS(DB_INT(user), DB_INT(locked ? 1 : 0)));
}

/* ---- games ------------------------------------------------------------------ */

static bool too_long(const char *s, size_t max)
{
    return s && strlen(s) >= max;
}

int64_t db_game_create(db_t *db, const db_game_new_t *g, db_done_cb cb, void *ud)
{
    if (!db || !g || !g->content_version || too_long(g->content_version, DB_VERSION_MAX) ||
        too_long(g->race, DB_SHORT_MAX) || too_long(g->cls, DB_SHORT_MAX))
        return DB_EINVAL;
    int64_t id = db_next_game_id_(db);
    if (id <= 0)
        return DB_ERR;
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), id);
    db_op_step(op, DB_STMT_GAME_INSERT,
               DB_ARGS(DB_INT(id), DB_INT(g->user), DB_INT(g->seed), DB_TEXT(g->content_version),
                       DB_TEXT(g->race), DB_TEXT(g->cls), DB_INT(g->start_time)));
    db_lease_step_new(db, op, id);
    db_op_game(op, id);
    db_op_lazy(op); /* durable with its first key's append at the latest */
    db_submit(db, op);
    return id;
}

/* Fenced (db_lease_fence): the op's first step holds the game's lease row
 * (LEASE_HOLD, locked until the commit), so a write of a game another
 * node runs is refused (DB_ELEASE), as a journal append is. */
static void fence_step(db_t *db, db_op_t *op, int64_t game)
{
    const char *node = db_lease_node_(db, NULL);
    if (node)
        db_op_step(op, DB_STMT_LEASE_HOLD, DB_ARGS(DB_INT(game), DB_TEXT(node)));
}

void db_game_progress(db_t *db, int64_t game, const db_progress_t *p, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), game);
    fence_step(db, op, game);
    db_op_step(op, DB_STMT_GAME_PROGRESS,
               DB_ARGS(DB_INT(game), DB_INT(p->turns), DB_INT(p->depth), DB_INT(p->max_depth),
                       DB_INT(p->xl), DB_TEXT_MAX(p->race, DB_SHORT_MAX),
                       DB_TEXT_MAX(p->cls, DB_SHORT_MAX)));
    db_op_game(op, game);
    db_submit(db, op);
}

/* The end record, the milestones (replacing any), the dump; no snapshots. */
void db_game_finish(db_t *db, int64_t game, const db_game_end_t *end, const db_milestone_t *ms,
                    size_t nms, const char *dump, size_t dumplen, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), game);
    fence_step(db, op, game);
    db_op_step(op, DB_STMT_GAME_FINISH,
               DB_ARGS(DB_INT(game), DB_INT(end->end_time), DB_INT(end->turns), DB_INT(end->depth),
                       DB_INT(end->max_depth), DB_INT(end->xl), DB_INT(end->score),
                       DB_TEXT_MAX(end->cause, DB_CAUSE_MAX),
                       DB_TEXT_MAX(end->end_kind, DB_SHORT_MAX),
                       DB_TEXT_MAX(end->race, DB_SHORT_MAX), DB_TEXT_MAX(end->cls, DB_SHORT_MAX)));
    db_op_step(op, DB_STMT_MILESTONES_CLEAR, DB_ARGS(DB_INT(game)));
    for (size_t i = 0; i < nms; i++)
        db_op_step(op, DB_STMT_MILESTONE_INSERT,
                   DB_ARGS(DB_INT(game), DB_INT(ms[i].turn), DB_INT(ms[i].depth),
                           DB_TEXT(ms[i].kind), DB_TEXT(ms[i].text)));
    db_op_step(op, DB_STMT_DUMP_PUT, DB_ARGS(DB_INT(game), DB_TEXT_LEN(dump, dump ? dumplen : 0)));
    db_op_step(op, DB_STMT_SNAPSHOTS_DELETE, DB_ARGS(DB_INT(game)));
    db_submit(db, op);
}

void db_game_mark_broken(db_t *db, int64_t game, const char *reason, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), game);
    fence_step(db, op, game);
    db_op_step(op, DB_STMT_GAME_BROKEN, DB_ARGS(DB_INT(game), DB_TEXT(reason)));
    db_submit(db, op);
}

void db_game_broken_told(db_t *db, int64_t game, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_GAME_BROKEN_TOLD, DB_ARGS(DB_INT(game)));
}

void db_game_set_verified(db_t *db, int64_t game, int verified, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), game, DB_STMT_GAME_VERIFIED,
             DB_ARGS(DB_INT(game), DB_INT(verified)));
}

void db_hosted_score_add(db_t *db, const db_hosted_score_t *r, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_HOSTED_SCORE_INSERT,
             DB_ARGS(DB_INT(r->user), DB_TEXT(r->game), DB_TEXT(r->name), DB_TEXT(r->role),
                     DB_TEXT(r->race), DB_TEXT(r->gender), DB_TEXT(r->align), DB_INT(r->max_depth),
                     DB_TEXT(r->death), DB_INT(r->points), DB_INT(r->turns), DB_INT(r->realtime),
                     DB_INT(r->start_time), DB_INT(r->end_time)));
}

/* ---- journal and snapshots ---------------------------------------------------- */

void db_journal_append(db_t *db, int64_t game, int64_t seq, const uint8_t *keys, size_t len,
                       int64_t ms, db_done_cb cb, void *ud)
{
    const char *node = db_lease_node_(db, NULL);
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), seq);
    int64_t at = ms < 0 ? DB_MS_UNKNOWN : ms;
    if (node) /* fenced: only while this node holds the lease */
        db_op_step(
            op, DB_STMT_JOURNAL_INSERT_LEASED,
            DB_ARGS(DB_INT(game), DB_INT(seq), DB_BLOB(keys, len), DB_INT(at), DB_TEXT(node)));
    else
        db_op_step(op, DB_STMT_JOURNAL_INSERT,
                   DB_ARGS(DB_INT(game), DB_INT(seq), DB_BLOB(keys, len), DB_INT(at)));
    db_op_game(op, game);
    db_submit(db, op);
}

void db_snapshot_save(db_t *db, int64_t game, int64_t turn, int64_t seq, const uint8_t *blob,
                      size_t len, db_done_cb cb, void *ud)
{
    const char *node = db_lease_node_(db, NULL);
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), seq);
    if (node) /* fenced: never over another node's game */
        db_op_step(
            op, DB_STMT_SNAPSHOT_PUT_LEASED,
            DB_ARGS(DB_INT(game), DB_INT(turn), DB_INT(seq), DB_BLOB(blob, len), DB_TEXT(node)));
    else
        db_op_step(op, DB_STMT_SNAPSHOT_PUT,
                   DB_ARGS(DB_INT(game), DB_INT(turn), DB_INT(seq), DB_BLOB(blob, len)));
    db_op_step(op, DB_STMT_SNAPSHOTS_DELETE_OLDER, DB_ARGS(DB_INT(game), DB_INT(seq)));
    db_op_game(op, game);
    db_submit(db, op);
}

void db_journal_set_aside(db_t *db, int64_t game, int64_t seq, db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), 0);
    db_op_step(op, DB_STMT_JOURNAL_SET_ASIDE, DB_ARGS(DB_INT(game), DB_INT(seq)));
    db_op_step(op, DB_STMT_JOURNAL_DELETE_AFTER, DB_ARGS(DB_INT(game), DB_INT(seq)));
    db_op_step(op, DB_STMT_SNAPSHOTS_DELETE_AFTER, DB_ARGS(DB_INT(game), DB_INT(seq)));
    db_submit(db, op);
}

/* ---- web sessions -------------------------------------------------------------- */

void db_session_create(db_t *db, const char *token_hash, int64_t user, int64_t expires,
                       db_done_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(done, cb, ud), 0);
    db_op_step(op, DB_STMT_SESSION_INSERT,
               DB_ARGS(DB_TEXT(token_hash), DB_INT(user), DB_INT(expires)));
    db_op_step(op, DB_STMT_SESSIONS_TRIM,
               DB_ARGS(DB_INT(user), DB_TEXT(token_hash), DB_INT(DB_SESSIONS_PER_USER - 1)));
    db_op_game(op, DB_OP_NO_GAME);
    db_submit(db, op);
}

void db_session_delete(db_t *db, const char *token_hash, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_SESSION_DELETE, DB_ARGS(DB_TEXT(token_hash)));
}

void db_session_delete_user(db_t *db, int64_t user, const char *keep, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_SESSIONS_DELETE_USER,
             DB_ARGS(DB_INT(user), DB_TEXT(keep ? keep : "")));
}

void db_session_purge(db_t *db, int64_t now, db_done_cb cb, void *ud)
{
    db_queue(db, DB_ON(done, cb, ud), 0, DB_STMT_SESSION_PURGE, DB_ARGS(DB_INT(now)));
}

void db_deliver_done(const db_op_t *op)
{
    if (op->cb.fn.done)
        op->cb.fn.done(op->cb.ud, op->status, op->status == DB_OK ? op->id : 0);
}

/* ---- reads: users ---------------------------------------------------------------- */

static int read_user(const db_cur_t *st, void *row)
{
    db_user_t *u = row;
    u->id = db_col_int(st, 0);
    db_col_copy(st, 1, u->name, sizeof u->name);
    db_col_copy(st, 2, u->name_key, sizeof u->name_key);
    db_col_copy(st, 3, u->pwhash, sizeof u->pwhash);
    u->created = db_col_int(st, 4);
    u->locked = db_col_int(st, 5) != 0;
    db_col_copy(st, 6, u->options, sizeof u->options);
    db_col_copy(st, 7, u->game_name, sizeof u->game_name);
    return DB_OK;
}

const db_row_t db_row_user = {sizeof(db_user_t), 8, read_user, NULL};

/* name is matched through name_key: ASCII lowercase (names are ASCII by rule). */
void db_user_by_name(db_t *db, const char *name, db_user_cb cb, void *ud)
{
    char key[DB_NAME_MAX + 1]; /* a longer name matches no key */
    size_t n = 0;
    for (; name && name[n] && n < DB_NAME_MAX; n++)
        key[n] = name[n] >= 'A' && name[n] <= 'Z' ? (char)(name[n] - 'A' + 'a') : name[n];
    key[n] = '\0';
    db_queue(db, DB_ON(user, cb, ud), 0, DB_STMT_USER_BY_KEY, DB_ARGS(DB_TEXT(key)));
}

void db_user_by_id(db_t *db, int64_t user, db_user_cb cb, void *ud)
{
    db_queue(db, DB_ON(user, cb, ud), 0, DB_STMT_USER_BY_ID, DB_ARGS(DB_INT(user)));
}

void db_session_user(db_t *db, const char *token_hash, int64_t now, db_user_cb cb, void *ud)
{
    db_queue(db, DB_ON(user, cb, ud), 0, DB_STMT_USER_BY_SESSION,
             DB_ARGS(DB_TEXT(token_hash), DB_INT(now)));
}

void db_deliver_user(const db_op_t *op)
{
    op->cb.fn.user(op->cb.ud, op->status, db_op_first(op, 0));
}

/* ---- reads: games ------------------------------------------------------------------ */

static const char *const state_names[] = {"live", "finished", "broken"};

static int read_game(const db_cur_t *st, void *row)
{
    db_game_t *g = row;
    g->id = db_col_int(st, 0);
    g->user = db_col_int(st, 1);
    db_col_copy(st, 2, g->player, sizeof g->player);
    g->seed = (uint64_t)db_col_int(st, 3);
    db_col_copy(st, 4, g->content_version, sizeof g->content_version);
    db_col_copy(st, 5, g->race, sizeof g->race);
    db_col_copy(st, 6, g->cls, sizeof g->cls);
    g->start_time = db_col_int(st, 7);
    g->end_time = db_col_int(st, 8);
    g->turns = db_col_int(st, 9);
    g->depth = (int)db_col_int(st, 10);
    g->max_depth = (int)db_col_int(st, 11);
    g->xl = (int)db_col_int(st, 12);
    g->score = db_col_int(st, 13);
    db_col_copy(st, 14, g->cause, sizeof g->cause);
    db_col_copy(st, 15, g->end_kind, sizeof g->end_kind);
    g->verified = (int)db_col_int(st, 16);
    const char *s = db_col_text(st, 17);
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, state_names[i]) == 0)
            g->state = (db_game_state_t)i;
    db_col_copy(st, 18, g->broken_reason, sizeof g->broken_reason);
    g->broken_told = db_col_int(st, 19) != 0;
    return DB_OK;
}

const db_row_t db_row_game = {sizeof(db_game_t), 20, read_game, NULL};

void db_game_get(db_t *db, int64_t game, db_game_cb cb, void *ud)
{
    db_queue(db, DB_ON(game, cb, ud), 0, DB_STMT_GAME_BY_ID, DB_ARGS(DB_INT(game)));
}

void db_game_live_of_user(db_t *db, int64_t user, db_game_cb cb, void *ud)
{
    db_queue(db, DB_ON(game, cb, ud), 0, DB_STMT_GAME_LIVE_OF_USER, DB_ARGS(DB_INT(user)));
}

void db_scores_top(db_t *db, size_t limit, size_t offset, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_TOP,
             DB_ARGS(DB_INT(limit), DB_INT(offset)));
}

void db_games_of_user(db_t *db, int64_t user, size_t limit, size_t offset, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_OF_USER,
             DB_ARGS(DB_INT(user), DB_INT(limit), DB_INT(offset)));
}

void db_games_unfinished(db_t *db, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_LIVE, DB_NOARGS);
}

void db_games_broken(db_t *db, size_t limit, db_games_cb cb, void *ud)
{
    db_queue(db, DB_ON(games, cb, ud), 0, DB_STMT_GAMES_BROKEN, DB_ARGS(DB_INT(limit)));
}

void db_deliver_game(const db_op_t *op)
{
    op->cb.fn.game(op->cb.ud, op->status, db_op_first(op, 0));
}

void db_deliver_games(const db_op_t *op)
{
    op->cb.fn.games(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

/* ---- reads: milestones, dump ----------------------------------------------------- */

static int read_milestone(const db_cur_t *st, void *row)
{
    db_milestone_t *m = row;
    m->turn = db_col_int(st, 0);
    m->depth = (int)db_col_int(st, 1);
    m->kind = db_col_dup(st, 2, NULL);
    m->text = db_col_dup(st, 3, NULL);
    return m->kind && m->text ? DB_OK : DB_ENOMEM;
}

static void free_milestone(void *row)
{
    db_milestone_t *m = row;
    free((char *)m->kind);
    free((char *)m->text);
}

const db_row_t db_row_milestone = {sizeof(db_milestone_t), 4, read_milestone, free_milestone};

void db_milestones_get(db_t *db, int64_t game, db_milestones_cb cb, void *ud)
{
    db_queue(db, DB_ON(milestones, cb, ud), 0, DB_STMT_MILESTONES_OF, DB_ARGS(DB_INT(game)));
}

void db_deliver_milestones(const db_op_t *op)
{
    op->cb.fn.milestones(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

typedef struct {
    char *text;
    size_t len;
} text_row_t;

static int read_text(const db_cur_t *st, void *row)
{
    text_row_t *t = row;
    t->text = db_col_dup(st, 0, &t->len);
    return t->text ? DB_OK : DB_ENOMEM;
}

static void free_text(void *row)
{
    free(((text_row_t *)row)->text);
}

const db_row_t db_row_text = {sizeof(text_row_t), 1, read_text, free_text};

void db_dump_get(db_t *db, int64_t game, db_text_cb cb, void *ud)
{
    db_queue(db, DB_ON(text, cb, ud), 0, DB_STMT_DUMP_OF, DB_ARGS(DB_INT(game)));
}

void db_deliver_text(const db_op_t *op)
{
    const text_row_t *t = db_op_first(op, 0);
    op->cb.fn.text(op->cb.ud, op->status, t ? t->text : NULL, t ? t->len : 0);
}

/* ---- reads: journal and resume ------------------------------------------------------ */

static int read_journal(const db_cur_t *st, void *row)
{
    db_journal_row_t *r = row;
    r->seq = db_col_int(st, 0);
    r->keys = db_col_dup(st, 1, &r->len);
    r->ms = db_col_int(st, 2);
    return r->keys ? DB_OK : DB_ENOMEM;
}

static void free_journal(void *row)
{
    free((uint8_t *)((db_journal_row_t *)row)->keys);
}

const db_row_t db_row_journal = {sizeof(db_journal_row_t), 3, read_journal, free_journal};

void db_journal_read(db_t *db, int64_t game, int64_t after_seq, db_journal_cb cb, void *ud)
{
    db_queue(db, DB_ON(journal, cb, ud), 0, DB_STMT_JOURNAL_AFTER,
             DB_ARGS(DB_INT(game), DB_INT(after_seq)));
}

void db_deliver_journal(const db_op_t *op)
{
    op->cb.fn.journal(op->cb.ud, op->status, db_op_first(op, 0), db_op_count(op, 0));
}

typedef struct {
    int64_t turn, seq;
    uint8_t *blob;
    size_t len;
} snapshot_row_t;

static int read_snapshot(const db_cur_t *st, void *row)
{
    snapshot_row_t *s = row;
    s->turn = db_col_int(st, 0);
    s->seq = db_col_int(st, 1);
    s->blob = db_col_dup(st, 2, &s->len);
    return s->blob ? DB_OK : DB_ENOMEM;
}

static void free_snapshot(void *row)
{
    free(((snapshot_row_t *)row)->blob);
}

const db_row_t db_row_snapshot = {sizeof(snapshot_row_t), 3, read_snapshot, free_snapshot};

/* The game, its newest snapshot (if any), the journal after it. */
void db_game_resume(db_t *db, int64_t game, db_resume_cb cb, void *ud)
{
    db_op_t *op = db_op_begin(db, DB_ON(resume, cb, ud), 0);
    db_op_step(op, DB_STMT_GAME_BY_ID, DB_ARGS(DB_INT(game)));
    db_op_step(op, DB_STMT_SNAPSHOT_NEWEST, DB_ARGS(DB_INT(game)));
    db_op_step(op, DB_STMT_JOURNAL_AFTER_SNAPSHOT, DB_ARGS(DB_INT(game)));
    db_submit(db, op);
}

void db_deliver_resume(const db_op_t *op)
{
    const db_game_t *g = db_op_first(op, 0);
    if (!g) {
        op->cb.fn.resume(op->cb.ud, op->status, NULL);
        return;
    }
    db_resume_t r = {.game = *g, .rows = db_op_first(op, 2), .nrows = db_op_count(op, 2)};
    const snapshot_row_t *s = db_op_first(op, 1);
    if (s) {
        r.has_snapshot = true;
        r.snap_turn = s->turn;
        r.snap_seq = s->seq;
        r.snap = s->blob;
        r.snap_len = s->len;
    }
    op->cb.fn.resume(op->cb.ud, op->status, &r);
}
