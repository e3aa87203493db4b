/* mm/frame/swap.c -- swap areas, their slots and the swap cache (see
 * mm/frame/swap.h). */
#include "mm/frame/swap.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/lru.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "lib/wait.h"

#define SLOT_CACHED 0x80000000u   /* count[]: a page of the swap cache holds it */
#define SLOT_BAD 0x40000000u      /* count[]: never given out (header, bad, failed write) */
#define SLOT_ENTRIES 0x3fffffffu  /* count[]: entries that name it */
#define SWAP_RUN 256              /* slots a run keeps consecutive (1 MiB) */

struct swap_area {
	bool on;                  /* in use (slots may be named) */
	bool stopping;            /* swapoff under way: no new slots */
	int prio;
	const struct swap_io_ops *io;
	void *dev;
	const void *key;
	uint64_t pages;           /* slots, header included (last_page + 1) */
	uint64_t usable;          /* slots that are not bad */
	uint64_t used;            /* slots named or cached */
	uint64_t cursor;          /* the next slot to try */
	uint32_t *count;          /* per slot: SLOT_ bits | entries */
	uint32_t *cache;          /* per slot: pfn + 1 of its cached page, or 0 */
	uint32_t *shadow;         /* per slot: the policy's note of its page's eviction, or 0 */
	struct swap_area_info info;
};

static struct swap_area areas[SWAP_MAX_AREAS];
static struct spinlock swap_lock = SPINLOCK_INIT("swap", LOCK_RANK_SWAP);
static int next_default_prio = -2;
static uint64_t nr_free, nr_total, nr_cached;   /* totals, under swap_lock */
struct swap_stats swap_stats;

/* The area of entry e if it names a slot of one that is on, else NULL
 * (swap_lock held, or the answer may be stale). */
static struct swap_area *area_if_on(pte_t e)
{
	struct swap_area *a = pte_swap_area(e) < SWAP_MAX_AREAS ? &areas[pte_swap_area(e)] : NULL;
	return pte_is_swap(e) && a && a->on && pte_swap_slot(e) < a->pages ? a : NULL;
}

/* The area of entry e, which must name a slot of one that is on. */
static struct swap_area *area_of(pte_t e)
{
	struct swap_area *a = area_if_on(e);
	if (!a)
		panic("swap: entry %#lx names no slot of an area that is on", e);
	return a;
}

static uint32_t *count_of(pte_t e)
{
	return &area_of(e)->count[pte_swap_slot(e)];
}

/* ---- turning areas on and off ---- */

/* Check header h of a device of dev_pages pages: the usable pages, or
 * -EINVAL. */
static int64_t header_pages(const struct swap_header *h, const uint8_t *page, uint64_t dev_pages)
{
	if (memcmp(page + SWAP_MAGIC_OFFSET, SWAP_MAGIC, 10) != 0 || h->version != 1)
		return -EINVAL;
	uint64_t pages = (uint64_t)h->last_page + 1;
	if (pages > dev_pages || pages < SWAP_MIN_PAGES)
		return -EINVAL;   /* "swap area shorter than signature indicates" */
	if (h->nr_badpages > (PAGE_SIZE - sizeof(*h)) / 4)
		return -EINVAL;
	return (int64_t)pages;
}

static void mark_slot_bad(struct swap_area *a, uint64_t s)
{
	if (s > 0 && s < a->pages && !(a->count[s] & SLOT_BAD)) {
		a->count[s] = SLOT_BAD;
		a->usable--;
	}
}

/* Fill a's maps: the header, the bad pages of h and the slots the storage
 * cannot hold (io->usable) are SLOT_BAD. */
static void mark_bad(struct swap_area *a, const struct swap_header *h)
{
	a->count[0] = SLOT_BAD;
	a->usable = a->pages - 1;
	for (uint32_t i = 0; i < h->nr_badpages; i++)
		mark_slot_bad(a, h->badpages[i]);
	for (uint64_t s = 1; a->io->usable && s < a->pages; s++)
		if (!a->io->usable(a->dev, s))
			mark_slot_bad(a, s);
}

/* A free area slot, or -EPERM; -EBUSY if key's storage is on already
 * (swap_lock held). */
static int free_area(const void *key)
{
	int found = -EPERM;
	for (int i = SWAP_MAX_AREAS - 1; i >= 0; i--) {
		if (areas[i].on && areas[i].key == key)
			return -EBUSY;
		if (!areas[i].on && !areas[i].io)
			found = i;
	}
	return found;
}

/* Read page 0 of the storage into a new page: its usable pages, or -errno;
 * h gets a copy of the header (caller frees). */
static int64_t read_header(const struct swap_io_ops *io, void *dev, uint64_t dev_bytes,
			   struct swap_header **h)
{
	struct page *pg = page_alloc(0, PA_ZERO);
	*h = kmalloc(PAGE_SIZE);
	if (!pg || !*h) {
		if (pg)
			page_put(pg);
		return -ENOMEM;
	}
	int64_t r = io->rw(dev, 0, &pg, 1, SWAP_READ);
	memcpy(*h, page_va(pg), PAGE_SIZE);
	page_put(pg);
	if (r == 0)
		r = header_pages(*h, (const uint8_t *)*h, dev_bytes / PAGE_SIZE);
	return r;
}

int swap_area_add(const struct swap_io_ops *io, void *dev, const void *key, uint64_t dev_bytes,
		  int prio, const char *name, bool is_file)
{
	struct swap_header *h;
	int64_t pages = read_header(io, dev, dev_bytes, &h);
	if (pages < 0) {
		kfree(h);
		return (int)pages;
	}
	uint32_t *count = kzalloc(pages * sizeof(uint32_t)), *cache = kzalloc(pages * sizeof(uint32_t));
	uint32_t *shadow = kzalloc(pages * sizeof(uint32_t));
	spin_lock(&swap_lock);
	int n = count && cache && shadow ? free_area(key) : -ENOMEM;
	if (n >= 0) {
		struct swap_area *a = &areas[n];
		*a = (struct swap_area){ .io = io, .dev = dev, .key = key, .pages = (uint64_t)pages,
					 .count = count, .cache = cache, .shadow = shadow, .cursor = 1,
					 .prio = prio >= 0 ? prio : next_default_prio-- };
		mark_bad(a, h);
		if (!a->usable) {   /* every page bad (Linux: "Empty swap-file") */
			*a = (struct swap_area){ 0 };
			n = -EINVAL;
		}
	}
	if (n >= 0) {
		struct swap_area *a = &areas[n];
		for (size_t i = 0; i < sizeof(a->info.name) - 1 && name[i]; i++)
			a->info.name[i] = name[i];   /* zeroed above: ends in a 0 */
		a->info.is_file = is_file;
		nr_total += a->usable;
		nr_free += a->usable;
		atomic_store(&a->on, true);
	}
	spin_unlock(&swap_lock);
	kfree(h);
	if (n < 0) {
		kfree(count);
		kfree(cache);
		kfree(shadow);
	}
	return n;
}

int swap_area_find(const void *key)
{
	spin_lock(&swap_lock);
	int found = -EINVAL;
	for (int i = 0; i < SWAP_MAX_AREAS; i++)
		if (areas[i].on && areas[i].key == key)
			found = i;
	spin_unlock(&swap_lock);
	return found;
}

/* Stop or restart giving out slots of area (its free slots leave or rejoin
 * the free total, which then counts only what can be given out). */
static void set_stopping(int area, bool stop)
{
	spin_lock(&swap_lock);
	struct swap_area *a = &areas[area];
	if (a->on && a->stopping != stop) {
		a->stopping = stop;
		uint64_t free = a->usable - a->used;
		nr_free = stop ? nr_free - free : nr_free + free;
		nr_total = stop ? nr_total - a->usable : nr_total + a->usable;
	}
	spin_unlock(&swap_lock);
}

void swap_area_stop(int area)
{
	set_stopping(area, true);
}

void swap_area_restart(int area)
{
	set_stopping(area, false);
}

int swap_area_remove(int area)
{
	spin_lock(&swap_lock);
	struct swap_area *a = &areas[area];
	if (!a->on || a->used) {
		spin_unlock(&swap_lock);
		return -EBUSY;
	}
	struct swap_area gone = *a;
	a->on = false;
	a->io = NULL;
	a->count = a->cache = a->shadow = NULL;
	spin_unlock(&swap_lock);
	kfree(gone.count);
	kfree(gone.cache);
	kfree(gone.shadow);
	if (gone.io->release)
		gone.io->release(gone.dev);
	return 0;
}

uint64_t swap_area_used(int area)
{
	return area >= 0 && area < SWAP_MAX_AREAS ? atomic_load(&areas[area].used) : 0;
}

bool swap_area_info(int area, struct swap_area_info *info)
{
	if (area < 0 || area >= SWAP_MAX_AREAS)
		return false;
	spin_lock(&swap_lock);
	struct swap_area *a = &areas[area];
	bool on = a->on;
	if (on) {
		*info = a->info;
		info->prio = a->prio;
		info->slots = a->usable;
		info->used = a->used;
	}
	spin_unlock(&swap_lock);
	return on;
}

void swap_totals(uint64_t *total, uint64_t *free, uint64_t *cached)
{
	*total = atomic_load(&nr_total);
	*free = atomic_load(&nr_free);
	*cached = atomic_load(&nr_cached);
}

bool swap_space_left(void)
{
	return atomic_load(&nr_free) > 0;
}

/* ---- slots ---- */

/* A free slot of a (swap_lock held) from its cursor on, or 0. */
static uint64_t find_free(struct swap_area *a)
{
	for (uint64_t n = 0, s = a->cursor; n < a->pages; n++, s = s + 1 < a->pages ? s + 1 : 1)
		if (a->count[s] == 0) {
			a->cursor = s + 1 < a->pages ? s + 1 : 1;
			return s;
		}
	return 0;
}

/* The area to take a slot from: highest priority with room (swap_lock held). */
static struct swap_area *pick_area(int *num)
{
	struct swap_area *best = NULL;
	for (int i = 0; i < SWAP_MAX_AREAS; i++) {
		struct swap_area *a = &areas[i];
		if (a->on && !a->stopping && a->used < a->usable && (!best || a->prio > best->prio)) {
			best = a;
			*num = i;
		}
	}
	return best;
}

/* Slot s of a (area number n) becomes pg's, in the cache (swap_lock held). */
static pte_t cache_insert(struct swap_area *a, int n, uint64_t s, struct page *pg)
{
	pte_t e = pte_mkswap((unsigned)n, s);
	if (!a->count[s])
		a->used++, nr_free--;
	a->count[s] |= SLOT_CACHED;
	a->cache[s] = (uint32_t)(page_to_pa(pg) >> PAGE_SHIFT) + 1;
	page_get(pg);   /* the cache's */
	pg->swap = e;
	__atomic_fetch_or(&pg->aflags, AF_SWAPCACHE, __ATOMIC_RELEASE);
	nr_cached++;
	swap_stats.cache_adds++;
	return e;
}

pte_t swap_slot_alloc(struct page *pg)
{
	if (pg->type != PG_ANON || page_in_swap_cache(pg))
		page_bug(pg, "swap_slot_alloc: not an anonymous page outside the swap cache", NULL);
	spin_lock(&swap_lock);
	int n = 0;
	struct swap_area *a = pick_area(&n);
	uint64_t s = a ? find_free(a) : 0;
	pte_t e = s ? cache_insert(a, n, s, pg) : 0;
	spin_unlock(&swap_lock);
	return e;
}

pte_t swap_slot_take(void)
{
	spin_lock(&swap_lock);
	int n = 0;
	struct swap_area *a = pick_area(&n);
	uint64_t s = a ? find_free(a) : 0;
	if (s) {
		a->count[s] = 1;   /* the caller's name */
		a->used++, nr_free--;
	}
	spin_unlock(&swap_lock);
	return s ? pte_mkswap((unsigned)n, s) : 0;
}

void swap_slot_dup(pte_t e)
{
	spin_lock(&swap_lock);
	uint32_t *c = count_of(e);
	if ((*c & SLOT_ENTRIES) == SLOT_ENTRIES || !(*c & (SLOT_ENTRIES | SLOT_CACHED)))
		panic("swap_slot_dup: slot of entry %#lx is free or full (%#x)", e, *c);
	(*c)++;
	spin_unlock(&swap_lock);
}

/* Slot s of a is no longer named or cached: free, or, if its write failed
 * (bad), out of the area for good (never given out again; SwapTotal and
 * /proc/swaps' size drop by it, as if mkswap had listed it bad). */
static void slot_release(struct swap_area *a, uint64_t s)
{
	a->used--;
	a->shadow[s] = 0;
	if (a->count[s] & SLOT_BAD) {
		a->usable--;
		if (!a->stopping)
			nr_total--;
	} else if (!a->stopping) {
		nr_free++;
	}
}

/* Take pg (cached for slot e of a, swap_lock held) out of the cache; the
 * caller drops the cache's reference after the unlock. */
static void cache_remove(struct swap_area *a, pte_t e, struct page *pg)
{
	uint64_t s = pte_swap_slot(e);
	a->cache[s] = 0;
	a->count[s] &= ~SLOT_CACHED;
	/* its bytes are no longer any slot's: a later page-out writes it */
	__atomic_fetch_and(&pg->aflags, (uint16_t)~(AF_SWAPCACHE | AF_UPTODATE), __ATOMIC_RELEASE);
	pg->swap = 0;
	nr_cached--;
	if (!(a->count[s] & SLOT_ENTRIES))
		slot_release(a, s);
}

/* The cached page of slot e, or NULL (swap_lock held). */
static struct page *cached_page(pte_t e)
{
	uint32_t pfn = area_of(e)->cache[pte_swap_slot(e)];
	return pfn ? &frames[pfn - 1] : NULL;
}

/* May cached page pg leave the cache once no entry names its slot? Not
 * while it is under I/O, nor while the reclaimer holds it (page_hold):
 * page_out decides on the cache state it saw (a page it found cached is
 * unmapped to its slot, then freed or written), so until it lets go the
 * page leaves the cache by the reclaimer's hand only
 * (swap_cache_try_remove, swap_cache_give_up_slot). A page whose write
 * failed (not up to date, not held) may: its mapper, if any, holds its
 * own reference. */
static bool unneeded(const struct page *pg)
{
	return !(pg->aflags & (AF_LOCKED | AF_RECLAIM));
}

bool swap_mostly_used(void)
{
	return atomic_load(&nr_free) * 2 <= atomic_load(&nr_total);
}

/* Does cached page pg keep its slot though no entry names it (swap_lock
 * held)? While it is mapped (someone besides the cache holds it), up to
 * date and swap mostly free, as Linux keeps a swapped-in page's slot: if
 * it is paged out again unwritten, it needs no write. A write to it (the
 * copy-on-write fault) or its unmapping drops it from the cache. */
static bool keeps_slot(const struct page *pg)
{
	return (pg->aflags & AF_UPTODATE) && atomic_load(&pg->refcount) >= 2 && !swap_mostly_used();
}

void swap_slot_put(pte_t e)
{
	struct page *drop = NULL;
	spin_lock(&swap_lock);
	struct swap_area *a = area_of(e);
	uint32_t *c = &a->count[pte_swap_slot(e)];
	if (!(*c & SLOT_ENTRIES))
		panic("swap_slot_put: slot of entry %#lx is named by no entry (%#x)", e, *c);
	(*c)--;
	if (!(*c & SLOT_ENTRIES)) {
		struct page *pg = cached_page(e);
		if (!pg)
			slot_release(a, pte_swap_slot(e));
		else if (unneeded(pg) && !keeps_slot(pg))
			cache_remove(a, e, drop = pg);
	}
	spin_unlock(&swap_lock);
	if (drop)
		page_put(drop);
}

void swap_slot_set_shadow(pte_t e, uint32_t note)
{
	spin_lock(&swap_lock);
	unsigned n = pte_swap_area(e);
	struct swap_area *a = n < SWAP_MAX_AREAS ? &areas[n] : NULL;
	uint64_t s = pte_swap_slot(e);
	if (a && a->on && s < a->pages && (a->count[s] & SLOT_ENTRIES))
		a->shadow[s] = note;
	spin_unlock(&swap_lock);
}

uint32_t swap_slot_take_shadow(pte_t e)
{
	spin_lock(&swap_lock);
	uint32_t *sh = &area_of(e)->shadow[pte_swap_slot(e)], note = *sh;
	*sh = 0;
	spin_unlock(&swap_lock);
	return note;
}

bool swap_slot_bad(pte_t e)
{
	spin_lock(&swap_lock);
	bool bad = *count_of(e) & SLOT_BAD;
	spin_unlock(&swap_lock);
	return bad;
}

uint32_t swap_slot_count(pte_t e)
{
	spin_lock(&swap_lock);
	uint32_t n = *count_of(e) & SLOT_ENTRIES;
	spin_unlock(&swap_lock);
	return n;
}

/* ---- the swap cache ---- */

/* Waiting for a page under I/O (AF_LOCKED): a lock of its own, ranked
 * below proc_lock (a sleep takes that one), which nothing else is held
 * with. The bit itself is atomic; it is cleared under this lock, and the
 * waiters test it under it, so no wake-up is lost. */
static struct spinlock swap_io_lock = SPINLOCK_INIT("swap-io", LOCK_RANK_SWAP_IO);

static void wait_io(struct page *pg)
{
	spin_lock(&swap_io_lock);
	while (__atomic_load_n(&pg->aflags, __ATOMIC_ACQUIRE) & AF_LOCKED)
		wait_on(pg, &swap_io_lock);
	spin_unlock(&swap_io_lock);
}

/* The I/O on pg ended: flags `set` on, AF_LOCKED off, waiters woken. */
static void end_io(struct page *pg, uint16_t set)
{
	spin_lock(&swap_io_lock);
	__atomic_fetch_or(&pg->aflags, set, __ATOMIC_RELEASE);
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_LOCKED, __ATOMIC_RELEASE);
	spin_unlock(&swap_io_lock);
	wait_wake(pg);
}

/* The cached page of e, referenced, or NULL (swap_lock held). */
static struct page *get_cached(pte_t e)
{
	struct page *pg = cached_page(e);
	if (pg)
		page_get(pg);
	return pg;
}

/* Count one page's transfer to or from slot s of a (swap_lock held); a
 * failed write makes the slot bad: never given out again. */
static void account_transfer(struct swap_area *a, uint64_t s, bool failed, enum swap_dir dir)
{
	if (failed && dir == SWAP_WRITE)
		a->count[s] |= SLOT_BAD;
	if (dir == SWAP_READ)
		*(failed ? &swap_stats.read_errors : &swap_stats.pswpin) += 1;
	else
		*(failed ? &swap_stats.write_errors : &swap_stats.pswpout) += 1;
}

/* The pages from pages[0] on whose slots follow each other in one area
 * (at most 64: one transfer). */
static unsigned run_length(struct page **pages, unsigned n)
{
	unsigned k = 1;
	while (k < n && k < 64 && pages[k]->swap == pte_mkswap(pte_swap_area(pages[0]->swap),
							      pte_swap_slot(pages[0]->swap) + k))
		k++;
	return k;
}

/* Move n pages between memory and the consecutive slots from e on (in an
 * area that is on): one request; if it fails, one per page, so that a bad
 * sector fails only its own page. Each page counts in pswpin / pswpout or
 * as an error; a slot whose write failed is bad from now on (its page keeps
 * the only copy). Bit i of the result: page i failed. */
static uint64_t transfer(pte_t e, struct page **pages, unsigned n, enum swap_dir dir)
{
	struct swap_area *a = area_of(e);
	uint64_t failed = 0;
	if (a->io->rw(a->dev, pte_swap_slot(e), pages, n, dir))
		for (unsigned i = 0; i < n; i++)
			if (n == 1 || a->io->rw(a->dev, pte_swap_slot(e) + i, &pages[i], 1, dir)) {
				failed |= 1ull << i;   /* as Linux's "Read-error on swap-device" */
				printk("swap: %s error on %s, slot %lu\n",
				       dir == SWAP_READ ? "read" : "write", a->info.name,
				       (unsigned long)(pte_swap_slot(e) + i));
			}
	spin_lock(&swap_lock);
	for (unsigned i = 0; i < n; i++)
		account_transfer(a, pte_swap_slot(e) + i, failed >> i & 1, dir);
	spin_unlock(&swap_lock);
	return failed;
}

/* Cached page pg (referenced) once no I/O is under way on it: its bytes are
 * the page's unless its read failed (AF_ERROR: it left the cache). */
static enum swapin_result cached_ready(struct page *pg, struct page **out)
{
	wait_io(pg);
	uint16_t f = __atomic_fetch_and(&pg->aflags, (uint16_t)~AF_READAHEAD, __ATOMIC_ACQ_REL);
	if (f & AF_ERROR) {
		page_put(pg);
		*out = NULL;
		return SWAPIN_IOERR;
	}
	*out = pg;
	stat_inc(&swap_stats.cache_hits);
	if (f & AF_READAHEAD)
		stat_inc(&swap_stats.ra_hits);
	return SWAPIN_CACHED;
}

/* Is slot e named by an entry (swap_lock held)? */
static bool named(pte_t e)
{
	return *count_of(e) & SLOT_ENTRIES;
}

/* Does slot t of a want reading ahead: named, not cached, not bad
 * (swap_lock held)? */
static bool wants_read(const struct swap_area *a, uint64_t t)
{
	uint32_t c = a->count[t];
	return (c & SLOT_ENTRIES) && !(c & (SLOT_CACHED | SLOT_BAD));
}

/* Up to n new frames into fresh[] while the allocator has them, the
 * read-ahead ones (all but the first) only above the reserve: how many. */
static unsigned alloc_frames(struct page **fresh, unsigned n)
{
	unsigned k = 0;
	while (k < n && (fresh[k] = page_alloc(0, PA_ANON | (k ? PA_NORESERVE : 0))))
		k++;
	return k;
}

static void sort_by_slot(struct page **pages, unsigned n);

/* Slot e gets page pg, in the cache and under I/O (swap_lock held). */
static void claim_slot(pte_t e, struct page *pg, uint16_t mark)
{
	__atomic_fetch_or(&pg->aflags, AF_LOCKED | mark, __ATOMIC_RELEASE);
	(void)cache_insert(area_of(e), (int)pte_swap_area(e), pte_swap_slot(e), pg);
}

/* Give e's slot fresh[0], and fresh[1..n) to the slots of ahead[] that
 * want reading (AF_READAHEAD; an entry that names no slot of an area that
 * is on, read stale, is passed over); reads[] gets them in slot order
 * (swap_lock held). How many. */
static unsigned claim_slots(pte_t e, const pte_t *ahead, unsigned n_ahead, struct page **fresh,
			    unsigned n, struct page **reads)
{
	unsigned k = 0;
	claim_slot(e, fresh[0], 0);
	reads[k++] = fresh[0];
	for (unsigned i = 0; i < n_ahead && k < n; i++) {
		struct swap_area *a = area_if_on(ahead[i]);
		if (!a || !wants_read(a, pte_swap_slot(ahead[i])))
			continue;   /* (e's own slot is cached now: passed over too) */
		claim_slot(ahead[i], fresh[k], AF_READAHEAD);
		reads[k] = fresh[k];
		k++;
	}
	sort_by_slot(reads, k);
	return k;
}

/* Read n cached pages under I/O from consecutive slots; a page whose read
 * failed leaves the cache (AF_ERROR). */
static void read_run(struct page **pages, unsigned n)
{
	struct swap_area *a = area_of(pages[0]->swap);
	uint64_t failed = transfer(pages[0]->swap, pages, n, SWAP_READ);
	spin_lock(&swap_lock);
	for (unsigned i = 0; i < n; i++) {
		if (failed >> i & 1)
			cache_remove(a, pages[i]->swap, pages[i]);
		else if (pages[i]->aflags & AF_READAHEAD)
			swap_stats.ra_pages++;
	}
	spin_unlock(&swap_lock);
	for (unsigned i = 0; i < n; i++) {
		end_io(pages[i], failed >> i & 1 ? AF_ERROR : AF_UPTODATE);
		(void)swap_cache_drop_unnamed(pages[i]);   /* its last entry went during the read */
	}
}

/* Our reference on read-ahead page pg goes: it stays in the cache, on the
 * LRU list, or (its read failed) is freed. */
static void readahead_done(struct page *pg)
{
	if (pg->aflags & AF_ERROR)
		page_put(pg);   /* the cache's (it left the cache) */
	else
		lru_add(pg, LRU_COLD);
	page_put(pg);
}

/* Read reads[0..n) (in slot order; want, e's page, among them): the
 * result for want. */
static enum swapin_result read_cluster(struct page **reads, unsigned n, struct page *want,
				       struct page **out)
{
	for (unsigned i = 0, k; i < n; i += k) {
		k = run_length(reads + i, n - i);
		read_run(reads + i, k);
	}
	for (unsigned i = 0; i < n; i++)
		if (reads[i] != want)
			readahead_done(reads[i]);
	*out = NULL;
	if (want->aflags & AF_ERROR) {
		page_put(want);   /* the cache's */
		page_put(want);   /* ours */
		return SWAPIN_IOERR;
	}
	*out = want;
	return SWAPIN_READ;
}

enum swapin_result swap_cache_read(pte_t e, const pte_t *ahead, unsigned n_ahead,
				   struct page **pg)
{
	spin_lock(&swap_lock);
	struct page *found = get_cached(e);
	bool used = named(e);
	spin_unlock(&swap_lock);
	if (found)
		return cached_ready(found, pg);
	*pg = NULL;
	if (!used)
		return SWAPIN_STALE;
	struct page *fresh[SWAP_READAHEAD_MAX], *reads[SWAP_READAHEAD_MAX];
	unsigned n = alloc_frames(fresh, 1 + MIN(n_ahead, SWAP_READAHEAD_MAX - 1));
	if (!n)
		return SWAPIN_NOMEM;
	unsigned k = 0;
	spin_lock(&swap_lock);
	found = get_cached(e);   /* another task's read began meanwhile? */
	used = named(e);
	if (!found && used)
		k = claim_slots(e, ahead, n_ahead, fresh, n, reads);
	spin_unlock(&swap_lock);
	for (unsigned i = k; i < n; i++)
		page_put(fresh[i]);   /* not needed (claim_slots used the first k) */
	if (k)
		return read_cluster(reads, k, fresh[0], pg);
	return found ? cached_ready(found, pg) : SWAPIN_STALE;
}

/* Sort pages[0..n) by their slots (insertion: n is small). */
static void sort_by_slot(struct page **pages, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && pages[j - 1]->swap > pages[j]->swap; j--) {
			struct page *t = pages[j];
			pages[j] = pages[j - 1];
			pages[j - 1] = t;
		}
}

/* Mark pages[0..n) under I/O (each cached, not under I/O already). */
static void begin_writes(struct page **pages, unsigned n)
{
	spin_lock(&swap_lock);
	for (unsigned i = 0; i < n; i++) {
		if (!page_in_swap_cache(pages[i]) || (pages[i]->aflags & AF_LOCKED))
			page_bug(pages[i], "swap_writepages: not in the swap cache, or under I/O", NULL);
		__atomic_fetch_or(&pages[i]->aflags, AF_LOCKED, __ATOMIC_RELEASE);
	}
	spin_unlock(&swap_lock);
}

/* Write a run of n pages to consecutive slots: how many failed (their
 * slots then bad). */
static unsigned write_run(struct page **pages, unsigned n)
{
	uint64_t failed = transfer(pages[0]->swap, pages, n, SWAP_WRITE);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++) {
		end_io(pages[i], failed >> i & 1 ? 0 : AF_UPTODATE);
		bad += failed >> i & 1;
	}
	return bad;
}

uint64_t swap_slot_rw(const pte_t *slots, struct page **pages, unsigned n, enum swap_dir dir)
{
	uint64_t failed = 0;
	for (unsigned i = 0, k; i < n; i += k) {
		for (k = 1; i + k < n && slots[i + k] == pte_mkswap(pte_swap_area(slots[i]),
								   pte_swap_slot(slots[i]) + k); k++)
			;
		failed |= transfer(slots[i], pages + i, k, dir) << i;   /* areas on: named */
	}
	return failed;
}

unsigned swap_writepages(struct page **pages, unsigned n)
{
	unsigned failed = 0;
	sort_by_slot(pages, n);
	begin_writes(pages, n);
	for (unsigned i = 0, k; i < n; i += k) {
		k = run_length(pages + i, n - i);
		failed += write_run(pages + i, k);
	}
	return failed;
}

/* Take pg out of the cache if `ok` says so (swap_lock held by the caller
 * of this helper); true if it left. */
static bool remove_if(struct page *pg, bool ok)
{
	if (!ok)
		return false;
	cache_remove(area_of(pg->swap), pg->swap, pg);
	return true;
}

bool swap_cache_try_remove(struct page *pg)
{
	spin_lock(&swap_lock);
	uint16_t f = pg->aflags;
	bool gone = remove_if(pg, (f & AF_SWAPCACHE) && !(f & AF_LOCKED) && (f & AF_UPTODATE) &&
				  atomic_load(&pg->refcount) == 2);
	spin_unlock(&swap_lock);
	if (gone)
		page_put(pg);   /* the cache's: the caller's is left */
	return gone;
}

void swap_cache_drop_area(int area)
{
	for (uint64_t s = 1;; s++) {
		struct page *drop = NULL;
		spin_lock(&swap_lock);
		struct swap_area *a = &areas[area];
		bool more = a->on && s < a->pages;
		pte_t e = pte_mkswap((unsigned)area, s);
		if (more && a->cache[s] && !(a->count[s] & SLOT_ENTRIES) && unneeded(cached_page(e)))
			cache_remove(a, e, drop = cached_page(e));
		spin_unlock(&swap_lock);
		if (drop)
			page_put(drop);
		if (!more)
			return;
	}
}

bool swap_cache_give_up_slot(struct page *pg)
{
	spin_lock(&swap_lock);
	uint16_t f = pg->aflags;
	bool cached = (f & AF_SWAPCACHE) && !(f & AF_LOCKED);
	bool failed = cached && !(f & AF_UPTODATE) && (*count_of(pg->swap) & SLOT_BAD);
	bool gone = remove_if(pg, cached && ((f & AF_UPTODATE) || failed) && !named(pg->swap));
	spin_unlock(&swap_lock);
	if (gone)
		page_put(pg);
	return gone;
}

bool swap_cache_drop_unnamed(struct page *pg)
{
	spin_lock(&swap_lock);
	uint16_t f = pg->aflags;
	bool gone = remove_if(pg, (f & AF_SWAPCACHE) && unneeded(pg) && !named(pg->swap));
	spin_unlock(&swap_lock);
	if (gone)
		page_put(pg);
	return gone;
}
