/* turn — the scheduler's functions and the world's run (see turn.h). */
#include "turn.h"
#include "ai.h"
#include "creature.h"
#include "effect.h"
#include "status.h"
#include "vision.h"
#include "world.h"

#define RUN_GUARD 100000 /* events per input: a runaway schedule cannot hang */

typedef void (*sched_fn_t)(game_t *g, const event_t *ev);

/* The player's own turn ends the run (turn_run) before it is called; tests
 * schedule FN_TEST events that do nothing. */
static void fn_nothing(game_t *g, const event_t *ev)
{
    (void)g, (void)ev;
}

static void fn_monster_turn(game_t *g, const event_t *ev)
{
    ai_monster_turn(g, ev->target);
}

static const sched_fn_t TURN_FNS[FN_COUNT] = {
#define TURN_FN_ROW_(n, fn) [FN_##n] = fn,
    SCHED_FN_LIST(TURN_FN_ROW_)
#undef TURN_FN_ROW_
};

void turn_run(game_t *g)
{
    event_t ev;
    for (int i = 0; i < RUN_GUARD && g->state == GAME_RUNNING; i++) {
        if (!sched_pop(&g->sched, &ev))
            return;
        if (ev.fn == FN_PLAYER_TURN && ev.target == g->player)
            return;
        if (ev.fn < FN_COUNT && TURN_FNS[ev.fn])
            TURN_FNS[ev.fn](g, &ev);
    }
}

void turn_advance(game_t *g, int cost)
{
    if (cost <= 0 || g->state != GAME_RUNNING)
        return;
    if (sched_push(&g->sched, g->sched.now + (uint64_t)cost, FN_PLAYER_TURN, g->player, 0, 0) < 0)
        return;
    vision_update(g);
    turn_run(g);
    vision_update(g);
}
