/* mm/as.c -- address spaces: create, destroy, mmap, munmap, mprotect, brk.
 *
 * The VMA list says what may be mapped; the page table caches what is.
 * Changing a range first splits VMAs at its ends (vma_isolate), then edits
 * the whole VMAs inside and the page table below them in one walk.
 */
#include "mm/as.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/tlb.h"
#include "mm/pt/pgtable.h"
#include "mm/vma.h"
#include "mm/vmobject.h"
#include "mm/ptshare.h"
#include "mm/pt/ptpage.h"
#include "lib/errno.h"
#include "arch/x86_64/pte.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"

/* Every address space, for the invariant checker: a process's, and one no
 * process shows (see as_for_each). */
static struct list all_spaces = { &all_spaces, &all_spaces };
static struct spinlock all_spaces_lock = SPINLOCK_INIT("as-list", LOCK_RANK_AS_LIST);

struct addrspace *as_create(void)
{
	struct addrspace *as = kzalloc(sizeof(*as));
	if (!as)
		return NULL;
	as->pgt = pgt_create();
	if (!as->pgt) {
		kfree(as);
		return NULL;
	}
	rwsem_init(&as->lock, "addrspace", SLEEP_RANK_ADDRSPACE);
	as->users = 1;
	spin_lock(&all_spaces_lock);
	list_add_tail(&all_spaces, &as->all);
	spin_unlock(&all_spaces_lock);
	return as;
}

void as_for_each(void (*fn)(struct addrspace *as, void *arg), void *arg)
{
	spin_lock(&all_spaces_lock);
	list_for_each(it, &all_spaces)
		fn(list_entry(it, struct addrspace, all), arg);
	spin_unlock(&all_spaces_lock);
}

struct addrspace *as_get(struct addrspace *as)
{
	atomic_inc(&as->users);
	return as;
}

struct addrspace *as_tryget(struct addrspace *as)
{
	for (int n = atomic_load(&as->users); n > 0;)
		if (__atomic_compare_exchange_n(&as->users, &n, n + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return as;
	return NULL;
}

bool as_put_unless_last(struct addrspace *as)
{
	for (int n = atomic_load(&as->users); n > 1;)
		if (__atomic_compare_exchange_n(&as->users, &n, n - 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	return false;
}

bool as_put(struct addrspace *as)
{
	if (!as || !atomic_dec_and_test(&as->users))
		return false;
	as_destroy(as);
	return true;
}

static uint64_t oom_victims_pending;

void as_mark_oom_victim(struct addrspace *as)
{
	if (!__atomic_exchange_n(&as->oom_victim, true, __ATOMIC_ACQ_REL))
		atomic_inc(&oom_victims_pending);
}

uint64_t as_oom_victims_pending(void)
{
	return atomic_load(&oom_victims_pending);
}

void as_destroy(struct addrspace *as)
{
	if (!as)
		return;
	if (rwsem_is_locked(&as->lock))
		panic("as_destroy: address space (PML4 %#lx) freed while locked",
		      pgt_root_pa(as->pgt));
	/* Off the checker's list and its tables gone in one step that never
	 * sleeps (a VMA's file may, as it goes): a check that stops the other
	 * CPUs never sees the shares and references of tables it no longer
	 * counts (mm/vmcheck.h). */
	spin_lock(&all_spaces_lock);
	list_del(&as->all);
	spin_unlock(&all_spaces_lock);
	pgt_destroy(as->pgt);
	while (as->vmas)
		vma_delete(as, as->vmas);
	bool victim = as->oom_victim;
	kfree(as);
	ptshare_text_release_unused();
	if (victim)   /* its memory is back: the OOM killer may choose again */
		atomic_add(&oom_victims_pending, -1);
}

void as_lock_read(struct addrspace *as)
{
	down_read(&as->lock);
}

bool as_trylock_read(struct addrspace *as)
{
	return down_read_trylock(&as->lock);
}

/* The last reader out drops the references of tables unlinked under the
 * read lock (mm/pt/pgtable.h's pgt_defer_put) if it gets the lock for writing
 * at once; else whoever holds it next for writing does. */
void as_unlock_read(struct addrspace *as)
{
	up_read(&as->lock);
	if (pgt_has_stale(as->pgt) && down_write_trylock(&as->lock)) {
		pgt_release_stale(as->pgt);
		up_write(&as->lock);
		ptshare_text_release_unused();   /* shares drop only here on this path */
	}
}

void as_lock_write(struct addrspace *as)
{
	down_write(&as->lock);
	as->vidx.writer = true;
	as->write_locks++;
}

void as_unlock_write(struct addrspace *as)
{
	pgt_release_stale(as->pgt);   /* no reader: we hold it for writing */
	vma_index_refresh(as);
	as->vidx.writer = false;
	up_write(&as->lock);
	ptshare_text_release_unused();
}

void as_lock(struct addrspace *as, enum as_lock_mode mode)
{
	if (mode == AS_LOCK_WRITE)
		as_lock_write(as);
	else
		as_lock_read(as);
}

void as_unlock(struct addrspace *as, enum as_lock_mode mode)
{
	if (mode == AS_LOCK_WRITE)
		as_unlock_write(as);
	else
		as_unlock_read(as);
}

void as_activate(struct addrspace *as)
{
	pgt_activate(as ? as->pgt : &kernel_pgt);
}

struct vma *as_find_vma(struct addrspace *as, vaddr_t va)
{
	return vma_find(as, va);
}

/* Remove [start, end) from the VMAs and the page table: all or nothing.
 * What can fail (unsharing PT pages, splitting VMAs) comes first and
 * changes nothing one can see; then nothing is left that can fail. */
int as_unmap_pages(struct addrspace *as, vaddr_t start, vaddr_t end, unsigned flags)
{
	int r = flags & PGT_ALL_SHARERS ? 0 :
		pgt_unshare(as->pgt, start, end, flags & PGT_KEEP_TABLES ? 0 : PGT_KEEP_WHOLE);
	if (r < 0)
		return r;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	pgt_unmap(&b, start, end, flags & (PGT_KEEP_TABLES | PGT_ALL_SHARERS | PGT_KEEP_COPIES));
	tlb_end(&b);
	return 0;
}

static int unmap_range(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	int r = pgt_unshare(as->pgt, start, end, PGT_KEEP_WHOLE);
	if (r == 0)
		r = vma_isolate(as, start, end);
	if (r < 0)
		return r;
	for (struct vma *v = as->vmas, *next; v && v->start < end; v = next) {
		next = v->next;
		if (v->start >= start)
			vma_delete(as, v);
	}
	as_unmap_pages(as, start, end, 0);   /* cannot fail: unshared above */
	return 0;
}

/* Linux's heuristic overcommit: memory is handed out lazily, but a single
 * request for more than all of RAM and swap is refused at once (-ENOMEM). */
static bool may_commit(uint64_t len)
{
	uint64_t swap_total, swap_free, swap_cached;
	swap_totals(&swap_total, &swap_free, &swap_cached);
	return len / PAGE_SIZE <= mm_stats.managed + swap_total;
}

/* Where the kernel places a new mapping of len bytes: 1 GiB and more on a
 * 1 GiB boundary (whole PD pages: fork shares them whole with ptshare=pd,
 * instead of sharing both partial ones entry by entry), 2 MiB and more on
 * a 2 MiB boundary (whole PT pages), the rest on a page. */
static uint64_t gap_align(uint64_t len)
{
	if (len >= HUGE_PAGE_SIZE)
		return HUGE_PAGE_SIZE;
	return len >= LARGE_PAGE_SIZE ? LARGE_PAGE_SIZE : PAGE_SIZE;
}

static bool user_range(vaddr_t start, uint64_t len)
{
	return start >= USER_NULL_GUARD && len <= USER_TOP && start <= USER_TOP - len;
}

/* MAP_POPULATE: fault a new mapping in at once, as Linux's mm_populate:
 * by writes where it is private and writable (its own pages now), else by
 * reads; PROT_NONE not at all. A page that cannot be had (no memory, past
 * the file's end) is not mmap's failure: it faults later, as on Linux. */
static void populate_new(struct addrspace *as, const struct vma *v)
{
	if (!(v->prot & VM_ACCESS))
		return;
	bool cow = (v->prot & VM_WRITE) && !(v->flags & VM_SHARED);
	(void)as_populate(as, v->start, v->end, cow ? FAULT_WRITE : 0);
}

int as_mmap(struct addrspace *as, vaddr_t addr, uint64_t len, unsigned prot,
	    unsigned flags, struct vmobject *file, uint64_t off, vaddr_t *out)
{
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len)
		return -EINVAL;
	if (!file && !may_commit(len))
		return -ENOMEM;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	if (fixed && !user_range(addr, len))
		return -ENOMEM;
	if ((flags & MAP_FIXED_NOREPLACE) && vma_overlaps(as, addr, addr + len))
		return -EEXIST;
	if (!fixed && !(addr && user_range(addr, len) && !vma_overlaps(as, addr, addr + len))) {
		addr = vma_find_gap(as, len, USER_MMAP_TOP, gap_align(len));
		if (!addr)
			return -ENOMEM;
	}
	bool shared = flags & MAP_SHARED, is_file = file && file->kind == VMOBJ_FILE;
	if (shared && !file)
		return -EINVAL;   /* shared anonymous memory comes with its object */
	unsigned vflags = (shared ? VM_SHARED : 0) | (is_file ? VM_FILE : VM_ANON) |
			  (shared && is_file ? prot & VM_MAYWRITE : 0);
	prot &= VM_ACCESS;
	struct vma *v = vma_new(addr, addr + len, prot, vflags, file, file ? off : addr);
	if (!v)
		return -ENOMEM;
	if (fixed && unmap_range(as, addr, addr + len) < 0) {
		vma_free(v);
		return -ENOMEM;
	}
	vma_insert(as, v);
	if (flags & MAP_POPULATE)
		populate_new(as, v);
	*out = addr;
	return 0;
}

vaddr_t as_find_gap(struct addrspace *as, uint64_t len, uint64_t align)
{
	return vma_find_gap(as, len, USER_MMAP_TOP, align);
}

int as_munmap(struct addrspace *as, vaddr_t addr, uint64_t len)
{
	if (addr > USER_TOP || len > USER_TOP - addr)
		return -EINVAL;   /* below the null guard is fine: nothing is there */
	return unmap_range(as, addr, addr + len);
}

/* The protection mprotect gives v's entries: its own, less VM_WRITE for a
 * shared mapping whose object wants each first store (notify_write): those
 * entries stay read-only, and a store dirties the page through
 * fault_mkwrite before it becomes writable. */
static unsigned entry_prot(const struct vma *v)
{
	bool notify = (v->flags & VM_SHARED) && v->obj && v->obj->notify_write;
	return notify ? vm_prot_nowrite(v->prot) : v->prot;
}

int as_mprotect(struct addrspace *as, vaddr_t addr, uint64_t len, unsigned prot)
{
	vaddr_t end = addr + len;
	if (!user_range(addr, len) || !vma_covers(as, addr, end))
		return -ENOMEM;
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next)
		if (v->end > addr && (v->flags & VM_SHARED) && (v->flags & VM_FILE) &&
		    (prot & VM_WRITE) && !(v->flags & VM_MAYWRITE))
			return -EACCES;   /* the file is not open for writing */
	int r = pgt_unshare(as->pgt, addr, end, 0);   /* all or nothing: first */
	if (r == 0)
		r = vma_isolate(as, addr, end);
	if (r < 0)
		return r;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next)
		if (v->start >= addr) {
			v->prot = prot;
			pgt_protect(&b, v->start, v->end, entry_prot(v), 0);
		}
	tlb_end(&b);
	vma_merge(as);
	return 0;
}

/* brk moves the end of the heap: growing adds a VMA [old end, new end) that
 * vma_merge joins to the heap below it; shrinking unmaps the tail. */
vaddr_t as_brk(struct addrspace *as, vaddr_t newbrk)
{
	if (newbrk < as->heap_start || newbrk >= USER_MMAP_TOP)
		return as->brk;
	vaddr_t old_end = ALIGN_UP(as->brk, PAGE_SIZE), new_end = ALIGN_UP(newbrk, PAGE_SIZE);
	if (new_end > old_end) {
		if (!may_commit(new_end - as->heap_start) || vma_overlaps(as, old_end, new_end))
			return as->brk;
		struct vma *v = vma_new(old_end, new_end, VM_READ | VM_WRITE,
					VM_ANON | VM_HEAP, NULL, old_end);
		if (!v)
			return as->brk;
		vma_insert(as, v);
		vma_merge(as);
	} else if (new_end < old_end && unmap_range(as, new_end, old_end) < 0) {
		return as->brk;
	}
	as->brk = newbrk;
	return newbrk;
}

static pte_t verb_mkwritten(pte_t e, const void *arg)
{
	(void)arg;
	return pte_set(e, PTE_A | PTE_D);
}

/* The frame at user address va of as, its 4 KiB entry marked Accessed and
 * Dirty as the MMU's own store would mark it (reclaim and write-back read
 * D): 0, or -EFAULT if va is not mapped writable (any more). */
static int mark_written(struct addrspace *as, vaddr_t va, paddr_t *pa)
{
	pte_t *ep;
	if (pgt_walk(as->pgt, va, PGL_PT, 0, &ep) != PGL_PT)
		return -EFAULT;
	struct spinlock *l = pt_lock(ptpage_of(ep));
	spin_lock(l);
	pte_t e = pte_read(ep);
	bool ok = pte_present(e) && pte_writable(e);
	if (ok) {
		pt_modify_leaf(as->pgt, va, ep, verb_mkwritten, NULL);
		*pa = pte_addr(e) + va % PAGE_SIZE;
	}
	spin_unlock(l);
	return ok ? 0 : -EFAULT;
}

int as_write(struct addrspace *as, vaddr_t va, const void *src, uint64_t len)
{
	while (len) {
		uint64_t in = va % PAGE_SIZE, n = MIN(len, PAGE_SIZE - in);
		paddr_t pa = 0;
		int r = fault_errno(as_fault(as, va, FAULT_WRITE));
		r = r ?: mark_written(as, va, &pa);
		if (r < 0)
			return r;
		memcpy(P2V(pa), src, n);
		va += n;
		src = (const char *)src + n;
		len -= n;
	}
	return 0;
}

/* ---- mremap ---------------------------------------------------------- */

/* The page-table protection (VM_ bits) for the frame of entry e moved into VMA v: v's own,
 * private entries copy-on-write (the first write of an exclusive page just
 * makes it writable again, fault_cow), file frames marked as such. */
static unsigned moved_prot(const struct vma *v, pte_t e)
{
	unsigned prot = v->prot & VM_ACCESS;
	prot |= v->flags & VM_SHARED ? VM_SHARED : VM_COW;
	return prot | (pte_file(e) ? VM_FILE : 0);
}

/* Map at [to, to + len) every frame present at [from, from + len), with one
 * more reference each, and every swap entry there (one more on its slot);
 * the caller then unmaps the old range, dropping the old ones. v is the VMA of the old range. 0, or -ENOMEM with the new
 * range unmapped again. */
static int move_frames(struct addrspace *as, const struct vma *v, vaddr_t from, vaddr_t to,
		       uint64_t len)
{
	for (uint64_t off = 0; off < len; off += PAGE_SIZE) {
		paddr_t pa;
		pte_t e;
		int m = pgt_lookup_at(as->pgt, from + off, 0, &pa, &e);
		if (m == PGT_SWAPPED && pgt_map_swap(as->pgt, to + off, e) < 0) {
			as_unmap_pages(as, to, to + off, 0);
			return -ENOMEM;
		}
		if (m != PGT_MAPPED)
			continue;
		struct page *pg = pa_to_page(pa);
		if (pg)
			page_get(pg);
		if (pgt_map(as->pgt, to + off, ALIGN_DOWN(pa, PAGE_SIZE), PAGE_SIZE,
			    moved_prot(v, e)) < 0) {
			if (pg)
				page_put(pg);
			as_unmap_pages(as, to, to + off, 0);   /* just mapped: private */
			return -ENOMEM;
		}
	}
	return 0;
}

/* Move the VMA [old, old + old_len) (one whole VMA, isolated) to a free
 * range at to of new_len bytes (new_len >= old_len); MREMAP_DONTUNMAP keeps
 * the old VMA, emptied. 0, or -ENOMEM with nothing moved: what can fail
 * (the new VMA, unsharing the old range's PT pages, mapping at to) comes
 * before the old range is unmapped, which then cannot fail. */
static int move_vma(struct addrspace *as, struct vma *v, vaddr_t to, uint64_t new_len,
		    unsigned flags)
{
	uint64_t old_len = v->end - v->start;
	struct vma *n = vma_new(to, to + new_len, v->prot, v->flags, v->obj, v->obj_off);
	if (!n)
		return -ENOMEM;
	n->anon = v->anon;   /* obj_off kept: the pages' indices still name them */
	if (pgt_unshare(as->pgt, v->start, v->end, PGT_KEEP_WHOLE) < 0 ||
	    move_frames(as, v, v->start, to, old_len) < 0) {
		vma_free(n);
		return -ENOMEM;
	}
	vaddr_t old = v->start;
	if (!(flags & MREMAP_DONTUNMAP))
		vma_delete(as, v);
	as_unmap_pages(as, old, old + old_len, 0);   /* cannot fail: unshared above */
	vma_insert(as, n);
	vma_merge(as);
	return 0;
}

/* Grow VMA v (ending at the old range's end) in place by delta bytes if
 * the addresses after it are free. */
static bool grow_in_place(struct addrspace *as, struct vma *v, uint64_t delta)
{
	if (!user_range(v->end, delta) || vma_overlaps(as, v->end, v->end + delta))
		return false;
	v->end += delta;
	vma_merge(as);
	return true;
}

/* Where a moved mapping of len bytes goes: to (MREMAP_FIXED, emptied
 * first) or a free gap. 0 when there is none. */
static vaddr_t move_target(struct addrspace *as, uint64_t len, unsigned flags, vaddr_t to)
{
	if (flags & MREMAP_FIXED)
		return unmap_range(as, to, to + len) < 0 ? 0 : to;
	return vma_find_gap(as, len, USER_MMAP_TOP, gap_align(len));
}

/* The checks of Linux's mremap that need the VMAs: the old range must lie
 * in one VMA (-EFAULT); FIXED targets must be user addresses that do not
 * overlap it (-EINVAL). */
static int mremap_check(struct addrspace *as, vaddr_t old, uint64_t old_len, uint64_t new_len,
			unsigned flags, vaddr_t to, struct vma **vp)
{
	struct vma *v = as_find_vma(as, old);
	if (!v || old_len > v->end - old)
		return -EFAULT;
	if (flags & MREMAP_FIXED) {
		if (to % PAGE_SIZE || !user_range(to, new_len))
			return -EINVAL;
		if (to < old + old_len && old < to + new_len)
			return -EINVAL;
	}
	if (!v->obj && !may_commit(new_len))
		return -ENOMEM;
	*vp = v;
	return 0;
}

int as_mremap(struct addrspace *as, vaddr_t old, uint64_t old_len, uint64_t new_len,
	      unsigned flags, vaddr_t to, vaddr_t *out)
{
	struct vma *v;
	int r = mremap_check(as, old, old_len, new_len, flags, to, &v);
	if (r < 0)
		return r;
	if (new_len < old_len) {             /* shrink: drop the tail */
		r = unmap_range(as, old + new_len, old + old_len);
		old_len = new_len;
	}
	if (r == 0 && !(flags & MREMAP_FIXED) &&
	    (new_len == old_len || (old + old_len == v->end && grow_in_place(as, v, new_len - old_len)))) {
		*out = old;
		return 0;
	}
	if (r < 0 || !(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	vaddr_t target = move_target(as, new_len, flags, to);
	if (!target || vma_isolate(as, old, old + old_len) < 0)
		return -ENOMEM;
	r = move_vma(as, as_find_vma(as, old), target, new_len, flags);
	if (r == 0)
		*out = target;
	return r;
}

/* ---- mincore --------------------------------------------------------- */

/* Is page va of VMA v resident: mapped, or (objects) in the object. */
static uint8_t page_resident(struct addrspace *as, const struct vma *v, vaddr_t va)
{
	if (pgt_lookup(as->pgt, va, NULL, NULL))
		return 1;
	return v->obj && v->obj->ops->resident(v->obj, (v->obj_off + (va - v->start)) / PAGE_SIZE);
}

int as_mincore(struct addrspace *as, vaddr_t start, uint64_t npages, uint8_t *vec)
{
	for (uint64_t i = 0; i < npages; i++) {
		vaddr_t va = start + i * PAGE_SIZE;
		struct vma *v = as_find_vma(as, va);
		if (!v)
			return -ENOMEM;
		vec[i] = page_resident(as, v, va);
	}
	return 0;
}
