/* mm/frame/page_db.c -- the frame database: a struct page per physical frame,
 * built from the boot memory map; references and types of frames.
 *
 * Physical memory after page_db_init (example, 256 MiB):
 *
 *   0      1 MiB   kernel image   info  initrd   frames[]          256 MiB
 *   |R|....|########|.............|#|...|#####|..|#########|.........|
 *    R = pfn 0, reserved     # = pinned (kernel / file), refcount 1
 *    . = RAM: free once page_db_release() hands it to the buddy allocator
 */
#include "mm/frame/page.h"
#include "mm/frame/anon_page.h"
#include "mm/frame/buddy.h"
#include "arch/x86_64/memlayout.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/caller.h"

#define MAX_RANGES 40

_Static_assert(sizeof(struct page) == 48, "struct page grew: it costs RAM per frame");

struct page *frames;
uint64_t max_pfn;
struct mm_stats mm_stats;

static struct prange ram_ranges[MAX_RANGES], db_range;
static int nram_ranges;

static const char *const type_names[PG_NTYPES] = {
	"free", "kernel", "anon", "file", "pagetable", "reserved",
};

const char *page_type_name(enum page_type t)
{
	return t < PG_NTYPES ? type_names[t] : "?";
}

void page_bug(const struct page *pg, const char *what, const void *caller)
{
	uint64_t off;
	const char *fn = mm_symbol(caller, &off);
	if (pg < frames || pg >= frames + max_pfn)
		panic("%s: %p is not a frame (caller %p %s+%#lx)", what, (void *)pg,
		      caller, fn, off);
	panic("%s: frame pfn %#lx pa %#lx type %s refcount %u order %u count/aflags %#x "
	      "(caller %p %s+%#lx)", what, (uint64_t)(pg - frames), page_to_pa(pg),
	      page_type_name(pg->type), pg->refcount, pg->order, pg->count, caller, fn, off);
}

static bool overlaps(paddr_t a0, paddr_t a1, const struct prange *r)
{
	return a0 < r->end && r->start < a1;
}

/* Lowest page-aligned [p, p + size) inside a RAM range, below limit, above
 * pfn 0, clear of every pinned range. */
static paddr_t place_db(uint64_t size, const struct prange *pinned, int npinned,
			paddr_t limit)
{
	for (int i = 0; i < nram_ranges; i++) {
		paddr_t p = ALIGN_UP(MAX(ram_ranges[i].start, PAGE_SIZE), PAGE_SIZE);
		for (int j = 0; j < npinned; j++) {
			if (p + size > ram_ranges[i].end || p + size > limit)
				break;
			if (overlaps(p, p + size, &pinned[j])) {
				p = ALIGN_UP(pinned[j].end, PAGE_SIZE);
				j = -1;   /* re-check every pinned range */
			}
		}
		if (p + size <= ram_ranges[i].end && p + size <= limit)
			return p;
	}
	panic("page_db: no room for the frame database (%lu bytes)", size);
}

/* Mark the frames of [start, end) (rounded out to frames) as pinned. */
static void pin_range(paddr_t start, paddr_t end, enum page_type t)
{
	for (uint64_t pfn = start >> PAGE_SHIFT;
	     pfn < max_pfn && pfn < ALIGN_UP(end, PAGE_SIZE) >> PAGE_SHIFT; pfn++) {
		struct page *pg = &frames[pfn];
		if (pg->refcount == 0) {
			pg->refcount = 1;
			pg->order = 0;
		}
		frames_set_type(pg, 0, t);
	}
}

void page_db_init(const struct prange *ram, int nram, const struct prange *pinned,
		  const enum page_type *pinned_type, int npinned, paddr_t place_limit)
{
	memset(&mm_stats, 0, sizeof(mm_stats));
	buddy_reset();
	max_pfn = 0;
	nram_ranges = 0;
	for (int i = 0; i < nram && nram_ranges < MAX_RANGES; i++) {
		paddr_t s = ALIGN_UP(ram[i].start, PAGE_SIZE);
		paddr_t e = ALIGN_DOWN(ram[i].end, PAGE_SIZE);
		if (s >= e)
			continue;
		ram_ranges[nram_ranges++] = (struct prange){ s, e };
		max_pfn = MAX(max_pfn, e >> PAGE_SHIFT);
		mm_stats.total += (e - s) >> PAGE_SHIFT;
	}
	uint64_t size = ALIGN_UP(max_pfn * sizeof(struct page), PAGE_SIZE);
	paddr_t at = place_db(size, pinned, npinned, place_limit);
	db_range = (struct prange){ at, at + size };
	frames = P2V(at);
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++) {
		frames[pfn] = (struct page){ .type = PG_RESERVED, .order = PAGE_ORDER_TAIL };
		list_init(&frames[pfn].link);
	}
	mm_stats.by_type[PG_RESERVED] = max_pfn;
	for (int i = 0; i < npinned; i++)
		pin_range(pinned[i].start, pinned[i].end, pinned_type[i]);
	pin_range(db_range.start, db_range.end, PG_KERNEL);
}

/* A RAM frame still waiting for page_db_release()? */
static bool releasable(uint64_t pfn)
{
	paddr_t pa = pfn << PAGE_SHIFT;
	if (pfn == 0 || frames[pfn].type != PG_RESERVED || frames[pfn].refcount)
		return false;
	for (int i = 0; i < nram_ranges; i++)
		if (pa >= ram_ranges[i].start && pa < ram_ranges[i].end)
			return true;
	return false;
}

uint64_t page_db_release(paddr_t lo, paddr_t hi)
{
	uint64_t n = 0;
	for (uint64_t pfn = lo >> PAGE_SHIFT; pfn < MIN(hi >> PAGE_SHIFT, max_pfn); pfn++) {
		if (!releasable(pfn))
			continue;
		frames_set_type(&frames[pfn], 0, PG_FREE);
		buddy_insert(&frames[pfn], 0);
		n++;
	}
	mm_stats.managed += n;
	return n;
}

size_t page_db_bytes(void)
{
	return db_range.end - db_range.start;
}

void *page_va(const struct page *pg)
{
	return P2V(page_to_pa(pg));
}

void frames_set_type(struct page *pg, unsigned order, enum page_type t)
{
	uint64_t n = 1UL << order;
	enum page_type old = pg->type;   /* every frame of a block has its type */
	for (uint64_t i = 0; i < n; i++)
		pg[i].type = (uint8_t)t;
	stat_sub(&mm_stats.by_type[old], n);
	stat_add(&mm_stats.by_type[t], n);
}

void page_set_type(struct page *pg, enum page_type t)
{
	if (pg->type == PG_FREE || pg->type == PG_RESERVED || pg->order == PAGE_ORDER_TAIL)
		page_bug(pg, "page_set_type on a frame that is not an allocated block",
			 __builtin_return_address(0));
	frames_set_type(pg, pg->order, t);
}

static void check_owned(struct page *pg, const char *what, const void *caller)
{
	if (pg < frames || pg >= frames + max_pfn)
		page_bug(pg, what, caller);
	if (pg->type == PG_FREE || pg->type == PG_RESERVED || atomic_load(&pg->refcount) == 0 ||
	    pg->order == PAGE_ORDER_TAIL)
		page_bug(pg, what, caller);
}

void page_get(struct page *pg)
{
	check_owned(pg, "page_get on a frame nobody owns", __builtin_return_address(0));
	atomic_inc(&pg->refcount);
}

/* Of CPUs dropping the last references at once, exactly one sees 0. */
void page_put(struct page *pg)
{
	const void *caller = __builtin_return_address(0);
	check_owned(pg, "page_put: reference count underflow", caller);
	if (atomic_dec_and_test(&pg->refcount)) {
		if (pg->type == PG_ANON)   /* at 0, so the LRU's page_tryget fails */
			anon_page_released(pg);
		pg->refcount = 1;   /* page_free checks an owned block */
		page_free_from(pg, pg->order, caller);
	}
}
