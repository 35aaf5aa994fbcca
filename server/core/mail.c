/* mail — messages between players (see mail.h). */
#include "mail.h"
#include "screen.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hooks.h"
#include "log.h"
#include "notify.h"
#include "server.h"

typedef struct {
    server_t *srv;
    int64_t from, to;
    char to_name[DB_NAME_MAX];
    char text[MAIL_BYTES + 1];
    mail_sent_cb cb;
    void *ud;
} mail_req_t;

static void mail_done(mail_req_t *r, bool ok, const char *msg)
{
    r->cb(r->ud, ok, msg);
    free(r);
}

static void on_stored(void *ud, int status, int64_t id)
{
    mail_req_t *r = ud;
    (void)id;
    char msg[160];
    if (status == DB_OK) {
        log_info("mail from=%lld to=%s", (long long)r->from, r->to_name);
        HOOKS_CALL(r->srv->hooks->mail_left, r->srv, r->to); /* a terminal at the menu shows it */
        notify_send(r->srv, NOTIFY_MAIL, "*", r->to, 0);     /* or one at another node */
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

/* A byte drawn as nothing: a space, or a control character (made one). */
static bool mail_blank(unsigned char b)
{
    return b <= 0x20 || b == 0x7f;
}

void mail_send(server_t *srv, int64_t from, const char *to, const char *text, size_t n,
               mail_sent_cb cb, void *ud)
{
    if (n > MAIL_BYTES || utf8_chars(text, n) > MAIL_MAX) {
        cb(ud, false, "A message is at most 200 characters.");
        return;
    }
    size_t start = 0;
    while (start < n && mail_blank((unsigned char)text[start]))
        start++;
    if (n <= start) {
        cb(ud, false, "An empty message is not sent.");
        return;
    }
    mail_req_t *r = calloc(1, sizeof *r);
    if (!r) {
        cb(ud, false, "Mail is not available right now.");
        return;
    }
    *r = (mail_req_t){.srv = srv, .from = from, .cb = cb, .ud = ud};
    for (size_t i = 0; i < n; i++) /* text only: it is drawn on terminals */
        r->text[i] = mail_blank((unsigned char)text[i]) ? ' ' : text[i];
    db_user_by_name(srv->db, to, on_recipient, r);
}

void mail_left_elsewhere(server_t *home, const char *to, int64_t user_id, int64_t b)
{
    (void)to, (void)b;
    HOOKS_CALL(home->hooks->mail_left, home, user_id);
}
