/* ansi_frames — the ANSI bytes of every frame of seeded games, for
 * comparing two builds of the encoder byte for byte and for counting its
 * instructions a frame on real play.
 *
 *   ansi_frames [--frames] [--profiles LIST] [--size WxH] SEED0 SEED1 KEYS PLAY...
 *
 * Plays each seed in [SEED0, SEED1] for KEYS keys of each PLAY:
 *   walk    the eight directions, seeded (as `warren-engine bench walk`)
 *   load    the load tool's h . l . (a step only onto floor, . or U+00B7,
 *           else a wait)
 *   any     random keys of every kind: moves, running, stairs, travel,
 *           menus, help, messages, Esc, letters and digits
 * taking every frame the session's way (game_render into a grid, diffed
 * against what the terminal shows) on odd seeds and the host's way (the
 * kept frame, game_frame, with only its dirty rows) on even ones. Each
 * frame is encoded for each profile of LIST (comma-separated terminal
 * names; "sync" is xterm-256color with synchronized output), by default
 * xterm-256color,xterm,screen,vt100,dumb,sync. Seeds divisible by 3 show
 * watchers and the turn counter; seeds divisible by 4 draw two-cell tiles.
 *
 * Prints one line a game and profile: seed, play, profile, frames, bytes
 * and an FNV-1a hash of all its frames' bytes; with --frames, a line a
 * frame (the key's index, its bytes and their hash) before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ansi.h"
#include "content.h"
#include "game.h"

#define MAX_PROFILES 8

typedef struct {
    char name[32];
    ansi_profile_t p;
    uint64_t hash;
    double bytes;
} prof_t;

typedef struct {
    prof_t prof[MAX_PROFILES];
    int nprof;
    bool frames;
    int w, h;
} opts_t;

static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001B3ull;
    return h;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* The glyph beside the cursor on its row, or 0. */
static uint32_t beside(const screen_t *s, int dx)
{
    int x = s->cur_x + dx;
    if (!s->cur_visible || x < 0 || x >= s->w || s->cur_y < 0 || s->cur_y >= s->h)
        return 0;
    return s->cells[(size_t)s->cur_y * (size_t)s->w + (size_t)x].ch;
}

static const char *const ANY[] = {
    "h", "j", "k", "l", "y",  "u", "b",    "n",    "H",   "L", ".", "s", "<",
    ">", "i", "e", "C", "\\", "?", "\x1b", "\x1b", "_>.", "o", "x", ";", "\x10",
    " ", "a", "z", "q", "r",  "w", "1",    "5",    ",",   "d", "t", "f", "\r",
};

/* The next key (or keys) of a play into k; shown is what the terminal
 * shows now, i the key's index. */
static void next_key(const char *play, int i, uint64_t *x, const screen_t *shown, char k[4])
{
    memset(k, 0, 4);
    if (!strcmp(play, "walk")) {
        k[0] = "hjklyubn"[xorshift(x) % 8];
    } else if (!strcmp(play, "load")) {
        k[0] = "h.l."[i % 4];
        uint32_t next = k[0] == '.' ? 0 : beside(shown, k[0] == 'h' ? -1 : 1);
        if (k[0] != '.' && next != '.' && next != 0xB7)
            k[0] = '.';
    } else {
        const char *s = ANY[xorshift(x) % (sizeof ANY / sizeof ANY[0])];
        memcpy(k, s, strlen(s));
    }
}

/* Encodes the frame sent -> now for every profile; out is scratch. */
static void encode(opts_t *o, const screen_t *sent, const screen_t *now, int i, buf_t *out)
{
    for (int p = 0; p < o->nprof; p++) {
        buf_reset(out);
        ansi_diff(&o->prof[p].p, sent, now, out);
        uint64_t h = fnv(0xCBF29CE484222325ull, out->data ? out->data : "", out->len);
        o->prof[p].hash = fnv(o->prof[p].hash, (const char *)&h, sizeof h);
        o->prof[p].bytes += (double)out->len;
        if (o->frames)
            printf("  %s %d %zu %016llx\n", o->prof[p].name, i, out->len, (unsigned long long)h);
    }
}

/* One key's frame: through the grid (game_render) or the kept frame. */
static void frame(opts_t *o, game_t *g, const game_view_t *v, bool kept, screen_t *grid,
                  screen_t *sent, int i, buf_t *out)
{
    if (kept) {
        const screen_t *f = game_frame(g, sent->w, sent->h, v);
        if (!f)
            return;
        encode(o, sent, f, i, out);
        for (int y = 0; y < f->h; y++)
            if (f->dirty[y])
                memcpy(sent->cells + (size_t)y * (size_t)f->w, f->cells + (size_t)y * (size_t)f->w,
                       sizeof(cell_t) * (size_t)f->w);
        screen_cursor(sent, f->cur_x, f->cur_y, f->cur_visible);
        return;
    }
    game_render(g, grid, v);
    encode(o, sent, grid, i, out);
    screen_copy(sent, grid);
    screen_clean(sent);
    screen_clean(grid);
}

static int play_game(opts_t *o, const content_t *c, script_vm_t *vm, uint64_t seed, int keys,
                     const char *play)
{
    game_t *g = game_new(c, seed, NULL);
    screen_t *grid = screen_new(o->w, o->h), *sent = screen_new(o->w, o->h);
    buf_t out;
    buf_init(&out);
    if (!g || !grid || !sent) {
        fprintf(stderr, "ansi_frames: cannot start seed %llu\n", (unsigned long long)seed);
        game_free(g);
        screen_free(grid);
        screen_free(sent);
        return 1;
    }
    game_view_t v = {
        .watchers = seed % 3 ? 0 : 2, .two_cell = seed % 4 == 0, .turns = seed % 3 == 0};
    for (int p = 0; p < o->nprof; p++)
        o->prof[p].hash = 0xCBF29CE484222325ull, o->prof[p].bytes = 0;
    bool kept = seed % 2 == 0;
    game_input(g, vm, (key_event_t){'x', 0}); /* a random character */
    game_render(g, sent, &v);
    screen_clean(sent);
    uint64_t x = 0x9E3779B97F4A7C15ull ^ seed;
    int frames = 0;
    for (int i = 0; i < keys; i++) {
        char k[4];
        next_key(play, i, &x, sent, k);
        for (int j = 0; j < 4 && k[j]; j++)
            game_input(g, vm, (key_event_t){(uint32_t)(unsigned char)k[j], 0});
        v.hint_tick = (uint32_t)(i / 50);
        frame(o, g, &v, kept, grid, sent, i, &out);
        frames++;
    }
    for (int p = 0; p < o->nprof; p++)
        printf("%llu %s %s %d frames %.0f bytes %016llx\n", (unsigned long long)seed, play,
               o->prof[p].name, frames, o->prof[p].bytes, (unsigned long long)o->prof[p].hash);
    buf_free(&out);
    screen_free(grid);
    screen_free(sent);
    game_free(g);
    return 0;
}

static int set_profiles(opts_t *o, const char *list)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    o->nprof = 0;
    for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
        if (o->nprof == MAX_PROFILES)
            return -1;
        prof_t *p = &o->prof[o->nprof++];
        snprintf(p->name, sizeof p->name, "%s", t);
        bool sync = !strcmp(t, "sync");
        ansi_profile_for_term(&p->p, sync ? "xterm-256color" : t);
        p->p.sync = sync;
    }
    return o->nprof ? 0 : -1;
}

int main(int argc, char **argv)
{
    opts_t o = {.w = 80, .h = 24};
    int i = 1;
    set_profiles(&o, "xterm-256color,xterm,screen,vt100,dumb,sync");
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--frames"))
            o.frames = true;
        else if (!strcmp(argv[i], "--profiles") && i + 1 < argc &&
                 set_profiles(&o, argv[i + 1]) == 0)
            i++;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%dx%d", &o.w, &o.h) == 2)
            i++;
        else
            break;
    }
    if (argc - i < 4) {
        fprintf(stderr, "usage: ansi_frames [--frames] [--profiles LIST] [--size WxH] "
                        "SEED0 SEED1 KEYS PLAY...\n");
        return 2;
    }
    unsigned long long s0 = strtoull(argv[i], NULL, 10), s1 = strtoull(argv[i + 1], NULL, 10);
    int keys = atoi(argv[i + 2]);
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    script_vm_t *vm = c ? script_vm_new() : NULL;
    if (!vm) {
        fprintf(stderr, "ansi_frames: cannot start: %s\n", c ? "out of memory" : err);
        content_free(c);
        return 1;
    }
    int ret = 0;
    for (unsigned long long s = s0; s <= s1 && !ret; s++)
        for (int p = i + 3; p < argc && !ret; p++)
            ret = play_game(&o, c, vm, s, keys, argv[p]);
    script_vm_free(vm);
    content_free(c);
    return ret;
}
