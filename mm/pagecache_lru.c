/* mm/pagecache_lru.c -- which page-cache pages leave memory (see
 * mm/pagecache_lru.h). */
#include "mm/pagecache_lru.h"
#include "mm/pagecache.h"
#include "mm/rmap.h"
#include "mm/vmobject.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
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

enum lru_list pagecache_lru_refault(uint64_t evicted_at)
{
	uint64_t distance = atomic_load(&evictions) - evicted_at;
	stat_inc(&pagecache_lru_stats.refaults);
	if (distance > lru_pages(LRU_FILE_HOT))
		return LRU_FILE_COLD;
	stat_inc(&pagecache_lru_stats.refaults_activated);
	return LRU_FILE_HOT;
}

/* The active list back to at most the inactive one's length: the oldest
 * active page used since the last look stays (the mark cleared), one not
 * used turns inactive. One round of the active list at most. */
static void balance_file_lists(void)
{
	for (uint64_t n = lru_pages(LRU_FILE_HOT); n; n--) {
		if (lru_pages(LRU_FILE_HOT) <= lru_pages(LRU_FILE_COLD))
			return;
		struct page *pg = lru_take(LRU_FILE_HOT);
		if (!pg)
			return;
		uint16_t f = __atomic_fetch_and(&pg->aflags, (uint16_t)~AF_REFERENCED, __ATOMIC_RELAXED);
		if (!(f & AF_REFERENCED)) {
			lru_move(pg, LRU_FILE_COLD, AT_TAIL);
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
	FILE_UNMAP,      /* mapped or dirty: the thread's to unmap and write */
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
	bool busy = pg->cache.flags & (PGC_LOCKED | PGC_WRITEBACK);
	bool used = __atomic_load_n(&pg->refcount, __ATOMIC_ACQUIRE) > 2;   /* cache + hold */
	enum file_verdict v = FILE_KEEP;
	if (how == PCR_UNMAP && !busy && (used || (pg->cache.flags & PGC_DIRTY)) && pc->obj &&
	    vmobject_tryget(pc->obj)) {
		*obj = pc->obj;
		v = FILE_UNMAP;
	}
	spin_unlock(&pc->lock);
	return v;
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
 * mappings that did not use it since the last look, written if dirty,
 * freed if idle now; still mapped, a second use makes it active. */
static enum file_verdict unmap_and_write(struct page *pg, struct vmobject *obj)
{
	uint64_t index = pg->cache.index;
	struct pagecache *pc;
	vmobject_unmap(obj, index, 1, UNMAP_RECLAIM);
	stat_inc(&pagecache_lru_stats.unmapped);
	if (cache_dirty(pg, &pc)) {   /* pc stays alive: obj holds its file */
		(void)pagecache_write_back(pc, index, index + WRITE_CLUSTER - 1);   /* errors: fsync's */
		stat_inc(&pagecache_lru_stats.written);
	}
	if (try_evict(pg))
		return FILE_FREED;
	if (atomic_load(&pg->refcount) <= 2)
		return FILE_KEEP;   /* unmapped, but held by a reader or dirty again */
	uint16_t f = __atomic_fetch_or(&pg->aflags, AF_REFERENCED, __ATOMIC_RELAXED);
	return f & AF_REFERENCED ? FILE_ACTIVATE : FILE_KEEP;
}

/* One inactive page (held) through the scan: what became of it. */
static enum file_verdict scan_one(struct page *pg, enum pagecache_scan how)
{
	struct vmobject *obj = NULL;
	stat_inc(&pagecache_lru_stats.scanned);
	enum file_verdict v = look(pg, how, &obj);
	if (v == FILE_UNMAP) {
		v = unmap_and_write(pg, obj);
		vmobject_put(obj);
	}
	return v;
}

uint64_t pagecache_lru_reclaim(uint64_t want, enum pagecache_scan how)
{
	uint64_t freed = 0;
	for (uint64_t budget = 2 * (lru_pages(LRU_FILE_COLD) + lru_pages(LRU_FILE_HOT));
	     freed < want && budget; budget--) {
		balance_file_lists();
		struct page *pg = lru_take(LRU_FILE_COLD);   /* to the tail, held */
		if (!pg)
			break;
		enum file_verdict v = scan_one(pg, how);
		if (v == FILE_ACTIVATE) {
			__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_REFERENCED, __ATOMIC_RELAXED);
			lru_move(pg, LRU_FILE_HOT, AT_TAIL);
			stat_inc(&pagecache_lru_stats.activated);
		}
		freed += v == FILE_FREED;
		page_let_go(pg);
	}
	stat_add(&pagecache_lru_stats.stolen, freed);
	return freed;
}
