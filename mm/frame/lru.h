/* mm/frame/lru.h -- the lists of frames that page replacement chooses
 * from (Linux's active and inactive LRU lists; CLOCK-Pro's hot and cold
 * pages; MADV_FREE's lazy-free pages; the page cache's active and inactive
 * pages). Lists of frames, as the free lists are: which ones to take, where
 * to move them and when is the policy of the callers (mm/swap.h,
 * mm/lazyfree.h, mm/pagecache_lru.h); here only the lists.
 *
 *   anonymous pages (PG_ANON):
 *   LRU_HOT   head (oldest) [pg] <-> ... <-> [pg] tail (newest, or just passed)
 *   LRU_COLD  head (oldest) [pg] <-> ... <-> [pg] tail
 *   LRU_LAZY  head (oldest MADV_FREE) ... tail: the reclaimer's first, never
 *              ^                        written out (Linux puts them on
 *              |                        its inactive file list)
 *              lru_take(l): moved to l's tail, held, returned
 *   page-cache pages (PG_FILE, of caches with a store):
 *   LRU_FILE_HOT   used twice (Linux's active file list)
 *   LRU_FILE_COLD  new, or turned cold (the inactive file list)
 *   tmpfs's pages (PG_FILE with AF_SHMEM: they go to swap, so Linux keeps
 *   them on its anonymous lists; here a pair of their own):
 *   LRU_SHMEM_HOT, LRU_SHMEM_COLD   as the file lists
 *
 * An anonymous frame is on one of them from its first mapping
 * (anon_page_add) to its release (page_put's last reference:
 * mm/frame/anon_page.h); a page-cache page from its insertion into its
 * cache to its removal (mm/pagecache.c). Its struct page.link is the
 * list's link, AF_LRU set, AF_HOT set on a hot list and AF_LAZYFREE on the
 * lazy one (so a page's type and flags say its list).
 * AF_TEST (the policy's: a cold page in its test period) is cleared by
 * lru_add, which puts a page on a list for the first time, and left to
 * the policy after. Locking: lru_lock (a spinlock, rank
 * LOCK_RANK_LRU, above the PT and page-cache locks: a release may come from under
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

enum lru_list { LRU_COLD, LRU_HOT, LRU_LAZY, LRU_FILE_COLD, LRU_FILE_HOT, LRU_SHMEM_COLD,
		LRU_SHMEM_HOT, LRU_LISTS };

/* Put pg (a frame of l's kind) at the tail of list l, not in a test
 * period (AF_TEST clear), unless it is on a list. */
void lru_add(struct page *pg, enum lru_list l);

/* Take pg off its list if it is on one. */
void lru_del(struct page *pg);

/* The frame at the head of l, moved to l's tail, held for the caller
 * (page_hold; page_let_go ends it); frames held already are passed over.
 * NULL when l holds none that can be held. */
struct page *lru_take(enum lru_list l);

/* Which end of a list: the tail (newest, just passed by the hand) or the
 * head (taken next). */
enum list_end { AT_TAIL, AT_HEAD };

/* Move pg (if on a list) to end `at` of l: the policy's promotions and
 * demotions (AT_TAIL), MADV_COLD (LRU_COLD, AT_HEAD: taken next),
 * MADV_FREE (LRU_LAZY, AT_TAIL), a lazy-free page written again (off
 * LRU_LAZY). */
void lru_move(struct page *pg, enum lru_list l, enum list_end at);

/* lru_move of each of pages[0..n), under one lock (MADV_FREE's batch). */
void lru_move_all(struct page *const *pages, unsigned n, enum lru_list l, enum list_end at);

/* Hold frame pg (anonymous, or a page-cache page) for the reclaimer (above). The caller keeps pg
 * from being freed meanwhile: the lru lock with pg on the list, or the PT
 * lock of an entry mapping it. false if pg is held already (by another
 * pass of the reclaimer) or its last reference is going. */
bool page_hold(struct page *pg);

/* End a hold: the mark, then the reference (pg may be freed by it). */
void page_let_go(struct page *pg);

/* The lists and their lengths, under lru_lock (global for gdb's
 * pg-lazyfree only: everyone else goes through the functions here). */
extern struct list lru_lists[LRU_LISTS];
extern uint64_t lru_nr[LRU_LISTS];

/* Frames on list l. */
uint64_t lru_pages(enum lru_list l);

/* Frames on the hot and cold lists: those swap could take. */
uint64_t lru_pages_all(void);

#endif
