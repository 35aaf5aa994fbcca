/* obj — slot array with generations; lowest free slot first. */
#include "obj.h"
#include <string.h>

void reg_init(reg_t *r, galloc_t *al)
{
    memset(r, 0, sizeof *r);
    r->al = al;
}

void reg_free(reg_t *r)
{
    gfree(r->al, r->slot);
    gfree(r->al, r->gen);
    r->slot = NULL;
    r->gen = NULL;
    r->n = r->cap = r->live = 0;
}

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
    r->cap = cap;
    return 0;
}

static handle_t reg_make(const reg_t *r, uint32_t i)
{
    return ((uint32_t)r->gen[i] << OBJ_INDEX_BITS) | i;
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
    return reg_make(r, i);
}

void reg_del(reg_t *r, handle_t h)
{
    obj_t *o = reg_get(r, h);
    if (!o)
        return;
    uint32_t i = h & OBJ_INDEX_MASK;
    memset(o, 0, sizeof *o);
    /* a new generation makes every old handle to this slot stale */
    r->gen[i] = (uint16_t)(r->gen[i] >= OBJ_GEN_MAX ? 1 : r->gen[i] + 1);
    r->live--;
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
    return in->bad ? -1 : 0;
}
