/* prompt — the prompt table (see prompt.h). */
#include "prompt.h"
#include <stdio.h>
#include "chargen.h"
#include "cmd.h"
#include "discoveries.h"
#include "escape.h"
#include "help.h"
#include "msg.h"
#include "sheet.h"
#include "shop.h"
#include "spell.h"
#include "target.h"
#include "trap.h"
#include "travel.h"
#include "voyage.h"
#include "world.h"
#include "worldui.h"

void prompt_page_key(game_t *g, key_event_t k, int pages)
{
    static const uint32_t ON[] = {' ', '>', 'j', KEY_PGDN, KEY_DOWN},
                          BACK[] = {'<', 'k', KEY_PGUP, KEY_UP};
    for (size_t i = 0; i < sizeof ON / sizeof ON[0]; i++)
        if (k.code == ON[i] && g->page + 1 < pages) {
            g->page++;
            return;
        }
    for (size_t i = 0; i < sizeof BACK / sizeof BACK[0]; i++)
        if (k.code == BACK[i]) {
            if (g->page > 0)
                g->page--;
            return;
        }
    g->page = 0;
    g->prompt = PROMPT_NONE;
}

const char *prompt_page_hint(int page, int pages, const char *next, const char *prev, char *out,
                             size_t n)
{
    bool more = page + 1 < pages, back = page > 0;
    if (more)
        snprintf(out, n, back ? "space: %s, <: %s, Esc returns" : "space: %s, Esc returns", next,
                 prev);
    else if (back) /* the last page: going on closes it too */
        snprintf(out, n, "<: %s, other keys return", prev);
    else
        snprintf(out, n, "Esc returns");
    return out;
}

void prompt_ask(screen_t *s, const char *question)
{
    for (int x = 0; x < s->w; x++)
        screen_put(s, x, 0, ' ', STYLE_DEFAULT);
    screen_text(s, 0, 0, STYLE_DEFAULT, question);
}

static const prompt_t PROMPTS[PROMPT_COUNT] = {
    {PROMPT_NONE, 0, cmd_key, NULL},
    {PROMPT_QUIT, 0, cmd_quit_key, cmd_quit_draw},
    {PROMPT_MORE, PF_PAGING, msg_more_key, NULL}, /* the message line shows --More-- */
    {PROMPT_HISTORY, PF_PAGING | PF_SCREEN | PF_LIST, msg_history_key, msg_history_draw,
     msg_history_width},
    {PROMPT_RACE, PF_SCREEN, chargen_race_key, chargen_draw},
    {PROMPT_CLASS, PF_SCREEN, chargen_class_key, chargen_draw},
    {PROMPT_LEVELUP, PF_SCREEN, chargen_levelup_key, chargen_levelup_draw},
    {PROMPT_TRAVEL, PF_CURSOR, travel_key, travel_draw},
    {PROMPT_LOOK, PF_CURSOR, travel_look_key, travel_look_draw},
    {PROMPT_HELP, PF_PAGING | PF_SCREEN | PF_LIST, help_key, help_draw},
    {PROMPT_CAST, PF_SCREEN | PF_LIST, spell_menu_key, spell_menu_draw},
    {PROMPT_DOOR, 0, trap_door_key, trap_door_draw}, /* the top line asks the direction */
    {PROMPT_WORLD, PF_PAGING | PF_SCREEN, worldui_key, worldui_draw},
    {PROMPT_TARGET, PF_CURSOR, target_key, target_draw},
    {PROMPT_SHOP, PF_SCREEN, shop_key, shop_draw},
    {PROMPT_VICTORY, PF_SCREEN, escape_victory_key, escape_victory_draw},
    {PROMPT_ATTACK, PF_CURSOR, target_attack_key, target_attack_draw},
    {PROMPT_SHEET, PF_PAGING | PF_SCREEN | PF_LIST, sheet_key, sheet_draw},
    {PROMPT_DISCOVERIES, PF_PAGING | PF_SCREEN | PF_LIST, discoveries_key, discoveries_draw},
    {PROMPT_VOYAGE, PF_SCREEN, voyage_key, voyage_draw},
    {PROMPT_WELCOME, PF_PAGING, chargen_welcome_key, NULL}, /* the message line shows --More-- */
};

const prompt_t *prompt_of(const game_t *g)
{
    if (g->state == GAME_WON)
        return &PROMPTS[PROMPT_VICTORY]; /* the last screen, whatever was asked before */
    return &PROMPTS[g->prompt < PROMPT_COUNT ? g->prompt : PROMPT_NONE];
}
