/* warren-engine play — feeds raw terminal bytes to a game, optionally
 * through a snapshot round trip, and prints the final screen and hash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game.h"
#include "keys.h"
#include "tool.h"

/* --frames: each key's frame taken as a session takes it (drawn into the
 * grid with the turn counter on and stamps, diffed by the ANSI encoder
 * against what the terminal shows, which then becomes the grid): the
 * bytes' count and hash, to compare builds byte for byte. Under
 * WARREN_RENDER_VERIFY=1 each frame also checks every map row
 * (game_view_t.verify_misses): a changed row no write marked aborts. */
typedef struct {
    ansi_profile_t prof;
    screen_t *grid, *sent;
    buf_t b;
    uint64_t stamps, bytes, hash;
    uint64_t unmarked; /* WARREN_RENDER_VERIFY=1: game_view_t.verify_misses */
    game_view_t v;
} play_frames_t;

typedef struct {
    const content_t *c;
    game_t *g;
    long fed, snapshot_at;
    int failed;
    script_vm_t *vm;
    play_frames_t *fr; /* NULL: no --frames */
} play_t;

static play_frames_t *frames_new(int w, int h)
{
    play_frames_t *fr = calloc(1, sizeof *fr);
    if (!fr)
        return NULL;
    ansi_profile_for_term(&fr->prof, "xterm-256color");
    fr->grid = screen_new(w, h);
    fr->sent = screen_new(w, h);
    buf_init(&fr->b);
    fr->hash = 0xcbf29ce484222325ull;
    fr->v = (game_view_t){.turns = true, .stamps = &fr->stamps};
    const char *verify = getenv("WARREN_RENDER_VERIFY");
    if (verify && !strcmp(verify, "1"))
        fr->v.verify_misses = &fr->unmarked;
    return fr;
}

static void frames_free(play_frames_t *fr)
{
    if (!fr)
        return;
    if (fr->grid)
        printf("frames %llu bytes hash %016llx\n", (unsigned long long)fr->bytes,
               (unsigned long long)fr->hash);
    buf_free(&fr->b);
    screen_free(fr->grid);
    screen_free(fr->sent);
    free(fr);
}

static void frames_take(play_frames_t *fr, game_t *g)
{
    buf_reset(&fr->b);
    game_render(g, fr->grid, &fr->v);
    ansi_diff(&fr->prof, fr->sent, fr->grid, &fr->b);
    screen_copy(fr->sent, fr->grid);
    screen_clean(fr->sent);
    screen_clean(fr->grid);
    for (size_t i = 0; i < fr->b.len; i++) /* FNV-1a */
        fr->hash = (fr->hash ^ (uint8_t)fr->b.data[i]) * 0x100000001b3ull;
    fr->bytes += fr->b.len;
    if (fr->unmarked) { /* a writer that did not mark its rows */
        fprintf(stderr, "play: frame %llu: %llu changed map rows unmarked\n",
                (unsigned long long)fr->stamps, (unsigned long long)fr->unmarked);
        abort();
    }
}

static int play_roundtrip(play_t *p)
{
    buf_t b;
    buf_init(&b);
    char err[160];
    if (game_snapshot(p->g, &b) < 0) {
        fprintf(stderr, "play: snapshot failed\n");
        buf_free(&b);
        return -1;
    }
    game_free(p->g);
    p->g = game_load(p->c, (const uint8_t *)b.data, b.len, err, sizeof err);
    buf_free(&b);
    if (!p->g) {
        fprintf(stderr, "play: %s\n", err);
        return -1;
    }
    return 0;
}

static void play_key(void *ud, key_event_t k)
{
    play_t *p = ud;
    if (p->failed)
        return;
    if (p->fed == p->snapshot_at && play_roundtrip(p) < 0) {
        p->failed = 1;
        return;
    }
    game_input(p->g, p->vm, k);
    p->fed++;
    if (p->fr)
        frames_take(p->fr, p->g);
}

/* --save FILE: the final state as a snapshot blob (fuzz seeds, tools). */
static int play_save(const game_t *g, const char *path)
{
    buf_t b;
    buf_init(&b);
    FILE *f = game_snapshot(g, &b) == 0 ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0)
        ok = 0;
    buf_free(&b);
    if (!ok)
        fprintf(stderr, "play: cannot save %s\n", path);
    return ok ? 0 : -1;
}

static void print_screen(const screen_t *s)
{
    buf_t b;
    buf_init(&b);
    for (int y = 0; y < s->h; y++) {
        int end = s->w;
        while (end > 0 && s->cells[y * s->w + end - 1].ch == ' ')
            end--;
        for (int x = 0; x < end; x++)
            buf_put_utf8(&b, s->cells[y * s->w + x].ch);
        buf_putc(&b, '\n');
    }
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
}

static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *d = malloc(cap);
    for (size_t r; d && (r = fread(d + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nd = realloc(d, cap *= 2);
            if (!nd)
                free(d);
            d = nd;
        }
    }
    if (f != stdin)
        fclose(f);
    if (!d)
        return -1;
    *out = d;
    *len = n;
    return 0;
}

int cmd_play(int argc, char **argv)
{
    const char *keys = NULL;
    uint64_t seed = 1;
    long snap = -1;
    const char *save = NULL;
    int dump = 0, frames = 0;
    int w = 80, h = 24;
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--dump") || !strcmp(argv[i], "--frames")) {
            *(argv[i][2] == 'd' ? &dump : &frames) = 1; /* the text dump goes to stderr */
            i--;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "play: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--keys"))
            keys = argv[i + 1];
        else if (!strcmp(argv[i], "--snapshot-at"))
            snap = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--save"))
            save = argv[i + 1];
        else if (!strcmp(argv[i], "--size") && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            continue;
        else {
            fprintf(stderr, "play: bad option %s\n", argv[i]);
            return 2;
        }
    }
    uint8_t *data = NULL;
    size_t len = 0;
    if (keys && read_file(keys, &data, &len) < 0) {
        fprintf(stderr, "play: %s: %s\n", keys, strerror(errno));
        return 1;
    }
    char err[160];
    content_t *c = content_load(NULL, err, sizeof err);
    screen_t *s = screen_new(w, h);
    play_t p = {c, c ? game_new(c, seed, NULL) : NULL, 0, snap, 0, script_vm_new(), NULL};
    p.fr = frames ? frames_new(w, h) : NULL;
    if (!c || !s || !p.g || !p.vm || (frames && !(p.fr && p.fr->grid && p.fr->sent))) {
        fprintf(stderr, "play: cannot start (%s)\n", c ? "bad size or out of memory" : err);
        return 1;
    }
    keydec_t kd;
    keydec_init(&kd);
    keydec_feed(&kd, data, len, play_key, &p);
    keydec_timeout(&kd, play_key, &p);
    if (!p.failed && p.fed == p.snapshot_at)
        p.failed = play_roundtrip(&p) < 0;
    int status = p.failed ? 1 : 0;
    if (!p.failed) {
        game_render(p.g, s, NULL);
        print_screen(s);
        printf("hash %016llx\n", (unsigned long long)game_hash(p.g));
    }
    if (!p.failed && save && play_save(p.g, save) < 0)
        status = 1;
    if (!p.failed && dump) {
        buf_t b;
        buf_init(&b);
        game_dump(p.g, &b);
        fwrite(b.data, 1, b.len, stderr);
        buf_free(&b);
    }
    frames_free(p.fr);
    free(data);
    game_free(p.g);
    script_vm_free(p.vm);
    screen_free(s);
    content_free(c);
    return status;
}
