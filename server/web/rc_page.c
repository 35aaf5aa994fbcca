/* rc_page — /options/ID: the player's rc file of a hosted game ([game ID]
 * with an rcfile) as a textarea form, like the telnet menu's editor. The
 * file is the player's copy (%r), made from rc-default the first time;
 * saving replaces it whole. Posts are checked as every form's are (web.c:
 * same-site Origin or Referer; the session cookie is SameSite); the text
 * may have GAMECFG_RC_MAX bytes (the form's line ends become "\n") in
 * lines telnet's editor can show (gamecfg_rc_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "log.h"
#include "html.h"
#include "webgw.h"

typedef struct {
    webgw_t *g;
    uint64_t id;
    bool post, gzip;
    const gamecfg_t *game; /* the server's config */
    char here[64];         /* /options/ID */
    char *text;            /* a POST's rc text, owned */
    size_t len;
    char viewer[32]; /* the account's name, while the spawner answers */
} rc_req_t;

static void rc_req_free(rc_req_t *r)
{
    free(r->text);
    free(r);
}

static void rc_page(rc_req_t *r, const char *viewer, const char *text, size_t len, int status,
                    const char *msg, bool ok)
{
    buf_t b;
    buf_init(&b);
    webgw_page_open(&b, r->game->name, viewer, r->here, NULL);
    buf_puts(&b, "<h2>Your rc file of ");
    html_escape_str(&b, r->game->name);
    buf_puts(&b, "</h2>\n");
    if (msg) {
        buf_printf(&b, "<p class=\"%s\" id=\"msg\">", ok ? "ok" : "msg");
        html_escape_str(&b, msg);
        buf_puts(&b, "</p>\n");
    }
    buf_printf(&b,
               "<p>The game reads it when it starts: a change applies the next time you start "
               "it. At most %d bytes; telnet's menu edits the same file (e).</p>\n"
               "<form method=\"post\" action=\"%s\"><textarea name=\"rc\" rows=\"24\" "
               "cols=\"80\" spellcheck=\"false\" style=\"width:100%%;max-width:60em;"
               "background:#222;color:#eee;font:13px monospace\">",
               GAMECFG_RC_MAX, r->here);
    html_escape(&b, text, len);
    buf_puts(&b, "</textarea><br><button type=\"submit\">Save</button></form>\n");
    webgw_page_close(&b);
    webgw_reply_html(r->g, r->id, status, &b, r->gzip);
    buf_free(&b);
    rc_req_free(r);
}

static void on_rc_loaded(void *ud, const char *text, size_t len, const char *err)
{
    rc_req_t *r = ud;
    if (err) {
        log_error("rc file user=%s game=%s: %s", r->viewer, r->game->id, err);
        rc_page(r, r->viewer, "", 0, 500, err, false);
    } else
        rc_page(r, r->viewer, text, len, 200, NULL, false);
}

/* The page once the spawner has read the file (spawner.h: the loop does
 * not wait for it). */
static void rc_show(rc_req_t *r, const db_user_t *u)
{
    char err[200];
    if (hooks_rc_load(r->g->srv, r->game, u->game_name, on_rc_loaded, r, err, sizeof err) < 0) {
        log_error("rc file user=%s game=%s: %s", u->name, r->game->id, err);
        rc_page(r, u->name, "", 0, 500, err, false);
    }
}

static void on_rc_saved(void *ud, const char *text, size_t len, const char *err)
{
    rc_req_t *r = ud;
    (void)text, (void)len;
    if (err) {
        char msg[240];
        snprintf(msg, sizeof msg, "Not saved: %s.", err);
        rc_page(r, r->viewer, r->text, r->len, 400, msg, false);
    } else
        rc_page(r, r->viewer, r->text, r->len, 200, "Saved.", true);
}

static void on_rc_viewer(void *ud, const db_user_t *u)
{
    rc_req_t *r = ud;
    if (!u) {
        webgw_login_first(r->g, r->id, r->post, r->here);
        rc_req_free(r);
        return;
    }
    snprintf(r->viewer, sizeof r->viewer, "%s", u->name);
    if (!r->post) {
        rc_show(r, u);
        return;
    }
    char err[200];
    if (r->len > GAMECFG_RC_MAX) {
        snprintf(err, sizeof err,
                 "Not saved: the file may have at most %d bytes; this one has %zu.", GAMECFG_RC_MAX,
                 r->len);
        rc_page(r, u->name, r->text, r->len, 413, err, false);
    } else if (gamecfg_rc_check(r->text, r->len, err, sizeof err) < 0) { /* as telnet's editor */
        char msg[240];
        snprintf(msg, sizeof msg, "Not saved: %s.", err);
        rc_page(r, u->name, r->text, r->len, 400, msg, false);
    } else if (hooks_rc_save(r->g->srv, r->game, u->game_name, r->text, r->len, on_rc_saved, r, err,
                             sizeof err) < 0)
        rc_page(r, u->name, r->text, r->len, 400, err, false);
}

/* The posted rc field into r->text, "\r\n" made "\n"; false when absent. */
static bool rc_read(rc_req_t *r, const web_http_t *req)
{
    size_t cap = req->body_len + 1;
    if (!(r->text = malloc(cap)))
        return false;
    int n = web_form_get(req->body, req->body_len, "rc", r->text, cap);
    if (n < 0)
        return false;
    size_t k = 0;
    for (int i = 0; i < n; i++)
        if (!(r->text[i] == '\r' && i + 1 < n && r->text[i + 1] == '\n'))
            r->text[k++] = r->text[i];
    r->len = k;
    return true;
}

int webgw_rc(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    const gamecfg_t *game = gamecfg_find(&g->srv->cfg.games, req->param);
    if (!game || !game->rcfile[0]) {
        webgw_reply_text(g, req->id, 404, "No hosted game of that name has an rc file.\n");
        return 0;
    }
    rc_req_t *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    *r = (rc_req_t){.g = g, .id = req->id, .post = req->post, .gzip = req->gzip, .game = game};
    snprintf(r->here, sizeof r->here, "/options/%s", game->id);
    if (req->post && !rc_read(r, req)) {
        webgw_reply_text(g, req->id, 400, "The form has no rc field.\n");
        rc_req_free(r);
        return 0;
    }
    webgw_viewer(g, req->cookie, on_rc_viewer, r);
    return 0;
}
