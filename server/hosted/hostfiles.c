/* hostfiles — a bundle of a player's hosted files (hostfiles.h). */
#include "hostfiles.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static bool name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '-';
}

/* One name of a path: its characters, never "." or "..". */
static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || n > HOSTFILES_NAME_MAX || (n == 1 && s[0] == '.') ||
        (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char((unsigned char)s[i]))
            return false;
    return true;
}

bool hostfiles_path_ok(const char *path, size_t len)
{
    if (len == 0 || len > HOSTFILES_PATH_MAX)
        return false;
    int depth = 0;
    for (size_t at = 0; at <= len;) {
        const char *slash = memchr(path + at, '/', len - at);
        size_t end = slash ? (size_t)(slash - path) : len;
        if (!name_ok(path + at, end - at) || ++depth > HOSTFILES_DEPTH)
            return false;
        at = end + 1;
    }
    return true;
}

static void put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int hostfiles_buf_init(hostfiles_buf_t *b, size_t max)
{
    *b = (hostfiles_buf_t){.cap = 4096, .max = max < HOSTFILES_HEAD ? HOSTFILES_HEAD : max};
    if (!(b->p = malloc(b->cap)))
        return -1;
    memcpy(b->p, HOSTFILES_MAGIC, 4);
    put_u32(b->p + 4, 0);
    b->len = HOSTFILES_HEAD;
    return 0;
}

void hostfiles_buf_free(hostfiles_buf_t *b)
{
    free(b->p);
    *b = (hostfiles_buf_t){0};
}

size_t hostfiles_cost(size_t path_len, size_t len)
{
    return 2 + path_len + 4 + len;
}

static int grow(hostfiles_buf_t *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

int hostfiles_add(hostfiles_buf_t *b, const char *path, const void *data, size_t len, char *err,
                  size_t errlen)
{
    size_t pl = strlen(path);
    if (!hostfiles_path_ok(path, pl)) {
        snprintf(err, errlen, "a file's name is not allowed");
        return -1;
    }
    if (b->count >= HOSTFILES_FILES_MAX) {
        snprintf(err, errlen, "more than %d files", HOSTFILES_FILES_MAX);
        return -1;
    }
    size_t cost = hostfiles_cost(pl, len);
    if (len > UINT32_MAX || cost > b->max - b->len) {
        snprintf(err, errlen, "more than %zu bytes", b->max);
        return -1;
    }
    if (grow(b, b->len + cost) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint8_t *p = b->p + b->len;
    put_u16(p, (uint32_t)pl);
    memcpy(p + 2, path, pl);
    put_u32(p + 2 + pl, (uint32_t)len);
    if (len)
        memcpy(p + 6 + pl, data, len);
    b->len += cost;
    put_u32(b->p + 4, ++b->count);
    return 0;
}

int hostfiles_open(hostfiles_reader_t *r, const void *buf, size_t len, size_t max, uint32_t *count,
                   char *err, size_t errlen)
{
    const uint8_t *p = buf;
    if (len < HOSTFILES_HEAD || memcmp(p, HOSTFILES_MAGIC, 4) != 0) {
        snprintf(err, errlen, "not a bundle of files");
        return -1;
    }
    if (len > max) {
        snprintf(err, errlen, "%zu bytes, more than %zu", len, max);
        return -1;
    }
    uint32_t n = get_u32(p + 4);
    if (n > HOSTFILES_FILES_MAX) {
        snprintf(err, errlen, "%u files, more than %d", n, HOSTFILES_FILES_MAX);
        return -1;
    }
    *r = (hostfiles_reader_t){.p = p, .len = len, .off = HOSTFILES_HEAD, .left = n};
    *count = n;
    return 0;
}

int hostfiles_next(hostfiles_reader_t *r, hostfiles_file_t *f, char *err, size_t errlen)
{
    size_t rest = r->len - r->off;
    if (r->left == 0) {
        if (rest == 0)
            return 0;
        snprintf(err, errlen, "%zu bytes after the last file", rest);
        return -1;
    }
    const uint8_t *p = r->p + r->off;
    size_t pl = rest >= 2 ? get_u16(p) : 0;
    if (rest < 6 || pl > rest - 6 || !hostfiles_path_ok((const char *)p + 2, pl)) {
        snprintf(err, errlen, "a file's name is cut short or not allowed");
        return -1;
    }
    size_t n = get_u32(p + 2 + pl);
    if (n > rest - 6 - pl) {
        snprintf(err, errlen, "a file is cut short");
        return -1;
    }
    memcpy(f->path, p + 2, pl);
    f->path[pl] = '\0';
    f->data = p + 6 + pl;
    f->len = n;
    r->off += 6 + pl + n;
    r->left--;
    return 1;
}

int hostfiles_check(const void *buf, size_t len, size_t max, uint32_t *count, char *err,
                    size_t errlen)
{
    hostfiles_reader_t r;
    hostfiles_file_t f;
    if (hostfiles_open(&r, buf, len, max, count, err, errlen) < 0)
        return -1;
    int got;
    while ((got = hostfiles_next(&r, &f, err, errlen)) > 0)
        ;
    return got;
}

/* ---- a bundle in a memfd ------------------------------------------------------------ */

int hostfiles_memfd(void)
{
    return memfd_create("warren-files", MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int hostfiles_seal(int fd)
{
    return fcntl(fd, F_ADD_SEALS, HOSTFILES_SEALS);
}

void *hostfiles_map(int fd, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return snprintf(err, errlen, "the files are not a bundle in a file"), NULL;
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & HOSTFILES_SEALS) != HOSTFILES_SEALS)
        return snprintf(err, errlen, "the files came in a memfd not sealed: not read"), NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return snprintf(err, errlen, "cannot map the files: %s", strerror(errno)), NULL;
    *len = (size_t)st.st_size;
    return p;
}
