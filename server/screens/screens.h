/* screens — what a terminal shows besides the game itself: the menu and
 * its prompts and lists (menu.h), a watcher's overlays and keys (watch.h),
 * spectator chat (chat.h), the player's own keys in a game (playkeys.h),
 * a game's last screen (gameover.h), the administrator's announcement
 * (announce.h), unseen mail (inbox.h), and the editors they use
 * (lineedit.h, rcedit.h).
 *
 * The core calls none of them by name: screens_hooks registers them with
 * it (hooks.h) when warrend starts. Loop thread only. */
#ifndef WARREN_SCREENS_H
#define WARREN_SCREENS_H
#include "hooks.h"

void screens_hooks(hooks_t *h);

#endif
