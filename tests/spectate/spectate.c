/* warren-spectate — browser spectators in bulk against a running warrend,
 * beside warren-load: G players over /ws/play (cookies given) pressing a
 * key every --interval seconds, then N websocket watchers over
 * /ws/watch/NAME spread over their games (or all on the first, --one).
 * Every message is read and every frame decoded into an 80x24 screen
 * (tests/load/vt.c), the players' and the watchers' alike.
 *
 *   warren-spectate [--host ADDR] --port HTTP --cookies FILE [--games G]
 *                   [--watchers N] [--one] [--seconds S] [--interval S]
 *                   [--slow K] [--tag T] [--wake] [--daemon-pid PID]
 *
 * ADDR: the daemon's IPv4 address (127.0.0.1; another when the tool runs
 * as another machine, tests/web/spectators.py's network mode). FILE has
 * one "NAME COOKIE" line a player. Two measured windows of S
 * seconds: without watchers, then with them. Figures (BENCH lines):
 *   web.spectators.TAG.p50.ms, .p99.ms   a key to each watcher's copy of
 *                                        its frame (first frame after the key)
 *                                        reaching the watcher's socket
 *   web.spectators.TAG.read.p50.ms, .read.p99.ms   ... read by this tool
 *   web.spectators.TAG.spread.p99.ms     the player's frame reaching its
 *                                        socket to a watcher's: the fan-out
 *   web.spectators.TAG.worst_watcher.p50.ms  the median delay of the watcher
 *                                        whose median is the longest: one
 *                                        always served last has the whole
 *                                        fan-out's length every frame
 *   web.spectators.TAG.player.p99.us     a key to the player's frame, with
 *   web.spectators.TAG.none.player.p99.us  ... and without the watchers
 *   web.spectators.TAG.player_ratio      the two p99s' ratio
 *   web.spectators.TAG.frames_per_s      watcher frames read a second
 *   web.spectators.TAG.keyframes         keyframes watchers got after the first
 *   web.spectators.TAG.differ            watchers whose screen is not their
 *                                        player's once all is read (must be 0)
 *   web.spectators.TAG.cpu_ms_per_s, .none.cpu_ms_per_s  (--daemon-pid) the
 *                                        daemon's CPU time a second, all
 *                                        threads, with and without watchers
 *   web.spectators.TAG.cpu_us_per_frame  (--daemon-pid) the daemon's CPU time,
 *                                        all threads, in the window with
 *                                        watchers less the one without, per
 *                                        watcher frame read
 * --slow K: K watchers read nothing during the window, then catch up; they
 * must end on their player's screen like the rest (a keyframe brings them).
 * Exits 1 when a socket fails, a watcher never got a frame or a screen
 * differs.
 *
 * What is timed is the daemon's delay, not this tool's: a frame's time is
 * when its last bytes reached the socket (the kernel's receive timestamp,
 * SO_TIMESTAMPNS), however late the tool reads them; the time the tool
 * read them is printed beside it (.read.p50.ms, .read.p99.ms). During a
 * window the tool looks at its sockets every POLL_US instead of sleeping
 * in epoll_wait: on loopback the kernel runs the receiving side of a send
 * in the sender's system call, and a reader asleep in epoll_wait is woken
 * there (an interrupt to the other core) once per socket, which a browser
 * on another machine never costs the daemon (--wake: sleep in epoll_wait
 * as before). Players' sockets are read first (their own epoll set). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "../load/vt.h"
#include "../tools/wsframe.h"

typedef struct {
    double *v;
    size_t n, cap;
} samples_t;

typedef struct {
    int fd, game;
    bool player, slow;
    unsigned char *buf;
    size_t len, cap;
    vt_t vt;
    long frames, keyframes;
    double rx_us;     /* when the bytes last read reached the socket (kernel) */
    uint64_t counted; /* the game's key whose delay this watcher gave */
    samples_t lat;    /* this watcher's delays */
    bool playing, chooser;
} peer_t;

typedef struct {
    char name[32], cookie[160];
    peer_t *player;
    uint64_t key;     /* keys sent */
    double sent_us;   /* the latest key's time */
    double player_us; /* its frame's arrival at the player's socket; 0: not yet */
    bool out;         /* its frame has not come back */
    double next_us;   /* the next key's time */
} game_t;

typedef struct {
    int port, ngames, nwatch, one, slow, wake; /* wake: --wake, sleep in epoll_wait */
    int daemon_pid;                            /* --daemon-pid: its CPU time is read */
    double cpu_ms[2];                          /* the daemon's CPU in each window */
    double seconds, interval;
    const char *cookies, *tag;
    struct in_addr host; /* --host */
    game_t *games;
    peer_t *peers; /* the watchers */
    int ep_players, ep_watch;
    bool measuring, watching, held; /* held: slow watchers are not read */
    samples_t player_lat, watch_lat, watch_read, watch_spread;
    long frames_in_window;
} run_t;

#define POLL_US 200 /* how often a window looks at its sockets (without --wake) */

/* Times are the real-time clock's, as the kernel's receive timestamps are. */
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *msg, int i)
{
    fprintf(stderr, "warren-spectate: %s (%d)\n", msg, i);
    exit(1);
}

static void push(samples_t *s, double v)
{
    if (s->n == s->cap) {
        s->cap = s->cap * 2 + 1024;
        if (!(s->v = realloc(s->v, s->cap * sizeof *s->v)))
            die("out of memory", 0);
    }
    s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(samples_t *s, double p)
{
    if (!s->n)
        return 0;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    size_t i = (size_t)(p * (double)(s->n - 1) + 0.5);
    return s->v[i];
}

/* ---- websockets ---------------------------------------------------------------------------- */

static int ws_connect(const run_t *r, const char *path, const char *cookie)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons((uint16_t)r->port), .sin_addr = r->host};
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &r->host, host, sizeof host);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0)
        return close(fd), -1;
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                     path, host, r->port, cookie ? "Cookie: " : "", cookie ? cookie : "",
                     cookie ? "\r\n" : "");
    if (write(fd, req, (size_t)n) != n)
        return close(fd), -1;
    char head[2048];
    size_t hl = 0;
    while (hl < sizeof head - 1) { /* byte by byte: frames may follow at once */
        if (read(fd, head + hl, 1) != 1)
            return close(fd), -1;
        hl++;
        if (hl >= 4 && memcmp(head + hl - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    head[hl] = 0;
    if (!strstr(head, " 101 "))
        return close(fd), -1;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

/* One masked client frame (short payloads only). */
static int ws_send(int fd, int opcode, const void *data, size_t len)
{
    unsigned char f[256];
    if (len > 125)
        return -1;
    f[0] = (unsigned char)(0x80 | opcode);
    f[1] = (unsigned char)(0x80 | len);
    memset(f + 2, 0, 4); /* a zero mask: the payload as it is */
    memcpy(f + 6, data, len);
    return write(fd, f, 6 + len) == (ssize_t)(6 + len) ? 0 : -1;
}

/* ---- what a peer reads ----------------------------------------------------------------------- */

static void on_frame(run_t *r, peer_t *p, const unsigned char *d, size_t n)
{
    game_t *g = &r->games[p->game];
    double read = now_us(), t = p->rx_us > 0 ? p->rx_us : read;
    vt_feed(&p->vt, (const char *)d, n);
    p->frames++;
    if (memmem(d, n, "\033[H\033[2J", 7))
        p->keyframes++;
    if (p->player) {
        p->playing = p->playing || memmem(d, n, "HP", 2);
        p->chooser = p->chooser || memmem(d, n, "who are you", 11);
        if (g->out && r->measuring)
            push(&r->player_lat, t - g->sent_us);
        if (g->out)
            g->player_us = t;
        g->out = false;
        return;
    }
    if (r->measuring)
        r->frames_in_window++;
    if (r->measuring && g->key && p->counted != g->key && !p->slow) {
        p->counted = g->key;
        push(&r->watch_lat, t - g->sent_us);
        push(&p->lat, t - g->sent_us);
        push(&r->watch_read, read - g->sent_us);
        if (g->player_us > 0)
            push(&r->watch_spread, t - g->player_us);
    }
}

/* Whole messages out of p's buffer: binary ones are frames (decoded),
 * text ones (watcher counts, sizes) are read and left. */
static void parse(run_t *r, peer_t *p)
{
    size_t off = 0, h, n;
    int op;
    while (wsframe_next(p->buf + off, p->len - off, &op, &h, &n)) {
        const unsigned char *b = p->buf + off;
        if (op == 2)
            on_frame(r, p, b + h, n);
        else if (op == 8)
            die("a websocket was closed by the daemon", p->game);
        off += h + n;
    }
    memmove(p->buf, p->buf + off, p->len - off);
    p->len -= off;
}

/* One read; p->rx_us becomes the kernel's time for the newest bytes in it
 * (0 when the read carried none: the read's own time is used then). */
static ssize_t read_stamped(peer_t *p)
{
    struct iovec iov = {.iov_base = p->buf + p->len, .iov_len = p->cap - p->len};
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl};
    ssize_t n = recvmsg(p->fd, &m, 0);
    if (n > 0)
        p->rx_us = 0;
    for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            p->rx_us = (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
        }
    }
    return n;
}

/* Reads what is there. Returns -1 when the socket ended. */
static int peer_read(run_t *r, peer_t *p)
{
    for (;;) {
        if (p->cap - p->len < 16384) {
            p->cap = p->cap * 2 + 16384;
            if (!(p->buf = realloc(p->buf, p->cap)))
                die("out of memory", 0);
        }
        ssize_t n = read_stamped(p);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return -1;
        if (n < 0)
            break;
        p->len += (size_t)n;
    }
    parse(r, p);
    return 0;
}

/* Ready players first, then a batch of ready watchers (waiting up to ms:
 * in a window without --wake, a nap of POLL_US when none is ready). */
static void pump(run_t *r, int ms)
{
    struct epoll_event ev[256];
    if (r->measuring && !r->wake && ms > 0) {
        ms = 0;
        if (epoll_wait(r->ep_watch, ev, 1, 0) == 0) /* nothing ready: a nap, not a wait */
            nanosleep(&(struct timespec){.tv_nsec = POLL_US * 1000}, NULL);
    }
    int n = epoll_wait(r->ep_players, ev, 256, 0);
    for (int i = 0; i < n; i++)
        if (peer_read(r, ev[i].data.ptr) < 0)
            die("a player's socket closed", 0);
    n = epoll_wait(r->ep_watch, ev, 256, n > 0 ? 0 : ms);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr == NULL) /* the players' set is ready: read at the top */
            continue;
        peer_t *p = ev[i].data.ptr;
        if (r->held && p->slow)
            continue;
        if (peer_read(r, p) < 0)
            die("a watcher's socket closed", (int)(p - r->peers));
    }
}

/* ---- the run ------------------------------------------------------------------------------- */

static void add_ep(int ep, int fd, void *ptr)
{
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = ptr};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0)
        die("epoll", fd);
}

static void load_cookies(run_t *r)
{
    FILE *f = fopen(r->cookies, "r");
    if (!f)
        die("cannot read the cookies file", 0);
    r->games = calloc((size_t)r->ngames, sizeof *r->games);
    int i = 0;
    while (i < r->ngames && fscanf(f, "%31s %159s", r->games[i].name, r->games[i].cookie) == 2)
        i++;
    fclose(f);
    if (i < r->ngames)
        die("fewer players in the cookies file than --games", i);
}

/* Player i over /ws/play, at 80x24, until its game shows its status line. */
static void start_player(run_t *r, int i)
{
    game_t *g = &r->games[i];
    peer_t *p = g->player = calloc(1, sizeof *p);
    char cookie[200];
    snprintf(cookie, sizeof cookie, "warren_session=%s", g->cookie);
    if (!p || (p->fd = ws_connect(r, "/ws/play", cookie)) < 0)
        die("a player's websocket was refused", i);
    p->player = true;
    p->game = i;
    vt_init(&p->vt);
    const char *rs = "{\"t\":\"resize\",\"w\":80,\"h\":24}";
    ws_send(p->fd, 1, rs, strlen(rs));
    add_ep(r->ep_players, p->fd, p);
    for (double until = now_us() + 20e6; !p->playing;) {
        if (now_us() > until)
            die("a player's game never showed", i);
        if (p->chooser) { /* any key but a-d: a random character */
            p->chooser = false;
            ws_send(p->fd, 2, "*", 1);
        }
        pump(r, 5);
    }
}

static void start_watchers(run_t *r)
{
    r->peers = calloc((size_t)r->nwatch, sizeof *r->peers);
    for (int i = 0; i < r->nwatch; i++) {
        peer_t *p = &r->peers[i];
        p->game = r->one ? 0 : i % r->ngames;
        p->slow = i < r->slow;
        char path[96];
        snprintf(path, sizeof path, "/ws/watch/%s", r->games[p->game].name);
        if ((p->fd = ws_connect(r, path, NULL)) < 0)
            die("a watcher's websocket was refused", i);
        vt_init(&p->vt);
        add_ep(r->ep_watch, p->fd, p);
        if (i % 256 == 255)
            pump(r, 0); /* keyframes come in meanwhile */
    }
}

/* The CPU time (user and system, ms) process pid has used; 0 unknown. */
static double cpu_ms_of(int pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = pid > 0 ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    const char *p = strrchr(line, ')'); /* the command may hold spaces */
    unsigned long long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

/* Each player presses Ctrl-P (history on, then off: a frame each, no game
 * turn) every interval, staggered, for seconds; the window is measured. */
static void window(run_t *r, double seconds)
{
    double t0 = now_us(), end = t0 + seconds * 1e6, cpu0 = cpu_ms_of(r->daemon_pid);
    for (int i = 0; i < r->ngames; i++)
        r->games[i].next_us = t0 + r->interval * 1e6 * i / r->ngames;
    r->measuring = true;
    while (now_us() < end) {
        double t = now_us();
        for (int i = 0; i < r->ngames; i++) {
            game_t *g = &r->games[i];
            if (t < g->next_us || g->out)
                continue;
            g->next_us += r->interval * 1e6;
            g->key++;
            g->sent_us = now_us();
            g->player_us = 0;
            g->out = true;
            if (ws_send(g->player->fd, 2, "\x10", 1) < 0)
                die("a key could not be sent", i);
        }
        pump(r, 1);
    }
    r->measuring = false;
    r->cpu_ms[r->watching] = cpu_ms_of(r->daemon_pid) - cpu0;
    r->watching = true;
}

static void settle(run_t *r, double seconds)
{
    for (double end = now_us() + seconds * 1e6; now_us() < end;)
        pump(r, 20);
}

/* The slow watchers off the epoll set (held) or back on it. */
static void hold_slow(run_t *r, bool held)
{
    r->held = held;
    for (int i = 0; i < r->slow && i < r->nwatch; i++) {
        if (held)
            epoll_ctl(r->ep_watch, EPOLL_CTL_DEL, r->peers[i].fd, NULL);
        else
            add_ep(r->ep_watch, r->peers[i].fd, &r->peers[i]);
    }
}

/* Watchers whose screen is not their player's, once all is read. */
static int differ(const run_t *r)
{
    int bad = 0;
    for (int i = 0; i < r->nwatch; i++) {
        const peer_t *p = &r->peers[i], *pl = r->games[p->game].player;
        if (memcmp(p->vt.row, pl->vt.row, sizeof p->vt.row) != 0) {
            if (!bad)
                fprintf(stderr, "warren-spectate: watcher %d of %s: row 0 '%s' against '%s'\n", i,
                        r->games[p->game].name, vt_row(&p->vt, 0), vt_row(&pl->vt, 0));
            bad++;
        }
    }
    return bad;
}

static void bench(const run_t *r, const char *name, double v)
{
    printf("BENCH web.spectators.%s.%s %.*f\n", r->tag, name, v < 100 ? 2 : 0, v);
}

static int opt_parse(run_t *r, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--one") || !strcmp(a, "--wake")) {
            *(a[2] == 'o' ? &r->one : &r->wake) = 1;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "--port"))
            r->port = atoi(v);
        else if (!strcmp(a, "--host")) {
            if (inet_pton(AF_INET, v, &r->host) != 1)
                return -1;
        } else if (!strcmp(a, "--cookies"))
            r->cookies = v;
        else if (!strcmp(a, "--games"))
            r->ngames = atoi(v);
        else if (!strcmp(a, "--watchers"))
            r->nwatch = atoi(v);
        else if (!strcmp(a, "--seconds"))
            r->seconds = atof(v);
        else if (!strcmp(a, "--interval"))
            r->interval = atof(v);
        else if (!strcmp(a, "--slow"))
            r->slow = atoi(v);
        else if (!strcmp(a, "--tag"))
            r->tag = v;
        else if (!strcmp(a, "--daemon-pid"))
            r->daemon_pid = atoi(v);
        else
            return -1;
    }
    return r->port && r->cookies && r->ngames > 0 && r->nwatch >= 0 && r->interval > 0 ? 0 : -1;
}

/* The longest of the watchers' own median delays (us). */
static double worst_watcher(run_t *r)
{
    double worst = 0;
    for (int i = 0; i < r->nwatch; i++) {
        double m = pct(&r->peers[i].lat, 0.5);
        worst = m > worst ? m : worst;
    }
    return worst;
}

static void report(run_t *r, double none_p99, double secs)
{
    long keyframes = 0;
    for (int i = 0; i < r->nwatch; i++) {
        if (r->peers[i].frames == 0)
            die("a watcher never got a frame", i);
        keyframes += r->peers[i].keyframes - 1; /* its first is the keyframe it came with */
    }
    double p99 = pct(&r->player_lat, 0.99);
    printf("# %d watchers over %d games%s, %d slow; %zu keys, %zu watcher delays measured\n",
           r->nwatch, r->one ? 1 : r->ngames, r->one ? " (all on the first)" : "", r->slow,
           r->player_lat.n, r->watch_lat.n);
    bench(r, "p50.ms", pct(&r->watch_lat, 0.5) / 1e3);
    bench(r, "p99.ms", pct(&r->watch_lat, 0.99) / 1e3);
    bench(r, "read.p50.ms", pct(&r->watch_read, 0.5) / 1e3);
    bench(r, "read.p99.ms", pct(&r->watch_read, 0.99) / 1e3);
    bench(r, "spread.p99.ms", pct(&r->watch_spread, 0.99) / 1e3);
    bench(r, "worst_watcher.p50.ms", worst_watcher(r) / 1e3);
    bench(r, "player.p99.us", p99);
    bench(r, "none.player.p99.us", none_p99);
    bench(r, "player_ratio", none_p99 > 0 ? p99 / none_p99 : 0);
    bench(r, "frames_per_s", (double)r->frames_in_window / secs);
    bench(r, "keyframes", (double)keyframes);
    if (r->daemon_pid) { /* its share of a core, without and with the watchers */
        bench(r, "none.cpu_ms_per_s", r->cpu_ms[0] / secs);
        bench(r, "cpu_ms_per_s", r->cpu_ms[1] / secs);
    }
    if (r->daemon_pid && r->frames_in_window)
        bench(r, "cpu_us_per_frame",
              (r->cpu_ms[1] - r->cpu_ms[0]) * 1e3 / (double)r->frames_in_window);
}

int main(int argc, char **argv)
{
    run_t r = {.ngames = 100, .nwatch = 10000, .seconds = 10, .interval = 1, .tag = "x"};
    r.host.s_addr = htonl(INADDR_LOOPBACK);
    if (opt_parse(&r, argc, argv) < 0) {
        fprintf(stderr,
                "usage: warren-spectate [--host ADDR] --port HTTP --cookies FILE [--games G] "
                "[--watchers N] [--one] [--seconds S] [--interval S] [--slow K] "
                "[--tag T] [--wake] [--daemon-pid PID]\n");
        return 2;
    }
    load_cookies(&r);
    r.ep_players = epoll_create1(0);
    r.ep_watch = epoll_create1(0);
    add_ep(r.ep_watch, r.ep_players, NULL);
    for (int i = 0; i < r.ngames; i++)
        start_player(&r, i);
    settle(&r, 1);
    window(&r, r.seconds); /* without watchers */
    double none_p99 = pct(&r.player_lat, 0.99);
    r.player_lat.n = 0;
    settle(&r, 1);
    double t0 = now_us();
    start_watchers(&r);
    printf("# %d watchers connected in %.1f s\n", r.nwatch, (now_us() - t0) / 1e6);
    fflush(stdout); /* tests/web/spectators.py may trace the daemon's core from here */
    settle(&r, 3);
    hold_slow(&r, true);
    window(&r, r.seconds);
    hold_slow(&r, false);
    settle(&r, 3);
    report(&r, none_p99, r.seconds);
    int bad = differ(&r);
    bench(&r, "differ", bad);
    return bad ? 1 : 0;
}
