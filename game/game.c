/* game — the engine's public face (game.h): a game's life from game_new
 * to game_free, and each key's way through it. The other entry points
 * hand over to the module that does the work (render, end, snapshot). */
#include "game.h"
#include <stdio.h>
#include "chargen.h"
#include "combat.h"
#include "end.h"
#include "itemui.h"
#include "level.h"
#include "msg.h"
#include "prompt.h"
#include "render.h"
#include "snapshot.h"
#include "start.h"
#include "travel.h"
#include "turn.h"
#include "vision.h"
#include "world.h"

game_t *game_new(const content_t *c, uint64_t seed, const game_options_t *opt)
{
    if (!c)
        return NULL;
    game_t *g = start_empty(c, seed);
    if (!g)
        return NULL;
    if (opt && opt->name[0])
        snprintf(g->name, sizeof g->name, "%s", opt->name);
    g->gold_by_hand = opt && opt->gold_by_hand;
    if (start_world(g) < 0) {
        game_free(g);
        return NULL;
    }
    return g;
}

void game_free(game_t *g)
{
    if (!g)
        return;
    for (int i = 0; i < LEVEL_IDS; i++)
        level_free(g, g->levels[i]);
    atlas_free(g);
    reg_free(&g->reg);
    sched_free(&g->sched);
    gfree(&g->al, g->ms);
    gfree(&g->al, g->log);
    gfree(&g->al, g->dmap);
    item_state_free(g);
    render_free(g);
    galloc_t al = g->al;
    gfree(&al, g);
}

/* A --More-- stands over a list the player is asked to pick from (a
 * scroll's "Identify which item?"), and the key is not one that pages. */
static bool more_over_list(const game_t *g, key_event_t key)
{
    return g->prompt == PROMPT_MORE && g->items.screen != ITEMUI_NONE && key.code != ' ' &&
           key.code != KEY_ENTER && key.code != KEY_ESC;
}

/* The key goes to the current prompt's row (prompt.h); unless it only
 * paged or closed a screen, the world then runs until the player's next
 * turn and the input's loose ends are tied: vision, uniques seen, a
 * level-up gift owed, --More--. */
game_state_t game_input(game_t *g, script_vm_t *vm, key_event_t key)
{
    g->leave = 0;
    if (g->state != GAME_RUNNING) {
        if (g->prompt == PROMPT_MORE) /* the last words, a page a key */
            msg_more_key(g, key);
        return (game_state_t)g->state;
    }
    g->keys++;
    const prompt_t *pr = prompt_of(g);
    if (pr->flags & PF_PAGING) {
        bool answers = more_over_list(g, key);
        pr->key(g, key);
        vision_anchor(g);
        if (!answers || g->prompt != PROMPT_NONE)
            return (game_state_t)g->state;
        pr = prompt_of(g); /* the --More-- read to its end: the key picks from the list too */
    }
    msg_dismiss(g);
    g->own_line = 0;
    g->vm = vm;
    int cost = pr->key(g, key);
    turn_advance(g, cost); /* sees again after the world moved */
    travel_keep_going(g);
    g->vm = NULL;
    if (cost <= 0)
        vision_update(g);
    vision_anchor(g);
    combat_unique_seen(g);
    if (chargen_owed(g) && g->prompt == PROMPT_NONE && g->state == GAME_RUNNING)
        g->prompt = PROMPT_WELCOME; /* its --More--, then the choices */
    msg_after_input(g);
    return (game_state_t)g->state;
}

void game_render(game_t *g, screen_t *s, const game_view_t *view)
{
    render_world(g, s, view);
}

const screen_t *game_frame(game_t *g, int w, int h, const game_view_t *view)
{
    return render_frame(g, w, h, view);
}

void game_status(const game_t *g, game_status_t *st)
{
    end_status(g, st);
}

void game_dump(const game_t *g, buf_t *out)
{
    end_dump(g, out);
}

size_t game_milestone_count(const game_t *g)
{
    return g->nms;
}

const game_milestone_t *game_milestone(const game_t *g, size_t i)
{
    return i < g->nms ? &g->ms[i] : NULL;
}

uint64_t game_seed(const game_t *g)
{
    return g->seed;
}

uint64_t game_hash(const game_t *g)
{
    return snapshot_hash(g);
}

int game_snapshot(const game_t *g, buf_t *out)
{
    return snapshot_write(g, out);
}

int game_snapshot_state(const game_t *g, buf_t *state)
{
    return snapshot_state(g, state);
}

int game_snapshot_pack(const buf_t *state, buf_t *out)
{
    return snapshot_pack(state, out);
}

game_t *game_load(const content_t *c, const uint8_t *blob, size_t len, char *err, size_t errlen)
{
    return snapshot_read(c, blob, len, err, errlen);
}
