/* cmd — the player's commands: one const table (key, label, what it does,
 * function) that the dispatcher, the cycling help line and the help screen
 * all read, plus the movement keys (see cmd.h). */
#include "cmd.h"
#include <stdio.h>
#include "creature.h"
#include "discoveries.h"
#include "end.h"
#include "help.h"
#include "itemui.h"
#include "level.h"
#include "missile.h"
#include "msg.h"
#include "power.h"
#include "prompt.h"
#include "sheet.h"
#include "shop.h"
#include "spell.h"
#include "status.h"
#include "trap.h"
#include "travel.h"
#include "world.h"
#include "worldui.h"

typedef struct {
    uint32_t code;
    int8_t dx, dy;
} keymove_t;

/* vi-keys, arrows, numpad (with and without num lock); (0,0) waits */
static const keymove_t KEYMOVES[] = {
    {'h', -1, 0},      {'j', 0, 1},      {'k', 0, -1},      {'l', 1, 0},
    {'y', -1, -1},     {'u', 1, -1},     {'b', -1, 1},      {'n', 1, 1},
    {'4', -1, 0},      {'2', 0, 1},      {'8', 0, -1},      {'6', 1, 0},
    {'7', -1, -1},     {'9', 1, -1},     {'1', -1, 1},      {'3', 1, 1},
    {'5', 0, 0},       {'.', 0, 0},      {'s', 0, 0},       {KEY_LEFT, -1, 0},
    {KEY_DOWN, 0, 1},  {KEY_UP, 0, -1},  {KEY_RIGHT, 1, 0}, {KEY_HOME, -1, -1},
    {KEY_PGUP, 1, -1}, {KEY_END, -1, 1}, {KEY_PGDN, 1, 1},  {KEY_KP_CENTER, 0, 0},
};

static CMD_BIND(cmd_descend, level_stairs, 1)
static CMD_BIND(cmd_climb, level_stairs, -1)

/* Asks the host to save the game and return to its menu: nothing in the
 * game changes (game_status_t.leave, read once after this key). */
static int cmd_leave(game_t *g)
{
    g->leave = 1;
    return 0;
}

/* Whether walking onto gold picks it up; a key, so a replay agrees. */
static int cmd_gold_toggle(game_t *g)
{
    g->gold_by_hand = !g->gold_by_hand;
    msg_add(g, g->gold_by_hand ? "Gold now stays where it lies until you pick it up (g)."
                               : "Walking onto gold now picks it up.");
    return 0;
}

static int cmd_quit(game_t *g)
{
    g->prompt = PROMPT_QUIT;
    return 0;
}

void cmd_quit_draw(game_t *g, screen_t *s)
{
    (void)g;
    prompt_ask(s, "Really quit? This ends the game for good. (y/n)");
}

/* Movement first: the help line and the help screen list them as rows too. */
static const cmd_t COMMANDS[] = {
    {0, "hjklyubn", "move or attack (also arrows and numpad)", NULL},
    {0, "HJKLYUBN", "run: on that way until something is worth a look", NULL},
    {0, ".", "wait a turn and search around you (also s, 5)", NULL},
    {'>', ">", "go down a staircase; on the overland, into a town or dungeon", cmd_descend},
    {'<', "<", "go up a staircase; out of a town by its gate", cmd_climb},
    {'o', "o", "explore: to unvisited items, then unexplored", travel_explore},
    {'_', "_", "travel: choose a spot (< > jump to stairs), . to go", travel_choose},
    {';', ";", "look at something (also x), Tab: next creature", travel_look},
    {'c', "c", "close a door", trap_cmd_close},
    {0x0C, "^L", "lock a door, or pick a locked one's lock", trap_cmd_lock},
    {0x04, "^D", "kick a door in", trap_cmd_kick},
    {'p', "p", "trade: buy, sell and services (or bump the keeper)", shop_cmd_trade},
    {'Z', "Z", "cast a spell (wizards, clerics); bolts and areas aim", spell_menu},
    {0x01, "^A", "class power: power attack, hide, turn undead, arcane spark", power_use},
    {'?', "?", "help: a menu of topics, each with its commands", help_open},
    {'g', "g", "pick up what lies here (also ,)", itemui_pick_up},
    {'i', "i", "inventory", itemui_inventory},
    {'e', "e", "equipment and what you know of your gear", itemui_equipment},
    {'C', "C", "character sheet: abilities, attack, defence, saves, spells", sheet_open},
    {'\\', "\\", "discoveries: the kinds of things you have identified", discoveries_open},
    {'w', "w", "wear, wield or put on", itemui_wear},
    {'W', "W", "wear armour", itemui_wear_armour},
    {'P', "P", "put on a ring or an amulet", itemui_put_on},
    {'T', "T", "take off", itemui_take_off},
    {'t', "t", "throw something: pick it, then aim", itemui_throw},
    {'f', "f", "fire the quiver from your bow or sling (or throw darts, daggers)",
     missile_cmd_fire},
    {'v', "v", "choose what the quiver holds", itemui_quiver},
    {0, "aiming", "cursor: dirs move, Tab + - next foe, Enter . t f go, Esc (keepers ask)", NULL},
    {'d', "d", "drop", itemui_drop},
    {'q', "q", "quaff a potion", itemui_quaff},
    {'r', "r", "read a scroll", itemui_read},
    {'z', "z", "zap a wand", itemui_zap},
    {'E', "E", "eat", itemui_eat},
    {'R', "R", "rest until healed", itemui_rest},
    {'@', "@", "gold picked up by walking: on/off", cmd_gold_toggle},
    {0x10, "^P", "message history (paged)", msg_history},
    {'M', "M", "the world map: the continent your town lies on", worldui_open},
    {'S', "S", "save and return to the menu (also Ctrl-X)", cmd_leave},
    {'Q', "Q", "quit the game for good", cmd_quit},
};

const cmd_t *cmd_table(size_t *n)
{
    *n = sizeof COMMANDS / sizeof COMMANDS[0];
    return COMMANDS;
}

int cmd_quit_key(game_t *g, key_event_t k)
{
    g->prompt = g->pc.created ? PROMPT_NONE : PROMPT_RACE;
    if (k.code == 'y' || k.code == 'Y') {
        g->state = GAME_QUIT;
        char where[64];
        atlas_where(g, where, sizeof where);
        snprintf(g->cause, sizeof g->cause, "quit %s", where);
        g->score = end_score(g);
        msg_milestone(g, "end", "quit");
    } else {
        msg_add(g, "Never mind.");
    }
    return 0;
}

bool cmd_direction(key_event_t k, int *dx, int *dy)
{
    if (k.mods & (KEYMOD_ALT | KEYMOD_CTRL))
        return false;
    for (size_t i = 0; i < sizeof KEYMOVES / sizeof KEYMOVES[0]; i++)
        if (KEYMOVES[i].code == k.code && (KEYMOVES[i].dx || KEYMOVES[i].dy)) {
            *dx = KEYMOVES[i].dx;
            *dy = KEYMOVES[i].dy;
            return true;
        }
    return false;
}

/* A step that way, or a run (travel.h); one who staggers only steps,
 * and maybe not that way. */
static int cmd_move(game_t *g, int dx, int dy, bool run)
{
    conduct_t c;
    status_conduct(g, g->player, &c);
    if (c.stagger && rng_percent(&g->play, c.stagger)) {
        const keymove_t *r = &KEYMOVES[rng_below(&g->play, 8)]; /* the first 8 are the directions */
        msg_add(g, "You stumble.");
        return creature_step(g, g->player, r->dx, r->dy);
    }
    return run && !c.stagger ? travel_run(g, dx, dy) : creature_step(g, g->player, dx, dy);
}

/* The other roguelikes' keys for the same commands, each listed once, on
 * its command's row ("also x"). */
static uint32_t cmd_alias(uint32_t code)
{
    static const struct {
        uint32_t from, to;
    } ALIASES[] = {{'x', ';'}, {',', 'g'}};
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (ALIASES[i].from == code)
            return ALIASES[i].to;
    return code;
}

int cmd_key(game_t *g, key_event_t k)
{
    if (g->items.screen != ITEMUI_NONE)
        return itemui_answer(g, k);
    if (status_player_stuck(g))
        return SCHED_MOVE; /* paralysed: the turn is lost */
    if (k.mods & (KEYMOD_ALT | KEYMOD_CTRL))
        return 0;
    for (size_t i = 0; i < sizeof KEYMOVES / sizeof KEYMOVES[0]; i++) {
        if (KEYMOVES[i].code != k.code)
            continue;
        if (!KEYMOVES[i].dx && !KEYMOVES[i].dy) {
            trap_search(g, trap_search_chance(g, true)); /* waiting searches */
            return SCHED_MOVE;
        }
        return cmd_move(g, KEYMOVES[i].dx, KEYMOVES[i].dy, false);
    }
    for (size_t i = 0; i < 8; i++) /* the first 8 are hjklyubn: shifted, they run */
        if (KEYMOVES[i].code == k.code + ('a' - 'A'))
            return cmd_move(g, KEYMOVES[i].dx, KEYMOVES[i].dy, true);
    k.code = cmd_alias(k.code);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (COMMANDS[i].run && COMMANDS[i].code == k.code)
            return COMMANDS[i].run(g);
    if (k.code > ' ' && k.code < 0x7f) /* a key that is no command says so, taking no time */
        msg_add(g, "Unknown command '%c'. Press ? for help.", (char)k.code);
    return 0;
}
