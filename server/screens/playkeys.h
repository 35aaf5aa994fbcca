/* playkeys — Warren's own keys that a player types in a game: leave it
 * (x), say a chat line (e), who watches (w), chat shown, hidden or off
 * (t). One table holds them, for the keys and for the help.
 *
 * In Warren's own game they are direct: Ctrl-X, Ctrl-E, Ctrl-W, Ctrl-T,
 * and Alt-X, Alt-E, Alt-W, Alt-T too, since a browser keeps Ctrl-W and
 * Ctrl-T (closing and opening tabs) and its terminal sends Alt-W as Esc w.
 * A hosted game's program gets every other key, so those keys stay its
 * own (NetHack's ^T teleports, ^X shows attributes): a [game ID]'s keys
 * are behind a prefix (gamecfg.h `keys`, default ^\). The prefix then a
 * letter of the table (or its Ctrl form) is Warren's action; the prefix
 * twice sends the program one prefix; the prefix then any other key shows
 * a line of help in the chat strip. The session keeps its prefix
 * (session_t.key_prefix, 0 for direct keys) and which connection just
 * pressed it (session_t.key_armed). Loop thread only. */
#ifndef WARREN_PLAYKEYS_H
#define WARREN_PLAYKEYS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "conn.h"
#include "keys.h"

/* The player c of s typed k: true when it was one of Warren's keys (or a
 * prefix), done here; false when it is the game's. */
bool playkeys_take(conn_t *c, session_t *s, key_event_t k);
/* How a player types the action of letter ('x', 'e', 'w' or 't') with
 * this prefix (0: direct) into out: "Ctrl-T" or "^\ t". Returns out. */
char *playkeys_name(uint32_t prefix, char letter, char *out, size_t n);
/* For the menu line of a game: "^\ x: back here, ^\ ?: keys" (with a
 * prefix) or "Ctrl-X: back here". */
void playkeys_hint(uint32_t prefix, char *out, size_t n);

#endif
