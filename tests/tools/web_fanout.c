/* web_fanout — one player and N websocket watchers against a running
 * warrend, for the web fan-out benchmark (tests/web/fanout.py starts the
 * daemon and registers the player).
 *
 *   web_fanout --port P --cookie 'warren_session=...' --name NAME
 *              [--watchers N] [--keys K] [--pace-ms MS]
 *
 * The player presses Ctrl-P (history on and off: a frame each, no game
 * turn). Two phases, while the daemon also serves N watchers, whose sockets
 * this one process reads with epoll (a Python client was the bottleneck):
 *   burst  K keys, each sent as soon as the previous one's frame came back:
 *          frames delivered to all watchers per second;
 *   paced  K keys, one every --pace-ms (default 50: 20 keys a second, a
 *          fast typist), each timed from key to the player's own frame.
 * Closed-loop bursts keep both cores busy by design, so their key times
 * measure the machine's scheduler more than the server; the paced times
 * are the player's latency. Each watcher counts its frames and keyframes;
 * at the end every watcher must have every frame or a resync keyframe.
 * Prints BENCH lines; exits 1 on a failed check. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "wsframe.h"
#include "benchtime.h"

#define KEYFRAME "\033[H\033[2J"

typedef struct {
    int fd;
    unsigned char *buf;
    size_t len, cap;
    long frames, keyframes;
    bool playing; /* a frame with the status line has come */
    bool chooser; /* the new game's character screen has come */
} peer_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int ws_connect(int port, const char *path, const char *cookie)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char req[1024];
    int n =
        snprintf(req, sizeof req,
                 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                 path, port, cookie ? "Cookie: " : "", cookie ? cookie : "", cookie ? "\r\n" : "");
    if (write(fd, req, (size_t)n) != n)
        return -1;
    char head[2048];
    size_t hl = 0;
    while (hl < sizeof head - 1) { /* byte by byte: frames may follow at once */
        if (read(fd, head + hl, 1) != 1)
            return -1;
        hl++;
        if (hl >= 4 && memcmp(head + hl - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    head[hl] = 0;
    if (!strstr(head, " 101 "))
        return -1;
    return fd;
}

/* Sends one masked client frame. */
static int ws_send(int fd, int opcode, const void *data, size_t len)
{
    unsigned char f[256];
    if (len > 125)
        return -1;
    f[0] = (unsigned char)(0x80 | opcode);
    f[1] = (unsigned char)(0x80 | len);
    unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(f + 2, mask, 4);
    for (size_t i = 0; i < len; i++)
        f[6 + i] = ((const unsigned char *)data)[i] ^ mask[i % 4];
    return write(fd, f, 6 + len) == (ssize_t)(6 + len) ? 0 : -1;
}

/* Reads what is there; counts complete binary messages. Returns the number
 * of new binary messages, or -1 when the socket ended. */
static int peer_read(peer_t *p)
{
    int got = 0;
    for (;;) {
        if (p->cap - p->len < 65536) {
            p->cap = p->cap * 2 + 65536;
            p->buf = realloc(p->buf, p->cap);
        }
        ssize_t n = read(p->fd, p->buf + p->len, p->cap - p->len);
        if (n == 0)
            return -1;
        if (n < 0) {
            if (errno == EAGAIN)
                break;
            return -1;
        }
        p->len += (size_t)n;
    }
    size_t off = 0, h, n;
    int op;
    while (wsframe_next(p->buf + off, p->len - off, &op, &h, &n)) {
        const unsigned char *b = p->buf + off;
        if (op == 2) {
            p->frames++;
            got++;
            if (memmem(b + h, n, KEYFRAME, strlen(KEYFRAME)))
                p->keyframes++;
            if (memmem(b + h, n, "HP ", 3)) /* the status line */
                p->playing = true;
            if (memmem(b + h, n, "who are you", 11))
                p->chooser = true;
        }
        off += h + n;
    }
    memmove(p->buf, p->buf + off, p->len - off);
    p->len -= off;
    return got;
}

/* Reads the player if it has data, else a small batch of ready watchers
 * (waiting up to ms). Returns the player's new frames. The player is looked
 * at before every batch: epoll lists ready sockets oldest first, and with a
 * thousand watchers ready the player's frame would otherwise wait behind
 * all of them here, in the client, and count as the server's latency. */
static int pump(int ep, peer_t *peers, int ms)
{
    struct pollfd pf = {.fd = peers[0].fd, .events = POLLIN};
    int player = 0;
    if (poll(&pf, 1, 0) > 0)
        player = peer_read(&peers[0]);
    if (player < 0) {
        fprintf(stderr, "web_fanout: the player's socket closed\n");
        exit(1);
    }
    if (player > 0)
        return player;
    struct epoll_event ev[32];
    int n = epoll_wait(ep, ev, 32, ms);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.u32 == 0)
            continue; /* read at the top of the next call */
        if (peer_read(&peers[ev[i].data.u32]) < 0) {
            fprintf(stderr, "web_fanout: watcher %u closed\n", ev[i].data.u32);
            exit(1);
        }
    }
    return 0;
}

/* Presses Ctrl-P keys times, each pace_ms after the previous one (0: as
 * soon as its frame came), reading watchers meanwhile; lat gets each key's
 * time to the player's frame. */
static int press(int ep, peer_t *peers, int keys, int pace_ms, double *lat)
{
    double next = now_us();
    for (int k = 0; k < keys; k++) {
        while (now_us() < next)
            pump(ep, peers, 1);
        double t = now_us();
        next = t + pace_ms * 1e3;
        if (ws_send(peers[0].fd, 2, "\x10", 1) < 0)
            return -1;
        while (pump(ep, peers, 1000) == 0)
            if (now_us() - t > 10e6) {
                fprintf(stderr, "web_fanout: no frame for key %d\n", k);
                return -1;
            }
        lat[k] = now_us() - t;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int port = 0, nw = 1000, keys = 300, pace = 50;
    const char *cookie = NULL, *name = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cookie"))
            cookie = argv[i + 1];
        else if (!strcmp(argv[i], "--name"))
            name = argv[i + 1];
        else if (!strcmp(argv[i], "--watchers"))
            nw = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--keys"))
            keys = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pace-ms"))
            pace = atoi(argv[i + 1]);
    }
    if (!port || !cookie || !name || nw < 0 || keys < 1) {
        fprintf(stderr,
                "usage: web_fanout --port P --cookie C --name NAME [--watchers N] [--keys K]\n");
        return 2;
    }
    peer_t *peers = calloc((size_t)nw + 1, sizeof *peers);
    double *lat = calloc((size_t)keys, sizeof *lat);
    int ep = epoll_create1(0);
    char path[96];
    snprintf(path, sizeof path, "/ws/watch/%s", name);
    for (int i = 0; i <= nw; i++) {
        peers[i].fd = i ? ws_connect(port, path, NULL) : ws_connect(port, "/ws/play", cookie);
        if (peers[i].fd < 0) {
            fprintf(stderr, "web_fanout: websocket %d refused\n", i);
            return 1;
        }
        if (i == 0) {
            const char *rs = "{\"t\":\"resize\",\"w\":80,\"h\":24}";
            ws_send(peers[0].fd, 1, rs, strlen(rs));
        }
        fcntl(peers[i].fd, F_SETFL, O_NONBLOCK);
        /* the game is attached (its first frame is out) before anyone watches */
        for (double until = now_us() + 10e6; i == 0 && !peers[0].playing;) {
            if (now_us() > until || peer_read(&peers[0]) < 0) {
                fprintf(stderr, "web_fanout: the player got no frame\n");
                return 1;
            }
            if (peers[0].chooser && !peers[0].playing) { /* any key but a-d: a random character */
                peers[0].chooser = false;
                ws_send(peers[0].fd, 2, "*", 1);
            }
            usleep(1000);
        }
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, peers[i].fd, &e);
    }
    double settle = now_us() + 2e6;
    while (now_us() < settle)
        pump(ep, peers, 50);
    for (int i = 1; i <= nw; i++)
        if (peers[i].frames == 0) {
            fprintf(stderr, "web_fanout: watcher %d got no keyframe\n", i);
            return 1;
        }
    long base[nw + 1];
    for (int i = 0; i <= nw; i++)
        base[i] = peers[i].frames, peers[i].keyframes = 0;
    double t0 = now_us();
    if (press(ep, peers, keys, 0, lat) < 0)
        return 1;
    double end = now_us() + 2e6, dt_last = 0;
    long want = keys, frames = 0, short_ = 0;
    for (;;) { /* until every watcher has the last frame (or 2 s) */
        long done = 0;
        for (int i = 1; i <= nw; i++)
            done += peers[i].frames - base[i] >= want || peers[i].keyframes > 0;
        dt_last = now_us() - t0;
        if (done == nw || now_us() > end)
            break;
        pump(ep, peers, 20);
    }
    for (int i = 1; i <= nw; i++) {
        long got = peers[i].frames - base[i];
        frames += got < want ? got : want;
        if (got < want && peers[i].keyframes == 0)
            short_++;
    }
    qsort(lat, (size_t)keys, sizeof *lat, cmp_double);
    printf("# burst: %d watchers, %d keys, %.2f s until every watcher had the last frame; "
           "watchers short of frames without a keyframe: %ld; key->frame p50 %.0f us p99 %.0f us\n",
           nw, keys, dt_last / 1e6, short_, lat[keys / 2], lat[keys * 99 / 100]);
    printf("BENCH web.fanout.frames_per_s %.0f\n", (double)frames / (dt_last / 1e6));
    printf("BENCH web.fanout.watchers %d\n", nw);
    for (int i = 0; i <= nw; i++)
        base[i] = peers[i].frames, peers[i].keyframes = 0;
    if (press(ep, peers, keys, pace, lat) < 0)
        return 1;
    double settle2 = now_us() + 2e6;
    while (now_us() < settle2)
        pump(ep, peers, 20);
    for (int i = 1; i <= nw; i++)
        if (peers[i].frames - base[i] < keys && peers[i].keyframes == 0)
            short_++;
    qsort(lat, (size_t)keys, sizeof *lat, cmp_double);
    printf("# paced: one key every %d ms; watchers short of frames without a keyframe: %ld\n", pace,
           short_);
    printf("BENCH web.fanout.player.p50.us %.0f\n", lat[keys / 2]);
    printf("BENCH web.fanout.player.p99.us %.0f\n", lat[keys * 99 / 100]);
    for (int i = 0; i <= nw; i++) {
        close(peers[i].fd);
        free(peers[i].buf);
    }
    free(peers);
    free(lat);
    return short_ ? 1 : 0;
}
