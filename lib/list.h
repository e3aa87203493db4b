/* lib/list.h -- intrusive circular doubly-linked lists.
 *
 *   head <-> a <-> b <-> c <-> (head)      an empty list points at itself
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include "lib/types.h"

struct list {
	struct list *next, *prev;
};

static inline void list_init(struct list *l)
{
	l->next = l->prev = l;
}

static inline bool list_empty(const struct list *l)
{
	return l->next == l;
}

/* Insert n right after head (push front). */
static inline void list_add(struct list *head, struct list *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

/* Insert n right before head (push back). */
static inline void list_add_tail(struct list *head, struct list *n)
{
	list_add(head->prev, n);
}

static inline void list_del(struct list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define list_entry(l, type, member) container_of(l, type, member)

#define list_for_each(it, head) \
	for (struct list *it = (head)->next; it != (head); it = it->next)

/* list_for_each that lets the body list_del (and free) it. */
#define list_for_each_safe(it, nx, head) \
	for (struct list *it = (head)->next, *nx = it->next; it != (head); it = nx, nx = it->next)

#endif
