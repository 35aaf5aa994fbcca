/* end — how a game ends and what it leaves: victory (the Heartstone
 * brought to safety), the score, the status a lobby shows, and the dump. */
#include "end.h"
#include <stdio.h>
#include <string.h>
#include "ego.h"
#include "msg.h"
#include "pc.h"
#include "prompt.h"
#include "status.h"
#include "world.h"

/* Depth reached, experience, kills, the Heartstone and victory; a quick
 * victory is worth more than a slow one. */
int64_t end_score(const game_t *g)
{
    int64_t s = 100 * (int64_t)g->max_depth + g->pc.xp + 10 * (int64_t)g->pc.kills;
    if (g->pc.heartstone)
        s += 5000;
    if (g->state == GAME_WON) {
        int64_t turns = (int64_t)(g->sched.now / SCHED_MOVE), bonus = 20000 - turns / 5;
        s += bonus > 5000 ? bonus : 5000;
    }
    return s;
}

void end_win(game_t *g)
{
    g->state = GAME_WON;
    snprintf(g->cause, sizeof g->cause, "escaped with the Heartstone");
    msg_add(g, "The hunt breaks off: the Heartstone is safe. You have won!");
    g->score = end_score(g);
    msg_milestone(g, "end", "escaped with the Heartstone");
}

/* src into dst of size bytes, cut to fit, as snprintf's "%s" would: the
 * host asks for the status after every key, and four snprintf calls were
 * a twentieth of a key's instructions in the engine. */
static void status_text(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

void end_status(const game_t *g, game_status_t *st)
{
    memset(st, 0, sizeof *st);
    status_text(st->name, sizeof st->name, g->name);
    status_text(st->race, sizeof st->race, pc_race_name(g));
    status_text(st->cls, sizeof st->cls, pc_class_name(g));
    st->depth = atlas_danger(g, g->depth);
    st->max_depth = g->max_depth;
    st->xl = g->pc.xl ? g->pc.xl : 1;
    const obj_t *p = reg_get(&g->reg, g->player);
    if (p)
        st->hp = p->hp, st->hp_max = p->hp_max;
    st->turn = g->sched.now / SCHED_MOVE;
    st->state = (game_state_t)g->state;
    st->score = g->state == GAME_RUNNING ? end_score(g) : g->score;
    status_text(st->cause, sizeof st->cause, g->cause);
    st->level_changes = g->level_changes;
    st->more = g->state == GAME_DEAD && g->prompt == PROMPT_MORE;
    st->leave = g->leave != 0;
}

void end_sheet(const game_t *g, buf_t *out)
{
    static const char *const AB[AB_COUNT] = {"Str", "Dex", "Con", "Int", "Wis", "Cha"};
    game_status_t st;
    end_status(g, &st);
    buf_printf(out, "%s the %s %s, experience level %d (%d xp)\n", st.name, st.race, st.cls, st.xl,
               g->pc.xp);
    char place[64];
    atlas_place(g, place, sizeof place);
    buf_printf(out, "%s (deepest %d)  HP %d/%d  Mana %d/%d  Turn %llu  Score %lld\n", place,
               st.max_depth, st.hp, st.hp_max, g->pc.mana, g->pc.mana_max,
               (unsigned long long)st.turn, (long long)st.score);
    for (int i = 0; i < AB_COUNT; i++) {
        buf_printf(out, "%s %d", AB[i], g->pc.ab[i]);
        if (g->pc.drain[i])
            buf_printf(out, " (drained from %d)", g->pc.ab[i] + g->pc.drain[i]);
        buf_puts(out, i + 1 < AB_COUNT ? "  " : "\n");
    }
    gear_t k;
    status_stats(g, g->player, false, &k);
    buf_printf(out, "Attack %+d  Defence %d  Armour %d  Fort %+d  Ref %+d  Will %+d  Kills %u\n",
               pc_attack_bonus(g) + k.to_hit, pc_defence(g) + k.defence, pc_armour(g) + k.absorb,
               pc_save(g, SAVE_FORT), pc_save(g, SAVE_REF), pc_save(g, SAVE_WILL), g->pc.kills);
    char resist[64];
    ego_resist_words(g, false, resist, sizeof resist);
    if (resist[0])
        buf_printf(out, "Resists %s\n", resist);
    if (st.cause[0])
        buf_printf(out, "%s\n", st.cause);
}

void end_dump(const game_t *g, buf_t *out)
{
    end_sheet(g, out);
    item_dump(g, out);
    if (g->pc.heartstone)
        buf_puts(out, "  the Heartstone\n");
    buf_puts(out, "\nLast messages:\n");
    uint32_t first = g->nmsg > 20 ? g->nmsg - 20 : 0;
    for (uint32_t i = first; i < g->nmsg; i++) {
        char one[MSG_LEN + 16];
        msg_format(msg_at(g, i), one, sizeof one);
        buf_printf(out, "  %s\n", one);
    }
    buf_puts(out, "\nMilestones:\n");
    for (uint32_t i = 0; i < g->nms; i++)
        buf_printf(out, "  turn %llu, level %d: %s\n", (unsigned long long)g->ms[i].turn,
                   g->ms[i].depth, g->ms[i].text);
    const level_t *lv = g->depth >= 0 && g->depth < LEVEL_IDS ? g->levels[g->depth] : NULL;
    if (!lv)
        return;
    buf_puts(out, "\nMap:\n");
    const obj_t *p = reg_get(&g->reg, g->player);
    for (int y = 0; y < lv->h; y++) {
        for (int x = 0; x < lv->w; x++) {
            uint8_t t = lv->terrain[y * lv->w + x];
            uint32_t ch =
                lv->seen[y * lv->w + x] && t < g->c->n_terrain ? g->c->terrain[t].glyph : ' ';
            if (p && p->x == x && p->y == y)
                ch = '@';
            buf_put_utf8(out, ch);
        }
        buf_putc(out, '\n');
    }
}
