/* spawnmsg — a table of message layouts, one field reader and writer. */
#include "spawnmsg.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "screen.h"
#include "vtgrid.h"

typedef enum {
    F_END = 0,
    F_GAME,
    F_NAME,
    F_DIR,
    F_W,
    F_H,
    F_PID,
    F_STATUS,
    F_TEXT,
    F_DEADLINE
} field_t;

#define FIELDS_MAX 6
static const struct {
    const char *name;
    field_t fields[FIELDS_MAX];
    bool fd; /* comes with a descriptor */
} LAYOUT[SPAWNMSG_TYPES] = {
    [SPAWNMSG_SPAWN] = {"spawn", {F_GAME, F_NAME, F_DIR, F_W, F_H}, false},
    [SPAWNMSG_HANGUP] = {"hangup", {F_PID}, false},
    [SPAWNMSG_KILL] = {"kill", {F_PID}, false},
    [SPAWNMSG_RC_LOAD] = {"rc-load", {F_GAME, F_DIR}, false},
    [SPAWNMSG_RC_SAVE] = {"rc-save", {F_GAME, F_DIR, F_DEADLINE, F_TEXT}, false},
    [SPAWNMSG_SPAWNED] = {"spawned", {F_PID}, true},
    [SPAWNMSG_FAILED] = {"failed", {F_TEXT}, false},
    [SPAWNMSG_RC_TEXT] = {"rc-text", {F_TEXT}, false},
    [SPAWNMSG_DONE] = {"done", {F_END}, false},
    [SPAWNMSG_EXIT] = {"exit", {F_PID, F_STATUS}, false},
    [SPAWNMSG_XLOG_READ] = {"xlog-read", {F_GAME, F_DIR}, false},
    [SPAWNMSG_STOPPED] = {"stopped", {F_PID, F_TEXT}, false},
    [SPAWNMSG_FILES_READ] = {"files-read", {F_GAME, F_DIR}, false},
    [SPAWNMSG_FILES_WRITE] = {"files-write", {F_GAME, F_DIR}, true},
    [SPAWNMSG_FILES] = {"files", {F_TEXT}, true},
    [SPAWNMSG_NOTE] = {"note", {F_GAME, F_DIR, F_STATUS, F_TEXT}, false},
};

const char *spawnmsg_type_name(int type)
{
    return type > 0 && type < SPAWNMSG_TYPES ? LAYOUT[type].name : "?";
}

/* ---- values ------------------------------------------------------------------------ */

static bool chars_ok(const char *s, size_t n, bool upper)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  (upper && c >= 'A' && c <= 'Z');
        if (!ok)
            return false;
    }
    return n > 0;
}

/* Whether a text field of m is acceptable: no NUL; a reason printable. */
static bool text_ok(const spawnmsg_t *m)
{
    if (m->len > SPAWNMSG_TEXT_MAX || (m->len && !m->text) || memchr(m->text, 0, m->len))
        return false;
    if (m->type != SPAWNMSG_FAILED && m->type != SPAWNMSG_STOPPED && m->type != SPAWNMSG_NOTE &&
        m->type != SPAWNMSG_FILES)
        return true;
    for (size_t i = 0; i < m->len; i++)
        if ((unsigned char)m->text[i] < 0x20 || m->text[i] == 0x7F)
            return false;
    return m->len > 0 || m->type == SPAWNMSG_FILES; /* FILES: "" when all was copied */
}

/* The string field f of m, its room (NUL included), and its charset. */
static char *str_field(spawnmsg_t *m, field_t f, size_t *room, bool *upper)
{
    *upper = f != F_GAME;
    *room = f == F_GAME ? sizeof m->game : f == F_NAME ? sizeof m->name : sizeof m->dir;
    return f == F_GAME ? m->game : f == F_NAME ? m->name : m->dir;
}

static bool int_ok(field_t f, int64_t v)
{
    switch (f) {
    case F_W: return v >= VTGRID_MIN_W && v <= SCREEN_MAX_W;
    case F_H: return v >= 1 && v <= SCREEN_MAX_H;
    case F_PID: return v >= 1 && v <= INT32_MAX;
    default: return true; /* F_STATUS: any wait status */
    }
}

/* ---- parsing ----------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t left;
} cursor_t;

static bool take(cursor_t *c, void *out, size_t n)
{
    if (c->left < n)
        return false;
    memcpy(out, c->p, n);
    c->p += n;
    c->left -= n;
    return true;
}

/* A u16-prefixed string: its bytes (borrowed) and length. */
static bool take_str(cursor_t *c, const char **s, size_t *n)
{
    uint16_t len;
    if (!take(c, &len, sizeof len) || c->left < len)
        return false;
    *s = (const char *)c->p;
    *n = len;
    c->p += len;
    c->left -= len;
    return true;
}

static bool read_int(cursor_t *c, spawnmsg_t *m, field_t f)
{
    uint16_t u16;
    int32_t i32;
    bool wide = f == F_PID || f == F_STATUS;
    if (!(wide ? take(c, &i32, 4) : take(c, &u16, 2)))
        return false;
    int64_t v = wide ? i32 : u16;
    if (!int_ok(f, v))
        return false;
    if (f == F_W || f == F_H)
        *(f == F_W ? &m->w : &m->h) = (int)v;
    else
        *(f == F_PID ? &m->pid : &m->status) = (int32_t)v;
    return true;
}

static bool read_field(cursor_t *c, spawnmsg_t *m, field_t f)
{
    if (f == F_DEADLINE)
        return take(c, &m->deadline_ms, sizeof m->deadline_ms);
    if (f != F_GAME && f != F_NAME && f != F_DIR && f != F_TEXT)
        return read_int(c, m, f);
    const char *s;
    size_t n;
    if (!take_str(c, &s, &n))
        return false;
    if (f == F_TEXT) {
        m->text = s;
        m->len = n;
        return text_ok(m);
    }
    size_t room;
    bool upper;
    char *dst = str_field(m, f, &room, &upper);
    if (n >= room || !chars_ok(s, n, upper))
        return false;
    memcpy(dst, s, n);
    dst[n] = 0;
    return true;
}

static const char *const FIELD_NAMES[] = {"",  "game", "name",   "dir",  "w",
                                          "h", "pid",  "status", "text", "deadline"};

int spawnmsg_parse(const void *buf, size_t len, spawnmsg_t *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    cursor_t c = {buf, len};
    uint16_t version, type;
    uint32_t body;
    if (!take(&c, &version, 2) || !take(&c, &type, 2) || !take(&c, &m->seq, 4) ||
        !take(&c, &body, 4))
        return snprintf(err, errlen, "short header (%zu bytes)", len), -1;
    if (version != SPAWNMSG_VERSION)
        return snprintf(err, errlen, "version %u, expected %d", version, SPAWNMSG_VERSION), -1;
    if (type == SPAWNMSG_NONE || type >= SPAWNMSG_TYPES)
        return snprintf(err, errlen, "unknown type %u", type), -1;
    if (body != c.left)
        return snprintf(err, errlen, "length %u, but %zu bytes follow", body, c.left), -1;
    m->type = type;
    for (int i = 0; i < FIELDS_MAX && LAYOUT[type].fields[i] != F_END; i++) {
        field_t f = LAYOUT[type].fields[i];
        if (!read_field(&c, m, f))
            return snprintf(err, errlen, "%s: bad %s", LAYOUT[type].name, FIELD_NAMES[f]), -1;
    }
    if (c.left)
        return snprintf(err, errlen, "%s: %zu bytes trail", LAYOUT[type].name, c.left), -1;
    return 0;
}

/* ---- building ---------------------------------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t left;
    bool ok;
} writer_t;

static void put(writer_t *w, const void *v, size_t n)
{
    if (!w->ok || w->left < n) {
        w->ok = false;
        return;
    }
    memcpy(w->p, v, n);
    w->p += n;
    w->left -= n;
}

static void put_str(writer_t *w, const char *s, size_t n)
{
    uint16_t len = (uint16_t)n;
    if (n > UINT16_MAX)
        w->ok = false;
    put(w, &len, 2);
    put(w, s, n);
}

static void write_field(writer_t *w, const spawnmsg_t *m, field_t f)
{
    if (f == F_DEADLINE) {
        put(w, &m->deadline_ms, sizeof m->deadline_ms);
        return;
    }
    if (f == F_TEXT) {
        w->ok = w->ok && text_ok(m);
        put_str(w, m->text, m->len);
        return;
    }
    if (f == F_GAME || f == F_NAME || f == F_DIR) {
        size_t room;
        bool upper;
        const char *s = str_field((spawnmsg_t *)m, f, &room, &upper);
        size_t n = strnlen(s, room);
        w->ok = w->ok && n < room && chars_ok(s, n, upper);
        put_str(w, s, n);
        return;
    }
    int64_t v = f == F_W ? m->w : f == F_H ? m->h : f == F_PID ? m->pid : m->status;
    w->ok = w->ok && int_ok(f, v);
    uint16_t u16 = (uint16_t)v;
    int32_t i32 = (int32_t)v;
    if (f == F_W || f == F_H)
        put(w, &u16, 2);
    else
        put(w, &i32, 4);
}

size_t spawnmsg_build(const spawnmsg_t *m, void *buf, size_t cap)
{
    if (m->type <= SPAWNMSG_NONE || m->type >= SPAWNMSG_TYPES || cap < SPAWNMSG_HEADER)
        return 0;
    writer_t w = {(uint8_t *)buf + SPAWNMSG_HEADER, cap - SPAWNMSG_HEADER, true};
    for (int i = 0; i < FIELDS_MAX && LAYOUT[m->type].fields[i] != F_END; i++)
        write_field(&w, m, LAYOUT[m->type].fields[i]);
    if (!w.ok)
        return 0;
    uint16_t version = SPAWNMSG_VERSION, type = (uint16_t)m->type;
    uint32_t body = (uint32_t)(cap - SPAWNMSG_HEADER - w.left);
    writer_t h = {buf, SPAWNMSG_HEADER, true};
    put(&h, &version, 2);
    put(&h, &type, 2);
    put(&h, &m->seq, 4);
    put(&h, &body, 4);
    return SPAWNMSG_HEADER + body;
}

/* ---- the socket ---------------------------------------------------------------------- */

int spawnmsg_send(int sock, const spawnmsg_t *m, int fd)
{
    uint8_t buf[SPAWNMSG_MAX];
    size_t n = spawnmsg_build(m, buf, sizeof buf);
    if (!n)
        return errno = EINVAL, -1;
    struct iovec iov = {buf, n};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&ctl, 0, sizeof ctl);
        mh.msg_control = ctl.space;
        mh.msg_controllen = sizeof ctl.space;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    ssize_t r;
    do
        r = sendmsg(sock, &mh, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    return r == (ssize_t)n ? 0 : -1;
}

/* The descriptors that came with a message: the first kept in *fd, any
 * other closed. Returns how many came. */
static int take_fds(struct msghdr *mh, int *fd)
{
    int count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++, count++) {
            int one;
            memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
            if (*fd < 0)
                *fd = one;
            else
                close(one);
        }
    }
    return count;
}

static int refuse(int *fd, char *err, size_t errlen, const char *why)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    snprintf(err, errlen, "%s", why);
    errno = EBADMSG;
    return -1;
}

int spawnmsg_recv(int sock, void *buf, int flags, spawnmsg_t *m, int *fd, char *err, size_t errlen)
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(4 * sizeof(int))];
    } ctl;
    struct iovec iov = {buf, SPAWNMSG_MAX};
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = ctl.space,
                        .msg_controllen = sizeof ctl.space};
    *fd = -1;
    memset(m, 0, sizeof *m);
    ssize_t n;
    do
        n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return (int)n;
    int fds = take_fds(&mh, fd);
    if (mh.msg_flags & MSG_TRUNC)
        return refuse(fd, err, errlen, "message too long");
    char why[160];
    if (spawnmsg_parse(buf, (size_t)n, m, why, sizeof why) < 0)
        return refuse(fd, err, errlen, why);
    /* the only descriptor a message carries, dropped for want of room here */
    m->fd_lost = (mh.msg_flags & MSG_CTRUNC) && fds == 0 && LAYOUT[m->type].fd;
    if ((mh.msg_flags & MSG_CTRUNC) && !m->fd_lost)
        return refuse(fd, err, errlen, "message too long");
    if (!m->fd_lost && fds != (LAYOUT[m->type].fd ? 1 : 0))
        return refuse(fd, err, errlen, "a descriptor where none belongs, or none where one does");
    return 1;
}
