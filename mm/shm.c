/* mm/shm.c -- shared anonymous memory: the backing object of
 * MAP_SHARED|MAP_ANONYMOUS (Linux's shmem file behind such a mapping).
 *
 * The object keeps its frames by page index in a two-level table, filled on
 * fault: mmap allocates only the top level (8 bytes per 2 MiB), a frame and
 * its slot page come with the first touch of a page. Every process that
 * maps the object (fork copies the VMA, which takes a reference) finds the
 * same frame for the same index, so writes are seen by all; MADV_DONTNEED
 * drops one mapping's entries and the data stays in the object; MADV_REMOVE
 * empties the object's pages (shm_remove: freed, or zeroed in place while
 * another mapping still holds them). The frames
 * are typed PG_FILE (file data, like Linux's shmem) and hold one reference
 * for the object, dropped when its last VMA goes.
 *
 *   shm --slots[idx / 512]--> slot page --[idx % 512]--> frame
 */
#include "mm/vmobject.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "lib/spinlock.h"
#include "arch/x86_64/memlayout.h"

#define SLOT_ENTRIES (PAGE_SIZE / sizeof(struct page *))

struct shm {
	struct vmobject obj;
	struct page ***slots;    /* nslots slot pages' entries (NULL: none yet) */
	uint64_t nslots;
	uint64_t resident;       /* frames held */
	struct spinlock lock;    /* slots and resident: faults of several CPUs fill them */
};

static struct shm *to_shm(struct vmobject *obj)
{
	return container_of(obj, struct shm, obj);
}

/* The entry for idx, or NULL while its slot page is missing. Under s->lock. */
static struct page **shm_entry(struct shm *s, uint64_t idx)
{
	struct page **slot = s->slots[idx / SLOT_ENTRIES];
	return slot ? slot + idx % SLOT_ENTRIES : NULL;
}

/* The frame at idx with a reference for the caller, or NULL. Under s->lock. */
static struct page *shm_take(struct shm *s, uint64_t idx)
{
	struct page **e = shm_entry(s, idx);
	if (e && *e)
		page_get(*e);
	return e ? *e : NULL;
}

/* Install the frame (and slot page) the caller allocated where idx has
 * none yet; a racing fault on another CPU may have filled either first,
 * and what this call did not use stays in *slot / *frame for the caller to
 * free. Returns the frame at idx with a reference for the caller. */
static struct page *shm_install(struct shm *s, uint64_t idx, struct page **slot,
				struct page **frame)
{
	spin_lock(&s->lock);
	if (!s->slots[idx / SLOT_ENTRIES]) {
		s->slots[idx / SLOT_ENTRIES] = page_va(*slot);
		*slot = NULL;
	}
	struct page **e = shm_entry(s, idx);
	if (!*e) {
		*e = *frame;
		*frame = NULL;
		s->resident++;
	}
	struct page *pg = shm_take(s, idx);
	spin_unlock(&s->lock);
	return pg;
}

/* Fill on fault. The allocations run outside s->lock (page_alloc may
 * reclaim); two CPUs faulting on one new index at once both allocate and
 * shm_install keeps the first, so every mapping gets the same frame. */
static int shm_get_page(struct vmobject *obj, uint64_t idx, enum vmobject_ra ra,
			struct page **out)
{
	struct shm *s = to_shm(obj);
	(void)ra;   /* all in RAM: nothing to read ahead */
	if (idx >= obj->npages)
		return -EIO;
	spin_lock(&s->lock);
	*out = shm_take(s, idx);
	bool has_slot = s->slots[idx / SLOT_ENTRIES] != NULL;
	spin_unlock(&s->lock);
	if (*out)
		return 0;
	struct page *slot = has_slot ? NULL : page_alloc(0, PA_ZERO);
	struct page *frame = page_alloc(0, PA_FILE | PA_ZERO);
	if (frame && (has_slot || slot))
		*out = shm_install(s, idx, &slot, &frame);
	if (slot)
		page_free(slot, 0);
	if (frame)
		page_put(frame);
	return *out ? 0 : -ENOMEM;
}

static int shm_is_resident(struct vmobject *obj, uint64_t idx)
{
	struct shm *s = to_shm(obj);
	if (idx >= obj->npages)
		return 0;
	spin_lock(&s->lock);
	struct page **e = shm_entry(s, idx);
	int r = e && *e;
	spin_unlock(&s->lock);
	return r;
}

/* How shm_drop treats a frame someone else still holds. */
enum shm_drop_mode {
	SHM_DROP_ALL,      /* the object is going: drop every frame */
	SHM_DROP_UNUSED,   /* MADV_REMOVE: drop a frame only the object holds,
			      zero one still mapped or pinned elsewhere */
};

/* Page idx out of the object, or zeroed in place (see shm_remove). The
 * frame to put, or NULL. Under s->lock. */
static struct page *shm_drop_one(struct shm *s, uint64_t idx, enum shm_drop_mode mode)
{
	struct page **e = shm_entry(s, idx);
	struct page *pg = e ? *e : NULL;
	if (!pg)
		return NULL;
	if (mode == SHM_DROP_UNUSED && atomic_load(&pg->refcount) > 1) {
		memset(page_va(pg), 0, PAGE_SIZE);
		return NULL;
	}
	*e = NULL;
	s->resident--;
	return pg;
}

static void shm_drop(struct shm *s, uint64_t idx, uint64_t n, enum shm_drop_mode mode)
{
	for (uint64_t i = idx; i < idx + n && i < s->obj.npages; i++) {
		spin_lock(&s->lock);
		struct page *pg = shm_drop_one(s, i, mode);
		spin_unlock(&s->lock);
		if (pg)
			page_put(pg);
	}
}

/* MADV_REMOVE: the caller unmapped the range from its own address space,
 * but other processes (fork's children, the parent) and a racing fault of
 * another thread may still map a frame: without a reverse map from the
 * object to its mappings (Linux's i_mmap, to come with file-backed memory)
 * they cannot be unmapped here. So a frame only the object holds is freed,
 * and one still mapped elsewhere is zeroed in place and stays the page of
 * idx: every mapping reads zeros and sees the others' later writes, as
 * after Linux's hole punch; its memory comes back when the object goes.
 * (Taking such a frame out of the object would leave two frames for one
 * page: writes no longer seen by all, lost.) A mapping takes its reference
 * before its entry exists, under s->lock (shm_take), so refcount 1 under
 * the lock means nobody maps it or can. */
static int shm_remove(struct vmobject *obj, uint64_t idx, uint64_t n)
{
	shm_drop(to_shm(obj), idx, n, SHM_DROP_UNUSED);
	return 0;
}

static void shm_release(struct vmobject *obj)
{
	struct shm *s = to_shm(obj);
	shm_drop(s, 0, obj->npages, SHM_DROP_ALL);
	for (uint64_t i = 0; i < s->nslots; i++)
		if (s->slots[i])
			page_free(pa_to_page(V2P(s->slots[i])), 0);
	kfree(s->slots);
	kfree(s);
}

static const struct vmobject_ops shm_ops = {
	.get_page = shm_get_page, .resident = shm_is_resident,
	.remove = shm_remove, .release = shm_release,
};

struct vmobject *shm_create(uint64_t npages)
{
	struct shm *s = kzalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->nslots = (npages + SLOT_ENTRIES - 1) / SLOT_ENTRIES;
	s->slots = kzalloc(s->nslots * sizeof(*s->slots));
	if (!s->slots) {
		kfree(s);
		return NULL;
	}
	vmobject_init(&s->obj, &shm_ops, VMOBJ_SHM);
	s->obj.refs = 1;
	s->obj.npages = npages;
	spin_init(&s->lock, "shm", LOCK_RANK_SHM);
	return &s->obj;
}

uint64_t shm_resident(struct vmobject *obj)
{
	return to_shm(obj)->resident;
}
