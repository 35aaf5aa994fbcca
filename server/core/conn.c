/* conn — what every connection shares, whatever carries it; see conn.h. */
#include <stdio.h>
#include <string.h>
#include "addrkey.h"
#include "hooks.h"
#include "json.h"
#include "log.h"
#include "logcap.h"
#include "ratelimit.h"
#include "readturn.h"
#include "relay.h"
#include "server.h"
#include "session.h"
#include "shard.h"

int conn_init(conn_t *c, server_t *srv, const conn_ops_t *ops)
{
    c->srv = srv;
    c->ops = ops;
    c->id = ++srv->next_conn_id;
    list_init(&c->node);
    list_init(&c->wnode);
    list_init(&c->mnode);
    conn_set_place(c, CONN_MENU);
    double rate = srv->cfg.input_rate;
    c->input_limit = ratelimit_new(rate, rate * 4, now_ms(srv));
    int above = srv->hooks->conn_open ? srv->hooks->conn_open(c) : 0;
    return c->input_limit && above == 0 ? 0 : -1;
}

static void menu_leave(conn_t *c)
{
    if (list_linked(&c->mnode)) {
        list_remove(&c->mnode);
        c->srv->nmenu--;
    }
}

/* A wait is over (its keys taken, another place, the conn gone): how
 * many keys its flood dropped, in one line. */
static void held_said(conn_t *c)
{
    if (c->held_dropped > 1)
        log_info("keys dropped conn=%llu: %u in all while they waited for %s",
                 (unsigned long long)c->id, c->held_dropped, c->held_for);
    c->held_dropped = 0;
}

/* ---- screen cells past 80x24 (screen-cells) ------------------------------------------- */

static int64_t cells_past_min(int w, int h)
{
    int64_t n = (int64_t)w * h - (int64_t)TERM_MIN_W * TERM_MIN_H;
    return n > 0 ? n : 0;
}

/* c's charge becomes cells (home's count is shared by every loop). */
static void big_cells_set(conn_t *c, int64_t cells)
{
    if (cells != c->big_cells)
        atomic_fetch_add(&shard_at(c->srv, 0)->big_cells, cells - c->big_cells);
    c->big_cells = cells;
}

void conn_size_fit(conn_t *c, int *w, int *h)
{
    static const logcap_kind_t say_cut = {"screen cells at their cap"};
    _Atomic int64_t *all = &shard_at(c->srv, 0)->big_cells;
    int64_t want = cells_past_min(*w, *h), grow = want - c->big_cells,
            cap = c->srv->cfg.screen_cells;
    if (grow <= 0 || !cap) {
        big_cells_set(c, want);
        return;
    }
    if (atomic_fetch_add(all, grow) + grow <= cap) {
        c->big_cells = want;
        return;
    }
    atomic_fetch_sub(all, grow);
    logcap_say(c->srv->strangers, now_ms(c->srv), LOG_WARN, &say_cut, c->key,
               "screen cells at their cap conn=%llu ip=%s: %dx%d drawn at 80x24 (screen-cells %d)",
               (unsigned long long)c->id, c->ip, *w, *h, (int)cap);
    *w = *w < TERM_MIN_W ? *w : TERM_MIN_W;
    *h = *h < TERM_MIN_H ? *h : TERM_MIN_H;
    big_cells_set(c, 0);
}

void conn_fini(conn_t *c)
{
    held_said(c);
    big_cells_set(c, 0);
    menu_leave(c);
    readturn_drop(c);
    ratelimit_free(c->input_limit);
    ratelimit_free(c->switch_limit);
    c->switch_limit = NULL;
    if (c->srv->hooks->conn_close)
        c->srv->hooks->conn_close(c);
    screen_free(c->scr);
    screen_free(c->shown);
    c->input_limit = NULL;
    c->scr = c->shown = NULL;
}

void conn_set_place(conn_t *c, conn_place_t p)
{
    held_said(c);
    c->place = p;
    c->held_for = "the game"; /* unless conn_wait_for says otherwise */
    if (p != CONN_WAIT && p != CONN_PLAY)
        c->nheld = 0;    /* typed for a game that did not come */
    if (c->ops->relay) { /* never in a menu here: its conn at home is */
        relay_placed(c);
        return;
    }
    if (p != CONN_MENU || c->ops->browser) {
        menu_leave(c);
    } else if (!list_linked(&c->mnode)) {
        list_push_back(&c->srv->menu_conns, &c->mnode);
        c->srv->nmenu++;
    }
}

void conn_write(conn_t *c, const void *data, size_t len)
{
    if (!c->closing)
        c->ops->write(c, data, len, false);
}

void conn_write_text(conn_t *c, const char *json, size_t len)
{
    if (!c->closing)
        c->ops->write(c, json, len, true);
}

void conn_write_shared(conn_t *c, const void *data, size_t len, bool text, uint64_t id)
{
    if (c->closing)
        return;
    if (c->ops->write_shared && id)
        c->ops->write_shared(c, data, len, text, id);
    else
        c->ops->write(c, data, len, text);
}

bool conn_writable(const conn_t *c)
{
    return c->ops->writable(c);
}

void conn_close(conn_t *c, const char *why)
{
    c->ops->close(c, why);
}

void conn_ref(conn_t *c)
{
    c->refs++;
}

void conn_unref(conn_t *c)
{
    if (--c->refs != 0)
        return;
    if (c->closing)
        c->ops->release(c);
    else if (c->ops->settled)
        c->ops->settled(c);
}

#define DROP_LOG_MS  10000
#define DROP_TELL_MS 5000 /* a terminal player's line stays up this long */

/* The user is told as often as the log says it: a browser in its page's
 * status line, outside the game's terminal; a terminal player over the
 * bottom row of the frames Warren draws (screens/keynote.c), never in the
 * game itself nor a hosted game's pty, whose screen stays intact. */
static void drop_tell(conn_t *c, uint64_t now)
{
    session_t *s = c->sess;
    if (c->ops->browser) {
        buf_t b;
        buf_init(&b);
        buf_printf(&b,
                   "{\"t\":\"status\",\"text\":\"Keys typed faster than %d a second were "
                   "dropped.\"}",
                   c->srv->cfg.input_rate);
        if (!b.failed)
            conn_write_text(c, b.data, b.len);
        buf_free(&b);
    } else if (s && s->player == c && !s->ended) {
        s->keynote_until = now + DROP_TELL_MS;
        if (!list_linked(&s->keynote_node))
            list_push_back(&c->srv->keynotes, &s->keynote_node);
        session_redraw(s);
    }
}

size_t conn_rate_allow(conn_t *c, size_t n)
{
    uint64_t now = now_ms(c->srv);
    size_t ok = ratelimit_take(c->input_limit, n, now);
    c->input_dropped += n - ok;
    if (c->input_dropped && (!c->input_logged_ms || now - c->input_logged_ms >= DROP_LOG_MS)) {
        /* under the log's cap: what a line held back dropped is in the next */
        static const logcap_kind_t say_over = {"input over the cap", 0, 0};
        if (logcap_say(c->srv->strangers, now, LOG_WARN, &say_over, c->key,
                       "input over the cap conn=%llu user=%s dropped=%llu bytes (input-rate %d/s)",
                       (unsigned long long)c->id, c->user[0] ? c->user : "-",
                       (unsigned long long)c->input_dropped, c->srv->cfg.input_rate))
            c->input_dropped = 0;
        c->input_logged_ms = now ? now : 1;
        drop_tell(c, now);
    }
    return ok;
}

void conn_set_user(conn_t *c, int64_t user_id, const char *name, const char *game_name)
{
    c->user_id = user_id;
    snprintf(c->user, sizeof c->user, "%s", name);
    snprintf(c->game_name, sizeof c->game_name, "%s", game_name);
}

void conn_set_ip(conn_t *c, const char *ip)
{
    snprintf(c->ip, sizeof c->ip, "%s", ip);
    addrkey(ip, c->srv->cfg.ipv6_prefix, c->key, sizeof c->key);
}

void conn_send_diff(conn_t *c)
{
    server_t *s = c->srv;
    if (!conn_writable(c)) {
        c->need_key = true; /* redrawn in full once the queue drains */
        return;
    }
    buf_reset(&s->scratch);
    bool key =
        !c->shown_valid || c->need_key || c->shown->w != c->scr->w || c->shown->h != c->scr->h;
    if (c->json)
        json_frame(key ? NULL : c->shown, c->scr, c->sess ? c->sess->frame_seq : 0, &s->scratch);
    else if (key)
        ansi_keyframe(&c->prof, c->scr, &s->scratch);
    else
        ansi_diff(&c->prof, c->shown, c->scr, &s->scratch);
    c->need_key = false;
    if (c->json)
        conn_write_text(c, s->scratch.data, s->scratch.len);
    else
        conn_write(c, s->scratch.data, s->scratch.len);
    screen_copy(c->shown, c->scr);
    screen_clean(c->scr);
    c->shown_valid = true;
}

bool conn_in_game(const conn_t *c)
{
    return c->sess || c->relay;
}

/* ---- loops = N ------------------------------------------------------------------------ */

void conn_to_game(conn_t *c, server_t *k, int64_t game_id)
{
    if (!c->ops->move) {
        relay_start(c, k, game_id);
        return;
    }
    conn_dest_t d = {.go = game_id ? GO_WATCH : GO_PLAY, .game_id = game_id};
    conn_wait(c);
    readturn_flush(c); /* held for the game (conn_hold_key): they go with c */
    c->ops->move(c, k, &d);
}

bool conn_away(const conn_t *c)
{
    return c->srv->shard != 0 && !c->ops->relay;
}

/* Away, or on its way: c goes (back) home to go (GO_MENU, GO_MESSAGE; text
 * may be NULL). */
static void conn_go_home(conn_t *c, conn_go_t go, const char *text)
{
    conn_dest_t d = {.go = go, .has_text = text != NULL};
    snprintf(d.text, sizeof d.text, "%s", text ? text : "");
    if (c->sess) /* a game keeps no conn that leaves its loop */
        session_detach(c, NULL);
    conn_set_place(c, CONN_WAIT);
    readturn_flush(c);
    c->ops->move(c, shard_at(c->srv, 0), &d);
}

void conn_tell_close(conn_t *c, const char *line, const char *reason)
{
    if (!c->moving) {
        conn_write(c, line, strlen(line));
        conn_close(c, reason);
        return;
    }
    conn_dest_t d = {.go = GO_CLOSE, .has_text = true, .reason = reason};
    snprintf(d.text, sizeof d.text, "%s", line);
    c->ops->move(c, shard_at(c->srv, 0), &d); /* it changes course */
}

/* A watcher handed to its next game's loop: the keys typed after the one
 * that moved it (held on the way) are played there, in order; one that
 * moves it on holds the rest again. A game gone meanwhile: they were for
 * it, and the menu drops them (conn_set_place), as a player's are. */
static void arrive_watch(conn_t *c, int64_t game_id)
{
    key_event_t keys[CONN_HELD_KEYS];
    int n = conn_take_held(c, keys);
    session_t *s = session_find_game(c->srv, game_id);
    if (!s || s->ended) {
        conn_menu(c, "That game has ended.");
        return;
    }
    session_watch(c, s);
    conn_play_keys(c, keys, n);
}

void conn_arrived(conn_t *c, const conn_dest_t *d)
{
    switch (d->go) {
    case GO_PLAY: session_play(c); break;
    case GO_WATCH: arrive_watch(c, d->game_id); break;
    case GO_MENU: conn_menu(c, d->has_text ? d->text : NULL); break;
    case GO_MESSAGE: conn_message(c, d->text); break;
    case GO_CLOSE: conn_tell_close(c, d->text, d->reason); break;
    }
}

/* ---- where a conn goes: the one routing point ---------------------------------------- */

/* A conn's game is here (c->sess), on another loop through a relay
 * (c->relay, decided once, when it entered that game: conn_to_game), or it
 * has none and its keys are the menu's. conn_route is the one place that
 * tells them apart; each way is a row of handlers. A relay's stand-in and
 * a conn handed to another loop are sent on; a browser has no menu: its
 * gateway takes it home. Only a terminal here reaches the screens
 * (hooks.h). */
typedef struct {
    void (*key)(conn_t *c, key_event_t k);
    void (*resized)(conn_t *c);
    void (*drained)(conn_t *c);
    void (*detach)(conn_t *c, const char *why);
} conn_route_t;

static void menu_key(conn_t *c, key_event_t k)
{
    const hooks_t *h = c->srv->hooks;
    if (!c->ops->browser && h->menu_key)
        h->menu_key(c, k);
}

static void menu_resized(conn_t *c)
{
    const hooks_t *h = c->srv->hooks;
    if (!c->ops->browser && h->menu_redraw) {
        c->shown_valid = false;
        h->menu_redraw(c);
    }
}

static void menu_drained(conn_t *c)
{
    const hooks_t *h = c->srv->hooks;
    if (h->menu_redraw)
        h->menu_redraw(c);
}

static void menu_detach(conn_t *c, const char *why)
{
    (void)c, (void)why; /* in no game: nothing to leave */
}

static const conn_route_t ROUTE_RELAY = {relay_key, relay_resized, relay_drained, relay_detach};
static const conn_route_t ROUTE_SESSION = {session_key, session_resized, session_drained,
                                           session_detach};
static const conn_route_t ROUTE_MENU = {menu_key, menu_resized, menu_drained, menu_detach};

static const conn_route_t *conn_route(const conn_t *c)
{
    return c->relay ? &ROUTE_RELAY : c->sess ? &ROUTE_SESSION : &ROUTE_MENU;
}

/* A key typed while its game loads waits for it (no key is lost); past
 * CONN_HELD_KEYS, as a flood, it is dropped: the first drop of a wait
 * logged, the others counted (held_said), never a line a key. */
void conn_hold_key(conn_t *c, key_event_t k)
{
    if (c->nheld < CONN_HELD_KEYS) {
        c->held[c->nheld++] = k;
        return;
    }
    if (c->held_dropped++ == 0)
        log_info("key dropped conn=%llu: %d keys already wait for %s", (unsigned long long)c->id,
                 CONN_HELD_KEYS, c->held_for);
}

void conn_key(conn_t *c, key_event_t k)
{
    /* On its way to another loop (the rest of the read that sent it): held
     * now, and goes with it; kept, this loop would play it into a conn
     * the other loop's thread has. */
    if (c->moving) {
        conn_key_now(c, k);
        return;
    }
    if (!readturn_keep(c, k) && !c->closing) /* a cap's flush may close it */
        conn_key_now(c, k);
}

void conn_key_now(conn_t *c, key_event_t k)
{
    if (c->place == CONN_WAIT && !c->sess && !c->relay)
        return conn_hold_key(c, k);
    conn_route(c)->key(c, k);
}

int conn_take_held(conn_t *c, key_event_t keys[CONN_HELD_KEYS])
{
    int n = c->nheld;
    memcpy(keys, c->held, (size_t)n * sizeof *keys);
    c->nheld = 0;
    held_said(c);
    return n;
}

void conn_play_held(conn_t *c)
{
    key_event_t keys[CONN_HELD_KEYS];
    int n = conn_take_held(c, keys);
    for (int i = 0; i < n && c->sess && c->place == CONN_PLAY && !c->closing; i++)
        conn_key_now(c, keys[i]); /* a key may leave the game: the rest are not its */
}

void conn_play_keys(conn_t *c, const key_event_t *keys, int n)
{
    for (int i = 0; i < n && !c->closing; i++)
        conn_key_now(c, keys[i]); /* a key starting a game: the rest are held for it */
}

void conn_resized(conn_t *c)
{
    conn_route(c)->resized(c);
}

uint64_t conn_resize_wait(conn_t *c)
{
    uint64_t now = now_ms(c->srv);
    /* a conn changing loops may read a clock a little behind: draw now */
    if (c->resized_ms && now >= c->resized_ms && now - c->resized_ms < CONN_RESIZE_MS)
        return CONN_RESIZE_MS - (now - c->resized_ms);
    c->resized_ms = now ? now : 1;
    return 0;
}

void conn_drained(conn_t *c)
{
    conn_route(c)->drained(c);
}

void conn_detach(conn_t *c, const char *why)
{
    conn_route(c)->detach(c, why);
}

void conn_menu(conn_t *c, const char *msg)
{
    const hooks_t *h = c->srv->hooks;
    if (c->ops->relay)
        return relay_menu(c, RELAY_ENTER, msg);
    if (conn_away(c) || c->moving) /* menus are home's */
        return conn_go_home(c, GO_MENU, msg);
    if (c->ops->browser) { /* no menu: its gateway sends it home */
        conn_set_place(c, CONN_MENU);
        c->ops->leave(c, msg ? msg : "");
    } else if (h->menu_enter)
        h->menu_enter(c, msg);
}

void conn_message(conn_t *c, const char *msg)
{
    const hooks_t *h = c->srv->hooks;
    if (c->ops->relay)
        return relay_menu(c, RELAY_MESSAGE, msg);
    if (conn_away(c) || c->moving)
        return conn_go_home(c, GO_MESSAGE, msg);
    if (c->ops->browser)
        conn_menu(c, msg);
    else if (h->menu_message)
        h->menu_message(c, msg);
}

void conn_wait_for(conn_t *c, const char *what)
{
    conn_set_place(c, CONN_WAIT);
    c->held_for = what;
}

void conn_wait(conn_t *c)
{
    conn_set_place(c, CONN_WAIT);
    if (!c->ops->relay && c->srv->hooks->menu_redraw)
        c->srv->hooks->menu_redraw(c);
}

void conn_too_small(conn_t *c)
{
    if (c->ops->relay)
        return relay_menu(c, RELAY_TOO_SMALL, NULL);
    if (c->srv->hooks->menu_too_small)
        c->srv->hooks->menu_too_small(c);
}

void conn_min_size(const conn_t *c, int *w, int *h)
{
    *w = c->sess ? c->sess->min_w : TERM_MIN_W;
    *h = c->sess ? c->sess->min_h : TERM_MIN_H;
}

void conn_said_size(const conn_t *c, int *w, int *h)
{
    *w = c->raw_w > 0 ? c->raw_w : c->w;
    *h = c->raw_h > 0 ? c->raw_h : c->h;
}

bool conn_small(const conn_t *c)
{
    int mw, mh, w, h;
    conn_said_size(c, &w, &h);
    conn_min_size(c, &mw, &mh);
    return !c->json && (w < mw || h < mh);
}
