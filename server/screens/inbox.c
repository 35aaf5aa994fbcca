/* inbox — a player's unseen mail on a terminal (inbox.h). */
#include "inbox.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "menu.h"
#include "server.h"
#include "shard.h"

/* On loop k: the user's terminals there (user 0: every logged-in one) show
 * their mail now if at the main menu, else once back there. */
static void notify_here(server_t *k, void *ud)
{
    int64_t user = *(const int64_t *)ud;
    LIST_EACH (it, &k->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (c->closing || !c->user_id || (user && c->user_id != user) || c->ops->browser)
            continue;
        if (menu_at_main(c))
            inbox_show(c);
        else
            menu_mail_later(c); /* in a game or another screen: once back */
    }
}

static void notify_done(server_t *home, void *ud)
{
    (void)home;
    free(ud);
}

void inbox_notify(server_t *srv, int64_t user)
{
    int64_t *u = malloc(sizeof *u);
    if (!u) { /* out of memory: the terminals on this loop only */
        notify_here(srv, &user);
        return;
    }
    *u = user;
    shards_each(srv, notify_here, u, notify_done); /* a game's terminal is on its loop */
}

#define WRAP 76 /* characters of a message per screen line */

/* The bytes of p's first WRAP characters (or fewer, to its end). */
static size_t wrap_at(const char *p)
{
    size_t k = 0;
    int chars = 0;
    for (; p[k]; k++)
        if (((unsigned char)p[k] & 0xC0) != 0x80 && ++chars > WRAP)
            break;
    return k;
}

/* One message as notice lines: who and when, then its text wrapped
 * (never inside a UTF-8 character). Returns the length, or 0 if it does
 * not fit in n. */
static size_t format_one(const db_mail_t *m, bool first, char *out, size_t n)
{
    char when[24];
    time_t t = (time_t)m->sent;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    size_t len = (size_t)snprintf(out, n, "%sMail from %s, %s:", first ? "" : "\n", m->from, when);
    for (const char *p = m->text; *p && len < n;) {
        size_t k = wrap_at(p);
        len += (size_t)snprintf(out + len, n - len, "\n  %.*s", (int)k, p);
        p += k;
    }
    return len < n ? len : 0;
}

/* Shows as much of m as fits in one notice and marks it seen. */
static void show_mail(conn_t *c, const db_mail_t *m, size_t n)
{
    char text[MENU_MSG_MAX];
    size_t len = 0;
    int64_t upto = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = format_one(&m[i], i == 0, text + len, sizeof text - len);
        if (k == 0)
            break; /* the rest next time */
        len += k;
        upto = m[i].id;
    }
    if (upto) {
        conn_message(c, text);
        db_mail_seen(c->srv->db, c->user_id, upto, NULL, NULL);
    }
}

/* One lookup of unseen mail: the terminal, and whose mail it asked for. */
typedef struct {
    conn_t *c;
    int64_t user_id;
} unseen_rq_t;

/* The answer shows only while the account that asked is still the one
 * logged in there: one that logged out and another in meanwhile is not
 * shown the first one's mail, nor is it marked seen. */
static void on_unseen(void *ud, int status, const db_mail_t *m, size_t n)
{
    unseen_rq_t *rq = ud;
    conn_t *c = rq->c;
    if (status == DB_OK && n > 0 && !c->closing && c->user_id && c->user_id == rq->user_id) {
        if (menu_at_main(c))
            show_mail(c, m, n);
        else
            menu_mail_later(c); /* it left the main menu meanwhile: once back */
    }
    conn_unref(c);
    free(rq);
}

void inbox_show(conn_t *c)
{
    if (!c->user_id || c->ops->browser)
        return;
    unseen_rq_t *rq = malloc(sizeof *rq);
    if (!rq) /* out of memory: shown the next time it is looked up */
        return;
    *rq = (unseen_rq_t){c, c->user_id};
    conn_ref(c);
    db_mail_unseen(c->srv->db, c->user_id, on_unseen, rq);
}
