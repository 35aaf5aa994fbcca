/* playkeys — Warren's keys in a game, direct or behind a prefix (playkeys.h). */
#include "playkeys.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "chat.h"
#include "server.h"
#include "session.h"

/* A hosted program is not saved when its player leaves: it runs on for
 * the grace period. */
static void act_leave(conn_t *c, session_t *s)
{
    char said[160];
    if (!s->game)
        snprintf(said, sizeof said, "%s runs on without you for a while; choose it again to go on.",
                 s->kind_name);
    conn_detach(c, s->game ? SESSION_DETACH_SAID : said);
}

static void act_say(conn_t *c, session_t *s)
{
    (void)c;
    chat_start_line(s);
}

static void act_who(conn_t *c, session_t *s)
{
    (void)c;
    chat_who(s);
}

static void act_chat(conn_t *c, session_t *s)
{
    (void)c;
    chat_toggle(s);
}

typedef struct {
    char letter;      /* after the prefix (either case) */
    uint32_t ctrl;    /* the direct key; after the prefix too */
    const char *what; /* for the help line */
    void (*act)(conn_t *c, session_t *s);
} playkey_t;

static const playkey_t KEYS[] = {
    {'x', 0x18, "leave", act_leave},
    {'e', 0x05, "say", act_say},
    {'w', 0x17, "who", act_who},
    {'t', 0x14, "chat", act_chat},
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])

/* The row k names: its Ctrl form, or after a prefix its letter too. */
static const playkey_t *row_of(key_event_t k, bool letters)
{
    for (size_t i = 0; i < NKEYS && !k.mods; i++) {
        bool letter = letters && k.code < 0x80 && tolower((int)k.code) == KEYS[i].letter;
        if (k.code == KEYS[i].ctrl || letter)
            return &KEYS[i];
    }
    return NULL;
}

char *playkeys_name(uint32_t prefix, char letter, char *out, size_t n)
{
    if (prefix) {
        char p[16];
        snprintf(out, n, "%s %c", key_name((key_event_t){prefix, 0}, p, sizeof p), letter);
    } else
        snprintf(out, n, "Ctrl-%c", toupper((unsigned char)letter));
    return out;
}

/* The line of help for a prefix: "^\ then: x leave, e say, ...". */
static void playkeys_help(uint32_t prefix, char *out, size_t n)
{
    char p[16];
    key_name((key_event_t){prefix, 0}, p, sizeof p);
    size_t at = (size_t)snprintf(out, n, "%s then:", p);
    for (size_t i = 0; i < NKEYS && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, " %c %s,", KEYS[i].letter, KEYS[i].what);
    if (at < n)
        snprintf(out + at, n - at, " %s sends %s", p, p);
}

void playkeys_hint(uint32_t prefix, char *out, size_t n)
{
    char leave[24], help[24];
    playkeys_name(prefix, 'x', leave, sizeof leave);
    if (prefix)
        snprintf(out, n, "%s: back here, %s: keys", leave,
                 playkeys_name(prefix, '?', help, sizeof help));
    else
        snprintf(out, n, "%s: back here", leave);
}

/* The key after the prefix: Warren's action, the prefix for the game
 * (false), or the help. */
static bool after_prefix(conn_t *c, session_t *s, key_event_t k)
{
    s->key_armed = 0;
    if (k.code == s->key_prefix && !k.mods)
        return false;
    const playkey_t *row = row_of(k, true);
    if (row) {
        row->act(c, s);
        return true;
    }
    char help[96];
    playkeys_help(s->key_prefix, help, sizeof help);
    chat_notice(s, help);
    return true;
}

/* A prefix pressed on another connection (the game was taken over since)
 * does not carry over. */
bool playkeys_take(conn_t *c, session_t *s, key_event_t k)
{
    if (s->key_armed && s->key_armed == c->id)
        return after_prefix(c, s, k);
    if (s->key_prefix) {
        bool prefix = k.code == s->key_prefix && !k.mods;
        s->key_armed = prefix ? c->id : 0;
        return prefix;
    }
    const playkey_t *row = row_of(k, false);
    if (!row && k.mods == KEYMOD_ALT) /* Alt-W for Ctrl-W: browsers keep Ctrl-W, Ctrl-T */
        row = row_of((key_event_t){k.code, 0}, true);
    if (row)
        row->act(c, s);
    return row != NULL;
}
