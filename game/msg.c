/* msg — the message log, --More--, the history screen and milestones
 * (see msg.h). */
#include "msg.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "prompt.h"

int msg_reserve(game_t *g, uint32_t n)
{
    if (n > MSG_LOG)
        n = MSG_LOG;
    if (n <= g->log_cap)
        return 0;
    uint32_t cap = g->log_cap ? g->log_cap : 16;
    while (cap < n)
        cap *= 2;
    msg_t *log = grealloc(&g->al, g->log, cap * sizeof *log);
    if (!log)
        return -1;
    g->log = log;
    g->log_cap = cap;
    return 0;
}

const msg_t *msg_at(const game_t *g, uint32_t i)
{
    return &g->log[i % MSG_LOG]; /* below MSG_LOG messages the ring is still a plain array */
}

/* The longest message that shows whole on the line with " --More--" after it. */
#define MSG_SPLIT (MSG_WIDTH - (int)(sizeof MORE_TEXT - 1))

static void log_one(game_t *g, const char *text)
{
    g->said++;
    msg_t *last = g->nmsg ? &g->log[(g->nmsg - 1) % MSG_LOG] : NULL;
    /* the same words again fold into "(x2)"; a folded message already
     * read shows again */
    if (last && !strcmp(last->text, text) && last->repeat < 9999) {
        last->repeat++;
        if (g->msg_seen == g->nmsg)
            g->msg_seen--;
        return;
    }
    if (msg_reserve(g, g->nmsg + 1) < 0)
        return;
    msg_t *m = &g->log[g->nmsg % MSG_LOG];
    snprintf(m->text, sizeof m->text, "%s", text);
    m->turn = g->sched.now / SCHED_MOVE;
    m->repeat = 1;
    g->nmsg++;
    if (g->nmsg - g->msg_seen > MSG_LOG)
        g->msg_seen = g->nmsg - MSG_LOG; /* older ones are gone */
}

/* Words too many for the line are logged as more than one message, broken
 * between words, so --More-- pages them instead of the screen's edge
 * cutting them off. */
void msg_add(game_t *g, const char *fmt, ...)
{
    char text[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *t = text;
    size_t len = strlen(t);
    while (len > MSG_SPLIT) {
        size_t cut = MSG_SPLIT;
        while (cut > 0 && t[cut] != ' ')
            cut--;
        if (!cut) /* one word longer than the line: left whole */
            break;
        char part[MSG_LEN];
        snprintf(part, sizeof part, "%.*s", (int)cut, t);
        log_one(g, part);
        t += cut + 1, len -= cut + 1;
    }
    log_one(g, t);
}

void msg_milestone(game_t *g, const char *kind, const char *fmt, ...)
{
    if (g->nms >= MILESTONES_MAX)
        return;
    if (g->nms == g->ms_cap) {
        uint32_t cap = g->ms_cap ? g->ms_cap * 2 : 4;
        game_milestone_t *ms = grealloc(&g->al, g->ms, cap * sizeof *ms);
        if (!ms)
            return;
        g->ms = ms;
        g->ms_cap = cap;
    }
    game_milestone_t *m = &g->ms[g->nms++];
    memset(m, 0, sizeof *m);
    m->turn = g->sched.now / SCHED_MOVE;
    m->depth = atlas_danger(g, g->depth);
    snprintf(m->kind, sizeof m->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof m->text, fmt, ap);
    va_end(ap);
}

int msg_format(const msg_t *m, char *out, size_t n)
{
    return m->repeat > 1 ? snprintf(out, n, "%s (x%u)", m->text, m->repeat)
                         : snprintf(out, n, "%s", m->text);
}

uint32_t msg_fit(const game_t *g, uint32_t from, bool *all)
{
    int len = 0, more = (int)strlen(MORE_TEXT);
    uint32_t fit = 0, i = from;
    *all = true;
    for (; i < g->nmsg; i++) {
        char one[MSG_LEN + 16];
        int n = msg_format(msg_at(g, i), one, sizeof one) + (len ? 1 : 0);
        if (len + n + more <= MSG_WIDTH)
            fit++;
        len += n;
    }
    if (len > MSG_WIDTH)
        *all = false;
    return fit ? fit : (i > from ? 1 : 0);
}

bool msg_restate(game_t *g, uint32_t at)
{
    uint32_t last = g->nmsg - 1;
    if (g->nmsg < 2 || at < g->msg_seen || at >= last || last - at >= MSG_LOG)
        return false;
    g->log[at % MSG_LOG] = g->log[last % MSG_LOG];
    g->nmsg--;
    return true;
}

void msg_dismiss(game_t *g)
{
    g->msg_seen = g->nmsg;
}

void msg_alert(game_t *g)
{
    if (g->prompt == PROMPT_NONE && g->state == GAME_RUNNING && g->nmsg > g->msg_seen)
        g->prompt = PROMPT_MORE;
}

void msg_after_input(game_t *g)
{
    bool all;
    if (g->state == GAME_DEAD) { /* "You die..." waits on the player's key */
        g->prompt = PROMPT_MORE;
        return;
    }
    if (g->prompt != PROMPT_NONE)
        return;
    msg_fit(g, g->msg_seen, &all);
    if (!all)
        g->prompt = PROMPT_MORE;
}

void msg_draw_new(const game_t *g, screen_t *s, int x, int y)
{
    char line[MSG_WIDTH * 2] = "";
    size_t len = 0;
    for (uint32_t i = g->msg_seen; i < g->nmsg && len < sizeof line; i++) {
        char one[MSG_LEN + 16];
        msg_format(msg_at(g, i), one, sizeof one);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", len ? " " : "", one);
    }
    screen_text(s, x, y, STYLE_DEFAULT, line);
}

int msg_history(game_t *g)
{
    g->prompt = PROMPT_HISTORY;
    g->page = 0;
    return 0;
}

static int history_pages(const game_t *g)
{
    uint32_t kept = g->nmsg < MSG_LOG ? g->nmsg : MSG_LOG;
    return kept ? (int)((kept + PAGE_ROWS - 1) / PAGE_ROWS) : 1;
}

/* Pages go back in time: the newest first. */
int msg_history_key(game_t *g, key_event_t k)
{
    prompt_page_key(g, k, history_pages(g));
    return 0;
}

/* Any key shows the next line's worth; the prompt closes on the last (in
 * a game over, only once the last line was read: it ends on --More--).
 * Esc in a running game skips the rest of the turn's messages, as
 * NetHack's does (the message history keeps them). */
int msg_more_key(game_t *g, key_event_t k)
{
    bool all;
    if (k.code == KEY_ESC && g->state == GAME_RUNNING) {
        g->msg_seen = g->nmsg;
        g->prompt = PROMPT_NONE;
        return 0;
    }
    g->msg_seen += msg_fit(g, g->msg_seen, &all);
    msg_fit(g, g->msg_seen, &all);
    if (all && (g->state == GAME_RUNNING || g->msg_seen == g->nmsg))
        g->prompt = PROMPT_NONE;
    return 0;
}

/* A history line: the message's turn and words; its width in cells. */
static int history_line(const msg_t *m, char *out, size_t n)
{
    char one[MSG_LEN + 16];
    msg_format(m, one, sizeof one);
    int len = snprintf(out, n, "%5llu  %s", (unsigned long long)m->turn, one);
    return (int)utf8_chars(out, len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1);
}

/* The title of page `page`; its width in cells. */
static int history_title(const game_t *g, int page, char *out, size_t n)
{
    int pages = history_pages(g);
    char keys[64];
    int len = snprintf(out, n, "Message history, page %d of %d (%s)", page + 1, pages,
                       prompt_page_hint(page, pages, "older", "newer", keys, sizeof keys));
    return len < 0 ? 0 : (size_t)len < n ? len : (int)n - 1;
}

int msg_history_width(const game_t *g)
{
    char line[MSG_LEN + 48];
    int w = 0, pages = history_pages(g);
    /* the three hints (first, middle and last page), each as wide as with
     * the last page's number */
    const int at[3] = {0, pages / 2, pages - 1};
    for (int i = 0; i < 3; i++) {
        int t = history_title(g, at[i], line, sizeof line) + snprintf(NULL, 0, "%d", pages) -
                snprintf(NULL, 0, "%d", at[i] + 1);
        w = t > w ? t : w;
    }
    uint32_t kept = g->nmsg < MSG_LOG ? g->nmsg : MSG_LOG;
    for (uint32_t i = g->nmsg - kept; i < g->nmsg; i++) {
        int n = history_line(msg_at(g, i), line, sizeof line);
        w = n > w ? n : w;
    }
    return w;
}

/* A page of PAGE_ROWS messages, oldest at the top; page 0 the newest. */
void msg_history_draw(game_t *g, screen_t *s)
{
    char line[MSG_LEN + 48];
    history_title(g, g->page, line, sizeof line);
    screen_text(s, 0, 0, (style_t){15, SCREEN_DEFAULT_COLOR, ATTR_BOLD}, line);
    uint32_t kept = g->nmsg < MSG_LOG ? g->nmsg : MSG_LOG, back = (uint32_t)g->page * PAGE_ROWS;
    uint32_t end = g->nmsg - (back < kept ? back : kept), first = g->nmsg - kept;
    uint32_t start = end - first > PAGE_ROWS ? end - PAGE_ROWS : first;
    for (uint32_t i = start; i < end; i++) {
        history_line(msg_at(g, i), line, sizeof line);
        screen_text(s, 0, 2 + (int)(i - start), STYLE_DEFAULT, line);
    }
}
