/* budget — the connection budget every gateway shares: at most max_total
 * connections in all and max_per_addr from one address, whether they are
 * telnet, HTTP or websockets, so a flood through one door cannot take the
 * room another door's players need.
 *
 * A connection holds a budget_slot_t: what it is charged to. A slot with
 * no address counts toward the total only (a Unix-socket client before it
 * names its address, a request from a trusted proxy before its headers name
 * the client); budget_move charges it to the address once known.
 *
 * Ownership: budget_new / budget_free pair; slots are the caller's (embed
 * them), each released once. Any thread: a mutex guards the counts (a telnet
 * conn is released on the loop it ends on, loops = N). */
#ifndef WARREN_BUDGET_H
#define WARREN_BUDGET_H
#include <stdbool.h>

#define BUDGET_ADDR_MAX 64

enum {
    BUDGET_OK = 0,
    BUDGET_FULL = -1,   /* max_total reached */
    BUDGET_ADDR = -2,   /* max_per_addr reached for that address */
    BUDGET_BANNED = -3, /* the address is refused outright (budget_set_refuse) */
};

typedef struct budget budget_t;

typedef struct {
    bool held;                  /* counted; budget_release uncounts it */
    char addr[BUDGET_ADDR_MAX]; /* the key charged; "" = the total only */
} budget_slot_t;

/* NULL when out of memory or libsodium cannot start (hmap_secret_init). */
budget_t *budget_new(int max_total, int max_per_addr);
void budget_free(budget_t *b); /* NULL is fine; every slot must be released */

/* Counts slot against key, the address's (addrkey.h; NULL: addr itself),
 * after asking whether addr, the full address, is refused (NULL or "" =
 * the total only, nothing asked). Returns BUDGET_OK (slot held) or
 * BUDGET_FULL / BUDGET_ADDR / BUDGET_BANNED (nothing counted). */
int budget_take(budget_t *b, budget_slot_t *slot, const char *addr, const char *key);
/* Charges a held slot to addr's key instead. Returns BUDGET_OK, or
 * BUDGET_ADDR / BUDGET_BANNED (the slot keeps its old charge). The same key
 * is always fine. */
int budget_move(budget_t *b, budget_slot_t *slot, const char *addr, const char *key);
/* Uncounts a held slot; a slot not held is ignored. */
void budget_release(budget_t *b, budget_slot_t *slot);

/* Addresses turned away whatever the counts (the administrator's bans):
 * budget_take and budget_move answer BUDGET_BANNED when refused(ud, addr)
 * is true. NULL: none. */
void budget_set_refuse(budget_t *b, bool (*refused)(void *ud, const char *addr), void *ud);

/* What the unit tests check the counts against: slots in all, charged to
 * the key addr, and the cap in all. */
int budget_total(budget_t *b);
int budget_count(budget_t *b, const char *addr);
int budget_max_total(const budget_t *b);

#endif
