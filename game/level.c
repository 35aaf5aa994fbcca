/* level — one level's arrays, and its generation from the level's own seed. */
#include <string.h>
#include "mapgen.h"
#include "world.h"

level_t *level_new(game_t *g, int w, int h, int depth)
{
    level_t *lv = gcalloc(&g->al, 1, sizeof *lv);
    if (!lv) return NULL;
    lv->w = (int16_t)w;
    lv->h = (int16_t)h;
    lv->depth = (int16_t)depth;
    size_t n = (size_t)w * (size_t)h;
    lv->terrain = gcalloc(&g->al, n, 1);
    lv->seen = gcalloc(&g->al, n, 1);
    lv->vis = gcalloc(&g->al, n, 1);
    if (!lv->terrain || !lv->seen || !lv->vis) {
        level_free(g, lv);
        return NULL;
    }
    lv->down_x = lv->down_y = -1;
    return lv;
}

void level_free(game_t *g, level_t *lv)
{
    if (!lv) return;
    gfree(&g->al, lv->terrain);
    gfree(&g->al, lv->seen);
    gfree(&g->al, lv->vis);
    gfree(&g->al, lv);
}

bool level_in(const level_t *lv, int x, int y) { return x >= 0 && y >= 0 && x < lv->w && y < lv->h; }

uint8_t level_terrain(const level_t *lv, int x, int y)
{
    return level_in(lv, x, y) ? lv->terrain[y * lv->w + x] : MAP_ROCK;
}

static void level_set(level_t *lv, int x, int y, uint8_t t)
{
    if (level_in(lv, x, y)) lv->terrain[y * lv->w + x] = t;
}

typedef struct {
    int x, y, w, h;
} room_t;

static void dig_room(level_t *lv, const room_t *r)
{
    for (int y = r->y - 1; y <= r->y + r->h; y++)
        for (int x = r->x - 1; x <= r->x + r->w; x++) {
            bool edge = y < r->y || y >= r->y + r->h || x < r->x || x >= r->x + r->w;
            uint8_t t = level_terrain(lv, x, y);
            if (!edge) level_set(lv, x, y, MAP_FLOOR);
            else if (t == MAP_ROCK) level_set(lv, x, y, MAP_WALL);
        }
}

static void dig_cell(level_t *lv, int x, int y)
{
    uint8_t t = level_terrain(lv, x, y);
    if (t == MAP_ROCK) level_set(lv, x, y, MAP_CORRIDOR);
    else if (t == MAP_WALL) level_set(lv, x, y, MAP_DOOR_OPEN);
}

static void dig_line(level_t *lv, int x0, int y0, int x1, int y1)
{
    int dx = (x1 > x0) - (x1 < x0), dy = (y1 > y0) - (y1 < y0);
    for (int x = x0, y = y0;; x += dx, y += dy) {
        dig_cell(lv, x, y);
        if (x == x1 && y == y1) break;
    }
}

/* An L-shaped corridor between two room centres; walls crossed become doors. */
static void dig_corridor(level_t *lv, rng_t *r, int x0, int y0, int x1, int y1)
{
    if (rng_below(r, 2)) {
        dig_line(lv, x0, y0, x1, y0);
        dig_line(lv, x1, y0, x1, y1);
    } else {
        dig_line(lv, x0, y0, x0, y1);
        dig_line(lv, x0, y1, x1, y1);
    }
}

/* A 3x3 grid of rooms joined in order; the level's own generator only. */
int level_generate(game_t *g, level_t *lv)
{
    (void)g;
    rng_t r;
    rng_seed(&r, rng_hash2(g->seed, (uint64_t)lv->depth), 1);
    memset(lv->terrain, MAP_ROCK, (size_t)lv->w * (size_t)lv->h);
    room_t rooms[9];
    int cw = lv->w / 3, ch = lv->h / 3;
    for (int i = 0; i < 9; i++) {
        room_t *rm = &rooms[i];
        rm->w = rng_range(&r, 4, cw - 4);
        rm->h = rng_range(&r, 2, ch - 3);
        rm->x = (i % 3) * cw + rng_range(&r, 2, cw - rm->w - 2);
        rm->y = (i / 3) * ch + rng_range(&r, 1, ch - rm->h - 1);
        dig_room(lv, rm);
    }
    static const int8_t ORDER[9] = {0, 1, 2, 5, 4, 3, 6, 7, 8};
    for (int i = 0; i + 1 < 9; i++) {
        const room_t *a = &rooms[ORDER[i]], *b = &rooms[ORDER[i + 1]];
        dig_corridor(lv, &r, a->x + a->w / 2, a->y + a->h / 2, b->x + b->w / 2, b->y + b->h / 2);
    }
    int first = (int)rng_below(&r, 9), last = (first + 1 + (int)rng_below(&r, 8)) % 9;
    lv->up_x = (int16_t)(rooms[first].x + rng_below(&r, (uint32_t)rooms[first].w));
    lv->up_y = (int16_t)(rooms[first].y + rng_below(&r, (uint32_t)rooms[first].h));
    lv->down_x = (int16_t)(rooms[last].x + rng_below(&r, (uint32_t)rooms[last].w));
    lv->down_y = (int16_t)(rooms[last].y + rng_below(&r, (uint32_t)rooms[last].h));
    level_set(lv, lv->up_x, lv->up_y, MAP_STAIRS_UP);
    level_set(lv, lv->down_x, lv->down_y, MAP_STAIRS_DOWN);
    return 0;
}
