/* keynote — a player whose keys went over the input cap (conn.c,
 * conn_rate_allow) is told so over the bottom row of their game's frames
 * while session_t.keynote_until lasts, the way the administrator's
 * announcement is shown (announce.h): drawn into the frame Warren sends,
 * so a hosted game's own screen (its pty, libvterm's grid) is never
 * written, and the row is the game's again at the next frame after. The
 * frame is the one every viewer of the game shares, so watchers read the
 * line too (why the game skipped keys). Loop thread only. */
#ifndef WARREN_KEYNOTE_H
#define WARREN_KEYNOTE_H
#include "server.h"
#include "session.h"

/* Over the bottom row of scr while s's note lasts (hooks.h: an overlay). */
void keynote_overlay(session_t *s, screen_t *scr);
/* Every loop, once a second (hooks.h: tick): notes past their time come
 * down, their games redrawn. */
void keynote_tick(server_t *k);

#endif
