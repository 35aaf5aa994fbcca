/* send_cost — what one small loopback TCP send costs this machine's
 * kernel: the floor under a fan-out of one frame to N websockets.
 *
 *   send_cost [--sockets N] [--rounds R] [--bytes B] [--gap-ms MS]
 *             [--reader CORE]
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
 * Prints the sending thread's CPU time a send, the median of the rounds
 * after the first two:
 *   web.send_cost.us    (web.send_cost.reader.us with --reader)
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

#define MAX_SOCKETS 9000
#define MAX_ROUNDS  100
#define MAX_BYTES   65536

#define READER_NAP_US 200 /* warren-spectate's POLL_US */

typedef struct {
    int n, rounds, bytes, gap_ms, reader_core; /* reader_core -1: none */
    int srv[MAX_SOCKETS], cli[MAX_SOCKETS];
    int ep;
    atomic_bool stop;
} cost_t;

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
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

/* The reader thread: the client ends' epoll set, looked at every
 * READER_NAP_US, each ready socket drained. */
static void *reader(void *arg)
{
    cost_t *c = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c->reader_core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
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

/* One round: a send on every server end; its CPU time a send (us). */
static double round_once(cost_t *c, const char *msg)
{
    double t0 = cpu_us();
    for (int i = 0; i < c->n; i++)
        if (send(c->srv[i], msg, (size_t)c->bytes, MSG_NOSIGNAL) != c->bytes)
            die("send");
    double us = (cpu_us() - t0) / c->n;
    if (c->reader_core < 0)
        for (int i = 0; i < c->n; i++)
            drain(c->cli[i]);
    return us;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int parse(cost_t *c, int argc, char **argv)
{
    *c = (cost_t){.n = 5000, .rounds = 12, .bytes = 156, .gap_ms = 1000, .reader_core = -1};
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
        else
            return -1;
    }
    if (argc % 2 == 0 || c->n < 1 || c->n > MAX_SOCKETS || c->rounds < 3 ||
        c->rounds > MAX_ROUNDS || c->bytes < 1 || c->bytes > MAX_BYTES || c->gap_ms < 0 ||
        c->reader_core >= CPU_SETSIZE)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static cost_t c;
    if (parse(&c, argc, argv) < 0) {
        fprintf(stderr,
                "usage: send_cost [--sockets N<=%d] [--rounds R (3-%d)] "
                "[--bytes B<=%d] [--gap-ms MS] [--reader CORE]\n",
                MAX_SOCKETS, MAX_ROUNDS, MAX_BYTES);
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
    double us[MAX_ROUNDS];
    for (int r = 0; r < c.rounds; r++) {
        us[r] = round_once(&c, msg);
        usleep((useconds_t)c.gap_ms * 1000);
    }
    if (c.reader_core >= 0) {
        atomic_store(&c.stop, true);
        pthread_join(th, NULL);
    }
    qsort(us + 2, (size_t)c.rounds - 2, sizeof *us, cmp_double);
    printf("BENCH web.send_cost%s.us %.2f\n", c.reader_core >= 0 ? ".reader" : "",
           us[2 + (c.rounds - 2) / 2]);
    return 0;
}
