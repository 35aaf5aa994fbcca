/* Unit tests: server/budget — one connection budget for every gateway:
 * the total, the per-address cap, slots charged to the total only until
 * their address is known, and moves between addresses. */
#include <check.h>
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include "budget.h"

START_TEST(total_and_per_address)
{
    budget_t *b = budget_new(5, 2);
    budget_slot_t s[8];
    ck_assert_int_eq(budget_take(b, &s[0], "10.0.0.1", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_take(b, &s[1], "10.0.0.1", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_take(b, &s[2], "10.0.0.1", NULL),
                     BUDGET_ADDR); /* a third from one address */
    ck_assert(!s[2].held);
    budget_release(b, &s[2]); /* not held: nothing happens */
    ck_assert_int_eq(budget_count(b, "10.0.0.1"), 2);
    ck_assert_int_eq(budget_take(b, &s[3], "10.0.0.2", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_take(b, &s[4], NULL, NULL), BUDGET_OK); /* total only */
    ck_assert_int_eq(budget_take(b, &s[5], "", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_total(b), 5);
    ck_assert_int_eq(budget_take(b, &s[6], "10.0.0.3", NULL), BUDGET_FULL);
    budget_release(b, &s[0]);
    budget_release(b, &s[0]); /* twice is once */
    ck_assert_int_eq(budget_total(b), 4);
    ck_assert_int_eq(budget_count(b, "10.0.0.1"), 1);
    ck_assert_int_eq(budget_take(b, &s[6], "10.0.0.1", NULL), BUDGET_OK);
    for (int i = 1; i < 7; i++)
        budget_release(b, &s[i]);
    ck_assert_int_eq(budget_total(b), 0);
    ck_assert_int_eq(budget_count(b, "10.0.0.1"), 0);
    budget_free(b);
    budget_free(NULL);
}
END_TEST

/* A Unix-socket client or a proxied request: counted in the total first,
 * then charged to the address it names, if that address has room. */
START_TEST(moving_a_slot)
{
    budget_t *b = budget_new(10, 1);
    budget_slot_t proxy[3], direct;
    ck_assert_int_eq(budget_take(b, &direct, "192.0.2.7", NULL), BUDGET_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(budget_take(b, &proxy[i], NULL, NULL), BUDGET_OK);
    ck_assert_int_eq(budget_move(b, &proxy[0], "198.51.100.1", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_move(b, &proxy[0], "198.51.100.1", NULL), BUDGET_OK); /* same: fine */
    ck_assert_int_eq(budget_move(b, &proxy[1], "198.51.100.1", NULL), BUDGET_ADDR);
    ck_assert_str_eq(proxy[1].addr, ""); /* keeps its old charge */
    ck_assert_int_eq(budget_move(b, &proxy[2], "192.0.2.7", NULL), BUDGET_ADDR);
    ck_assert_int_eq(budget_move(b, &proxy[2], "198.51.100.2", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_count(b, "198.51.100.2"), 1);
    ck_assert_int_eq(budget_move(b, &proxy[2], "198.51.100.3", NULL),
                     BUDGET_OK); /* a new address */
    ck_assert_int_eq(budget_count(b, "198.51.100.2"), 0);
    ck_assert_int_eq(budget_count(b, "198.51.100.3"), 1);
    ck_assert_int_eq(budget_total(b), 4);
    budget_release(b, &direct);
    for (int i = 0; i < 3; i++)
        budget_release(b, &proxy[i]);
    ck_assert_int_eq(budget_total(b), 0);
    ck_assert_int_eq(budget_count(b, "198.51.100.3"), 0);
    budget_free(b);
}
END_TEST

/* Many addresses at once: each keeps its own count. */
START_TEST(many_addresses)
{
    budget_t *b = budget_new(100000, 3);
    static budget_slot_t s[3000];
    char a[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(a, sizeof a, "10.%d.%d.1", i / 250, i % 250);
        ck_assert_int_eq(budget_take(b, &s[i], a, NULL), BUDGET_OK);
    }
    ck_assert_int_eq(budget_count(b, "10.3.10.1"), 1);
    for (int i = 0; i < 3000; i++)
        budget_release(b, &s[i]);
    ck_assert_int_eq(budget_total(b), 0);
    ck_assert_int_eq(budget_max_total(b), 100000);
    budget_free(b);
}
END_TEST

/* Connects and disconnects in a shuffled order over 500 addresses, the
 * table growing and shrinking under them: every address's count and the
 * per-address cap stay exact (a lost or doubled entry would show). */
START_TEST(churn_keeps_counts_exact)
{
    enum { ADDRS = 500, SLOTS = 4000, ROUNDS = 60000, CAP = 4 };
    budget_t *b = budget_new(SLOTS, CAP);
    static budget_slot_t s[SLOTS];
    static int owner[SLOTS], want[ADDRS];
    char a[32];
    unsigned r = 12345;
    for (int i = 0; i < ROUNDS; i++) {
        r = r * 1103515245u + 12345u;
        int k = (int)((r >> 8) % SLOTS), addr = (int)((r >> 4) % ADDRS);
        if (s[k].held) {
            budget_release(b, &s[k]);
            want[owner[k]]--;
            continue;
        }
        snprintf(a, sizeof a, "2001:db8::%x", addr);
        int ret = budget_take(b, &s[k], a, NULL);
        ck_assert_int_eq(ret, want[addr] < CAP ? BUDGET_OK : BUDGET_ADDR);
        if (ret == BUDGET_OK) {
            owner[k] = addr;
            want[addr]++;
        }
    }
    int total = 0;
    for (int i = 0; i < ADDRS; i++) {
        snprintf(a, sizeof a, "2001:db8::%x", i);
        ck_assert_int_eq(budget_count(b, a), want[i]);
        total += want[i];
    }
    ck_assert_int_eq(budget_total(b), total);
    for (int k = 0; k < SLOTS; k++)
        budget_release(b, &s[k]);
    ck_assert_int_eq(budget_total(b), 0);
    ck_assert_int_eq(budget_count(b, "2001:db8::1"), 0);
    budget_free(b);
}
END_TEST

/* Two loops take, move and release at once (loops = N: a telnet conn ends
 * on the loop it was handed to): the counts stay exact. */
typedef struct {
    budget_t *b;
    int id, refused;
} churner_t;

static void *churn(void *arg)
{
    churner_t *ch = arg;
    char addr[32], other[32];
    for (int i = 0; i < 20000; i++) {
        budget_slot_t slot;
        snprintf(addr, sizeof addr, "10.%d.%d.1", ch->id, i % 50);
        snprintf(other, sizeof other, "10.%d.%d.2", ch->id, i % 37);
        if (budget_take(ch->b, &slot, addr, NULL) != BUDGET_OK) {
            ch->refused++;
            continue;
        }
        budget_move(ch->b, &slot, other, NULL);
        budget_release(ch->b, &slot);
    }
    return NULL;
}

START_TEST(two_threads_keep_counts_exact)
{
    budget_t *b = budget_new(1000, 1000);
    churner_t ch[2] = {{b, 1, 0}, {b, 2, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, churn, &ch[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(ch[0].refused + ch[1].refused, 0);
    ck_assert_int_eq(budget_total(b), 0);
    ck_assert_int_eq(budget_count(b, "10.1.0.1"), 0);
    ck_assert_int_eq(budget_count(b, "10.2.0.2"), 0);
    budget_slot_t s;
    ck_assert_int_eq(budget_take(b, &s, "10.1.0.1", NULL), BUDGET_OK);
    ck_assert_int_eq(budget_total(b), 1);
    budget_release(b, &s);
    budget_free(b);
}
END_TEST

/* A refuse hook that turns away one full address. */
static bool refuse_one(void *ud, const char *addr)
{
    return strcmp(addr, (const char *)ud) == 0;
}

/* Counted against the key (addrkey.h: an IPv6 /64), banned by the full
 * address: two addresses of one /64 share the cap, a ban on one of them
 * leaves the other, and a slot moved keeps its key's count. */
START_TEST(counted_by_key_banned_by_address)
{
    budget_t *b = budget_new(100, 2);
    budget_set_refuse(b, refuse_one, "2001:db8::66");
    budget_slot_t s[6];
    ck_assert_int_eq(budget_take(b, &s[0], "2001:db8::1", "2001:db8::/64"), BUDGET_OK);
    ck_assert_int_eq(budget_take(b, &s[1], "2001:db8::2", "2001:db8::/64"), BUDGET_OK);
    ck_assert_int_eq(budget_take(b, &s[2], "2001:db8::3", "2001:db8::/64"), BUDGET_ADDR);
    ck_assert_int_eq(budget_count(b, "2001:db8::/64"), 2);
    ck_assert_int_eq(budget_count(b, "2001:db8::1"), 0);
    ck_assert_int_eq(budget_take(b, &s[2], "2001:db8:0:1::1", "2001:db8:0:1::/64"), BUDGET_OK);
    /* the ban is on the address, not its /64 */
    ck_assert_int_eq(budget_take(b, &s[3], "2001:db8::66", "2001:db8::/64"), BUDGET_BANNED);
    budget_release(b, &s[1]);
    ck_assert_int_eq(budget_take(b, &s[3], "2001:db8::67", "2001:db8::/64"), BUDGET_OK);
    /* a proxy's slot moved to a key already full */
    ck_assert_int_eq(budget_take(b, &s[4], NULL, NULL), BUDGET_OK);
    ck_assert_int_eq(budget_move(b, &s[4], "2001:db8::9", "2001:db8::/64"), BUDGET_ADDR);
    ck_assert_int_eq(budget_move(b, &s[4], "2001:db8::66", "2001:db8:5::/64"), BUDGET_BANNED);
    ck_assert_int_eq(budget_move(b, &s[4], "2001:db8:5::9", "2001:db8:5::/64"), BUDGET_OK);
    ck_assert_int_eq(budget_count(b, "2001:db8:5::/64"), 1);
    ck_assert_int_eq(budget_total(b), 4);
    for (int i = 0; i < 5; i++)
        if (i != 1)
            budget_release(b, &s[i]);
    ck_assert_int_eq(budget_total(b), 0);
    budget_free(b);
}
END_TEST

Suite *suite_server_budget(void)
{
    Suite *s = suite_create("server_budget");
    TCase *t = tcase_create("budget");
    tcase_add_test(t, total_and_per_address);
    tcase_add_test(t, moving_a_slot);
    tcase_add_test(t, many_addresses);
    tcase_add_test(t, churn_keeps_counts_exact);
    tcase_add_test(t, two_threads_keep_counts_exact);
    tcase_add_test(t, counted_by_key_banned_by_address);
    suite_add_tcase(s, t);
    return s;
}
