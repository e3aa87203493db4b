/* mm/pagecache.c -- the page cache (see mm/pagecache.h). */
#include "mm/pagecache.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/lru.h"
#include "mm/pagecache_lru.h"
#include "mm/frame/page.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"
#include "libc/include/pagoda/filecache.h"

#define PC_SHIFT 6
#define PC_SLOTS (1u << PC_SHIFT)
#define PC_MAX_HEIGHT 6              /* 64^6 = 2^36 > PC_MAX_INDEX + 1 */

/* An inner node (height > 1: children) or a leaf node (height 1: pages,
 * and shadows of pages the reclaimer evicted). */
struct pc_node {
	void *slot[PC_SLOTS];
	unsigned count;                  /* slots in use */
};

/* A leaf slot holds a page (a struct page is aligned), or a value (odd):
 *
 *   shadow   evictions << 2 | 1   the reclaimer's eviction count when the
 *                                 page that was there left
 *                                 (mm/pagecache_lru.h: a page that comes
 *                                 back soon is active at once)
 *   swapped  swap entry << 2 | 3  a tmpfs page out on swap: the leaf names
 *                                 its slot, as a PT entry would
 *                                 (mm/frame/swap.h) */
enum leaf_kind { LEAF_PAGE, LEAF_SHADOW, LEAF_SWAPPED };
#define LEAF_BIT(k) (1u << (k))

static enum leaf_kind leaf_kind(const void *e)
{
	uintptr_t v = (uintptr_t)e;
	return !(v & 1) ? LEAF_PAGE : (v & 2) ? LEAF_SWAPPED : LEAF_SHADOW;
}

static void *make_shadow(uint64_t evicted_at)
{
	return (void *)(uintptr_t)(evicted_at << 2 | 1);
}

static uint64_t shadow_evicted_at(const void *shadow)
{
	return (uintptr_t)shadow >> 2;
}

static void *make_swapped(pte_t e)
{
	return (void *)(uintptr_t)(e << 2 | 3);
}

static pte_t swapped_entry(const void *leaf)
{
	return (uintptr_t)leaf >> 2;
}

struct pagecache_stats pagecache_stats;
static struct list all_caches = { &all_caches, &all_caches };
static struct spinlock all_lock = SPINLOCK_INIT("pagecache-list", LOCK_RANK_PAGECACHE_LIST);

void pagecache_init(struct pagecache *pc, const struct pagecache_ops *ops, void *owner,
		    enum pagecache_kind kind)
{
	*pc = (struct pagecache){ .ops = ops, .owner = owner, .kind = kind };
	spin_init(&pc->lock, "pagecache", LOCK_RANK_PAGECACHE);
	spin_lock(&all_lock);
	list_add_tail(&all_caches, &pc->link);
	spin_unlock(&all_lock);
}

/* nrpages += delta, and the totals (pc->lock held). */
static void count_pages(struct pagecache *pc, int delta)
{
	pc->nrpages += (uint64_t)(int64_t)delta;
	stat_add(&pagecache_stats.pages, (uint64_t)(int64_t)delta);
	if (pc->kind == PC_KIND_BLOCKDEV)
		stat_add(&pagecache_stats.blockdev, (uint64_t)(int64_t)delta);
	if (pc->kind == PC_KIND_SHMEM)
		stat_add(&pagecache_stats.shmem, (uint64_t)(int64_t)delta);
}

/* ndirty += delta, and the total (pc->lock held). */
static void count_dirty(struct pagecache *pc, int delta)
{
	if (pc->ndirty == 0 && delta > 0)
		pc->dirtied_ns = clock_ns();
	pc->ndirty += (uint64_t)(int64_t)delta;
	if (pc->kind != PC_KIND_SHMEM)
		stat_add(&pagecache_stats.dirty, (uint64_t)(int64_t)delta);
}

/* ---- the tree (pc->lock held) ---- */

static uint64_t capacity(int height)
{
	return 1ull << (PC_SHIFT * height);
}

static unsigned slot_of(uint64_t index, int level)
{
	return (index >> (PC_SHIFT * (level - 1))) & (PC_SLOTS - 1);
}

/* What the slot of index holds: a page, a shadow or NULL. */
static void *tree_entry(struct pagecache *pc, uint64_t index)
{
	if (!pc->root || index >= capacity(pc->height))
		return NULL;
	struct pc_node *n = pc->root;
	for (int l = pc->height; l > 1 && n; l--)
		n = n->slot[slot_of(index, l)];
	return n ? n->slot[slot_of(index, 1)] : NULL;
}

/* The page at index, or NULL (nothing, or a value). */
static struct page *tree_lookup(struct pagecache *pc, uint64_t index)
{
	void *e = tree_entry(pc, index);
	return leaf_kind(e) == LEAF_PAGE ? e : NULL;
}

/* Add levels on top until index fits: 0 or -ENOMEM. */
static int tree_grow(struct pagecache *pc, uint64_t index)
{
	if (!pc->root) {   /* an empty tree: just tall enough */
		pc->height = 1;
		while (index >= capacity(pc->height))
			pc->height++;
	}
	while (index >= capacity(pc->height)) {
		struct pc_node *top = kzalloc(sizeof(*top));
		if (!top)
			return -ENOMEM;
		top->slot[0] = pc->root;
		top->count = 1;
		pc->root = top;
		pc->height++;
	}
	return 0;
}

/* Put pg at index (a slot free or with a value, which goes to *old, else
 * NULL): 0 or -ENOMEM (nothing changed but empty nodes, which later
 * inserts use). */
static int tree_insert(struct pagecache *pc, uint64_t index, struct page *pg, void **old)
{
	*old = NULL;
	if (tree_grow(pc, index) < 0)
		return -ENOMEM;
	if (!pc->root && !(pc->root = kzalloc(sizeof(struct pc_node))))
		return -ENOMEM;
	struct pc_node *n = pc->root;
	for (int l = pc->height; l > 1; l--) {
		void **s = &n->slot[slot_of(index, l)];
		if (!*s) {
			if (!(*s = kzalloc(sizeof(struct pc_node))))
				return -ENOMEM;
			n->count++;
		}
		n = *s;
	}
	void **leaf = &n->slot[slot_of(index, 1)];
	if (*leaf)
		*old = *leaf;   /* (tree_lookup found no page there) */
	else
		n->count++;
	*leaf = pg;
	return 0;
}

/* Replace what the slot of index holds (a page or a value) by e. */
static void tree_set_leaf(struct pagecache *pc, uint64_t index, void *e)
{
	struct pc_node *n = pc->root;
	for (int l = pc->height; l > 1; l--)
		n = n->slot[slot_of(index, l)];
	n->slot[slot_of(index, 1)] = e;
}

/* Clear the slot of index (it holds a page or a value); free the nodes
 * it empties. */
static void tree_remove(struct pagecache *pc, uint64_t index)
{
	struct pc_node *path[PC_MAX_HEIGHT + 1];
	struct pc_node *n = pc->root;
	for (int l = pc->height; l >= 1; l--) {
		path[l] = n;
		if (l > 1)
			n = n->slot[slot_of(index, l)];
	}
	for (int l = 1; l <= pc->height; l++) {
		path[l]->slot[slot_of(index, l)] = NULL;
		if (--path[l]->count > 0)
			return;
		kfree(path[l]);
	}
	pc->root = NULL;   /* the root emptied too */
	pc->height = 0;
}

/* The first entry of a kind in `kinds` (LEAF_BITs) at or after *index
 * under node n (covering [base, ...) at `level`); *index becomes its index. */
static void *next_in(struct pc_node *n, int level, uint64_t base, uint64_t *index,
		     unsigned kinds)
{
	uint64_t span = capacity(level - 1);
	for (unsigned s = (unsigned)((*index - base) / span); s < PC_SLOTS; s++) {
		uint64_t b = base + s * span, from = *index > b ? *index : b;
		if (!n->slot[s])
			continue;
		if (level == 1) {
			if (!(kinds & LEAF_BIT(leaf_kind(n->slot[s]))))
				continue;
			*index = b;
			return n->slot[s];
		}
		void *e = next_in(n->slot[s], level - 1, b, &from, kinds);
		if (e) {
			*index = from;
			return e;
		}
	}
	return NULL;
}

/* The first entry of a kind in `kinds` with an index >= *index (set to
 * it), or NULL. */
static void *tree_next_of(struct pagecache *pc, uint64_t *index, unsigned kinds)
{
	if (!pc->root || *index >= capacity(pc->height))
		return NULL;
	return next_in(pc->root, pc->height, 0, index, kinds);
}

/* The first page with an index >= *index (set to it), or NULL. */
static struct page *tree_next(struct pagecache *pc, uint64_t *index)
{
	return tree_next_of(pc, index, LEAF_BIT(LEAF_PAGE));
}

/* A value enters (+1) or leaves (-1) the tree: its kind's count. */
static void count_value(struct pagecache *pc, const void *value, int delta)
{
	if (leaf_kind(value) == LEAF_SHADOW)
		pc->nrshadows += (uint64_t)(int64_t)delta;
	else if (leaf_kind(value) == LEAF_SWAPPED) {
		pc->nrswapped += (uint64_t)(int64_t)delta;
		stat_add(&pagecache_stats.shmem_swapped, (uint64_t)(int64_t)delta);
	}
}

/* Forget the values of [first, last] (pc->lock held): their pages left
 * the object, or the cache goes; a swapped page's slot is put. */
static void forget_values(struct pagecache *pc, uint64_t first, uint64_t last)
{
	void *v;
	for (uint64_t i = first;
	     (v = tree_next_of(pc, &i, LEAF_BIT(LEAF_SHADOW) | LEAF_BIT(LEAF_SWAPPED))) && i <= last;
	     i++) {
		tree_remove(pc, i);
		count_value(pc, v, -1);
		if (leaf_kind(v) == LEAF_SWAPPED)
			swap_slot_put(swapped_entry(v));   /* (swap_lock ranks after ours) */
	}
}

/* ---- pages in and out ---- */

/* Wait (pc->lock held, a reference on pg held) until no flag of `busy` is set. */
static void wait_while(struct pagecache *pc, struct page *pg, uint16_t busy)
{
	while (pg->cache.flags & busy)
		wait_on(pg, &pc->lock);
}

/* Take pg out of the cache (pc->lock held): no look-up finds it any more,
 * its slot emptied or holding value `left` (make_shadow's, make_swapped's);
 * the cache's reference is the caller's now. */
static void detach_leaving(struct pagecache *pc, struct page *pg, void *left)
{
	if (left) {
		tree_set_leaf(pc, pg->cache.index, left);
		count_value(pc, left, 1);
	} else {
		tree_remove(pc, pg->cache.index);
	}
	count_pages(pc, -1);
	if (pg->cache.flags & PGC_DIRTY)
		count_dirty(pc, -1);
	pg->cache.flags = 0;
	pg->cache.dirty = 0;
	lru_del(pg);
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_SHMEM, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->pagecache, NULL, __ATOMIC_RELEASE);
}

static void detach(struct pagecache *pc, struct page *pg)
{
	detach_leaving(pc, pg, NULL);
}

/* Take pg out of the cache (pc->lock held) and drop the cache's reference. */
static void evict(struct pagecache *pc, struct page *pg)
{
	detach(pc, pg);
	page_put(pg);
}

/* Mark pg's sectors in `sectors` dirty (pc->lock held, pg up to date). */
static void mark_dirty(struct pagecache *pc, struct page *pg, uint8_t sectors)
{
	pg->cache.dirty |= sectors;
	if (!(pg->cache.flags & PGC_DIRTY)) {
		pg->cache.flags |= PGC_DIRTY;
		count_dirty(pc, 1);
	}
}

/* The list a page that enters pc starts on, its slot having held `old`:
 * its kind's inactive list (tmpfs's: LRU_SHMEM_COLD), or the active one
 * when a shadow -- a tmpfs page's: the note its swap slot kept, taken now
 * -- says its page left so recently that it belongs to the working set
 * (pagecache_lru_refault). */
static enum lru_list first_list(struct pagecache *pc, const void *old)
{
	if (leaf_kind(old) == LEAF_SWAPPED)
		return pagecache_lru_refault(pc->kind, swap_slot_take_shadow(swapped_entry(old)));
	if (leaf_kind(old) == LEAF_SHADOW)
		return pagecache_lru_refault(pc->kind, shadow_evicted_at(old));
	return pc->kind == PC_KIND_SHMEM ? LRU_SHMEM_COLD : LRU_FILE_COLD;
}

/* Put fresh page pg at index of pc (no page there, maybe a value, which
 * goes -- a swapped page's slot is then the caller's to put; pc->lock
 * held) in state `flags`, on a list (first_list) if its pages can leave
 * memory: those of a cache with a store or of tmpfs's files (not a disk
 * cache without a store). 0 or -ENOMEM (no node: nothing changed). */
static int attach(struct pagecache *pc, uint64_t index, struct page *pg, uint16_t flags)
{
	void *old;
	if (tree_insert(pc, index, pg, &old) < 0)
		return -ENOMEM;
	if (old)
		count_value(pc, old, -1);
	pg->cache.index = (uint32_t)index;
	pg->cache.flags = flags;
	pg->cache.dirty = 0;
	__atomic_store_n(&pg->pagecache, pc, __ATOMIC_RELEASE);
	count_pages(pc, 1);
	if (pc->kind == PC_KIND_SHMEM)
		__atomic_fetch_or(&pg->aflags, AF_SHMEM, __ATOMIC_RELAXED);
	if (pc->ops->write_pages || pc->kind == PC_KIND_SHMEM)
		lru_add(pg, first_list(pc, old));
	return 0;
}

/* pg was used (a read, a write, a fault: pagecache_get): a second use
 * since it came, or since the reclaimer last looked, makes an inactive
 * page active (Linux's folio_mark_accessed). */
static void mark_accessed(struct page *pg)
{
	uint16_t f = __atomic_fetch_or(&pg->aflags, AF_REFERENCED, __ATOMIC_RELAXED);
	if ((f & (AF_LRU | AF_HOT | AF_REFERENCED)) != (AF_LRU | AF_REFERENCED))
		return;
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_REFERENCED, __ATOMIC_RELAXED);
	lru_move(pg, f & AF_SHMEM ? LRU_SHMEM_HOT : LRU_FILE_HOT, AT_TAIL);
	stat_inc(&pagecache_lru_stats.activated);
}

/* The new page fresh at index, or the page another task put there first
 * (pc->lock held): a page with a reference for the caller, *mine set when
 * it is fresh (then it holds the cache's reference too); NULL: no node. */
static struct page *insert(struct pagecache *pc, uint64_t index, struct page *fresh,
			   enum pc_how how, bool *mine)
{
	struct page *pg = tree_lookup(pc, index);
	*mine = false;
	if (!pg) {
		if (attach(pc, index, fresh, how == PC_READ ? PGC_LOCKED : PGC_UPTODATE) < 0)
			return NULL;
		pg = fresh;
		*mine = true;
	}
	page_get(pg);
	return pg;
}

/* Read pages[0..n) in (fresh, locked, consecutive; pc->lock held and
 * released meanwhile): 0 or read_pages's error (then none is kept: a
 * later get retries). */
static int read_in(struct pagecache *pc, struct page **pages, unsigned n)
{
	spin_unlock(&pc->lock);
	int r = pc->ops->read_pages(pc, pages, n);
	spin_lock(&pc->lock);
	for (unsigned i = 0; i < n; i++) {
		struct page *pg = pages[i];
		pg->cache.flags = r == 0 ? PGC_UPTODATE | (pg->cache.flags & PGC_BLOCKS) : 0;
		wait_wake(pg);
		if (r != 0)
			evict(pc, pg);
	}
	return r;
}

/* Tries of a page another task was reading when that read failed: the
 * page is gone, and looking again reads it ourselves (and gets our own
 * error: -ENOMEM under memory pressure is no I/O error). */
#define PC_GET_TRIES 3

/* Bring back the tmpfs page whose slot `swapped` (index's leaf) names
 * (pc->lock held on entry, not on return), as a file page is read in: a
 * fresh page stands in the leaf's place LOCKED while the slot is read, so
 * that other tasks that want it wait; then it is up to date and dirty
 * (its only copy), and the slot's name, the tree's until then, is put.
 * 0 with *out referenced; 1: the leaf changed meanwhile (look again);
 * -ENOMEM; -EIO: the read failed, the page stays on swap. */
static int tmpfs_swap_in(struct pagecache *pc, uint64_t index, void *swapped, struct page **out)
{
	spin_unlock(&pc->lock);
	struct page *pg = page_alloc(0, PA_FILE);
	if (!pg)
		return -ENOMEM;
	spin_lock(&pc->lock);
	if (tree_entry(pc, index) != swapped || attach(pc, index, pg, PGC_LOCKED) < 0) {
		spin_unlock(&pc->lock);
		page_put(pg);
		return 1;
	}
	pte_t e = swapped_entry(swapped);   /* named by us now */
	page_get(pg);                       /* the caller's */
	spin_unlock(&pc->lock);
	int r = swap_slot_rw(&e, &pg, 1, SWAP_READ) ? -EIO : 0;
	spin_lock(&pc->lock);
	if (r == 0) {
		pg->cache.flags = PGC_UPTODATE;
		mark_dirty(pc, pg, PC_SECTORS_ALL);
	} else {
		detach_leaving(pc, pg, swapped);   /* the tree names e again */
	}
	wait_wake(pg);
	spin_unlock(&pc->lock);
	if (r == 0) {
		swap_slot_put(e);
		stat_inc(&pagecache_lru_stats.swapped_in);
		*out = pg;
		return 0;
	}
	page_put(pg);   /* the caller's, */
	page_put(pg);   /* and the cache's, which detach_leaving handed over */
	return r;
}

/* pagecache_get, once: 1 when the page another task was reading failed
 * or a swapped page came back meanwhile (look again), else
 * pagecache_get's result. */
static int get_once(struct pagecache *pc, uint64_t index, enum pc_how how, struct page **out)
{
	struct page *fresh = NULL, *pg;
	bool mine = false;
	spin_lock(&pc->lock);
	void *leaf = tree_entry(pc, index);
	if (leaf_kind(leaf) == LEAF_SWAPPED) {
		if (how != PC_FIND)
			return tmpfs_swap_in(pc, index, leaf, out);
		spin_unlock(&pc->lock);
		*out = NULL;
		return -ENODATA;
	}
	if (how == PC_READ && pc->kind == PC_KIND_SHMEM)
		how = PC_OVERWRITE;   /* no store: a hole is zeros, up to date at once */
	if (!(pg = tree_lookup(pc, index)) && how != PC_FIND) {
		spin_unlock(&pc->lock);
		if (!(fresh = page_alloc(0, PA_FILE | PA_ZERO)))
			return -ENOMEM;
		spin_lock(&pc->lock);
		if (leaf_kind(tree_entry(pc, index)) == LEAF_SWAPPED) {
			spin_unlock(&pc->lock);   /* made and swapped out meanwhile */
			page_put(fresh);
			return 1;
		}
		pg = insert(pc, index, fresh, how, &mine);
	} else if (pg) {
		page_get(pg);
	}
	int read_err = 0;
	if (pg && mine && how == PC_READ)
		read_err = read_in(pc, &pg, 1);
	else if (pg)
		wait_while(pc, pg, PGC_LOCKED);
	bool ok = pg && (pg->cache.flags & PGC_UPTODATE);
	spin_unlock(&pc->lock);
	if (ok && how != PC_FIND)
		mark_accessed(pg);
	if (fresh && !mine)
		page_put(fresh);   /* another task's page won, or no node for ours */
	if (!ok && pg)
		page_put(pg);
	*out = ok ? pg : NULL;
	if (!ok && pg && !mine)
		return 1;   /* another task's read of it failed: it left the cache */
	return ok ? 0 : !pg && how == PC_FIND ? -ENOENT : !pg ? -ENOMEM : read_err ? read_err : -EIO;
}

int pagecache_get(struct pagecache *pc, uint64_t index, enum pc_how how, struct page **out)
{
	if (index > PC_MAX_INDEX)
		return -EFBIG;
	int r = 1;
	for (int i = 0; r == 1 && i < PC_GET_TRIES; i++)
		r = get_once(pc, index, how, out);
	return r == 1 ? -EIO : r;
}

unsigned pagecache_get_ready(struct pagecache *pc, uint64_t first, unsigned n,
			     struct page **out)
{
	unsigned found = 0;
	spin_lock(&pc->lock);
	for (unsigned i = 0; i < n; i++) {
		struct page *pg = first + i <= PC_MAX_INDEX ? tree_lookup(pc, first + i) : NULL;
		out[i] = pg && (pg->cache.flags & (PGC_UPTODATE | PGC_LOCKED)) == PGC_UPTODATE ?
			 pg : NULL;
		if (out[i]) {
			page_get(out[i]);
			found++;
		}
	}
	spin_unlock(&pc->lock);
	return found;
}

/* Read the absent pages from index on (up to stop, PC_BATCH, the next
 * page present) in one read_pages call: how many pages that was (0: no
 * frame, or index is present). */
static unsigned read_run(struct pagecache *pc, uint64_t index, uint64_t stop)
{
	unsigned want = (unsigned)MIN(stop - index, PC_BATCH), got = 0, n = 0;
	struct page **pages = kmalloc(want * sizeof(*pages));
	if (!pages)
		return 0;
	while (got < want && (pages[got] = page_alloc(0, PA_FILE | PA_ZERO)))
		got++;
	spin_lock(&pc->lock);
	while (n < got && !tree_lookup(pc, index + n) &&
	       attach(pc, index + n, pages[n], PGC_LOCKED) == 0)
		n++;
	if (n)
		(void)read_in(pc, pages, n);   /* (errors: the reader's own get reports them) */
	spin_unlock(&pc->lock);
	for (unsigned i = n; i < got; i++)
		page_put(pages[i]);
	kfree(pages);
	return n;
}

/* The first index in [from, stop) with no page of pc, or stop (a racy
 * look: the caller only plans by it). */
static uint64_t first_absent(struct pagecache *pc, uint64_t from, uint64_t stop)
{
	spin_lock(&pc->lock);
	while (from < stop && tree_lookup(pc, from))
		from++;
	spin_unlock(&pc->lock);
	return from;
}

/* The read-ahead window past a read at index of n pages (pc->lock held):
 * doubled while reads go on sequentially, none for a random read. */
static uint64_t ra_window(struct pagecache *pc, uint64_t index, uint64_t n)
{
	bool sequential = index == 0 || index == pc->ra_expect || index == pc->ra_end;
	pc->ra_window = sequential ? MIN(MAX(2 * pc->ra_window, 4u), PC_RA_MAX) : 0;
	pc->ra_expect = index + n;
	return pc->ra_window;
}

/* Read the absent pages of [i, stop) (i absent), in runs: until the end,
 * or until there is no memory (the readers' gets cope). */
static void read_absent(struct pagecache *pc, uint64_t i, uint64_t stop)
{
	for (unsigned got; i < stop; i = first_absent(pc, i + got, stop))
		if (!(got = read_run(pc, i, stop)))
			return;   /* no memory (or a page came meanwhile) */
}

void pagecache_readahead(struct pagecache *pc, uint64_t index, uint64_t n, uint64_t end)
{
	if (pc->kind == PC_KIND_SHMEM || !pc->ops->read_pages || index >= end)
		return;   /* (tmpfs: no store to read from; a hole is a page of zeros when asked) */
	spin_lock(&pc->lock);
	uint64_t window = ra_window(pc, index, n);
	uint64_t stop = MIN(MIN(index + n + window, end), PC_MAX_INDEX + 1), i = index;
	pc->ra_end = stop;
	uint64_t trigger = MIN(index + n + window / 2, stop) - 1;
	bool cached = tree_lookup(pc, index) && tree_lookup(pc, index + n - 1) &&
		      tree_lookup(pc, trigger);
	spin_unlock(&pc->lock);
	if (cached)
		return;   /* the usual case of a stream: nothing to do yet (three looks) */
	i = first_absent(pc, i, stop);
	if (i >= index + n + window / 2 && i > index)
		return;   /* the request and half the window are cached: not yet */
	read_absent(pc, i, stop);
}

void pagecache_fill(struct pagecache *pc, uint64_t first, uint64_t stop)
{
	if (pc->kind == PC_KIND_SHMEM || !pc->ops->read_pages)
		return;
	read_absent(pc, first_absent(pc, first, MIN(stop, PC_MAX_INDEX + 1)),
		    MIN(stop, PC_MAX_INDEX + 1));
}

long pagecache_copy(struct pagecache *pc, uint64_t off, void *buf, uint64_t n, enum pc_copy dir)
{
	uint64_t done = 0;
	while (done < n) {
		uint64_t at = off + done, in = at % PAGE_SIZE, len = MIN(n - done, PAGE_SIZE - in);
		bool whole = dir == PC_COPY_IN && len == PAGE_SIZE;   /* nothing to read first */
		struct page *pg;
		int e = pagecache_get(pc, at / PAGE_SIZE, whole ? PC_OVERWRITE : PC_READ, &pg);
		if (e < 0)
			return done ? (long)done : e;
		char *p = (char *)page_va(pg) + in, *b = (char *)buf + done;
		memcpy(dir == PC_COPY_IN ? p : b, dir == PC_COPY_IN ? b : p, len);
		if (dir == PC_COPY_IN)
			pagecache_set_dirty(pc, pg);
		page_put(pg);
		done += len;
	}
	return (long)done;
}

/* Mark up-to-date page pg of pc dirty whole, with extra flags. */
/* Mark pg dirty whole with flags besides: true, or false when pg is not
 * an up-to-date page of pc (any more). */
static bool set_dirty_flags(struct pagecache *pc, struct page *pg, uint16_t flags)
{
	spin_lock(&pc->lock);
	bool ours = (pg->cache.flags & PGC_UPTODATE) && tree_lookup(pc, pg->cache.index) == pg;
	if (ours) {
		mark_dirty(pc, pg, PC_SECTORS_ALL);
		pg->cache.flags |= flags;
	}
	spin_unlock(&pc->lock);
	return ours;
}

/* Never inlined: one place with pc and pg at hand, where gdb stops to
 * look at a cache being written (tests/gdb/cache.py). */
__attribute__((noinline)) void pagecache_set_dirty(struct pagecache *pc, struct page *pg)
{
	if (!set_dirty_flags(pc, pg, 0))
		panic("pagecache_set_dirty: frame %#lx is not an up-to-date page of cache %p",
		      page_to_pa(pg), (void *)pc);
}

int pagecache_mkwrite(struct pagecache *pc, struct page *pg)
{
	return set_dirty_flags(pc, pg, PGC_MAPWRITE) ? 0 : -EAGAIN;
}

bool pagecache_test_flags(struct pagecache *pc, struct page *pg, uint16_t flags)
{
	spin_lock(&pc->lock);
	bool all = tree_lookup(pc, pg->cache.index) == pg && (pg->cache.flags & flags) == flags;
	spin_unlock(&pc->lock);
	return all;
}

void pagecache_set_flags(struct pagecache *pc, struct page *pg, uint16_t flags)
{
	spin_lock(&pc->lock);
	if (tree_lookup(pc, pg->cache.index) == pg)
		pg->cache.flags |= flags;
	spin_unlock(&pc->lock);
}

void pagecache_reading_has_blocks(struct page *pg)
{
	__atomic_or_fetch(&pg->cache.flags, PGC_BLOCKS, __ATOMIC_RELAXED);
}

/* The sectors of a page that bytes [in, in + n) touch. */
static uint8_t sectors_of(uint64_t in, uint64_t n)
{
	unsigned first = (unsigned)(in / 512), last = (unsigned)((in + n - 1) / 512);
	return (uint8_t)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
}

int pagecache_write_part(struct pagecache *pc, uint64_t off, const void *buf, uint32_t n)
{
	uint64_t in = off % PAGE_SIZE;
	if (n == 0 || in + n > PAGE_SIZE)
		return -EINVAL;
	struct page *pg;
	int e = pagecache_get(pc, off / PAGE_SIZE, PC_READ, &pg);
	if (e)
		return e;
	spin_lock(&pc->lock);
	wait_while(pc, pg, PGC_WRITEBACK);   /* its bytes are stable while written */
	memcpy((char *)page_va(pg) + in, buf, n);
	mark_dirty(pc, pg, sectors_of(in, n));
	spin_unlock(&pc->lock);
	page_put(pg);
	return 0;
}

/* A batch of pages being written back (pagecache_write_back's). */
struct wb_batch {
	struct page **pages;
	uint8_t *dirty;
	unsigned n, max;
};

/* Start pg's write-back into b (pc->lock held, pg dirty and not being
 * written): it holds a reference until write_batch is done with it. A
 * page a shared mapping made writable again since write_back's mkclean
 * (PGC_MAPWRITE set anew) stays dirty: a store during or after this
 * write-back must be written too. */
static void batch_add(struct pagecache *pc, struct wb_batch *b, struct page *pg)
{
	page_get(pg);
	b->pages[b->n] = pg;
	b->dirty[b->n++] = pg->cache.dirty ? pg->cache.dirty : PC_SECTORS_ALL;
	pg->cache.flags |= PGC_WRITEBACK;
	if (!(pg->cache.flags & PGC_MAPWRITE)) {
		pg->cache.flags &= (uint16_t)~PGC_DIRTY;
		pg->cache.dirty = 0;
		count_dirty(pc, -1);
	}
	stat_inc(&pagecache_stats.writeback);
}

/* Clear PGC_MAPWRITE of the pages in [first, last] (pc->lock not held):
 * did any have it? Then their mappings must be write-protected before
 * they are written (pc->mkclean), and one marked again after this (a
 * store fault) stays dirty through the write-back. */
static bool clear_mapwrite(struct pagecache *pc, uint64_t first, uint64_t last)
{
	bool any = false;
	spin_lock(&pc->lock);
	struct page *pg;
	for (uint64_t i = first; (pg = tree_next(pc, &i)) && i <= last; i++)
		if (pg->cache.flags & PGC_MAPWRITE) {
			pg->cache.flags &= (uint16_t)~PGC_MAPWRITE;
			any = true;
		}
	spin_unlock(&pc->lock);
	return any;
}

/* Write b's pages out with one write_pages call and empty b (pc->lock
 * held, released meanwhile): 0 or its error (counted for fsync too). A
 * write that found no memory (-ENOMEM: for the file system's map, under
 * memory pressure, when reclaim writes) is no I/O error: its pages are
 * dirty again, to be written later; the caller gets -ENOMEM (an fsync
 * then fails and may be tried again), and no later fsync hears of it. */
static int write_batch(struct pagecache *pc, struct wb_batch *b)
{
	if (!b->n)
		return 0;
	spin_unlock(&pc->lock);
	int r = pc->ops->write_pages(pc, b->pages, b->dirty, b->n);
	spin_lock(&pc->lock);
	for (unsigned i = 0; i < b->n; i++) {
		stat_sub(&pagecache_stats.writeback, 1);
		b->pages[i]->cache.flags &= (uint16_t)~PGC_WRITEBACK;
		if (r == -ENOMEM)
			mark_dirty(pc, b->pages[i], b->dirty[i]);
		wait_wake(b->pages[i]);
	}
	if (r && r != -ENOMEM) {
		pc->wb_error = r;
		pc->wb_seq++;
		pc->wb_seen = false;
	}
	spin_unlock(&pc->lock);
	for (unsigned i = 0; i < b->n; i++)
		page_put(b->pages[i]);
	spin_lock(&pc->lock);
	b->n = 0;
	return r;
}

/* Wait (pc->lock held) until another task's write-back of pg ends. */
static void wait_written(struct pagecache *pc, struct page *pg)
{
	page_get(pg);
	wait_while(pc, pg, PGC_WRITEBACK);
	spin_unlock(&pc->lock);
	page_put(pg);
	spin_lock(&pc->lock);
}

int pagecache_write_back(struct pagecache *pc, uint64_t first, uint64_t last)
{
	if (!pc->ops->write_pages)
		return 0;   /* no store: nothing to write to */
	struct page *one_page;
	uint8_t one_dirty;
	struct wb_batch b = { kmalloc(PC_BATCH * sizeof(*b.pages)), kmalloc(PC_BATCH), 0, PC_BATCH };
	if (!b.pages || !b.dirty) {   /* no memory for a batch: a page at a time */
		kfree(b.pages), kfree(b.dirty);   /* before b names the ones on the stack */
		b = (struct wb_batch){ &one_page, &one_dirty, 0, 1 };
	}
	if (pc->mkclean && clear_mapwrite(pc, first, last))
		pc->mkclean(pc, first, last - first + 1);   /* a store now marks them again */
	int err = 0;
	spin_lock(&pc->lock);
	struct page *pg;
	uint64_t i = first;
	while ((pg = tree_next(pc, &i)) && i <= last) {
		if ((pg->cache.flags & PGC_WRITEBACK) && b.n) {   /* another task's: ours first, */
			int r = write_batch(pc, &b);   /* which lets go of the lock: pg may be gone */
			err = err ? err : r;
			continue;   /* look at page i again */
		}
		if (pg->cache.flags & PGC_WRITEBACK) {   /* then wait for it */
			wait_written(pc, pg);
			continue;
		}
		if (pg->cache.flags & PGC_DIRTY)
			batch_add(pc, &b, pg);
		if (b.n == b.max) {
			int r = write_batch(pc, &b);
			err = err ? err : r;
		}
		i++;
	}
	int r = write_batch(pc, &b);
	spin_unlock(&pc->lock);
	if (b.max > 1)
		kfree(b.pages), kfree(b.dirty);
	return err ? err : r;
}

uint32_t pagecache_error_mark(struct pagecache *pc)
{
	spin_lock(&pc->lock);
	uint32_t mark = pc->wb_seq && !pc->wb_seen ? pc->wb_seq - 1 : pc->wb_seq;
	spin_unlock(&pc->lock);
	return mark;
}

int pagecache_error_since(struct pagecache *pc, uint32_t *mark)
{
	spin_lock(&pc->lock);
	int e = 0;
	if (*mark != pc->wb_seq) {
		e = pc->wb_error;
		*mark = pc->wb_seq;
		pc->wb_seen = true;
	}
	spin_unlock(&pc->lock);
	return e;
}

unsigned pagecache_detach(struct pagecache *pc, uint64_t *at, uint64_t last,
			  struct page **pages, unsigned max)
{
	unsigned n = 0;
	uint64_t start = *at;
	spin_lock(&pc->lock);
	struct page *pg;
	for (uint64_t i = *at; n < max && (pg = tree_next(pc, &i)) && i <= last;) {
		if (pg->cache.flags & (PGC_LOCKED | PGC_WRITEBACK)) {
			page_get(pg);
			wait_while(pc, pg, PGC_LOCKED | PGC_WRITEBACK);
			spin_unlock(&pc->lock);
			page_put(pg);
			spin_lock(&pc->lock);
			continue;   /* look at index i again */
		}
		detach(pc, pg);
		pages[n++] = pg;
		*at = ++i;
	}
	forget_values(pc, start, n < max ? last : *at - 1);   /* the part looked at */
	spin_unlock(&pc->lock);
	return n;
}

void pagecache_truncate(struct pagecache *pc, uint64_t first, uint64_t last)
{
	struct page *pg[PC_DETACH_BATCH];
	unsigned n;
	for (uint64_t at = first; (n = pagecache_detach(pc, &at, last, pg, PC_DETACH_BATCH));)
		while (n)
			page_put(pg[--n]);
}

void pagecache_truncate_at(struct pagecache *pc, uint64_t size)
{
	pagecache_truncate(pc, ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE, PC_MAX_INDEX);
	uint64_t in = size % PAGE_SIZE;
	struct page *pg;
	if (!in || pagecache_get(pc, size / PAGE_SIZE, pc->ops->read_pages ? PC_READ : PC_FIND, &pg))
		return;   /* (no page: a hole, or the store failed: nothing cached to clean) */
	spin_lock(&pc->lock);
	wait_while(pc, pg, PGC_WRITEBACK);
	memset((char *)page_va(pg) + in, 0, PAGE_SIZE - in);
	pg->cache.flags &= (uint16_t)~PGC_BLOCKS;   /* its blocks past the end go */
	if (pg->cache.flags & PGC_UPTODATE)
		mark_dirty(pc, pg, PC_SECTORS_ALL);
	spin_unlock(&pc->lock);
	page_put(pg);
}

uint64_t pagecache_shrink(struct pagecache *pc, uint64_t first, uint64_t last, uint64_t want)
{
	uint64_t freed = 0;
	spin_lock(&pc->lock);
	struct page *pg;
	for (uint64_t i = first; freed < want && (pg = tree_next(pc, &i)) && i <= last; i++)
		freed += pagecache_evict_idle(pc, pg, 0, NULL);
	spin_unlock(&pc->lock);
	return freed;
}

bool pagecache_evict_idle(struct pagecache *pc, struct page *pg, uint32_t holds,
			  const uint64_t *evicted_at)
{
	bool idle = __atomic_load_n(&pg->refcount, __ATOMIC_ACQUIRE) == 1 + holds;
	if ((pg->cache.flags & ~PGC_BLOCKS) != PGC_UPTODATE || !idle || pg->pagecache != pc)
		return false;   /* dirty, busy, used, or not pc's any more */
	bool room = evicted_at && pc->kind != PC_KIND_SHMEM &&   /* (a tmpfs hole: no refaults) */
		    pc->nrshadows < atomic_load(&mm_stats.managed);
	detach_leaving(pc, pg, room ? make_shadow(*evicted_at) : NULL);
	page_put(pg);
	return true;
}

/* ---- tmpfs pages out to swap ---- */

/* May held page pg of tmpfs cache pc (locked) go out now: pc not going
 * (pagecache_destroy: its truncation would wait for each write), pg up to
 * date, not under I/O, in nobody's hands but the cache's and the `holds`? Then it is
 * marked WRITEBACK and clean: a write or a new mapping meanwhile (which
 * dirties it: pagecache_set_dirty, pagecache_mkwrite) keeps it. */
static bool swap_out_begin(struct pagecache *pc, struct page *pg, uint32_t holds)
{
	uint16_t f = pg->cache.flags & ~(PGC_BLOCKS | PGC_MAPWRITE | PGC_DIRTY);
	if (pc->kind != PC_KIND_SHMEM || pc->dying || f != PGC_UPTODATE ||
	    atomic_load(&pg->refcount) != 1 + holds)
		return false;
	if (pg->cache.flags & PGC_DIRTY)
		count_dirty(pc, -1);
	pg->cache.flags = PGC_UPTODATE | PGC_WRITEBACK;
	pg->cache.dirty = 0;
	return true;
}

/* The write of pg to slot e ended (`written`; pc->lock held): pg leaves
 * the cache, the slot's name in its place, if still unused and clean;
 * else it stays, dirty again (its only copy). true if it left. */
static bool swap_out_end(struct pagecache *pc, struct page *pg, uint32_t holds, pte_t e,
			 bool written)
{
	pg->cache.flags &= (uint16_t)~PGC_WRITEBACK;
	wait_wake(pg);
	if (written && !(pg->cache.flags & PGC_DIRTY) && atomic_load(&pg->refcount) == 1 + holds) {
		swap_slot_set_shadow(e, pagecache_lru_swap_note());
		detach_leaving(pc, pg, make_swapped(e));
		page_put(pg);   /* the cache's */
		return true;
	}
	mark_dirty(pc, pg, PC_SECTORS_ALL);
	return false;
}

/* Held page pg's slot, when it may go out now (its cache in *pcp: it
 * stays while the page is WRITEBACK); else 0. */
static pte_t swap_out_prepare(struct page *pg, uint32_t holds, struct pagecache **pcp)
{
	pte_t e = swap_slot_take();
	struct pagecache *pc = *pcp = e ? pagecache_lock_page(pg) : NULL;
	bool ok = pc && swap_out_begin(pc, pg, holds);
	if (pc)
		spin_unlock(&pc->lock);
	if (e && !ok)
		swap_slot_put(e);
	return ok ? e : 0;
}

unsigned pagecache_swap_out(struct page **pages, unsigned n, uint32_t holds)
{
	pte_t slots[PC_SWAP_BATCH] = { 0 };
	struct page *going[PC_SWAP_BATCH];
	struct pagecache *pcs[PC_SWAP_BATCH];
	unsigned k = 0, out = 0;
	for (unsigned i = 0; i < n && i < PC_SWAP_BATCH; i++)
		if ((slots[k] = swap_out_prepare(pages[i], holds, &pcs[k])))
			going[k++] = pages[i];
	uint64_t failed = swap_slot_rw(slots, going, k, SWAP_WRITE);
	for (unsigned i = 0; i < k; i++) {
		spin_lock(&pcs[i]->lock);
		bool left = swap_out_end(pcs[i], going[i], holds, slots[i], !(failed >> i & 1));
		spin_unlock(&pcs[i]->lock);
		if (!left)
			swap_slot_put(slots[i]);   /* free again (bad if its write failed) */
		out += left;
	}
	stat_add(&pagecache_lru_stats.swapped_out, out);
	return out;
}

/* Up to max indices of swapped pages of area in pc, from *from on (pc->lock
 * held): how many, in idx[]. */
static unsigned swapped_of_area(struct pagecache *pc, int area, uint64_t *from, uint64_t *idx,
				unsigned max)
{
	unsigned n = 0;
	void *v;
	for (; n < max && (v = tree_next_of(pc, from, LEAF_BIT(LEAF_SWAPPED))); (*from)++)
		if ((int)pte_swap_area(swapped_entry(v)) == area)
			idx[n++] = *from;
	return n;
}

/* A tmpfs cache with pages of area on swap, pinned (pagecache_destroy
 * waits for its pins), and up to max of their indices; NULL when none is
 * left. */
static struct pagecache *find_swapped(int area, uint64_t *idx, unsigned max, unsigned *n)
{
	struct pagecache *found = NULL;
	spin_lock(&all_lock);
	list_for_each(l, &all_caches) {
		struct pagecache *pc = list_entry(l, struct pagecache, link);
		uint64_t from = 0;
		spin_lock(&pc->lock);
		*n = pc->nrswapped ? swapped_of_area(pc, area, &from, idx, max) : 0;
		spin_unlock(&pc->lock);
		if (*n) {
			found = pc;
			pc->pins++;
			break;
		}
	}
	spin_unlock(&all_lock);
	return found;
}

static void unpin(struct pagecache *pc)
{
	spin_lock(&all_lock);
	if (--pc->pins == 0)
		wait_wake(pc);
	spin_unlock(&all_lock);
}

int pagecache_swap_unuse(int area)
{
	uint64_t idx[32];
	struct pagecache *pc;
	unsigned n;
	int r = 0;
	while (r == 0 && (pc = find_swapped(area, idx, 32, &n))) {
		for (unsigned i = 0; i < n && r == 0; i++) {
			struct page *pg;
			if ((r = pagecache_get(pc, idx[i], PC_READ, &pg)) == 0)
				page_put(pg);
		}
		unpin(pc);
	}
	return r;
}

struct pagecache *pagecache_lock_page(struct page *pg)
{
	spin_lock(&all_lock);   /* no cache on the list is freed meanwhile (pagecache_destroy) */
	struct pagecache *pc = __atomic_load_n(&pg->pagecache, __ATOMIC_ACQUIRE);
	if (pc) {
		spin_lock(&pc->lock);
		if (pg->pagecache != pc) {   /* detached meanwhile */
			spin_unlock(&pc->lock);
			pc = NULL;
		}
	}
	spin_unlock(&all_lock);
	return pc;
}

void pagecache_destroy(struct pagecache *pc)
{
	spin_lock(&all_lock);
	list_del(&pc->link);    /* found by no one any more, */
	while (pc->pins)        /* and swapoff done with it: */
		wait_on(pc, &all_lock);
	spin_unlock(&all_lock);
	spin_lock(&pc->lock);
	pc->dying = true;       /* no page of it is written to swap any more */
	spin_unlock(&pc->lock);
	pagecache_truncate(pc, 0, PC_MAX_INDEX);   /* (pages, shadows, slots) */
	spin_lock(&pc->lock);   /* a reclaimer that locked it through a page is done */
	spin_unlock(&pc->lock);
}

uint64_t pagecache_drop_clean(void)
{
	uint64_t freed = 0;
	spin_lock(&all_lock);
	list_for_each(l, &all_caches)
		freed += pagecache_shrink(list_entry(l, struct pagecache, link), 0, PC_MAX_INDEX,
					  UINT64_MAX);
	spin_unlock(&all_lock);
	return freed;
}

bool pagecache_dirty_over_background(void)
{
	return atomic_load(&pagecache_stats.dirty) > atomic_load(&mm_stats.managed) / 16;
}

bool pagecache_dirty_over_limit(void)
{
	return atomic_load(&pagecache_stats.dirty) > atomic_load(&mm_stats.managed) / 8;
}

/* ---- pagoda_filecache's picture ---- */

struct describe {
	struct pagoda_cachenode *out;
	uint64_t max, n;
};

/* One more entry (written if it fits): its id. */
static uint32_t describe_add(struct describe *d, struct pagoda_cachenode e)
{
	e.id = (uint32_t)++d->n;
	if (d->n <= d->max)
		d->out[d->n - 1] = e;
	return e.id;
}

static uint32_t page_flags(const struct page *pg)
{
	uint16_t f = pg->cache.flags;
	return (f & PGC_UPTODATE ? PCN_UPTODATE : 0) | (f & PGC_DIRTY ? PCN_DIRTY : 0) |
	       (f & PGC_LOCKED ? PCN_LOCKED : 0) | (f & PGC_WRITEBACK ? PCN_WRITEBACK : 0);
}

/* Node n of `level` (first index base), its slot in parent: it, then what
 * its slots hold, depth first. */
static void describe_node(struct describe *d, const struct pc_node *n, int level, uint64_t base,
			  uint32_t parent, unsigned slot)
{
	uint32_t id = describe_add(d, (struct pagoda_cachenode){ .parent = parent, .kind = PCN_NODE,
		.slot = slot, .index = base, .level = (uint32_t)level });
	uint64_t span = capacity(level - 1);
	for (unsigned s = 0; s < PC_SLOTS; s++) {
		if (!n->slot[s])
			continue;
		if (level > 1) {
			describe_node(d, n->slot[s], level - 1, base + s * span, id, s);
			continue;
		}
		const struct page *pg = n->slot[s];
		if (leaf_kind(pg) != LEAF_PAGE)
			continue;   /* (pagoda_filecache shows pages only) */
		describe_add(d, (struct pagoda_cachenode){ .parent = id, .kind = PCN_PAGE, .slot = s,
			.index = base + s, .pa = page_to_pa(pg), .flags = page_flags(pg),
			.refs = (uint32_t)atomic_load(&pg->refcount), .dirty_sectors = pg->cache.dirty });
	}
}

uint64_t pagecache_describe(struct pagecache *pc, struct pagoda_cachenode *out, uint64_t max)
{
	struct describe d = { out, max, 0 };
	spin_lock(&pc->lock);
	if (pc->root)
		describe_node(&d, pc->root, pc->height, 0, 0, 0);
	spin_unlock(&pc->lock);
	return d.n;
}
