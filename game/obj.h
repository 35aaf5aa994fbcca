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

typedef struct {
    obj_t *slot;
    uint16_t *gen;
    uint32_t n;   /* slots in use (high-water mark) */
    uint32_t cap; /* slots allocated */
    uint32_t live;
    galloc_t *al; /* borrowed */
} reg_t;

void reg_init(reg_t *r, galloc_t *al);
void reg_free(reg_t *r);
/* New zeroed object of the given type; *out (may be NULL) gets its pointer.
 * Returns its handle, or HANDLE_NONE on OOM / full registry. */
handle_t reg_new(reg_t *r, obj_type_t type, obj_t **out);
void reg_del(reg_t *r, handle_t h); /* stale handles are ignored */

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

void reg_save(const reg_t *r, ser_t *s);
/* Loads into an empty (just initialised) registry. 0, or -1 with r->... bad. */
int reg_load(reg_t *r, rd_t *in);

#endif
