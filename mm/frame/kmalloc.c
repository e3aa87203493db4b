/* mm/frame/kmalloc.c -- size-class slabs over the buddy allocator.
 *
 * A slab is one page of equal objects of one class (16, 32, ... 2048 bytes).
 * Free objects are chained by their offset in the page, stored in their
 * first two bytes; the page's struct page keeps the first free offset
 * (slab.free), the class (slab.kclass) and the objects in use (count).
 * Slabs with a free object sit on their class's partial list; a slab whose
 * last object is freed goes back to the buddy allocator.
 *
 * Several CPUs: kmalloc_lock (LOCK_RANK_KMALLOC) guards the partial lists,
 * every slab's free chain and count, and the live count. It is never held
 * across page_alloc (which may reclaim, taking lower-ranked locks): a new
 * slab is made outside it and then put on its list; an emptied slab leaves
 * its list under the lock and goes back to the buddy allocator after.
 *
 * Debug layout of one object slot (kmalloc_debug):
 *   +--------+----------------------+--------------------+
 *   | header | payload (size bytes) | redzone 0xbb ...   |   freed: payload
 *   | 16 B   | returned pointer --> |   to the slot end  |   and redzone 0x6b
 *   +--------+----------------------+--------------------+
 */
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/frame/caller.h"
#include "arch/x86_64/memlayout.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"

#define NCLASSES 8               /* 16 << 0 .. 16 << 7 = 2048 */
#define KCLASS_NONE 0            /* not a kmalloc page */
#define KCLASS_LARGE 0xff        /* a buddy block of its own */
#define FREE_END 0xffff
#define HDR_SIZE 16
#define RZ_MIN 16
#define MAGIC_LIVE 0x4b4d4c56    /* "KMLV" */
#define MAGIC_FREE 0x4b4d4652    /* "KMFR" */
#define POISON_FREE 0x6b
#define POISON_RZ 0xbb

struct kmhdr {                   /* debug header of an object slot */
	uint64_t caller;         /* free: the free-chain offset, as always */
	uint16_t size;
	uint16_t unused;
	uint32_t magic;          /* right before the payload: underruns hit it */
};

bool kmalloc_debug;
static struct spinlock kmalloc_lock = SPINLOCK_INIT("kmalloc", LOCK_RANK_KMALLOC);
static struct list partial[NCLASSES + 1] = {   /* empty lists */
#define EMPTY(c) [c] = { &partial[c], &partial[c] }
	EMPTY(0), EMPTY(1), EMPTY(2), EMPTY(3), EMPTY(4), EMPTY(5), EMPTY(6), EMPTY(7), EMPTY(8),
#undef EMPTY
};
static uint64_t live;

static uint32_t class_size(unsigned c)
{
	return 16U << (c - 1);
}

static unsigned class_for(size_t need)
{
	unsigned c = 1;
	while (class_size(c) < need)
		c++;
	return c;
}

static bool bytes_are(const void *p, int c, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != (unsigned char)c)
			return false;
	return true;
}

/* A new slab of class c, every object free (not on a list yet), or NULL.
 * Called without kmalloc_lock: it allocates. */
static struct page *slab_new(unsigned c)
{
	struct page *pg = page_alloc(0, PA_ZERO);   /* whole: see PA_ZERO */
	if (!pg)
		return NULL;
	uint32_t size = class_size(c);
	pg->slab.kclass = (uint8_t)c;
	pg->slab.free = 0;
	pg->count = 0;
	for (uint32_t off = 0; off < PAGE_SIZE; off += size) {
		char *obj = (char *)page_va(pg) + off;
		if (kmalloc_debug) {
			memset(obj, POISON_FREE, size);
			((struct kmhdr *)obj)->magic = MAGIC_FREE;
		}
		*(uint16_t *)obj = off + size < PAGE_SIZE ? (uint16_t)(off + size) : FREE_END;
	}
	return pg;
}

static void *alloc_large(size_t size)
{
	unsigned order = 0;
	while ((PAGE_SIZE << order) < size)
		order++;
	struct page *pg = page_alloc(order, PA_ZERO);   /* whole: see PA_ZERO */
	if (!pg)
		return NULL;
	pg->slab.kclass = KCLASS_LARGE;
	return page_va(pg);
}

/* Debug: check the freed slot is still poisoned, then arm header + redzone. */
static void *debug_arm(char *obj, uint32_t slot, size_t size, const void *caller)
{
	if (!bytes_are(obj + HDR_SIZE, POISON_FREE, slot - HDR_SIZE))
		panic("kmalloc: object %p (slot %u bytes) was written after kfree",
		      (void *)(obj + HDR_SIZE), slot);
	struct kmhdr *h = (struct kmhdr *)obj;
	h->size = (uint16_t)size;
	h->magic = MAGIC_LIVE;
	h->caller = (uint64_t)caller;
	memset(obj + HDR_SIZE + size, POISON_RZ, slot - HDR_SIZE - size);
	return obj + HDR_SIZE;
}

/* Take a free object of class c off its first partial slab (kmalloc_lock
 * held, the list not empty); returns its slot. */
static char *take_object(unsigned c)
{
	struct page *pg = list_entry(partial[c].next, struct page, link);
	uint16_t off = pg->slab.free;
	char *obj = (char *)page_va(pg) + off;
	pg->slab.free = *(uint16_t *)obj;
	if (pg->slab.free == FREE_END)
		list_del(&pg->link);   /* full */
	pg->count++;
	live++;
	return obj;
}

/* The bytes a small object of size takes (header and redzone in debug). */
static size_t small_need(size_t size)
{
	return kmalloc_debug ? size + HDR_SIZE + RZ_MIN : MAX(size, 1);
}

/* Does size get a buddy block of its own (which comes zeroed)? */
static bool is_large(size_t size)
{
	return small_need(size) > KMALLOC_MAX_SMALL;
}

static void *kmalloc_from(size_t size, const void *caller)
{
	if (is_large(size))
		return alloc_large(size);
	unsigned c = class_for(small_need(size));
	spin_lock(&kmalloc_lock);
	while (list_empty(&partial[c])) {
		spin_unlock(&kmalloc_lock);   /* page_alloc may reclaim */
		struct page *pg = slab_new(c);
		if (!pg)
			return NULL;
		spin_lock(&kmalloc_lock);
		list_add(&partial[c], &pg->link);
	}
	char *obj = take_object(c);
	void *p = kmalloc_debug ? debug_arm(obj, class_size(c), size, caller) : obj;
	spin_unlock(&kmalloc_lock);
	return p;
}

void *kmalloc(size_t size)
{
	return kmalloc_from(size, __builtin_return_address(0));
}

void *kzalloc(size_t size)
{
	void *p = kmalloc_from(size, __builtin_return_address(0));
	if (p && !is_large(size))   /* a large block is zeroed already */
		memset(p, 0, size);
	return p;
}

/* Debug: the header and redzone of a live object must be intact. */
static void debug_check(char *obj, uint32_t slot, void *ptr)
{
	struct kmhdr *h = (struct kmhdr *)obj;
	if (h->magic == MAGIC_FREE)
		panic("kfree: double free of object %p", ptr);
	if (h->magic != MAGIC_LIVE || h->size > slot - HDR_SIZE)
		panic("kfree: header before object %p overwritten (underrun)", ptr);
	uint64_t off;
	const char *fn = mm_symbol((void *)h->caller, &off);
	if (!bytes_are(obj + HDR_SIZE + h->size, POISON_RZ, slot - HDR_SIZE - h->size))
		panic("kfree: redzone after object %p (%u bytes, allocated by %#lx "
		      "%s+%#lx) overwritten", ptr, h->size, h->caller, fn, off);
	memset(obj, POISON_FREE, slot);
	h->magic = MAGIC_FREE;
}

/* Put object ptr back on slab pg (kmalloc_lock held); returns true when
 * that emptied the slab, which then left its list for the caller to free.
 * Constant time: a double free is caught when the object is the slab's
 * last freed one (as SLUB's freelist check); with kmalloc_debug, always
 * (the header says MAGIC_FREE). */
static bool free_object(struct page *pg, void *ptr)
{
	uint32_t slot = class_size(pg->slab.kclass);
	char *obj = (char *)ptr - (kmalloc_debug ? HDR_SIZE : 0);
	uint32_t off = (uint32_t)(obj - (char *)page_va(pg));
	if (off % slot)
		panic("kfree: %p is not the start of an object (class %u bytes)", ptr, slot);
	if (pg->slab.free == off)   /* O(1): the object freed last (debug: any) */
		panic("kfree: double free of object %p", ptr);
	if (kmalloc_debug)
		debug_check(obj, slot, ptr);
	if (pg->slab.free == FREE_END)
		list_add(&partial[pg->slab.kclass], &pg->link);
	*(uint16_t *)obj = pg->slab.free;
	pg->slab.free = (uint16_t)off;
	live--;
	if (--pg->count)
		return false;
	list_del(&pg->link);
	pg->slab.kclass = KCLASS_NONE;
	return true;
}

static void free_small(struct page *pg, void *ptr)
{
	spin_lock(&kmalloc_lock);
	bool empty = free_object(pg, ptr);
	spin_unlock(&kmalloc_lock);
	if (empty)
		page_free(pg, 0);
}

void kfree(void *ptr)
{
	if (!ptr)
		return;
	struct page *pg = pa_to_page(V2P(ptr));
	if (!pg || pg->type != PG_KERNEL || pg->slab.kclass == KCLASS_NONE)
		panic("kfree: %p is not a kmalloc pointer", ptr);
	if (pg->slab.kclass != KCLASS_LARGE) {
		free_small(pg, ptr);
		return;
	}
	if (!IS_ALIGNED((uintptr_t)ptr, PAGE_SIZE) || pg->order == PAGE_ORDER_TAIL)
		panic("kfree: %p is inside a large object", ptr);
	pg->slab.kclass = KCLASS_NONE;
	page_free(pg, pg->order);
}

void kmalloc_set_debug(bool on)
{
	spin_lock(&kmalloc_lock);
	if (live)
		panic("kmalloc_set_debug: %lu objects still allocated", live);
	kmalloc_debug = on;
	spin_unlock(&kmalloc_lock);
}

uint64_t kmalloc_live(void)
{
	return atomic_load(&live);
}
