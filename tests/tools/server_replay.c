/* server_replay — plays a game the way warrend would without a server in
 * between: a new game with the player's name and seed, fed the terminal
 * bytes of FILE through the key decoder. Prints the screen at the given size
 * and "hash <hex>". The crash-recovery tests compare a daemon that was
 * killed and restarted against this uninterrupted run.
 *   server_replay --seed S --name NAME --keys FILE [--size WxH] [--render-each 0|1]
 *                 [--turns 0|1]
 * --turns 1 shows the turn counter (off by default, as for a new player;
 * replays show it).
 * Rendering never changes a game; --render-each 0 checks that.
 *   server_replay --snapshot FILE
 * prints only "hash <hex>" of the game a stored snapshot blob holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game.h"
#include "keys.h"

typedef struct {
    game_t *g;
    screen_t *s; /* rendered after every key, as the daemon does */
    bool each;
    game_view_t view; /* the turn counter shown with --turns 1 (as replays draw) */
    script_vm_t *vm;
} replay_t;

static void replay_key(void *ud, key_event_t k)
{
    replay_t *r = ud;
    game_input(r->g, r->vm, k);
    if (r->each)
        game_render(r->g, r->s, &r->view);
}

static size_t slurp(const char *path, uint8_t **out)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0, cap = 1 << 16;
    uint8_t *d = malloc(cap);
    if (!f || !d) {
        if (f)
            fclose(f);
        free(d);
        return (size_t)-1;
    }
    for (size_t r; (r = fread(d + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nd = realloc(d, cap *= 2);
            if (!nd)
                break;
            d = nd;
        }
    }
    fclose(f);
    *out = d;
    return n;
}

/* The state hash of a snapshot blob: 0, or 1 when it does not load. */
static int snapshot_hash(const content_t *c, const uint8_t *blob, size_t len)
{
    char err[256];
    game_t *g = game_load(c, blob, len, err, sizeof err);
    if (!g) {
        fprintf(stderr, "server_replay: %s\n", err);
        return 1;
    }
    printf("hash %016llx\n", (unsigned long long)game_hash(g));
    game_free(g);
    return 0;
}

int main(int argc, char **argv)
{
    const char *keys = NULL, *snap = NULL;
    game_options_t opt = {{0}};
    uint64_t seed = 1;
    int w = 80, h = 24;
    bool each = true, turns = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--keys"))
            keys = argv[i + 1];
        else if (!strcmp(argv[i], "--snapshot"))
            snap = keys = argv[i + 1];
        else if (!strcmp(argv[i], "--name"))
            snprintf(opt.name, sizeof opt.name, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--render-each"))
            each = atoi(argv[i + 1]) != 0;
        else if (!strcmp(argv[i], "--turns"))
            turns = atoi(argv[i + 1]) != 0;
        else if (!strcmp(argv[i], "--size") && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            continue;
        else {
            fprintf(stderr, "server_replay: bad option %s\n", argv[i]);
            return 2;
        }
    }
    uint8_t *data = NULL;
    size_t len = 0;
    if (keys && (len = slurp(keys, &data)) == (size_t)-1) {
        fprintf(stderr, "server_replay: cannot read %s\n", keys);
        return 1;
    }
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "server_replay: %s\n", err);
        return 1;
    }
    if (snap) {
        int ret = snapshot_hash(c, data, len);
        content_free(c);
        free(data);
        return ret;
    }
    screen_t *s = screen_new(w, h);
    replay_t r = {game_new(c, seed, &opt), s, each, {.turns = turns}, script_vm_new()};
    if (!r.g || !s || !r.vm)
        return 1;
    game_render(r.g, s, &r.view);
    keydec_t kd;
    keydec_init(&kd);
    keydec_feed(&kd, data, len, replay_key, &r);
    keydec_timeout(&kd, replay_key, &r);
    game_render(r.g, s, &r.view);
    for (int y = 0; y < s->h; y++) {
        buf_t b;
        buf_init(&b);
        for (int x = 0; x < s->w; x++)
            buf_put_utf8(&b, s->cells[y * s->w + x].ch);
        while (b.len && b.data[b.len - 1] == ' ')
            b.len--;
        printf("%.*s\n", (int)b.len, b.data ? b.data : "");
        buf_free(&b);
    }
    printf("hash %016llx\n", (unsigned long long)game_hash(r.g));
    game_free(r.g);
    screen_free(s);
    content_free(c);
    free(data);
    return 0;
}
