/* Fuzz target: hosted games' [game ID] sections (server/core/gamecfg.c).
 * Whatever the text, the result is 0 or -1 with a "line N: " message, and
 * every game accepted can be launched for a valid player (here the longest
 * game name, name and directory): its command splits, its program is an
 * absolute path, its substitutions resolve. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "gamecfg.h"
#include "statuspat.h"

#define STR_OK(f) (memchr((f), 0, sizeof(f)) != NULL)

static void check_game(const gamecfg_t *g)
{
    if (!STR_OK(g->id) || !STR_OK(g->name) || !STR_OK(g->command) || !STR_OK(g->rcfile) ||
        !STR_OK(g->rc_default) || !STR_OK(g->xlogfile) || !STR_OK(g->user) || !STR_OK(g->term))
        abort();
    if (!g->id[0] || !g->name[0] || !g->command[0] || g->nenv < 0 || g->nenv > GAMECFG_ENV_MAX ||
        g->hangup_seconds < 1 || g->idle_seconds < -1) /* -1: not given */
        abort();
    /* a prefix is a control key no game needs (Backspace, Tab, Enter, Esc), or 0: direct */
    if (g->key_prefix >= 0x20 || (g->key_prefix && memchr("\b\t\n\r\x1b", (int)g->key_prefix, 5)))
        abort();
    /* a status pattern that parsed compiles, and matching a screen is safe */
    char perr[200];
    statuspat_t *pat = g->status[0] ? statuspat_new(g->status, perr, sizeof perr) : NULL;
    if (!STR_OK(g->status) || (g->status[0] && !pat))
        abort();
    static const char screen[] = "Dlvl:3 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:11\nx\n";
    int depth = -1;
    uint64_t turn = 0;
    statuspat_match(pat, screen, sizeof screen - 1, &depth, &turn);
    statuspat_free(pat);
    gamecfg_launch_t la;
    char err[256];
    char name[CMDLINE_NAME_MAX + 1], game[CMDLINE_GAME_NAME_MAX + 1], dir[GAMECFG_DIR_MAX + 1];
    memset(name, 'N', sizeof name - 1);
    name[sizeof name - 1] = 0;
    memset(game, 'U', sizeof game - 1);
    game[sizeof game - 1] = 0;
    memset(dir, 'd', sizeof dir - 1);
    dir[0] = '/';
    dir[sizeof dir - 1] = 0;
    if (gamecfg_launch(g, name, game, dir, &la, err, sizeof err) != 0)
        abort();
    int n = 0;
    while (la.envp[n])
        n++;
    if (la.argv[0][0] != '/' || n < 3 || n > 3 + g->nenv || !!la.rcfile != !!g->rcfile[0])
        abort();
    /* an rc file lies directly in the player's directory: one safe name */
    const char *rc = gamecfg_rc_name(g);
    if (!!rc != !!g->rcfile[0] ||
        (rc && (!rc[0] || strchr(rc, '/') || !strcmp(rc, "..") || !strcmp(rc, "."))))
        abort();
    if (!strcmp(g->user, "root"))
        abort();
    gamecfg_launch_free(&la);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gamecfg_list_t list = {NULL, 0};
    char err[256] = "";
    int ret = gamecfg_parse(&list, (const char *)data, size, 1, err, sizeof err);
    if (ret != 0 && (ret != -1 || strncmp(err, "line ", 5) != 0))
        abort();
    if (list.n < 0 || list.n > GAMECFG_GAMES)
        abort();
    for (int i = 0; i < list.n; i++)
        check_game(&list.games[i]);
    gamecfg_list_free(&list);
    return 0;
}
