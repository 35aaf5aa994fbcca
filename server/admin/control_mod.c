/* control_mod — the administrator's commands on people: kick, ban, unban,
 * bans, end, delete, rename, mute, unmute (see control.c for the socket).
 * Each is logged as "admin: COMMAND ...". A command on an account looks it
 * up first (ctl_with_user), then acts on what is live and writes what stays. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control_impl.h"
#include "hostclose.h"
#include "lease.h"
#include "log.h"
#include "menu.h"
#include "moderation.h"
#include "nodeend.h"
#include "notify.h"
#include "session.h"
#include "shard.h"
#include "webgw.h"
#include "accounts.h"

/* ---- shared steps -------------------------------------------------------------------- */

static void on_user(void *ud, int status, const db_user_t *u)
{
    ctl_t *c = ud;
    if (status != DB_OK) {
        ctl_finish(c, db_msg(c->srv, status));
        ctl_unref(c);
        return;
    }
    c->user_id = u->id;
    snprintf(c->name, sizeof c->name, "%s", u->name);
    c->then(c, u); /* it finishes and unrefs */
}

void ctl_with_user(ctl_t *c, const char *name, ctl_user_fn then)
{
    c->then = then;
    c->refs++;
    db_user_by_name(c->srv->db, name, on_user, c);
}

/* A write is done: the answer, then the reference the request held. A
 * conflict's answer says what is left undone (NULL: nothing changed). */
static void written(void *ud, int status, const char *undone)
{
    ctl_t *c = ud;
    if (status == DB_OK)
        ctl_finish(c, NULL);
    else
        ctl_fail(c, status, undone);
    ctl_unref(c);
}

static void on_written(void *ud, int status, int64_t id)
{
    (void)id;
    written(ud, status, NULL);
}

/* A ban's or mute's row is done: it holds in this node's memory already,
 * so a conflict's answer says what is not stored. */
static void on_sanction_written(void *ud, int status, int64_t id)
{
    (void)id;
    written(ud, status, "not stored: it holds at this node only, until it restarts");
}

/* ---- sweeps: live connections on every loop --------------------------------------------- */

typedef struct {
    ctl_t *ctl;
    sweep_kind_t kind;
    sweep_game_t game;
    int64_t user_id;
    bool web;
    char msg[160], line[200];
    char keep[DB_NAME_MAX]; /* a rename's new name: who logged in under it stays */
    atomic_int n;
    atomic_int_fast64_t game_id;
    ctl_swept_fn then;
} sweep_t;

static bool swept(const sweep_t *w, server_t *k, const conn_t *x, int64_t now)
{
    if (x->closing || w->kind == SWEEP_NONE || moderation_known_as(x, w->keep))
        return false;
    return w->kind == SWEEP_BANNED ? moderation_banned(k->mod, x->ip, now)
                                   : x->user_id == w->user_id;
}

/* The account's game on this loop, if any; its save is queued before home
 * goes on (a delete written after it). */
static void sweep_game(sweep_t *w, server_t *k)
{
    int64_t id = 0;
    if (w->game == GAME_CLOSE)
        id = session_close_user(k, w->user_id, w->msg);
    else if (w->game == GAME_ABANDON)
        id = session_abandon_user(k, w->user_id, "abandoned: ended by the administrator", w->msg);
    if (!id)
        return;
    atomic_store(&w->game_id, id);
    db_flush(k->db);
}

/* On each loop's thread: its game of the account, its telnet conns
 * (shards_each). */
static void sweep_loop(server_t *k, void *ud)
{
    sweep_t *w = ud;
    sweep_game(w, k);
    int64_t now = (int64_t)time(NULL);
    int n = 0;
    LIST_EACH (it, &k->conns) {
        conn_t *x = LIST_ITEM(it, conn_t, node);
        if (!swept(w, k, x, now))
            continue;
        n++;
        if (w->kind == SWEEP_LOG_OUT)
            menu_log_out(x, w->msg);
        else
            conn_tell_close(x, w->line, w->kind == SWEEP_BANNED ? "banned" : "kicked");
    }
    atomic_fetch_add(&w->n, n);
}

static void sweep_done(server_t *home, void *ud)
{
    sweep_t *w = ud;
    int n = atomic_load(&w->n);
    if (w->web)
        n += webgw_kick(home, w->kind == SWEEP_BANNED ? 0 : w->user_id, w->msg, w->keep);
    if (w->then)
        w->then(w->ctl, n, (int64_t)atomic_load(&w->game_id));
    ctl_unref(w->ctl);
    free(w);
}

/* ctl_sweep's, but those of the account logged in as keep (a rename's new
 * name, since it was stored; NULL: none) stay. */
static void sweep_start(ctl_t *c, sweep_kind_t kind, sweep_game_t game, const char *msg, bool web,
                        ctl_swept_fn then, const char *keep)
{
    sweep_t *w = calloc(1, sizeof *w);
    if (!w) {
        if (then)
            then(c, 0, 0);
        return;
    }
    *w = (sweep_t){
        .ctl = c, .kind = kind, .game = game, .user_id = c->user_id, .web = web, .then = then};
    snprintf(w->msg, sizeof w->msg, "%s", msg);
    snprintf(w->keep, sizeof w->keep, "%s", keep ? keep : "");
    if (kind == SWEEP_BANNED)
        snprintf(w->line, sizeof w->line, "\r\n%s\r\n", msg);
    else
        snprintf(w->line, sizeof w->line, "\033[m\033[H\033[2J\033[?25h%s\r\n", msg);
    c->refs++;
    shards_each(c->srv, sweep_loop, w, sweep_done);
}

void ctl_sweep(ctl_t *c, sweep_kind_t kind, sweep_game_t game, const char *msg, bool web,
               ctl_swept_fn then)
{
    sweep_start(c, kind, game, msg, web, then, NULL);
}

void ctl_sweep_off(ctl_t *c, sweep_kind_t kind, sweep_game_t game, moderation_why_t why,
                   ctl_swept_fn then)
{
    char msg[160];
    moderation_why_words(why, c->name2, msg, sizeof msg);
    sweep_start(c, kind, game, msg, true, then, why == MOD_RENAMED ? c->name2 : NULL);
}

/* "[DURATION]" after the first word of arg: *until (0 = until lifted). */
static int parse_until(ctl_t *c, char *arg)
{
    char *sp = strchr(arg, ' ');
    int64_t secs = 0;
    c->until = 0;
    if (!sp)
        return 0;
    *sp++ = '\0';
    if (moderation_parse_duration(sp, &secs))
        return -1;
    c->until = (int64_t)time(NULL) + secs;
    return 0;
}

static void say_until(ctl_t *c, const char *what)
{
    if (!c->until) {
        buf_printf(&c->out, "%s until lifted\n", what);
        return;
    }
    char when[32];
    time_t t = (time_t)c->until;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    buf_printf(&c->out, "%s until %s\n", what, when);
}

/* ---- kick ---------------------------------------------------------------------------- */

static void kicked(ctl_t *c, int n, int64_t game)
{
    (void)game;
    log_info("admin: kick user=%s connections=%d", c->name, n);
    moderation_send_off_nodes(c->srv, c->user_id, MOD_KICKED, NULL); /* and at other nodes */
    buf_printf(&c->out, "closed %d connection%s of %s; a live game waits for its player\n", n,
               n == 1 ? "" : "s", c->name);
    ctl_finish(c, NULL);
}

static void kick_user(ctl_t *c, const db_user_t *u)
{
    (void)u; /* c->user_id and c->name are its */
    ctl_sweep_off(c, SWEEP_CLOSE, GAME_KEEP, MOD_KICKED, kicked);
    ctl_unref(c);
}

void cmd_kick(ctl_t *c, char *arg)
{
    ctl_with_user(c, arg, kick_user);
}

/* ---- bans ------------------------------------------------------------------------------ */

static void banned(ctl_t *c, int n, int64_t game)
{
    (void)game;
    log_info("admin: ban net=%s until=%lld closed=%d", c->net, (long long)c->until, n);
    char what[128];
    snprintf(what, sizeof what, "banned %s (%d connection%s closed)", c->net, n, n == 1 ? "" : "s");
    say_until(c, what);
    c->refs++;
    db_ban_put(c->srv->db, c->net, c->until, (int64_t)time(NULL), on_sanction_written, c);
    moderation_tell_nodes(c->srv); /* after the row: other nodes read it */
}

void cmd_ban(ctl_t *c, char *arg)
{
    if (parse_until(c, arg))
        return ctl_finish(c, "bad duration (e.g. 90s, 30m, 12h, 7d, 2w)");
    if (moderation_parse_net(arg, c->net))
        return ctl_finish(c, "usage: ban ADDR[/PREFIX] [DURATION]");
    shards_lock_all(c->srv); /* every loop reads bans */
    int ret = moderation_ban(c->srv->mod, c->net, c->until);
    shards_unlock_all(c->srv);
    if (ret)
        return ctl_finish(c, "out of memory");
    ctl_sweep(c, SWEEP_BANNED, GAME_KEEP, "Connections from your address are refused.", true,
              banned);
}

void cmd_unban(ctl_t *c, char *arg)
{
    if (moderation_parse_net(arg, c->net))
        return ctl_finish(c, "usage: unban ADDR[/PREFIX]");
    shards_lock_all(c->srv);
    bool had = moderation_unban(c->srv->mod, c->net);
    shards_unlock_all(c->srv);
    if (!had)
        return ctl_finish(c, "no such ban (see bans)");
    log_info("admin: unban net=%s", c->net);
    buf_printf(&c->out, "lifted the ban on %s\n", c->net);
    c->refs++;
    db_ban_delete(c->srv->db, c->net, on_sanction_written, c);
    moderation_tell_nodes(c->srv);
}

static void list_sanctions(ctl_t *c, const char *kind, const db_sanction_t *s, size_t n)
{
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        if (s[i].until && s[i].until <= now)
            continue;
        char when[32] = "until lifted";
        time_t t = (time_t)s[i].until;
        struct tm tm;
        if (s[i].until && gmtime_r(&t, &tm))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        buf_printf(&c->out, "%-5s %-43s %s\n", kind, s[i].net, when);
    }
}

static void on_mutes_listed(void *ud, int status, const db_sanction_t *s, size_t n)
{
    ctl_t *c = ud;
    if (status == DB_OK)
        list_sanctions(c, "mute", s, n);
    ctl_finish(c, status == DB_OK ? NULL : db_msg(c->srv, status));
    ctl_unref(c);
}

static void on_bans_listed(void *ud, int status, const db_sanction_t *s, size_t n)
{
    ctl_t *c = ud;
    if (status != DB_OK) {
        ctl_finish(c, db_msg(c->srv, status));
        ctl_unref(c);
        return;
    }
    buf_printf(&c->out, "%-5s %-43s %s\n", "KIND", "ADDRESS-OR-NAME", "UNTIL");
    list_sanctions(c, "ban", s, n);
    db_mutes_list(c->srv->db, on_mutes_listed, c);
}

void cmd_bans(ctl_t *c, char *arg)
{
    (void)arg;
    c->refs++;
    db_bans_list(c->srv->db, on_bans_listed, c);
}

/* ---- end ------------------------------------------------------------------------------- */

/* A game no loop here runs may run at the node holding its lease, which
 * is asked (nodeend.h); what it answered: */
static void ended_there(void *ud, nodeend_result_t result)
{
    ctl_t *c = ud;
    if (result == NODEEND_ENDED) {
        log_info("admin: end user=%s game=%lld node=%s", c->name, (long long)c->game, c->end_node);
        buf_printf(&c->out, "ended game %lld of %s on node %s as abandoned; its record is kept\n",
                   (long long)c->game, c->name, c->end_node);
        ctl_finish(c, NULL);
    } else if (result == NODEEND_NONE) {
        ctl_finish(c, "no live game");
    } else {
        char why[160];
        snprintf(why, sizeof why, "node %s did not answer; game %lld may still run there",
                 c->end_node, (long long)c->game);
        if (result != NODEEND_SILENT)
            snprintf(why, sizeof why, "node %s runs game %lld; this node could not ask it to end",
                     c->end_node, (long long)c->game);
        ctl_finish(c, why);
    }
    ctl_unref(c);
}

/* The node holding the live game's lease: asked to end it there. */
static void on_end_holder(void *ud, int status, const char *node, size_t len)
{
    ctl_t *c = ud;
    if (status != DB_OK || strcmp(node, c->srv->cfg.node) == 0 || len >= sizeof c->end_node) {
        ctl_finish(c, status == DB_OK || status == DB_ENOTFOUND ? "no live game"
                                                                : db_msg(c->srv, status));
        return ctl_unref(c);
    }
    snprintf(c->end_node, sizeof c->end_node, "%s", node);
    nodeend_ask(c->srv, c->end_node, c->game, c->user_id, false, ended_there, c);
}

static void on_end_live(void *ud, int status, const db_game_t *g)
{
    ctl_t *c = ud;
    if (status != DB_OK) {
        ctl_finish(c, status == DB_ENOTFOUND ? "no live game" : db_msg(c->srv, status));
        return ctl_unref(c);
    }
    c->game = g->id;
    db_lease_holder(c->srv->db, g->id, on_end_holder, c);
}

static void ended(ctl_t *c, int n, int64_t id)
{
    (void)n;
    if (!id && lease_on(c->srv)) { /* not here: perhaps at the node holding its lease */
        c->refs++;
        db_game_live_of_user(c->srv->db, c->user_id, on_end_live, c);
        return;
    }
    if (!id) {
        ctl_finish(c, "no live game");
        return;
    }
    log_info("admin: end user=%s game=%lld", c->name, (long long)id);
    buf_printf(&c->out, "ended game %lld of %s as abandoned; its record is kept\n", (long long)id,
               c->name);
    ctl_finish(c, NULL);
}

static void end_user(ctl_t *c, const db_user_t *u)
{
    (void)u; /* c->user_id and c->name are its */
    ctl_sweep(c, SWEEP_NONE, GAME_ABANDON, "The game was ended by the administrator.", false,
              ended);
    ctl_unref(c);
}

void cmd_end(ctl_t *c, char *arg)
{
    ctl_with_user(c, arg, end_user);
}

/* ---- delete ---------------------------------------------------------------------------- */

/* Stored and its conns closed on every loop: its connections at other
 * nodes sent off as well; from now on nobody here plays as it. */
static void delete_swept(ctl_t *c, int n, int64_t game)
{
    (void)n, (void)game;
    moderation_deleting_clear(c->srv, c->user_id, c->delete_id);
    moderation_send_off_nodes(c->srv, c->user_id, MOD_DELETED, NULL);
    /* after: nobody plays meanwhile */
    notify_send(c->srv, NOTIFY_DELETING, "*", c->user_id, -c->delete_id);
    buf_printf(&c->out, "deleted %s and every game of it; its game name %s is retired\n", c->name,
               c->game_name);
    ctl_finish(c, NULL);
}

/* A delete that goes no further: its games may be played again, here
 * and at the other nodes. */
static void delete_unmark(ctl_t *c)
{
    moderation_deleting_clear(c->srv, c->user_id, c->delete_id);
    notify_send(c->srv, NOTIFY_DELETING, "*", c->user_id, -c->delete_id);
}

/* Nothing deleted: the error, and the request's reference. */
static void delete_refused(ctl_t *c, const char *why)
{
    delete_unmark(c);
    ctl_finish(c, why);
    ctl_unref(c);
}

/* Only a delete stored sends anyone off: a refused one (the database
 * failing, the account gone meanwhile) leaves every connection as it was,
 * its games to be played again. */
static void on_deleted(void *ud, int status, int64_t id)
{
    ctl_t *c = ud;
    if (status == DB_ELEASE) { /* a node took a game of it before it heard of the delete */
        char why[200];
        snprintf(why, sizeof why,
                 "another node took a game of %s meanwhile; nothing deleted "
                 "(try again)",
                 c->name);
        return delete_refused(c, why);
    }
    if (status == DB_ECONFLICT) { /* another delete of it, or a node's release, at once */
        char why[200];
        snprintf(why, sizeof why,
                 "the database was busy with %s's games at the same moment; nothing "
                 "deleted (try again)",
                 c->name);
        return delete_refused(c, why);
    }
    if (status != DB_OK) {
        delete_unmark(c);
        return on_written(ud, status, id); /* the error, and its reference */
    }
    log_info("admin: delete user=%s", c->name);
    accounts_sent_off(c->srv->acc, c->user_id, ACCOUNTS_EDENIED, NULL); /* logins in flight */
    shards_lock_all(c->srv); /* the other loops read mutes for chat */
    moderation_unmute(c->srv->mod, c->user_id);
    shards_unlock_all(c->srv);
    ctl_sweep_off(c, SWEEP_CLOSE, GAME_CLOSE, MOD_DELETED, delete_swept);
    ctl_unref(c); /* the sweep holds its own */
}

static void delete_rows(ctl_t *c)
{
    db_user_delete(c->srv->db, c->user_id, lease_on(c->srv) ? c->srv->cfg.node : NULL, on_deleted,
                   c);
}

/* test-delete-hold: the rows' delete waits, the moment between the game's
 * close and the rows' delete widened for a test. */
typedef struct {
    uv_timer_t t; /* first: freed through it */
    ctl_t *c;
} delete_hold_t;

static void on_hold_closed(uv_handle_t *h)
{
    free(h);
}

static void on_delete_held(uv_timer_t *t)
{
    ctl_t *c = ((delete_hold_t *)t)->c;
    uv_close((uv_handle_t *)t, on_hold_closed);
    delete_rows(c);
}

/* Its game closed here and at the node holding its lease: the rows go,
 * after test-delete-hold. */
static void delete_closed(ctl_t *c)
{
    int hold = c->srv->cfg.test_delete_hold;
    delete_hold_t *h = hold > 0 ? malloc(sizeof *h) : NULL;
    if (!h)
        return delete_rows(c);
    log_info("delete user=%s: its rows held %d ms (test-delete-hold)", c->name, hold);
    h->c = c;
    uv_timer_init(c->srv->loop, &h->t);
    uv_timer_start(&h->t, on_delete_held, (uint64_t)hold, 0);
}

#define HOSTED_TEXT_(n) #n
#define HOSTED_TEXT(n)  HOSTED_TEXT_(n)

/* The words of a close of the account's hosted games not done (node:
 * the one it names, NULL: here or none), and what the admin may do. */
static const struct {
    const char *what, *then;
} HOSTED_NOT[] = {
    [HOSTCLOSE_SILENT] = {"did not answer the close of the hosted games of",
                          "try again, or once that node stopped"},
    [HOSTCLOSE_UNSTORED] = {"could not end in time (a program still exiting, or a last copy "
                            "not stored) the hosted games of",
                            "try again, or once that node stopped"},
    [HOSTCLOSE_FAILED] = {"could not be asked to close the hosted games of", "try again"},
    [HOSTCLOSE_TOO_MANY] = {"are too many to ask to close the hosted games of",
                            "over " HOSTED_TEXT(HOSTCLOSE_NODES) " live, or a name over 63 "
                                                                 "bytes: try again once fewer run"},
};

static void hosted_closed(void *ud, hostclose_result_t result, const char *node)
{
    ctl_t *c = ud;
    if (result == HOSTCLOSE_DONE)
        return delete_closed(c);
    char why[400];
    snprintf(why, sizeof why, "%s%s %s %s; nothing deleted (%s)",
             node ? "node " : "the other nodes", node ? node : "", HOSTED_NOT[result].what, c->name,
             HOSTED_NOT[result].then);
    delete_refused(c, why);
}

static void hosted_here(void *ud, bool done)
{
    ctl_t *c = ud;
    if (!done)
        return delete_refused(c, "its hosted games here could not end in time (a program "
                                 "still exiting, or a last copy not stored); nothing deleted "
                                 "(try again)");
    hostclose_nodes(c->srv, c->user_id, hosted_closed, c);
}

/* Its games with a lease closed: those without one (hosted games, here
 * and at every live node) are closed and their last copies stored
 * before the rows go. */
static void delete_hosted(ctl_t *c)
{
    if (!lease_on(c->srv))
        return delete_closed(c);
    hostclose_here(c->srv, c->user_id, hosted_here, c);
}

/* The lease's holder closed the game (saved), or no longer had it. */
static void closed_there(void *ud, nodeend_result_t result)
{
    ctl_t *c = ud;
    if (result == NODEEND_ENDED || result == NODEEND_NONE) {
        log_info("delete user=%s: game=%lld %s at node %s", c->name, (long long)c->game,
                 result == NODEEND_ENDED ? "closed" : "not found", c->end_node);
        return delete_hosted(c);
    }
    char why[400];
    snprintf(why, sizeof why,
             "node %s %s game %lld of %s; nothing deleted (try again, or once that node "
             "stopped and its lease lapsed)",
             c->end_node, result == NODEEND_SILENT ? "did not answer the close of" : "runs",
             (long long)c->game, c->name);
    delete_refused(c, why);
}

static void on_delete_holder(void *ud, int status, const char *node, size_t len)
{
    ctl_t *c = ud;
    if (status == DB_ENOTFOUND || (status == DB_OK && strcmp(node, c->srv->cfg.node) == 0))
        return delete_hosted(c); /* no node holds it (a lapsed one's writes are refused) */
    if (status != DB_OK || len >= sizeof c->end_node)
        return delete_refused(c, status != DB_OK ? db_msg(c->srv, status) : "bad node name");
    snprintf(c->end_node, sizeof c->end_node, "%s", node);
    nodeend_ask(c->srv, c->end_node, c->game, c->user_id, true, closed_there, c);
}

static void on_delete_live(void *ud, int status, const db_game_t *g)
{
    ctl_t *c = ud;
    if (status == DB_ENOTFOUND)
        return delete_hosted(c);
    if (status != DB_OK)
        return delete_refused(c, db_msg(c->srv, status));
    c->game = g->id;
    db_lease_holder(c->srv->db, g->id, on_delete_holder, c);
}

/* Its game saved and closed on every loop (its saves queued before the
 * rows go), its player left at the menu, where no game of it starts
 * while it is marked (moderation_deleting, here and at every node); a
 * game of it another node runs is closed there (its lease's holder
 * asked, NOTIFY_CLOSE); then the rows go. A node holding it that does
 * not answer: nothing deleted, said. */
static void delete_saved(ctl_t *c, int n, int64_t game)
{
    (void)n;
    if (game || !lease_on(c->srv))
        return delete_hosted(c);
    db_game_live_of_user(c->srv->db, c->user_id, on_delete_live, c);
}

static void delete_user(ctl_t *c, const db_user_t *u)
{
    /* c->user_id and c->name are its; the lookup's reference goes on */
    snprintf(c->game_name, sizeof c->game_name, "%s", u->game_name);
    c->delete_id = moderation_deleting_mark(c->srv, c->user_id);
    if (c->delete_id < 0) {
        ctl_finish(c, "too many deletes under way at once: try again in a moment");
        return ctl_unref(c);
    }
    /* before any close it asks */
    notify_send(c->srv, NOTIFY_DELETING, "*", c->user_id, c->delete_id);
    ctl_sweep(c, SWEEP_NONE, GAME_CLOSE, "The administrator saved and closed your game.", false,
              delete_saved);
}

void cmd_delete(ctl_t *c, char *arg)
{
    *strchr(arg, ' ') = '\0'; /* "NAME --yes": control_parse checked */
    ctl_with_user(c, arg, delete_user);
}

/* ---- rename ---------------------------------------------------------------------------- */

/* Stored, its conns here logged out and its game saved: its connections
 * at other nodes, known there by the old name, told the new one too. */
static void rename_swept(ctl_t *c, int n, int64_t game)
{
    (void)n, (void)game;
    log_info("admin: rename user=%s to=%s", c->name, c->name2);
    moderation_send_off_nodes(c->srv, c->user_id, MOD_RENAMED, c->name2);
    buf_printf(&c->out,
               "renamed %s to %s; it logs in again under the new name; hosted games still "
               "know it as %s\n",
               c->name, c->name2, c->game_name);
    ctl_finish(c, NULL);
}

/* Only a rename stored sends anyone off: a failed one (the name taken
 * meanwhile, the database refusing) leaves every connection as it was. */
static void on_renamed(void *ud, int status, int64_t id)
{
    ctl_t *c = ud;
    if (status != DB_OK)
        return on_written(ud, status, id); /* the error, and its reference */
    /* logins in flight under the old name */
    accounts_sent_off(c->srv->acc, c->user_id, ACCOUNTS_EDENIED, c->name2);
    ctl_sweep_off(c, SWEEP_LOG_OUT, GAME_CLOSE, MOD_RENAMED, rename_swept);
    ctl_unref(c); /* the sweep holds its own */
}

static void rename_store(ctl_t *c)
{
    char key[DB_NAME_MAX];
    accounts_name_key(c->name2, key);
    db_user_rename(c->srv->db, c->user_id, c->name2, key, on_renamed, c);
}

/* The new name's owner, if any: another account's name is refused. */
static void on_new_name(void *ud, int status, const db_user_t *u)
{
    ctl_t *c = ud;
    if (status == DB_OK && u->id != c->user_id) {
        ctl_finish(c, "that name is taken");
        ctl_unref(c);
        return;
    }
    if (status != DB_OK && status != DB_ENOTFOUND) {
        ctl_finish(c, db_error(c->srv->db));
        ctl_unref(c);
        return;
    }
    rename_store(c);
}

static void rename_user(ctl_t *c, const db_user_t *u)
{
    /* c->user_id is its id */
    snprintf(c->game_name, sizeof c->game_name, "%s", u->game_name);
    db_user_by_name(c->srv->db, c->name2, on_new_name, c);
}

void cmd_rename(ctl_t *c, char *arg)
{
    char *to = strchr(arg, ' '); /* "OLD NEW": control_parse checked */
    *to++ = '\0';
    char why[160];
    if (accounts_check_name(to, why, sizeof why))
        return ctl_finish(c, why);
    snprintf(c->name2, sizeof c->name2, "%s", to);
    ctl_with_user(c, arg, rename_user);
}

/* ---- mute ------------------------------------------------------------------------------ */

static void mute_user(ctl_t *c, const db_user_t *u)
{
    shards_lock_all(c->srv); /* the other loops read mutes for chat */
    int ret = moderation_mute(c->srv->mod, u->id, c->until);
    shards_unlock_all(c->srv);
    if (ret) {
        ctl_finish(c, "out of memory");
        ctl_unref(c);
        return;
    }
    log_info("admin: mute user=%s until=%lld", u->name, (long long)c->until);
    char what[80];
    snprintf(what, sizeof what, "%s may not chat", u->name);
    say_until(c, what);
    db_mute_put(c->srv->db, u->id, c->until, on_sanction_written, c);
    moderation_tell_nodes(c->srv);
}

void cmd_mute(ctl_t *c, char *arg)
{
    if (parse_until(c, arg))
        return ctl_finish(c, "bad duration (e.g. 90s, 30m, 12h, 7d, 2w)");
    ctl_with_user(c, arg, mute_user);
}

static void unmute_user(ctl_t *c, const db_user_t *u)
{
    shards_lock_all(c->srv);
    moderation_unmute(c->srv->mod, u->id);
    shards_unlock_all(c->srv);
    log_info("admin: unmute user=%s", u->name);
    buf_printf(&c->out, "%s may chat again\n", u->name);
    db_mute_delete(c->srv->db, u->id, on_sanction_written, c);
    moderation_tell_nodes(c->srv);
}

void cmd_unmute(ctl_t *c, char *arg)
{
    ctl_with_user(c, arg, unmute_user);
}
