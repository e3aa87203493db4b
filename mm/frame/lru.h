/* mm/frame/lru.h -- the list of anonymous frames that page replacement
 * chooses from (Linux's LRU lists). A list of frames, as the free lists
 * are: which ones to take and what to do with them is the policy of the
 * caller (mm/swap.h's CLOCK); here only the list.
 *
 *   head (oldest) [pg] <-> [pg] <-> ... <-> [pg] tail (newest, or just passed)
 *                  ^ lru_take: moved to the tail, held, returned
 *
 * A frame is on it from its first mapping (anon_page_add) to its release
 * (page_put's last reference: mm/frame/anon_page.h), its struct page.link
 * the list's link and AF_LRU set. Locking: lru_lock (a spinlock, rank
 * LOCK_RANK_ANON_LRU, above the PT locks: a release may come from under
 * one); lru_take holds only a frame whose refcount is not 0
 * (page_tryget), so a frame being released is never revived.
 *
 * The reclaimer's hold (page_hold): a reference marked AF_RECLAIM, so
 * that the checkers (pv=checked's entry rules, mm/vmcheck.c) count it as
 * no mapping and the swap cache keeps a page waiting for its write. The
 * mark is set before the reference is taken and cleared before it is
 * dropped: a checker that reads the refcount, then the mark, never sees
 * the reference unmarked while it is being taken.
 */
#ifndef MM_FRAME_LRU_H
#define MM_FRAME_LRU_H

#include "mm/frame/page.h"

/* Put pg (an anonymous frame) at the tail unless it is on the list. */
void lru_add(struct page *pg);

/* Take pg off the list if it is on it. */
void lru_del(struct page *pg);

/* The frame at the head, moved to the tail, held for the caller
 * (page_hold; page_let_go ends it); frames held already are passed over.
 * NULL when the list holds none that can be held. */
struct page *lru_take(void);

/* Hold anonymous frame pg for the reclaimer (above). The caller keeps pg
 * from being freed meanwhile: the lru lock with pg on the list, or the PT
 * lock of an entry mapping it. false if pg is held already (by another
 * pass of the reclaimer) or its last reference is going. */
bool page_hold(struct page *pg);

/* End a hold: the mark, then the reference (pg may be freed by it). */
void page_let_go(struct page *pg);

/* Move pg (if on the list) to the head: the hand takes it next. */
void lru_move_to_head(struct page *pg);

/* Frames on the list. */
uint64_t lru_pages(void);

#endif
