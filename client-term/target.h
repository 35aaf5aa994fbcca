/* target: where the `warren` client connects.
 *
 * A target is either a Unix socket path (anything with a '/' in it, or an
 * existing file) or a TCP "host:port" / "host" / "[v6addr]:port". With no
 * target, the local daemon is used: $WARREN_SOCKET, else
 * ./var/warren.sock when it exists (a daemon started from a checkout),
 * else the installed daemon's /run/warren/warren.sock when it exists, else
 * the daemon's default telnet port on 127.0.0.1.
 */
#ifndef WARREN_CLIENT_TARGET_H
#define WARREN_CLIENT_TARGET_H

#define TARGET_DEFAULT_PORT  "2323"
#define TARGET_LOCAL_SOCKET  "./var/warren.sock"
#define TARGET_SYSTEM_SOCKET "/run/warren/warren.sock"
#define TARGET_LOCAL_TCP     "127.0.0.1:2323"

typedef struct target_t {
    int is_unix;    /* 1: path is a Unix socket; 0: host/port is TCP */
    char path[108]; /* sun_path size */
    char host[256];
    char port[8];
} target_t;

/* Fills t from text (NULL: the default local socket). Returns 0, or -1
 * with a message in err (errlen bytes) for an unusable target. */
int target_parse(target_t *t, const char *text, char *err, unsigned errlen);

/* Human-readable form for messages ("host:port" or the path). */
const char *target_describe(const target_t *t, char *buf, unsigned len);

#endif
