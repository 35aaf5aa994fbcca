/* sess — one telnet session of warren-load, driven by what it sees. The
 * daemon's stream goes through libtelnet (negotiation is answered: NAWS
 * 80x24 and the terminal type; it never counts as a frame), terminal bytes
 * go to the session's screen (vt.h), and each new screen gets its answer:
 * a player registers, starts a game and takes a random character (again
 * when its game ends); a watcher opens the watch list and picks player 0's
 * game. In play a key is timed from its send to the first read carrying
 * terminal bytes after it: the daemon writes a key's frame in one piece
 * once the key's journal row has committed, and every key sent here
 * changes the screen (sess_key). A player also gets one frame nobody keyed
 * for when a watcher joins (its status line counts watchers); watchers
 * join before the keys start, or again after player 0's game ended.
 * With --hosted the game is Debian's NetHack under the daemon's pty: its
 * questions before the map get their answers (Esc skips the intro's
 * --More--s), and in play a key is a move onto something beside the @
 * (the cursor), timed; a --More-- or a question in play gets its answer
 * instead (hosted_key), sent on the same beat but not timed.
 * With --reconnect a player whose connection closes after it played comes
 * back (sess_lost, sess_tick): it logs in and presses p, and its key out
 * then, or one a goodbye screen came after, is in doubt, not answered. A
 * watcher sent back to the menu (its game ended or left its node) opens
 * the list again a moment later and picks its player's game anew; one
 * whose game is on no page yet (between nodes) looks again from the first
 * page a moment later. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load.h"

#define PASSWORD        "load-pass-1"
#define MENU_ACTIONS    40 /* more answers than the menus need: stuck */
/* --reconnect: a dropped player's pause before it connects again, the
 * connections of one return that may close before its game is back, and
 * the pause before it presses p again when told its game runs elsewhere */
#define REJOIN_DELAY_NS 100000000ull
#define REJOIN_TRIES    50
#define TOLD_RETRY_NS   500000000ull
#define WATCH_RETRY_NS  250000000ull /* a watcher's pause before the list again */
/* A watcher in the menus that has typed nothing for this long acts on
 * what it sees afresh: a safety net for a key of its that got no answer
 * (the daemon drops input over its per-connection cap, input-rate, so a
 * watcher must never go round the menus without a pause), which would
 * leave it waiting for a screen that does not come. Counted: a run
 * expects none (watch_nudges). */
#define WATCH_STILL_NS  2000000000ull

/* What each screen of server/screens/menu.c and the game shows at 80x24. */
typedef enum {
    SEEN_NOTHING,
    SEEN_OVER, /* the game's last frame: the menus come next */
    SEEN_GAME,
    SEEN_CHARGEN,
    SEEN_LEVELUP,
    SEEN_WATCHLIST,
    SEEN_PASS2,
    SEEN_PASS,
    SEEN_NAME,
    SEEN_WAIT,
    SEEN_MESSAGE,
    SEEN_MENU_ANON,
    SEEN_MENU_USER,
    SEEN_OPTIONS,
    SEEN_NH_PICK, /* NetHack: "Shall I pick ... for you?", "Is this ok?" */
    SEEN_NH_MORE, /* NetHack: a --More-- */
} seen_t;

/* A text on a row identifies a screen; the first match wins (the menu
 * header on row 3 shows under the prompts too, so it comes last). */
static const struct {
    int row;
    const char *text;
    seen_t seen;
} SCREENS[] = {
    {VT_H - 1, "You are dead.", SEEN_OVER}, /* where the help line was */
    {VT_H - 1, "You won!", SEEN_OVER},
    {VT_H - 1, "You quit.", SEEN_OVER},
    {VT_H - 2, "  HP ", SEEN_GAME}, /* the status line */
    {1, "who are you? Choose a", SEEN_CHARGEN},
    {1, "  Options", SEEN_OPTIONS},
    {1, "choose a gift", SEEN_LEVELUP},
    {1, "Live games", SEEN_WATCHLIST},
    {8, "Password again: ", SEEN_PASS2},
    {8, "Password: ", SEEN_PASS},
    {8, "Name: ", SEEN_NAME},
    {5, "One moment...", SEEN_WAIT},
    {-1, "Press any key.", SEEN_MESSAGE}, /* two rows under a notice's last line */
    {3, "Not logged in.", SEEN_MENU_ANON},
    {3, "Logged in as ", SEEN_MENU_USER},
};
#define MSG_ROW_MENU   11 /* the main menu's message, logged out */
#define MSG_ROW_PROMPT 10
#define WL_FIRST_ROW   4
#define WL_ROWS        15

/* NetHack's screens, before Warren's (a hosted game covers the menus). */
static seen_t seen_hosted(const sess_t *s)
{
    for (int y = 0; y < VT_H; y++) {
        const char *r = vt_row(&s->vt, y);
        if (strstr(r, "Shall I pick") || strstr(r, "Is this ok?"))
            return SEEN_NH_PICK;
        if (strstr(r, "--More--"))
            return SEEN_NH_MORE;
    }
    /* its status lines; a watcher's bottom row is the watch line */
    for (int y = VT_H - 3; y < VT_H; y++)
        if (strstr(vt_row(&s->vt, y), "Dlvl:") || strstr(vt_row(&s->vt, y), " St:"))
            return SEEN_GAME;
    return SEEN_NOTHING;
}

static bool screen_shows(const sess_t *s, const char *text);

static seen_t seen_now(const sess_t *s)
{
    seen_t h = s->L->o.hosted ? seen_hosted(s) : SEEN_NOTHING;
    if (h != SEEN_NOTHING)
        return h;
    for (size_t i = 0; i < sizeof SCREENS / sizeof SCREENS[0]; i++)
        if (SCREENS[i].row < 0 ? screen_shows(s, SCREENS[i].text)
                               : strstr(vt_row(&s->vt, SCREENS[i].row), SCREENS[i].text) != NULL)
            return SCREENS[i].seen;
    return SEEN_NOTHING;
}

/* ---- output ------------------------------------------------------------------- */

static void on_written(uv_write_t *w, int status)
{
    (void)status; /* a failed write shows up as a read error */
    free(w);
}

static void sess_lost(sess_t *s, const char *why);

/* Telnet-encoded bytes to the socket: at once if the kernel takes them,
 * else the rest is queued. */
static void raw_write(sess_t *s, const char *p, size_t n)
{
    if (!s->open || n == 0)
        return;
    uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
    int r = uv_try_write((uv_stream_t *)&s->tcp, &b, 1);
    if (r == (int)n)
        return;
    if (r < 0 && r != UV_EAGAIN) {
        sess_lost(s, uv_strerror(r));
        return;
    }
    if (r > 0)
        p += r, n -= (size_t)r;
    uv_write_t *w = malloc(sizeof *w + n);
    if (!w) {
        sess_fail(s, "out of memory");
        return;
    }
    memcpy(w + 1, p, n);
    b = uv_buf_init((char *)(w + 1), (unsigned)n);
    if (uv_write(w, (uv_stream_t *)&s->tcp, &b, 1, on_written) < 0) {
        free(w);
        sess_lost(s, "write failed");
    }
}

static void type(sess_t *s, const char *text)
{
    s->typed_ns = uv_hrtime();
    telnet_send(s->tn, text, strlen(text));
}

static void type_line(sess_t *s, const char *text)
{
    char line[64];
    snprintf(line, sizeof line, "%s\r", text);
    type(s, line);
}

/* ---- closing ------------------------------------------------------------------- */

static void on_closed(uv_handle_t *h)
{
    sess_t *s = h->data;
    if (s->tn)
        telnet_free(s->tn);
    s->tn = NULL;
}

void sess_close(sess_t *s)
{
    if (!s->open)
        return;
    s->open = false;
    uv_close((uv_handle_t *)&s->tcp, on_closed);
}

/* The screen's non-blank rows, for a failure report. */
void sess_print_screen(const sess_t *s, FILE *f)
{
    for (int y = 0; y < VT_H; y++) {
        const char *r = vt_row(&s->vt, y);
        int n = VT_W;
        while (n > 0 && r[n - 1] == ' ')
            n--;
        if (n)
            fprintf(f, "  | %.*s\n", n, r);
    }
}

void sess_fail(sess_t *s, const char *why)
{
    if (s->state == SS_FAILED)
        return;
    load_t *L = s->L;
    if (L->reported++ < 3) {
        fprintf(stderr, "warren-load: %s %d %s: %s; its screen:\n",
                s->watcher ? "watcher" : "player", s->idx, s->reached ? "dropped" : "failed", why);
        sess_print_screen(s, stderr);
    }
    s->state = SS_FAILED;
    sess_close(s);
    load_failed(L, s);
}

/* The connection went. With --reconnect a player that had played comes
 * back: connects again, logs in and presses p (sess_tick); its key out
 * then is in doubt (neither answered nor lost). Else the session fails. */
static void sess_lost(sess_t *s, const char *why)
{
    load_t *L = s->L;
    if (!L->o.reconnect || s->watcher || !s->reached || s->state == SS_FAILED ||
        L->phase == PH_DONE || s->rejoin_tries >= REJOIN_TRIES) {
        sess_fail(s, why);
        return;
    }
    if (s->sent_ns) {
        L->outstanding--;
        L->in_doubt++;
        s->sent_ns = 0;
    }
    L->rejoining += !s->rejoining;
    s->rejoining = true;
    s->rejoin_tries++;
    s->state = SS_MENU;
    s->paused = false;
    s->play_ns = 0;
    s->progress_ns = uv_hrtime(); /* the menus' time-out counts from the drop */
    s->rejoin_ns = s->progress_ns + REJOIN_DELAY_NS;
    sess_close(s);
}

static bool screen_shows(const sess_t *s, const char *text)
{
    for (int y = 0; y < VT_H; y++)
        if (strstr(vt_row(&s->vt, y), text))
            return true;
    return false;
}

static void menu_frame(sess_t *s);

void sess_tick(sess_t *s, uint64_t now)
{
    if (s->rejoin_ns && now >= s->rejoin_ns && !s->open && !s->tn) {
        s->rejoin_ns = 0;
        s->tries = s->actions = 0;
        s->leaving = s->picked = false;
        s->rejoin_t0 = now;
        sess_start(s);
        return;
    }
    if (s->watcher && s->open && s->state == SS_MENU && !s->retry_ns &&
        now - s->typed_ns > WATCH_STILL_NS && now - s->progress_ns > WATCH_STILL_NS / 4) {
        s->L->watch_nudges++;
        s->typed_ns = now;
        s->leaving = s->picked = false;
        s->acted = SEEN_NOTHING;
        menu_frame(s);
        return;
    }
    /* the old node's lease has not lapsed yet: a player presses p again */
    if (s->rejoining && s->open && s->state == SS_MENU && s->play_ns &&
        now - s->play_ns > TOLD_RETRY_NS && screen_shows(s, "another server")) {
        s->L->told++;
        s->play_ns = now;
        type(s, "p");
    }
}

/* ---- menus: each screen gets one answer ------------------------------------------ */

static const char *row_text(const sess_t *s, int y, char *out, size_t n)
{
    const char *r = vt_row(&s->vt, y);
    while (*r == ' ')
        r++;
    snprintf(out, n, "%s", r);
    for (size_t k = strlen(out); k > 0 && out[k - 1] == ' '; k--)
        out[k - 1] = 0;
    return out;
}

/* A refusal for a busy password queue is polite: a person would try again
 * in a moment, and so does the session (a while, then it counts as failed). */
enum { BUSY_TRIES = 100 };

static void on_menu_anon(sess_t *s)
{
    char msg[VT_W + 1];
    if (s->watcher) {
        s->leaving = false;
        type(s, "w");
    } else if (s->tries++ == 0)
        type(s, s->rejoining ? "l" : "r"); /* a returning player logs in */
    else if (strstr(row_text(s, MSG_ROW_MENU, msg, sizeof msg), "busy") && s->busy++ < BUSY_TRIES)
        s->retry_ns = uv_hrtime() + (uint64_t)(20 + s->idx % 80) * 1000000u;
    else
        sess_fail(s, msg); /* registration refused */
}

/* The watch list again from its first page: q, then the menu's w. */
static void leave_list(sess_t *s)
{
    type(s, "q");
    s->leaving = true;
    s->acted = SEEN_NOTHING;
    s->actions = 0;
}

void sess_retry(sess_t *s)
{
    s->retry_ns = 0;
    s->actions = 0;   /* the screens of a retry are not a session going round in circles */
    if (s->watcher) { /* its pick refused, or its game not listed: the list again */
        if (seen_now(s) == SEEN_WATCHLIST)
            leave_list(s);
        else
            type(s, "w");
        return;
    }
    s->L->busy++;
    type(s, s->rejoining ? "l" : "r");
}

/* A prompt repeated with a message means the daemon refused what we typed. */
static bool prompt_refused(sess_t *s)
{
    char msg[VT_W + 1];
    if (!row_text(s, MSG_ROW_PROMPT, msg, sizeof msg)[0])
        return false;
    sess_fail(s, msg);
    return true;
}

static void on_name(sess_t *s)
{
    if (!prompt_refused(s))
        type_line(s, s->name);
}

static void on_password(sess_t *s)
{
    if (!prompt_refused(s))
        type_line(s, PASSWORD);
}

/* A player turns the turn counter on before its first game: a wait
 * ('.', sess_key) then changes the screen, so every key gets a frame. */
static void on_menu_user(sess_t *s)
{
    if (s->L->o.hosted) {
        type(s, s->L->o.hosted);
        return;
    }
    type(s, s->opted ? "p" : "o");
    if (s->opted && s->rejoining)
        s->play_ns = uv_hrtime();
    s->opted = true;
}

/* Each screen's answer: its keys, or a function for the screens that need
 * more than keys. */
static const struct {
    seen_t seen;
    const char *keys;
    void (*answer)(sess_t *s);
} ANSWERS[] = {
    {SEEN_MENU_ANON, NULL, on_menu_anon},
    {SEEN_NAME, NULL, on_name},
    {SEEN_PASS, NULL, on_password},
    {SEEN_PASS2, NULL, on_password},
    {SEEN_MENU_USER, NULL, on_menu_user},
    {SEEN_OPTIONS, "nq", NULL}, /* the turn counter on, back */
    {SEEN_CHARGEN, "*", NULL},  /* not a choice: a random race and class */
    {SEEN_LEVELUP, "a", NULL},
    {SEEN_MESSAGE, " ", NULL},
    {SEEN_NH_PICK, "y", NULL},
    {SEEN_NH_MORE, "\x1b", NULL},
};

/* The watch list: the row of player 0's game, or the next page. */
static void pick_game(sess_t *s)
{
    const char *name = s->L->s[s->target].name;
    size_t len = strlen(name);
    for (int y = WL_FIRST_ROW; y < WL_FIRST_ROW + WL_ROWS; y++) {
        const char *r = vt_row(&s->vt, y);
        if (r[3] == ')' && !strncmp(r + 5, name, len) && r[5 + len] == ' ') {
            char key[2] = {r[2], 0};
            type(s, key);
            s->picked = true;
            s->retry_ns = 0;
            return;
        }
    }
    int page, pages;
    const char *p = strstr(vt_row(&s->vt, 1), "page ");
    if (p && sscanf(p, "page %d/%d", &page, &pages) == 2 && page < pages) {
        s->retry_ns = 0;
        type(s, ">"); /* not on this page; redraws of the list come by themselves */
    } else if (p && page > 1 && !s->retry_ns) {
        /* not listed (a game between nodes is on none's list until it
         * runs again): the list again from its first page a moment later,
         * not at once, which would flood the daemon's input cap */
        s->retry_ns = uv_hrtime() + WATCH_RETRY_NS;
    }
}

/* Whether the watch line (the bottom row) names the watcher's player:
 * a list that changed between reading a row and its letter arriving
 * picks a neighbour. "Watching NAME, game ..." for Warren's game,
 * "Watching NAME play GAME, ..." for a hosted one. */
static bool watching_target(const sess_t *s)
{
    char want[64];
    int n = snprintf(want, sizeof want, "Watching %s", s->L->s[s->target].name);
    const char *at = strstr(vt_row(&s->vt, VT_H - 1), want);
    return at && n > 0 && (at[n] == ',' || at[n] == ' ');
}

static void to_play(sess_t *s)
{
    load_t *L = s->L;
    if (s->rejoining) { /* back in its game */
        samples_push(&L->resume, uv_hrtime() - s->rejoin_t0);
        s->rejoining = false;
        s->rejoin_tries = 0;
        L->rejoined++;
        L->rejoining--;
    }
    if (s->watcher) {
        /* the game's screen as it is now: its player's frames before
         * this one are not this watcher's to time */
        s->seen_seq = L->s[s->target].frame_seq;
        if (s->gone_ns)
            samples_push(&L->wback, uv_hrtime() - s->gone_ns);
        s->gone_ns = 0;
    }
    s->state = SS_PLAY;
    s->acted = SEEN_GAME;
    s->actions = 0;
    load_playing(s->L, s);
}

/* FNV-1a over the rows: a new screen of the same kind. */
static uint32_t screen_sig(const sess_t *s)
{
    uint32_t h = 2166136261u;
    for (int y = 0; y < VT_H; y++)
        for (const char *c = vt_row(&s->vt, y); *c; c++)
            h = (h ^ (uint8_t)*c) * 16777619u;
    return h;
}

static void menu_frame(sess_t *s)
{
    seen_t seen = seen_now(s);
    if (s->leaving && seen != SEEN_MENU_ANON)
        return; /* its q is on its way: the menu comes */
    if (seen == SEEN_MENU_ANON && s->watcher && s->picked && !s->retry_ns) {
        /* its pick was refused with a message (its node went away, or the
         * game moved here): a moment later, the watch list again */
        s->picked = false;
        s->acted = SEEN_MENU_ANON;
        s->retry_ns = uv_hrtime() + WATCH_RETRY_NS;
        return;
    }
    if (seen == SEEN_GAME && s->watcher && s->picked && !watching_target(s)) {
        type(s, "q"); /* the list moved under the letter: another game; again */
        s->leaving = true;
        s->picked = false;
        s->acted = SEEN_NOTHING;
        return;
    }
    if (seen == SEEN_GAME && (!s->watcher || s->picked)) {
        to_play(s);
        return;
    }
    /* the list again after a pick: the game left it before the letter
     * came (a letter that reaches the game instead is ignored there) */
    if (seen == SEEN_WATCHLIST && s->watcher) {
        s->picked = false;
        pick_game(s);
        return;
    }
    /* NetHack shows the same kind of screen again (a second --More--) */
    uint32_t sig = s->L->o.hosted ? screen_sig(s) : 0;
    if (seen == (seen_t)s->acted && sig == s->sig)
        return;
    s->acted = seen;
    s->sig = sig;
    if (seen == SEEN_CHARGEN) {           /* a new game: its keys count from 0 */
        s->L->rejoin_new += s->rejoining; /* a returning player's game was lost */
        s->acked = 0;
    }
    if (seen != SEEN_NOTHING && seen != SEEN_WAIT && ++s->actions > MENU_ACTIONS) {
        sess_fail(s, "stuck in the menus");
        return;
    }
    for (size_t i = 0; i < sizeof ANSWERS / sizeof ANSWERS[0]; i++)
        if (ANSWERS[i].seen == seen) {
            if (ANSWERS[i].answer)
                ANSWERS[i].answer(s);
            else
                type(s, ANSWERS[i].keys);
            return;
        }
}

/* ---- play --------------------------------------------------------------------------- */

/* Moves and waits, so that every key gets a frame: a move only onto the
 * floor beside the player (the cursor), where it spends time and moves the
 * @; else a wait, which spends a whole turn and so changes the turn count.
 * (A step into a wall would change nothing and get no frame.) Player i
 * starts the pattern at its i-th key (load.c), unless --in-step. */
static const char KEYS[] = "h.l.";

/* NetHack's moves; the opposite of MOVES[i] is MOVES[i ^ 1]. */
static const struct {
    char key;
    int dx, dy;
} MOVES[] = {{'h', -1, 0},  {'l', 1, 0}, {'j', 0, 1},  {'k', 0, -1},
             {'y', -1, -1}, {'n', 1, 1}, {'u', 1, -1}, {'b', -1, 1}};
#define NMOVES (int)(sizeof MOVES / sizeof MOVES[0])

/* Back where it came from first (it could stand there), else the first
 * direction with something beside the @ that is not rock or a wall.
 * NetHack's --More-- gets a space, its yes-or-no questions a no, any other
 * question (the top row asks) Esc: answers, not moves, so not timed (a
 * lone Esc also waits out the telnet gateway's ESC_DELAY_MS). */
static char hosted_key(sess_t *s)
{
    const char *top = vt_row(&s->vt, 0);
    if (seen_now(s) == SEEN_NH_MORE)
        return ' ';
    if (strstr(top, "[yn"))
        return 'n';
    if (strstr(top, "? "))
        return '\x1b';
    for (int k = 0; k <= NMOVES; k++) {
        int i = k == 0 ? s->dir ^ 1 : (s->dir + k) % NMOVES;
        char c = vt_near_cursor(&s->vt, MOVES[i].dx, MOVES[i].dy);
        if (c && !strchr(" |-", c)) {
            s->dir = i;
            return MOVES[i].key;
        }
    }
    return 's'; /* walled in: search */
}

void sess_key(sess_t *s, uint64_t due)
{
    load_t *L = s->L;
    char key[2] = {KEYS[s->keyno++ % (sizeof KEYS - 1)], 0};
    if (key[0] != '.' && vt_near_cursor(&s->vt, key[0] == 'h' ? -1 : 1, 0) != '.')
        key[0] = '.';
    if (seen_now(s) == SEEN_LEVELUP)
        key[0] = 'a'; /* the gift screen takes only its choices */
    bool move = true;
    if (L->o.hosted) {
        key[0] = hosted_key(s);
        move = strchr("hjklyubn", key[0]) && !strstr(vt_row(&s->vt, 0), "[yn");
        L->answers += !move && due >= L->t_meas && due < L->t_end;
    }
    s->sent_ns = uv_hrtime();
    if (!due)
        due = s->sent_ns;
    s->measured = move && due >= L->t_meas && due < L->t_end;
    L->sent += s->measured;
    L->outstanding++;
    type(s, key);
}

/* Back to the menus (the game ended): no key until in play again, since
 * a key now would be answered by the menu. */
static void leave_play(sess_t *s)
{
    s->state = SS_MENU;
    s->picked = false;
    s->progress_ns = uv_hrtime();
    s->L->games_ended += !s->watcher;
    s->L->watch_ends += s->watcher; /* its game ended or went: told, it picks again */
    if (s->watcher)
        s->gone_ns = s->progress_ns;
    menu_frame(s);
}

static void answered(sess_t *s, uint64_t now)
{
    load_t *L = s->L;
    if (s->measured) {
        samples_push(&L->lat, now - s->sent_ns);
        load_timed(L, s->sent_ns, now - s->sent_ns);
        L->answered++;
    }
    if (L->phase == PH_DETACH && s->idx == 0)
        load_detach_answer(L, now - s->sent_ns);
    L->outstanding--;
    s->key_ns = s->sent_ns;
    s->sent_ns = 0;
    s->acked++;
    s->frame_ns = now;
    s->frame_seq++;
}

/* A watcher's frame, timed from its player's. Read before the player's
 * own (both in the same poll), it counts as no delay. */
static void watched(sess_t *s, uint64_t now)
{
    load_t *L = s->L;
    const sess_t *p = &L->s[s->target];
    if (p->frame_seq != s->seen_seq) {
        if (p->frame_ns >= L->t_meas && L->phase != PH_RAMP) {
            samples_push(&L->wdel, now - p->frame_ns);
            if (p->key_ns)
                samples_push(&L->wkey, now - p->key_ns);
        }
        s->seen_seq = p->frame_seq;
    } else if (p->sent_ns && p->measured) {
        samples_push(&L->wdel, 0);
        s->seen_seq = p->frame_seq + 1;
    }
}

/* The daemon's storage notice over a paused game's last frame: the key out
 * may be held (stored and answered later) or dropped, so it is neither
 * answered nor lost; no key goes out until a frame without the notice. */
static bool paused_frame(sess_t *s)
{
    s->paused = strstr(vt_row(&s->vt, 0), "Your game is paused") != NULL;
    if (s->paused && s->sent_ns && !s->watcher) {
        s->L->outstanding--;
        s->L->in_doubt++;
        s->sent_ns = 0;
    }
    return s->paused;
}

static void play_frame(sess_t *s, uint64_t now)
{
    if (paused_frame(s))
        return;
    bool was_key = s->sent_ns != 0;
    seen_t seen = seen_now(s);
    if (was_key && !s->watcher && seen == SEEN_NOTHING && !s->L->o.hosted) {
        s->L->outstanding--; /* a goodbye over the game, not the key's frame */
        s->L->in_doubt++;
        s->sent_ns = 0;
        was_key = false;
    } else if (was_key && !s->watcher) {
        answered(s, now);
    }
    /* a hosted game's own screens (a --More--, a cleared one) are still play */
    bool hosted =
        s->L->o.hosted && (seen == SEEN_NH_MORE || seen == SEEN_NH_PICK || seen == SEEN_NOTHING);
    if (seen != SEEN_GAME && seen != SEEN_LEVELUP && !hosted) {
        leave_play(s);
        return;
    }
    if (s->watcher)
        watched(s, now);
    else if (was_key)
        load_answered(s->L, s);
}

/* ---- input ----------------------------------------------------------------------------- */

static void on_telnet(telnet_t *tn, telnet_event_t *ev, void *ud)
{
    sess_t *s = ud;
    static const char naws[4] = {0, VT_W, 0, VT_H};
    switch (ev->type) {
    case TELNET_EV_DATA:
        vt_feed(&s->vt, ev->data.buffer, ev->data.size);
        s->framed |= ev->data.size > 0;
        break;
    case TELNET_EV_SEND: raw_write(s, ev->data.buffer, ev->data.size); break;
    case TELNET_EV_DO:
        if (ev->neg.telopt == TELNET_TELOPT_NAWS)
            telnet_subnegotiation(tn, TELNET_TELOPT_NAWS, naws, sizeof naws);
        break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd == TELNET_TTYPE_SEND)
            telnet_ttype_is(tn, s->L->o.term);
        break;
    case TELNET_EV_ERROR: sess_fail(s, ev->error.msg); break;
    default: break;
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    sess_t *s = h->data;
    (void)hint;
    b->base = s->L->rbuf;
    b->len = sizeof s->L->rbuf;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    sess_t *s = st->data;
    if (n < 0) {
        sess_lost(s, n == UV_EOF ? "closed by the daemon" : uv_strerror((int)n));
        return;
    }
    uint64_t now = uv_hrtime();
    s->framed = false;
    telnet_recv(s->tn, b->base, (size_t)n);
    if (!s->framed || s->state == SS_FAILED)
        return;
    if (s->state == SS_PLAY) {
        play_frame(s, now);
    } else {
        s->progress_ns = now;
        menu_frame(s);
    }
}

/* ---- connecting ---------------------------------------------------------------------------- */

/* What we agree to: our window size and terminal type; the daemon echoes
 * and suppresses go-ahead; 8-bit both ways. */
static const telnet_telopt_t TELOPTS[] = {
    {TELNET_TELOPT_NAWS, TELNET_WILL, TELNET_DONT}, {TELNET_TELOPT_TTYPE, TELNET_WILL, TELNET_DONT},
    {TELNET_TELOPT_ECHO, TELNET_WONT, TELNET_DO},   {TELNET_TELOPT_SGA, TELNET_WILL, TELNET_DO},
    {TELNET_TELOPT_BINARY, TELNET_WILL, TELNET_DO}, {-1, 0, 0},
};

static void on_connect(uv_connect_t *req, int status)
{
    sess_t *s = req->data;
    if (status < 0) {
        sess_fail(s, uv_strerror(status));
        return;
    }
    if (s->state == SS_FAILED)
        return;
    uv_tcp_nodelay(&s->tcp, 1);
    uv_read_start((uv_stream_t *)&s->tcp, on_alloc, on_read);
}

void sess_start(sess_t *s)
{
    load_t *L = s->L;
    vt_init(&s->vt);
    s->acted = SEEN_NOTHING;
    s->state = SS_MENU;
    s->progress_ns = uv_hrtime();
    s->tn = telnet_init(TELOPTS, on_telnet, 0, s);
    uv_tcp_init(L->loop, &s->tcp);
    s->tcp.data = s;
    s->creq.data = s;
    s->open = true;
    if (!s->tn) {
        sess_fail(s, "out of memory");
        return;
    }
    const struct sockaddr_in *to = s->watcher && L->o.watch_host ? &L->waddr : &L->addr;
    int ret = 0;
    if (L->o.bind) { /* --bind: the sessions spread over bind_count source addresses */
        struct sockaddr_in from = L->baddr;
        from.sin_addr.s_addr =
            htonl(ntohl(from.sin_addr.s_addr) + (uint32_t)(s->idx % L->o.bind_count));
        ret = uv_tcp_bind(&s->tcp, (const struct sockaddr *)&from, 0);
    }
    if (ret == 0)
        ret = uv_tcp_connect(&s->creq, &s->tcp, (const struct sockaddr *)to, on_connect);
    if (ret < 0)
        sess_fail(s, uv_strerror(ret));
}

bool sess_following(const sess_t *s)
{
    /* in play, a watcher was on its target (a hosted game's bottom row
     * names it only for a while) */
    return s->watcher && s->state == SS_PLAY && s->picked;
}
