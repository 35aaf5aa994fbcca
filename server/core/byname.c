/* byname — names in order, over libbsd's red-black tree (see byname.h). */
#include "byname.h"
#include <string.h>

static int bynode_cmp(const bynode_t *a, const bynode_t *b)
{
    int d = strcmp(a->name, b->name);
    return d ? d : (a->tie > b->tie) - (a->tie < b->tie);
}

/* RB_GENERATE_STATIC's __unused is left undefined on Linux (libbsd's
 * cdefs.h): the same, with the attribute spelled out. */
RB_GENERATE_INTERNAL(byname_tree, bynode, rb, bynode_cmp, __attribute__((unused)) static)

void byname_init(byname_t *idx)
{
    RB_INIT(&idx->root);
    idx->count = 0;
}

void byname_add(byname_t *idx, bynode_t *n, const char *name, int64_t tie)
{
    if (n->in)
        return;
    n->name = name;
    n->tie = tie;
    if (RB_INSERT(byname_tree, &idx->root, n)) /* its key taken: never with unique ties */
        return;
    n->in = true;
    idx->count++;
}

void byname_del(byname_t *idx, bynode_t *n)
{
    if (!n->in)
        return;
    RB_REMOVE(byname_tree, &idx->root, n);
    n->in = false;
    idx->count--;
}

bynode_t *byname_after(byname_t *idx, const char *name, int dir)
{
    /* the first at or past every tie of name (after), or of none (before) */
    bynode_t probe = {.name = name, .tie = dir > 0 ? INT64_MAX : INT64_MIN};
    bynode_t *n = RB_NFIND(byname_tree, &idx->root, &probe);
    if (dir > 0) {
        while (n && !strcmp(n->name, name)) /* a tie of INT64_MAX itself */
            n = RB_NEXT(byname_tree, &idx->root, n);
        return n;
    }
    return n ? RB_PREV(byname_tree, &idx->root, n) : RB_MAX(byname_tree, &idx->root);
}

bynode_t *byname_end(byname_t *idx, int dir)
{
    return dir > 0 ? RB_MIN(byname_tree, &idx->root) : RB_MAX(byname_tree, &idx->root);
}

bynode_t *byname_step(bynode_t *n, int dir)
{
    return dir > 0 ? RB_NEXT(byname_tree, NULL, n) : RB_PREV(byname_tree, NULL, n);
}
