/* control_parse — the admin request line (see control_parse.h). */
#include <stdlib.h>
#include <string.h>
#include "control_parse.h"
#include "config.h"

/* Each command with the number of space-separated words its argument
 * takes (max -1: any, the rest of the line) and its usage. */
static const struct {
    const char *name;
    int min, max;
    const char *usage;
} CMDS[CTL_NCMDS] = {
    [CTL_USERS] = {"users", 0, 0, "usage: users"},
    [CTL_GAMES] = {"games", 0, 0, "usage: games"},
    [CTL_LOCK] = {"lock", 1, 1, "usage: lock NAME"},
    [CTL_UNLOCK] = {"unlock", 1, 1, "usage: unlock NAME"},
    [CTL_PASSWD] = {"passwd", 2, -1, "usage: passwd NAME PASSWORD"},
    [CTL_ANNOUNCE] = {"announce", 0, -1, "usage: announce [TEXT]"},
    [CTL_HEALTH] = {"health", 0, 0, "usage: health"},
    [CTL_DB_MAX_SIZE] = {"db-max-size", 1, 1,
                         "usage: db-max-size BYTES (K, M or G; 0 lifts the cap)"},
    [CTL_KICK] = {"kick", 1, 1, "usage: kick NAME"},
    [CTL_BAN] = {"ban", 1, 2, "usage: ban ADDR[/PREFIX] [DURATION]"},
    [CTL_UNBAN] = {"unban", 1, 1, "usage: unban ADDR[/PREFIX]"},
    [CTL_BANS] = {"bans", 0, 0, "usage: bans"},
    [CTL_END] = {"end", 1, 1, "usage: end NAME"},
    [CTL_DELETE] = {"delete", 2, 2, "usage: delete NAME --yes"},
    [CTL_RENAME] = {"rename", 2, 2, "usage: rename OLD NEW"},
    [CTL_MUTE] = {"mute", 1, 2, "usage: mute NAME [DURATION]"},
    [CTL_UNMUTE] = {"unmute", 1, 1, "usage: unmute NAME"},
    [CTL_CHECK_DB] = {"check-db", 0, 0, "usage: check-db"},
    [CTL_DRAIN] = {"drain", 1, -1, "usage: drain SECONDS [TEXT]"},
    [CTL_DRAIN_STATUS] = {"drain-status", 0, 0, "usage: drain-status"},
};

#define UNKNOWN                                                                         \
    "unknown command (users, games, lock, unlock, passwd, announce, health, check-db, " \
    "db-max-size, kick, ban, unban, bans, end, delete, rename, mute, unmute, drain, "   \
    "drain-status)"

static int fail(const char **error, const char *msg)
{
    *error = msg;
    return -1;
}

/* Words of a non-empty argument: spaces plus one. */
static int words(const char *arg)
{
    int n = arg[0] ? 1 : 0;
    for (const char *p = arg; *p; p++)
        n += *p == ' ';
    return n;
}

/* Text drawn on every terminal: printable ASCII, the rest made '?'. */
static int check_text(char *text, const char **error)
{
    if (strlen(text) > CTL_ANNOUNCE_MAX)
        return fail(error, "text too long (at most 199 characters)");
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7E)
            *p = '?';
    return 0;
}

/* drain's "SECONDS [TEXT]". */
static int check_drain(char *arg, const char **error)
{
    size_t n = strcspn(arg, " ");
    long secs = n > 0 && n <= 5 && strspn(arg, "0123456789") == n ? strtol(arg, NULL, 10) : 0;
    if (secs < 1 || secs > CTL_DRAIN_MAX_S)
        return fail(error, "usage: drain SECONDS [TEXT] (SECONDS from 1 to 86400)");
    return arg[n] ? check_text(arg + n + 1, error) : 0;
}

/* The checks one command's argument needs; 0 or -1 with *error. */
static int check_arg(ctl_cmd_t cmd, char *arg, const char **error)
{
    size_t n = strlen(arg);
    int w = words(arg);
    if (w < CMDS[cmd].min || (CMDS[cmd].max >= 0 && w > CMDS[cmd].max)) {
        if (CMDS[cmd].min == 0 && CMDS[cmd].max == 0)
            return fail(error, "this command takes no argument");
        return fail(error, w == 0 ? "this command needs an argument" : CMDS[cmd].usage);
    }
    if (cmd == CTL_ANNOUNCE) {
        if (n > CTL_ANNOUNCE_MAX)
            return fail(error, "announcement too long (at most 199 characters)");
        check_text(arg, error); /* it is drawn on every terminal */
    } else if (cmd == CTL_DRAIN)
        return check_drain(arg, error);
    else if (cmd == CTL_DELETE && strcmp(strchr(arg, ' '), " --yes") != 0)
        return fail(error, "delete removes the account and its games: add --yes to confirm");
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
        memcpy(arg, sp ? sp + 1 : "", al);
        arg[al] = '\0';
        *cmd = (ctl_cmd_t)i;
        return check_arg(*cmd, arg, error) ? -1 : 1;
    }
    return fail(error, UNKNOWN);
}
