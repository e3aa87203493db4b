/* mm/pagecache_lru.h -- which page-cache pages leave memory: the file
 * side of page replacement (Linux's active and inactive file lists,
 * shrink_inactive_list and shrink_active_list, in outline). The lists are
 * mm/frame/lru.h's LRU_FILE_COLD (inactive) and LRU_FILE_HOT (active);
 * the page cache puts a page on the inactive list when it enters and
 * makes it active on its second use (mm/pagecache.h). Here the
 * reclaimer's side:
 *
 *   LRU_FILE_HOT   head --> used again since the last look (AF_REFERENCED)?
 *        |                  stays, the mark cleared; else --> inactive tail
 *        |                  (only while the active list is the longer one:
 *        v                  Linux keeps inactive >= active at this size)
 *   LRU_FILE_COLD  head --> busy (read or written now): passed
 *                           clean, nobody but the cache holds it: freed,
 *                             a shadow left in its slot (the count of
 *                             evictions then)
 *                           mapped (the thread only): out of every mapping
 *                             not used since the last look (vmobject_unmap,
 *                             UNMAP_RECLAIM); still mapped (used): a second
 *                             use makes it active, a first is marked
 *                           dirty and mapped (the thread only): written
 *                             with its dirty neighbours, then freed if idle
 *                           dirty and not mapped: passed (the flusher
 *                             writes it: Linux's reclaim leaves file pages
 *                             to the flusher too)
 *
 * Refaults (Linux's workingset detection): a page that comes back to a
 * slot with a shadow left after fewer evictions than there are active
 * pages would have stayed had the active pages made room for it (its
 * refault distance fits in the active list): it starts active, so a file
 * that is read in a loop a little larger than the inactive list is not
 * read from the disk every time. Otherwise it starts inactive, as any new
 * page. The working set a refault is measured against is Linux's: a file
 * page's, the active file pages and, while swap has room (reclaim could
 * take them instead), every page of the swap side; a tmpfs page's, every
 * file page and, with swap room, the active pages of the swap side. A
 * refault that makes a page active is a cost of its side's reclaim
 * (reclaim_note_cost), and so is every page the scan writes. A tmpfs page that went to swap leaves its note in the slot
 * instead (swap_slot_set_shadow: the tree's leaf names the slot), read
 * against the same clock and the active tmpfs list when it comes back.
 *
 * Who runs what: any task may free idle clean pages (PCR_IDLE: never
 * sleeps, takes only spinlocks); unmapping and writing sleep and take the
 * reverse map's walk and address-space locks, so only the reclaimer thread
 * does them (PCR_UNMAP).
 *
 * tmpfs's pages (mm/frame/lru.h's LRU_SHMEM_COLD and LRU_SHMEM_HOT) go the
 * same way, except that "written" means to swap (pagecache_swap_out: the
 * page leaves memory, its slot named in its place): the thread only, and
 * only while swap has a free slot; they are the swap side of the balance
 * (mm/reclaim.h), with the anonymous pages and before them (mm/swap.h). A
 * tmpfs page's slot keeps the note of its eviction (below).
 * The reclaimer holds each page it looks at (lru_take); its cache stays
 * alive while locked through the page (pagecache_lock_page) and, across
 * the sleeps, by a reference on the file's object (vmobject_tryget).
 */
#ifndef MM_PAGECACHE_LRU_H
#define MM_PAGECACHE_LRU_H

#include "lib/types.h"
#include "mm/frame/lru.h"
#include "mm/pagecache.h"
#include "mm/reclaim.h"

/* What one scan may do to a page. */
enum pagecache_scan {
	PCR_IDLE,    /* free clean pages nobody else uses: any task, never sleeps */
	PCR_UNMAP,   /* also unmap mapped ones and write dirty mapped ones: the
		      * reclaimer thread (sleeps) */
};

/* Free up to `want` frames of one side's page-cache pages (SIDE_FILE:
 * pages with a store; SIDE_SWAP: tmpfs pages, PCR_UNMAP only and while
 * swap has a free slot), inactive ones oldest first, after turning active
 * pages inactive while the active list is the longer (both lists looked
 * at twice at most). How many were freed. No lock may be held. */
uint64_t pagecache_lru_reclaim(enum reclaim_side side, uint64_t want, enum pagecache_scan how);

/* Pages on the lists the reclaimer thread could take (the tmpfs ones only
 * while swap has room): for mm/reclaim.h's background_pending. */
uint64_t pagecache_lru_pending(void);

/* A tmpfs page leaves for swap: one eviction on the clock shadows are
 * read against; the note its slot keeps (never 0). */
uint32_t pagecache_lru_swap_note(void);

/* The list a page of a cache of `kind` starts on that comes back to a
 * slot whose shadow holds evicted_at (a tmpfs page: its slot's note; 0,
 * none: inactive), under the cache's lock: the active list when it left
 * fewer evictions ago than that list holds pages (counted as a refault
 * either way). */
enum lru_list pagecache_lru_refault(enum pagecache_kind kind, uint64_t evicted_at);

struct pagecache_lru_stats {
	uint64_t scanned;        /* inactive pages looked at (pgscan_file) */
	uint64_t stolen;         /* of those, freed (pgsteal_file) */
	uint64_t unmapped;       /* mapped ones taken out of every mapping */
	uint64_t written;        /* dirty mapped ones written back first */
	uint64_t activated;      /* inactive pages made active: a second use through
				  * pagecache_get (mm/pagecache.c), or a mapped
				  * page used at two looks (pgactivate, file) */
	uint64_t deactivated;    /* active pages turned inactive (pgdeactivate, file) */
	uint64_t refaults;       /* pages back to a slot with a shadow (workingset_refault_file) */
	uint64_t refaults_activated; /* of those, started active (workingset_activate_file) */
	uint64_t shmem_scanned;  /* inactive tmpfs pages looked at (in pgscan_anon) */
	uint64_t shmem_stolen;   /* of those, freed (in pgsteal_anon) */
	uint64_t swapped_out;    /* tmpfs pages written to swap and freed (in pswpout) */
	uint64_t swapped_in;     /* tmpfs pages read back from swap (in pswpin) */
	uint64_t shmem_refaults; /* of those, back to a slot with a note (in
				  * workingset_refault_anon) */
	uint64_t shmem_refaults_activated; /* of those, started active (in
					    * workingset_activate_anon) */
};
extern struct pagecache_lru_stats pagecache_lru_stats;

#endif
