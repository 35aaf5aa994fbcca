/* Fuzz target: what another node's heartbeat says of its games
 * (peersum.h), read as it could come from the database: accepted text
 * gives sorted, distinct games within the fields' ranges, each found by
 * its id, and written again it reads back the same; refused text comes
 * with a message and nothing allocated. Fields of a newer build
 * (KEY=VALUE ones not known) are skipped, so written again they are gone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "peersum.h"
#include "screen.h"

static void check_game(const peersum_game_t *v, size_t n, size_t i)
{
    const peersum_game_t *g = &v[i];
    if (g->game == 0 || (i && v[i - 1].game >= g->game) || peersum_find(v, n, g->game) != g)
        abort();
    if (g->w < 0 || g->w > SCREEN_MAX_W || g->h < 0 || g->h > SCREEN_MAX_H || g->depth < 0 ||
        strlen(g->race) > PEERSUM_TEXT_MAX || strlen(g->cls) > PEERSUM_TEXT_MAX ||
        strlen(g->kind) > PEERSUM_ID_MAX || strlen(g->player) > PEERSUM_ID_MAX ||
        strlen(g->name) > PEERSUM_NAME_MAX || g->user < 0 || g->min_w < 0 ||
        g->min_w > SCREEN_MAX_W || g->min_h < 0 || g->min_h > SCREEN_MAX_H)
        abort();
}

static void check_again(const peersum_game_t *v, size_t n)
{
    buf_t b;
    buf_init(&b);
    for (size_t i = 0; i < n; i++)
        peersum_put(&b, &v[i]);
    peersum_game_t *w = NULL;
    size_t m = 0;
    const char *why = NULL;
    if (!b.failed && (peersum_parse(b.data, b.len, &w, &m, &why) != 0 || m != n ||
                      (n && memcmp(v, w, n * sizeof *v))))
        abort();
    free(w);
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    peersum_game_t *v = NULL;
    size_t n = 0;
    const char *why = NULL;
    if (peersum_parse((const char *)data, size, &v, &n, &why) < 0) {
        if (!why || v || n)
            abort();
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        check_game(v, n, i);
    check_again(v, n);
    free(v);
    return 0;
}
