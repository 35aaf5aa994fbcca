/* diskreq — what the spawner asks its disk measurer (spawndisk.h) and
 * how the measurer reads it: one fixed-size request a game, "measure
 * game G, whose program is pid P, as user U:G, in directory D", which
 * the measurer checks field by field against what it knows (the
 * config's games and their users) before it acts on any: a request
 * that is not exactly right is answered with an error and changes
 * nothing. The two ends are one build (the measurer is a fork of the
 * spawner), so a request is the struct's bytes, with no padding and
 * every unused byte zero. */
#ifndef WARREN_DISKREQ_H
#define WARREN_DISKREQ_H
#include <stddef.h>
#include <stdint.h>
#include "cmdline.h"
#include "spawner.h"

#define DISKREQ_WATCH_MAX 64 /* SPAWNDISK_WATCH_MAX: directories a game has watched */
#define DISKREQ_ORPHANS   1u /* flag: look the games' orphans up again first */
#define DISKREQ_FLAGS     DISKREQ_ORPHANS

typedef struct diskreq {
    uint64_t watched[DISKREQ_WATCH_MAX]; /* inodes of the directories watched already */
    uint32_t batch;                      /* the spawner's batch, echoed in the answer */
    uint32_t i;                          /* the game's place in it, echoed */
    uint32_t flags;                      /* DISKREQ_* */
    int32_t game;                        /* index into the config's games */
    int32_t pid;                         /* the program the spawner started */
    uint32_t uid, gid;                   /* the game's user (must be the config's) */
    uint32_t sw;                         /* 1: switch to those ids (the config's say) */
    uint32_t nwatched;                   /* of watched, at most DISKREQ_WATCH_MAX */
    char dir[CMDLINE_NAME_MAX + 1];      /* the player's directory name, NUL-padded */
    char zero[11];                       /* padding, zero */
} diskreq_t;

#define DISKREQ_SIZE sizeof(diskreq_t)

/* The request for game (its user u) into out: zeroed first. */
void diskreq_make(diskreq_t *out, uint32_t batch, uint32_t i, uint32_t flags, int game, pid_t pid,
                  const spawner_user_t *u, const char *dir);

/* n bytes of buf read as a request into out, checked against the
 * config's ngames games and their users: 0, or -1 with err (out then
 * unspecified): the size is not DISKREQ_SIZE, a flag unknown, a game
 * out of range, a pid below 2, ids not the game's user's, a directory
 * name empty, too long, of other characters than [A-Za-z0-9_-] or with
 * bytes after its end, watched inodes past nwatched or not zero. */
int diskreq_parse(const void *buf, size_t n, const spawner_user_t *users, int ngames,
                  diskreq_t *out, char *err, size_t errlen);

#endif
