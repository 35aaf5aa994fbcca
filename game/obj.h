/* obj — the object registry: every game object lives in one slot array and
 * is addressed by a 32-bit handle (slot index + generation).
 *
 * A handle is never 0. Looking up a stale handle (the object was deleted,
 * maybe the slot reused) or a forged one (index out of range, wrong
 * generation) returns NULL. Nothing keeps an obj_t pointer across turns:
 * pointers are valid only until the next reg_new (the array may move).
 * Iteration (reg_next) is in slot order, which is deterministic; a new
 * object takes the lowest free slot, so slot reuse depends only on state.
 *
 * The registry is saved whole (reg_save/reg_load): generations of free slots
 * included, so handles stay unique across a snapshot. */
#ifndef WARREN_OBJ_H
#define WARREN_OBJ_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "alloc.h"
#include "ser.h"

typedef uint32_t handle_t;
#define HANDLE_NONE    0u
#define OBJ_INDEX_BITS 20
#define OBJ_INDEX_MASK ((1u << OBJ_INDEX_BITS) - 1u)
#define OBJ_GEN_MAX    0xFFFu /* 12 bits of generation */
#define OBJ_MAX_SLOTS  65536u /* a sane bound for loads; far above any level */

typedef enum { OBJ_FREE = 0, OBJ_CREATURE, OBJ_ITEM, OBJ_EFFECT, OBJ_TYPES } obj_type_t;

/* Creature flags (bits 0-1 and 6-7; items use bits 2-5, item.h).
 * OF_AWARE: it has noticed its foe and hunts it; OF_ASLEEP: it sleeps
 * (its turns pass until it wakes); OF_REGEN: its regeneration is
 * scheduled (creature.c). */
/* OF_ANGRY: a peaceful kind's keeper turned hostile (shop.h; bit 2 is an
 * item bit too, never both on one object). OF_DISGUISED: it passes for
 * its kind's disguise (a statue, say) until it gives itself away (bit 3
 * is an item bit too). */
enum {
    OF_PLAYER = 1 << 0,
    OF_AWARE = 1 << 1,
    OF_ANGRY = 1 << 2,
    OF_DISGUISED = 1 << 3,
    OF_ASLEEP = 1 << 6,
    OF_REGEN = 1 << 7
};

/* One object. Fields are plain integers so saving is field by field.
 * Creatures: kind indexes content creatures; pos, hp, speed (its base
 * speed in percent: what it moves at is derived, status.h); target is the
 * creature it hunts (HANDLE_NONE: the player); a[0..1], remaining and
 * magnitude are AI memory (ai.c), t the tick before which it casts no
 * spell.
 * Effects: kind indexes content effects; target is the affected object,
 * magnitude and remaining (ticks) its strength and time left, t the tick of
 * its last accounting. */
typedef struct {
    uint8_t type; /* obj_type_t */
    uint8_t flags;
    uint16_t kind;
    int16_t x, y;
    int16_t depth;
    int16_t speed;
    int32_t hp, hp_max;
    handle_t target;
    int32_t magnitude;
    int32_t remaining;
    int32_t a[2]; /* per-type scratch kept in saves (AI memory) */
    uint64_t t;
} obj_t;

/* The map index: which objects stand on each cell of one level (the live
 * one), so that a look at a cell or at the level's creatures reads only
 * those, not every object. An object is on the map when it is a creature,
 * or an item no one carries (target HANDLE_NONE), at the index's depth and
 * inside its w x h. Cells share REG_INDEX_BUCKETS lists (cell index modulo
 * the count: a few hundred bytes a game, whatever the level's size); each
 * list and the creature list are in slot order, the order reg_next walks:
 * a look through the index meets the objects a full walk would, in the
 * same order.
 *
 * Derived, never saved: opened for the live level (level_live), closed when
 * it sleeps, or when the registry grows past REG_INDEX_SLOTS (every look
 * then walks all objects, to the same answers). Whoever changes an object's
 * x, y, depth or (an item's) target calls reg_refile after; reg_new files
 * nothing, reg_del unfiles. Links are slot index + 1, 0 the end. */
#define REG_INDEX_BUCKETS 256u
#define REG_INDEX_SLOTS   65535u
typedef struct {
    int16_t depth; /* -1: closed */
    int16_t w, h;
    uint16_t chead;  /* the first creature on the map */
    uint16_t *next;  /* cap: the next object in its bucket */
    uint16_t *cnext; /* cap: the next creature on the map */
    int32_t *cell;   /* cap: the cell the slot is filed at, -1 none */
    uint16_t head
        [REG_INDEX_BUCKETS]; /* the first object of each bucket (last: a look reads one line of it) */
} reg_index_t;

/* The holder index: the objects whose target each slot is (the items a
 * creature carries, the effects on an object), so that a look at one
 * creature's pack, gear or effects reads those, not every object. An item
 * or an effect is filed under its target's slot (any generation: a look
 * checks the whole handle), when that slot is below cap; creatures (whose
 * target is a foe) never are. Each list is in slot order, the order
 * reg_next walks.
 *
 * Derived, never saved: kept from reg_init on, rebuilt after a load and
 * when the registry grows; closed when memory for it fails or the
 * registry grows past REG_INDEX_SLOTS (every look then walks all objects,
 * to the same answers). Whoever changes an item's or an effect's target
 * calls reg_refile after (the map index's rule); reg_del unfiles. One
 * slot's three links side by side: a look reads one line of them. */
typedef struct {
    uint16_t head; /* the first object whose target is this slot */
    uint16_t next; /* the next object filed under the same target slot */
    uint16_t key;  /* the target slot this one is filed under + 1; 0 none */
} reg_hlink_t;

typedef struct {
    bool open;
    reg_hlink_t *l; /* cap */
} reg_held_t;

typedef struct {
    obj_t *slot;
    uint16_t *gen;
    uint32_t n;   /* slots in use (high-water mark) */
    uint32_t cap; /* slots allocated */
    uint32_t live;
    galloc_t *al;    /* borrowed */
    reg_held_t held; /* owned */
    reg_index_t ix;  /* owned; its buckets last */
} reg_t;

void reg_init(reg_t *r, galloc_t *al);
void reg_free(reg_t *r);
/* New zeroed object of the given type; *out (may be NULL) gets its pointer.
 * Returns its handle, or HANDLE_NONE on OOM / full registry. */
handle_t reg_new(reg_t *r, obj_type_t type, obj_t **out);
void reg_del(reg_t *r, handle_t h); /* stale handles are ignored */

static inline handle_t reg_make_handle(const reg_t *r, uint32_t i)
{
    return ((uint32_t)r->gen[i] << OBJ_INDEX_BITS) | i;
}

/* The object of h; NULL: stale, forged or NONE. Here, not in obj.c: the
 * engine looks objects up and walks them several times a key. */
static inline obj_t *reg_get(const reg_t *r, handle_t h)
{
    uint32_t i = h & OBJ_INDEX_MASK;
    if (h == HANDLE_NONE || i >= r->n)
        return NULL;
    if (r->slot[i].type == OBJ_FREE || r->gen[i] != (h >> OBJ_INDEX_BITS))
        return NULL;
    return &r->slot[i];
}

/* The first live handle after `after` in slot order (HANDLE_NONE starts);
 * HANDLE_NONE at the end. Deleting the current object while iterating is safe. */
static inline handle_t reg_next(const reg_t *r, handle_t after)
{
    uint32_t i = after == HANDLE_NONE ? 0 : (after & OBJ_INDEX_MASK) + 1;
    for (; i < r->n; i++)
        if (r->slot[i].type != OBJ_FREE)
            return ((uint32_t)r->gen[i] << OBJ_INDEX_BITS) | i;
    return HANDLE_NONE;
}

/* Opens the map index for depth (w x h cells), filing every object on the
 * map there: 0, or -1 on OOM (the index stays closed). Closes any other. */
int reg_index_open(reg_t *r, int depth, int w, int h);
void reg_index_close(reg_t *r);
/* Files h where it now stands (or nowhere) in the map index and under its
 * target in the holder index: after any change of its x, y, depth or
 * target. Cheap when nothing changed; stale handles are ignored. */
void reg_refile(reg_t *r, handle_t h);

/* Whether the index answers for (depth, x, y): open for depth, the cell
 * inside it. Else the caller walks every object. */
static inline bool reg_index_covers(const reg_t *r, int depth, int x, int y)
{
    return r->ix.depth >= 0 && depth == r->ix.depth && x >= 0 && y >= 0 && x < r->ix.w &&
           y < r->ix.h;
}

static inline handle_t reg_index_handle(const reg_t *r, uint32_t link)
{
    return link ? reg_make_handle(r, link - 1) : HANDLE_NONE;
}

/* From link on, the first object filed at cell c; HANDLE_NONE: none. */
static inline handle_t reg_index_from(const reg_t *r, uint32_t link, int32_t c)
{
    while (link && r->ix.cell[link - 1] != c)
        link = r->ix.next[link - 1];
    return reg_index_handle(r, link);
}

/* The first object on a covered cell (slot order), HANDLE_NONE: none. */
static inline handle_t reg_index_at(const reg_t *r, int x, int y)
{
    int32_t c = y * r->ix.w + x;
    return reg_index_from(r, r->ix.head[(uint32_t)c % REG_INDEX_BUCKETS], c);
}

/* The next object on the same cell as h (filed), HANDLE_NONE: the last. */
static inline handle_t reg_index_next_at(const reg_t *r, handle_t h)
{
    uint32_t i = h & OBJ_INDEX_MASK;
    return reg_index_from(r, r->ix.next[i], r->ix.cell[i]);
}

/* The creatures on the map of the open index's depth in slot order:
 * HANDLE_NONE starts; HANDLE_NONE at the end. Not safe across a change
 * of the creature walked (refile or delete it after stepping on). */
static inline handle_t reg_index_next_creature(const reg_t *r, handle_t after)
{
    return reg_index_handle(r, after ? r->ix.cnext[after & OBJ_INDEX_MASK] : r->ix.chead);
}

/* The objects filed in the open map index (its creatures and the items
 * on its floor), bucket after bucket: those of any one cell in slot
 * order, as reg_next meets them. *bucket 0 and HANDLE_NONE start;
 * HANDLE_NONE at the end. Not safe across a refile of the one walked. */
static inline handle_t reg_index_next_filed(const reg_t *r, uint32_t *bucket, handle_t after)
{
    uint32_t link = after ? r->ix.next[after & OBJ_INDEX_MASK] : 0;
    while (!link && *bucket < REG_INDEX_BUCKETS) {
        uint64_t four = 1; /* four empty buckets passed in one look */
        if (*bucket % 4 == 0)
            memcpy(&four, &r->ix.head[*bucket], sizeof four);
        if (!four)
            *bucket += 4;
        else
            link = r->ix.head[(*bucket)++];
    }
    return reg_index_handle(r, link);
}

/* A walk of the creatures at depth, slot order: the index's creatures when
 * it is open there, else every object (the caller still checks each one's
 * type and depth). HANDLE_NONE starts and ends. */
static inline handle_t reg_next_near(const reg_t *r, int depth, handle_t after)
{
    return r->ix.depth >= 0 && depth == r->ix.depth ? reg_index_next_creature(r, after)
                                                    : reg_next(r, after);
}

/* From link on (a holder list's), the first object whose target is who. */
static inline handle_t reg_held_from(const reg_t *r, uint32_t link, handle_t who)
{
    while (link && r->slot[link - 1].target != who)
        link = r->held.l[link - 1].next;
    return reg_index_handle(r, link);
}

/* The next item or effect after `after` whose target is who (what who
 * carries, the effects on it), in slot order; HANDLE_NONE starts and
 * ends. Through the holder index when it is open, else a walk of every
 * object (creatures skipped: their target is a foe). The caller still
 * checks each one's type. Not safe across a change of the object walked
 * (its target changed, or it deleted): take the next one first. */
static inline handle_t reg_next_held(const reg_t *r, handle_t who, handle_t after)
{
    uint32_t w = who & OBJ_INDEX_MASK;
    if (r->held.open && who != HANDLE_NONE && w < r->cap)
        return reg_held_from(r, after ? r->held.l[after & OBJ_INDEX_MASK].next : r->held.l[w].head,
                             who);
    for (handle_t h = reg_next(r, after); h; h = reg_next(r, h)) {
        const obj_t *o = &r->slot[h & OBJ_INDEX_MASK];
        if (o->type != OBJ_CREATURE && o->target == who)
            return h;
    }
    return HANDLE_NONE;
}

void reg_save(const reg_t *r, ser_t *s);
/* Loads into an empty (just initialised) registry. 0, or -1 with r->... bad. */
int reg_load(reg_t *r, rd_t *in);

#endif
