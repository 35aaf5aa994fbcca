/* control_parse — one request line of the admin control socket, parsed
 * with no side effects (a fuzz target covers it): which command from a
 * const table, and its argument.
 *
 * A request is "COMMAND" or "COMMAND ARGUMENT" ending in "\n" (a "\r"
 * before it is dropped), at most CTL_LINE_MAX bytes with the newline. */
#ifndef WARREN_CONTROL_PARSE_H
#define WARREN_CONTROL_PARSE_H
#include <stddef.h>

#define CTL_LINE_MAX     1024
#define CTL_ANNOUNCE_MAX 199   /* characters of an announcement (and a drain's message) */
#define CTL_DRAIN_MAX_S  86400 /* the longest deadline of a drain */

typedef enum {
    CTL_USERS,
    CTL_GAMES,
    CTL_LOCK,
    CTL_UNLOCK,
    CTL_PASSWD,
    CTL_ANNOUNCE,
    CTL_HEALTH,
    CTL_DB_MAX_SIZE,
    CTL_KICK,
    CTL_BAN,
    CTL_UNBAN,
    CTL_BANS,
    CTL_END,
    CTL_DELETE,
    CTL_RENAME,
    CTL_MUTE,
    CTL_UNMUTE,
    CTL_CHECK_DB,
    CTL_DRAIN,
    CTL_DRAIN_STATUS,
    CTL_NCMDS
} ctl_cmd_t;

/* line[0..len) are the bytes received so far. Returns 1 with *cmd and arg
 * (NUL-terminated, "" when there is none; argmax >= CTL_LINE_MAX) when a
 * whole request is there, 0 when more bytes are needed, -1 with *error (a
 * static message) for a bad request. Announcements come back as printable
 * ASCII ('?' for anything else), and so is drain's "SECONDS [TEXT]" (SECONDS
 * from 1 to CTL_DRAIN_MAX_S); passwd's argument is "NAME PASSWORD". Each
 * command's words are counted (ban "ADDR [DURATION]", rename "OLD NEW"),
 * and delete needs "NAME --yes". */
int control_parse(const char *line, size_t len, ctl_cmd_t *cmd, char *arg, size_t argmax,
                  const char **error);

#endif
