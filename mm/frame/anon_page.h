/* mm/frame/anon_page.h -- what the frame and table layers do to an
 * anonymous page's place in the reverse map, through hooks the
 * address-space layer registers at boot (mm/anon_rmap.c), so that neither
 * layer names the one above it:
 *
 *   page_free of a PG_ANON page  --> hooks->released(pg): off the LRU list,
 *                                    its map's reference dropped
 *   pgt_dup's eager private copy --> hooks->copied(copy, src): the copy is
 *                                    on src's map at src's index, on the LRU
 *
 * Without hooks (host tests of the lower layers) both do nothing.
 */
#ifndef MM_FRAME_ANON_PAGE_H
#define MM_FRAME_ANON_PAGE_H

#include "mm/frame/page.h"

struct anon_page_hooks {
	void (*released)(struct page *pg);
	void (*copied)(struct page *copy, struct page *src);
};

/* Set once, at boot, by anon_rmap_init (NULL before). */
extern const struct anon_page_hooks *anon_page_hooks;

static inline void anon_page_copy_rmap(struct page *copy, struct page *src)
{
	const struct anon_page_hooks *h = __atomic_load_n(&anon_page_hooks, __ATOMIC_ACQUIRE);
	if (h)
		h->copied(copy, src);
}

static inline void anon_page_released(struct page *pg)
{
	const struct anon_page_hooks *h = __atomic_load_n(&anon_page_hooks, __ATOMIC_ACQUIRE);
	if (h)
		h->released(pg);
}

#endif
