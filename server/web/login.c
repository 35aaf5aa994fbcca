/* login — the daemon's account pages: log in, register, log out, change
 * the password.
 *
 * Plain forms that work without JavaScript. They go through the same
 * accounts_t as telnet (same name and password rules, same throttles per
 * address and per name and address). A successful login or registration
 * makes a session: a random 128-bit token in the cookie (HttpOnly,
 * SameSite=Strict, Secure when the request came over https through a
 * trusted proxy, expires after COOKIE_DAYS), its hash in the database. A
 * password change ends the account's other sessions; a logout closes
 * the websockets opened with its own (a game left open in another tab).
 * Forms posted from another site never get here (web.c answers 403).
 * Everything a person typed that is shown again is HTML-escaped. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sodium.h>
#include "accounts.h"
#include "listener.h"
#include "log.h"
#include "logcap.h"
#include "html.h"
#include "webgw.h"

#define COOKIE_DAYS 30
#define TOKEN_BYTES 16
#define FIELD_MAX   256
#define PW_MAX      (ACCOUNTS_PASSWORD_BYTES + 1) /* a password field's room */

typedef struct {
    webgw_t *g;
    uint64_t id;
    bool reg, https;
    char name[FIELD_MAX];
    char next[128];
    char token[48];
    char hash[65];        /* a logout's session (its token's hash), "" none */
    int64_t user_id;      /* a login's account */
    char ip[64], key[64]; /* the client's address, and its key (addrkey.h) */
} auth_req_t;

/* ---- helpers ------------------------------------------------------------------- */

int64_t webgw_unix_now(void)
{
    return (int64_t)time(NULL);
}

void webgw_token_hash(const char *token, char out[65])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(out, 65, h, sizeof h);
}

void webgw_safe_next(const char *in, char *out, size_t cap)
{
    bool ok = in[0] == '/' && in[1] != '/' && in[1] != '\\' && strlen(in) < cap;
    for (const char *p = in; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             strchr("/_-.?=&%", *p);
    snprintf(out, cap, "%s", ok ? in : "/");
}

/* A form page's start for viewer (NULL: a visitor): the shell and its title. */
static void page_start_for(buf_t *b, const char *title, const char *viewer)
{
    webgw_page_open(b, title, viewer, "/", "form");
    buf_puts(b, "<h2>");
    buf_puts(b, title);
    buf_puts(b, "</h2>");
}

static void page_start(buf_t *b, const char *title)
{
    page_start_for(b, title, NULL);
}

static void page_end(buf_t *b)
{
    webgw_page_close(b);
}

static void reply_page(webgw_t *g, uint64_t id, int status, buf_t *b)
{
    if (b->failed)
        web_reply(g->web, id, 500, "text/plain; charset=utf-8", NULL, "out of memory", 13);
    else
        web_reply(g->web, id, status, NULL, NULL, b->data, b->len);
}

static void field(buf_t *b, const char *label, const char *name, const char *type,
                  const char *value, const char *ac)
{
    buf_printf(b, "<label>%s <input name=\"%s\" type=\"%s\" autocomplete=\"%s\" required", label,
               name, type, ac);
    if (value) {
        buf_puts(b, " value=\"");
        html_escape_str(b, value);
        buf_putc(b, '"');
    }
    buf_puts(b, "></label>");
}

void webgw_login_form(buf_t *b, bool reg, const char *msg, const char *name, const char *next)
{
    page_start(b, reg ? "Register" : "Log in");
    if (msg[0]) {
        buf_puts(b, "<p class=\"msg\" id=\"msg\">");
        html_escape_str(b, msg);
        buf_puts(b, "</p>");
    }
    buf_printf(b,
               "<form method=\"post\" action=\"%s\"><input type=\"hidden\" name=\"next\" value=\"",
               reg ? "/register" : "/login");
    html_escape_str(b, next);
    buf_puts(b, "\">");
    field(b, "Name", "name", "text", name, "username");
    field(b, "Password", "password", "password", NULL, reg ? "new-password" : "current-password");
    if (reg)
        field(b, "Password again", "password2", "password", NULL, "new-password");
    buf_printf(b, "<button type=\"submit\">%s</button></form>", reg ? "Register" : "Log in");
    buf_puts(b, reg ? "<p>Names are 2-20 letters, digits, _ or -. Passwords are 8-128 characters. "
                      "Already registered? <a href=\"/login?next="
                    : "<p>No account yet? <a href=\"/register?next=");
    url_escape(b, next);
    buf_puts(b, reg ? "\">Log in</a></p>" : "\">Register</a></p>");
    page_end(b);
}

/* The login or registration form, with a message when msg is not "". */
static void reply_form(webgw_t *g, uint64_t id, int status, bool reg, const char *msg,
                       const char *name, const char *next)
{
    buf_t b;
    buf_init(&b);
    webgw_login_form(&b, reg, msg, name, next);
    reply_page(g, id, status, &b);
    buf_free(&b);
}

static int status_of(int acc_status)
{
    switch (acc_status) {
    case ACCOUNTS_EINVAL: return 400;
    case ACCOUNTS_EEXISTS: return 409;
    case ACCOUNTS_EDENIED:
    case ACCOUNTS_ELOCKED: return 403;
    case ACCOUNTS_ETHROTTLED: return 429;
    case ACCOUNTS_EBUSY: return 503;
    default: return 500;
    }
}

/* The session cookie's Set-Cookie value: token ("" clears it), Secure when
 * the browser came over https. */
static void cookie_value(char *out, size_t n, const char *token, bool https)
{
    snprintf(out, n, "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s", WEB_COOKIE_NAME,
             token, token[0] ? COOKIE_DAYS * 86400 : 0, https ? "; Secure" : "");
}

/* ---- login and registration ------------------------------------------------------ */

/* id: how many of the account's sessions past the cap were deleted. */
static void on_session_made(void *ud, int status, int64_t id)
{
    auth_req_t *ar = ud;
    if (status != DB_OK) {
        log_error("web session store failed: %d", status);
        reply_form(ar->g, ar->id, 500, ar->reg,
                   "The server could not log you in. Please try again.", ar->name, ar->next);
    } else {
        webgw_login_made(ar->g->srv, ar->user_id, id); /* sessions past the cap end */
        char cookie[160], to[sizeof ar->next + 16];
        cookie_value(cookie, sizeof cookie, ar->token, ar->https);
        /* a new account: the page it lands on says it was made (site.c) */
        snprintf(to, sizeof to, "%s%s", ar->next,
                 !ar->reg                ? ""
                 : strchr(ar->next, '?') ? "&welcome=1"
                                         : "?welcome=1");
        const char *hdrs[] = {"location:", to, "set-cookie:", cookie, NULL};
        web_reply(ar->g->web, ar->id, 303, "text/plain; charset=utf-8", hdrs, "", 0);
    }
    sodium_memzero(ar->token, sizeof ar->token);
    free(ar);
}

/* Logins and registrations under the log's cap (logcap.h), as the
 * terminal's (menu_account.c): [register][ok, failed, refused, locked]. */
static const logcap_kind_t SAY_ACCOUNT[2][4] = {
    {{"web login", 5, 1000},
     {"web login failed"},
     {"web login refused"},
     {"web login to a locked account", 1, 1000}},
    {{"web register", 5, 1000}, {"web register failed"}, {"web register refused"}, {"-"}},
};

static void on_account(void *ud, int status, const db_user_t *u, const char *msg)
{
    auth_req_t *ar = ud;
    webgw_t *g = ar->g;
    if (status != ACCOUNTS_OK || !u) {
        /* throttled and busy answers cost nothing and can come by the
         * thousand, failed checks hardly more */
        bool cheap = status == ACCOUNTS_ETHROTTLED || status == ACCOUNTS_EBUSY;
        int k = cheap ? 2 : status == ACCOUNTS_ELOCKED && !ar->reg ? 3 : 1;
        logcap_say(g->srv->strangers, now_ms(g->srv), LOG_INFO, &SAY_ACCOUNT[ar->reg][k], ar->key,
                   "web %s %s ip=%s status=%d", ar->reg ? "register" : "login",
                   cheap ? "refused" : "failed", ar->ip, status);
        reply_form(g, ar->id, status_of(status), ar->reg, msg[0] ? msg : "That did not work.",
                   ar->name, ar->next);
        free(ar);
        return;
    }
    logcap_say_user(g->srv->strangers, now_ms(g->srv), LOG_INFO, &SAY_ACCOUNT[ar->reg][0], ar->key,
                    u->name, "web %s user=%s ip=%s", ar->reg ? "register" : "login", u->name,
                    ar->ip);
    unsigned char raw[TOKEN_BYTES];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2base64(ar->token, sizeof ar->token, raw, sizeof raw,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    char h[65];
    webgw_token_hash(ar->token, h);
    ar->user_id = u->id;
    db_session_create(g->srv->db, h, u->id, webgw_unix_now() + COOKIE_DAYS * 86400, on_session_made,
                      ar);
}

/* A pending account request for req, or NULL after answering 503. */
static auth_req_t *auth_req_new(webgw_t *g, const web_http_t *req)
{
    auth_req_t *ar = calloc(1, sizeof *ar);
    if (!ar) {
        web_reply(g->web, req->id, 503, "text/plain; charset=utf-8", NULL, "busy", 4);
        return NULL;
    }
    ar->g = g;
    ar->id = req->id;
    ar->https = req->https;
    snprintf(ar->ip, sizeof ar->ip, "%s", req->ip);
    snprintf(ar->key, sizeof ar->key, "%s", req->key);
    return ar;
}

static void auth_post(webgw_t *g, const web_http_t *req, bool reg)
{
    char next[128] = "/", pw[PW_MAX], pw2[PW_MAX];
    auth_req_t *ar = auth_req_new(g, req);
    if (!ar)
        return;
    ar->reg = reg;
    if (web_form_get(req->body, req->body_len, "next", next, sizeof next) < 0)
        snprintf(next, sizeof next, "/");
    webgw_safe_next(next, ar->next, sizeof ar->next);
    int nl = web_form_get(req->body, req->body_len, "name", ar->name, sizeof ar->name);
    int pl = web_form_get(req->body, req->body_len, "password", pw, sizeof pw);
    int p2 = reg ? web_form_get(req->body, req->body_len, "password2", pw2, sizeof pw2) : pl;
    const char *err = NULL;
    if (nl < 0)
        err = "Give a name (2-20 letters, digits, _ or -).";
    else if (pl < 0)
        err = "Give a password (8-128 characters).";
    else if (reg && (p2 != pl || memcmp(pw, pw2, (size_t)pl) != 0))
        err = "The two passwords differ.";
    if (nl < 0)
        ar->name[0] = 0;
    int ret = -1;
    if (!err) {
        uint64_t now = now_ms(g->srv);
        ret = reg ? accounts_register(g->srv->acc, req->key, ar->name, pw, (size_t)pl, now,
                                      on_account, ar)
                  : accounts_login(g->srv->acc, req->key, ar->name, pw, (size_t)pl, now, on_account,
                                   ar);
        if (ret != 0)
            err = "The server cannot check accounts right now.";
    }
    sodium_memzero(pw, sizeof pw);
    sodium_memzero(pw2, sizeof pw2);
    if (err) {
        reply_form(g, req->id, ret == -1 ? 400 : 503, reg, err, ar->name, ar->next);
        free(ar);
    }
}

/* ---- logout -------------------------------------------------------------------------- */

static void on_logged_out(void *ud, int status, int64_t id)
{
    auth_req_t *ar = ud;
    (void)status;
    (void)id;
    char cookie[128];
    /* a game left open in another tab is logged out too (a shared computer) */
    webgw_end_session(ar->g->srv, ar->hash);
    cookie_value(cookie, sizeof cookie, "", ar->https);
    const char *hdrs[] = {"location:", "/", "set-cookie:", cookie, NULL};
    web_reply(ar->g->web, ar->id, 303, "text/plain; charset=utf-8", hdrs, "", 0);
    free(ar);
}

static void logout(webgw_t *g, const web_http_t *req)
{
    if (!req->post) { /* a form, so a link can never log anyone out */
        buf_t b;
        buf_init(&b);
        page_start(&b, "Log out");
        buf_puts(&b, "<form method=\"post\" action=\"/logout\"><button type=\"submit\">Log "
                     "out</button></form>");
        page_end(&b);
        reply_page(g, req->id, 200, &b);
        buf_free(&b);
        return;
    }
    auth_req_t *ar = auth_req_new(g, req);
    if (!ar)
        return;
    if (req->cookie[0])
        webgw_token_hash(req->cookie, ar->hash);
    db_session_delete(g->srv->db, ar->hash, on_logged_out, ar);
}

/* ---- password change ------------------------------------------------------------------ */

typedef struct {
    webgw_t *g;
    uint64_t id;
    char hash[65];        /* the session the change comes from: the one kept */
    char ip[64], key[64]; /* the client's address, and its key (addrkey.h) */
    char user[DB_NAME_MAX];
    int64_t user_id;
    char old[PW_MAX], pw[PW_MAX];
    int oldlen, pwlen;
} pw_req_t;

static void pw_req_free(pw_req_t *pr)
{
    sodium_memzero(pr, sizeof *pr);
    free(pr);
}

static void reply_pw_form(webgw_t *g, uint64_t id, int status, const char *msg, const char *viewer)
{
    buf_t b;
    buf_init(&b);
    page_start_for(&b, "Change password", viewer);
    if (msg[0]) {
        buf_puts(&b, "<p class=\"msg\" id=\"msg\">");
        html_escape_str(&b, msg);
        buf_puts(&b, "</p>");
    }
    buf_puts(&b, "<form method=\"post\" action=\"/password\">");
    field(&b, "Password now", "old", "password", NULL, "current-password");
    field(&b, "New password", "password", "password", NULL, "new-password");
    field(&b, "New password again", "password2", "password", NULL, "new-password");
    buf_puts(&b, "<button type=\"submit\">Change</button></form><p>Your other sessions, "
                 "in other browsers, will be logged out.</p>");
    page_end(&b);
    reply_page(g, id, status, &b);
    buf_free(&b);
}

static void on_pw_changed(void *ud, int status, const db_user_t *u, const char *msg)
{
    pw_req_t *pr = ud;
    (void)u;
    if (status != ACCOUNTS_OK) {
        reply_pw_form(pr->g, pr->id, status_of(status), msg[0] ? msg : "That did not work.",
                      pr->user);
        pw_req_free(pr);
        return;
    }
    log_info("password changed user=%s ip=%s (web)", pr->user, pr->ip);
    webgw_revoke(pr->g->srv, pr->user_id, pr->hash);
    buf_t b;
    buf_init(&b);
    page_start_for(&b, "Password changed", pr->user);
    buf_puts(&b, "<p id=\"msg\">Your password is changed; your other sessions are logged out."
                 "</p><p><a href=\"/\">Back to the lobby</a></p>");
    page_end(&b);
    reply_page(pr->g, pr->id, 200, &b);
    buf_free(&b);
    pw_req_free(pr);
}

/* The session's account is known: verify the old password, store the new. */
static void on_pw_user(void *ud, int status, const db_user_t *u)
{
    pw_req_t *pr = ud;
    webgw_t *g = pr->g;
    if (status != DB_OK || !u || u->locked) {
        reply_pw_form(g, pr->id, 403, "Log in first.", NULL);
        pw_req_free(pr);
        return;
    }
    pr->user_id = u->id;
    snprintf(pr->user, sizeof pr->user, "%s", u->name);
    int ret =
        accounts_change_password(g->srv->acc, pr->key, u->name, pr->old, (size_t)pr->oldlen, pr->pw,
                                 (size_t)pr->pwlen, pr->hash, now_ms(g->srv), on_pw_changed, pr);
    sodium_memzero(pr->old, sizeof pr->old); /* accounts keeps its own copies */
    sodium_memzero(pr->pw, sizeof pr->pw);
    if (ret != 0) {
        reply_pw_form(g, pr->id, 503, "The server cannot check accounts right now.", pr->user);
        pw_req_free(pr);
    }
}

static void password_post(webgw_t *g, const web_http_t *req)
{
    char pw2[PW_MAX];
    pw_req_t *pr = calloc(1, sizeof *pr);
    if (!pr) {
        web_reply(g->web, req->id, 503, "text/plain; charset=utf-8", NULL, "busy", 4);
        return;
    }
    pr->g = g;
    pr->id = req->id;
    snprintf(pr->ip, sizeof pr->ip, "%s", req->ip);
    snprintf(pr->key, sizeof pr->key, "%s", req->key);
    pr->oldlen = web_form_get(req->body, req->body_len, "old", pr->old, sizeof pr->old);
    pr->pwlen = web_form_get(req->body, req->body_len, "password", pr->pw, sizeof pr->pw);
    int p2 = web_form_get(req->body, req->body_len, "password2", pw2, sizeof pw2);
    const char *err = NULL;
    if (!req->cookie[0])
        err = "Log in first.";
    else if (pr->oldlen < 0 || pr->pwlen < 0)
        err = "Give your password and a new one.";
    else if (p2 != pr->pwlen || memcmp(pr->pw, pw2, (size_t)p2) != 0)
        err = "The two new passwords differ.";
    sodium_memzero(pw2, sizeof pw2);
    if (err) {
        reply_pw_form(g, req->id, req->cookie[0] ? 400 : 403, err, NULL);
        pw_req_free(pr);
        return;
    }
    webgw_token_hash(req->cookie, pr->hash);
    db_session_user(g->srv->db, pr->hash, webgw_unix_now(), on_pw_user, pr);
}

/* ---- the route table's handlers ---------------------------------------------------- */

static int login_page(webgw_t *g, const web_http_t *req, bool reg)
{
    if (req->post) {
        auth_post(g, req, reg);
        return 0;
    }
    /* back to the page that sent you: the link's next=, else the Referer
     * when it is a page of this site other than the account forms */
    char next[128] = "/", safe[128];
    const char *ref = req->referer;
    if (strncmp(ref, "/login", 6) != 0 && strncmp(ref, "/register", 9) != 0)
        snprintf(next, sizeof next, "%s", ref[0] ? ref : "/");
    for (int i = 0; i < req->nargs; i++)
        if (strncmp(req->args[i], "next=", 5) == 0)
            snprintf(next, sizeof next, "%s", req->args[i] + 5);
    webgw_safe_next(next, safe, sizeof safe);
    reply_form(g, req->id, 200, reg, "", "", safe);
    return 0;
}

int webgw_login(void *ctx, const web_http_t *req)
{
    return webgw_drain_refuses(ctx, req) ? 0 : login_page(ctx, req, false);
}

int webgw_register(void *ctx, const web_http_t *req)
{
    return webgw_drain_refuses(ctx, req) ? 0 : login_page(ctx, req, true);
}

int webgw_logout(void *ctx, const web_http_t *req)
{
    logout(ctx, req);
    return 0;
}

typedef struct {
    webgw_t *g;
    uint64_t id;
} pw_page_t;

/* GET /password: the form for an account, else off to log in first. */
static void on_pw_viewer(void *ud, const db_user_t *u)
{
    pw_page_t pp = *(pw_page_t *)ud;
    free(ud);
    if (u) {
        reply_pw_form(pp.g, pp.id, 200, "", u->name);
        return;
    }
    const char *hdrs[] = {"location:", "/login?next=/password", NULL};
    web_reply(pp.g->web, pp.id, 303, "text/plain; charset=utf-8", hdrs, "", 0);
}

int webgw_password(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    if (req->post) {
        password_post(g, req);
        return 0;
    }
    pw_page_t *pp = malloc(sizeof *pp);
    if (!pp)
        return -1;
    *pp = (pw_page_t){g, req->id};
    webgw_viewer(g, req->cookie, on_pw_viewer, pp);
    return 0;
}
