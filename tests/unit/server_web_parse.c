/* Unit tests: server/web/web_parse — the web gateway's readers of request
 * text, and warrend's route table (server/web/routes.c) read through them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "http_gzip.h"
#include "routes.h"
#include "web_parse.h"
#include "webgw.h"

START_TEST(names)
{
    ck_assert(web_name_ok("Agnes_the-2nd", 13));
    ck_assert(web_name_ok("x", 1));
    ck_assert(!web_name_ok("", 0));
    ck_assert(!web_name_ok("a b", 3));
    ck_assert(!web_name_ok("..", 2));
    ck_assert(!web_name_ok("\xc3\xa9", 2));
    char long_name[WEB_NAME_MAX + 2];
    memset(long_name, 'a', sizeof long_name);
    ck_assert(web_name_ok(long_name, WEB_NAME_MAX));
    ck_assert(!web_name_ok(long_name, WEB_NAME_MAX + 1));
}
END_TEST

/* The row warrend's route table gives path for method, with its parameter. */
static const web_route_t *route(unsigned method, const char *path, char *param)
{
    return web_route_find(WEB_ROUTES, WEB_NROUTES, method, path, param, 64);
}

/* The catch-all row (routes.c, last): no file, no other handler. */
static bool not_found(const web_route_t *r)
{
    return r && !r->file && r->handler == webgw_not_found;
}

START_TEST(websocket_routes)
{
    char name[64] = "junk";
    const web_route_t *r = route(WEB_WS, "/ws/lobby", name);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->arg, WEB_LOBBY);
    ck_assert_str_eq(name, "");
    ck_assert_int_eq(route(WEB_WS, "/ws/play", name)->arg, WEB_PLAY);
    r = route(WEB_WS, "/ws/watch/Agnes", name);
    ck_assert_int_eq(r->arg, WEB_WATCH);
    ck_assert_str_eq(name, "Agnes");
    ck_assert_ptr_null(route(WEB_WS, "/ws/watch/", name));
    r = route(WEB_WS, "/ws/watch/Agnes/nethack", name); /* one of her games */
    ck_assert_int_eq(r->arg, WEB_WATCH);
    ck_assert_str_eq(name, "Agnes/nethack");
    ck_assert_ptr_null(route(WEB_WS, "/ws/watch/a/b/c", name));
    ck_assert_ptr_null(route(WEB_WS, "/ws/watch/a/", name));
    ck_assert_ptr_null(route(WEB_WS, "/ws/watch//b", name));
    ck_assert_ptr_null(route(WEB_WS, "/ws/watch/a/b.c", name));
    ck_assert_ptr_null(route(WEB_WS, "/ws/play/", name));
    ck_assert_ptr_null(route(WEB_WS, "/ws/lobbyx", name));
    /* not without the upgrade: the site's page saying there is none */
    ck_assert_ptr_eq(route(WEB_GET, "/ws/play", name)->handler, webgw_not_found);
    ck_assert_ptr_null(route(WEB_WS, "/play", name));
}
END_TEST

/* The status an upgrade no row takes is answered with: 404 for a well
 * formed address of nothing, 400 for one that is not. */
START_TEST(websocket_refusals)
{
    static const struct {
        const char *path;
        unsigned code;
    } cases[] = {
        {"/ws/lobby", 0},
        {"/ws/play/nethack", 0},
        {"/ws/watch/a/b", 0},
        {"/ws/nothing", 404},
        {"/ws/watch/a/b/c", 404},
        {"/nothing", 404},
        {"/ws/", 400},
        {"/ws/play/", 400},
        {"/ws/watch//b", 400},
        {"/ws/play/bad*id", 400},
        {"/ws/watch/a/b.c", 400},
        {"/ws/\x01", 400},
        {"", 400},
        {"ws/lobby", 400},
        {"/ws/play/%2e%2e", 400},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(web_ws_refusal(WEB_ROUTES, WEB_NROUTES, cases[i].path) == cases[i].code, "%s",
                      cases[i].path);
    char longpath[300] = "/ws/watch/";
    memset(longpath + 10, 'a', 200);
    longpath[210] = 0;
    ck_assert_uint_eq(web_ws_refusal(WEB_ROUTES, WEB_NROUTES, longpath), 400);
}
END_TEST

START_TEST(http_routes_stay_under_the_root)
{
    char p[64];
    /* the client's pages are templates the daemon fills (site.c) */
    const web_route_t *r = route(WEB_GET, "/", p);
    ck_assert(r->handler && !r->file);
    ck_assert_int_eq(r->arg, WEBGW_LOBBY_PAGE);
    ck_assert_int_eq(route(WEB_GET, "/index.html", p)->arg, WEBGW_LOBBY_PAGE);
    r = route(WEB_GET, "/watch/bob", p);
    ck_assert_int_eq(r->arg, WEBGW_WATCH_PAGE);
    ck_assert_str_eq(p, "bob");
    ck_assert_int_eq(route(WEB_GET, "/play", p)->arg, WEBGW_PLAY_PAGE);
    /* pages answer GET and HEAD only: a POST gets the page saying there is none */
    ck_assert_ptr_eq(route(WEB_POST, "/play", p)->handler, webgw_not_found);
    ck_assert_ptr_eq(route(WEB_GET, "/api/other", p)->handler, webgw_api_not_found);
    r = route(WEB_GET, "/assets/app-1a2b.js", p);
    ck_assert_str_eq(r->file, "assets/");
    ck_assert_str_eq(p, "app-1a2b.js");
    ck_assert(r->immutable);
    static const char *const outside[] = {"/assets/../../etc/passwd",
                                          "/assets/..",
                                          "/assets/.env",
                                          "/assets/a/b.js",
                                          "/assets/",
                                          "/index.htm",
                                          "/watch/a b",
                                          "/assets/a..b"};
    /* none of them is a file: the page saying there is none takes them */
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        ck_assert_msg(not_found(route(WEB_GET, outside[i], p)), "%s", outside[i]);
    ck_assert(not_found(route(WEB_POST, "/", p)));
    ck_assert_ptr_null(route(WEB_HEAD, "/scores", p)); /* handlers GET and POST */
}
END_TEST

START_TEST(patterns)
{
    char p[8];
    ck_assert(web_route_match("/a/{id}.x", "/a/12.x", p, sizeof p));
    ck_assert_str_eq(p, "12");
    ck_assert(!web_route_match("/a/{id}.x", "/a/012.x", p, sizeof p));
    ck_assert(!web_route_match("/a/{id}.x", "/a/.x", p, sizeof p));
    ck_assert(!web_route_match("/a/{id}/b", "/a/1", p, sizeof p));
    ck_assert(web_route_match("/a/*", "/a/", p, sizeof p));
    ck_assert_str_eq(p, "");
    ck_assert(web_route_match("/a/*", "/a/long/rest", p, sizeof p)); /* cut to fit */
    ck_assert_str_eq(p, "long/re");
    ck_assert(!web_route_match("/a/*", "/a", p, sizeof p));
    ck_assert(!web_route_match("/a/{what}", "/a/b", p, sizeof p)); /* no such kind */
    ck_assert(!web_route_match("/a/{id", "/a/1", p, sizeof p));
    ck_assert(web_route_match("/a", "/a", p, sizeof p));
    ck_assert(!web_route_match("/a", "/a/", p, sizeof p));
    int64_t id = 0;
    ck_assert(web_parse_id("999999999999999", 15, &id));
    ck_assert_int_eq(id, 999999999999999LL);
    ck_assert(!web_parse_id("1000000000000000", 16, &id));
    ck_assert(!web_parse_id("-3", 2, &id));
    ck_assert(web_file_ok("a.b-c_d", 7));
    ck_assert(!web_file_ok("a..b", 4));
}
END_TEST

START_TEST(origin_against_host)
{
    ck_assert(web_origin_matches("https://play.example:8080", "play.example:8080"));
    ck_assert(web_origin_matches("http://127.0.0.1:8080", "127.0.0.1:8080"));
    ck_assert(!web_origin_matches("https://evil.example", "play.example"));
    ck_assert(!web_origin_matches("https://play.example.evil", "play.example"));
    ck_assert(!web_origin_matches("play.example", "play.example"));
    ck_assert(!web_origin_matches("null", "play.example"));
}
END_TEST

START_TEST(session_cookie)
{
    char v[16];
    web_cookie_find("a=1; warren_session=tok_en-9 ; b=2", v, sizeof v);
    ck_assert_str_eq(v, "tok_en-9");
    web_cookie_find("warren_session=first;warren_session=second", v, sizeof v);
    ck_assert_str_eq(v, "first");
    web_cookie_find("xwarren_session=no", v, sizeof v);
    ck_assert_str_eq(v, "");
    web_cookie_find("warren_session=a\"b", v, sizeof v); /* not a plain token */
    ck_assert_str_eq(v, "");
    web_cookie_find("warren_session=0123456789abcdefXYZ", v, sizeof v); /* too long */
    ck_assert_str_eq(v, "");
    web_cookie_find("", v, sizeof v);
    ck_assert_str_eq(v, "");
}
END_TEST

/* Only a trusted peer's X-Forwarded-For is believed, and of it the
 * rightmost address that is not itself a trusted proxy. */
START_TEST(client_behind_trusted_proxies)
{
    char ip[64];
    const char *trusted = "127.0.0.1,::1,10.0.0.5";
    ck_assert(web_client_addr("127.0.0.1", "203.0.113.9", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "203.0.113.9");
    /* a client-sent entry on the left is not believed: the proxy appended the peer */
    ck_assert(web_client_addr("127.0.0.1", "6.6.6.6, 203.0.113.9", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "203.0.113.9");
    /* trusted hops on the right are skipped */
    ck_assert(web_client_addr("::1", "198.51.100.7 , 10.0.0.5,127.0.0.1", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "198.51.100.7");
    /* from an untrusted peer, the header means nothing */
    ck_assert(!web_client_addr("192.0.2.1", "203.0.113.9", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "192.0.2.1");
    ck_assert(!web_client_addr("127.0.0.1", "203.0.113.9", "", ip, sizeof ip));
    ck_assert_str_eq(ip, "127.0.0.1");
    /* no header, junk, or a junk hop on the right: the peer */
    ck_assert(!web_client_addr("127.0.0.1", NULL, trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "127.0.0.1");
    ck_assert(!web_client_addr("127.0.0.1", "1.2.3.4, evil", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "127.0.0.1");
    ck_assert(!web_client_addr("127.0.0.1", "", trusted, ip, sizeof ip));
    /* addresses compare as addresses: mapped IPv4, IPv6 spellings */
    ck_assert(web_client_addr("::ffff:127.0.0.1", "2001:DB8::0:1", trusted, ip, sizeof ip));
    ck_assert_str_eq(ip, "2001:db8::1");
    ck_assert(web_addr_listed("0:0:0:0:0:0:0:1", trusted));
    ck_assert(!web_addr_listed("127.0.0.2", trusted));
    ck_assert(!web_addr_listed("127.0.0.1", NULL));
}
END_TEST

START_TEST(forwarded_proto_and_referer)
{
    ck_assert(web_forwarded_https("https"));
    ck_assert(web_forwarded_https("HTTPS "));
    ck_assert(web_forwarded_https("http, https"));
    ck_assert(!web_forwarded_https("https, http"));
    ck_assert(!web_forwarded_https("httpsx"));
    ck_assert(!web_forwarded_https(""));
    ck_assert(!web_forwarded_https(NULL));
    ck_assert(web_referer_matches("https://play.example:8443/login?next=/", "play.example:8443"));
    ck_assert(web_referer_matches("http://h", "h"));
    ck_assert(!web_referer_matches("https://play.example.evil/", "play.example"));
    ck_assert(!web_referer_matches("https://evil/play.example", "play.example"));
    ck_assert(!web_referer_matches("/login", "play.example"));
    /* the page that sent a request, only from this site */
    char path[32];
    web_referer_path("https://play.example/watch/bob?x=1#top", "play.example", path, sizeof path);
    ck_assert_str_eq(path, "/watch/bob?x=1");
    web_referer_path("https://play.example", "play.example", path, sizeof path);
    ck_assert_str_eq(path, "");
    web_referer_path("https://evil.example/watch/bob", "play.example", path, sizeof path);
    ck_assert_str_eq(path, "");
    web_referer_path("https://play.example/a-very-long-path-that-does-not-fit", "play.example",
                     path, sizeof path);
    ck_assert_str_eq(path, ""); /* a cut path would be another page */
}
END_TEST

/* The head of a request as the door judges it. */
START_TEST(request_heads)
{
    const char *ok = "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\r\nbody";
    ck_assert_int_eq(web_head_check(ok, strlen(ok)), (int)strlen(ok) - 4);
    const char *bare = "\r\nGET / HTTP/1.1\nHost: x\n\n";
    ck_assert_int_eq(web_head_check(bare, strlen(bare)), (int)strlen(bare));
    const char *part = "GET / HTTP/1.1\r\nHost: x\r\nX-A: b";
    ck_assert_int_eq(web_head_check(part, strlen(part)), WEB_HEAD_MORE);
    const char *fold = "GET / HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n";
    ck_assert_int_eq(web_head_check(fold, strlen(fold)), WEB_HEAD_BAD);
    const char *tab = "GET / HTTP/1.1\r\nX-A: b\r\n\tc";
    ck_assert_int_eq(web_head_check(tab, strlen(tab)), WEB_HEAD_BAD); /* before the end, too */
    const char *nocolon = "GET / HTTP/1.1\r\nHost x\r\n\r\n";
    ck_assert_int_eq(web_head_check(nocolon, strlen(nocolon)), WEB_HEAD_BAD);
    ck_assert_int_eq(web_head_check("GET /\0 HTTP/1.1\r\n", 18), WEB_HEAD_BAD);
    static char big[WEB_HEAD_MAX + 64];
    int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nX-Big: ");
    memset(big + n, 'b', sizeof big - (size_t)n);
    ck_assert_int_eq(web_head_check(big, WEB_HEAD_MAX - 1), WEB_HEAD_MORE);
    ck_assert_int_eq(web_head_check(big, WEB_HEAD_MAX), WEB_HEAD_TOO_LARGE);
    /* many small fields: too many well before too many bytes */
    n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\n");
    for (int i = 0; i <= WEB_HEAD_FIELDS; i++)
        n += snprintf(big + n, sizeof big - (size_t)n, "X: %d\r\n", i);
    ck_assert_int_lt(n, 2048);
    ck_assert_int_eq(web_head_check(big, (size_t)n), WEB_HEAD_TOO_LARGE);
    ck_assert_int_eq(web_head_check(big, (size_t)n - 9), WEB_HEAD_MORE); /* exactly the limit */
    /* the query's parameters count with the fields */
    n = snprintf(big, sizeof big, "GET /s?p=0");
    for (int i = 1; i < WEB_HEAD_FIELDS; i++)
        n += snprintf(big + n, sizeof big - (size_t)n, "&p=%d", i);
    n += snprintf(big + n, sizeof big - (size_t)n, " HTTP/1.1\r\nHost: x\r\n");
    ck_assert_int_eq(web_head_check(big, (size_t)n), WEB_HEAD_TOO_LARGE);
    ck_assert_int_eq(web_head_check(big, (size_t)n - 9), WEB_HEAD_MORE);
    /* escapes in the target: two hex digits, never %00; a '&' before '?' is no parameter */
    static const char *const bad[] = {"%zz", "%4", "%", "%00", "?x=%00", "?x=%0g", "?x=a%"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = snprintf(big, sizeof big, "GET /a%s HTTP/1.1\r\n", bad[i]);
        ck_assert_msg(web_head_check(big, (size_t)n) == WEB_HEAD_BAD, "%s", bad[i]);
    }
    const char *fine = "GET /a%2Fb&c?x=%c3%A9&y=%20 HTTP/1.1\r\nHost: x\r\n\r\n";
    ck_assert_int_eq(web_head_check(fine, strlen(fine)), (int)strlen(fine));
}
END_TEST

/* The body a head announces, as the door judges it: only a
 * Content-Length body of at most WEB_BODY_MAX is let through. */
START_TEST(request_bodies)
{
    static const struct {
        const char *fields;
        int verdict;
    } cases[] = {
        {"", 0},
        {"Content-Length: 0\r\n", 0},
        {"Content-Length: 16384\r\n", 0},
        {"content-length:12\r\nContent-Length: 12\r\n", 0},
        {"Content-Length: 16385\r\n", WEB_HEAD_BODY_LARGE},
        {"Content-Length: 99999999999999999999999\r\n", WEB_HEAD_BODY_LARGE},
        {"Content-Length: 5\r\nContent-Length: 50\r\n", WEB_HEAD_BAD},
        {"Content-Length: 50\r\nContent-Length: 5\r\n", WEB_HEAD_BAD},
        {"Content-Length: 5, 5\r\n", WEB_HEAD_BAD},
        {"Content-Length: -1\r\n", WEB_HEAD_BAD},
        {"Content-Length: 0x10\r\n", WEB_HEAD_BAD},
        {"Content-Length: \r\n", WEB_HEAD_BAD},
        {"Content-Length: 5,\r\n", WEB_HEAD_BAD},
        {"Transfer-Encoding: chunked\r\n", WEB_HEAD_NO_LENGTH},
        {"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", WEB_HEAD_NO_LENGTH},
        {"X-Content-Length: 99999999\r\n", 0},
    };
    char head[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = snprintf(head, sizeof head, "POST /login HTTP/1.1\r\nHost: x\r\n%s\r\n",
                         cases[i].fields);
        ck_assert_int_eq(web_head_check(head, (size_t)n), n);
        ck_assert_msg(web_head_body(head, (size_t)n) == cases[i].verdict, "%s", cases[i].fields);
    }
}
END_TEST

/* The door asks a head whether it is a websocket upgrade (an over-rate
 * page is answered there, an upgrade goes on to close with 1013). */
START_TEST(upgrade_heads)
{
    static const struct {
        const char *head;
        bool up;
    } cases[] = {
        {"GET /ws/lobby HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n", true},
        {"GET /ws HTTP/1.1\r\nUPGRADE:WebSocket\r\n\r\n", true},
        {"GET /ws HTTP/1.1\r\nupgrade: h2c, websocket \r\n\r\n", true},
        {"GET /ws HTTP/1.1\nUpgrade:\twebsocket\n\n", true},
        {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", false},
        {"GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", false},
        {"GET / HTTP/1.1\r\nUpgrade: websockets\r\n\r\n", false},
        {"GET / HTTP/1.1\r\nX-Upgrade: websocket\r\n\r\n", false},
        {"GET /?Upgrade:websocket HTTP/1.1\r\n\r\n", false},
        {"GET / HTTP/1.1\r\nUpgrade:\r\n\r\n", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(web_head_upgrade(cases[i].head, strlen(cases[i].head)) == cases[i].up, "%s",
                      cases[i].head);
    /* only the bytes given are read: the field cut short is no upgrade */
    const char *h = "GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n";
    ck_assert(!web_head_upgrade(h, strlen("GET / HTTP/1.1\r\nUpgrade: websock")));
    ck_assert(!web_head_upgrade(h, 0));
}
END_TEST

/* A head's fields as libwebsockets gives them: every one of the name
 * joined with ',', blanks dropped; the request line is never a field. */
START_TEST(head_fields)
{
    static const struct {
        const char *head, *want; /* want NULL: none (or too long) */
    } cases[] = {
        {"GET / HTTP/1.1\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n", "1.2.3.4"},
        {"GET / HTTP/1.1\r\nx-forwarded-for:1.2.3.4 , 5.6.7.8 \r\nHost: a\r\n"
         "X-FORWARDED-FOR:\t9.9.9.9\r\n\r\n",
         "1.2.3.4 , 5.6.7.8,9.9.9.9"},
        {"GET / HTTP/1.1\r\nX-Forwarded-Foo: 1.2.3.4\r\n\r\n", NULL},
        {"X-Forwarded-For: 1.2.3.4 HTTP/1.1\r\nHost: a\r\n\r\n", NULL},
        {"GET / HTTP/1.1\r\nX-Forwarded-For:\r\n\r\n", ""},
        {"GET / HTTP/1.1\nX-Forwarded-For: 4.4.4.4\n\n", "4.4.4.4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64] = "junk";
        bool got = web_head_field(cases[i].head, strlen(cases[i].head), "x-forwarded-for:", out,
                                  sizeof out);
        ck_assert_msg(got == (cases[i].want != NULL), "%zu", i);
        if (got)
            ck_assert_str_eq(out, cases[i].want);
    }
    /* what just fits (7 bytes and the NUL) is given, one byte less is not */
    const char *h = "GET / HTTP/1.1\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n";
    char out[8];
    ck_assert(web_head_field(h, strlen(h), "x-forwarded-for:", out, sizeof out));
    ck_assert_str_eq(out, "1.2.3.4");
    ck_assert(!web_head_field(h, strlen(h), "x-forwarded-for:", out, sizeof out - 1));
}
END_TEST

START_TEST(form_fields)
{
    char v[8];
    const char *f = "name=Agn%65s+B&password=a%2Bb%&x=%zz";
    ck_assert_int_eq(web_form_get(f, strlen(f), "name", v, sizeof v), 7);
    ck_assert_str_eq(v, "Agnes B");
    ck_assert_int_eq(web_form_get(f, strlen(f), "password", v, sizeof v), 4);
    ck_assert_str_eq(v, "a+b%"); /* a lone % stays */
    ck_assert_int_eq(web_form_get(f, strlen(f), "x", v, sizeof v), 3);
    ck_assert_str_eq(v, "%zz");
    ck_assert_int_eq(web_form_get(f, strlen(f), "nam", v, sizeof v), -1);
    ck_assert_int_eq(web_form_get(f, 8, "password", v, sizeof v), -1);            /* outside len */
    ck_assert_int_eq(web_form_get("name=12345678", 13, "name", v, sizeof v), -1); /* too long */
    ck_assert_int_eq(web_form_get("name=", 5, "name", v, sizeof v), 0);
}
END_TEST

START_TEST(redirects_stay_on_this_site)
{
    char out[32];
    webgw_safe_next("/scores?page=2&sort=turns", out, sizeof out);
    ck_assert_str_eq(out, "/scores?page=2&sort=turns");
    webgw_safe_next("//evil.example/x", out, sizeof out);
    ck_assert_str_eq(out, "/");
    webgw_safe_next("/\\evil.example", out, sizeof out);
    ck_assert_str_eq(out, "/");
    webgw_safe_next("https://evil.example", out, sizeof out);
    ck_assert_str_eq(out, "/");
    webgw_safe_next("/a\r\nSet-Cookie:x", out, sizeof out);
    ck_assert_str_eq(out, "/");
    webgw_safe_next("/0123456789012345678901234567890123", out, sizeof out); /* too long */
    ck_assert_str_eq(out, "/");
    webgw_safe_next("", out, sizeof out);
    ck_assert_str_eq(out, "/");
}
END_TEST

START_TEST(accept_encoding)
{
    static const struct {
        const char *hdr;
        bool gzip;
    } cases[] = {
        {"gzip", true},
        {"gzip, deflate, br", true},
        {"deflate, GZIP", true},
        {"br;q=1.0, gzip;q=0.8", true},
        {" x-gzip ", true},
        {"*", true},
        {"identity, *;q=0.5", true},
        {"gzip ; q=1", true},
        {"", false},
        {"deflate", false},
        {"br, identity", false},
        {"gzip;q=0", false},
        {"gzip;q=0.000", false},
        {"gzip; Q=0.", false},
        {"*;q=0", false},
        {"gzip;q=0, *", false},
        {"*, gzip;q=0", false},
        {"gzipx", false},
        {"xgzip, gzi", false},
        {"gzip;level=0", true},
        {"gzip;q=0.001", true},
        {",,gzip,,", true},
        {"identity;q=0", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(web_accepts_gzip(cases[i].hdr) == cases[i].gzip, "%s", cases[i].hdr);
    ck_assert(!web_accepts_gzip(NULL));
}
END_TEST

/* http_gzip's output inflated by zlib (gzip wrapper) gives the input back. */
static void gunzip_equals(const buf_t *gz, const char *want, size_t len)
{
    char *back = malloc(len + 1);
    z_stream z = {0};
    ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)gz->data;
    z.avail_in = (uInt)gz->len;
    z.next_out = (Bytef *)back;
    z.avail_out = (uInt)len + 1;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    ck_assert_uint_eq(z.total_out, len);
    ck_assert(memcmp(back, want, len) == 0);
    inflateEnd(&z);
    free(back);
}

START_TEST(gzip_bodies_round_trip)
{
    size_t n = 300000;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) /* repetitive, like replay frames */
        text[i] = "[12,\"\\u001b[3;4H.@\"],\n"[i % 21];
    buf_t gz;
    buf_init(&gz);
    buf_puts(&gz, "kept");
    ck_assert_int_eq(http_gzip(text, n, &gz), 0);
    ck_assert(memcmp(gz.data, "kept\x1f\x8b", 6) == 0); /* appended; the gzip magic */
    ck_assert_uint_lt(gz.len, n / 20);
    buf_t tail = {gz.data + 4, gz.len - 4, 0, false};
    gunzip_equals(&tail, text, n);
    buf_reset(&gz);
    ck_assert_int_eq(http_gzip("", 0, &gz), 0);
    ck_assert_uint_gt(gz.len, 10);
    gunzip_equals(&gz, "", 0);
    buf_free(&gz);
    free(text);
}
END_TEST

/* Written in pieces, read back in pieces of any size: the same bytes; a
 * gzip cut short or spoiled is refused, never read past. */
START_TEST(gzip_in_pieces_round_trip)
{
    size_t n = 500000;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)("[7,\"\\u001b[1;2Hx\"],\n"[i % 19] + (i / 7919) % 3);
    buf_t gz;
    buf_init(&gz);
    http_gzw_t w;
    ck_assert_int_eq(http_gzw_open(&w, &gz), 0);
    for (size_t off = 0; off < n; off += 12345)
        ck_assert_int_eq(http_gzw_put(&w, text + off, n - off < 12345 ? n - off : 12345), 0);
    ck_assert_int_eq(http_gzw_finish(&w), 0);
    http_gzw_close(&w);
    ck_assert_uint_eq(w.in, n);
    gunzip_equals(&gz, text, n);
    char *back = malloc(n + 1);
    size_t got = 0;
    http_gunz_t r;
    ck_assert_int_eq(http_gunz_open(&r, gz.data, gz.len), 0);
    for (ssize_t k; (k = http_gunz_read(&r, back + got, got % 3 ? 1000 : 8192)) != 0; got += k)
        ck_assert_int_gt(k, 0);
    http_gunz_close(&r);
    ck_assert_uint_eq(got, n);
    ck_assert(memcmp(back, text, n) == 0);
    /* cut short: bytes, then an error, not an end */
    ck_assert_int_eq(http_gunz_open(&r, gz.data, gz.len / 2), 0);
    ssize_t k;
    while ((k = http_gunz_read(&r, back, 8192)) > 0)
        ;
    ck_assert_int_eq(k, -1);
    http_gunz_close(&r);
    ck_assert_int_eq(http_gunz_open(&r, "not a gzip at all", 17), 0);
    ck_assert_int_eq(http_gunz_read(&r, back, 100), -1);
    http_gunz_close(&r);
    free(back);
    buf_free(&gz);
    free(text);
}
END_TEST

/* The login page's texts from outside (a name typed, the message about
 * it) escaped as every page's: a byte that is not UTF-8 becomes U+FFFD, a
 * control character is dropped, markup is text. */
START_TEST(login_page_escapes_what_it_echoes)
{
    buf_t b;
    buf_init(&b);
    webgw_login_form(&b, false, "no \xff\x01<b>", "an\xc3\x28\x1b<i>", "/");
    ck_assert(!b.failed);
    const char *page = b.data;
    size_t n = b.len;
    ck_assert_ptr_null(memchr(page, '\xff', n));
    ck_assert_ptr_null(memchr(page, '\x01', n));
    ck_assert_ptr_null(memchr(page, '\x1b', n));
    const char *msg = "no \xef\xbf\xbd&lt;b&gt;", *name = "value=\"an\xef\xbf\xbd(&lt;i&gt;\"";
    ck_assert_ptr_nonnull(memmem(page, n, msg, strlen(msg)));
    ck_assert_ptr_nonnull(memmem(page, n, name, strlen(name)));
    buf_free(&b);
}
END_TEST

Suite *suite_server_web_parse(void)
{
    Suite *s = suite_create("server.web_parse");
    TCase *t = tcase_create("core");
    tcase_add_test(t, names);
    tcase_add_test(t, websocket_routes);
    tcase_add_test(t, websocket_refusals);
    tcase_add_test(t, request_bodies);
    tcase_add_test(t, http_routes_stay_under_the_root);
    tcase_add_test(t, patterns);
    tcase_add_test(t, origin_against_host);
    tcase_add_test(t, session_cookie);
    tcase_add_test(t, client_behind_trusted_proxies);
    tcase_add_test(t, forwarded_proto_and_referer);
    tcase_add_test(t, request_heads);
    tcase_add_test(t, upgrade_heads);
    tcase_add_test(t, head_fields);
    tcase_add_test(t, form_fields);
    tcase_add_test(t, redirects_stay_on_this_site);
    tcase_add_test(t, accept_encoding);
    tcase_add_test(t, gzip_bodies_round_trip);
    tcase_add_test(t, gzip_in_pieces_round_trip);
    tcase_add_test(t, login_page_escapes_what_it_echoes);
    suite_add_tcase(s, t);
    return s;
}
