/* Unit tests: server/hmap — the intrusive hash table behind the session
 * and address indexes: every entry found while it is in, none after it
 * left, equal hashes kept apart, growth that loses nothing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"

typedef struct {
    hnode_t hn;
    int key;
    int present;
} item_t;

static int find(const hmap_t *m, int key)
{
    int found = 0;
    HMAP_EACH(it, m, hmap_hash_u64((uint64_t)key))
    {
        if (HMAP_ITEM(it, item_t, hn)->key == key)
            found++;
    }
    return found;
}

/* Many adds and deletes in a mixed order: the table always holds exactly
 * the entries in, whatever its size was when each went in. */
START_TEST(many_in_and_out)
{
    enum { N = 20000 };
    item_t *v = calloc(N, sizeof *v);
    hmap_t m;
    hmap_init(&m);
    ck_assert_ptr_null(hmap_first(&m, 1));
    for (int i = 0; i < N; i++) {
        v[i].key = i;
        ck_assert_int_eq(hmap_add(&m, &v[i].hn, hmap_hash_u64((uint64_t)i)), 0);
        v[i].present = 1;
        if (i % 3 == 2) { /* take an older one out as we go */
            hmap_del(&m, &v[i / 2].hn);
            v[i / 2].present = 0;
        }
    }
    size_t in = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(find(&m, i), v[i].present);
        in += (size_t)v[i].present;
    }
    ck_assert_uint_eq(hmap_count(&m), in);
    ck_assert_uint_ge(m.nslots, in); /* it grew: chains stay short */
    size_t rest = 0;
    for (int i = 0; i < N; i++) {
        if (v[i].present && i < N / 2)
            hmap_del(&m, &v[i].hn);
        else
            rest += (size_t)v[i].present;
    }
    for (hnode_t *n; (n = hmap_pop(&m));) { /* the rest, each once */
        item_t *e = HMAP_ITEM(n, item_t, hn);
        ck_assert_int_ge(e->key, N / 2);
        ck_assert_int_eq(e->present, 1);
        e->present = 0;
        rest--;
    }
    ck_assert_uint_eq(rest, 0);
    ck_assert_uint_eq(hmap_count(&m), 0);
    ck_assert_int_eq(find(&m, 5), 0);
    hmap_fini(&m);
    free(v);
}
END_TEST

/* Entries with one hash (equal keys, or a collision) are all walked, and
 * only they: the caller tells keys apart. */
START_TEST(equal_hashes)
{
    item_t a = {.key = 1}, b = {.key = 2}, c = {.key = 3};
    hmap_t m;
    hmap_init(&m);
    hmap_add(&m, &a.hn, 42);
    hmap_add(&m, &b.hn, 42);
    hmap_add(&m, &c.hn, 42 + 16); /* same slot, another hash */
    int seen = 0, sum = 0;
    HMAP_EACH(it, &m, 42)
    {
        seen++;
        sum += HMAP_ITEM(it, item_t, hn)->key;
    }
    ck_assert_int_eq(seen, 2);
    ck_assert_int_eq(sum, 3);
    hmap_del(&m, &a.hn);
    ck_assert_ptr_eq(hmap_first(&m, 42), &b.hn);
    ck_assert_ptr_null(hmap_next(&b.hn));
    ck_assert_ptr_eq(hmap_first(&m, 42 + 16), &c.hn);
    hmap_fini(&m);
}
END_TEST

START_TEST(string_hashes)
{
    ck_assert_uint_eq(hmap_hash_nocase("Alice"), hmap_hash_nocase("aLICE"));
    ck_assert_uint_ne(hmap_hash_str("Alice"), hmap_hash_str("aLICE"));
    ck_assert_uint_eq(hmap_hash_str("10.0.0.1"), hmap_hash_str("10.0.0.1"));
    ck_assert_uint_ne(hmap_hash_str("10.0.0.1"), hmap_hash_str("10.0.0.2"));
    /* keys that differ in high bits only still spread over the low ones */
    ck_assert_uint_ne(hmap_hash_u64(1ull << 40) & 1023, hmap_hash_u64(1ull << 41) & 1023);
}
END_TEST

/* Strings an outsider picks to share a slot under the plain hash (FNV's
 * low 10 bits) spread under a keyed one, whose slots differ from one
 * secret to the next; the folded hash folds letters only, also past the
 * first piece of a long key. */
START_TEST(keyed_hashes)
{
    hmap_secret_t a, b;
    ck_assert_int_eq(hmap_secret_init(&a), 0);
    ck_assert_int_eq(hmap_secret_init(&b), 0);
    char s[32];
    unsigned target = (unsigned)(hmap_hash_str("k0") & 1023), found = 0, same_a = 0, moved = 0;
    for (unsigned i = 1; found < 32; i++) {
        snprintf(s, sizeof s, "k%u", i);
        if ((hmap_hash_str(s) & 1023) != target)
            continue;
        found++;
        same_a += (hmap_hash_keyed_str(&a, s) & 1023) == (hmap_hash_keyed_str(&a, "k0") & 1023);
        moved += (hmap_hash_keyed_str(&a, s) & 1023) != (hmap_hash_keyed_str(&b, s) & 1023);
    }
    ck_assert_uint_le(same_a, 3);
    ck_assert_uint_ge(moved, 28);
    ck_assert_uint_eq(hmap_hash_keyed_str(&a, "abc"), hmap_hash_keyed(&a, "abc", 3));
    ck_assert_uint_eq(hmap_hash_keyed_nocase(&a, "Agnes"), hmap_hash_keyed_nocase(&a, "aGNES"));
    ck_assert_uint_ne(hmap_hash_keyed_nocase(&a, "agnes"), hmap_hash_keyed_nocase(&a, "agnet"));
    char l1[600], l2[600];
    memset(l1, 'x', 599);
    memset(l2, 'X', 599);
    l1[599] = l2[599] = 0;
    ck_assert_uint_eq(hmap_hash_keyed_nocase(&a, l1), hmap_hash_keyed_nocase(&a, l2));
    l2[590] = 'y';
    ck_assert_uint_ne(hmap_hash_keyed_nocase(&a, l1), hmap_hash_keyed_nocase(&a, l2));
}
END_TEST

Suite *suite_server_hmap(void)
{
    Suite *s = suite_create("server_hmap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, many_in_and_out);
    tcase_add_test(tc, equal_hashes);
    tcase_add_test(tc, string_hashes);
    tcase_add_test(tc, keyed_hashes);
    suite_add_tcase(s, tc);
    return s;
}
