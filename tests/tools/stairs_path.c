/* stairs_path — the keys that take a new game (seed, name) down the stairs
 * of its first level, so the crash-recovery tests can kill warrend during
 * and right after a level change. Plays like a patient player: picks a
 * random character, explores (`o`) until the down stairs are seen, walks a
 * shortest known path to them, attacks what stands next to it, answers
 * --More-- and level-up prompts, and presses `>` on the stairs.
 * Prints the keys (bytes as typed on a terminal) and nothing else.
 *   stairs_path --seed S --name NAME
 * Exit 1 if the character dies or is not down in 3,000 keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "level.h"
#include "prompt.h"
#include "vision.h"
#include "world.h"

static const struct {
    int dx, dy;
    char key;
} DIRS[] = {{-1, 0, 'h'},  {1, 0, 'l'},  {0, -1, 'k'}, {0, 1, 'j'},
            {-1, -1, 'y'}, {1, -1, 'u'}, {-1, 1, 'b'}, {1, 1, 'n'}};
#define NDIRS (sizeof DIRS / sizeof DIRS[0])

static bool known_walkable(game_t *g, level_t *lv, int x, int y)
{
    return level_in(lv, x, y) && lv->seen[y * lv->w + x] && level_walkable(g, lv, x, y);
}

/* Steps from the down stairs over known walkable cells (-1: no way). */
static void distances(game_t *g, level_t *lv, int *dist, int *queue)
{
    int n = lv->w * lv->h, head = 0, tail = 0, s = lv->down_y * lv->w + lv->down_x;
    for (int i = 0; i < n; i++)
        dist[i] = -1;
    dist[s] = 0;
    queue[tail++] = s;
    while (head < tail) {
        int i = queue[head++], x = i % lv->w, y = i / lv->w;
        for (size_t d = 0; d < NDIRS; d++) {
            int nx = x + DIRS[d].dx, ny = y + DIRS[d].dy;
            if (!known_walkable(g, lv, nx, ny) || dist[ny * lv->w + nx] >= 0)
                continue;
            dist[ny * lv->w + nx] = dist[i] + 1;
            queue[tail++] = ny * lv->w + nx;
        }
    }
}

/* A visible creature next to the player: the key that attacks it, or 0. */
static char attack_key(game_t *g, const obj_t *p)
{
    for (size_t d = 0; d < NDIRS; d++) {
        handle_t h = level_creature_at(g, g->depth, p->x + DIRS[d].dx, p->y + DIRS[d].dy);
        if (h && h != g->player && vision_sees(g, h))
            return DIRS[d].key;
    }
    return 0;
}

/* The next key toward the stairs (they are seen), or '.' if there is no way. */
static char path_key(game_t *g, level_t *lv, const obj_t *p)
{
    int n = lv->w * lv->h;
    int *dist = malloc(sizeof *dist * (size_t)n * 2);
    char best = '.';
    if (!dist)
        return best;
    distances(g, lv, dist, dist + n);
    int bestd = dist[p->y * lv->w + p->x];
    for (size_t d = 0; d < NDIRS; d++) {
        int nx = p->x + DIRS[d].dx, ny = p->y + DIRS[d].dy;
        int nd = level_in(lv, nx, ny) ? dist[ny * lv->w + nx] : -1;
        if (nd >= 0 && (bestd < 0 || nd < bestd))
            best = DIRS[d].key, bestd = nd;
    }
    free(dist);
    return best;
}

static char next_key(game_t *g, char last)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    switch (g->prompt) {
    case PROMPT_NONE: break;
    case PROMPT_MORE:
    case PROMPT_WELCOME: return ' ';
    case PROMPT_RACE:
    case PROMPT_CLASS: return '*';
    default: return 'a';
    }
    char a = attack_key(g, p);
    if (a)
        return a;
    if (p->x == lv->down_x && p->y == lv->down_y)
        return '>';
    if (lv->seen[lv->down_y * lv->w + lv->down_x])
        return path_key(g, lv, p);
    return last == 'o' ? '.' : 'o'; /* explore; wait a turn if it stopped */
}

int main(int argc, char **argv)
{
    game_options_t opt = {{0}};
    uint64_t seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--name"))
            snprintf(opt.name, sizeof opt.name, "%s", argv[i + 1]);
    }
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "stairs_path: %s\n", err);
        return 1;
    }
    game_t *g = game_new(c, seed, &opt);
    script_vm_t *vm = script_vm_new();
    static char keys[4096];
    size_t n = 0;
    uint32_t changes = g ? g->level_changes : 0;
    char last = 0;
    while (g && vm && n < 3000 && g->state == GAME_RUNNING && g->level_changes == changes) {
        last = next_key(g, last);
        keys[n++] = last;
        game_input(g, vm, (key_event_t){(uint32_t)(unsigned char)last, 0});
    }
    bool ok = g && g->level_changes != changes && g->state == GAME_RUNNING;
    if (ok)
        fwrite(keys, 1, n, stdout);
    else
        fprintf(stderr, "stairs_path: seed %llu: not down the stairs after %zu keys\n",
                (unsigned long long)seed, n);
    game_free(g);
    script_vm_free(vm);
    content_free(c);
    return ok ? 0 : 1;
}
