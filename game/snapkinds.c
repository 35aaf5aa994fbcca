/* snapkinds — kind names in snapshots, and old indices moved to new ones.
 *
 * Block layout (inside the snapshot's raw bytes, before the state):
 *   str content version of the writer
 *   per table of TABLES, in order: u16 count, u16 named,
 *       named x (u16 index, str name)
 *   uniques, artifacts: u16 n, n x (u8 bit, u16 creature / item index)
 *   flavours: u16 n, n x (u16 item index, u8 flavour)
 * A table names the kinds the state refers to (all of them where cells
 * refer to kinds: terrain, traps), the flavoured items and the uniques and
 * artifacts whose bits are set: what a game refers to is a small part of
 * the content, and the snapshot stays small. */
#include "snapkinds.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "creature.h"
#include "ego.h"
#include "ident.h"
#include "level.h"
#include "status.h"
#include "target.h"
#include "trap.h"

#define KIND_NAME_MAX 48
#define KINDS_MAX     4096    /* per table: far above any content, a bound for loads */
#define KIND_GONE     0xFFFFu /* named, and the loading content lacks it */
#define KIND_UNNAMED  0xFFFEu /* not named: nothing in the state may refer to it */
#define FLAVOUR_NONE  0xFFFFu
#define BITS_MAX      64 /* unique and artifact orders are 64-bit sets */

/* One content table, reached by offsets so one loop serves them all. */
typedef struct {
    const char *what;  /* for messages */
    size_t tab, count; /* offsets in content_t: the table and its length */
    size_t size;       /* a kind's size */
    size_t name, nlen; /* its name's offset and size */
    bool shadow;       /* read in the snapshot's order (loading checks its length) */
    bool all;          /* every kind named: level cells refer to them (no walk over cells) */
} table_t;

enum {
    T_TERRAIN,
    T_CREATURE,
    T_ITEM,
    T_EFFECT,
    T_SPELL,
    T_REGION,
    T_TRAP,
    T_EGO,
    T_RACE,
    T_CLASS,
    T_COUNT
};

#define TABLE(what, field, n, type, sh, all)                                    \
    {                                                                           \
        what, offsetof(content_t, field), offsetof(content_t, n), sizeof(type), \
            offsetof(type, name), sizeof(((type *)0)->name), sh, all            \
    }
static const table_t TABLES[T_COUNT] = {
    [T_TERRAIN] = TABLE("terrain", terrain, n_terrain, terrain_kind_t, true, true),
    [T_CREATURE] = TABLE("creature", creatures, n_creatures, creature_kind_t, true, false),
    [T_ITEM] = TABLE("item", items, n_items, item_kind_t, true, false),
    [T_EFFECT] = TABLE("effect", effects, n_effects, effect_kind_t, true, false),
    [T_SPELL] = TABLE("spell", spells, n_spells, spell_kind_t, false, false),
    [T_REGION] =
        TABLE("region", regions, n_regions, region_kind_t, false, false), /* rtypes beside */
    [T_TRAP] = TABLE("trap", traps, n_traps, trap_kind_t, true, true),
    [T_EGO] = TABLE("ego", egos, n_egos, ego_kind_t, true, false),
    [T_RACE] = TABLE("race", races, n_races, race_kind_t, true, false),
    [T_CLASS] = TABLE("class", classes, n_classes, class_kind_t, true, false),
};

/* The snapshot's side of one table: its names and where each went. */
typedef struct {
    uint16_t n;                   /* the writer's table length */
    uint16_t *map;                /* old index -> the loading content's, KIND_GONE or _UNNAMED */
    char (*names)[KIND_NAME_MAX]; /* the old names, for messages */
} old_t;

/* A bit set in unique or artifact order: which old kind each set bit is. */
typedef struct {
    uint16_t n;
    uint8_t bit[BITS_MAX];
    uint16_t kind[BITS_MAX];
} order_t;

struct snapkinds {
    const content_t *c; /* the loading content (borrowed) */
    char version[32];   /* the writer's content version */
    old_t t[T_COUNT];
    order_t uniques, artifacts;
    uint16_t *flavour;   /* [t[T_ITEM].n]: each old item's flavour, FLAVOUR_NONE */
    bool identity;       /* every named kind keeps its index */
    content_t *shadow;   /* NULL when identity */
    void *rows[T_COUNT]; /* the shadow's tables */
};

static const void *table_of(const content_t *c, const table_t *t)
{
    return *(const void *const *)((const char *)c + t->tab);
}

static uint16_t count_of(const content_t *c, const table_t *t)
{
    return *(const uint16_t *)((const char *)c + t->count);
}

static const char *name_of(const content_t *c, const table_t *t, unsigned i)
{
    return (const char *)table_of(c, t) + i * t->size + t->name;
}

/* ---- writing ---------------------------------------------------------------------- */

/* Which kinds of each table a state refers to. */
typedef struct {
    uint8_t bits[T_COUNT][KINDS_MAX / 8];
} used_t;

static void mark(used_t *u, int t, unsigned i)
{
    if (i < KINDS_MAX)
        u->bits[t][i >> 3] |= (uint8_t)(1u << (i & 7));
}

static bool marked(const used_t *u, int t, unsigned i)
{
    return i < KINDS_MAX && (u->bits[t][i >> 3] >> (i & 7) & 1);
}

static const int8_t TYPE_TABLE[OBJ_TYPES] = {
    [OBJ_FREE] = -1, [OBJ_CREATURE] = T_CREATURE, [OBJ_ITEM] = T_ITEM, [OBJ_EFFECT] = T_EFFECT};

/* The kinds with flag (uniques, artifacts) whose bit, their rank among
 * such kinds, is set in bits: their indices and bits; how many. */
static uint16_t flagged_set(const content_t *c, int t, uint32_t flag, uint64_t bits,
                            uint16_t kind[BITS_MAX], uint8_t bit[BITS_MAX])
{
    uint16_t n = 0, all = count_of(c, &TABLES[t]);
    for (uint16_t i = 0, b = 0; i < all && b < BITS_MAX; i++) {
        uint32_t f = t == T_CREATURE ? c->creatures[i].flags : c->items[i].flags;
        if (!(f & flag))
            continue;
        if (bits >> b & 1)
            kind[n] = i, bit[n++] = (uint8_t)b;
        b++;
    }
    return n;
}

static void mark_order(const content_t *c, int t, uint32_t flag, uint64_t bits, used_t *u)
{
    uint16_t kind[BITS_MAX];
    uint8_t bit[BITS_MAX];
    for (uint16_t j = 0, n = flagged_set(c, t, flag, bits, kind, bit); j < n; j++)
        mark(u, t, kind[j]);
}

static void mark_state(const game_t *g, used_t *u)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (TYPE_TABLE[o->type] >= 0)
            mark(u, TYPE_TABLE[o->type], o->kind);
        if (o->type == OBJ_ITEM && o->a[1] > 0)
            mark(u, T_EGO, o->a[1] - 1u);
    }
    for (int d = 0; d < LEVEL_IDS; d++)
        for (int r = 0; g->levels[d] && r < g->levels[d]->nregions; r++)
            if (g->levels[d]->regions[r].kind >= 0)
                mark(u, T_REGION, (unsigned)g->levels[d]->regions[r].kind);
    const pc_t *pc = &g->pc;
    if (pc->created)
        mark(u, T_RACE, pc->race), mark(u, T_CLASS, pc->cls);
    for (unsigned i = 0; i < SPELLS_MAX; i++)
        if (pc->spells >> i & 1)
            mark(u, T_SPELL, i);
    if (g->aim == AIM_SPELL)
        mark(u, T_SPELL, g->aim_arg);
    mark_order(g->c, T_CREATURE, CF_UNIQUE,
               pc->uniques_made | pc->uniques_seen | pc->uniques_killed, u);
    mark_order(g->c, T_ITEM, IKF_ARTIFACT, pc->artifacts_made | pc->artifacts_found, u);
    for (uint16_t k = 0; k < g->c->n_items; k++)
        if (ident_flavoured(g, k))
            mark(u, T_ITEM, k);
}

static void write_table(const content_t *c, int t, const used_t *u, ser_t *s)
{
    const table_t *tb = &TABLES[t];
    uint16_t n = count_of(c, tb), named = 0;
    if (n > KINDS_MAX && s->out)
        s->out->failed = true; /* its later kinds could not be named */
    for (uint16_t i = 0; i < n; i++)
        named += tb->all || marked(u, t, i);
    ser_u16(s, n);
    ser_u16(s, named);
    for (uint16_t i = 0; i < n; i++)
        if (tb->all || marked(u, t, i)) {
            ser_u16(s, i);
            ser_str(s, name_of(c, tb, i));
        }
}

static void write_order(const content_t *c, int t, uint32_t flag, uint64_t bits, ser_t *s)
{
    uint16_t kind[BITS_MAX];
    uint8_t bit[BITS_MAX];
    uint16_t n = flagged_set(c, t, flag, bits, kind, bit);
    ser_u16(s, n);
    for (uint16_t j = 0; j < n; j++) {
        ser_u8(s, bit[j]);
        ser_u16(s, kind[j]);
    }
}

void snapkinds_write(const game_t *g, ser_t *s)
{
    const content_t *c = g->c;
    const pc_t *pc = &g->pc;
    used_t u;
    memset(&u, 0, sizeof u);
    mark_state(g, &u);
    ser_str(s, c->version);
    for (int t = 0; t < T_COUNT; t++)
        write_table(c, t, &u, s);
    write_order(c, T_CREATURE, CF_UNIQUE, pc->uniques_made | pc->uniques_seen | pc->uniques_killed,
                s);
    write_order(c, T_ITEM, IKF_ARTIFACT, pc->artifacts_made | pc->artifacts_found, s);
    uint16_t n = 0;
    for (uint16_t k = 0; k < c->n_items; k++)
        n += ident_flavoured(g, k);
    ser_u16(s, n);
    for (uint16_t k = 0; k < c->n_items; k++)
        if (ident_flavoured(g, k)) {
            ser_u16(s, k);
            ser_u8(s, g->items.flavour[k]);
        }
}

/* ---- reading ---------------------------------------------------------------------- */

/* The index of name in table t of c (a guess first: most stay put), or KIND_GONE. */
static uint16_t find(const content_t *c, const table_t *t, const char *name, unsigned guess)
{
    uint16_t n = count_of(c, t);
    if (guess < n && strcmp(name_of(c, t, guess), name) == 0)
        return (uint16_t)guess;
    for (uint16_t i = 0; i < n; i++)
        if (strcmp(name_of(c, t, i), name) == 0)
            return i;
    return KIND_GONE;
}

/* Reads a table's names and maps each into table t of c. */
static void read_table(game_t *g, old_t *o, const table_t *t, rd_t *in)
{
    o->n = rd_u16(in);
    uint16_t named = rd_u16(in);
    if (in->bad || o->n > KINDS_MAX || named > o->n || (size_t)named * 4 > in->len - in->pos) {
        rd_fail(in, "bad kind table");
        return;
    }
    o->map = galloc(&g->al, (o->n ? o->n : 1u) * sizeof *o->map);
    o->names = gcalloc(&g->al, o->n ? o->n : 1, sizeof *o->names);
    if (!o->map || !o->names) {
        rd_fail(in, "out of memory");
        return;
    }
    for (uint16_t i = 0; i < o->n; i++)
        o->map[i] = KIND_UNNAMED;
    for (uint16_t j = 0; j < named && !in->bad; j++) {
        uint16_t i = rd_u16(in);
        if (i >= o->n || o->map[i] != KIND_UNNAMED) {
            rd_fail(in, "bad kind table");
            return;
        }
        rd_str(in, o->names[i], sizeof o->names[i]);
        o->map[i] = find(g->c, t, o->names[i], i);
    }
}

static void read_order(order_t *ord, const old_t *o, rd_t *in)
{
    ord->n = rd_u16(in);
    if (ord->n > BITS_MAX)
        rd_fail(in, "bad kind order");
    for (uint16_t j = 0; j < ord->n && !in->bad; j++) {
        ord->bit[j] = rd_u8(in);
        ord->kind[j] = rd_u16(in);
        if (ord->bit[j] >= BITS_MAX || ord->kind[j] >= o->n || o->map[ord->kind[j]] == KIND_UNNAMED)
            rd_fail(in, "bad kind order");
    }
}

static void read_flavours(game_t *g, snapkinds_t *k, rd_t *in)
{
    const old_t *o = &k->t[T_ITEM];
    k->flavour = galloc(&g->al, (o->n ? o->n : 1u) * sizeof *k->flavour);
    if (!k->flavour) {
        rd_fail(in, "out of memory");
        return;
    }
    for (uint16_t i = 0; i < o->n; i++)
        k->flavour[i] = FLAVOUR_NONE;
    uint16_t n = rd_u16(in);
    for (uint16_t j = 0; j < n && !in->bad; j++) {
        uint16_t i = rd_u16(in);
        uint8_t f = rd_u8(in);
        if (i >= o->n || o->map[i] == KIND_UNNAMED || k->flavour[i] != FLAVOUR_NONE)
            rd_fail(in, "bad flavour");
        else
            k->flavour[i] = f;
    }
}

/* Every named kind keeps its index, in tables of the same length. */
static bool maps_to_itself(const old_t *o, uint16_t n)
{
    if (o->n != n)
        return false;
    for (uint16_t i = 0; i < n; i++)
        if (o->map[i] != i && o->map[i] != KIND_UNNAMED)
            return false;
    return true;
}

/* The loading content's kinds in the snapshot's order; a kind it lacks
 * or the snapshot does not name holds its first kind (never used: apply
 * refuses a state that refers to one). */
static int make_shadow(game_t *g, snapkinds_t *k)
{
    const content_t *c = g->c;
    k->shadow = galloc(&g->al, sizeof *k->shadow);
    if (!k->shadow)
        return -1;
    *k->shadow = *c;
    for (int t = 0; t < T_COUNT; t++) {
        const table_t *tb = &TABLES[t];
        const old_t *o = &k->t[t];
        if (!tb->shadow)
            continue;
        char *rows = gcalloc(&g->al, o->n ? o->n : 1, tb->size);
        if (!rows)
            return -1;
        for (uint16_t i = 0; i < o->n; i++) {
            char *row = rows + (size_t)i * tb->size;
            uint16_t at = o->map[i] < count_of(c, tb) ? o->map[i] : 0;
            if (count_of(c, tb))
                memcpy(row, (const char *)table_of(c, tb) + (size_t)at * tb->size, tb->size);
            snprintf(row + tb->name, tb->nlen, "%s", o->names[i]);
        }
        k->rows[t] = rows;
        *(const void **)((char *)k->shadow + tb->tab) = rows;
        *(uint16_t *)((char *)k->shadow + tb->count) = o->n;
    }
    return 0;
}

snapkinds_t *snapkinds_read(game_t *g, rd_t *in)
{
    snapkinds_t *k = gcalloc(&g->al, 1, sizeof *k);
    if (!k) {
        rd_fail(in, "out of memory");
        return NULL;
    }
    k->c = g->c;
    rd_str(in, k->version, sizeof k->version);
    for (int t = 0; t < T_COUNT && !in->bad; t++)
        read_table(g, &k->t[t], &TABLES[t], in);
    if (!in->bad)
        read_order(&k->uniques, &k->t[T_CREATURE], in);
    if (!in->bad)
        read_order(&k->artifacts, &k->t[T_ITEM], in);
    if (!in->bad)
        read_flavours(g, k, in);
    k->identity = !in->bad;
    for (int t = 0; t < T_COUNT && k->identity; t++)
        k->identity = maps_to_itself(&k->t[t], count_of(g->c, &TABLES[t]));
    if (!in->bad && !k->identity && make_shadow(g, k) < 0)
        rd_fail(in, "out of memory");
    if (in->bad) {
        snapkinds_free(g, k);
        return NULL;
    }
    return k;
}

/* ---- moving a state read in the snapshot's order ------------------------------------ */

/* The loading content's index for old index i of table t; fails in,
 * naming the kind, when the loading content lacks it. */
static int moved(const snapkinds_t *k, int t, unsigned i, rd_t *in)
{
    const old_t *o = &k->t[t];
    if (i >= o->n || o->map[i] == KIND_UNNAMED) {
        rd_fail(in, "kind not named");
        return -1;
    }
    if (o->map[i] == KIND_GONE) {
        char why[sizeof in->why];
        snprintf(why, sizeof why, "%s \"%s\" of content %s is not in content %s", TABLES[t].what,
                 o->names[i], k->version, k->c->version);
        rd_fail(in, why);
        return -1;
    }
    return o->map[i];
}

static void move_objects(game_t *g, const snapkinds_t *k, rd_t *in)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && !in->bad; h = reg_next(&g->reg, h)) {
        obj_t *o = reg_get(&g->reg, h);
        int to = TYPE_TABLE[o->type] < 0 ? -1 : moved(k, TYPE_TABLE[o->type], o->kind, in);
        if (to >= 0)
            o->kind = (uint16_t)to;
        if (o->type == OBJ_ITEM && o->a[1] > 0 && (to = moved(k, T_EGO, o->a[1] - 1u, in)) >= 0)
            o->a[1] = to + 1;
    }
}

static void move_level(const snapkinds_t *k, level_t *lv, rd_t *in)
{
    size_t n = (size_t)lv->w * (size_t)lv->h;
    for (size_t i = 0; i < n && !in->bad; i++) {
        int to = moved(k, T_TERRAIN, lv->terrain[i], in);
        if (to > UINT8_MAX)
            rd_fail(in, "terrain kind out of range");
        lv->terrain[i] = (uint8_t)to;
        unsigned trap = lv->trap[i] & TRAP_KIND;
        if (trap && (to = moved(k, T_TRAP, trap - 1, in)) + 1 > TRAP_KIND)
            rd_fail(in, "trap kind out of range");
        if (trap)
            lv->trap[i] = (uint8_t)((lv->trap[i] & TRAP_FOUND) | (to + 1));
    }
    level_all_changed(lv);
    lv->hidden_ok = 0;         /* kinds moved: a secret door may be one now, or no more */
    level_regions_changed(lv); /* the regions' kinds move below: the sky made anew */
    for (int r = 0; r < lv->nregions && !in->bad; r++) {
        int to =
            lv->regions[r].kind < 0 ? -1 : moved(k, T_REGION, (unsigned)lv->regions[r].kind, in);
        lv->regions[r].kind = (int16_t)to;
    }
}

/* The character's kinds and spells, and a spell being aimed. */
static void move_pc(game_t *g, const snapkinds_t *k, rd_t *in)
{
    pc_t *pc = &g->pc;
    if (pc->created) {
        pc->race = (uint8_t)moved(k, T_RACE, pc->race, in);
        pc->cls = (uint8_t)moved(k, T_CLASS, pc->cls, in);
    }
    uint32_t spells = 0;
    for (unsigned i = 0; i < SPELLS_MAX && !in->bad; i++)
        if (pc->spells >> i & 1) {
            int to = moved(k, T_SPELL, i, in);
            spells |= to >= 0 && to < SPELLS_MAX ? 1u << to : 0;
        }
    pc->spells = spells;
    if (g->aim == AIM_SPELL && !in->bad)
        g->aim_arg = (uint32_t)moved(k, T_SPELL, g->aim_arg, in);
}

/* A set of bits in unique or artifact order, in the loading content's
 * order; kinds gone or no longer one of a kind drop out. */
static uint64_t move_bits(uint64_t bits, const order_t *ord, const old_t *o, const content_t *c,
                          int (*index)(const content_t *, uint16_t))
{
    uint64_t out = 0;
    for (uint16_t j = 0; j < ord->n; j++) {
        uint16_t to = o->map[ord->kind[j]];
        int b = bits >> ord->bit[j] & 1 && to < KIND_UNNAMED ? index(c, to) : -1;
        out |= b >= 0 ? 1ull << b : 0;
    }
    return out;
}

/* Looks (flavour indices) as a set. */
typedef struct {
    uint64_t w[4];
} looks_t;

static void look_add(looks_t *l, uint8_t x)
{
    l->w[x >> 6] |= 1ull << (x & 63);
}

static bool look_has(const looks_t *l, uint8_t x)
{
    return l->w[x >> 6] >> (x & 63) & 1;
}

/* A kind new to the game keeps the seed's deal, unless a kind of its
 * class already settled (kept from the snapshot, or new and before it)
 * shows that look: then it takes a look the deal gave its class that none
 * of those shows (the deal gave the class as many looks as it has kinds). */
static void unclash(game_t *g, const uint8_t *kept, const uint8_t *dealt)
{
    const content_t *c = g->c;
    uint8_t *look = g->items.flavour;
    for (uint16_t j = 0; j < c->n_items; j++) {
        if (kept[j] || !ident_flavoured(g, j))
            continue;
        looks_t used = {{0}}, offered = {{0}};
        look_add(&offered, dealt[j]);
        for (uint16_t i = 0; i < c->n_items; i++)
            if (i != j && c->items[i].cls == c->items[j].cls && ident_flavoured(g, i)) {
                look_add(&offered, dealt[i]);
                if (kept[i] || i < j)
                    look_add(&used, look[i]);
            }
        for (unsigned x = 0; look_has(&used, look[j]) && x < 256; x++)
            if (look_has(&offered, (uint8_t)x) && !look_has(&used, (uint8_t)x))
                look[j] = (uint8_t)x;
    }
}

/* Identification and flavours in the loading content's item order: kinds
 * new to the game get the seed's deal, never a look a kept kind shows.
 * g->c is the loading content. */
static int move_items(game_t *g, const snapkinds_t *k)
{
    const old_t *o = &k->t[T_ITEM];
    size_t n = g->c->n_items ? g->c->n_items : 1;
    uint8_t *known = g->items.known, *nk = gcalloc(&g->al, n, 1), *nf = gcalloc(&g->al, n, 1);
    uint8_t *kept = gcalloc(&g->al, n, 1), *dealt = galloc(&g->al, n);
    if (!nk || !nf || !kept || !dealt) {
        gfree(&g->al, nk);
        gfree(&g->al, nf);
        gfree(&g->al, kept);
        gfree(&g->al, dealt);
        return -1;
    }
    gfree(&g->al, g->items.flavour);
    g->items.known = nk;
    g->items.flavour = nf;
    ident_deal(g);
    memcpy(dealt, nf, n);
    for (uint16_t i = 0; i < o->n; i++)
        if (o->map[i] < KIND_UNNAMED) {
            nk[o->map[i]] = known[i] || !ident_flavoured(g, o->map[i]);
            if (k->flavour[i] != FLAVOUR_NONE)
                nf[o->map[i]] = (uint8_t)k->flavour[i], kept[o->map[i]] = 1;
        }
    unclash(g, kept, dealt);
    gfree(&g->al, known);
    gfree(&g->al, kept);
    gfree(&g->al, dealt);
    return 0;
}

int snapkinds_apply(game_t *g, snapkinds_t *k, const content_t *c, rd_t *in)
{
    if (!k->identity) {
        move_objects(g, k, in);
        for (int d = 0; d < LEVEL_IDS && !in->bad; d++)
            if (g->levels[d])
                move_level(k, g->levels[d], in);
        if (!in->bad)
            move_pc(g, k, in);
    }
    g->c = c;
    if (in->bad)
        return -1;
    pc_t *pc = &g->pc;
    const old_t *cr = &k->t[T_CREATURE], *it = &k->t[T_ITEM];
    pc->uniques_made = move_bits(pc->uniques_made, &k->uniques, cr, c, creature_unique_index);
    pc->uniques_seen = move_bits(pc->uniques_seen, &k->uniques, cr, c, creature_unique_index);
    pc->uniques_killed = move_bits(pc->uniques_killed, &k->uniques, cr, c, creature_unique_index);
    pc->artifacts_made = move_bits(pc->artifacts_made, &k->artifacts, it, c, ego_artifact_index);
    pc->artifacts_found = move_bits(pc->artifacts_found, &k->artifacts, it, c, ego_artifact_index);
    if (move_items(g, k) < 0) {
        rd_fail(in, "out of memory");
        return -1;
    }
    status_recount(g);
    return 0;
}

const content_t *snapkinds_content(const snapkinds_t *k)
{
    return k->shadow ? k->shadow : k->c;
}

void snapkinds_free(game_t *g, snapkinds_t *k)
{
    if (!k)
        return;
    for (int t = 0; t < T_COUNT; t++) {
        gfree(&g->al, k->t[t].map);
        gfree(&g->al, k->t[t].names);
        gfree(&g->al, k->rows[t]);
    }
    gfree(&g->al, k->flavour);
    gfree(&g->al, k->shadow);
    gfree(&g->al, k);
}
