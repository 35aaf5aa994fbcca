/* warren-engine world --seed S — the surface world of a game's seed: the
 * map with its legend, then one line
 *   world seed S territories N rivers R towns T */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "tool.h"
#include "worldmap.h"

int cmd_world(int argc, char **argv)
{
    const char *dir = NULL;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: warren-engine world --seed S [--dir DIR]\n");
            return 2;
        }
    }
    char err[256];
    content_t *c = content_load(dir, err, sizeof err);
    if (!c) {
        fprintf(stderr, "world: %s\n", err);
        return 1;
    }
    worldmap_t *w = worldmap_new(c, seed, err, sizeof err);
    content_free(c);
    if (!w) {
        fprintf(stderr, "world: %s\n", err);
        return 1;
    }
    buf_t out;
    buf_init(&out);
    worldmap_text(w, &out);
    fwrite(out.data, 1, out.len, stdout);
    printf("world seed %llu territories %d rivers %d towns %d\n", seed, w->n_terrs, w->n_rivers,
           w->n_towns);
    buf_free(&out);
    worldmap_free(w);
    return 0;
}
