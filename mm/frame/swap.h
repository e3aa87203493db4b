/* mm/frame/swap.h -- swap areas: the disk's counterpart of frames.
 *
 * A swap area is a disk (or a file's blocks) in the format Linux's mkswap
 * writes: page 0 is the header, every other page a slot that can hold one
 * anonymous page. This layer sits beside the frame allocator, below the
 * page tables: a PT entry that holds a swap entry (arch/x86_64/pte.h) holds
 * a reference on its slot, as a present entry holds one on its frame, and
 * the table layer takes and drops them (swap_slot_dup, swap_slot_put) where
 * it copies and clears entries.
 *
 *   page 0 of the area (mkswap's header, struct swap_header):
 *   +--------+-----------------------------------+------------+---------+
 *   | 1 KiB  | version 1, last_page, nr_badpages,| ...        |SWAPSPACE2|
 *   | boot   | uuid, label, bad pages[]          |            | (4086)  |
 *   +--------+-----------------------------------+------------+---------+
 *
 *   per slot:  count[slot]  entries that name it   | SLOT_CACHED | SLOT_BAD
 *              cache[slot]  pfn + 1 of the page of the swap cache, or 0
 *
 * The swap cache (Linux's swapper_space) holds the page of a slot while it
 * is read in or written out, and after a swap-in for as long as other
 * entries still name the slot: two processes (or threads) faulting one slot
 * get one page, and a page that fork shared copy-on-write comes back once
 * for all sharers. A page in the cache holds one reference of the cache's
 * and is never mapped writable (mm/swap.h maps it copy-on-write), so its
 * bytes stay those of its slot once written or read (AF_UPTODATE).
 *
 * A slot is free when no entry names it and no page caches it; a slot
 * whose write failed is marked bad and never given out again.
 *
 * Locking: one spinlock (swap_lock, rank LOCK_RANK_SWAP: taken inside the
 * PT locks, which the table layer holds while it dups and puts slots)
 * guards every area's counts, cache and cursor, and the AF_ swap-cache
 * bits of the cached pages. I/O runs outside it: a page being read or
 * written is AF_LOCKED, and tasks wait for it (lib/wait.h, channel: the
 * page). Errors: the functions say; nothing here panics for bad input (a
 * header that is not a swap area is -EINVAL); a count that goes below zero,
 * or an entry naming no area, is a kernel bug and panics naming the entry.
 */
#ifndef MM_FRAME_SWAP_H
#define MM_FRAME_SWAP_H

#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define SWAP_MAX_AREAS 8          /* areas on at once (Linux: 32) */
#define SWAP_NAME_MAX 64

/* mkswap's header in page 0 (little endian, as written on x86). */
struct swap_header {
	uint8_t bootbits[1024];
	uint32_t version;         /* 1 */
	uint32_t last_page;       /* the last usable page of the area */
	uint32_t nr_badpages;
	uint8_t uuid[16];
	char volume_name[16];
	uint32_t padding[117];
	uint32_t badpages[];      /* nr_badpages page numbers */
};
#define SWAP_MAGIC "SWAPSPACE2"
#define SWAP_MAGIC_OFFSET (PAGE_SIZE - 10)
#define SWAP_MIN_PAGES 10         /* Linux refuses smaller areas */

/* Direction of one transfer. */
enum swap_dir { SWAP_READ, SWAP_WRITE };

/* How an area reaches its storage, supplied by whoever turns it on (the
 * kernel's swapon: a block device, or the blocks of a file mapped once). */
struct swap_io_ops {
	/* Transfer n pages between pages[] and slots [slot, slot + n) of the
	 * area (n >= 1; slot 0 is the header). 0 or -EIO. Sleeps. */
	int (*rw)(void *dev, uint64_t slot, struct page **pages, unsigned n, enum swap_dir dir);
	/* The area was turned off: dev is no longer used. */
	void (*release)(void *dev);
	/* Can slot hold a page? NULL: every slot can. A swap file's page whose
	 * blocks are not neighbours on the disk cannot (Linux leaves such
	 * pages out too): it counts as a bad page. Must not sleep (swap_lock
	 * is held). */
	bool (*usable)(void *dev, uint64_t slot);
};

/* What /proc/swaps and swapon(8) show of an area. */
struct swap_area_info {
	char name[SWAP_NAME_MAX];  /* the path given to swapon */
	bool is_file;              /* a swap file (else a partition or disk) */
	int prio;
	uint64_t slots;            /* usable slots (pages) */
	uint64_t used;             /* slots in use */
};

struct swap_stats {
	uint64_t pswpin, pswpout;  /* pages read from / written to swap */
	uint64_t cache_adds;       /* pages added to the swap cache */
	uint64_t cache_hits;       /* swap-ins that found the page cached */
	uint64_t write_errors, read_errors;
	uint64_t ra_pages;         /* pages read ahead (Linux's swap_ra) */
	uint64_t ra_hits;          /* of those, found by a swap-in (swap_ra_hit) */
};
extern struct swap_stats swap_stats;

/* Turn on an area: read and check its header through io (the device holds
 * dev_bytes), set its slots up. `key` identifies the storage (the same
 * storage twice is -EBUSY); prio < 0 asks for the next default priority
 * (Linux's: -2, -3, ... ). Returns the area's number, or -EINVAL (no
 * SWAPSPACE2 signature, version not 1, last page past the storage, fewer
 * than SWAP_MIN_PAGES pages, no usable slot), -EBUSY, -EPERM (too many areas),
 * -ENOMEM or -EIO. On success the area holds dev until swap_area_remove. */
int swap_area_add(const struct swap_io_ops *io, void *dev, const void *key, uint64_t dev_bytes,
		  int prio, const char *name, bool is_file);

/* The area on `key`'s storage, or -EINVAL when none is. */
int swap_area_find(const void *key);

/* swapoff's first step: no new slot is given out of area. */
void swap_area_stop(int area);

/* swapoff failed: the area gives out slots again. */
void swap_area_restart(int area);

/* swapoff's last step, once no entry and no cached page names a slot of
 * the area: forget it (io->release). -EBUSY if some slot is still in use. */
int swap_area_remove(int area);

/* Slots of area in use (entries or cached pages name them). */
uint64_t swap_area_used(int area);

/* Info on area (false: no such area). */
bool swap_area_info(int area, struct swap_area_info *info);

/* Totals over every area, in pages: usable, free, and pages in the swap
 * cache (SwapTotal, SwapFree, SwapCached). */
void swap_totals(uint64_t *total, uint64_t *free, uint64_t *cached);

/* Is any area on (with a free slot)? Reclaim's question: anonymous pages
 * can go only where there is room. Reads counters only. */
bool swap_space_left(void);

/* A free slot for anonymous page pg (not in the swap cache, referenced by
 * the caller), from the area of highest priority, in runs so that
 * consecutive calls write consecutive slots; pg enters the swap cache for
 * it (AF_SWAPCACHE, the cache's reference, pg->swap). Returns the slot's
 * swap entry, or 0 when every area is full (or none is on). */
pte_t swap_slot_alloc(struct page *pg);

/* A free slot for a page kept outside the swap cache (a tmpfs file's,
 * whose tree then names the slot: mm/pagecache.h), named once -- by the
 * caller, who puts that name with swap_slot_put -- from the area of
 * highest priority, in runs as swap_slot_alloc's. 0 when every area is
 * full (or none is on). */
pte_t swap_slot_take(void);

/* Move pages[i] to or from slot slots[i] (i < n <= 64; the caller names
 * each slot, so its area stays on): one request per run of consecutive
 * slots (the order given). Bit i of the result: page i failed (-EIO; a
 * write's slot is marked bad, as swap_writepages marks it). pswpin/pswpout
 * and the error counts as for the swap cache's I/O. Sleeps. */
uint64_t swap_slot_rw(const pte_t *slots, struct page **pages, unsigned n, enum swap_dir dir);

/* One more entry names slot e (fork copying an entry, an unshare copying a
 * PT page, mremap moving one). Any context (a PT lock held). */
void swap_slot_dup(pte_t e);

/* An entry naming slot e went. When none is left the slot's cached page,
 * if any and not under I/O, leaves the cache (its reference dropped), and
 * the slot is free -- unless the page is mapped and up to date and swap is
 * at most half used: then it keeps the slot (Linux's swap cache after a
 * swap-in), so that paging it out again unwritten costs no write; its
 * unmapping, a write to it, reclaim with swap half used, or swapoff drop
 * it. Any context (a PT lock held). */
void swap_slot_put(pte_t e);

/* The replacement policy's note on slot e: set when its page is evicted
 * (not 0), taken back (read and cleared: e must name a slot of an area
 * that is on) when it comes back: Linux's shadow entries (mm/workingset.c),
 * which keep such a note in the page cache's tree. A slot that no entry
 * names keeps none: a set then is ignored (the page's last mapper went
 * meanwhile, or swapoff took the area), and a slot freed or given out anew
 * has none (0). */
void swap_slot_set_shadow(pte_t e, uint32_t note);
uint32_t swap_slot_take_shadow(pte_t e);

/* Did a write to slot e fail (the slot is bad: its page keeps the only
 * copy, and writing it there again would fail again)? */
bool swap_slot_bad(pte_t e);

/* How many entries name slot e now (tests, introspection). */
uint32_t swap_slot_count(pte_t e);

/* Result of swap_cache_read. */
enum swapin_result {
	SWAPIN_CACHED,    /* the page was in the swap cache already */
	SWAPIN_READ,      /* it was read from the area (a major fault) */
	SWAPIN_STALE,     /* the slot is free: the entry changed meanwhile */
	SWAPIN_NOMEM,     /* no frame to read it into */
	SWAPIN_IOERR,     /* reading it failed */
};

/* The most slots one swap-in reads (Linux: 1 << page_cluster, 8). */
#define SWAP_READAHEAD_MAX 8

/* The one way a swapped-out page comes back: the page of slot e, up to date,
 * from the swap cache or read into a new frame (which enters the cache, so
 * that another fault on e waits for this read and gets the same page).
 * On a miss it also reads ahead the slots of ahead[0..n_ahead) -- which
 * ones is the caller's choice (mm/swap.c: the swap entries around the
 * faulting address, Linux's VMA-based read-ahead) -- that entries name and
 * no page caches, at most SWAP_READAHEAD_MAX - 1 of them; an entry that
 * names no slot of an area that is on (read stale) is passed over. All
 * are read in slot order, one request per run of consecutive slots. The
 * read-ahead pages enter the cache unmapped and on the LRU list (reclaim
 * drops them if nobody asks), marked AF_READAHEAD until a swap-in finds
 * them (swap_stats.ra_hits). Frames for them are taken only while the
 * allocator has them above its reserve (PA_NORESERVE); e's comes first.
 *
 *   fault at va 0x...3000, entry e = slot 20; its neighbours' entries:
 *   va      0x..0  0x..1  0x..2  [0x..3] 0x..4  0x..5  0x..6  0x..7
 *   slot    17     (mapped) 19    20     21     (mapped) 40    41
 *   ahead = 17, 19, 21, 40, 41 (19 cached already: passed over)
 *   requests: [17] [20 21] [40 41]             (one per run of slots)
 *
 * On SWAPIN_CACHED and SWAPIN_READ *pg holds a reference for the caller.
 * Sleeps (the read, or another task's). */
enum swapin_result swap_cache_read(pte_t e, const pte_t *ahead, unsigned n_ahead,
				   struct page **pg);

/* Write cached pages[0..n) (up to date or not; the caller holds a
 * reference on each) to their slots, pswpout: sorted by slot, each run of
 * consecutive slots in one transfer (the slots swap_slot_alloc gives one
 * after another follow each other, so a batch of page-outs is mostly one
 * sequential write). A page whose write failed has its slot marked bad
 * and stays in the cache, not up to date, so it is never dropped (its
 * data lives only here). Returns the pages whose write failed. Sleeps;
 * reorders pages[]. */
unsigned swap_writepages(struct page **pages, unsigned n);

/* Take pg out of the swap cache if only the cache and the caller hold it
 * (refcount 2) and it is up to date and not under I/O: the cache's
 * reference is dropped, the slot freed if no entry names it. true if it
 * left the cache. */
bool swap_cache_try_remove(struct page *pg);

/* Take page pg out of the swap cache, whoever maps it, once no entry names
 * its slot anymore (and it is not under I/O, nor held by the reclaimer,
 * which then decides): a page about to be written in place (the slot's
 * copy would be stale), a page whose mapping went (Linux's free_swap_cache:
 * the slot is free at once, not when reclaim comes by). true if it left. */
bool swap_cache_drop_unnamed(struct page *pg);

/* The reclaimer, holding pg (page_hold), gives up the slot that page in
 * use kept (swap mostly used), or the bad slot of a page whose write
 * failed: out of the cache if up to date (or its write failed), not under
 * I/O and no entry names the slot -- a bad one then leaves the area. A
 * page whose last entry went while the reclaimer held it stays in the
 * cache until the reclaimer does this. true if it left. */
bool swap_cache_give_up_slot(struct page *pg);

/* swapoff's sweep: every cached page of area whose slot no entry names
 * (a page read back that kept its slot) leaves the cache. Sleeps not;
 * takes swap_lock once per slot. */
void swap_cache_drop_area(int area);

/* Is swap more than half used (Linux's vm_swap_full)? Pages read back then
 * give their slots up: reclaim drops them from the cache. */
bool swap_mostly_used(void);

/* Is pg in the swap cache (AF_SWAPCACHE)? */
static inline bool page_in_swap_cache(const struct page *pg)
{
	return __atomic_load_n(&pg->aflags, __ATOMIC_ACQUIRE) & AF_SWAPCACHE;
}

#endif
