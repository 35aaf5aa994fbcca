/* inbox — a player's unseen mail on a terminal (inbox.h). */
#include "inbox.h"
#include <string.h>
#include <time.h>
#include "menu.h"
#include "server.h"

void inbox_notify(server_t *srv, int64_t user)
{
    LIST_EACH (it, &srv->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing && c->user_id && (c->user_id == user || !user) && menu_at_main(c))
            inbox_show(c);
    }
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

static void on_unseen(void *ud, int status, const db_mail_t *m, size_t n)
{
    conn_t *c = ud;
    if (status == DB_OK && n > 0 && !c->closing && menu_at_main(c) && c->user_id) {
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
    conn_unref(c);
}

void inbox_show(conn_t *c)
{
    if (!c->user_id || c->ops->browser)
        return;
    conn_ref(c);
    db_mail_unseen(c->srv->db, c->user_id, on_unseen, c);
}
