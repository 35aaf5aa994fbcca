/* msg — the message log: repeats fold into "(x2)", a key dismisses what
 * was shown, messages that overflow the line wait behind --More--, and
 * Ctrl-P opens the history screen (rules.c's command). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "world.h"

void world_msg(game_t *g, const char *fmt, ...)
{
    char text[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    uint64_t turn = g->sched.now / SCHED_MOVE;
    msg_t *last = g->nmsg ? &g->log[(g->nmsg - 1) % MSG_LOG] : NULL;
    /* the same words again before a key fold into "(x2)" */
    if (last && g->nmsg > g->msg_seen && !strcmp(last->text, text) && last->repeat < 999) {
        last->repeat++;
        return;
    }
    msg_t *m = &g->log[g->nmsg % MSG_LOG];
    memcpy(m->text, text, sizeof text);
    m->turn = turn;
    m->repeat = 1;
    g->nmsg++;
    if (g->nmsg - g->msg_seen > MSG_LOG)
        g->msg_seen = g->nmsg - MSG_LOG; /* older ones are gone */
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
        int n = msg_format(&g->log[i % MSG_LOG], one, sizeof one) + (len ? 1 : 0);
        if (len + n + more <= MSG_WIDTH)
            fit++;
        len += n;
    }
    if (len > MSG_WIDTH)
        *all = false;
    return fit ? fit : (i > from ? 1 : 0);
}

bool msg_key(game_t *g)
{
    if (g->prompt == PROMPT_HISTORY) {
        g->prompt = PROMPT_NONE;
        return true;
    }
    if (g->prompt != PROMPT_MORE) {
        g->msg_seen = g->nmsg; /* a key dismisses what was shown */
        return false;
    }
    bool all;
    g->msg_seen += msg_fit(g, g->msg_seen, &all);
    msg_fit(g, g->msg_seen, &all);
    if (all)
        g->prompt = PROMPT_NONE;
    return true;
}

void msg_after_input(game_t *g)
{
    bool all;
    if (g->prompt != PROMPT_NONE)
        return;
    msg_fit(g, g->msg_seen, &all);
    if (!all)
        g->prompt = PROMPT_MORE;
}
