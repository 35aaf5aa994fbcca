/* chat — one stream of spectator chat per game (see chat.h). */
#include "chat.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lineedit.h"
#include "json.h"
#include "log.h"
#include "logcap.h"
#include "moderation.h"
#include "notify.h"
#include "playkeys.h"
#include "ratelimit.h"
#include "server.h"
#include "session.h"

#define CHAT_KEEP     4 /* lines kept (the strip shows the fresh ones) */
#define NOTICE_MS     8000
#define STRIP_W       56 /* widest strip, in cells */
/* Each account's lines to one game pass at SPEAK_RATE a second, bursts
 * of SPEAK_BURST, however many sockets it says them from (a socket's own
 * pace, webgw.c and watch.c, is the same). SPEAKERS accounts are paced
 * at once; a place is given again once its account has been quiet for
 * SPEAK_IDLE_MS (its bucket would be full again: nothing is forgotten),
 * and while every place is taken by an account heard within it a new
 * speaker is told to wait. */
#define SPEAK_RATE    1.0
#define SPEAK_BURST   3.0
#define SPEAK_IDLE_MS 3000
#define SPEAKERS      16
/* The player's chat key works TOGGLE_RATE times a second, bursts of
 * TOGGLE_BURST: each press that turns chat off or on is told to the other
 * nodes (notify.h), a write to the database, so a key held down must not
 * be one each. */
#define TOGGLE_RATE   4.0
#define TOGGLE_BURST  8.0

_Static_assert(CHAT_MAX <= NOTIFY_TEXT_MAX, "a chat line fits in a node event");

typedef struct {
    char from[32];
    char text[CHAT_MAX + 1];
    uint64_t at; /* uv_now ms */
} chat_entry_t;

typedef struct {
    int64_t user_id;   /* 0: a free place */
    uint64_t last;     /* uv_now ms of its last line */
    ratelimit_t *rate; /* its lines */
} speaker_t;

struct chatlog {
    chat_entry_t lines[CHAT_KEEP]; /* a ring; next is the oldest */
    speaker_t speakers[SPEAKERS];  /* who said lines lately (SPEAK_*) */
    ratelimit_t *toggles;          /* the player's chat key (TOGGLE_*) */
    unsigned next;
    bool hidden;         /* the player hid the strip */
    char notice[160];    /* for the player: who watches, what the chat key did, help */
    uint64_t notice_end; /* uv_now ms */
    int drawn;           /* strip rows last drawn: chat_tick redraws when fewer are due */
    bool typing;         /* the player writes a line (chat_start_line) */
    int64_t said;        /* lines said here, for other nodes to tell equal ones apart */
    char line[CHAT_MAX + 1];
    size_t len;
    session_t *sess;   /* whose */
    list_t strip_node; /* the server's chat_strips while drawn > 0 */
};

void chat_free(chatlog_t *log)
{
    if (!log)
        return;
    list_remove(&log->strip_node);
    for (int i = 0; i < SPEAKERS; i++)
        ratelimit_free(log->speakers[i].rate);
    ratelimit_free(log->toggles);
    free(log);
}

static chatlog_t *log_of(session_t *s)
{
    if (!s->chat && (s->chat = calloc(1, sizeof *s->chat)) != NULL) {
        s->chat->sess = s;
        list_init(&s->chat->strip_node);
    }
    return s->chat;
}

/* Every browser viewing s gets json (a JSON message). */
static void chat_send_web(session_t *s, const char *json, size_t len)
{
    if (s->player)
        conn_write_text(s->player, json, len);
    LIST_EACH (it, &s->watchers)
        conn_write_text(LIST_ITEM(it, conn_t, wnode), json, len);
}

static void send_json_line(session_t *s, const char *from, bool player, const char *text, size_t n)
{
    buf_t b;
    buf_init(&b);
    buf_puts(&b, "{\"t\":\"chat\",\"from\":");
    json_put_string(&b, from, strlen(from));
    buf_puts(&b, ",\"player\":");
    buf_puts(&b, player ? "true" : "false");
    buf_puts(&b, ",\"text\":");
    json_put_string(&b, text, n);
    buf_putc(&b, '}');
    if (!b.failed)
        chat_send_web(s, b.data, b.len);
    buf_free(&b);
}

const char *chat_check_game(bool viewing, bool off, bool player, const conn_t *from, size_t n)
{
    if (!from->user_id)
        return "Log in to chat.";
    if (!viewing)
        return "You are not viewing a game.";
    if (n > CHAT_MAX)
        return "A chat line is at most 200 bytes of text.";
    if (off && !player)
        return "The player turned chat off.";
    if (moderation_muted(from->srv->mod, from->user_id, (int64_t)time(NULL)))
        return "You may not chat: muted by the administrator.";
    return NULL;
}

const char *chat_check(const conn_t *from, size_t n)
{
    const session_t *s = from->sess;
    return chat_check_game(s, s && s->chat_off, s && from == s->player, from, n);
}

void chat_state_send(session_t *s)
{
    char m[64];
    int n =
        snprintf(m, sizeof m, "{\"t\":\"chat_state\",\"on\":%s}", s->chat_off ? "false" : "true");
    chat_send_web(s, m, (size_t)n);
}

/* The line (clean: n bytes, no control characters) from an account
 * (its game's player or not) to s's viewers here: browsers get it, the
 * strip shows it. */
static void deliver(session_t *s, const char *from, bool player, const char *clean, size_t n)
{
    send_json_line(s, from, player, clean, n);
    chatlog_t *log = log_of(s);
    if (!log)
        return;
    chat_entry_t *e = &log->lines[log->next];
    log->next = (log->next + 1) % CHAT_KEEP;
    snprintf(e->from, sizeof e->from, "%s", from);
    memcpy(e->text, clean, n);
    e->text[n] = '\0';
    e->at = now_ms(s->srv);
    session_redraw(s);
}

/* text (n bytes) without control characters into clean (n + 1 bytes). */
static void clean_line(char *clean, const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        clean[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' ' : text[i];
    clean[n] = '\0';
}

/* The place of user_id among log's speakers: its own, else a free one or
 * one quiet for SPEAK_IDLE_MS given a full bucket; NULL when none. */
static speaker_t *speaker_of(chatlog_t *log, int64_t user_id, uint64_t now)
{
    speaker_t *free_place = NULL;
    for (int i = 0; i < SPEAKERS; i++) {
        speaker_t *sp = &log->speakers[i];
        if (sp->user_id == user_id && sp->rate)
            return sp;
        if (!free_place && (!sp->rate || now - sp->last >= SPEAK_IDLE_MS))
            free_place = sp;
    }
    if (!free_place)
        return NULL;
    ratelimit_free(free_place->rate);
    *free_place = (speaker_t){user_id, now, ratelimit_new(SPEAK_RATE, SPEAK_BURST, now)};
    return free_place->rate ? free_place : NULL;
}

/* True when from's account may say one more line to log's game now. */
static bool speaker_paced(chatlog_t *log, const conn_t *from)
{
    uint64_t now = now_ms(from->srv);
    speaker_t *sp = speaker_of(log, from->user_id, now);
    if (!sp || ratelimit_take(sp->rate, 1, now) != 1)
        return false;
    sp->last = now;
    return true;
}

const char *chat_say(conn_t *from, const char *text, size_t n)
{
    session_t *s = from->sess;
    const char *why = chat_check(from, n);
    if (why)
        return why;
    char clean[CHAT_MAX + 1];
    clean_line(clean, text, n);
    if (n == 0)
        return NULL;
    chatlog_t *log = log_of(s);
    if (log && !speaker_paced(log, from))
        return "Too fast: wait a moment.";
    deliver(s, from->user, from == s->player, clean, n);
    /* and to the game's viewers at other nodes (this one skips its own) */
    notify_send_chat(from->srv, s->game_id, s->chat ? ++s->chat->said : 0, from->user, clean, n);
    return NULL;
}

void chat_heard(session_t *s, const char *from, const char *text, size_t n)
{
    bool player = strcmp(from, s->user) == 0;
    char clean[CHAT_MAX + 1];
    if (s->chat_off && !player && !s->mirror) /* a mirror made since the player turned it */
        session_set_chat(s, true);            /* off learns it (notify.h): said again */
    if (n == 0 || n > CHAT_MAX || (s->chat_off && !player)) /* the player here turned it off */
        return;
    clean_line(clean, text, n);
    deliver(s, from, player, clean, n);
}

/* ---- the strip ------------------------------------------------------------------- */

static const style_t st_strip = {15, 4, 0};        /* white on blue */
static const style_t st_from = {11, 4, ATTR_BOLD}; /* the speaker */
static const style_t st_note = {0, 14, 0};         /* a notice: black on cyan */

/* One row of the strip at y, right-aligned: "who: text" cut to fit. */
static void strip_row(screen_t *scr, int y, const char *who, const char *text, style_t st)
{
    int w = scr->w < STRIP_W + 2 ? scr->w - 2 : STRIP_W;
    int x = scr->w - w;
    screen_fill(scr, x, y, w, 1, ' ', st);
    int cx = x + 1;
    if (who) {
        cx = screen_textf(scr, cx, y, st_from, "%.20s", who);
        cx = screen_text(scr, cx, y, st, ": ");
    }
    char cut[CHAT_MAX + 1];
    snprintf(cut, sizeof cut, "%s", text);
    int room = x + w - 1 - cx;
    if (room > 0 && (int)strlen(cut) > room) /* ASCII width; UTF-8 may be cut short */
        cut[room] = '\0';
    if (room > 0)
        screen_text(scr, cx, y, st, cut);
}

/* The player's line being typed, over the bottom row, the cursor in it. */
static void draw_typing(const chatlog_t *log, screen_t *scr)
{
    int y = scr->h - 1;
    screen_fill(scr, 0, y, scr->w, 1, ' ', st_note);
    int x = screen_text(scr, 0, y, st_note, "Say (Enter sends, Esc cancels): ");
    const char *shown = lineedit_tail(log->line, log->len, scr->w - x - 1); /* a long line's end */
    x = screen_text(scr, x, y, st_note, shown);
    screen_cursor(scr, x, y, true);
}

/* How long a line stays on the strip (chat-show). */
static uint64_t show_ms(const server_t *srv)
{
    return (uint64_t)srv->cfg.chat_show * 1000;
}

void chat_draw(session_t *s, screen_t *scr)
{
    chatlog_t *log = s->chat;
    if (!log || s->frozen) /* paused: its notice, not the strip */
        return;
    if (log->typing)
        draw_typing(log, scr);
    uint64_t now = now_ms(s->srv);
    int y = 1;
    if (log->notice[0] && now < log->notice_end)
        strip_row(scr, y++, NULL, log->notice, st_note);
    int rows = 0;
    for (unsigned i = 0; i < CHAT_KEEP && !log->hidden; i++) {
        const chat_entry_t *e = &log->lines[(log->next + i) % CHAT_KEEP];
        if (e->at && now - e->at < show_ms(s->srv) && y < scr->h - 3) {
            strip_row(scr, y++, e->from, e->text, st_strip);
            rows++;
        }
    }
    log->drawn = y - 1;
    if (log->drawn == 0)
        list_remove(&log->strip_node);
    else if (!list_linked(&log->strip_node))
        list_push_back(&s->srv->chat_strips, &log->strip_node);
}

static int strip_due(const chatlog_t *log, uint64_t now)
{
    int n = log->notice[0] && now < log->notice_end;
    for (unsigned i = 0; i < CHAT_KEEP && !log->hidden; i++)
        n += log->lines[i].at && now - log->lines[i].at < show_ms(log->sess->srv);
    return n;
}

void chat_tick(server_t *srv)
{
    uint64_t now = now_ms(srv);
    LIST_EACH (it, &srv->chat_strips) {
        chatlog_t *log = LIST_ITEM(it, chatlog_t, strip_node);
        if (log->drawn > strip_due(log, now))
            session_redraw(log->sess);
    }
}

/* ---- the player's keys ------------------------------------------------------------- */

void chat_notice(session_t *s, const char *text)
{
    chatlog_t *log = log_of(s);
    if (!log)
        return;
    snprintf(log->notice, sizeof log->notice, "%s", text);
    log->notice_end = now_ms(s->srv) + NOTICE_MS;
    session_redraw(s);
}

void chat_who(session_t *s)
{
    char text[160];
    size_t len = (size_t)snprintf(text, sizeof text, "Watching (%d):", s->nwatchers);
    int anon = 0;
    LIST_EACH (it, &s->watchers) {
        const conn_t *w = LIST_ITEM(it, conn_t, wnode);
        if (!w->user_id)
            anon++;
        else if (len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, " %s", w->user);
    }
    if (anon && len < sizeof text)
        snprintf(text + len, sizeof text - len, " +%d not logged in", anon);
    if (s->nwatchers == 0)
        snprintf(text, sizeof text, "Nobody is watching.");
    chat_notice(s, text);
}

/* The player may press the chat key at will: its line is under the log's
 * cap (logcap.h), a few times in a window per address and account. */
static void say_toggle(session_t *s, const char *now_is)
{
    static const logcap_kind_t say_chat = {"chat on, hidden or off", 10, 1000};
    logcap_say_user(s->srv->strangers, now_ms(s->srv), LOG_INFO, &say_chat,
                    s->player ? s->player->key : "-", s->user, "chat user=%s game=%lld %s", s->user,
                    (long long)s->game_id, now_is);
}

/* True when the player may turn chat off or on once more now (TOGGLE_*). */
static bool toggle_paced(session_t *s, chatlog_t *log)
{
    uint64_t now = now_ms(s->srv);
    if (!log->toggles && !(log->toggles = ratelimit_new(TOGGLE_RATE, TOGGLE_BURST, now)))
        return false;
    return ratelimit_take(log->toggles, 1, now) == 1;
}

void chat_set_off(session_t *s, bool off)
{
    chatlog_t *log = log_of(s);
    if (log && s->chat_off != off && toggle_paced(s, log)) {
        session_set_chat(s, off);
        say_toggle(s, off ? "off" : log->hidden ? "hidden" : "on");
        chat_state_send(s);
    } else if (s->player) { /* unchanged: its browser alone is told how it is */
        char m[64];
        int n = snprintf(m, sizeof m, "{\"t\":\"chat_state\",\"on\":%s}",
                         s->chat_off ? "false" : "true");
        conn_write_text(s->player, m, (size_t)n);
    }
}

/* Shown -> hidden -> off -> shown; the notice names the player's key. */
void chat_toggle(session_t *s)
{
    chatlog_t *log = log_of(s);
    if (!log)
        return;
    if (!toggle_paced(s, log)) {
        chat_notice(s, "Too fast: wait a moment.");
        return;
    }
    const char *say;
    if (s->chat_off) {
        session_set_chat(s, false);
        log->hidden = false;
        say = "Chat on: new lines show here. %s hides them.";
    } else if (!log->hidden) {
        log->hidden = true;
        say = "Chat hidden (watchers still talk). %s turns it off.";
    } else {
        session_set_chat(s, true);
        say = "Chat off: watchers cannot talk. %s turns it on.";
    }
    say_toggle(s, s->chat_off ? "off" : log->hidden ? "hidden" : "on");
    char key[24], text[128];
    snprintf(text, sizeof text, say, playkeys_name(s->key_prefix, 't', key, sizeof key));
    chat_notice(s, text);
}

/* A key while the player types a line: every key is the line's. */
static void typing_key(conn_t *c, session_t *s, chatlog_t *log, key_event_t k)
{
    line_action_t a = lineedit_key(log->line, &log->len, CHAT_MAX, k);
    if (a == LINE_IGNORED || a == LINE_FULL)
        return;
    if (a == LINE_ENTER || a == LINE_CANCEL) {
        log->typing = false;
        const char *why = a == LINE_ENTER ? chat_say(c, log->line, log->len) : NULL;
        memset(log->line, 0, sizeof log->line);
        log->len = 0;
        if (why) {
            chat_notice(s, why);
            return;
        }
    }
    session_redraw(s);
}

bool chat_typing_key(conn_t *c, session_t *s, key_event_t k)
{
    chatlog_t *log = s->chat;
    if (!log || !log->typing)
        return false;
    typing_key(c, s, log, k);
    return true;
}

void chat_start_line(session_t *s)
{
    chatlog_t *log = log_of(s);
    if (!log)
        return;
    log->typing = true;
    session_redraw(s);
}
