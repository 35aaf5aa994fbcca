/* diskreq — the disk measurer's requests, made and checked
 * (diskreq.h). */
#include "diskreq.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

_Static_assert(offsetof(diskreq_t, zero) + sizeof(((diskreq_t *)0)->zero) == sizeof(diskreq_t),
               "a request has no padding the compiler adds");

#define DIR_SET "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

void diskreq_make(diskreq_t *out, uint32_t batch, uint32_t i, uint32_t flags, int game, pid_t pid,
                  const spawner_user_t *u, const char *dir)
{
    memset(out, 0, sizeof *out);
    out->batch = batch;
    out->i = i;
    out->flags = flags;
    out->game = game;
    out->pid = pid;
    out->uid = u->uid;
    out->gid = u->gid;
    out->sw = u->sw;
    snprintf(out->dir, sizeof out->dir, "%s", dir);
}

static bool all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* Whether r's directory is a name of [A-Za-z0-9_-], NUL-padded. */
static bool dir_ok(const diskreq_t *r)
{
    const char *end = memchr(r->dir, 0, sizeof r->dir);
    if (!end || end == r->dir || strspn(r->dir, DIR_SET) != (size_t)(end - r->dir))
        return false;
    return all_zero(end, (size_t)(r->dir + sizeof r->dir - end));
}

/* Why r is not a request users' games allow, or NULL. */
static const char *why_not(const diskreq_t *r, const spawner_user_t *users, int ngames)
{
    if (r->flags & ~DISKREQ_FLAGS)
        return "unknown flags";
    if (r->game < 0 || r->game >= ngames)
        return "no such game";
    if (r->pid < 2)
        return "not a program's pid";
    const spawner_user_t *u = &users[r->game];
    if (r->sw > 1 || r->sw != (uint32_t)u->sw || r->uid != (uint32_t)u->uid ||
        r->gid != (uint32_t)u->gid)
        return "not the game's user";
    if (!dir_ok(r))
        return "not a directory name";
    if (r->nwatched > DISKREQ_WATCH_MAX)
        return "too many directories watched";
    size_t left = DISKREQ_WATCH_MAX - r->nwatched;
    if (!all_zero(&r->watched[r->nwatched], left * sizeof r->watched[0]) ||
        !all_zero(r->zero, sizeof r->zero))
        return "bytes past the fields";
    return NULL;
}

int diskreq_parse(const void *buf, size_t n, const spawner_user_t *users, int ngames,
                  diskreq_t *out, char *err, size_t errlen)
{
    if (n != DISKREQ_SIZE) {
        snprintf(err, errlen, "a request of %zu bytes, not %zu", n, DISKREQ_SIZE);
        return -1;
    }
    memcpy(out, buf, sizeof *out);
    const char *why = why_not(out, users, ngames);
    if (why) {
        snprintf(err, errlen, "a bad request: %s", why);
        return -1;
    }
    return 0;
}
