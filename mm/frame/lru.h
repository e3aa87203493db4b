/* mm/frame/lru.h -- the list of anonymous frames that page replacement
 * chooses from (Linux's LRU lists). A list of frames, as the free lists
 * are: which ones to take and what to do with them is the policy of the
 * caller (mm/swap.h's CLOCK); here only the list.
 *
 *   head (oldest) [pg] <-> [pg] <-> ... <-> [pg] tail (newest, or just passed)
 *                  ^ lru_next: moved to the tail, referenced, returned
 *
 * A frame is on it from its first mapping (anon_page_add) to its release
 * (page_put's last reference: mm/frame/anon_page.h), its struct page.link
 * the list's link and AF_LRU set. Locking: lru_lock (a spinlock, rank
 * LOCK_RANK_ANON_LRU, above the PT locks: a release may come from under
 * one); lru_next takes a reference only on a frame whose refcount is not
 * 0 (page_tryget), so a frame being released is never revived.
 */
#ifndef MM_FRAME_LRU_H
#define MM_FRAME_LRU_H

#include "mm/frame/page.h"

/* Put pg (an anonymous frame) at the tail unless it is on the list. */
void lru_add(struct page *pg);

/* Take pg off the list if it is on it. */
void lru_del(struct page *pg);

/* The frame at the head, moved to the tail, with a reference for the
 * caller; NULL when the list holds none that can be referenced. */
struct page *lru_next(void);

/* Move pg (if on the list) to the head: the hand takes it next. */
void lru_move_to_head(struct page *pg);

/* Frames on the list. */
uint64_t lru_pages(void);

#endif
