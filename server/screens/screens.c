/* screens — the screens layer's hooks into the core (screens.h). */
#include "screens.h"
#include "announce.h"
#include "chat.h"
#include "gameover.h"
#include "inbox.h"
#include "keynote.h"
#include "menu.h"
#include "playkeys.h"
#include "session.h"
#include "watch.h"

/* What the screens keep per conn: the menu's state, made now; a
 * watcher's view, made on first use. */
static int screens_conn_open(conn_t *c)
{
    c->menu = menu_state_new();
    return c->menu ? 0 : -1;
}

static void screens_conn_close(conn_t *c)
{
    menu_state_free(c->menu);
    c->menu = NULL;
    watch_free(c->watch);
    c->watch = NULL;
}

static void chat_gone(session_t *s)
{
    chat_free(s->chat);
    s->chat = NULL;
}

void screens_hooks(hooks_t *h)
{
    menu_hooks(h);
    h->conn_open = screens_conn_open;
    h->conn_close = screens_conn_close;
    h->watcher_key = watch_key;
    h->watcher_own = watch_overlay;
    h->watcher_draw = watch_draw;
    h->watcher_footer = watch_footer;
    h->watcher_begun = watch_begun;
    h->game_over = gameover_show;
    h->chat_heard = chat_heard;
    /* Warren's own keys first, even while a chat line is typed */
    HOOKS_ADD(h, player_key, playkeys_take);
    HOOKS_ADD(h, player_key, chat_typing_key);
    /* the chat strip, then the announcement over the bottom row */
    HOOKS_ADD(h, overlay, chat_draw);
    HOOKS_ADD(h, overlay, announce_overlay);
    HOOKS_ADD(h, overlay, keynote_overlay); /* a player's dropped keys, over the same row */
    HOOKS_ADD(h, session_gone, chat_gone);
    HOOKS_ADD(h, tick, chat_tick);
    HOOKS_ADD(h, tick, watch_tick);
    HOOKS_ADD(h, tick, announce_game_tick);
    HOOKS_ADD(h, tick, keynote_tick);
    HOOKS_ADD(h, mail_left, inbox_notify);
}
