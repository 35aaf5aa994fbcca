/* target: parsing the client's connection address. See target.h. */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int target_set_unix(target_t *t, const char *path, char *err, unsigned errlen)
{
    if (strlen(path) >= sizeof t->path) {
        snprintf(err, errlen, "socket path too long: %s", path);
        return -1;
    }
    t->is_unix = 1;
    snprintf(t->path, sizeof t->path, "%s", path);
    return 0;
}

/* The local daemon: a socket named by the environment or found on disk,
 * else its default telnet port on this machine. */
static const char *target_default(void)
{
    struct stat st;
    const char *env = getenv("WARREN_SOCKET");
    if (env && *env)
        return env;
    if (stat(TARGET_LOCAL_SOCKET, &st) == 0)
        return TARGET_LOCAL_SOCKET;
    if (stat(TARGET_SYSTEM_SOCKET, &st) == 0)
        return TARGET_SYSTEM_SOCKET;
    return NULL;
}

static int target_port_ok(const char *p)
{
    long v;
    char *end;
    if (!*p || strlen(p) >= 8)
        return 0;
    v = strtol(p, &end, 10);
    return *end == '\0' && v > 0 && v < 65536;
}

/* "[addr]:port", "[addr]", "host:port", "host" */
static int target_set_tcp(target_t *t, const char *text, char *err, unsigned errlen)
{
    const char *host = text, *port = TARGET_DEFAULT_PORT;
    size_t hlen;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || (close[1] && close[1] != ':')) {
            snprintf(err, errlen, "bad address: %s", text);
            return -1;
        }
        host = text + 1;
        hlen = (size_t)(close - host);
        if (close[1] == ':')
            port = close + 2;
    } else {
        const char *colon = strrchr(text, ':');
        if (colon && strchr(text, ':') != colon) {
            snprintf(err, errlen, "write IPv6 addresses as [addr]:port: %s", text);
            return -1;
        }
        hlen = colon ? (size_t)(colon - text) : strlen(text);
        if (colon)
            port = colon + 1;
    }
    if (hlen == 0 || hlen >= sizeof t->host || !target_port_ok(port)) {
        snprintf(err, errlen, "bad address (want HOST:PORT or a socket path): %s", text);
        return -1;
    }
    t->is_unix = 0;
    memcpy(t->host, host, hlen);
    t->host[hlen] = '\0';
    snprintf(t->port, sizeof t->port, "%s", port);
    return 0;
}

int target_parse(target_t *t, const char *text, char *err, unsigned errlen)
{
    struct stat st;
    memset(t, 0, sizeof *t);
    if (!text || !*text) {
        const char *path = target_default();
        if (path)
            return target_set_unix(t, path, err, errlen);
        text = TARGET_LOCAL_TCP;
    }
    if (strchr(text, '/') || stat(text, &st) == 0)
        return target_set_unix(t, text, err, errlen);
    return target_set_tcp(t, text, err, errlen);
}

const char *target_describe(const target_t *t, char *buf, unsigned len)
{
    if (t->is_unix)
        snprintf(buf, len, "%s", t->path);
    else if (strchr(t->host, ':'))
        snprintf(buf, len, "[%s]:%s", t->host, t->port);
    else
        snprintf(buf, len, "%s:%s", t->host, t->port);
    return buf;
}
