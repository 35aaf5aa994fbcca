/* mail_page — /mail: the signed-in player's unseen messages (then marked
 * seen) and a form to leave one for another player (mail.c does the
 * rest), in the site's shell (site.c). Everything a person wrote is
 * escaped. */
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "mail.h"
#include "webgw.h"

typedef struct {
    webgw_t *g;
    uint64_t id;
    bool post;
    char to[DB_NAME_MAX + 1];
    char text[MAIL_BYTES * 2 + 1]; /* a longer one is refused by mail_send */
    int textlen;
    int64_t user_id;
    bool gzip; /* the request takes gzip */
    char viewer[DB_NAME_MAX];
    char result[200]; /* what sending did */
    bool sent;
} mail_page_t;

static void page(mail_page_t *p, int status, const db_mail_t *m, size_t n)
{
    buf_t b;
    buf_init(&b);
    webgw_page_open(&b, "Mail", p->viewer, "/mail", NULL);
    buf_puts(&b, "<h2>Mail</h2>");
    if (p->result[0]) {
        buf_printf(&b, "<p id=\"result\" class=\"%s\">", p->sent ? "ok" : "msg");
        html_escape_str(&b, p->result);
        buf_puts(&b, "</p>");
    }
    if (n == 0 && !p->post)
        buf_puts(&b, "<p id=\"none\">No new messages.</p>");
    for (size_t i = 0; i < n; i++) {
        buf_puts(&b, "<article class=\"mail\"><p>From <b>");
        html_escape_str(&b, m[i].from);
        buf_puts(&b, "</b>, ");
        webgw_put_time(&b, m[i].sent);
        buf_puts(&b, "</p><p>");
        html_escape_str(&b, m[i].text);
        buf_puts(&b, "</p></article>");
    }
    buf_puts(&b, "<h2>Leave a message</h2><form method=\"post\" action=\"/mail\">"
                 "<label>To <input name=\"to\" required maxlength=\"20\" value=\"");
    if (!p->sent)
        html_escape_str(&b, p->to);
    buf_printf(&b, "\"></label><label>Message <textarea name=\"text\" required maxlength=\"%d\">",
               MAIL_MAX);
    if (!p->sent)
        html_escape_str(&b, p->text);
    buf_puts(&b, "</textarea></label><button type=\"submit\">Send</button></form>"
                 "<p>Shown at their next visit; at most 200 characters.</p>");
    webgw_page_close(&b);
    webgw_reply_html(p->g, p->id, status, &b, p->gzip);
    buf_free(&b);
}

static void on_unseen(void *ud, int status, const db_mail_t *m, size_t n)
{
    mail_page_t *p = ud;
    if (status != DB_OK)
        n = 0;
    page(p, p->post && !p->sent ? 400 : 200, m, n);
    if (n)
        db_mail_seen(p->g->srv->db, p->user_id, m[n - 1].id, NULL, NULL);
    free(p);
}

static void on_sent(void *ud, bool ok, const char *msg)
{
    mail_page_t *p = ud;
    p->sent = ok;
    snprintf(p->result, sizeof p->result, "%s", msg);
    db_mail_unseen(p->g->srv->db, p->user_id, on_unseen, p);
}

static void on_viewer(void *ud, const db_user_t *u)
{
    mail_page_t *p = ud;
    if (!u) {
        buf_t b;
        buf_init(&b);
        webgw_page_open(&b, "Mail", NULL, "/mail", NULL);
        buf_puts(&b, "<h2>Mail</h2><p>Log in first: <a href=\"/login?next=/mail\">log in</a>.</p>");
        webgw_page_close(&b);
        webgw_reply_html(p->g, p->id, 403, &b, p->gzip);
        buf_free(&b);
        free(p);
        return;
    }
    p->user_id = u->id;
    snprintf(p->viewer, sizeof p->viewer, "%s", u->name);
    if (p->post)
        mail_send(p->g->srv, u->id, p->to, p->text, (size_t)p->textlen, on_sent, p);
    else
        db_mail_unseen(p->g->srv->db, u->id, on_unseen, p);
}

int webgw_mail(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    mail_page_t *p = calloc(1, sizeof *p);
    if (!p) {
        web_reply(g->web, req->id, 503, "text/plain; charset=utf-8", NULL, "busy", 4);
        return 0;
    }
    p->g = g;
    p->id = req->id;
    p->post = req->post;
    p->gzip = req->gzip;
    if (p->post) {
        if (web_form_get(req->body, req->body_len, "to", p->to, sizeof p->to) < 0)
            p->to[0] = '\0';
        p->textlen = web_form_get(req->body, req->body_len, "text", p->text, sizeof p->text);
        if (p->textlen < 0) { /* absent, or longer than anything allowed */
            p->textlen = MAIL_BYTES + 1;
            p->text[0] = '\0';
        }
    }
    webgw_viewer(g, req->cookie, on_viewer, p);
    return 0;
}
