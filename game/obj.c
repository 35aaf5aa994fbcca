/* obj — slot array with generations; lowest free slot first. */
#include "obj.h"
#include <string.h>

void reg_init(reg_t *r, galloc_t *al)
{
    memset(r, 0, sizeof *r);
    r->al = al;
    r->ix.depth = -1;
    r->held.open = true; /* empty: nothing to file yet */
}

void reg_free(reg_t *r)
{
    reg_index_close(r);
    gfree(r->al, r->held.l);
    r->held.l = NULL;
    r->held.open = false;
    gfree(r->al, r->slot);
    gfree(r->al, r->gen);
    r->slot = NULL;
    r->gen = NULL;
    r->n = r->cap = r->live = 0;
}

static int index_grow(reg_t *r, uint32_t from, uint32_t cap);
static void held_grow(reg_t *r, uint32_t cap);

static int reg_grow(reg_t *r, uint32_t want)
{
    if (want <= r->cap)
        return 0;
    if (want > OBJ_MAX_SLOTS)
        return -1;
    uint32_t cap = r->cap ? r->cap : 16;
    while (cap < want)
        cap *= 2;
    if (cap > OBJ_MAX_SLOTS)
        cap = OBJ_MAX_SLOTS;
    obj_t *s = grealloc(r->al, r->slot, cap * sizeof *s);
    if (!s)
        return -1;
    r->slot = s;
    uint16_t *g = grealloc(r->al, r->gen, cap * sizeof *g);
    if (!g)
        return -1;
    r->gen = g;
    for (uint32_t i = r->cap; i < cap; i++) {
        memset(&r->slot[i], 0, sizeof r->slot[i]);
        r->gen[i] = 1;
    }
    if (r->ix.depth >= 0 && (cap > REG_INDEX_SLOTS || index_grow(r, r->cap, cap) < 0))
        reg_index_close(r); /* looks walk every object again */
    r->cap = cap;
    held_grow(r, cap);
    return 0;
}

handle_t reg_new(reg_t *r, obj_type_t type, obj_t **out)
{
    uint32_t i = 0;
    while (i < r->n && r->slot[i].type != OBJ_FREE)
        i++;
    if (i == r->n && reg_grow(r, r->n + 1) < 0)
        return HANDLE_NONE;
    if (i == r->n)
        r->n++;
    memset(&r->slot[i], 0, sizeof r->slot[i]);
    r->slot[i].type = (uint8_t)type;
    r->live++;
    if (out)
        *out = &r->slot[i];
    return reg_make_handle(r, i);
}

void reg_del(reg_t *r, handle_t h)
{
    obj_t *o = reg_get(r, h);
    if (!o)
        return;
    uint32_t i = h & OBJ_INDEX_MASK;
    if (r->ix.depth >= 0 || r->held.open) {
        o->depth = -1; /* off the map, held by none: unfiled */
        o->target = HANDLE_NONE;
        reg_refile(r, h);
    }
    memset(o, 0, sizeof *o);
    /* a new generation makes every old handle to this slot stale */
    r->gen[i] = (uint16_t)(r->gen[i] >= OBJ_GEN_MAX ? 1 : r->gen[i] + 1);
    r->live--;
}

/* ---- the map index -------------------------------------------------------- */

/* The per-slot arrays from slot `from` up to cap: nothing filed there. */
static int index_grow(reg_t *r, uint32_t from, uint32_t cap)
{
    reg_index_t *ix = &r->ix;
    uint16_t *next = grealloc(r->al, ix->next, cap * sizeof *next);
    if (next)
        ix->next = next;
    uint16_t *cnext = grealloc(r->al, ix->cnext, cap * sizeof *cnext);
    if (cnext)
        ix->cnext = cnext;
    int32_t *cell = grealloc(r->al, ix->cell, cap * sizeof *cell);
    if (cell)
        ix->cell = cell;
    if (!next || !cnext || !cell)
        return -1;
    for (uint32_t i = from; i < cap; i++)
        ix->next[i] = ix->cnext[i] = 0, ix->cell[i] = -1;
    return 0;
}

void reg_index_close(reg_t *r)
{
    reg_index_t *ix = &r->ix;
    gfree(r->al, ix->next);
    gfree(r->al, ix->cnext);
    gfree(r->al, ix->cell);
    memset(ix, 0, sizeof *ix);
    ix->depth = -1;
}

int reg_index_open(reg_t *r, int depth, int w, int h)
{
    reg_index_close(r);
    if (depth < 0 || w <= 0 || h <= 0 || r->cap > REG_INDEX_SLOTS)
        return -1;
    reg_index_t *ix = &r->ix;
    ix->depth = (int16_t)depth;
    ix->w = (int16_t)w;
    ix->h = (int16_t)h;
    if (index_grow(r, 0, r->cap ? r->cap : 1) < 0) {
        reg_index_close(r);
        return -1;
    }
    /* from the last slot down: each lands at its lists' heads, in slot order */
    for (uint32_t i = r->n; i-- > 0;)
        if (r->slot[i].type != OBJ_FREE)
            reg_refile(r, reg_make_handle(r, i));
    return 0;
}

/* The cell o stands on in the index, -1 when it is not on the map there. */
static int32_t index_cell(const reg_index_t *ix, const obj_t *o)
{
    bool placed = o->type == OBJ_CREATURE || (o->type == OBJ_ITEM && !o->target);
    if (!placed || o->depth != ix->depth || o->x < 0 || o->y < 0 || o->x >= ix->w || o->y >= ix->h)
        return -1;
    return o->y * ix->w + o->x;
}

/* Links slot i into the list from *head, in slot order. */
static void link_in(uint16_t *head, uint16_t *next, uint32_t i)
{
    while (*head && *head - 1u < i)
        head = &next[*head - 1];
    next[i] = *head;
    *head = (uint16_t)(i + 1);
}

static void link_out(uint16_t *head, uint16_t *next, uint32_t i)
{
    while (*head && *head != i + 1)
        head = &next[*head - 1];
    if (*head)
        *head = next[i];
    next[i] = 0;
}

/* ---- the holder index ----------------------------------------------------- */

/* Links slot i into the holder list from *head, in slot order. */
static void held_link_in(reg_hlink_t *l, uint16_t *head, uint32_t i)
{
    while (*head && *head - 1u < i)
        head = &l[*head - 1].next;
    l[i].next = *head;
    *head = (uint16_t)(i + 1);
}

static void held_link_out(reg_hlink_t *l, uint16_t *head, uint32_t i)
{
    while (*head && *head != i + 1)
        head = &l[*head - 1].next;
    if (*head)
        *head = l[i].next;
    l[i].next = 0;
}

/* The target slot + 1 o is filed under, 0 none. */
static uint16_t held_key(const reg_t *r, const obj_t *o)
{
    uint32_t t = o->target & OBJ_INDEX_MASK;
    if ((o->type != OBJ_ITEM && o->type != OBJ_EFFECT) || !o->target || t >= r->cap)
        return 0;
    return (uint16_t)(t + 1);
}

static void held_refile(reg_t *r, uint32_t i, const obj_t *o)
{
    reg_hlink_t *l = r->held.l;
    uint16_t was = l[i].key, now = held_key(r, o);
    if (was == now)
        return;
    if (was)
        held_link_out(l, &l[was - 1].head, i);
    if (now)
        held_link_in(l, &l[now - 1].head, i);
    l[i].key = now;
}

/* Every link anew for cap slots: after a load, and when the registry grows
 * (an object may name a target slot the old cap did not hold). */
static void held_grow(reg_t *r, uint32_t cap)
{
    if (!r->held.open || cap == 0)
        return;
    reg_hlink_t *l = cap <= REG_INDEX_SLOTS ? grealloc(r->al, r->held.l, cap * sizeof *l) : NULL;
    if (!l) { /* looks walk every object again */
        gfree(r->al, r->held.l);
        r->held.l = NULL;
        r->held.open = false;
        return;
    }
    memset(l, 0, cap * sizeof *l);
    r->held.l = l;
    /* from the last slot down: each lands at its list's head, in slot order */
    for (uint32_t i = r->n; i-- > 0;)
        if (r->slot[i].type != OBJ_FREE)
            held_refile(r, i, &r->slot[i]);
}

void reg_refile(reg_t *r, handle_t h)
{
    reg_index_t *ix = &r->ix;
    const obj_t *o = reg_get(r, h);
    if (!o)
        return;
    uint32_t i = h & OBJ_INDEX_MASK;
    if (r->held.open && o->type != OBJ_CREATURE)
        held_refile(r, i, o);
    if (ix->depth < 0)
        return;
    int32_t was = ix->cell[i], now = index_cell(ix, o);
    if (was == now)
        return;
    if (was >= 0)
        link_out(&ix->head[(uint32_t)was % REG_INDEX_BUCKETS], ix->next, i);
    if (now >= 0)
        link_in(&ix->head[(uint32_t)now % REG_INDEX_BUCKETS], ix->next, i);
    ix->cell[i] = now;
    if (o->type == OBJ_CREATURE && (was < 0) != (now < 0)) {
        if (now >= 0)
            link_in(&ix->chead, ix->cnext, i);
        else
            link_out(&ix->chead, ix->cnext, i);
    }
}

static void obj_save(const obj_t *o, ser_t *s)
{
    ser_u8(s, o->flags);
    ser_u16(s, o->kind);
    ser_u16(s, (uint16_t)o->x);
    ser_u16(s, (uint16_t)o->y);
    ser_u16(s, (uint16_t)o->depth);
    ser_u16(s, (uint16_t)o->speed);
    ser_i32(s, o->hp);
    ser_i32(s, o->hp_max);
    ser_u32(s, o->target);
    ser_i32(s, o->magnitude);
    ser_i32(s, o->remaining);
    ser_i32(s, o->a[0]);
    ser_i32(s, o->a[1]);
    ser_u64(s, o->t);
}

static void obj_load(obj_t *o, rd_t *in)
{
    o->flags = rd_u8(in);
    o->kind = rd_u16(in);
    o->x = (int16_t)rd_u16(in);
    o->y = (int16_t)rd_u16(in);
    o->depth = (int16_t)rd_u16(in);
    o->speed = (int16_t)rd_u16(in);
    o->hp = rd_i32(in);
    o->hp_max = rd_i32(in);
    o->target = rd_u32(in);
    o->magnitude = rd_i32(in);
    o->remaining = rd_i32(in);
    o->a[0] = rd_i32(in);
    o->a[1] = rd_i32(in);
    o->t = rd_u64(in);
}

void reg_save(const reg_t *r, ser_t *s)
{
    ser_u32(s, r->n);
    for (uint32_t i = 0; i < r->n; i++) {
        ser_u16(s, r->gen[i]);
        ser_u8(s, r->slot[i].type);
        if (r->slot[i].type != OBJ_FREE)
            obj_save(&r->slot[i], s);
    }
}

int reg_load(reg_t *r, rd_t *in)
{
    uint32_t n = rd_u32(in);
    if (in->bad)
        return -1;
    /* every slot takes at least 3 bytes: reject counts the blob cannot hold */
    if (n > OBJ_MAX_SLOTS || n > (in->len - in->pos) / 3) {
        rd_fail(in, "bad object count");
        return -1;
    }
    if (reg_grow(r, n) < 0) {
        rd_fail(in, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n && !in->bad; i++) {
        uint16_t g = rd_u16(in);
        uint8_t type = rd_u8(in);
        if (g == 0 || g > OBJ_GEN_MAX || type >= OBJ_TYPES) {
            rd_fail(in, "bad object slot");
            return -1;
        }
        r->gen[i] = g;
        memset(&r->slot[i], 0, sizeof r->slot[i]);
        r->slot[i].type = type;
        if (type != OBJ_FREE) {
            obj_load(&r->slot[i], in);
            r->live++;
        }
    }
    r->n = n;
    held_grow(r, r->cap); /* every object filed under its target */
    return in->bad ? -1 : 0;
}
