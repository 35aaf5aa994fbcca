/* site — what every HTML page of warrend shares, and the pages of the
 * site itself (see webgw.h).
 *
 * The shell: one style sheet and one header with one navigation: Lobby,
 * Play, Daily, Scores, then the viewer's own page, Options and Log out, or for a
 * visitor Log in and Register, whose links bring them back to the page
 * they were on. The viewer is the account of the session cookie, looked up
 * (webgw_viewer) before a page is built.
 *
 * The client's pages (client-web/dist index.html, play.html, watch.html) are
 * templates read at start: <!--nav--> becomes the navigation and, in the
 * lobby, <!--games--> the rows of the live games, so the lobby lists them
 * without JavaScript (its script then keeps the list live), and
 * <!--welcome--> and <!--feed--> what lobby_page.h says; in /play/ID,
 * <!--phone--> meta elements with the hosted game's min-size (the page's
 * font shrinks on a desktop until it fits) and phone-size (the terminal
 * the page's phone layout gives the program). Served as plain
 * files (tests/tools/web_harness) the markers are comments.
 *
 * An address no page has is 404 in the same shell: the header, the
 * viewer's navigation and a link back to the lobby.
 *
 * /options: the account options of the telnet options menu (options.h) as
 * a form. Saving stores them and applies them to the account's open
 * browser games at once (telnet connections keep theirs until the next
 * login, as when they are changed elsewhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gamecfg.h"
#include "http_gzip.h"
#include "options.h"
#include "html.h"
#include "lobby_page.h"
#include "web_parse.h"
#include "webgw.h"

/* ---- the shell ------------------------------------------------------------------ */

static const char site_css[] =
    ":root{color-scheme:dark}body{margin:0;background:#111;color:#ddd;"
    "font:15px/1.4 system-ui,sans-serif}a{color:#8cf}"
    "header{display:flex;flex-wrap:wrap;gap:.3em 1em;align-items:baseline;padding:.4em .8em;"
    "background:#1b1b1b;border-bottom:1px solid #333}header h1{font-size:1.1em;margin:0}"
    "nav.site{display:flex;flex-wrap:wrap;gap:.3em .9em;align-items:baseline}"
    "nav.site form{display:inline;margin:0}nav.site button{font:inherit;background:none;border:0;"
    "color:#8cf;cursor:pointer;padding:0;text-decoration:underline}"
    "main{padding:.8em;overflow-x:auto}table{border-collapse:collapse}th,td{text-align:left;"
    "padding:.25em .6em;border-bottom:1px solid #333}th{color:#aaa;font-weight:normal}"
    "pre{background:#000;padding:.6em;overflow:auto}.verified{color:#6c6}"
    ".mismatch{color:#f66;font-weight:bold}.unchecked{color:#999}form *{font:inherit}"
    "main.form{max-width:30em}main.form label{display:block;margin:.6em 0}"
    "main.form input:not([type=radio]):not([type=checkbox]){display:block;width:100%;"
    "padding:.4em;background:#222;color:#eee;border:1px solid #444}"
    "main.form button{margin-top:.8em;padding:.4em 1.2em}fieldset{border:1px solid #333;"
    "margin:.8em 0}fieldset label{display:block}.msg{color:#f88}.ok{color:#6c6}";

void webgw_nav(buf_t *b, const char *viewer, const char *here)
{
    buf_puts(b, "<nav class=\"site\"><a href=\"/\">Lobby</a><a href=\"/play\">Play</a>"
                "<a href=\"/daily\">Daily</a>"
                "<a href=\"/scores\">Scores</a>");
    if (viewer && viewer[0]) {
        buf_puts(b, "<a class=\"me\" title=\"your page\" href=\"/player/");
        url_escape(b, viewer);
        buf_puts(b, "\">");
        html_escape_str(b, viewer);
        buf_puts(b, "</a><a href=\"/options\">Options</a><form method=\"post\" "
                    "action=\"/logout\"><button type=\"submit\">Log out</button></form></nav>");
        return;
    }
    char next[128];
    webgw_safe_next(here ? here : "/", next, sizeof next);
    for (int reg = 0; reg < 2; reg++) {
        buf_puts(b, reg ? "<a href=\"/register" : "<a href=\"/login");
        if (strcmp(next, "/") != 0) {
            buf_puts(b, "?next=");
            url_escape(b, next);
        }
        buf_puts(b, reg ? "\">Register</a>" : "\">Log in</a>");
    }
    buf_puts(b, "</nav>");
}

void webgw_page_open(buf_t *b, const char *title, const char *viewer, const char *here,
                     const char *main_class)
{
    buf_puts(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<link rel=\"icon\" href=\"data:,\"><title>");
    html_escape_str(b, title);
    buf_printf(b,
               " — Warren</title><style>%s</style></head><body><header><h1><a href=\"/\">"
               "Warren</a></h1>",
               site_css);
    webgw_nav(b, viewer, here);
    buf_printf(b, "</header><main%s%s%s>\n", main_class ? " class=\"" : "",
               main_class ? main_class : "", main_class ? "\"" : "");
}

void webgw_page_close(buf_t *b)
{
    buf_puts(b, "</main></body></html>\n");
}

void webgw_put_time(buf_t *b, int64_t t)
{
    char s[40] = "";
    struct tm tm;
    time_t tt = (time_t)t;
    if (t > 0 && gmtime_r(&tt, &tm))
        strftime(s, sizeof s, "%Y-%m-%d %H:%M UTC", &tm);
    buf_puts(b, s);
}

void webgw_reply_html(webgw_t *g, uint64_t id, int status, buf_t *b, bool gzip)
{
    static const char *const plain[] = {"vary:", "Accept-Encoding", NULL};
    static const char *const zipped[] = {"vary:", "Accept-Encoding", "content-encoding:", "gzip",
                                         NULL};
    if (b->failed) {
        web_reply(g->web, id, 500, "text/plain; charset=utf-8", NULL, "out of memory", 13);
        return;
    }
    buf_t gz;
    buf_init(&gz);
    bool z = gzip && b->len >= HTTP_GZIP_MIN && b->len <= HTTP_GZIP_LOOP_MAX &&
             http_gzip(b->data, b->len, &gz) == 0;
    web_reply(g->web, id, status, "text/html; charset=utf-8", z ? zipped : plain,
              z ? gz.data : b->data, z ? gz.len : b->len);
    buf_free(&gz);
}

/* ---- who is looking ------------------------------------------------------------------ */

typedef struct {
    webgw_viewer_cb cb;
    void *ud;
} viewer_req_t;

static void on_viewer(void *ud, int status, const db_user_t *u)
{
    viewer_req_t v = *(viewer_req_t *)ud;
    free(ud);
    v.cb(v.ud, status == DB_OK && u && !u->locked ? u : NULL);
}

void webgw_viewer(webgw_t *g, const char *cookie, webgw_viewer_cb cb, void *ud)
{
    viewer_req_t *v = cookie && cookie[0] && g->srv->db ? malloc(sizeof *v) : NULL;
    if (!v) {
        cb(ud, NULL);
        return;
    }
    *v = (viewer_req_t){cb, ud};
    char h[65];
    webgw_token_hash(cookie, h);
    db_session_user(g->srv->db, h, webgw_unix_now(), on_viewer, v);
}

/* ---- the client's pages: templates -------------------------------------------------- */

static const char *const template_files[WEBGW_TEMPLATES] = {"index.html", "play.html",
                                                            "watch.html"};

char *webgw_read_file(const char *root, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *d = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && n < (1 << 20) && fseek(f, 0, SEEK_SET) == 0 && (d = malloc((size_t)n + 1))) {
        if (fread(d, 1, (size_t)n, f) != (size_t)n) {
            free(d);
            d = NULL;
        } else {
            d[n] = 0;
        }
    }
    fclose(f);
    return d;
}

void webgw_templates_load(webgw_t *g, const char *root)
{
    for (int i = 0; i < WEBGW_TEMPLATES; i++)
        if (!(g->tpl[i] = webgw_read_file(root, template_files[i])))
            log_warn("web: %s/%s not found (build client-web/)", root, template_files[i]);
}

void webgw_templates_free(webgw_t *g)
{
    for (int i = 0; i < WEBGW_TEMPLATES; i++) {
        free(g->tpl[i]);
        g->tpl[i] = NULL;
    }
}

static void idle_text(buf_t *b, uint64_t s)
{
    if (s < 60)
        buf_printf(b, "%llus", (unsigned long long)s);
    else if (s < 3600)
        buf_printf(b, "%llum", (unsigned long long)(s / 60));
    else
        buf_printf(b, "%lluh", (unsigned long long)(s / 3600));
}

typedef struct {
    buf_t *b;
    size_t shown;
} rows_t;

static void game_row(void *ud, const webgw_live_t *l)
{
    rows_t *r = ud;
    buf_t *b = r->b;
    r->shown++;
    buf_puts(b, "<tr><td>");
    html_escape_str(b, l->name);
    buf_puts(b, "</td><td>");
    html_escape_str(b, strcmp(l->game, "warren") ? l->game_name : l->race); /* hosted: its name */
    buf_puts(b, "</td><td>");
    html_escape_str(b, l->cls);
    buf_printf(b, "</td><td>%d</td><td>%llu</td><td>", l->depth, (unsigned long long)l->turn);
    idle_text(b, l->idle_s);
    buf_printf(b, "</td><td>%d</td><td>", l->watchers);
    if (l->detached)
        buf_puts(b, "detached");
    else if (l->w && l->h)
        buf_printf(b, "%dx%d", l->w, l->h);
    buf_puts(b, "</td><td><a href=\"/watch/");
    url_escape(b, l->name);
    buf_putc(b, '/'); /* the game too: a player may be live in two */
    url_escape(b, l->game);
    buf_puts(b, "\">watch</a></td></tr>\n");
}

static void games_rows(webgw_t *g, buf_t *b)
{
    rows_t r = {b, 0};
    size_t live = webgw_each_live(g->srv, WEBGW_LIVE_MAX, game_row, &r);
    if (live == 0)
        buf_puts(b, "<tr><td colspan=\"9\">No games right now.</td></tr>");
    else if (live > r.shown) /* past the cap, or other nodes' games past their mirrors */
        buf_printf(b, "<tr class=\"more\"><td colspan=\"9\">and %zu more games</td></tr>",
                   live - r.shown);
}

typedef struct {
    webgw_t *g;
    uint64_t id;
    int which; /* WEBGW_LOBBY_PAGE, ... */
    bool gzip;
    char here[128];
    char cookie[128]; /* the session cookie, kept while the feed is read */
    bool welcome;     /* ?welcome=1: just registered (login.c) */
} tpl_req_t;

/* Registering lands here with ?welcome=1: the account is said to be made. */
static void welcome_note(buf_t *b, const db_user_t *u, bool welcome)
{
    if (!u || !welcome)
        return;
    buf_puts(b, "<p class=\"ok\" id=\"registered\">Welcome, ");
    html_escape_str(b, u->name);
    buf_puts(b, ": your account is made.</p>");
}

static void on_template_viewer(void *ud, const db_user_t *u);
static void template_viewer(void *ud)
{
    tpl_req_t *t = ud;
    webgw_viewer(t->g, t->cookie, on_template_viewer, t);
}

/* /play/ID of a hosted game: its min-size, for the page's font on a
 * desktop, and its phone-size, for the page's phone layout
 * (client-web/src/play.js); nothing elsewhere. */
static void size_meta(webgw_t *g, buf_t *b, const char *here)
{
    const char *id = !strncmp(here, "/play/", 6) ? here + 6 : NULL;
    const gamecfg_t *game = id ? gamecfg_find(&g->srv->cfg.games, id) : NULL;
    if (!game)
        return;
    buf_printf(b, "<meta name=\"warren-min-size\" content=\"%dx%d\">", game->min_size[0],
               game->min_size[1]);
    buf_printf(b, "<meta name=\"warren-phone-size\" content=\"%dx%d\">", game->phone_size[0],
               game->phone_size[1]);
}

/* The template with its markers filled for the viewer. */
static void on_template_viewer(void *ud, const db_user_t *u)
{
    tpl_req_t *t = ud;
    webgw_t *g = t->g;
    const char *s = g->tpl[t->which];
    buf_t b;
    buf_init(&b);
    while (*s) {
        const char *m = strstr(s, "<!--");
        if (!m) {
            buf_puts(&b, s);
            break;
        }
        buf_put(&b, s, (size_t)(m - s));
        if (strncmp(m, "<!--nav-->", 10) == 0) {
            webgw_nav(&b, u ? u->name : NULL, t->here);
            welcome_note(&b, u, t->welcome);
            s = m + 10;
        } else if (strncmp(m, "<!--games-->", 12) == 0) {
            games_rows(g, &b);
            s = m + 12;
        } else if (strncmp(m, "<!--welcome-->", 14) == 0) {
            lobby_page_welcome(g, &b);
            s = m + 14;
        } else if (strncmp(m, "<!--feed-->", 11) == 0) {
            lobby_page_feed(g, &b);
            s = m + 11;
        } else if (strncmp(m, "<!--phone-->", 12) == 0) {
            size_meta(g, &b, t->here);
            s = m + 12;
        } else {
            buf_puts(&b, "<!--");
            s = m + 4;
        }
    }
    webgw_reply_html(g, t->id, 200, &b, t->gzip);
    buf_free(&b);
    free(t);
}

int webgw_page(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    int which = req->route->arg;
    if (which < 0 || which >= WEBGW_TEMPLATES || !g->tpl[which]) {
        static const char msg[] = "The browser client is not built on this server.";
        web_reply(g->web, req->id, 503, "text/plain; charset=utf-8", NULL, msg, sizeof msg - 1);
        return 0;
    }
    tpl_req_t *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    *t = (tpl_req_t){.g = g, .id = req->id, .which = which, .gzip = req->gzip};
    web_copy_str(t->here, sizeof t->here, req->path);
    web_copy_str(t->cookie, sizeof t->cookie, req->cookie);
    for (int i = 0; i < req->nargs; i++)
        t->welcome |= strcmp(req->args[i], "welcome=1") == 0;
    if (which == WEBGW_LOBBY_PAGE)
        lobby_page_refresh(g, template_viewer, t); /* the feed first, then who looks */
    else
        template_viewer(t);
    return 0;
}

/* ---- an address with no page ----------------------------------------------------------- */

typedef struct {
    webgw_t *g;
    uint64_t id;
    bool gzip;
    char here[160];
} missing_req_t;

static void on_missing_viewer(void *ud, const db_user_t *u)
{
    missing_req_t *m = ud;
    buf_t b;
    buf_init(&b);
    webgw_page_open(&b, "Not found", u ? u->name : NULL, m->here, NULL);
    buf_puts(&b, "<h2>Not found</h2><p>No page of this site is at this address.</p>"
                 "<p><a href=\"/\">Back to the lobby</a></p>\n");
    webgw_page_close(&b);
    webgw_reply_html(m->g, m->id, 404, &b, m->gzip);
    buf_free(&b);
    free(m);
}

int webgw_not_found(void *ctx, const web_http_t *req)
{
    missing_req_t *m = calloc(1, sizeof *m);
    if (!m)
        return -1; /* web's own plain 404 */
    *m = (missing_req_t){.g = ctx, .id = req->id, .gzip = req->gzip};
    web_copy_str(m->here, sizeof m->here, req->path);
    webgw_viewer(m->g, req->cookie, on_missing_viewer, m);
    return 0;
}

int webgw_api_not_found(void *ctx, const web_http_t *req)
{
    static const char body[] = "{\"error\":\"No such address in the API.\"}\n";
    webgw_t *g = ctx;
    web_reply(g->web, req->id, 404, "application/json", NULL, body, sizeof body - 1);
    return 0;
}

/* ---- replies of account pages ------------------------------------------------------------ */

void webgw_reply_text(webgw_t *g, uint64_t id, int status, const char *msg)
{
    web_reply(g->web, id, status, "text/plain; charset=utf-8", NULL, msg, strlen(msg));
}

void webgw_login_first(webgw_t *g, uint64_t id, bool post, const char *here)
{
    char to[160];
    snprintf(to, sizeof to, "/login?next=%s", here);
    const char *const hdr[] = {"location:", to, NULL};
    web_reply(g->web, id, post ? 403 : 303, "text/plain; charset=utf-8", post ? NULL : hdr,
              "Log in first.\n", 14);
}

/* ---- /options -------------------------------------------------------------------------- */

typedef struct {
    const char *key, *label;
} choice_t;

static const choice_t on_off_choices[] = {{"0", "off"}, {"1", "on"}};
static const size_t on_off_n = 2;

/* One option of options.h's tables (structs that start with key, label). */
typedef struct {
    const char *field, *legend;
    const char *const *names; /* &table[0].key */
    size_t stride;
    const size_t *n;
} option_row_t;

static const option_row_t option_rows[] = {
    {"two_cell", "Two-cell map tiles", &on_off_choices[0].key, sizeof on_off_choices[0], &on_off_n},
    {"colors", "Colours", &COLOUR_MODES[0].key, sizeof COLOUR_MODES[0], &NCOLOUR_MODES},
    {"glyphs", "Map glyphs", &GLYPH_SETS[0].key, sizeof GLYPH_SETS[0], &NGLYPH_SETS},
    {"turns", "Turn counter", &on_off_choices[0].key, sizeof on_off_choices[0], &on_off_n},
};
#define OPTION_ROWS (sizeof option_rows / sizeof option_rows[0])

/* The options as one choice index per row of option_rows, and back. */
static void options_values(const account_options_t *o, uint8_t v[OPTION_ROWS])
{
    v[0] = o->two_cell;
    v[1] = o->colors;
    v[2] = o->glyphs;
    v[3] = o->turns;
}

static void options_from(account_options_t *o, const uint8_t v[OPTION_ROWS])
{
    *o = (account_options_t){v[0] != 0, v[3] != 0, v[1], v[2]};
}

typedef struct {
    webgw_t *g;
    uint64_t id;
    bool post, gzip;
    account_options_t set; /* what a POST asks for */
    char user[DB_NAME_MAX];
} opt_req_t;

/* Links to the rc file pages of the hosted games that have one. */
static void rc_links(buf_t *b, const gamecfg_list_t *games)
{
    const char *sep = "<p class=\"rc\">Your rc files: ";
    for (int i = 0; i < games->n; i++) {
        const gamecfg_t *g = &games->games[i];
        if (!g->rcfile[0])
            continue;
        buf_printf(b, "%s<a href=\"/options/%s\">", sep, g->id); /* ids are [a-z0-9_-] */
        html_escape_str(b, g->name);
        buf_puts(b, "</a>");
        sep = " · ";
    }
    if (sep[0] != '<')
        buf_puts(b, "</p>\n");
}

static void options_page(opt_req_t *r, const char *viewer, const account_options_t *cur, int status,
                         const char *msg, bool ok)
{
    buf_t b;
    buf_init(&b);
    webgw_page_open(&b, "Options", viewer, "/options", "form");
    buf_puts(&b, "<h2>Options</h2>\n");
    if (msg) {
        buf_printf(&b, "<p class=\"%s\" id=\"msg\">", ok ? "ok" : "msg");
        html_escape_str(&b, msg);
        buf_puts(&b, "</p>");
    }
    buf_puts(&b, "<p>The same options as telnet's options menu, kept with your account for "
                 "every way you play.</p><form method=\"post\" action=\"/options\">");
    uint8_t v[OPTION_ROWS];
    options_values(cur, v);
    for (size_t i = 0; i < OPTION_ROWS; i++) {
        const option_row_t *row = &option_rows[i];
        buf_printf(&b, "<fieldset><legend>%s</legend>", row->legend);
        for (size_t k = 0; k < *row->n; k++) {
            const char *const *kl =
                (const char *const *)((const char *)row->names + k * row->stride);
            buf_printf(&b, "<label><input type=\"radio\" name=\"%s\" value=\"%s\"%s> %s</label>",
                       row->field, kl[0], k == v[i] ? " checked" : "", kl[1]);
        }
        buf_puts(&b, "</fieldset>");
    }
    buf_puts(&b, "<button type=\"submit\">Save</button></form>\n<p><a href=\"/password\">"
                 "Change your password</a></p>\n");
    rc_links(&b, &r->g->srv->cfg.games);
    webgw_page_close(&b);
    webgw_reply_html(r->g, r->id, status, &b, r->gzip);
    buf_free(&b);
    free(r);
}

static void on_options_saved(void *ud, int status, int64_t id)
{
    opt_req_t *r = ud;
    (void)id;
    if (status != DB_OK) {
        options_page(r, r->user, &r->set, 500, "The options could not be saved.", false);
        return;
    }
    options_page(r, r->user, &r->set, 200, "Saved.", true);
}

static void on_options_viewer(void *ud, const db_user_t *u)
{
    opt_req_t *r = ud;
    if (!u) {
        webgw_login_first(r->g, r->id, r->post, "/options");
        free(r);
        return;
    }
    web_copy_str(r->user, sizeof r->user, u->name);
    if (!r->post) {
        account_options_t cur;
        account_options_parse(u->options, &cur);
        options_page(r, u->name, &cur, 200, NULL, false);
        return;
    }
    char text[96];
    account_options_format(&r->set, text, sizeof text);
    webgw_options_changed(r->g, u->id, text);
    db_user_set_options(r->g->srv->db, u->id, text, on_options_saved, r);
}

/* The POSTed choices into r->set; false when one is missing or unknown. */
static bool options_read(opt_req_t *r, const web_http_t *req)
{
    uint8_t v[OPTION_ROWS];
    for (size_t i = 0; i < OPTION_ROWS; i++) {
        const option_row_t *row = &option_rows[i];
        char text[32];
        int n = web_form_get(req->body, req->body_len, row->field, text, sizeof text);
        int k = n < 0 ? -1 : account_option_find(text, (size_t)n, row->names, row->stride, *row->n);
        if (k < 0)
            return false;
        v[i] = (uint8_t)k;
    }
    options_from(&r->set, v);
    return true;
}

int webgw_options(void *ctx, const web_http_t *req)
{
    webgw_t *g = ctx;
    opt_req_t *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    *r = (opt_req_t){.g = g, .id = req->id, .post = req->post, .gzip = req->gzip};
    if (req->post && !options_read(r, req)) {
        webgw_reply_text(g, req->id, 400, "Choose one value for each option.");
        free(r);
        return 0;
    }
    webgw_viewer(g, req->cookie, on_options_viewer, r);
    return 0;
}
