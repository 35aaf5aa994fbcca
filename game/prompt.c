/* prompt — the prompt table (see prompt.h). */
#include "prompt.h"
#include "chargen.h"
#include "cmd.h"
#include "help.h"
#include "msg.h"
#include "spell.h"
#include "travel.h"
#include "world.h"

/* A screen that any key closes (help, history). */
static int close_key(game_t *g, key_event_t k)
{
    (void)k;
    g->prompt = PROMPT_NONE;
    return 0;
}

static const prompt_t PROMPTS[PROMPT_COUNT] = {
    {PROMPT_NONE, 0, cmd_key, NULL},
    {PROMPT_QUIT, 0, cmd_quit_key, NULL},
    {PROMPT_MORE, PF_PAGING, msg_more_key, NULL}, /* the message line shows --More-- */
    {PROMPT_HISTORY, PF_PAGING | PF_SCREEN, close_key, msg_history_draw},
    {PROMPT_RACE, PF_SCREEN, chargen_race_key, chargen_draw},
    {PROMPT_CLASS, PF_SCREEN, chargen_class_key, chargen_draw},
    {PROMPT_LEVELUP, PF_SCREEN, chargen_levelup_key, chargen_levelup_draw},
    {PROMPT_TRAVEL, PF_CURSOR, travel_key, travel_draw},
    {PROMPT_LOOK, PF_CURSOR, travel_look_key, travel_look_draw},
    {PROMPT_HELP, PF_SCREEN, close_key, help_draw},
    {PROMPT_CAST, PF_SCREEN, spell_menu_key, spell_menu_draw},
};

const prompt_t *prompt_row(int id)
{
    return id >= 0 && id < PROMPT_COUNT ? &PROMPTS[id] : NULL;
}

const prompt_t *prompt_of(const game_t *g)
{
    return &PROMPTS[g->prompt < PROMPT_COUNT ? g->prompt : PROMPT_NONE];
}
