/* warren-engine content --stats — what the content declares, by kind and
 * item class; the last line is
 *   content creatures C items I uniques U vaults V spells S traps T special_levels L */
#include <stdio.h>
#include <string.h>
#include "content.h"
#include "tool.h"

static const char *const CLASS_NAMES[IC_COUNT] = {
#define CONTENT_CLASS_NAME_(n) #n,
    ITEM_CLASS_LIST(CONTENT_CLASS_NAME_)
#undef CONTENT_CLASS_NAME_
};

int cmd_content(int argc, char **argv)
{
    const char *dir = NULL;
    int stats = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stats"))
            stats = 1;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "content: bad option %s\n", argv[i]);
            return 2;
        }
    }
    if (!stats) {
        fprintf(stderr, "usage: warren-engine content [--dir DIR] --stats\n");
        return 2;
    }
    char err[256];
    content_t *c = content_load(dir, err, sizeof err);
    if (!c) {
        fprintf(stderr, "content: %s\n", err);
        return 1;
    }
    int per[IC_COUNT] = {0}, uniques = 0;
    for (uint16_t k = 0; k < c->n_items; k++)
        per[c->items[k].cls]++;
    for (uint16_t k = 0; k < c->n_creatures; k++)
        uniques += (c->creatures[k].flags & CF_UNIQUE) != 0;
    printf("content %s\n", content_version(c));
    printf("terrain %d effects %d spells %d\n", c->n_terrain, c->n_effects, c->n_spells);
    for (int i = 0; i < IC_COUNT; i++)
        printf("items.%s %d\n", CLASS_NAMES[i], per[i]);
    /* special levels: none declared by this content yet */
    printf(
        "content creatures %d items %d uniques %d vaults %d spells %d traps %d special_levels %d\n",
        c->n_creatures, c->n_items, uniques, c->n_vaults, c->n_spells, c->n_traps, 0);
    content_free(c);
    return 0;
}
