/* mm/frame/page.h -- the frame database and the physical page allocator.
 *
 * One struct page per 4 KiB physical frame, indexed by frame number:
 *
 *   frames[]  pfn 0      pfn 1      ...   pfn max_pfn-1
 *            +---------+----------+-----+-----------+
 *            | page    | page     | ... | page      |   48 bytes each
 *            +---------+----------+-----+-----------+
 *
 * A block of 2^order frames is described by its first ("head") page; the
 * buddy allocator (mm/frame/buddy.c) hands out such blocks. The fields:
 *   type      what the frame is used for (enum page_type); every frame of a
 *             block has the block's type.
 *   order     head of an allocated block: its order; head of a block on the
 *             free lists: PAGE_ORDER_FREE | its order; other frames (and
 *             frames in a CPU's cache): PAGE_ORDER_TAIL.
 *   refcount  head of an allocated block: owners; the block is freed when it
 *             drops to 0 (page_put). Free blocks: 0.
 *   count     page-table page: entries in it that hold something: present
 *             ones, PROT_NONE leaves and (PT page) swap entries; its
 *             resident pages are count - pt.zero - ptswap. kmalloc page:
 *             objects in use.
 *   pt.share  page-table page: how many address spaces point at it. A
 *             dedicated counter, NEVER the refcount (temporary references
 *             must not look like sharers).
 *   pt.level  page-table page: PGL_PT..PGL_PML4.
 *   pt.text   PT page published as shared program text (ptshare=all).
 *   pt.zero   PT page: of its present entries, those mapping the shared zero
 *             page (not resident: RSS is count - zero).
 *   link      free list of the buddy allocator, kmalloc partial list.
 *   ptl       page-table page: the lock of its entries (in link's place:
 *             a table page is on no list).
 *   cache     page of a page cache (PG_FILE, mm/pagecache.h): its index and
 *             state (up to date, dirty, being read, being written back), and
 *             which of its sectors are dirty (a disk's metadata: in part).
 *   swap      anonymous page in the swap cache (mm/frame/swap.h): the swap
 *             entry (arch/x86_64/pte.h) of the slot it is the page of.
 *   aflags    anonymous page, and page-cache page (in count's place): AF_* below.
 *   anon      anonymous page: the reverse map it is on (anon.av, mm/anon_rmap.h;
 *             NULL until it is first mapped) and its page index there,
 *             which names its address in every VMA of that map.
 *   pagecache page of a page cache: the cache it is in (NULL once out).
 *   ptswap    page-table page (PT level): of its entries that hold something
 *             (count), those holding a swap entry (not resident).
 *
 * 48 bytes a frame (1.2 % of RAM): the reverse map of anonymous pages
 * (issue 39, swap) took the last 16; Linux's is 64.
 *
 * Concurrency: the allocator takes its own locks (mm/frame/buddy.c: each CPU's
 * free-frame cache, then the free lists); refcount changes are atomic, so
 * of two CPUs dropping the last references exactly one frees; mm_stats
 * counters are atomic (exact once the CPUs are quiet). mm/ is not called
 * from interrupt handlers.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "lib/types.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "arch/x86_64/pte.h"

struct anon_vma;
struct pagecache;

enum page_type {
	PG_FREE,        /* in the buddy allocator */
	PG_KERNEL,      /* kernel image, kmalloc, kernel stacks, misc. */
	PG_ANON,        /* user anonymous memory */
	PG_FILE,        /* file data: the initrd module, file-backed pages */
	PG_PAGETABLE,   /* a page-table page (any level) */
	PG_RESERVED,    /* not RAM, firmware, or not ours to manage */
	PG_NTYPES
};

#define PAGE_ORDER_TAIL 0xff
#define PAGE_ORDER_FREE 0x80    /* or'ed into the order of a free block's head */
#define MAX_ORDER 11            /* orders 0..10: blocks up to 4 MiB */


struct page {
	union {
		struct list link;
		struct spinlock ptl;   /* PG_PAGETABLE: its split lock (mm/pt/ptpage.h) */
	};
	uint32_t refcount;
	uint8_t type;
	uint8_t order;
	union {
		uint16_t count;
		uint16_t aflags;     /* PG_ANON: AF_* (atomic: mm/frame/swap.h) */
	};
	union {
		struct {
			uint32_t share;
			uint8_t level;
			uint8_t text;    /* published for shared text (mm/ptshare_text.c) */
			uint16_t zero;   /* present entries mapping the zero page */
		} pt;
		struct {
			uint16_t free;   /* offset of the first free object, or 0xffff */
			uint8_t kclass;  /* size class (mm/frame/kmalloc.c) */
		} slab;
		struct {
			uint32_t index;  /* its page index in its cache (mm/pagecache.h) */
			uint16_t flags;  /* PGC_*, under the cache's lock */
			uint8_t dirty;   /* which 512-byte sectors are dirty (bit i: sector i) */
		} cache;
		pte_t swap;      /* PG_ANON in the swap cache: its slot's swap entry */
		uint64_t meta;   /* the whole union at once (claim_block clears it) */
	};
	union {
		struct {
			struct anon_vma *av;   /* PG_ANON: its reverse map, or NULL */
			uint64_t index;        /* its page index in av's VMAs */
		} anon;
		struct pagecache *pagecache;   /* PG_FILE in a cache: that cache (set and
					* cleared under its lock; Linux's folio->mapping) */
		uint16_t ptswap;       /* PG_PAGETABLE, PT level: swap entries in it */
		uint64_t meta2[2];     /* the whole union (claim_block clears it) */
	};
};

/* aflags of an anonymous page (PG_ANON); a page-cache page (PG_FILE) has
 * those of the replacement lists (AF_LRU, AF_HOT, AF_RECLAIM,
 * AF_REFERENCED, AF_SHMEM). Changed with atomic or/and: the swap cache's bits under
 * its lock, AF_LRU under the LRU's. */
#define AF_SWAPCACHE 0x1   /* in the swap cache: page.swap names its slot */
#define AF_LOCKED 0x2      /* being read from or written to its slot */
#define AF_UPTODATE 0x4    /* holds its slot's data (read in or written out) */
#define AF_ERROR 0x8       /* reading its slot failed */
#define AF_LRU 0x10        /* on an anonymous LRU list (mm/frame/lru.h) */
#define AF_HOT 0x20        /* on the hot list (mm/frame/lru.h) */
#define AF_TEST 0x40       /* a cold page in its test period (mm/swap.c's policy) */
#define AF_RECLAIM 0x80    /* the reclaimer holds a reference (page_hold, mm/frame/lru.h) */
#define AF_READAHEAD 0x100 /* read ahead of a swap-in, not asked for yet */
#define AF_LAZYFREE 0x200  /* on the lazy-free list: MADV_FREE'd, discarded while clean */
#define AF_REFERENCED 0x400 /* page-cache page: used once since it came or was last
			     * looked at (Linux's PG_referenced: a second use makes it
			     * hot, mm/pagecache_lru.h) */
#define AF_SHMEM 0x800     /* page-cache page of a tmpfs file: on the tmpfs lists,
			     * goes to swap (mm/pagecache.h) */

/* Would a mapping of pg by entry e be dropped by reclaim as lazy-free
 * (mm/lazyfree.h): pg on the lazy list and e clean (Linux's smaps
 * LazyFree rule)? What smaps, pictures and queries count. */
static inline bool page_lazyfree_mapping(const struct page *pg, pte_t e)
{
	return pg && pg->type == PG_ANON && !pte_dirty(e) &&
	       (__atomic_load_n(&pg->aflags, __ATOMIC_RELAXED) & AF_LAZYFREE);
}

/* The references to anonymous page pg that are no mapping: the swap
 * cache's and the reclaimer's (what the checkers of "a private writable
 * entry maps a frame nobody else maps" leave out). Read the refcount
 * before calling: the reclaimer's mark is set before its reference. */
static inline uint32_t anon_unmapped_refs(const struct page *pg)
{
	uint16_t f = __atomic_load_n(&pg->aflags, __ATOMIC_SEQ_CST);
	return pg->type == PG_ANON ? !!(f & AF_SWAPCACHE) + !!(f & AF_RECLAIM) : 0;
}

/* page_alloc flags: PA_ZERO plus at most one type (default PG_KERNEL).
 * Every frame is written whole when it is allocated: PA_ZERO, or a copy
 * over all of it (COW, file pages); the kernel's own frames (kmalloc
 * slabs and large blocks, kernel stacks) take PA_ZERO too. So no stale
 * data of a frame's previous life reaches a kernel object, and -- what
 * made measurements under QEMU's TCG depend on the kernel's layout -- a
 * frame that last held code (the firmware's, the boot loader's, a freed
 * program's) is no longer "code" to TCG: until a store overwrites its code
 * bytes, TCG sends every store into that frame down its slow
 * self-modifying-code path (a hot spinlock in a slab on a frame GRUB had
 * run from made fork+exit+wait twice as slow, docs/benchmarks.md). */
#define PA_ZERO 0x1
/* A frame the caller can do without (swap read-ahead): not from the
 * reserve, the last mm_stats.reserve free frames, which stay for what
 * must be had -- a fault's own page, a system call's kmalloc (a pipe's
 * buffer, a name). */
#define PA_NORESERVE 0x2
#define PA_ANON (PG_ANON << 8)
#define PA_FILE (PG_FILE << 8)
#define PA_PAGETABLE (PG_PAGETABLE << 8)
#define PA_TYPE(flags) ((enum page_type)(((flags) >> 8) & 0xff))

/* Counters in frames (a later meminfo prints them). */
struct mm_stats {
	uint64_t total;              /* frames in the database */
	uint64_t managed;            /* frames the allocator was given at boot */
	uint64_t free;               /* frames in the buddy allocator now, cached ones too */
	uint64_t cached;             /* of those, in the CPUs' free-frame caches */
	uint64_t by_type[PG_NTYPES]; /* frames of each type now */
	uint64_t allocs, frees;      /* page_alloc / page_free calls */
	uint64_t failed;             /* page_alloc calls that returned NULL */
	uint64_t reserve;            /* free frames PA_NORESERVE allocations leave
				      * (set by mm/reclaim.c: its min watermark) */
	uint64_t reserve_refused;    /* PA_NORESERVE allocations refused for it */
};
extern struct mm_stats mm_stats;

/* The database: frames[pfn] for 0 <= pfn < max_pfn. */
extern struct page *frames;
extern uint64_t max_pfn;

/* A physical range [start, end). */
struct prange {
	paddr_t start, end;
};

/* Build the database for RAM ranges ram[0..nram) (all other frames below the
 * highest end are PG_RESERVED). Frames in pinned[] (kernel image, boot info,
 * modules: pinned[i] gets type pinned_type[i], refcount 1) are never handed
 * out; the database itself is placed in RAM below place_limit (what the
 * caller can already reach through P2V). No frame is free afterwards: call
 * page_db_release() for the ranges to hand to the allocator. */
void page_db_init(const struct prange *ram, int nram, const struct prange *pinned,
		  const enum page_type *pinned_type, int npinned, paddr_t place_limit);

/* Hand every RAM frame in [lo, hi) that page_db_init reserved for RAM (not
 * pinned, not the database) to the buddy allocator. Returns frames freed. */
uint64_t page_db_release(paddr_t lo, paddr_t hi);

/* Bytes of struct page per frame, and the whole database's size. */
size_t page_db_bytes(void);

static inline paddr_t page_to_pa(const struct page *pg)
{
	return (paddr_t)(pg - frames) << 12;
}

/* The struct page of physical address pa, or NULL outside the database. */
static inline struct page *pa_to_page(paddr_t pa)
{
	uint64_t pfn = pa >> 12;
	return pfn < max_pfn ? &frames[pfn] : NULL;
}

/* Kernel virtual address of a frame (direct map). */
void *page_va(const struct page *pg);

/* Allocate 2^order contiguous frames (refcount 1, type from flags, zeroed
 * with PA_ZERO). Returns the head page, or NULL when out of memory (never
 * panics). It never reclaims: it only takes free frames, so any code may
 * allocate, inside a TLB batch or under a table lock too. Keeping frames
 * free is the reclaimer's job (mm/reclaim.h): a kernel thread woken below
 * the low watermark, and direct reclaim where a caller holds nothing. */
struct page *page_alloc(unsigned order, unsigned flags);

/* The per-CPU free-frame caches in front of the free lists: on (default)
 * or off (`pcp=off`; set once at boot, or by host tests before they start). */
extern bool frame_cache_on;

/* Give every CPU's cached free frames back to the free lists (page_alloc
 * does it before failing; tests, to see the lists whole). Returns the
 * frames moved. */
uint64_t buddy_drain_caches(void);

/* Copy the 4 KiB contents of frame src into frame dst (64 bytes a loop
 * iteration: the kernel's memcpy goes byte by byte). */
void page_copy(struct page *dst, const struct page *src);

/* Free a block from page_alloc with its order, whatever its refcount.
 * Freeing a free or unallocated frame, a tail, or with the wrong order
 * panics naming the frame and the caller. */
void page_free(struct page *pg, unsigned order);

/* Take a reference on pg unless it has none (its last one is being dropped:
 * a list that finds pages by scanning, the anonymous LRU, must not revive
 * one). true if taken. */
static inline bool page_tryget(struct page *pg)
{
	uint32_t c = __atomic_load_n(&pg->refcount, __ATOMIC_RELAXED);
	while (c)
		if (__atomic_compare_exchange_n(&pg->refcount, &c, c + 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/* Take / drop a reference; the last page_put frees the block. An underflow
 * (page_put at 0) or a reference to a free frame panics. */
void page_get(struct page *pg);
void page_put(struct page *pg);

/* Check every free list and CPU cache against the frame database and the
 * counters (panics naming the first bad frame); returns the free frames.
 * Exact only while no other CPU allocates or frees. */
uint64_t buddy_check(void);

/* Change the type of an allocated block (keeps the per-type counters). */
void page_set_type(struct page *pg, enum page_type t);

/* "free", "kernel", ... */
const char *page_type_name(enum page_type t);

/* Panic about pg: "<what>: frame pfn .. pa .. type .. refcount .. (caller ..)" */
__noreturn void page_bug(const struct page *pg, const char *what, const void *caller);

#endif
