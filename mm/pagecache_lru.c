/* mm/pagecache_lru.c -- which page-cache pages leave memory (see
 * mm/pagecache_lru.h). */
#include "mm/pagecache_lru.h"
#include "mm/pagecache.h"
#include "mm/rmap.h"
#include "mm/vmobject.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"

struct pagecache_lru_stats pagecache_lru_stats;

#define WRITE_CLUSTER 64   /* a dirty mapped page is written with the dirty pages after it */

/* Inactive pages the reclaimer evicted so far: the clock a shadow is read
 * against (Linux's nonresident_age, counting evictions only). */
static uint64_t evictions;

/* Evict held page pg of pc (locked) if idle, leaving a shadow: true if
 * it went. */
static bool evict_with_shadow(struct pagecache *pc, struct page *pg)
{
	uint64_t now = atomic_load(&evictions);
	if (!pagecache_evict_idle(pc, pg, 1, &now))
		return false;
	stat_inc(&evictions);
	return true;
}

/* An inactive list and its active one, the file pages' or tmpfs's, and
 * their counts of pages looked at and freed (vmstat's pgscan_file and
 * pgsteal_file; tmpfs's in pgscan_anon and pgsteal_anon, as Linux's). */
struct list_pair {
	enum lru_list cold, hot;
	uint64_t *scanned, *stolen, *refaults, *activated;
};
static const struct list_pair file_lists = { LRU_FILE_COLD, LRU_FILE_HOT,
	&pagecache_lru_stats.scanned, &pagecache_lru_stats.stolen,
	&pagecache_lru_stats.refaults, &pagecache_lru_stats.refaults_activated };
static const struct list_pair shmem_lists = { LRU_SHMEM_COLD, LRU_SHMEM_HOT,
	&pagecache_lru_stats.shmem_scanned, &pagecache_lru_stats.shmem_stolen,
	&pagecache_lru_stats.shmem_refaults, &pagecache_lru_stats.shmem_refaults_activated };

/* A swap slot's note: the clock's low 31 bits, and the top bit (never 0). */
#define SWAP_NOTE      0x80000000u
#define SWAP_NOTE_MASK 0x7fffffffu

uint32_t pagecache_lru_swap_note(void)
{
	uint64_t now = __atomic_add_fetch(&evictions, 1, __ATOMIC_RELAXED);
	return SWAP_NOTE | (uint32_t)(now & SWAP_NOTE_MASK);
}

/* The pages a refault's distance is measured against (Linux's
 * workingset_refault): a file page could have stayed had the active file
 * pages, or any page of the swap side while swap has room, gone instead;
 * a tmpfs page, had any file page or an active page of the swap side. */
static uint64_t workingset_size(bool shmem)
{
	bool swap = swap_space_left();
	if (!shmem)
		return lru_pages(LRU_FILE_HOT) + (swap ? reclaim_side_pages(SIDE_SWAP) : 0);
	return reclaim_side_pages(SIDE_FILE) +
	       (swap ? lru_pages(LRU_SHMEM_HOT) + lru_pages(LRU_HOT) : 0);
}

enum lru_list pagecache_lru_refault(enum pagecache_kind kind, uint64_t evicted_at)
{
	bool shmem = kind == PC_KIND_SHMEM;
	const struct list_pair *lp = shmem ? &shmem_lists : &file_lists;
	if (shmem && !(evicted_at & SWAP_NOTE))
		return lp->cold;   /* no note: read ahead, or written before the notes */
	uint64_t distance = atomic_load(&evictions) - evicted_at;
	if (shmem)
		distance &= SWAP_NOTE_MASK;
	stat_inc(lp->refaults);
	if (distance > workingset_size(shmem))
		return lp->cold;
	stat_inc(lp->activated);
	reclaim_note_cost(shmem ? SIDE_SWAP : SIDE_FILE, 1);
	return lp->hot;
}

/* The active list back to at most the inactive one's length: the oldest
 * active page used since the last look stays (the mark cleared), one not
 * used turns inactive. One round of the active list at most. */
static void balance_lists(const struct list_pair *lp)
{
	for (uint64_t n = lru_pages(lp->hot); n; n--) {
		if (lru_pages(lp->hot) <= lru_pages(lp->cold))
			return;
		struct page *pg = lru_take(lp->hot);
		if (!pg)
			return;
		uint16_t f = __atomic_fetch_and(&pg->aflags, (uint16_t)~AF_REFERENCED, __ATOMIC_RELAXED);
		if (!(f & AF_REFERENCED)) {
			lru_move(pg, lp->cold, AT_TAIL);
			stat_inc(&pagecache_lru_stats.deactivated);
		}
		page_let_go(pg);
	}
}

/* What the scan did with an inactive page. */
enum file_verdict {
	FILE_FREED,      /* out of its cache: free once the hold goes */
	FILE_KEEP,       /* stays inactive (busy, dirty, used once, or left its cache) */
	FILE_ACTIVATE,   /* used twice: active */
	FILE_UNMAP,      /* mapped or dirty: the thread's to unmap and write (a
			  * tmpfs page: to swap) */
	FILE_SWAP,       /* a tmpfs page nobody maps: the thread's to swap out */
	FILE_QUEUED,     /* ... and in the batch now, held there */
};

/* Evict held page pg if it is idle and still in its cache: true if it went. */
static bool try_evict(struct page *pg)
{
	struct pagecache *pc = pagecache_lock_page(pg);
	if (!pc)
		return false;   /* truncated meanwhile: our hold frees it */
	bool freed = evict_with_shadow(pc, pg);
	spin_unlock(&pc->lock);
	return freed;
}

/* What the thread does with held page pg of pc (locked; not idle and
 * clean): a tmpfs page nobody maps is swapped out as it is (its cache stays
 * while it is written: WRITEBACK); one mapped or dirty is unmapped and
 * written, with a reference on its object in *obj; a busy page, or a tmpfs
 * page with no swap to go to, stays. */
static enum file_verdict verdict_for_thread(struct pagecache *pc, struct page *pg,
					    struct vmobject **obj)
{
	bool used = __atomic_load_n(&pg->refcount, __ATOMIC_ACQUIRE) > 2;   /* cache + hold */
	bool shmem = pc->kind == PC_KIND_SHMEM;
	if ((pg->cache.flags & (PGC_LOCKED | PGC_WRITEBACK)) || (shmem && !swap_space_left()))
		return FILE_KEEP;
	if (shmem && !used)
		return FILE_SWAP;
	if (!used && !(pg->cache.flags & PGC_DIRTY))
		return FILE_KEEP;
	if (!pc->obj || !vmobject_tryget(pc->obj))
		return FILE_KEEP;
	*obj = pc->obj;
	return FILE_UNMAP;
}

/* Look at held page pg without sleeping: freed when idle and clean; one
 * mapped or dirty is the thread's (PCR_UNMAP: FILE_UNMAP with a reference
 * on its object in *obj), which keeps its cache alive meanwhile. */
static enum file_verdict look(struct page *pg, enum pagecache_scan how, struct vmobject **obj)
{
	struct pagecache *pc = pagecache_lock_page(pg);
	if (!pc)
		return FILE_KEEP;   /* truncated meanwhile: our hold frees it */
	if (evict_with_shadow(pc, pg)) {
		spin_unlock(&pc->lock);
		return FILE_FREED;
	}
	enum file_verdict v = how == PCR_UNMAP ? verdict_for_thread(pc, pg, obj) : FILE_KEEP;
	spin_unlock(&pc->lock);
	return v;
}

/* Held tmpfs pages waiting to be written to swap together (one request
 * per run of slots, as anonymous pages go). */
struct swap_batch {
	struct page *pages[PC_SWAP_BATCH];
	unsigned n;
};

/* Write the batch's pages out and let go of them: how many left memory
 * (each write is the swap side's cost). */
static unsigned swap_batch_flush(struct swap_batch *sb)
{
	unsigned out = pagecache_swap_out(sb->pages, sb->n, 1);
	reclaim_note_cost(SIDE_SWAP, out);
	for (unsigned i = 0; i < sb->n; i++)
		page_let_go(sb->pages[i]);
	sb->n = 0;
	return out;
}

/* Held tmpfs page pg out to swap alone: true if it went. */
static bool tmpfs_swap_out(struct page *pg)
{
	if (!pagecache_swap_out(&pg, 1, 1))
		return false;
	reclaim_note_cost(SIDE_SWAP, 1);
	return true;
}

/* Is held page pg dirty in its cache (false: not in one any more)? */
static bool cache_dirty(struct page *pg, struct pagecache **pcp)
{
	struct pagecache *pc = *pcp = pagecache_lock_page(pg);
	if (!pc)
		return false;
	bool dirty = pg->cache.flags & PGC_DIRTY;
	spin_unlock(&pc->lock);
	return dirty;
}

/* The thread's part for held page pg of obj (referenced): out of the
 * mappings that did not use it since the last look, written if dirty (a
 * tmpfs page: to swap, and then freed), freed if idle now; still mapped,
 * a second use makes it active. */
static enum file_verdict unmap_and_write(struct page *pg, struct vmobject *obj)
{
	uint64_t index = pg->cache.index;
	struct pagecache *pc;
	vmobject_unmap(obj, index, 1, UNMAP_RECLAIM);
	stat_inc(&pagecache_lru_stats.unmapped);
	if (pg->aflags & AF_SHMEM) {
		if (tmpfs_swap_out(pg))
			return FILE_FREED;
	} else if (cache_dirty(pg, &pc)) {   /* pc stays alive: obj holds its file */
		(void)pagecache_write_back(pc, index, index + WRITE_CLUSTER - 1);   /* errors: fsync's */
		stat_inc(&pagecache_lru_stats.written);
		reclaim_note_cost(SIDE_FILE, 1);
	}
	if (try_evict(pg))
		return FILE_FREED;
	if (atomic_load(&pg->refcount) <= 2)
		return FILE_KEEP;   /* unmapped, but held by a reader or dirty again */
	uint16_t f = __atomic_fetch_or(&pg->aflags, AF_REFERENCED, __ATOMIC_RELAXED);
	return f & AF_REFERENCED ? FILE_ACTIVATE : FILE_KEEP;
}

/* One inactive page (held) through the scan: what became of it (a tmpfs
 * page to swap out joins sb, with the hold). */
static enum file_verdict scan_one(struct page *pg, enum pagecache_scan how, struct swap_batch *sb)
{
	struct vmobject *obj = NULL;
	enum file_verdict v = look(pg, how, &obj);
	if (v == FILE_SWAP) {
		sb->pages[sb->n++] = pg;
		return FILE_QUEUED;
	}
	if (v == FILE_UNMAP) {
		v = unmap_and_write(pg, obj);
		vmobject_put(obj);
	}
	return v;
}

/* Up to want frames off one pair of lists, inactive pages oldest first. */
static uint64_t reclaim_lists(const struct list_pair *lp, uint64_t want, enum pagecache_scan how)
{
	uint64_t freed = 0;
	struct swap_batch sb = { .n = 0 };
	for (uint64_t budget = 2 * (lru_pages(lp->cold) + lru_pages(lp->hot));
	     freed + sb.n < want && budget; budget--) {
		balance_lists(lp);
		struct page *pg = lru_take(lp->cold);   /* to the tail, held */
		if (!pg)
			break;
		stat_inc(lp->scanned);
		enum file_verdict v = scan_one(pg, how, &sb);
		if (v == FILE_ACTIVATE) {
			__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_REFERENCED, __ATOMIC_RELAXED);
			lru_move(pg, lp->hot, AT_TAIL);
			stat_inc(&pagecache_lru_stats.activated);
		}
		freed += v == FILE_FREED;
		if (v != FILE_QUEUED)
			page_let_go(pg);
		if (sb.n == PC_SWAP_BATCH)
			freed += swap_batch_flush(&sb);
	}
	freed += swap_batch_flush(&sb);
	stat_add(lp->stolen, freed);
	return freed;
}

uint64_t pagecache_lru_reclaim(enum reclaim_side side, uint64_t want, enum pagecache_scan how)
{
	if (side == SIDE_FILE)
		return reclaim_lists(&file_lists, want, how);
	return how == PCR_UNMAP && swap_space_left() ? reclaim_lists(&shmem_lists, want, how) : 0;
}

uint64_t pagecache_lru_pending(void)
{
	uint64_t n = lru_pages(LRU_FILE_COLD) + lru_pages(LRU_FILE_HOT);
	return n + (swap_space_left() ? lru_pages(LRU_SHMEM_COLD) + lru_pages(LRU_SHMEM_HOT) : 0);
}
