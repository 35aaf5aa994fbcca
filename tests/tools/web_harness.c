/* web_harness — runs the web gateway on a libuv loop with a tiny fake game,
 * for tests of server/web/web.c without the daemon.
 *
 *   web_harness --listen 127.0.0.1:PORT [--root DIR] [--msg-max N] [--outq N]
 *
 * Prints "listening PORT" once serving. Every /ws/play connection shares one
 * fake game: an '@' on a dotted field that h/j/k/l and the arrow keys move,
 * with a line of what was typed; the frame is sent to every player and
 * watcher. /ws/watch/nobody is refused (1008); other watch names attach.
 * /ws/lobby gets one game list whose player name holds markup (injection
 * test). Text messages {"t":"flood","n":N} queue N 16 KiB frames, each
 * starting with its number (8 digits, counted over every flood: order
 * and queue limit tests); once the queue drains, {"t":"drained","refused":R} follows. {"t":"kick"} closes
 * the socket with 1012 as a restarting server would. SIGTERM/SIGINT stop
 * the gateway; exits 0 when the loop closed cleanly. Dynamic routes: see
 * routes[]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "web.h"

#define MAXC 4096

typedef struct {
    int x, y, w, h;
    char typed[64];
    int moves;
    web_conn_t *viewers[MAXC];
    int nviewers;
    uv_signal_t sigterm, sigint;
    web_t *web;
    int refused;
    int flooded; /* flood frames made so far: the next one's number */
    uv_loop_t *loop;
} fake_t;

static void render(fake_t *f, char *out, size_t cap, size_t *len)
{
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n,
                          "\x1b[H\x1b[2J\x1b[1;33mWarren harness\x1b[0m  size %dx%d  moves %d\r\n",
                          f->w, f->h, f->moves);
    n += (size_t)snprintf(out + n, cap - n, "typed: %s\r\n", f->typed);
    for (int y = 0; y < 10 && n < cap - 200; y++) {
        for (int x = 0; x < 40; x++) {
            if (x == f->x && y == f->y)
                n += (size_t)snprintf(out + n, cap - n, "\x1b[1;32m@\x1b[0m");
            else
                out[n++] = '.';
        }
        out[n++] = '\r';
        out[n++] = '\n';
    }
    *len = n;
}

static void broadcast(fake_t *f)
{
    char buf[4096];
    size_t len;
    render(f, buf, sizeof buf, &len);
    for (int i = 0; i < f->nviewers; i++)
        web_send(f->viewers[i], buf, len, false);
}

static int on_open(void *ctx, web_conn_t *wc, const web_open_t *info)
{
    fake_t *f = ctx;
    if (info->kind == WEB_LOBBY) {
        const char *games =
            "{\"t\":\"lobby\",\"games\":[{\"name\":\"<img src=x onerror=alert(1)>\","
            "\"race\":\"<b>elf</b>\",\"class\":\"wizard\",\"depth\":3,\"turn\":120,"
            "\"idle\":5,\"watchers\":1,\"w\":80,\"h\":24}]}";
        web_send(wc, games, strlen(games), true);
        return 0;
    }
    if (info->kind == WEB_WATCH && strcmp(info->name, "nobody") == 0)
        return -1;
    if (f->nviewers >= MAXC)
        return -1;
    f->viewers[f->nviewers++] = wc;
    char buf[4096];
    size_t len;
    render(f, buf, sizeof buf, &len);
    web_send(wc, buf, len, false);
    return 0;
}

static void on_input(void *ctx, web_conn_t *wc, const uint8_t *b, size_t len)
{
    fake_t *f = ctx;
    if (web_conn_kind(wc) != WEB_PLAY)
        return;
    for (size_t i = 0; i < len; i++) {
        int dx = 0, dy = 0;
        char c = (char)b[i];
        if (c == 0x1b && i + 2 < len && b[i + 1] == '[') {
            char a = (char)b[i + 2];
            c = a == 'A' ? 'k' : a == 'B' ? 'j' : a == 'C' ? 'l' : a == 'D' ? 'h' : 0;
            i += 2;
        }
        if (c == 'h')
            dx = -1;
        if (c == 'l')
            dx = 1;
        if (c == 'k')
            dy = -1;
        if (c == 'j')
            dy = 1;
        if (dx || dy) {
            f->x = (f->x + dx + 40) % 40;
            f->y = (f->y + dy + 10) % 10;
            f->moves++;
        }
        size_t tl = strlen(f->typed);
        if (c >= 0x20 && c < 0x7f && tl + 1 < sizeof f->typed) {
            f->typed[tl] = c;
            f->typed[tl + 1] = 0;
        } else if (c == 0x1b && tl + 5 < sizeof f->typed) {
            strcat(f->typed, "<Esc>");
        }
    }
    broadcast(f);
}

static void on_resize(void *ctx, web_conn_t *wc, int w, int h)
{
    fake_t *f = ctx;
    if (web_conn_kind(wc) != WEB_PLAY)
        return;
    f->w = w;
    f->h = h;
    broadcast(f);
}

static void on_message(void *ctx, web_conn_t *wc, const char *json, size_t len)
{
    fake_t *f = ctx;
    char reply[128];
    if (len < 200 && strstr(json, "\"kick\"")) {
        web_close(wc, 1012, "restarting"); /* a blip: the page reconnects */
        return;
    }
    if (len < 200 && strstr(json, "\"flood\"")) {
        const char *np = strstr(json, "\"n\":");
        int n = np ? atoi(np + 4) : 0, refused = 0;
        static char big[16384];
        memset(big, 'x', sizeof big);
        for (int i = 0; i < n && i < 10000; i++) {
            char num[16];
            snprintf(num, sizeof num, "%08d", f->flooded++ % 100000000);
            memcpy(big, num, 8);
            refused += web_send(wc, big, sizeof big, false) < 0;
        }
        f->refused = refused; /* reported by on_drained: the queue is full now */
        if (refused)
            return;
        snprintf(reply, sizeof reply, "{\"t\":\"drained\",\"refused\":0}");
    } else {
        snprintf(reply, sizeof reply, "{\"t\":\"status\",\"text\":\"message %zu bytes\"}", len);
    }
    web_send(wc, reply, strlen(reply), true);
}

static void on_drained(void *ctx, web_conn_t *wc)
{
    fake_t *f = ctx;
    char m[64];
    snprintf(m, sizeof m, "{\"t\":\"drained\",\"refused\":%d}", f->refused);
    web_send(wc, m, strlen(m), true);
}

static void on_close(void *ctx, web_conn_t *wc)
{
    fake_t *f = ctx;
    for (int i = 0; i < f->nviewers; i++)
        if (f->viewers[i] == wc) {
            f->viewers[i] = f->viewers[--f->nviewers];
            break;
        }
}

/* Dynamic pages: /api/echo answers at once with what it got (form field
 * "name" decoded), /api/slow answers 100 ms later from a timer, /api/cookie
 * sets a cookie; anything else is 404. */
typedef struct {
    uv_timer_t t;
    web_t *web;
    uint64_t id;
} slow_t;

static void slow_closed(uv_handle_t *h)
{
    free(h->data);
}

static void slow_fire(uv_timer_t *t)
{
    slow_t *s = t->data;
    const char *b = "slow done";
    web_reply(s->web, s->id, 200, "text/plain; charset=utf-8", NULL, b, strlen(b));
    uv_close((uv_handle_t *)t, slow_closed);
}

static int h_echo(void *ctx, const web_http_t *req)
{
    fake_t *f = ctx;
    char body[2048], name[128] = "";
    web_form_get(req->body, req->body_len, "name", name, sizeof name);
    int n = snprintf(body, sizeof body, "method=%s\npath=%s\ncookie=%s\nname=%s\nbody=%zu\n",
                     req->post ? "POST" : "GET", req->path, req->cookie, name, req->body_len);
    for (int i = 0; i < req->nargs && n < (int)sizeof body - 100; i++)
        n += snprintf(body + n, sizeof body - (size_t)n, "arg=%s\n", req->args[i]);
    return web_reply(f->web, req->id, 200, "text/plain; charset=utf-8", NULL, body, (size_t)n);
}

static int h_cookie(void *ctx, const web_http_t *req)
{
    fake_t *f = ctx;
    const char *h[] = {"set-cookie:", WEB_COOKIE_NAME "=abc; HttpOnly; SameSite=Strict; Path=/",
                       NULL};
    return web_reply(f->web, req->id, 303, "text/plain", h, "", 0) == 0 ? 0 : -1;
}

static int h_big(void *ctx, const web_http_t *req)
{
    fake_t *f = ctx;
    static char big[300000];
    memset(big, 'z', sizeof big);
    return web_reply(f->web, req->id, 200, "text/plain", NULL, big, sizeof big);
}

static int h_slow(void *ctx, const web_http_t *req)
{
    fake_t *f = ctx;
    slow_t *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->web = f->web;
    s->id = req->id;
    uv_timer_init(f->loop, &s->t);
    s->t.data = s;
    uv_timer_start(&s->t, slow_fire, 100, 0);
    return 0;
}

/* The harness's URLs: the client's pages and websockets as warrend serves
 * them (server/web/routes.c), then the pages above. */
#define PAGE (WEB_GET | WEB_HEAD)
#define CALL (WEB_GET | WEB_POST)
static const web_route_t routes[] = {
    {PAGE, "/", .file = "index.html"},
    {PAGE, "/index.html", .file = "index.html"},
    {PAGE, "/play", .file = "play.html"},
    {PAGE, "/watch/{name}", .file = "watch.html"},
    {PAGE, "/assets/{file}", .file = "assets/", .immutable = true},
    {WEB_WS, "/ws/lobby", .arg = WEB_LOBBY},
    {WEB_WS, "/ws/play", .arg = WEB_PLAY},
    {WEB_WS, "/ws/watch/{name}", .arg = WEB_WATCH},
    {CALL, "/api/echo", .handler = h_echo},
    {CALL, "/api/cookie", .handler = h_cookie},
    {CALL, "/api/big", .handler = h_big},
    {CALL, "/api/slow", .handler = h_slow},
};

static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    fake_t *f = s->data;
    web_stop(f->web);
    uv_close((uv_handle_t *)&f->sigterm, NULL);
    uv_close((uv_handle_t *)&f->sigint, NULL);
}

int main(int argc, char **argv)
{
    web_config_t cfg = {
        .listen = "127.0.0.1:0", .routes = routes, .nroutes = sizeof routes / sizeof routes[0]};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--listen") == 0)
            cfg.listen = argv[i + 1];
        else if (strcmp(argv[i], "--root") == 0)
            cfg.root = argv[i + 1];
        else if (strcmp(argv[i], "--msg-max") == 0)
            cfg.msg_max = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--outq") == 0)
            cfg.outq_max = strtoul(argv[i + 1], NULL, 10);
        else {
            fprintf(
                stderr,
                "usage: web_harness --listen ADDR:PORT [--root DIR] [--msg-max N] [--outq N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    static fake_t f = {.x = 5, .y = 5, .w = 80, .h = 24};
    web_hooks_t hooks = {.ctx = &f,
                         .on_open = on_open,
                         .on_input = on_input,
                         .on_resize = on_resize,
                         .on_message = on_message,
                         .on_drained = on_drained,
                         .on_close = on_close};
    f.loop = &loop;
    char err[256];
    f.web = web_start(&loop, &cfg, &hooks, err, sizeof err);
    if (!f.web) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("listening %d\n", web_port(f.web));
    uv_signal_init(&loop, &f.sigterm);
    uv_signal_init(&loop, &f.sigint);
    f.sigterm.data = f.sigint.data = &f;
    uv_signal_start(&f.sigterm, on_signal, SIGTERM);
    uv_signal_start(&f.sigint, on_signal, SIGINT);
    uv_run(&loop, UV_RUN_DEFAULT);
    web_free(f.web);
    int ret = uv_loop_close(&loop);
    fprintf(stderr, "web_harness: loop closed status=%d\n", ret);
    return ret == 0 ? 0 : 3;
}
