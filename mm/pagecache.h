/* mm/pagecache.h -- the page cache: the pages of one object (a file, a
 * disk) in memory, found by their page index (Linux's address_space).
 *
 * Whoever owns the object (a file system, the block-device layer) embeds a
 * struct pagecache and gives it two ops: read a page in, write a page out.
 * Everything that touches the object's bytes goes through its cache, so
 * read, write, mmap and exec see the same pages.
 *
 *   pagecache                     a radix tree, 64 slots a node
 *     root --> [node] --> [node] --> struct page (PG_FILE, the cache's
 *              h = 2      h = 1        reference + its users')
 *
 *   page states (page->cache.flags, changed under the cache's lock):
 *
 *     absent --get(PC_READ), readahead--> LOCKED --read_pages ok--> UPTODATE
 *                                               \--fails--> removed, -EIO
 *     UPTODATE --set_dirty--> UPTODATE|DIRTY
 *              --write_back--> UPTODATE|WRITEBACK --write_pages--> UPTODATE
 *
 * A page is LOCKED while it is read in: the cache's lock is not held
 * during I/O (read_pages and write_pages sleep), so other tasks that want
 * the page take a reference and wait (lib/wait.h) until it is unlocked.
 *
 * I/O goes in batches (up to PC_BATCH pages to one op call), so that the
 * owner can merge neighbouring pages into one disk request:
 *
 *   read(fd, 1 MiB) -> pagecache_readahead(pc, index, 256, end)
 *                        absent pages of the run LOCKED, one read_pages call
 *                        + a window past the request while reads go on
 *                        from where the last one ended (up to PC_RA_MAX)
 *   fsync, flusher  -> pagecache_write_back: dirty pages in index order,
 *                        up to PC_BATCH at a time WRITEBACK, one write_pages
 *
 * A page is dirty whole (set_dirty) or in part (write_part: a disk's
 * metadata, where the rest of the page may be another owner's stale
 * copy of data blocks): page->cache.dirty says which 512-byte sectors,
 * and write_pages writes only those.
 *
 * References: the cache holds one on each page it has; pagecache_get
 * hands out one more, which the caller drops with page_put. A page leaves
 * the cache only by truncation, by reclaim (clean and unused: nobody else
 * holds a reference; mm/pagecache_lru.h chooses which), or when reading it
 * failed.
 *
 * Replacement (caches with a store, ops->write_pages, and tmpfs's, whose
 * pages go to swap: below): a page joins the inactive file list (tmpfs's:
 * LRU_SHMEM_COLD) when it enters the cache
 * (mm/frame/lru.h), or the active one when the shadow its last eviction
 * left in its slot says it came back soon (mm/pagecache_lru.h); its
 * second use through pagecache_get makes it active (AF_REFERENCED, then
 * LRU_FILE_HOT: Linux's mark_page_accessed), so a file read once does
 * not push out one read again and again.
 *
 *   leaf slot:  NULL | struct page * | shadow (eviction count << 2 | 1)
 *                                    | swapped (tmpfs: swap entry << 2 | 3)
 *
 * Who changes what: the tree, the counts and every page's cache state
 * under pc->lock (LOCK_RANK_PAGECACHE; taken before the frame allocator's
 * and kmalloc's locks, which it allocates under). The bytes of an
 * UPTODATE page are the object's; whoever writes them (a write call)
 * holds a reference and then calls pagecache_set_dirty.
 *
 * Errors: -ENOMEM (no frame or node), read_pages's error for the task that
 * read (the page is not kept; a task that was waiting for it looks again,
 * and reads it itself: its own error; -EIO after a few such failures),
 * -ENOENT (PC_FIND of an absent page), -ENODATA (PC_FIND of a tmpfs
 * page that is out on swap: a get that may bring it back finds it),
 * -EFBIG (an index past PC_MAX_INDEX). Write-back errors are counted
 * in pc (Linux's errseq_t): each open file reports each error once, at
 * its next fsync (pagecache_error_mark, pagecache_error_since). Panics:
 * pagecache_set_dirty on a page that is not up to date in this cache.
 */
#ifndef MM_PAGECACHE_H
#define MM_PAGECACHE_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/types.h"

struct page;
struct pagecache;
struct pc_node;
struct vmobject;

#define PC_MAX_INDEX 0xffffffffull   /* page->cache.index is 32 bits: 16 TiB */

/* page->cache.flags */
#define PGC_UPTODATE 0x1    /* holds the object's bytes */
#define PGC_DIRTY 0x2       /* changed since it was last written out */
#define PGC_LOCKED 0x4      /* being read in: wait for it */
#define PGC_WRITEBACK 0x8   /* being written out: its bytes must not change */
#define PGC_BLOCKS 0x20     /* the owner's store has room for all of it: set by the
			     * owner (a store through a mapping filled its holes:
			     * fs/inode.c file_page_mkwrite); cleared on the page a
			     * truncation cuts (pagecache_truncate_at) */
#define PGC_MAPWRITE 0x10   /* made writable in a shared mapping (pagecache_mkwrite)
			     * since write-back last write-protected it (mkclean) */

#define PC_BATCH 256       /* pages in one read_pages or write_pages call (1 MiB) */
#define PC_RA_MAX 32       /* the largest read-ahead window past a read (128 KiB,
			    * Linux's default read_ahead_kb) */
#define PC_SECTORS_ALL 0xff   /* page->cache.dirty of a page dirty whole */

struct pagecache_ops {
	/* Fill pages[0..n) (fresh zeroed frames, locked; consecutive indices
	 * from pages[0]->cache.index on) with the object's bytes: 0, or -EIO
	 * when any failed (none of them is kept then). Bytes past the
	 * object's end must be zeros. No lock held. */
	int (*read_pages)(struct pagecache *pc, struct page **pages, unsigned n);
	/* Write the dirty sectors of pages[0..n) (ascending indices, maybe
	 * with gaps; page->cache.index; dirty[i]: pages[i]'s sectors, bit s
	 * for bytes [512s, 512s + 512)) to the object's store, their bytes
	 * stable meanwhile: 0 or the first error. No lock held. NULL: the
	 * object has no store (tmpfs): pages stay dirty until truncated. */
	int (*write_pages)(struct pagecache *pc, struct page **pages, const uint8_t *dirty,
			   unsigned n);
};

/* What a cache holds, for /proc/meminfo: Cached, Buffers (a disk's own
 * cache), or Shmem (tmpfs: no store; its written pages stay dirty for
 * ever, so they are not counted as Dirty, as Linux does not). */
enum pagecache_kind { PC_KIND_FILE, PC_KIND_BLOCKDEV, PC_KIND_SHMEM };

struct pagecache {
	const struct pagecache_ops *ops;
	enum pagecache_kind kind;
	struct list link;            /* on the list of every cache (reclaim's) */
	struct spinlock lock;
	struct pc_node *root;
	int height;                  /* levels of nodes: indices < 64^height */
	uint64_t nrpages, ndirty;
	uint64_t nrshadows;          /* shadows of evicted pages in the tree (at most
				      * the frames of RAM: older ones tell nothing) */
	uint64_t nrswapped;          /* tmpfs pages out on swap (their leaves name slots) */
	uint32_t pins;               /* swapoff's holds (under the list of caches'
				      * lock): pagecache_destroy waits for none */
	bool dying;                  /* pagecache_destroy under way: none of its
				      * pages is written to swap any more */
	uint64_t dirtied_ns;         /* clock_ns() when ndirty last went from 0 (the flusher's age) */
	int wb_error;                /* the last write-back error (0: none yet) */
	uint32_t wb_seq;             /* write-back errors so far */
	bool wb_seen;                /* the last one was reported to someone */
	/* Take W away from every mapping of pages [first, first + n) (a
	 * file's: vmobject_wrprotect, Linux's page_mkclean); NULL: the pages
	 * are never mapped writable (a disk's own cache). Set by the owner. */
	void (*mkclean)(struct pagecache *pc, uint64_t first, uint64_t n);
	/* The object whose mappings map these pages (a file's), or NULL (a
	 * disk's own cache: never mapped). Set by the owner; the reclaimer
	 * unmaps an inactive page through it (mm/pagecache_lru.h). */
	struct vmobject *obj;
	uint64_t ra_expect;          /* where a read that goes on sequentially starts */
	uint64_t ra_end;             /* where the last read-ahead window ended: a
				      * mapping read in order faults there next
				      * (its window mapped around), a stream too */
	uint32_t ra_window;          /* the last read-ahead window past a read (pages) */
	void *owner;                 /* the object (for the ops) */
};

/* Every cache's pages together (relaxed counters: exact once quiet). */
struct pagecache_stats {
	uint64_t pages, dirty;       /* in every cache */
	uint64_t writeback;          /* of pages: being written out now */
	uint64_t blockdev;           /* of pages: in disks' own caches (Buffers) */
	uint64_t shmem;              /* of pages: in tmpfs files (Shmem) */
	uint64_t shmem_swapped;      /* tmpfs pages out on swap (ShmemSwapped) */
};
extern struct pagecache_stats pagecache_stats;

/* An empty cache of owner's pages, filled and written with ops, put on
 * the list of caches that reclaim takes clean pages from. Caches live
 * forever (disks are never removed; files' caches will leave the list
 * when their inodes go). */
void pagecache_init(struct pagecache *pc, const struct pagecache_ops *ops, void *owner,
		    enum pagecache_kind kind);

enum pc_how {
	PC_FIND,        /* only a page that is there */
	PC_READ,        /* absent: a new page, read in with read_pages (in a
			 * cache with no store, tmpfs's: zeros, up to date at
			 * once, never locked, so nobody sleeps on it) */
	PC_OVERWRITE,   /* absent: a new page of zeros, not read (the caller
			 * is about to write all of it, or it lies past the end) */
};

/* Page index of pc, up to date, with a new reference in *out: 0, or an
 * error (see the top). Waits while another task reads it in. */
int pagecache_get(struct pagecache *pc, uint64_t index, enum pc_how how, struct page **out);

/* The pages of [first, first + n) that are in pc and up to date, for
 * mapping around a fault (Linux's filemap_map_pages): out[i] with a new
 * reference, or NULL (absent, being read in). Never reads, allocates or
 * waits; one hold of pc->lock. Returns how many it found. */
unsigned pagecache_get_ready(struct pagecache *pc, uint64_t first, unsigned n,
			     struct page **out);

/* A reader is about to want pages [index, index + n) of an object of
 * `end` pages: read in those absent, in batches of neighbours, and, when
 * this read goes on from where the last one ended (or starts the object),
 * a window past it that doubles with each such read up to PC_RA_MAX
 * pages (Linux's on-demand read-ahead; one stream per cache). A request
 * at the end of the last window goes on too: a page fault's (mm/fault.c
 * maps what is ready around a fault, so the next fault of a mapping read
 * in order comes at the first page not read yet). A random
 * read reads only its own pages; a cache with no store (tmpfs) reads
 * nothing ahead. Errors are not reported: a page that
 * could not be read is not kept, and the reader's pagecache_get tries it
 * again and reports the error. */
void pagecache_readahead(struct pagecache *pc, uint64_t index, uint64_t n, uint64_t end);

/* Read the absent pages of [first, stop) in, in batches, with no
 * read-ahead past them and no change to the cache's stream (MADV_WILLNEED,
 * POSIX_FADV_WILLNEED, MADV_SEQUENTIAL faults). Stops early when memory
 * runs out; errors are not reported (as pagecache_readahead). Nothing for
 * a cache with no store. */
void pagecache_fill(struct pagecache *pc, uint64_t first, uint64_t stop);

enum pc_copy {
	PC_COPY_OUT,    /* the cache's bytes into the buffer */
	PC_COPY_IN,     /* the buffer into the cache: the pages marked dirty */
};

/* Copy n bytes at byte offset off between pc's pages and buf, a page at a
 * time (pages read in as needed; a page written whole is not read first):
 * bytes copied, or the error of the first page when none were. The
 * caller clips n to the object's end. */
long pagecache_copy(struct pagecache *pc, uint64_t off, void *buf, uint64_t n, enum pc_copy dir);

/* pg (from pagecache_get, up to date) was written to: mark it dirty. */
void pagecache_set_dirty(struct pagecache *pc, struct page *pg);

/* pg (up to date, in pc) is about to be made writable in a shared
 * mapping (Linux's page_mkwrite): marked dirty whole and PGC_MAPWRITE.
 * Stores through the mapping then change it unseen until write-back
 * cleans it: pagecache_write_back first clears PGC_MAPWRITE of the pages
 * it will write and write-protects every mapping of them (pc->mkclean),
 * then writes them; a page marked again meanwhile (a store fault between
 * the two) stays dirty. So a store is never lost, and a page no mapping
 * wrote since is clean after its write-back, as on Linux. 0, or
 * -EAGAIN when pg is not (any more) an up-to-date page of pc: a
 * truncation took it out meanwhile (pg may even be free by then: only its
 * cache state is read, under pc's lock). */
int pagecache_mkwrite(struct pagecache *pc, struct page *pg);

/* Has page pg of pc every flag of flags (false: not pc's page) / set them
 * (nothing if it is not pc's page): for flags its owner keeps
 * (PGC_BLOCKS). */
bool pagecache_test_flags(struct pagecache *pc, struct page *pg, uint16_t flags);
void pagecache_set_flags(struct pagecache *pc, struct page *pg, uint16_t flags);
/* For read_pages: page pg, being read in (locked: its flags are the
 * reader's), has all its blocks on the store (PGC_BLOCKS, kept when the
 * read succeeds). */
void pagecache_reading_has_blocks(struct page *pg);

/* Copy n bytes from buf to byte offset off of pc (inside one page, read
 * in first if absent) and mark dirty only the 512-byte sectors they
 * touch (a disk's metadata). Waits for a write-back of that page in
 * flight first. 0, or pagecache_get's error; -EINVAL when not in one page. */
int pagecache_write_part(struct pagecache *pc, uint64_t off, const void *buf, uint32_t n);

/* Write every dirty page with an index in [first, last] with write_pages,
 * and wait for those other tasks are writing: 0 or the first error.
 * Pages a shared mapping made dirty (PGC_MAPWRITE) are write-protected in
 * every mapping first (pc->mkclean, which sleeps: no lock of the address
 * spaces' may be held; see pagecache_mkwrite). */
int pagecache_write_back(struct pagecache *pc, uint64_t first, uint64_t last);

/* Write-back errors, Linux's errseq rule: a file opened now takes a mark
 * (an error nobody has heard of yet counts as after the mark, so a file
 * opened after the failure still reports it); pagecache_error_since is
 * the last error if any came after *mark (and moves *mark past it), else
 * 0. So every file open when a write failed -- and the first opened
 * after it -- gets EIO from its next fsync, once. */
uint32_t pagecache_error_mark(struct pagecache *pc);
int pagecache_error_since(struct pagecache *pc, uint32_t *mark);

/* Drop every page with an index in [first, last], dirty ones too (what
 * lies past a file's new end: last PC_MAX_INDEX). Waits for pages being
 * read or written. */
void pagecache_truncate(struct pagecache *pc, uint64_t first, uint64_t last);
/* Take up to max pages with an index in [*at, last] out of pc, dirty ones
 * too, waiting for pages being read or written: no look-up finds them any
 * more, and each one's cache reference is the caller's, in pages[] (to
 * put once it has left every mapping: a hole punched, fs/read_write.c).
 * *at moves past the last page taken; 0 when none is left. The shadows
 * of evicted pages in the part looked at go too. */
unsigned pagecache_detach(struct pagecache *pc, uint64_t *at, uint64_t last,
			  struct page **pages, unsigned max);
#define PC_DETACH_BATCH 32   /* pages a truncation or a hole punch takes out per look */
/* A file shrank to size bytes: its pages past it dropped, and the bytes
 * past it in the page that holds the end zeroed and the page dirtied (a
 * later growth reads zeros, on the store too), after any write-back of
 * that page in flight ends, so that once this returns no write of the
 * old bytes past the end is under way: the caller may free the blocks. */
void pagecache_truncate_at(struct pagecache *pc, uint64_t size);

/* Take pc off the list of caches, wait until swapoff lets go of it, and
 * empty it (pagecache_truncate of everything: pages, shadows and the slots
 * of pages on swap): its owner may free it then. Sleeps. */
void pagecache_destroy(struct pagecache *pc);

/* ---- tmpfs pages on swap (Linux's shmem_writeout, shmem_swapin_folio) ----
 *
 *   a tmpfs page, unmapped, unused --pagecache_swap_out--> written to a
 *   new slot (WRITEBACK meanwhile: a write or a mapping keeps it), then
 *   out of memory; its leaf names the slot    [page] --> [swapped: slot]
 *
 *   pagecache_get (not PC_FIND) on that leaf --> a fresh page LOCKED in
 *   its place while the slot is read; up to date and dirty, slot freed
 *
 * Truncation and hole punching free the slots of their range; swapoff
 * brings every page of its area back (pagecache_swap_unuse). PC_FIND and
 * pagecache_get_ready see a page on swap as absent (mincore: not resident). */

/* Swap tmpfs pages pages[0..n) out (n <= PC_SWAP_BATCH): each is held by
 * the caller (`holds` references besides the cache's, taken by the
 * reclaimer) and goes if it is up to date, not under I/O and nobody else
 * holds it, a slot is free, and its write succeeds; the slots are taken in
 * turn (consecutive, mostly: one request per run, as the anonymous pages'
 * are written). How many left memory (their frames go with the caller's
 * holds). Sleeps (the write). */
#define PC_SWAP_BATCH 32
unsigned pagecache_swap_out(struct page **pages, unsigned n, uint32_t holds);

/* swapoff: bring back every tmpfs page whose leaf names a slot of area.
 * 0, -ENOMEM, or -EIO (a slot could not be read: that page stays on swap). */
int pagecache_swap_unuse(int area);

/* Free up to `want` clean pages with an index in [first, last] that nobody
 * but the cache uses: how many were freed. */
uint64_t pagecache_shrink(struct pagecache *pc, uint64_t first, uint64_t last, uint64_t want);

/* Every clean page of every cache that nobody but its cache uses, freed
 * (/proc/sys/vm/drop_caches): how many. Takes the list's lock, then each
 * cache's. */
uint64_t pagecache_drop_clean(void);

/* The reclaimer's access to one page of the replacement lists
 * (mm/pagecache_lru.h), which it holds by a reference:
 * pagecache_lock_page locks and returns the cache pg is in (alive while
 * its lock is held: pagecache_destroy waits for it), or NULL when pg left
 * its cache; pagecache_evict_idle (pc->lock held) takes pg out of pc and
 * drops the cache's reference if it is clean, up to date, not being read
 * or written and used by nobody but the cache and the `holds` references
 * of the caller: true then. With evicted_at, its slot keeps a shadow of
 * it holding *evicted_at (the reclaimer's count of evictions: Linux's
 * workingset shadow entry), which the page's return hands to
 * pagecache_lru_refault; truncation and hole punching forget shadows. */
struct pagecache *pagecache_lock_page(struct page *pg);
bool pagecache_evict_idle(struct pagecache *pc, struct page *pg, uint32_t holds,
			  const uint64_t *evicted_at);

struct pagoda_cachenode;
/* Describe pc's tree into out[0..max) as pagoda_filecache reports it
 * (libc/include/pagoda/filecache.h: nodes depth first in index order, each
 * followed by its slots): how many nodes and pages there are (those past
 * max are counted, not written). Under pc->lock; never allocates. */
uint64_t pagecache_describe(struct pagecache *pc, struct pagoda_cachenode *out, uint64_t max);

/* Are so many pages dirty (an eighth of memory) that a writer should
 * write back before it dirties more (Linux's balance_dirty_pages)? */
bool pagecache_dirty_over_limit(void);
/* Are more pages dirty than the background flusher lets stay (a
 * sixteenth of memory: Linux's dirty_background_ratio)? */
bool pagecache_dirty_over_background(void);

#endif
