/* Unit tests: server/byname — the ordered index of names behind a
 * watcher's < and >: after and before a name (present or not), around
 * the ends, equal names told apart by their tie, and nodes that left
 * never found again; checked against a sorted walk of every entry. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "byname.h"

typedef struct {
    bynode_t bn;
    char name[16];
    int id;
} item_t;

static item_t *item(bynode_t *n)
{
    return n ? BYNAME_ITEM(n, item_t, bn) : NULL;
}

/* What byname_after should give: the entry in nearest after name (dir >
 * 0) or before it, the smaller tie first going up; by a walk of all. */
static item_t *walk_after(item_t *v, int n, const char *name, int dir)
{
    item_t *best = NULL;
    for (int i = 0; i < n; i++) {
        if (!v[i].bn.in || strcmp(v[i].name, name) * dir <= 0)
            continue;
        int d = best ? strcmp(v[i].name, best->name) * dir : -1;
        if (d < 0 || (d == 0 && (v[i].id - best->id) * dir < 0))
            best = &v[i];
    }
    return best;
}

START_TEST(after_and_before_match_a_walk)
{
    enum { N = 3000 };
    item_t *v = calloc(N, sizeof *v);
    byname_t idx;
    byname_init(&idx);
    ck_assert_ptr_null(byname_after(&idx, "a", 1));
    ck_assert_ptr_null(byname_end(&idx, -1));
    srand(7);
    for (int i = 0; i < N; i++) { /* few letters: equal names, ties */
        snprintf(v[i].name, sizeof v[i].name, "%c%c", 'a' + rand() % 12, 'a' + rand() % 12);
        v[i].id = i;
        byname_add(&idx, &v[i].bn, v[i].name, i);
        if (i % 3 == 2)
            byname_del(&idx, &v[i / 2].bn);
    }
    size_t in = 0;
    for (int i = 0; i < N; i++)
        in += v[i].bn.in;
    ck_assert_uint_eq(idx.count, in);
    char probe[4];
    for (int a = 'a' - 1; a <= 'a' + 12; a++)
        for (int b = 'a' - 1; b <= 'a' + 12; b++)
            for (int dir = -1; dir <= 1; dir += 2) {
                snprintf(probe, sizeof probe, "%c%c", a, b);
                ck_assert_ptr_eq(item(byname_after(&idx, probe, dir)),
                                 walk_after(v, N, probe, dir));
            }
    free(v);
}
END_TEST

/* The ends, each step in order, equal names by tie; a node added twice or
 * taken out twice counts once. */
START_TEST(ends_steps_and_ties)
{
    item_t v[] = {{.name = "mia"}, {.name = "Bob"}, {.name = "zed"}, {.name = "mia"}};
    byname_t idx;
    byname_init(&idx);
    for (int i = 0; i < 4; i++)
        byname_add(&idx, &v[i].bn, v[i].name, 10 - i);
    byname_add(&idx, &v[0].bn, v[0].name, 10);
    ck_assert_uint_eq(idx.count, 4);
    /* strcmp's order: capitals first; the two mias by tie (7, then 10) */
    item_t *want[] = {&v[1], &v[3], &v[0], &v[2]};
    bynode_t *n = byname_end(&idx, 1);
    for (int i = 0; i < 4; i++, n = byname_step(n, 1))
        ck_assert_ptr_eq(item(n), want[i]);
    ck_assert_ptr_null(n);
    n = byname_end(&idx, -1);
    for (int i = 3; i >= 0; i--, n = byname_step(n, -1))
        ck_assert_ptr_eq(item(n), want[i]);
    ck_assert_ptr_null(n);
    ck_assert_ptr_eq(item(byname_after(&idx, "mia", 1)), &v[2]);
    ck_assert_ptr_eq(item(byname_after(&idx, "mia", -1)), &v[1]);
    ck_assert_ptr_null(byname_after(&idx, "zed", 1));
    ck_assert_ptr_null(byname_after(&idx, "Bob", -1));
    byname_del(&idx, &v[2].bn);
    byname_del(&idx, &v[2].bn);
    ck_assert_uint_eq(idx.count, 3);
    ck_assert(!v[2].bn.in);
    ck_assert_ptr_null(byname_after(&idx, "mia", 1));
    ck_assert_ptr_eq(item(byname_end(&idx, -1)), &v[0]);
}
END_TEST

Suite *suite_server_byname(void)
{
    Suite *s = suite_create("server_byname");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, after_and_before_match_a_walk);
    tcase_add_test(tc, ends_steps_and_ties);
    suite_add_tcase(s, tc);
    return s;
}
