/* warren-load — opens N telnet sessions against warrend that register, start
 * a game and press one key per second each, plus M watchers of the first
 * game, and measures keystroke-to-frame latency (key sent -> first bytes of
 * the answer) and watcher delay (player's frame -> watcher's frame; both
 * read in this process, so one clock). Prints BENCH lines.
 *   warren-load --port P [--n N] [--m M] [--seconds S] [--tag TAG] [--pid PID]
 * With --pid, also reports the daemon's RSS growth per session. The daemon
 * should run with --test-hooks so registration uses cheap password hashes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

typedef enum { ST_CONNECT, ST_MENU, ST_PLAY } stage_t;

typedef struct load load_t;
typedef struct {
    load_t *L;
    uv_tcp_t tcp;
    uv_connect_t creq;
    int idx;
    bool watcher, connected;
    stage_t stage;
    uint64_t sent_ns; /* when the pending key went out; 0 = none */
    uint64_t last_rx_ns;
    uint64_t rx;
} sess_t;

struct load {
    uv_loop_t *loop;
    struct sockaddr_in addr;
    int n, m, seconds;
    sess_t *s;
    uint64_t *lat, *wdel;
    size_t nlat, caplat, nwdel, capwdel;
    uint64_t frame0_ns; /* last frame seen by player 0 */
    uv_timer_t tick;
    int ticks;
    bool measuring;
    const char *tag;
    int pid;
    long rss0;
    int run_id; /* names sort in session order: watchers pick session 0 */
    char rbuf[65536];
};

static void push(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        *a = realloc(*a, *cap * sizeof **a);
    }
    (*a)[(*n)++] = v;
}

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void sess_send(sess_t *s, const char *txt)
{
    size_t len = strlen(txt);
    uv_write_t *w = malloc(sizeof *w + len);
    memcpy(w + 1, txt, len);
    uv_buf_t b = uv_buf_init((char *)(w + 1), (unsigned)len);
    uv_write(w, (uv_stream_t *)&s->tcp, &b, 1, on_written);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    sess_t *s = h->data;
    b->base = s->L->rbuf; /* consumed at once in on_read */
    b->len = sizeof s->L->rbuf;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    sess_t *s = st->data;
    load_t *L = s->L;
    (void)b;
    if (n <= 0) {
        if (n < 0)
            s->connected = false;
        return;
    }
    uint64_t now = uv_hrtime();
    s->rx += (uint64_t)n;
    s->last_rx_ns = now;
    if (!L->measuring)
        return;
    if (s->sent_ns) {
        push(&L->lat, &L->nlat, &L->caplat, now - s->sent_ns);
        s->sent_ns = 0;
        if (s->idx == 0)
            L->frame0_ns = now;
    }
    if (s->watcher && L->frame0_ns) {
        push(&L->wdel, &L->nwdel, &L->capwdel, now - L->frame0_ns);
        L->frame0_ns = 0;
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    sess_t *s = req->data;
    if (status < 0) {
        fprintf(stderr, "warren-load: connect %d: %s\n", s->idx, uv_strerror(status));
        return;
    }
    s->connected = true;
    s->stage = ST_MENU;
    uv_read_start((uv_stream_t *)&s->tcp, on_alloc, on_read);
}

static void sess_open(load_t *L, int i, bool watcher)
{
    sess_t *s = &L->s[i];
    s->L = L;
    s->idx = i;
    s->watcher = watcher;
    uv_tcp_init(L->loop, &s->tcp);
    uv_tcp_nodelay(&s->tcp, 1);
    s->tcp.data = s;
    s->creq.data = s;
    uv_tcp_connect(&s->creq, &s->tcp, (struct sockaddr *)&L->addr, on_connect);
}

static long rss_of(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* Script by seconds: 0 register, 2 play, 4.. keys once a second, watchers
 * join the first game at 4. Each player has its own slot within the second
 * (players press keys independently, not in step), so at N = 1,000 about ten
 * keys leave in each 10 ms slot. */
#define SLOTS 100 /* timer ticks per second */
static void on_tick(uv_timer_t *t)
{
    load_t *L = t->data;
    int sec = L->ticks++ / SLOTS, sub = (L->ticks - 1) % SLOTS;
    for (int i = 0; i < L->n + L->m; i++) {
        sess_t *s = &L->s[i];
        if (!s->connected)
            continue;
        bool mine = (i * 37) % SLOTS == sub; /* 37 is prime to SLOTS: neighbours apart */
        if (!s->watcher && sec == 1 && sub == 0) {
            char buf[96];
            snprintf(buf, sizeof buf, "rld%05d_%05d\rload-pass-1\rload-pass-1\r", L->run_id, i);
            sess_send(s, buf);
        } else if (!s->watcher && sec == 3 && sub == 0)
            sess_send(s, "p");
        else if (s->watcher && sec == 5 && sub == 0)
            sess_send(s, "w");
        else if (s->watcher && sec == 6 && sub == 0)
            sess_send(s, "a");
        else if (!s->watcher && sec >= 6 && mine) {
            L->measuring = sec >= 7;
            s->sent_ns = uv_hrtime();
            sess_send(s, (sec & 1) ? "l" : "h");
        }
    }
    if (sec == 6 && sub == 0 && L->pid)
        printf("# rss at play %ld\n", rss_of(L->pid));
    if (sec >= 7 + L->seconds) {
        uv_timer_stop(t);
        for (int i = 0; i < L->n + L->m; i++)
            if (L->s[i].connected)
                uv_close((uv_handle_t *)&L->s[i].tcp, NULL);
        uv_close((uv_handle_t *)t, NULL);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t pct(uint64_t *a, size_t n, double p)
{
    if (!n)
        return 0;
    qsort(a, n, sizeof *a, cmp_u64);
    size_t i = (size_t)(p * (double)(n - 1));
    return a[i];
}

int main(int argc, char **argv)
{
    static load_t L; /* large (read buffer); zeroed */
    int port = 2323;
    L.n = 100;
    L.m = 0;
    L.seconds = 10;
    L.tag = "";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            L.n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--m"))
            L.m = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds"))
            L.seconds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tag"))
            L.tag = argv[i + 1];
        else if (!strcmp(argv[i], "--pid"))
            L.pid = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: warren-load --port P [--n N] [--m M] [--seconds S] [--tag T] "
                            "[--pid PID]\n");
            return 2;
        }
    }
    L.loop = uv_default_loop();
    L.run_id = (int)(uv_hrtime() / 1000 % 100000);
    uv_ip4_addr("127.0.0.1", port, &L.addr);
    L.s = calloc((size_t)(L.n + L.m), sizeof *L.s);
    long rss0 = L.pid ? rss_of(L.pid) : 0;
    for (int i = 0; i < L.n + L.m; i++)
        sess_open(&L, i, i >= L.n);
    uv_timer_init(L.loop, &L.tick);
    L.tick.data = &L;
    uv_timer_start(&L.tick, on_tick, 1000 / SLOTS, 1000 / SLOTS);
    uv_run(L.loop, UV_RUN_DEFAULT);
    int live = 0;
    for (int i = 0; i < L.n; i++)
        live += L.s[i].rx > 0;
    printf("# sessions %d answered, %zu latency samples, %zu watcher samples\n", live, L.nlat,
           L.nwdel);
    printf("BENCH server.latency.p50.us%s %.1f\n", L.tag, pct(L.lat, L.nlat, 0.50) / 1000.0);
    printf("BENCH server.latency.p99.us%s %.1f\n", L.tag, pct(L.lat, L.nlat, 0.99) / 1000.0);
    if (L.pid)
        printf("BENCH server.rss.per_session.bytes%s %ld\n", L.tag,
               (rss_of(L.pid) - rss0) / (L.n > 0 ? L.n : 1));
    if (L.m)
        printf("BENCH server.watch.delay.p99.us%s %.1f\n", "", pct(L.wdel, L.nwdel, 0.99) / 1000.0);
    free(L.s);
    free(L.lat);
    free(L.wdel);
    return L.nlat ? 0 : 1;
}
