/* moderation — the administrator's sanctions: addresses refused at every
 * door (bans, "ADDR/PREFIX", IPv4 or IPv6) and accounts kept out of
 * spectator chat (mutes), each until a time or until lifted. They live
 * here for the checks and in the database (bans, mutes) so that they
 * survive a restart: moderation_load reads them back at start.
 *
 * Ownership: server_t.mod, made and freed by main.c. Loop thread only. */
#ifndef WARREN_MODERATION_H
#define WARREN_MODERATION_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct server server_t;
typedef struct moderation moderation_t;

#define MOD_NET_MAX 64 /* "ADDR/PREFIX" with its NUL */

moderation_t *moderation_new(void); /* NULL when out of memory */
void moderation_free(moderation_t *m);
/* Reads the stored bans and mutes (asynchronously) and makes the budget
 * refuse banned addresses. */
void moderation_load(server_t *s);

/* "ADDR" or "ADDR/PREFIX" as its canonical network ("1.2.3.0/24", the host
 * bits cleared); 0, or -1 when it is no address. */
int moderation_parse_net(const char *text, char out[MOD_NET_MAX]);
/* Adds or replaces a ban (until: Unix seconds, 0 = until lifted). -1 when
 * out of memory or net is not canonical. */
int moderation_ban(moderation_t *m, const char *net, int64_t until);
bool moderation_unban(moderation_t *m, const char *net);
bool moderation_banned(const moderation_t *m, const char *addr, int64_t now);

int moderation_mute(moderation_t *m, int64_t user, int64_t until);
bool moderation_unmute(moderation_t *m, int64_t user);
bool moderation_muted(const moderation_t *m, int64_t user, int64_t now);

/* ---- several nodes on one database (notify.h) ---- */
/* After a change stored here (a ban, an unban, a mute, an unmute): the
 * other nodes are told to read them again. */
void moderation_tell_nodes(server_t *s);
/* Why an account's connections are closed at every node: the event's b
 * (NOTIFY_KICK), so each node tells them the words of the node that
 * acted (a node of a build before it sends 0 and says a kick's). */
typedef enum { MOD_KICKED = 0, MOD_LOCKED = 1, MOD_DELETED = 2 } moderation_why_t;
/* The words, and the word for the log ("kicked", "locked", "deleted"),
 * of why (a number another node sent: a kick's when not known). */
const char *moderation_why_msg(int64_t why);
const char *moderation_why_word(int64_t why);
/* After a kick, a lock or a delete here: the other nodes close the
 * account's connections, told why. */
void moderation_kick_nodes(server_t *s, int64_t user_id, moderation_why_t why);
/* Home, told by another node: the stored bans and mutes read again,
 * replacing these, then every connection here from an address banned
 * now is told and closed (on every loop). */
void moderation_changed_elsewhere(server_t *home, const char *to, int64_t a, int64_t b);
/* Home, told by another node: every connection here of account user_id
 * is told why (b, moderation_why_t) and closed (its game kept for it,
 * its lease let go). */
void moderation_kicked_elsewhere(server_t *home, const char *to, int64_t user_id, int64_t b);

/* Home, after a gap in hearing other nodes (notify.c): every logged-in
 * connection's account read again, and those deleted or locked meanwhile
 * told so and closed, as the lock's or delete's event would have done.
 * One read per loop (per RECHECK_MAX connections). */
void moderation_recheck_accounts(server_t *home);

/* "30m", "2h", "7d", "90s" or plain seconds, up to a hundred years: 0
 * and *secs, else -1. */
int moderation_parse_duration(const char *text, int64_t *secs);

#endif
