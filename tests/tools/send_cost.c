/* send_cost — what one small loopback TCP send costs this machine's
 * kernel: the floor under a fan-out of one frame to N websockets.
 *
 *   send_cost [--sockets N] [--rounds R] [--bytes B] [--gap-ms MS]
 *             [--reader CORE] [--senders K]
 *
 * Opens N connected pairs over 127.0.0.1 (5,000), then R rounds (12) of
 * one B-byte send (156: a watcher's frame of a key) on each server end,
 * the client ends read between rounds by this thread. Over loopback the
 * kernel runs the receiving side of each send (the client's TCP, its ACK
 * and the server's taking of it) inside the sender's call, as when the
 * daemon writes to tests/web/spectators.py's watchers. Rounds are MS apart
 * (1000: a game's frame a second, so every receiver acknowledges at once
 * after a pause longer than its retransmission timeout, as they do there).
 * --reader CORE: the client ends are read as warren-spectate reads its
 * watchers instead (an epoll set looked at every 200 us by a thread on
 * CORE, each socket with SO_TIMESTAMPNS), so the sends also pay what that
 * reader costs them (the wake-up of its epoll set, its socket's lines
 * taken back from the other core).
 * --senders K: a round's sends split over K threads (1), thread t on core
 * t and the t-th slice of the sockets, all starting together: a fan-out
 * written from K loops, each with its own websockets.
 * Prints the sending threads' CPU time a send and a round's wall time,
 * from the first thread's start to the last one's end (the fan-out's
 * spread), the median of the rounds after the first two, and the worst:
 *   web.send_cost.us    (web.send_cost.reader.us with --reader)
 *   web.send_cost.fanout.ms, web.send_cost.fanout.max.ms (with --senders
 *   K > 1: .sendersK. after send_cost)
 * Run it pinned to the daemon's core (taskset -c 0). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "benchtime.h"

#define MAX_SOCKETS 9000
#define MAX_ROUNDS  100
#define MAX_BYTES   65536
#define MAX_SENDERS 8

#define READER_NAP_US 200 /* warren-spectate's POLL_US */

typedef struct cost cost_t;

/* One sending thread's slice of the sockets and its last round's times. */
typedef struct {
    cost_t *c;
    int t, from, to;
    double cpu_us, start_us, end_us;
} sender_t;

struct cost {
    int n, rounds, bytes, gap_ms, reader_core; /* reader_core -1: none */
    int senders;
    int srv[MAX_SOCKETS], cli[MAX_SOCKETS];
    int ep;
    atomic_bool stop;
    sender_t snd[MAX_SENDERS];
    pthread_barrier_t go, done; /* a round's start and end, every sender */
    const char *msg;
};

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double wall_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int die(const char *what)
{
    perror(what);
    exit(1);
}

/* N connected pairs on one listener; the server ends non-blocking. */
static void connect_all(cost_t *c)
{
    struct rlimit rl = {2 * (rlim_t)c->n + 64, 2 * (rlim_t)c->n + 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
        die("setrlimit");
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4096) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &al) < 0)
        die("listen");
    for (int i = 0; i < c->n; i++) {
        int one = 1;
        c->cli[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (c->cli[i] < 0 || connect(c->cli[i], (struct sockaddr *)&a, sizeof a) < 0)
            die("connect");
        if ((c->srv[i] = accept(l, NULL, NULL)) < 0)
            die("accept");
        setsockopt(c->srv[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(c->srv[i], F_SETFL, O_NONBLOCK);
    }
    close(l);
}

static void drain(int fd)
{
    static char sink[MAX_BYTES];
    while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
}

static void pin(int core)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The reader thread: the client ends' epoll set, looked at every
 * READER_NAP_US, each ready socket drained. */
static void *reader(void *arg)
{
    cost_t *c = arg;
    pin(c->reader_core);
    struct epoll_event ev[512];
    while (!atomic_load(&c->stop)) {
        int k = epoll_wait(c->ep, ev, 512, 0);
        for (int i = 0; i < k; i++)
            drain(ev[i].data.fd);
        if (k <= 0)
            usleep(READER_NAP_US);
    }
    return NULL;
}

/* The client ends into an epoll set, time-stamped as warren-spectate's. */
static void reader_setup(cost_t *c)
{
    if ((c->ep = epoll_create1(0)) < 0)
        die("epoll_create1");
    for (int i = 0; i < c->n; i++) {
        int one = 1;
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = c->cli[i]};
        setsockopt(c->cli[i], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        if (epoll_ctl(c->ep, EPOLL_CTL_ADD, c->cli[i], &ev) < 0)
            die("epoll_ctl");
    }
}

/* A sender's part of one round: a send on each of its server ends. */
static void send_slice(sender_t *s)
{
    cost_t *c = s->c;
    s->start_us = wall_us();
    double t0 = cpu_us();
    for (int i = s->from; i < s->to; i++)
        if (send(c->srv[i], c->msg, (size_t)c->bytes, MSG_NOSIGNAL) != c->bytes)
            die("send");
    s->cpu_us = cpu_us() - t0;
    s->end_us = wall_us();
}

/* Senders 1..K-1: their slice each round, between the two barriers. */
static void *sender(void *arg)
{
    sender_t *s = arg;
    pin(s->t % (int)sysconf(_SC_NPROCESSORS_ONLN));
    for (int r = 0; r < s->c->rounds; r++) {
        pthread_barrier_wait(&s->c->go);
        send_slice(s);
        pthread_barrier_wait(&s->c->done);
    }
    return NULL;
}

/* One round: a send on every server end, sender 0's slice on this
 * thread. Its CPU time a send (us) and its wall time (ms) in *wall_ms. */
static double round_once(cost_t *c, double *wall_ms)
{
    pthread_barrier_wait(&c->go);
    send_slice(&c->snd[0]);
    pthread_barrier_wait(&c->done);
    double cpu = 0, start = c->snd[0].start_us, end = c->snd[0].end_us;
    for (int t = 0; t < c->senders; t++) {
        cpu += c->snd[t].cpu_us;
        start = c->snd[t].start_us < start ? c->snd[t].start_us : start;
        end = c->snd[t].end_us > end ? c->snd[t].end_us : end;
    }
    *wall_ms = (end - start) / 1e3;
    if (c->reader_core < 0)
        for (int i = 0; i < c->n; i++)
            drain(c->cli[i]);
    return cpu / c->n;
}

static int parse(cost_t *c, int argc, char **argv)
{
    *c = (cost_t){
        .n = 5000, .rounds = 12, .bytes = 156, .gap_ms = 1000, .reader_core = -1, .senders = 1};
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--sockets"))
            c->n = v;
        else if (!strcmp(argv[i], "--rounds"))
            c->rounds = v;
        else if (!strcmp(argv[i], "--bytes"))
            c->bytes = v;
        else if (!strcmp(argv[i], "--gap-ms"))
            c->gap_ms = v;
        else if (!strcmp(argv[i], "--reader"))
            c->reader_core = v;
        else if (!strcmp(argv[i], "--senders"))
            c->senders = v;
        else
            return -1;
    }
    if (argc % 2 == 0 || c->n < 1 || c->n > MAX_SOCKETS || c->rounds < 3 ||
        c->rounds > MAX_ROUNDS || c->bytes < 1 || c->bytes > MAX_BYTES || c->gap_ms < 0 ||
        c->reader_core >= CPU_SETSIZE || c->senders < 1 || c->senders > MAX_SENDERS ||
        c->senders > c->n)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static cost_t c;
    if (parse(&c, argc, argv) < 0) {
        fprintf(stderr,
                "usage: send_cost [--sockets N<=%d] [--rounds R (3-%d)] "
                "[--bytes B<=%d] [--gap-ms MS] [--reader CORE] [--senders K<=%d]\n",
                MAX_SOCKETS, MAX_ROUNDS, MAX_BYTES, MAX_SENDERS);
        return 2;
    }
    connect_all(&c);
    pthread_t th;
    if (c.reader_core >= 0) {
        reader_setup(&c);
        if (pthread_create(&th, NULL, reader, &c) != 0)
            die("pthread_create");
    }
    static char msg[MAX_BYTES];
    memset(msg, 'x', sizeof msg);
    c.msg = msg;
    if (pthread_barrier_init(&c.go, NULL, (unsigned)c.senders) != 0 ||
        pthread_barrier_init(&c.done, NULL, (unsigned)c.senders) != 0)
        die("pthread_barrier_init");
    pthread_t sth[MAX_SENDERS];
    for (int t = 0; t < c.senders; t++) {
        c.snd[t] = (sender_t){.c = &c,
                              .t = t,
                              .from = (int)((long)c.n * t / c.senders),
                              .to = (int)((long)c.n * (t + 1) / c.senders)};
        if (t > 0 && pthread_create(&sth[t], NULL, sender, &c.snd[t]) != 0)
            die("pthread_create");
    }
    double us[MAX_ROUNDS], wall[MAX_ROUNDS];
    for (int r = 0; r < c.rounds; r++) {
        us[r] = round_once(&c, &wall[r]);
        usleep((useconds_t)c.gap_ms * 1000);
    }
    for (int t = 1; t < c.senders; t++)
        pthread_join(sth[t], NULL);
    if (c.reader_core >= 0) {
        atomic_store(&c.stop, true);
        pthread_join(th, NULL);
    }
    size_t k = (size_t)c.rounds - 2;
    qsort(us + 2, k, sizeof *us, cmp_double);
    qsort(wall + 2, k, sizeof *wall, cmp_double);
    char tag[32] = "";
    if (c.senders > 1)
        snprintf(tag, sizeof tag, ".senders%d", c.senders);
    printf("BENCH web.send_cost%s%s.us %.2f\n", tag, c.reader_core >= 0 ? ".reader" : "",
           us[2 + k / 2]);
    printf("BENCH web.send_cost%s.fanout.ms %.2f\n", tag, wall[2 + k / 2]);
    printf("BENCH web.send_cost%s.fanout.max.ms %.2f\n", tag, wall[2 + k - 1]);
    return 0;
}
