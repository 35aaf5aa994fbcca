/* chat — spectator chat of a live game: one stream whatever the viewers
 * use. A line said in a browser (web/webgw.c) or typed after ':' by a
 * telnet watcher (watch.c) goes to every browser viewing the game as a
 * {"t":"chat"} message and onto the game's screen as a strip of the newest
 * lines, shown for chat-show seconds over the map's top right, so telnet players
 * and watchers read it too.
 *
 * The player's chat commands (never journalled, never seen by the game;
 * playkeys.h binds them to Ctrl-E, -W and -T, or to a hosted game's
 * prefix then e, w and t):
 *   say a line (typed over the bottom row: Enter sends, Esc cancels)
 *   who is watching (a notice in the strip)
 *   chat: strip shown -> strip hidden -> chat off -> shown
 *
 * With several nodes (notify.h) a line said here goes to the game's
 * viewers at the other nodes too (its own node or the nodes mirroring
 * it), checked only here: muted, rate-limited, chat off where it is said.
 *
 * The log (struct chatlog) is the session's, made on the first line and
 * freed with it (chat_free). Loop thread only. */
#ifndef WARREN_CHAT_H
#define WARREN_CHAT_H
#include <stdbool.h>
#include <stddef.h>
#include "conn.h"
#include "keys.h"
#include "screen.h"

#define CHAT_MAX 200 /* bytes of one line */

typedef struct chatlog chatlog_t;

/* from says text (n bytes, UTF-8) to the game it views. Returns NULL when
 * it was said (or was empty), else why not: not logged in, not viewing, too
 * long, the player turned chat off, muted by the administrator, or too
 * fast: the game paces each account (its lines from every socket together,
 * chat.c: SPEAK_*); a socket's own pace is the caller's. */
const char *chat_say(conn_t *from, const char *text, size_t n);
/* hooks_t.chat_heard: a line said at another node, shown here (unless
 * the player here turned chat off and from is not the player). */
void chat_heard(session_t *s, const char *from, const char *text, size_t n);
/* chat_say's checks alone (for a rate limit that comes after them). */
const char *chat_check(const conn_t *from, size_t n);
/* The same, told what the game says: from views one (viewing), whose chat
 * is off (off), as its player (player). For a game on another loop. */
const char *chat_check_game(bool viewing, bool off, bool player, const conn_t *from, size_t n);
/* The strip (and the player's notices) over the game's frame, but a
 * paused one's (hooks.h: an overlay). */
void chat_draw(session_t *s, screen_t *scr);
/* While the player types a line every key is the line's: true when k was
 * taken. */
bool chat_typing_key(conn_t *c, session_t *s, key_event_t k);
void chat_start_line(session_t *s); /* the player starts typing a line */
void chat_who(session_t *s);        /* who watches, as a notice */
void chat_toggle(session_t *s);     /* shown -> hidden -> off -> shown */
/* The player's browser turns chat off or on: at the chat key's pace
 * (chat.c: TOGGLE_*), and only when it changes; else that browser alone
 * is told how it is. */
void chat_set_off(session_t *s, bool off);
/* A notice for the player over the game's top right, for a few seconds. */
void chat_notice(session_t *s, const char *text);
/* Lines and notices that went stale come off the screens. */
void chat_tick(server_t *srv);
/* Its browsers are told whether chat is on ({"t":"chat_state"}). */
void chat_state_send(session_t *s);
void chat_free(chatlog_t *log);

#endif
