/* spawnmsg — the messages between warrend and its spawner (spawner.h), one
 * per datagram of a SOCK_SEQPACKET socketpair.
 *
 * A message is a 12-byte header, then its body:
 *     u16 version   SPAWNMSG_VERSION; any other is refused
 *     u16 type      spawnmsg_type_t
 *     u32 seq       a request's number, echoed by its reply; 0 in EXIT
 *     u32 len       the body's bytes: the datagram is exactly 12 + len
 * Integers are in the host's byte order (both ends are one program). A
 * string is a u16 length and that many bytes, no NUL. The bodies:
 *     SPAWN    game, name, dir (strings), u16 w, u16 h
 *     HANGUP   u32 pid         KILL   u32 pid
 *     RC_LOAD  game, dir       RC_SAVE  game, dir, u64 deadline, text
 *     XLOG_READ  game, dir (answered with RC_TEXT)
 *     SPAWNED  u32 pid: the pty's master comes with it (SCM_RIGHTS)
 *     FAILED   text: why, for the log and the player
 *     RC_TEXT  text            DONE   (empty)
 *     EXIT     u32 pid, i32 status (as from waitpid)
 *     STOPPED  u32 pid, text: the spawner hung the program up (or killed
 *              it) on its own, and why, for the player (spawndisk.h)
 *     FILES_READ   game, dir: the player's files as a bundle (hostfiles.h)
 *     FILES_WRITE  game, dir, with a descriptor: a memfd holding a bundle,
 *              written into the player's directory (answered with DONE)
 *     FILES    text (what was not copied, "" if nothing), with a
 *              descriptor: a memfd holding the bundle read
 *     NOTE     game, dir, i32 status, text: a start's child said
 *              something for warrend's log on the way (a recover that
 *              failed: its wait status, -1 when it never ran), seq 0
 * Every field is checked, whoever sent it (the spawner is the privileged
 * side reading the less privileged one): a game id is 1..GAMECFG_ID_MAX of
 * [a-z0-9_-]; a name (%n) and a dir (the account's game name: %u and
 * the name of the player's directory, one path component)
 * 1..CMDLINE_NAME_MAX of [A-Za-z0-9_-]; w in VTGRID_MIN_W..
 * SCREEN_MAX_W and h in 1..SCREEN_MAX_H; a pid 1..INT32_MAX; a text at most
 * SPAWNMSG_TEXT_MAX bytes without NUL (a FAILED or STOPPED reason and a
 * NOTE also without control characters, never empty; a FILES note without
 * them too: it names a file of the player's, and goes to warrend's log); a deadline any value (CLOCK_MONOTONIC ms: a save
 * the spawner comes to later is refused, warrend gave up on it); nothing
 * may trail the last field.
 *
 * Pure (parse and build), plus the two socket calls. No allocation. */
#ifndef WARREN_SPAWNMSG_H
#define WARREN_SPAWNMSG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cmdline.h"
#include "gamecfg.h"

#define SPAWNMSG_VERSION  1
#define SPAWNMSG_HEADER   12
#define SPAWNMSG_TEXT_MAX 8192 /* an rc file (HOSTGAME_RC_MAX) */
#define SPAWNMSG_MAX      (SPAWNMSG_HEADER + 3 * (2 + 64) + 2 + SPAWNMSG_TEXT_MAX + 16)

typedef enum {
    SPAWNMSG_NONE = 0,
    /* requests: warrend -> spawner */
    SPAWNMSG_SPAWN,
    SPAWNMSG_HANGUP,
    SPAWNMSG_KILL,
    SPAWNMSG_RC_LOAD,
    SPAWNMSG_RC_SAVE,
    /* replies and reports: spawner -> warrend */
    SPAWNMSG_SPAWNED,
    SPAWNMSG_FAILED,
    SPAWNMSG_RC_TEXT,
    SPAWNMSG_DONE,
    SPAWNMSG_EXIT,
    SPAWNMSG_XLOG_READ,   /* a request: answered with RC_TEXT */
    SPAWNMSG_STOPPED,     /* a report, as EXIT */
    SPAWNMSG_FILES_READ,  /* a request: answered with FILES */
    SPAWNMSG_FILES_WRITE, /* a request with a descriptor: answered with DONE */
    SPAWNMSG_FILES,       /* a reply with a descriptor */
    SPAWNMSG_NOTE,        /* a report: for warrend's log, nothing else */
    SPAWNMSG_TYPES
} spawnmsg_type_t;

typedef struct {
    spawnmsg_type_t type;
    uint32_t seq;
    char game[GAMECFG_ID_MAX + 1];
    char name[CMDLINE_NAME_MAX + 1];
    char dir[CMDLINE_NAME_MAX + 1];
    int w, h;
    int32_t pid, status;
    uint64_t deadline_ms; /* RC_SAVE: CLOCK_MONOTONIC ms after which it is not made */
    const char *text;     /* RC_SAVE, RC_TEXT, FAILED: borrowed (the parsed buffer) */
    size_t len;           /* bytes of text */
    bool fd_lost;         /* spawnmsg_recv: its descriptor was sent, but none was left here */
} spawnmsg_t;

/* The type's name ("spawn"...), "?" when unknown. */
const char *spawnmsg_type_name(int type);
/* Parses one datagram of len bytes into m. Returns 0, or -1 with a reason
 * in err (m is then unspecified). */
int spawnmsg_parse(const void *buf, size_t len, spawnmsg_t *m, char *err, size_t errlen);
/* Writes m into buf (cap bytes). Returns its length, or 0 when m would not
 * parse (a bad field) or does not fit. */
size_t spawnmsg_build(const spawnmsg_t *m, void *buf, size_t cap);

/* Sends m on a SOCK_SEQPACKET socket, with fd (>= 0) as SCM_RIGHTS.
 * Blocks until sent. Returns 0, or -1 with errno. */
int spawnmsg_send(int sock, const spawnmsg_t *m, int fd);
/* Receives one datagram into buf (SPAWNMSG_MAX bytes) and parses it into
 * m; a descriptor passed with it goes to *fd (close-on-exec; -1 when none;
 * a message that may not carry one has it closed and is refused). flags
 * as for recvmsg (MSG_DONTWAIT). Returns 1 with a message, 0 at EOF, -1
 * with errno (EAGAIN: nothing yet) or, for a bad message, EBADMSG and a
 * reason in err. A message whose descriptor the kernel dropped because
 * this process has none left (RLIMIT_NOFILE) comes with *fd -1 and
 * m->fd_lost set: the sender's work is done, its answer must not wait. */
int spawnmsg_recv(int sock, void *buf, int flags, spawnmsg_t *m, int *fd, char *err, size_t errlen);

#endif
