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
#include "notify.h"

typedef struct server server_t;
typedef struct moderation moderation_t;
typedef struct conn conn_t;

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

/* An account being deleted (admin/control_mod.c), from before its game
 * is closed until its connections are sent off (or the delete failed):
 * no game of it is started, resumed or restored meanwhile, so nothing of
 * it is written after its rows go. Any loop of s's node reads the mark;
 * home sets and clears it (home's thread only writes). Each mark is one
 * delete's: its node ("" this one) and its number there, so deletes of
 * one account under way at once (here, or here and at another node)
 * each clear only their own, the account marked while any is on. A
 * delete here: moderation_deleting_mark gives its number (> 0), cleared
 * by moderation_deleting_clear. A delete at another node marks it here
 * too, for ms (moderation_deleting_mark_for: its event,
 * MOD_DELETING_MARK_MS, so a node that stopped mid-delete never leaves
 * it marked), until its end is heard. -1 when SERVER_DELETING_MAX marks
 * are on (the delete refused; an expired mark's slot is free). */
int64_t moderation_deleting_mark(server_t *home, int64_t user);
int moderation_deleting_mark_for(server_t *home, int64_t user, const char *from, int64_t id,
                                 int64_t ms);
void moderation_deleting_clear(server_t *home, int64_t user, int64_t id);
bool moderation_deleting(const server_t *s, int64_t user);
/* Another node's delete of account ev->a began (ev->b its number there)
 * or ended (-number; 0 from a build before the numbers: its every mark
 * of the account): NOTIFY_DELETING's handler (notify.c), on home. */
void moderation_deleting_heard(server_t *home, const notify_event_t *ev);
/* The deleting node asks the others to hold off for this long at most:
 * longer than its close at the lease's holder (nodeend.h's wait) and its
 * rows' delete take. */
#define MOD_DELETING_MARK_MS 60000
/* a delete heard but not marked (all marks taken, a flood of fresh
 * numbers from a node) is logged once in this, with a count of the rest */
#define MOD_DELETING_LOG_MS  60000
#define MOD_DELETING_MSG     "This account is being deleted."

/* ---- several nodes on one database (notify.h) ---- */
/* After a change stored here (a ban, an unban, a mute, an unmute): the
 * other nodes are told to read them again. */
void moderation_tell_nodes(server_t *s);
/* Why the administrator sends an account's connections off: each its
 * own event kind to the other nodes (notify.h) and its own words, the
 * same at every node. */
typedef enum { MOD_KICKED, MOD_LOCKED, MOD_DELETED, MOD_RENAMED } moderation_why_t;
/* The words an account's connections are told, why's, into out (n
 * bytes): a rename's name the new name (unused for the others). */
void moderation_why_words(moderation_why_t why, const char *name, char *out, size_t n);
/* The word for the log: "kicked", "locked", "deleted", "renamed". */
const char *moderation_why_word(moderation_why_t why);
/* After a kick, a lock, a delete or a rename (name: the new name) here:
 * the other nodes send the account's connections off, told why. */
void moderation_send_off_nodes(server_t *s, int64_t user_id, moderation_why_t why,
                               const char *name);
/* Home, told by another node: the stored bans and mutes read again,
 * replacing these, then every connection here from an address banned
 * now is told and closed (on every loop). */
void moderation_changed_elsewhere(server_t *home, const char *to, int64_t a, int64_t b);
/* Home, told by another node (NOTIFY_KICK, NOTIFY_LOCK, NOTIFY_DELETE,
 * NOTIFY_RENAME; ev->a the account): every connection here of the
 * account is told why, in this node's words for its kind, and closed,
 * its websockets too (its game kept for it, its lease let go); of a
 * rename, those logged in under the new name already stay. A kick
 * of a build before the other kinds says by its b: 1 locked, 2 deleted. */
void moderation_sent_off_elsewhere(server_t *home, const notify_event_t *ev);
/* Whether c is logged in under name, exactly (a rename's new name; NULL
 * or "": no): a rename heard late leaves such a connection alone (one to
 * another case of the same name still sends the old one off). */
bool moderation_known_as(const conn_t *c, const char *name);

/* Home, after a gap in hearing other nodes (notify.c): every logged-in
 * connection's account read again, and those deleted or locked meanwhile
 * told so and closed, as the lock's or delete's event would have done.
 * One read per loop (per RECHECK_MAX connections). */
void moderation_recheck_accounts(server_t *home);

/* "30m", "2h", "7d", "90s" or plain seconds, up to a hundred years: 0
 * and *secs, else -1. */
int moderation_parse_duration(const char *text, int64_t *secs);

#endif
