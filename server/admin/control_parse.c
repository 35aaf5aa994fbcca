/* control_parse — the admin request line (see control_parse.h). */
#include <string.h>
#include "control_parse.h"
#include "config.h"

static const struct {
    const char *name;
    int arg; /* 0 none, 1 required, 2 optional */
} CMDS[CTL_NCMDS] = {
    [CTL_USERS] = {"users", 0},   [CTL_GAMES] = {"games", 0},
    [CTL_LOCK] = {"lock", 1},     [CTL_UNLOCK] = {"unlock", 1},
    [CTL_PASSWD] = {"passwd", 1}, [CTL_ANNOUNCE] = {"announce", 2},
    [CTL_HEALTH] = {"health", 0}, [CTL_DB_MAX_SIZE] = {"db-max-size", 1},
};

static const char UNKNOWN[] =
    "unknown command (users, games, lock, unlock, passwd, announce, health, db-max-size)";

static int fail(const char **error, const char *msg)
{
    *error = msg;
    return -1;
}

/* The checks one command's argument needs; 0 or -1 with *error. */
static int check_arg(ctl_cmd_t cmd, char *arg, const char **error)
{
    size_t n = strlen(arg);
    if (cmd == CTL_ANNOUNCE) {
        if (n > CTL_ANNOUNCE_MAX)
            return fail(error, "announcement too long (at most 199 characters)");
        for (char *p = arg; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7E)
                *p = '?'; /* it is drawn on every terminal */
    } else if (cmd == CTL_PASSWD && !strchr(arg, ' '))
        return fail(error, "usage: passwd NAME PASSWORD");
    else if ((cmd == CTL_LOCK || cmd == CTL_UNLOCK) && strchr(arg, ' '))
        return fail(error, "usage: lock|unlock NAME");
    else if (cmd == CTL_DB_MAX_SIZE && config_parse_size(arg, &(int64_t){0}))
        return fail(error, "usage: db-max-size BYTES (K, M or G; 0 lifts the cap)");
    return 0;
}

int control_parse(const char *line, size_t len, ctl_cmd_t *cmd, char *arg, size_t argmax,
                  const char **error)
{
    const char *nl = memchr(line, '\n', len);
    if (!nl)
        return len < CTL_LINE_MAX ? 0 : fail(error, "command line too long");
    size_t n = (size_t)(nl - line);
    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (n >= CTL_LINE_MAX || n >= argmax || memchr(line, '\0', n))
        return fail(error, UNKNOWN);
    const char *sp = memchr(line, ' ', n);
    size_t wl = sp ? (size_t)(sp - line) : n;
    for (int i = 0; i < CTL_NCMDS; i++) {
        if (strlen(CMDS[i].name) != wl || memcmp(line, CMDS[i].name, wl) != 0)
            continue;
        size_t al = sp ? n - wl - 1 : 0;
        if (CMDS[i].arg == 0 && al > 0)
            return fail(error, "this command takes no argument");
        if (CMDS[i].arg == 1 && al == 0)
            return fail(error, "this command needs an argument");
        memcpy(arg, sp ? sp + 1 : "", al);
        arg[al] = '\0';
        *cmd = (ctl_cmd_t)i;
        return check_arg(*cmd, arg, error) ? -1 : 1;
    }
    return fail(error, UNKNOWN);
}
