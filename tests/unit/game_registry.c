/* Unit tests: game/obj — handles, stale and forged lookups, order, saves. */
#include <check.h>
#include "obj.h"

/* r saved into buf (left for the caller to free) and loaded into r2. */
static void round_trip(const reg_t *r, reg_t *r2, buf_t *buf)
{
    buf_init(buf);
    ser_t s;
    ser_init(&s, buf);
    reg_save(r, &s);
    rd_t in;
    rd_init(&in, (const uint8_t *)buf->data, buf->len);
    ck_assert_int_eq(reg_load(r2, &in), 0);
}

START_TEST(stale_handles_fail)
{
    galloc_t al = {0};
    reg_t r;
    reg_init(&r, &al);
    obj_t *o;
    handle_t a = reg_new(&r, OBJ_CREATURE, &o);
    ck_assert_uint_ne(a, HANDLE_NONE);
    o->hp = 7;
    ck_assert_ptr_eq(reg_get(&r, a), o);
    reg_del(&r, a);
    ck_assert_ptr_null(reg_get(&r, a));
    /* the slot is reused with a new generation: the old handle stays dead */
    handle_t b = reg_new(&r, OBJ_ITEM, NULL);
    ck_assert_uint_eq(b & OBJ_INDEX_MASK, a & OBJ_INDEX_MASK);
    ck_assert_uint_ne(a, b);
    ck_assert_ptr_null(reg_get(&r, a));
    ck_assert_ptr_nonnull(reg_get(&r, b));
    reg_del(&r, a); /* deleting through a stale handle does nothing */
    ck_assert_ptr_nonnull(reg_get(&r, b));
    reg_free(&r);
    ck_assert_uint_eq(al.bytes, 0);
}
END_TEST

START_TEST(forged_handles_fail)
{
    galloc_t al = {0};
    reg_t r;
    reg_init(&r, &al);
    handle_t h = reg_new(&r, OBJ_CREATURE, NULL);
    ck_assert_ptr_null(reg_get(&r, HANDLE_NONE));
    ck_assert_ptr_null(reg_get(&r, h + 1));                      /* index past the end */
    ck_assert_ptr_null(reg_get(&r, h & OBJ_INDEX_MASK));         /* generation 0 */
    ck_assert_ptr_null(reg_get(&r, h + (1u << OBJ_INDEX_BITS))); /* wrong generation */
    ck_assert_ptr_null(reg_get(&r, 0xFFFFFFFFu));
    for (uint32_t i = 0; i < 100000; i++) {
        handle_t f = i * 2654435761u;
        if (f != h)
            ck_assert_ptr_null(reg_get(&r, f));
    }
    reg_free(&r);
}
END_TEST

START_TEST(iteration_in_handle_order)
{
    galloc_t al = {0};
    reg_t r;
    reg_init(&r, &al);
    handle_t h[40];
    for (int i = 0; i < 40; i++)
        h[i] = reg_new(&r, OBJ_CREATURE, NULL);
    for (int i = 0; i < 40; i += 3)
        reg_del(&r, h[i]);
    int n = 0;
    uint32_t last = 0;
    for (handle_t x = reg_next(&r, HANDLE_NONE); x; x = reg_next(&r, x)) {
        ck_assert_uint_ge(x & OBJ_INDEX_MASK, last);
        last = (x & OBJ_INDEX_MASK) + 1;
        ck_assert_ptr_nonnull(reg_get(&r, x));
        n++;
    }
    ck_assert_int_eq(n, 40 - 14);
    ck_assert_uint_eq(r.live, 26);
    reg_free(&r);
}
END_TEST

START_TEST(save_load_keeps_generations)
{
    galloc_t al = {0};
    reg_t r, r2;
    reg_init(&r, &al);
    reg_init(&r2, &al);
    handle_t a = reg_new(&r, OBJ_CREATURE, NULL);
    obj_t *o;
    handle_t b = reg_new(&r, OBJ_EFFECT, &o);
    o->remaining = 1234;
    o->t = 99;
    reg_del(&r, a);
    buf_t buf;
    round_trip(&r, &r2, &buf);
    ck_assert_ptr_null(reg_get(&r2, a));
    ck_assert_int_eq(reg_get(&r2, b)->remaining, 1234);
    ck_assert_uint_eq(reg_get(&r2, b)->t, 99);
    handle_t c1 = reg_new(&r, OBJ_ITEM, NULL), c2 = reg_new(&r2, OBJ_ITEM, NULL);
    ck_assert_uint_eq(c1, c2); /* the same next handle after a round trip */
    /* every truncation fails cleanly */
    for (size_t len = 0; len < buf.len; len++) {
        reg_t r3;
        reg_init(&r3, &al);
        rd_t in;
        rd_init(&in, (const uint8_t *)buf.data, len);
        ck_assert_int_eq(reg_load(&r3, &in), -1);
        reg_free(&r3);
    }
    buf_free(&buf);
    reg_free(&r);
    reg_free(&r2);
    ck_assert_uint_eq(al.bytes, 0);
}
END_TEST

/* What reg_next_held gives for who, as slot indexes; how many. */
static int held_of(const reg_t *r, handle_t who, uint32_t *out)
{
    int n = 0;
    for (handle_t h = reg_next_held(r, who, HANDLE_NONE); h; h = reg_next_held(r, who, h))
        out[n++] = h & OBJ_INDEX_MASK;
    return n;
}

/* The holder index: items and effects under their target, in slot order,
 * through a change of holder, a delete, a slot reused by a new generation,
 * the registry's growth (a target slot the old size did not hold) and a
 * load; creatures (whose target is a foe) never listed. */
START_TEST(held_index_follows_targets)
{
    galloc_t al = {0};
    reg_t r, r2;
    reg_init(&r, &al);
    reg_init(&r2, &al);
    obj_t *o;
    handle_t a = reg_new(&r, OBJ_CREATURE, NULL), b = reg_new(&r, OBJ_CREATURE, NULL);
    handle_t it[6];
    for (int i = 0; i < 6; i++) {
        it[i] = reg_new(&r, i == 4 ? OBJ_EFFECT : OBJ_ITEM, &o);
        o->target = i % 2 ? b : a;
        reg_refile(&r, it[i]);
    }
    reg_get(&r, b)->target = a; /* b hunts a: not held by it */
    reg_refile(&r, b);
    uint32_t got[64];
    ck_assert_int_eq(held_of(&r, a, got), 3);
    ck_assert_uint_eq(got[0], 2);
    ck_assert_uint_eq(got[1], 4);
    ck_assert_uint_eq(got[2], 6);
    reg_get(&r, it[4])->target = b; /* the effect moves to b: filed in slot order */
    reg_refile(&r, it[4]);
    ck_assert_int_eq(held_of(&r, b, got), 4);
    ck_assert_uint_eq(got[0], 3);
    ck_assert_uint_eq(got[2], 6);
    ck_assert_uint_eq(got[3], 7);
    reg_del(&r, it[1]);
    ck_assert_int_eq(held_of(&r, b, got), 3);
    /* a dies, its slot reused: a's things stay filed there, not the new one's */
    reg_del(&r, a);
    handle_t c = reg_new(&r, OBJ_CREATURE, NULL);
    ck_assert_uint_eq(c & OBJ_INDEX_MASK, a & OBJ_INDEX_MASK);
    ck_assert_int_eq(held_of(&r, c, got), 0);
    ck_assert_int_eq(held_of(&r, a, got), 2);
    /* an item names a slot past the registry's size, then the size grows */
    handle_t far = (2u << OBJ_INDEX_BITS) | 40u;
    ck_assert_uint_lt(r.cap, 40);
    reg_get(&r, it[0])->target = far;
    reg_refile(&r, it[0]);
    ck_assert_uint_eq(r.held.l[it[0] & OBJ_INDEX_MASK].key, 0); /* no list for slot 40 yet */
    ck_assert_int_eq(held_of(&r, far, got), 1);                 /* a walk finds it */
    for (int i = 0; i < 40; i++)
        reg_new(&r, OBJ_ITEM, NULL);
    ck_assert_uint_gt(r.cap, 40);
    ck_assert_int_eq(held_of(&r, far, got), 1);
    ck_assert_uint_eq(got[0], it[0] & OBJ_INDEX_MASK);
    ck_assert_uint_eq(r.held.l[40].head, (it[0] & OBJ_INDEX_MASK) + 1); /* filed, not walked */
    /* a load files every object again */
    buf_t buf;
    round_trip(&r, &r2, &buf);
    ck_assert(r2.held.open);
    uint32_t got2[64];
    handle_t whos[] = {a, b, c, far};
    for (size_t i = 0; i < sizeof whos / sizeof whos[0]; i++) {
        int n = held_of(&r, whos[i], got);
        ck_assert_int_eq(held_of(&r2, whos[i], got2), n);
        for (int j = 0; j < n; j++)
            ck_assert_uint_eq(got[j], got2[j]);
    }
    buf_free(&buf);
    reg_free(&r);
    reg_free(&r2);
    ck_assert_uint_eq(al.bytes, 0);
}
END_TEST

Suite *suite_game_registry(void)
{
    Suite *s = suite_create("game_registry");
    TCase *t = tcase_create("core");
    tcase_add_test(t, stale_handles_fail);
    tcase_add_test(t, forged_handles_fail);
    tcase_add_test(t, iteration_in_handle_order);
    tcase_add_test(t, held_index_follows_targets);
    tcase_add_test(t, save_load_keeps_generations);
    suite_add_tcase(s, t);
    return s;
}
