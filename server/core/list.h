/* list — the daemon's one linked list: intrusive, doubly linked, circular.
 *
 * A list is a list_t head; each element embeds a list_t node and is found
 * back from it with LIST_ITEM. An empty head, and a node on no list, points
 * at itself (list_init), so removing twice or testing membership is safe.
 * Nothing here allocates: the owner of the element owns its memory.
 *
 *   list_t conns;                      struct conn { list_t node; ... };
 *   list_init(&conns);
 *   list_push_front(&conns, &c->node);
 *   LIST_EACH (it, &conns) { conn_t *c = LIST_ITEM(it, conn_t, node); ... }
 *   list_remove(&c->node);
 *
 * LIST_EACH allows removing (and freeing) the current element while walking;
 * removing any other element during the walk is not allowed. */
#ifndef WARREN_LIST_H
#define WARREN_LIST_H
#include <stdbool.h>
#include <stddef.h>

typedef struct list {
    struct list *next, *prev;
} list_t;

/* The element of type `type` whose member `field` is the node n. */
#define LIST_ITEM(n, type, field) ((type *)(void *)((char *)(n)-offsetof(type, field)))

/* Walks head from front to back; `it` is the current node. The next node is
 * read before the body runs, so the body may remove `it`. */
#define LIST_EACH(it, head)                                              \
    for (list_t *it = (head)->next, *it##_next = it->next; it != (head); \
         it = it##_next, it##_next = it->next)

static inline void list_init(list_t *n)
{
    n->next = n->prev = n;
}

static inline bool list_empty(const list_t *head)
{
    return head->next == head;
}

/* A node is linked when it is on some list (it was list_init'ed before). */
static inline bool list_linked(const list_t *n)
{
    return n->next != n;
}

static inline void list_insert_after(list_t *at, list_t *n)
{
    n->prev = at;
    n->next = at->next;
    at->next->prev = n;
    at->next = n;
}

static inline void list_push_front(list_t *head, list_t *n)
{
    list_insert_after(head, n);
}

static inline void list_push_back(list_t *head, list_t *n)
{
    list_insert_after(head->prev, n);
}

/* Unlinks n (a no-op for an unlinked node); n is left unlinked. */
static inline void list_remove(list_t *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    list_init(n);
}

/* The first node, or NULL when the list is empty. */
static inline list_t *list_front(const list_t *head)
{
    return list_empty(head) ? NULL : head->next;
}

/* Removes and returns the first node, or NULL. */
static inline list_t *list_pop_front(list_t *head)
{
    list_t *n = list_front(head);
    if (n)
        list_remove(n);
    return n;
}

#endif
