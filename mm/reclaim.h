/* mm/reclaim.h -- the reclaimer: frames back under memory pressure, from
 * whoever can give them (the shrinkers below).
 *
 * The allocator never reclaims (mm/frame/page.h): any code may allocate,
 * inside a TLB batch or a table lock too. Free memory is kept up from
 * outside every allocation, as Linux's kswapd and direct reclaim do:
 *
 *   free frames
 *     ^  reclaim_high   background reclaim stops here
 *     |  reclaim_low    below: reclaim_wanted(); the tick wakes the
 *     |                 reclaimer thread (kernel/reclaimd.c), which calls
 *     |                 reclaim_background() until free is back at high
 *     |  reclaim_min    below: each system call and page fault first
 *     |                 reclaims to reclaim_low itself (reclaim_if_low)
 *     0                 an allocation fails: a page fault reclaims what it
 *                       can (reclaim_direct) and retries, then OOM
 *
 * Direct reclaim runs only where its caller holds no TLB batch, no table
 * lock and no spinlock, and may sleep: at system-call entry, and in
 * as_fault between attempts.
 *
 * Each round asks, in order: lazy-free pages (MADV_FREE, mm/lazyfree.h: a
 * clean one is dropped, no I/O ever), the file side's share (page-cache
 * pages with a store), the caches' shrinkers for their share, and, by the
 * reclaimer thread only, the swap side (tmpfs pages, then anonymous pages,
 * out to swap: mm/pagecache_lru.h, mm/swap.h), then the file side again for
 * what the swap side could not give. The two sides' shares are Linux's
 * get_scan_count in outline:
 *
 *   the file side only     no swap room; vm.swappiness 0; or file pages
 *                          are not thrashing (no refault of a file page
 *                          was judged part of the working set since the
 *                          last round) and their inactive list covers the
 *                          round (Linux's cache_trim_mode)
 *   the swap side only     hardly any file pages left (file + free below
 *                          the high watermark)
 *   else, in proportion    swap side:  its pages x swappiness / its cost
 *                          file side:  its pages x (200 - swappiness) / its cost
 *
 * where a side's cost counts the page I/O its reclaim caused -- pages
 * written on their way out, and pages back so soon after they left that
 * they were judged part of the working set (reclaim_note_cost, Linux's
 * lru_note_cost) -- halved whenever the two together exceed a quarter of
 * the pages on the lists, and each smoothed by the sum, as Linux does. Reclaim never unshares and
 * never gives a PD entry its W bit back; a written page is never lost.
 * If nothing is reclaimable the allocation fails: a user page fault then
 * kills the process with the largest RSS (kernel/oom.c, counted in
 * fault_stats_sum().oom_kills) and retries, a system call returns -ENOMEM. The
 * kernel never panics for it.
 */
#ifndef MM_RECLAIM_H
#define MM_RECLAIM_H

#include "lib/types.h"

struct reclaim_stats {
	uint64_t runs;        /* reclaim rounds (reclaim_some: a task's or the thread's) */
	uint64_t background_runs;       /* reclaim_background calls (pageoutrun) */
	uint64_t background_discarded;  /* pages they freed (pgsteal_kswapd) */
	uint64_t direct_freed;          /* pages tasks' own rounds freed (pgsteal_direct) */
	uint64_t shrink_scanned;        /* objects shrinkers were asked to free (slabs_scanned) */
};
extern struct reclaim_stats reclaim_stats;

/* The two sides page replacement weighs (Linux's file and anon LRUs):
 * page-cache pages with a store, and the pages that go to swap (tmpfs's
 * and anonymous ones). */
enum reclaim_side { SIDE_FILE, SIDE_SWAP };

/* Reclaim of `side` cost `pages` page I/Os: written on their way out, or
 * read back within the working set (a refault that made the page active).
 * Any context; counters only. */
void reclaim_note_cost(enum reclaim_side side, uint64_t pages);

/* vm.swappiness (/proc/sys/vm/swappiness): 0..200, default 60 as on Linux;
 * the weight of the swap side against the file side's 200 - swappiness. */
extern unsigned reclaim_swappiness;

/* The side's pages on the replacement lists (the swap side's: tmpfs and
 * anonymous, active and inactive; lazy-free pages are neither). */
uint64_t reclaim_side_pages(enum reclaim_side side);

/* Watermarks in free frames (set by reclaim_init from the RAM size). */
extern uint64_t reclaim_min, reclaim_low, reclaim_high;

/* Set the watermarks from the RAM size. */
void reclaim_init(void);

/* Is free memory below the low watermark with something to reclaim? The
 * tick's question (kernel/reclaimd.c); reads counters only. */
bool reclaim_wanted(void);

/* The reclaimer thread's work for one wakeup: reclaim until free memory
 * is at the high watermark or nothing is left (the SHRINKER_BACKGROUND
 * shrinkers too). Takes lazyfree_lock; no lock may be held by the caller.
 * Returns the frames it freed. */
uint64_t reclaim_background(void);

/* Direct reclaim at a point holding nothing (system-call entry, a page
 * fault before it takes locks): below the min watermark, reclaim up to
 * the low one. Cheap (one compare) above it. */
void reclaim_if_low(void);

/* An allocation failed (a page fault's, between attempts, holding its
 * address space's lock and no spinlock): reclaim what is needed for the high watermark. true if it freed
 * anything (retry), false if nothing is reclaimable (OOM). */
bool reclaim_direct(void);

/* Are free frames above watermark `mark` (reclaim_min, _low or _high)?
 * The OOM killer's last look before it chooses (above min: as Linux's
 * last-second allocation, a victim killed earlier may have freed its
 * memory since the fault's allocation failed, and the fault should then
 * just be retried); a system call's wait for the reclaimer (below min);
 * swap-in's read-ahead (only above low). Reads a counter only. */
bool reclaim_free_above(uint64_t mark);

/* A cache outside mm that gives memory back when asked (Linux's struct
 * shrinker): the VFS's unused dentries and idle inodes. mm calls up only
 * through this table, registered at boot. Each reclaim round asks every
 * shrinker to free a share of its objects in proportion to the frames
 * wanted against the page-cache pages there are (Linux's do_shrink_slab
 * pressure), and all of them when no cache is left:
 *
 *   objects to free = count * want / (cache pages + want)
 */
struct shrinker {
	const char *name;
	/* Objects it could free now; cheap (a counter or a short list),
	 * called from the tick. */
	uint64_t (*count)(void);
	/* Free up to n objects: how many were freed. Called holding no
	 * spinlock (the reclaimer thread; a task at a system call's or a page
	 * fault's entry, holding nothing; a page fault between attempts,
	 * holding its address space's lock); takes only spinlocks of its own
	 * -- unless SHRINKER_BACKGROUND or SHRINKER_UNLOCKED. */
	uint64_t (*scan)(uint64_t n);
	unsigned flags;
	struct shrinker *next;      /* the registry's */
};

/* shrinker.flags: only the reclaimer thread runs its scan, which sleeps
 * and takes address-space locks (the VFS's mapped file pages: unmapping
 * them walks the reverse map); a task's direct reclaim may hold its own
 * address space's lock. A fault that finds no memory waits for the thread
 * instead (reclaim_background_pending, kernel/reclaimd.h). */
#define SHRINKER_BACKGROUND 0x1
/* shrinker.flags: asked first, for all that is wanted (lazy-free pages,
 * mm/lazyfree.h: freeing them costs nothing, and they were given up). */
#define SHRINKER_FIRST 0x4
/* shrinker.flags: its scan walks the reverse map and takes address-space
 * locks (tried), whose walk ranks before them: run by the thread and by a
 * task that holds nothing, not by a fault between attempts (which waits
 * for the thread instead: reclaim_background_pending). */
#define SHRINKER_UNLOCKED 0x8
/* shrinker.flags: asked last, and for all that is still wanted rather than
 * a share (with SHRINKER_BACKGROUND: anonymous pages out to swap, which
 * costs a write each, after every cache that costs none). */
#define SHRINKER_LAST 0x2

/* Objects that shrinkers a fault between attempts may not run
 * (SHRINKER_BACKGROUND, SHRINKER_UNLOCKED) could free now: a fault out of
 * memory waits for the reclaimer thread while there are any. */
uint64_t reclaim_background_pending(void);

/* Add s to the shrinkers reclaim calls (at boot; never removed). */
void reclaim_add_shrinker(struct shrinker *s);

#endif
