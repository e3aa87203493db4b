/* mm/shm.c -- shared anonymous memory: the backing object of
 * MAP_SHARED|MAP_ANONYMOUS (Linux's shmem file behind such a mapping).
 *
 * The object keeps its frames by page index in a two-level table, filled on
 * fault: mmap allocates only the top level (8 bytes per 2 MiB), a frame and
 * its slot page come with the first touch of a page. Every process that
 * maps the object (fork copies the VMA, which takes a reference) finds the
 * same frame for the same index, so writes are seen by all; MADV_DONTNEED
 * drops one mapping's entries and the data stays in the object. The frames
 * are typed PG_FILE (file data, like Linux's shmem) and hold one reference
 * for the object, dropped when its last VMA goes.
 *
 *   shm --slots[idx / 512]--> slot page --[idx % 512]--> frame
 */
#include "mm/vmobject.h"
#include "mm/kmalloc.h"
#include "mm/page.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"

#define SLOT_ENTRIES (PAGE_SIZE / sizeof(struct page *))

struct shm {
	struct vmobject obj;
	struct page ***slots;    /* nslots slot pages' entries (NULL: none yet) */
	uint64_t nslots;
	uint64_t resident;       /* frames held */
};

static struct shm *to_shm(struct vmobject *obj)
{
	return container_of(obj, struct shm, obj);
}

/* The entry for idx (allocating its slot page if alloc), or NULL. */
static struct page **shm_entry(struct shm *s, uint64_t idx, bool alloc)
{
	struct page ***slot = &s->slots[idx / SLOT_ENTRIES];
	if (!*slot && alloc) {
		struct page *sp = page_alloc(0, PA_ZERO);
		*slot = sp ? page_va(sp) : NULL;
	}
	return *slot ? *slot + idx % SLOT_ENTRIES : NULL;
}

static int shm_get_page(struct vmobject *obj, uint64_t idx, struct page **out)
{
	struct shm *s = to_shm(obj);
	if (idx >= obj->npages)
		return -EIO;
	struct page **e = shm_entry(s, idx, true);
	if (!e)
		return -ENOMEM;
	if (!*e) {
		*e = page_alloc(0, PA_FILE | PA_ZERO);
		if (!*e)
			return -ENOMEM;
		s->resident++;
	}
	page_get(*e);
	*out = *e;
	return 0;
}

static int shm_is_resident(struct vmobject *obj, uint64_t idx)
{
	struct page **e = idx < obj->npages ? shm_entry(to_shm(obj), idx, false) : NULL;
	return e && *e;
}

static void shm_remove(struct vmobject *obj, uint64_t idx, uint64_t n)
{
	struct shm *s = to_shm(obj);
	for (uint64_t i = idx; i < idx + n && i < obj->npages; i++) {
		struct page **e = shm_entry(s, i, false);
		if (e && *e) {
			page_put(*e);
			*e = NULL;
			s->resident--;
		}
	}
}

static void shm_release(struct vmobject *obj)
{
	struct shm *s = to_shm(obj);
	shm_remove(obj, 0, obj->npages);
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
	s->obj = (struct vmobject){ .ops = &shm_ops, .kind = VMOBJ_SHM, .refs = 1,
				    .npages = npages };
	return &s->obj;
}

uint64_t shm_resident(struct vmobject *obj)
{
	return to_shm(obj)->resident;
}
