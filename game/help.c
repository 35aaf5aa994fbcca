/* help — the menu of topics, their pages and the cycling help line (see
 * help.h). */
#include "help.h"
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "prompt.h"
#include "sched.h"
#include "world.h"

/* The widest line a topic draws: its box leaves the map's left half up
 * at 80 columns, and a long description wraps under its first word. */
#define HELP_WRAP   56
#define TOPIC_CMDS  12
#define TOPIC_EXTRA 5

typedef struct {
    const char *label, *what;
} help_row_t;

/* A topic lists rows of the command table by label, in its own order,
 * then keys the table does not hold (the host's) and a line of its own. */
typedef struct {
    const char *title;
    const char *cmds[TOPIC_CMDS];
    help_row_t extra[TOPIC_EXTRA];
    const char *note; /* NULL: none */
} topic_t;

static const topic_t TOPICS[] = {
    {"Moving and looking", {"hjklyubn", "HJKLYUBN", ".", "o", "_", ";", "R"}, {{0}}, NULL},
    {"Fighting and shooting",
     {"t", "f", "v", "aiming"},
     {{0}},
     "Walk into a monster to attack it."},
    {"Items", {"g", "i", "e", "w", "W", "P", "T", "d", "q", "r", "z", "E"}, {{0}}, NULL},
    {"Spells and powers",
     {"Z", "^A"},
     {{0}},
     "Wizards and clerics cast from a pool of mana. A wizard's spark (^A) needs "
     "none, reaches 8 steps, and no ward against magic stops it."},
    {"Stairs, doors and the world", {">", "<", "c", "^L", "^D", "p", "M"}, {{0}}, NULL},
    {"What you know", {"C", "\\", "^P", "?"}, {{0}}, NULL},
    {"Watchers, chat, options",
     {"@"},
     {{"^E", "say a line to those watching (on a server)"},
      {"^W", "who is watching"},
      {"^T", "chat shown, hidden, or off (nobody may talk)"},
      {"^X", "save and return to the menu"}},
     "In a browser: Alt-E, Alt-W, Alt-T, Alt-X. The server's menu (o) sets "
     "map tiles, colours, glyphs and the turn counter."},
    {"Saving and quitting",
     {"S", "Q"},
     {{0}},
     "Death is for good: the game ends, its record stays."},
};
#define TOPICS_N ((int)(sizeof TOPICS / sizeof TOPICS[0]))

int help_topics(void)
{
    return TOPICS_N;
}

const char *help_topic_name(int i)
{
    return i >= 0 && i < TOPICS_N ? TOPICS[i].title : NULL;
}

int help_open(game_t *g)
{
    g->prompt = PROMPT_HELP;
    g->page = 0;
    return 0;
}

/* The topic up (-1: the menu, also for a page no topic has). */
static int topic_up(const game_t *g)
{
    return g->page >= 1 && g->page <= TOPICS_N ? g->page - 1 : -1;
}

static void help_close(game_t *g)
{
    g->page = 0;
    g->prompt = PROMPT_NONE;
}

int help_key(game_t *g, key_event_t k)
{
    bool plain = !(k.mods & (KEYMOD_ALT | KEYMOD_CTRL));
    if (topic_up(g) < 0) {
        if (plain && k.code >= 'a' && k.code < 'a' + (uint32_t)TOPICS_N)
            g->page = (uint8_t)(1 + k.code - 'a');
        else
            help_close(g);
    } else if (k.code == KEY_ESC || (plain && (k.code == '?' || k.code == '<'))) {
        g->page = 0; /* Esc goes back one level, as ? and < do: to the topics */
    } else {
        help_close(g);
    }
    return 0;
}

/* text from column x of row y on, wrapped at its spaces into as few rows
 * as HELP_WRAP allows, of about equal length (no word alone on the last);
 * returns the row after it. */
static int help_wrap(screen_t *s, int x, int y, const char *text)
{
    size_t room = (size_t)(HELP_WRAP - x), len = strlen(text);
    size_t rows = (len + room - 1) / room, width = rows > 1 ? (len + rows - 1) / rows + 6 : room;
    width = width < room ? width : room;
    while (strlen(text) > width) {
        size_t cut = width;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        cut = cut ? cut : width;
        char part[HELP_WRAP + 1];
        memcpy(part, text, cut);
        part[cut] = 0;
        screen_text(s, x, y++, STYLE_DEFAULT, part);
        text += cut;
        while (*text == ' ')
            text++;
    }
    screen_text(s, x, y, STYLE_DEFAULT, text);
    return y + 1;
}

static const cmd_t *cmd_labelled(const char *label)
{
    size_t n;
    const cmd_t *t = cmd_table(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].label, label))
            return &t[i];
    return NULL;
}

/* The column where a topic's descriptions start: past its widest key. */
static int topic_column(const topic_t *t)
{
    size_t w = 0;
    for (int i = 0; i < TOPIC_CMDS && t->cmds[i]; i++)
        w = strlen(t->cmds[i]) > w ? strlen(t->cmds[i]) : w;
    for (int i = 0; i < TOPIC_EXTRA && t->extra[i].label; i++)
        w = strlen(t->extra[i].label) > w ? strlen(t->extra[i].label) : w;
    return (int)w + 2;
}

static void topic_draw(const topic_t *t, screen_t *s)
{
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    int col = topic_column(t), y = 1;
    screen_textf(s, 0, 0, hi, "%s (Esc: topics, q returns)", t->title);
    for (int i = 0; i < TOPIC_CMDS && t->cmds[i]; i++) {
        const cmd_t *c = cmd_labelled(t->cmds[i]);
        if (!c)
            continue;
        screen_text(s, 0, y, STYLE_DEFAULT, c->label);
        y = help_wrap(s, col, y, c->what);
    }
    for (int i = 0; i < TOPIC_EXTRA && t->extra[i].label; i++) {
        screen_text(s, 0, y, STYLE_DEFAULT, t->extra[i].label);
        y = help_wrap(s, col, y, t->extra[i].what);
    }
    if (t->note)
        help_wrap(s, 0, y, t->note);
}

/* The menu, NetHack's way: a letter a topic. The list is drawn from the
 * left of s; the view puts it in a box over the map (render.h). */
void help_draw(game_t *g, screen_t *s)
{
    int topic = topic_up(g);
    if (topic >= 0) {
        topic_draw(&TOPICS[topic], s);
        return;
    }
    style_t hi = {15, SCREEN_DEFAULT_COLOR, ATTR_BOLD};
    screen_text(s, 0, 0, hi, "Help: which topic? (Esc returns)");
    for (int i = 0; i < TOPICS_N; i++)
        screen_textf(s, 0, 1 + i, STYLE_DEFAULT, "%c - %s", 'a' + i, TOPICS[i].title);
}
size_t help_line_first(const game_view_t *view)
{
    size_t n;
    cmd_table(&n);
    return (size_t)((view ? view->hint_tick : 0) % n);
}

/* A cursor prompt's own keys, on the help line once its ? asks for them
 * (g->page set; look's top line says "? keys"): shown only when asked,
 * so looking costs the bottom line nothing. */
#define PROMPT_KEYS_N 5
static const struct {
    uint8_t prompt;
    help_row_t keys[PROMPT_KEYS_N];
} PROMPT_KEYS[] = {
    {PROMPT_LOOK,
     {{"hjklyubn", "move the cursor"},
      {"Tab/+ -", "next/previous creature"},
      {"Esc", "leaves"},
      {"< >", "stairs"}}},
};

int help_line_keys(const game_t *g)
{
    for (size_t i = 0; i < sizeof PROMPT_KEYS / sizeof PROMPT_KEYS[0]; i++)
        if (PROMPT_KEYS[i].prompt == g->prompt && g->page)
            return (int)i;
    return -1;
}

/* The rows that fit the bottom line of s, from column x: the column after. */
static int keys_line(screen_t *s, int x, const help_row_t *r, size_t n, style_t st)
{
    for (size_t i = 0; i < n && r[i].label; i++) {
        char one[96];
        int len = snprintf(one, sizeof one, "%s%s %s", x ? "  " : "", r[i].label, r[i].what);
        if (x + len > s->w)
            break;
        x = screen_text(s, x, s->h - 1, st, one);
    }
    return x;
}

/* The line starts one command further as the host's idle clock counts,
 * never on a key or a game turn: keys cost it no bytes. It shows as many
 * commands as fit; under a cursor prompt whose keys were asked for, those. */
int help_line(game_t *g, screen_t *s, const game_view_t *view)
{
    style_t dim = {8, SCREEN_DEFAULT_COLOR, 0};
    if (g->state != GAME_RUNNING)
        return screen_text(s, 0, s->h - 1, dim,
                           g->state == GAME_DEAD  ? "You are dead."
                           : g->state == GAME_WON ? "You won!"
                                                  : "You quit.");
    int keys = help_line_keys(g);
    if (keys >= 0)
        return keys_line(s, 0, PROMPT_KEYS[keys].keys, PROMPT_KEYS_N, dim);
    size_t n;
    const cmd_t *t = cmd_table(&n);
    size_t first = help_line_first(view);
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        const cmd_t *c = &t[(first + i) % n];
        char one[96];
        int len = snprintf(one, sizeof one, "%s%s %s", x ? "  " : "", c->label, c->what);
        if (x + len > s->w)
            break;
        x = screen_text(s, x, s->h - 1, dim, one);
    }
    return x;
}
