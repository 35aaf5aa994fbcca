/* listener — a listening socket whose connections warrend accepts itself
 * (for telnet and for the web gateway alike), so that running out of file
 * descriptors is handled in one place: at EMFILE or ENFILE (also ENOBUFS,
 * ENOMEM) the listener stops accepting for LISTENER_PAUSE_MS and logs at
 * most one line per LISTENER_LOG_MS saying how often that happened. The
 * clients wait in the kernel's backlog meanwhile; open connections are
 * served as usual and the loop never spins on a failing accept.
 *
 * Each accepted socket (non-blocking, close-on-exec) goes to the callback
 * with the peer's address as text ("local" on a Unix socket; an IPv4
 * address mapped into IPv6 is written as IPv4). The callback owns the
 * descriptor from then on.
 *
 * Ownership: listener_tcp / listener_unix make one; listener_close stops it
 * and frees it once its handles have closed (let the loop run). Loop thread
 * only. */
#ifndef WARREN_LISTENER_H
#define WARREN_LISTENER_H
#include <stddef.h>
#include <uv.h>

#define LISTENER_PAUSE_MS 250
#define LISTENER_LOG_MS   10000
#define LISTENER_PEER_MAX 64
#define LISTENER_BACKLOG  4096 /* the listen-backlog default */

typedef struct listener listener_t;
typedef void (*listener_cb)(void *ud, int fd, const char *peer);

/* Listens on "host:port" ("[v6]:port"; port 0 picks a free one). name is
 * what log lines call it ("telnet", "http"); backlog is how many
 * connections the kernel may hold for us (0: LISTENER_BACKLOG; clamped by
 * listener_backlog). NULL with a message in err. */
listener_t *listener_tcp(uv_loop_t *loop, const char *name, const char *addr, int backlog,
                         listener_cb cb, void *ud, char *err, size_t errlen);
/* Listens on a Unix socket at path (a stale socket file is replaced; the
 * file is removed by listener_close), mode LISTENER_UNIX_MODE whatever
 * the umask: the daemon's user and group only (deploy/RUNNING.md). */
#define LISTENER_UNIX_MODE 0770
listener_t *listener_unix(uv_loop_t *loop, const char *name, const char *path, int backlog,
                          listener_cb cb, void *ud, char *err, size_t errlen);
int listener_port(const listener_t *l); /* the TCP port listened on, else 0 */
void listener_close(listener_t *l);     /* NULL is fine */

/* The backlog listen() gets for want (0: LISTENER_BACKLOG): at most
 * somaxconn, the kernel's cap (net.core.somaxconn; <= 0: unknown, no cap),
 * which would otherwise cut it silently. */
int listener_backlog(int want, int somaxconn);

#endif
