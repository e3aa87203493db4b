/* mm/fault.c -- resolving page faults inside VMAs.
 *
 *   not present, anonymous, write  -> a zeroed frame (demand-zero)
 *   not present, private anonymous, read
 *                                  -> the shared zero page, read-only + COW
 *   not present, VMA with an object (file, shared anonymous: mm/vmobject.h)
 *                                  -> the object's frame (read-only and COW
 *                                     in a private mapping); a write to a
 *                                     private mapping takes a private copy;
 *                                     past the object's end: -EIO (SIGBUS)
 *                                     (also a failed read, and -ENOSPC of a
 *                                     store with no room on the disk, or
 *                                     to a file that is a swap area)
 *   a swap entry                   -> the page back from the swap cache or
 *                                     the area (mm/swap.h), copy-on-write;
 *                                     -EIO if the area cannot read it
 *   present, COW, write            -> copy the frame (or, if this mapping
 *                                     holds the only reference, just make
 *                                     it writable again)
 *   present, read-only, write, shared mapping of a file with a store
 *                                  -> the page dirtied (page_mkwrite),
 *                                     then the entry made writable
 * An object's page is mapped (or made writable) only if no walk of the
 * reverse map (a truncation's unmap, a write-back's write-protect:
 * mm/rmap.h) began since the fault took it (struct map_guard): else the
 * access is retried, and finds the object's new end or marks the page
 * dirty again.
 * Anything else is a bad address or access (enum fault_result), and the
 * kernel signals the process (user mode) or the system call fails with
 * -EFAULT (copyin/copyout).
 */
#include "mm/as.h"
#include "mm/fault.h"
#include "mm/reclaim.h"
#include "mm/frame/page.h"
#include "mm/pt/tlb.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/ptpage.h"
#include "mm/ptshare.h"
#include "mm/vmobject.h"
#include "mm/anon_rmap.h"
#include "mm/swap.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"

static struct fault_stats cpu_fault_stats[MAX_CPUS];   /* by this_cpu()->id */

/* One more of `field` on this CPU: its own line, read by fault_stats_sum
 * on any CPU (a relaxed store: never torn). A fault does not move to
 * another CPU between finding its slot and counting (no preemption). */
#define fault_add(field, n) do {                                             \
		uint64_t *c_ = &cpu_fault_stats[this_cpu()->id].field;         \
		__atomic_store_n(c_, *c_ + (n), __ATOMIC_RELAXED);             \
	} while (0)
#define fault_count(field) fault_add(field, 1)

/* The shared zero page: what a read of untouched private anonymous memory
 * maps, so that reading costs no frame; the first write copies (COW). Typed
 * PG_FILE: it belongs to no process and holds a reference of its own
 * forever (the checker's "+1 for its file"), so it is never freed, never
 * reused in place by fault_cow, and never marked lazy-free. */
static struct page *zero_page;

void fault_init(void)
{
	zero_page = page_alloc(0, PA_FILE | PA_ZERO);
	if (!zero_page)
		panic("fault_init: no frame for the zero page");
	zero_frame_pa = page_to_pa(zero_page);
}

/* The page-table protection (VM_ bits) of a VMA's pages. */
static unsigned vma_pgt_prot(const struct vma *v)
{
	return (v->prot & VM_ACCESS) |
	       (v->flags & VM_SHARED ? VM_SHARED : 0);
}

/* A new anonymous frame holding a copy of src (or zeros). */
static struct page *new_anon_frame(const struct page *src)
{
	uint64_t t0 = phase_begin();
	struct page *pg = page_alloc(0, PA_ANON | (src ? 0 : PA_ZERO));
	phase_end(PH_FAULT_ALLOC, t0);
	if (pg && src)
		page_copy(pg, src);
	return pg;
}

/* The index in v's object of page va of v. */
static uint64_t object_index(const struct vma *v, vaddr_t va)
{
	return (v->obj_off + (va - v->start)) / PAGE_SIZE;
}

/* The protection of an object's frame mapped in v for an access (write or
 * not): read-only and COW in a private mapping (even while the VMA is
 * read-only: mprotect may add VM_WRITE later, and the write must then
 * copy, not reach the object); in a shared mapping of an object that wants
 * to know of stores (notify_write), read-only until the first store
 * (fault_mkwrite). */
static unsigned object_prot(const struct vma *v, bool write)
{
	unsigned prot = vma_pgt_prot(v) | VM_FILE;
	if (!(v->flags & VM_SHARED))
		return prot | VM_COW;
	return v->obj->notify_write && !write ? vm_prot_nowrite(prot) : prot;
}

/* The frame for page va of v from its object, into *pg, with *prot set:
 * the object's own frame (object_prot), or a private copy for a write to
 * a private mapping. 0, 1 (the page was read from the object's store: a
 * major fault), -ENOMEM, -EIO, or -EAGAIN (the page left the object
 * meanwhile: retry). */
static int object_page(struct vma *v, vaddr_t va, bool write, struct page **pg,
		       unsigned *prot)
{
	struct page *fp;
	enum vmobject_ra ra = v->flags & VM_RAND_READ ? VMOBJ_RA_RANDOM :
			      v->flags & VM_SEQ_READ ? VMOBJ_RA_SEQUENTIAL : VMOBJ_RA_NORMAL;
	int major = v->obj->ops->get_page(v->obj, object_index(v, va), ra, &fp);
	if (major < 0)
		return major;
	fault_count(file);
	int r;
	if (write && !(v->flags & VM_SHARED)) {
		*pg = anon_vma_prepare(v) < 0 ? NULL : new_anon_frame(fp);   /* private copy right away */
		page_put(fp);
		*prot = vma_pgt_prot(v);
		if (*pg)
			anon_page_add(*pg, v, va, swap_new_page_list());
		return *pg ? major : -ENOMEM;
	}
	if (write && v->obj->notify_write && (r = v->obj->ops->page_mkwrite(v->obj, fp)) < 0) {
		page_put(fp);
		return r;
	}
	*pg = fp;
	*prot = object_prot(v, write);
	return major;
}

/* A read fault of an object's page maps the neighbours that are ready in
 * memory too (Linux's fault-around, 64 KiB): reading a cached file
 * through a mapping takes one fault per 16 pages, not one per page. The
 * window is aligned to its size, so it lies inside one PT page; it is
 * clipped to the VMA. The pages are mapped as a read fault maps them
 * (object_prot: a store still faults), with their Accessed bits clear, so
 * reclaim sees which of them were used. */
#define FAULT_AROUND_PAGES 16

/* Map the ready pages of v's object in va's window (va's own too, if
 * ready), if guard g holds: true when va's page is mapped now; false
 * leaves it to the fault (nothing here fails a fault). */
static bool fault_around(struct addrspace *as, struct vma *v, vaddr_t va,
			 const struct map_guard *g)
{
	vaddr_t base = ALIGN_DOWN(va, FAULT_AROUND_PAGES * PAGE_SIZE);
	vaddr_t lo = MAX(base, v->start), hi = MIN(base + FAULT_AROUND_PAGES * PAGE_SIZE, v->end);
	unsigned n = (unsigned)((hi - lo) / PAGE_SIZE), self = (unsigned)((va - lo) / PAGE_SIZE);
	struct page *pg[FAULT_AROUND_PAGES];
	paddr_t pa[FAULT_AROUND_PAGES];
	uint32_t mapped = 0;
	if (!v->obj->ops->get_ready || !v->obj->ops->get_ready(v->obj, object_index(v, lo), n, pg))
		return false;
	for (unsigned i = 0; i < n; i++)
		pa[i] = pg[i] ? page_to_pa(pg[i]) : 0;
	(void)pgt_map_run(as->pgt, lo, n, pa, object_prot(v, false), g, &mapped);
	unsigned count = 0;
	for (unsigned i = 0; i < n; i++) {
		if (mapped & (1u << i))
			count++;
		else if (pg[i])
			page_put(pg[i]);
	}
	bool mine = mapped & (1u << self);
	fault_add(around, count - mine);
	if (mine)
		fault_count(file);
	return mine;
}

/* Map frame pg (the caller's reference) at va with prot, if guard g
 * (NULL: none) holds: 0, -ENOMEM, -EEXIST when another CPU mapped the page
 * first, -EAGAIN when g failed; on failure the reference is dropped. */
static int map_frame(struct addrspace *as, vaddr_t va, struct page *pg, unsigned prot,
		     const struct map_guard *g)
{
	uint64_t t0 = phase_begin();
	int r = pgt_map_fault(as->pgt, va, page_to_pa(pg), prot, g);
	phase_end(PH_FAULT_MAP, t0);
	if (r < 0)
		page_put(pg);
	return r;
}

/* The absent page va of private anonymous v, mapped for the access: a
 * new zeroed frame for a write, the shared zero page (read-only, COW) for
 * a read. 0, -ENOMEM, or -EEXIST when the page is mapped already. */
static int anon_map_absent(struct addrspace *as, struct vma *v, vaddr_t va, bool write)
{
	if (!write && zero_page) {
		page_get(zero_page);
		fault_count(zero_page);
		return map_frame(as, va, zero_page, vma_pgt_prot(v) | VM_FILE | VM_COW, NULL);
	}
	struct page *pg = anon_vma_prepare(v) < 0 ? NULL : new_anon_frame(NULL);
	if (!pg)
		return -ENOMEM;
	fault_count(zero);
	anon_page_add(pg, v, va, swap_new_page_list());
	return map_frame(as, va, pg, vma_pgt_prot(v), NULL);
}

/* Map a missing page of v at va: 0, 1 when the page was read from its
 * object's store (a major fault), or -errno. */
static int fault_in(struct addrspace *as, struct vma *v, vaddr_t va, bool write)
{
	unsigned prot;
	struct page *pg;
	int r, major = 0;

	if (!v->obj) {
		r = anon_map_absent(as, v, va, write);
	} else {   /* the count before the page (and its page_mkwrite): fault_mkwrite's reason */
		struct map_guard g = { &v->obj->rmap_seq,
				       __atomic_load_n(&v->obj->rmap_seq, __ATOMIC_SEQ_CST) };
		if (!write && fault_around(as, v, va, &g))
			r = 0;
		else if ((r = major = object_page(v, va, write, &pg, &prot)) >= 0)
			r = map_frame(as, va, pg, prot, &g);
	}
	if (major > 0)
		fault_count(major);
	/* another CPU mapped it first, or the page left the object: retry the access */
	return r == -EEXIST || r == -EAGAIN ? 0 : r < 0 ? r : major;
}

/* Write fault on a present copy-on-write page. */
static int fault_cow(struct addrspace *as, struct vma *v, vaddr_t va, paddr_t pa, pte_t e)
{
	struct page *old = pa_to_page(pa), *copy;
	if (!old)
		return -EFAULT;   /* a COW entry maps a frame of the database: a bug */
	fault_count(cow);
	if (page_in_swap_cache(old))   /* its slot named by no entry: not needed */
		swap_cache_drop_unnamed(old);
	/* The last sharer keeps its frame: the entry's reference stays (no
	 * second one, which pv=checked would see on a writable entry). No
	 * second mapping can come while the entry is unchanged: fork takes
	 * the address space for writing, and the PT page is private. The
	 * reclaimer's hold may come meanwhile (page_hold): no mapping, and
	 * the checkers leave it out. */
	bool reuse = atomic_load(&old->refcount) == 1 && old->type == PG_ANON && !pte_file(e);
	if (reuse)
		fault_count(cow_reuse);
	copy = reuse ? old : anon_vma_prepare(v) < 0 ? NULL :
	       new_anon_frame(old == zero_page ? NULL : old);
	if (!copy)
		return -ENOMEM;
	if (!reuse)
		anon_page_add(copy, v, va, swap_new_page_list());
	struct tlb_batch b;                       /* allocated first: then the batch */
	tlb_begin(&b, as->pgt);
	int r = pgt_replace(&b, va, pte_make(pa, e), page_to_pa(copy), vma_pgt_prot(v), NULL);
	tlb_end(&b);
	if (r == -EAGAIN && !reuse)   /* another thread's fault changed the entry first */
		page_put(copy);
	return 0;                     /* either way: retry the access */
}

/* Write fault on a present read-only page of a shared mapping whose object
 * wants to know of stores (notify_write: a file with a store): the object
 * marks the page dirty first, then the entry becomes writable in place
 * (the same frame: its reference stays the entry's) -- unless a walk of
 * the reverse map began meanwhile (the guard): a write-back that
 * write-protects the page may have passed this entry before it became
 * writable, so the access is retried and marks the page again. */
static int fault_mkwrite(struct addrspace *as, struct vma *v, vaddr_t va, paddr_t pa, pte_t e)
{
	struct page *pg = pa_to_page(pa);
	if (!pg)
		return -EFAULT;   /* a file mapping's entry maps a frame of the database: a bug */
	fault_count(mkwrite);
	struct map_guard g = { &v->obj->rmap_seq,
			       __atomic_load_n(&v->obj->rmap_seq, __ATOMIC_SEQ_CST) };
	int r = v->obj->ops->page_mkwrite(v->obj, pg);
	if (r < 0)   /* truncated meanwhile: retry the access, which finds the new end */
		return r == -EAGAIN ? 0 : r;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	(void)pgt_replace(&b, va, pte_make(pa, e), pa, vma_pgt_prot(v) | VM_FILE, &g);
	tlb_end(&b);
	return 0;   /* -EAGAIN above: the entry changed, or a walk began; retry the access */
}

/* No entry maps va: a read of a library's text attaches (or builds and
 * publishes) the shared PT page of its chunk; anything else maps the page. */
static int fault_absent(struct addrspace *as, struct vma *v, vaddr_t va, bool write)
{
	if (!write && ptshare_text_fault(as, v, va) && pgt_lookup(as->pgt, va, NULL, NULL))
		return 0;
	return fault_in(as, v, va, write);
}

/* The page at va went out to swap (swap entry e): back in (mm/swap.h). */
static int fault_swap(struct addrspace *as, struct vma *v, vaddr_t va, pte_t e)
{
	int r = swap_in(as, v, va, e);
	fault_count(swapin);
	if (r > 0)
		fault_count(major);
	return r;
}

/* Map or fix page va of v (v allows the access): one descent to the entry
 * (unsharing on the way for a write), then by the entry's state -- absent
 * (fault_absent), PROT_NONE under an accessible VMA (a bug), copy-on-write
 * and written (fault_cow), fine already (spurious). 0, 1 (a major fault:
 * fault_in), -ENOMEM, -EIO (past the object's end, or its store failed),
 * -ENOSPC (no room on the store for a page a store dirties) or -EFAULT (the entry
 * and the VMA disagree: a bug). */
static int resolve(struct addrspace *as, struct vma *v, vaddr_t va, unsigned flags)
{
	bool write = flags & FAULT_WRITE;
	/* The common first touch of private anonymous memory, the entry absent
	 * when the CPU looked: a new frame (write) or the zero page (read),
	 * then one map walk (which unshares a shared PT page on the way down,
	 * as every write walk does). Found mapped meanwhile (-EEXIST): the
	 * entry found is decided on below, as without the hint (a PROT_NONE
	 * leaf, not present to the CPU either, must not be retried blindly). */
	if ((flags & FAULT_ABSENT) && !v->obj) {
		int r = anon_map_absent(as, v, va, write);
		if (r != -EEXIST)
			return r;   /* else decide on the entry found, as below */
	}
	/* A shared PT page must become ours BEFORE anything is decided about the
	 * page: unsharing takes a reference on every frame it maps, so a COW
	 * "am I the last user?" test made earlier would be stale, and the page
	 * would be made writable while another PT page still maps it. A write
	 * fault therefore looks up with pgt_lookup_write: one walk that unshares
	 * the PT page on the way down (only when its PD entry is write-protected,
	 * which every shared PT page's is) and then reads the entry it left. A
	 * private PT page costs no extra walk. */
	paddr_t pa;
	pte_t e;
	uint64_t t0 = phase_begin();
	int mapped = pgt_lookup_at(as->pgt, va, write ? PGT_WALK_UNSHARE : 0, &pa, &e);
	phase_end(PH_FAULT_WALK, t0);
	if (mapped < 0)
		return mapped;
	if (mapped == PGT_SWAPPED)
		return fault_swap(as, v, va, e);
	if (!mapped)
		return fault_absent(as, v, va, write);
	if (!pte_present(e))
		return -EFAULT;   /* a PROT_NONE entry under an accessible VMA: a bug */
	if (write && pte_cow(e)) {
		t0 = phase_begin();
		int r = fault_cow(as, v, va, ALIGN_DOWN(pa, PAGE_SIZE), e);
		phase_end(PH_FAULT_COW, t0);
		return r;
	}
	if (write && !pte_writable(e) && (v->flags & VM_SHARED) && v->obj && v->obj->notify_write)
		return fault_mkwrite(as, v, va, ALIGN_DOWN(pa, PAGE_SIZE), e);
	if (write && !pte_writable(e))
		return -EFAULT;   /* VMA allows it but the entry does not: a bug */
	fault_count(spurious);
	return 0;   /* already fine (another path resolved it, stale TLB) */
}

/* Does v allow an access of kind flags? */
static bool vma_allows(const struct vma *v, unsigned flags)
{
	return v->prot != VM_NONE &&
	       (!(flags & FAULT_WRITE) || (v->prot & VM_WRITE)) &&
	       (!(flags & FAULT_EXEC) || (v->prot & VM_EXEC));
}

/* as_fault without its timing. */
static enum fault_result fault_decide(struct addrspace *as, vaddr_t va, unsigned flags)
{
	uint64_t t0 = phase_begin();
	struct vma *v = as_find_vma(as, va);
	phase_end(PH_FAULT_VMA, t0);
	if (!v)
		return FAULT_BAD_ADDRESS;
	if (!vma_allows(v, flags))
		return FAULT_BAD_ACCESS;
	int r = resolve(as, v, ALIGN_DOWN(va, PAGE_SIZE), flags);
	return r == 0 ? FAULT_HANDLED : r > 0 ? FAULT_HANDLED_MAJOR : r == -ENOMEM ? FAULT_OOM :
	       r == -EIO || r == -ENOSPC || r == -ETXTBSY ? FAULT_SIGBUS : FAULT_BAD_ACCESS;
}

/* Attempts of one fault when allocations fail and direct reclaim freed
 * something each time (another CPU may take the frames first). */
#define FAULT_RECLAIM_TRIES 4

enum fault_result as_fault(struct addrspace *as, vaddr_t va, unsigned flags)
{
	uint64_t t0 = phase_begin();
	enum fault_result r = fault_decide(as, va, flags);
	for (int i = 0; r == FAULT_OOM && i < FAULT_RECLAIM_TRIES && reclaim_direct(); i++)
		r = fault_decide(as, va, flags);   /* nothing held between attempts */
	phase_end(PH_FAULT, t0);
	if (phasetime_on) {
		enum phase after = phasetime_fault_kind(as);
		if (after != PH_COUNT)
			phase_end(after, t0);
	}
	return r;
}

int fault_errno(enum fault_result r)
{
	return r == FAULT_HANDLED || r == FAULT_HANDLED_MAJOR ? 0 : r == FAULT_OOM ? -ENOMEM : -EFAULT;
}

void fault_count_oom_kill(void)
{
	fault_count(oom_kills);
}

/* as_fill of [start, end) clipped to VMA v. */
static int fill_vma(struct addrspace *as, struct vma *v, vaddr_t start, vaddr_t end)
{
	if (!(v->prot & VM_READ))
		return -EFAULT;
	int r = 0;
	for (vaddr_t va = MAX(v->start, start); va < MIN(v->end, end) && r == 0; va += PAGE_SIZE)
		if (!pgt_lookup(as->pgt, va, NULL, NULL) && (r = fault_in(as, v, va, false)) > 0)
			r = 0;   /* read from the store: fine too */
	return r;
}

int as_fill(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	int r = 0;
	for (struct vma *v = as->vmas; v && v->start < end && r == 0; v = v->next)
		if (v->end > start)
			r = fill_vma(as, v, start, end);
	return r;
}

int as_populate(struct addrspace *as, vaddr_t start, vaddr_t end, unsigned flags)
{
	for (vaddr_t va = start; va < end; va += PAGE_SIZE) {
		int r = fault_errno(as_fault(as, va, flags));
		if (r < 0)
			return r;
	}
	return 0;
}

struct fault_stats fault_stats_sum(void)
{
	enum { N = sizeof(struct fault_stats) / sizeof(uint64_t) };   /* every field a count */
	struct fault_stats t = { 0 };
	uint64_t *sum = (uint64_t *)&t;
	for (int i = 0; i < MAX_CPUS; i++)
		for (int f = 0; f < N; f++)
			sum[f] += __atomic_load_n((const uint64_t *)&cpu_fault_stats[i] + f,
						  __ATOMIC_RELAXED);
	return t;
}

uint64_t fault_stats_total(void)
{
	struct fault_stats t = fault_stats_sum();
	return t.zero + t.zero_page + t.file + t.cow + t.mkwrite + t.swapin;
}
