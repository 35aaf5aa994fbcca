/* mail — messages between players (see mail.h). */
#include "mail.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "log.h"
#include "server.h"

typedef struct {
    server_t *srv;
    int64_t from, to;
    char to_name[DB_NAME_MAX];
    char text[MAIL_MAX + 1];
    mail_sent_cb cb;
    void *ud;
} mail_req_t;

static void mail_done(mail_req_t *r, bool ok, const char *msg)
{
    r->cb(r->ud, ok, msg);
    free(r);
}

/* The recipient waits at the main menu on a terminal: it sees the message now. */
static void notify(server_t *srv, int64_t user)
{
    LIST_EACH (it, &srv->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->user_id == user && menu_at_main(c))
            mail_show(c);
    }
}

static void on_stored(void *ud, int status, int64_t id)
{
    mail_req_t *r = ud;
    (void)id;
    char msg[160];
    if (status == DB_OK) {
        log_info("mail from=%lld to=%s", (long long)r->from, r->to_name);
        notify(r->srv, r->to);
        snprintf(msg, sizeof msg, "Message left for %s.", r->to_name);
        mail_done(r, true, msg);
    } else if (status == DB_ENOTFOUND) {
        snprintf(msg, sizeof msg, "Not sent: %d messages an hour and 20 unread at most. Later!",
                 MAIL_PER_HOUR);
        mail_done(r, false, msg);
    } else
        mail_done(r, false, "Mail is not available right now.");
}

static void on_recipient(void *ud, int status, const db_user_t *u)
{
    mail_req_t *r = ud;
    if (status == DB_ENOTFOUND) {
        mail_done(r, false, "No such player.");
        return;
    }
    if (status != DB_OK) {
        mail_done(r, false, "Mail is not available right now.");
        return;
    }
    if (u->id == r->from) {
        mail_done(r, false, "That is you.");
        return;
    }
    r->to = u->id;
    snprintf(r->to_name, sizeof r->to_name, "%s", u->name);
    db_mail_send(r->srv->db, u->id, r->from, (int64_t)time(NULL), r->text, MAIL_PER_HOUR, on_stored,
                 r);
}

void mail_send(server_t *srv, int64_t from, const char *to, const char *text, size_t n,
               mail_sent_cb cb, void *ud)
{
    size_t start = strspn(text, " ");
    if (n <= start) {
        cb(ud, false, "An empty message is not sent.");
        return;
    }
    if (n > MAIL_MAX) {
        cb(ud, false, "A message is at most 200 bytes.");
        return;
    }
    mail_req_t *r = calloc(1, sizeof *r);
    if (!r) {
        cb(ud, false, "Mail is not available right now.");
        return;
    }
    *r = (mail_req_t){.srv = srv, .from = from, .cb = cb, .ud = ud};
    for (size_t i = 0; i < n; i++) /* text only: it is drawn on terminals */
        r->text[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' ' : text[i];
    db_user_by_name(srv->db, to, on_recipient, r);
}

/* ---- showing it ---------------------------------------------------------------- */

#define WRAP 76 /* bytes of a message per screen line */

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
        size_t k = strlen(p) > WRAP ? WRAP : strlen(p);
        while (k > 1 && ((unsigned char)p[k] & 0xC0) == 0x80)
            k--;
        len += (size_t)snprintf(out + len, n - len, "\n  %.*s", (int)k, p);
        p += k;
    }
    return len < n ? len : 0;
}

static void on_unseen(void *ud, int status, const db_mail_t *m, size_t n)
{
    conn_t *c = ud;
    if (status == DB_OK && n > 0 && !c->closing && menu_at_main(c) && c->user_id) {
        char text[640];
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
            menu_message(c, text);
            db_mail_seen(c->srv->db, c->user_id, upto, NULL, NULL);
        }
    }
    conn_unref(c);
}

void mail_show(conn_t *c)
{
    if (!c->user_id || c->ops->browser)
        return;
    conn_ref(c);
    db_mail_unseen(c->srv->db, c->user_id, on_unseen, c);
}
