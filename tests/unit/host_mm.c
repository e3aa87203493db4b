/* tests/unit/host_mm.c -- the host environment for mm/ unit tests. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "mm/pt/kvm.h"
#include "mm/frame/lru.h"
#include "mm/vma.h"
#include "mm/vmobject.h"
#include "mm/pt/share.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/tlb.h"
#include "mm/ptshare.h"
#include "mm/pt/ptpage.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/smp.h"
#include "lib/printk.h"

uintptr_t host_physmem_base;
static void *physmem;
struct host_pv_log host_pv;

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "PANIC: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ---- the recording pv backend ------------------------------------------- */

static uint64_t h_read_cr3(void) { return host_pv.cr3; }
static void h_write_cr3(uint64_t v) { host_pv.cr3 = v; host_pv.cr3_writes++; }
static uint64_t h_read_cr2(void) { return 0; }
static void h_flush_one(vaddr_t va) { host_pv.flush_one++; host_pv.last_flush = va; }
static void h_flush_all(void) { host_pv.flush_all++; }
static void h_flush_user(void) { host_pv.flush_user++; }
static void h_set(pte_t *ep, pte_t e) { *ep = e; host_pv.entry_writes++; }
static pte_t h_xchg(pte_t *ep, pte_t e)
{
	host_pv.entry_writes++;
	return __atomic_exchange_n(ep, e, __ATOMIC_SEQ_CST);
}
static pte_t h_cmpxchg(pte_t *ep, pte_t old, pte_t e)
{
	host_pv.entry_writes++;
	__atomic_compare_exchange_n(ep, &old, e, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}
static void h_alloc_pt(paddr_t pa, int level) { (void)pa, (void)level; host_pv.alloc_pt++; }
static void h_release_pt(paddr_t pa, int level) { (void)pa, (void)level; host_pv.release_pt++; }
static void h_lazy_enter(void)
{
	if (host_pv.lazy_depth++)
		panic("host pv: lazy-MMU mode entered twice (it does not nest)");
}
static void h_lazy_leave(void) { host_pv.lazy_depth--; }
static void h_lazy_flush(void) { }

/* The simulated CPUs' interrupt flag: the spinlocks turn it off and on. */
static uint64_t host_rflags = RFLAGS_IF;
static uint64_t h_save_fl(void) { return host_rflags; }
static void h_restore_fl(uint64_t f) { host_rflags = f; }
static void h_irq_disable(void) { host_rflags &= ~(uint64_t)RFLAGS_IF; }
static void h_irq_enable(void) { host_rflags |= RFLAGS_IF; }

struct pv_ops pv_ops = {
	.name = "host",
	.irq = {
		.save_fl = h_save_fl, .restore_fl = h_restore_fl,
		.irq_disable = h_irq_disable, .irq_enable = h_irq_enable,
	},
	.mmu = {
		.read_cr3 = h_read_cr3, .write_cr3 = h_write_cr3, .read_cr2 = h_read_cr2,
		.flush_one = h_flush_one, .flush_all = h_flush_all,
		.flush_user = h_flush_user,
		.set_pte = h_set, .set_pde = h_set, .set_pdpte = h_set, .set_pml4e = h_set,
		.xchg_pte = h_xchg, .cmpxchg_pte = h_cmpxchg,
		.alloc_pt = h_alloc_pt, .release_pt = h_release_pt,
		.lazy_mmu_enter = h_lazy_enter, .lazy_mmu_leave = h_lazy_leave,
		.lazy_mmu_flush = h_lazy_flush,
	},
};

/* ---- simulated machine -------------------------------------------------- */

struct cpu cpus[MAX_CPUS];
int ncpus = MAX_CPUS;
struct cpu *host_cpu = &cpus[0];

void host_set_cpu(int id)
{
	if (host_cpu->ncli)
		panic("host: switching CPUs with a lock held on CPU %d", host_cpu->id);
	host_cpu = &cpus[id];
}

uint64_t host_free0;

/* kernel_pgt over simulated RAM of `bytes`: direct map and the fake image. */
static void host_kernel_setup(uint64_t bytes)
{
	vaddr_t img = KERNEL_VMA + HOST_IMAGE_PA;
	struct kvm_layout l = {
		.dmap_end = bytes, .page1g = false, .nseg = 3,
		.seg = {
			{ img, img + HOST_IMAGE_SEG, VM_READ | VM_EXEC },
			{ img + HOST_IMAGE_SEG, img + 2 * HOST_IMAGE_SEG, VM_READ },
			{ img + 2 * HOST_IMAGE_SEG, img + 3 * HOST_IMAGE_SEG, VM_READ | VM_WRITE },
		},
	};
	kvm_build(&l);
	pgt_activate(&kernel_pgt);
}

void host_mm_setup(uint64_t bytes, bool with_kernel)
{
	memset(&host_pv, 0, sizeof(host_pv));
	for (int i = 0; i < MAX_CPUS; i++)
		cpus[i] = (struct cpu){ .self = &cpus[i], .id = i };
	host_cpu = &cpus[0];
	frame_cache_on = true;
	if (posix_memalign(&physmem, PAGE_SIZE, bytes))
		abort();
	memset(physmem, 0xcc, bytes);   /* garbage, like real RAM */
	host_physmem_base = (uintptr_t)physmem;
	struct prange ram = { 0, bytes };
	struct prange pin = { HOST_IMAGE_PA, HOST_IMAGE_PA + HOST_IMAGE_LEN };
	enum page_type t = PG_KERNEL;
	page_db_init(&ram, 1, &pin, &t, 1, bytes);
	page_db_release(0, bytes);
	if (with_kernel)
		host_kernel_setup(bytes);
	host_free0 = mm_stats.free;
}

void host_mm_teardown(void)
{
	free(physmem);
	physmem = NULL;
}

uint64_t host_exhaust(struct list *held)
{
	uint64_t n = 0;
	struct page *pg;
	list_init(held);
	while ((pg = page_alloc(0, 0)) != NULL) {
		list_add(held, &pg->link);
		n++;
	}
	return n;
}

void host_release_all(struct list *held)
{
	while (!list_empty(held)) {
		struct page *pg = list_entry(held->next, struct page, link);
		list_del(&pg->link);
		page_free(pg, 0);
	}
}

void host_dirty_free_frames(int c)
{
	struct list held;
	list_init(&held);
	host_exhaust(&held);
	list_for_each(it, &held)
		memset(page_va(list_entry(it, struct page, link)), c, PAGE_SIZE);
	host_release_all(&held);
}

bool host_all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

TCase *host_tcase(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void))
{
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

int host_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

struct page *host_pt_of(struct pagetable *pgt, vaddr_t va)
{
	pte_t *ep;
	ck_assert_int_eq(pgt_walk(pgt, va, PGL_PT, 0, &ep), PGL_PT);
	return ptpage_of(ep);
}

enum page_out_result host_discard(struct pagetable *pgt, vaddr_t va)
{
	paddr_t pa;
	if (!pgt_lookup(pgt, va, &pa, NULL))
		return PAGE_OUT_NOT_MAPPED;
	struct page *pg = pa_to_page(pa);
	ck_assert(page_hold(pg));
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	enum page_out_result r = pgt_page_out(&b, va, pg, PAGE_OUT_DISCARD, 0);
	tlb_end(&b);
	page_let_go(pg);
	return r;
}

int host_unmap(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags)
{
	int r = pgt_unshare(pgt, start, end, PGT_KEEP_WHOLE);
	if (r < 0)
		return r;
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	pgt_unmap(&b, start, end, flags);
	tlb_end(&b);
	pgt_release_stale(pgt);   /* as as_unlock_write does */
	return 0;
}

int host_protect(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned prot,
		 unsigned flags)
{
	int r = pgt_unshare(pgt, start, end, 0);
	if (r < 0)
		return r;
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	r = pgt_protect(&b, start, end, prot, flags);
	tlb_end(&b);
	pgt_release_stale(pgt);   /* as as_unlock_write does */
	return r;
}

int host_fork_copy(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
		   unsigned flags)
{
	int r = pgt_unshare(src, start, end, 0);   /* as fork's unshare_parent */
	if (r < 0)
		return r;
	struct tlb_batch b;
	tlb_begin(&b, src);
	r = pgt_copy(&b, dst, start, end, flags);
	tlb_end(&b);
	pgt_release_stale(src);   /* as as_unlock_write does */
	return r;
}

int host_fork_share(struct pagetable *dst, struct pagetable *src, const struct vma *v)
{
	return host_fork_share_flags(dst, src, v, 0);
}

int host_fork_share_flags(struct pagetable *dst, struct pagetable *src, const struct vma *v,
			  unsigned flags)
{
	flags |= v->flags & VM_SHARED ? PGT_SHARE_MAPSHARED : 0;
	struct tlb_batch b;
	tlb_begin(&b, src);
	int r = pgt_share(&b, dst, v->start, v->end, flags);
	tlb_end(&b);
	pgt_release_stale(src);   /* as as_unlock_write does */
	return r;
}

void host_replace(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot)
{
	paddr_t now;
	pte_t flags;
	ck_assert(pgt_lookup(pgt, va, &now, &flags));
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	ck_assert_int_eq(pgt_replace(&b, va, pte_make(now, flags), pa, prot, NULL), 0);
	tlb_end(&b);
}

/* Host tests publish no program text (mm/ptshare_text.c needs exec and the
 * file system): the checker finds no record to count. */
void ptshare_text_for_each(void (*fn)(struct page *pt, void *arg), void *arg)
{
	(void)fn;
	(void)arg;
}

/* The kernel's clock (arch/x86_64/timer.h), for the page cache's dirty
 * ages and the VFS's times: a fixed instant after boot. */
uint64_t clock_ns(void)
{
	return 1000;
}

void (*host_unmap_hook)(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how);

/* The host has no address spaces, so no object is ever mapped here: the
 * walk would find nothing (a mapping on the list is a harness bug); a
 * test may look at the object, or play the mappings' part (drop the
 * references it holds for them), when the walk would run
 * (host_unmap_hook). */
void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	if (!list_empty(&obj->mappings))
		abort();
	__atomic_add_fetch(&obj->rmap_seq, 1, __ATOMIC_SEQ_CST);
	if (host_unmap_hook)
		host_unmap_hook(obj, first, n, how);
}

void vmobject_wrprotect(struct vmobject *obj, uint64_t first, uint64_t n)
{
	vmobject_unmap(obj, first, n, UNMAP_PUNCH);   /* the same: nothing is mapped */
}
