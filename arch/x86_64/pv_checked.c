/* arch/x86_64/pv_checked.c -- the checking pv backend: pv=checked.
 *
 * Like a hypervisor that validates a guest's page-table updates (Xen's
 * mmu_update), this backend owns every page-table page:
 *
 *   - a page-table page is mapped READ-ONLY in the direct map from the
 *     moment it becomes one (alloc_pt) until it stops being one
 *     (release_pt), so a write that bypasses pv_ops faults, and the fault
 *     is reported naming the code (pv_checked_report_fault);
 *   - every entry write through set_pte/pde/pdpte/pml4e is checked against
 *     the rules registered by the page tables' owner (struct pv_check_ops:
 *     mm/pt/ptwrite_check.c) and a violation panics, naming the entry, the
 *     value and the code that asked for it;
 *   - the backend then writes the entry itself, with CR0.WP briefly clear
 *     (interrupts off) -- its private write access to the read-only pages;
 *   - in lazy-MMU mode the (validated) writes are queued and applied as one
 *     batch at leave/flush, before any TLB flush or CR3 load, and before a
 *     page-table page is released -- like a multicall batch of hypercalls.
 *
 * Everything else is the native backend. This file knows the mechanism,
 * not mm's rules: it includes nothing above arch/.
 */
#include "arch/x86_64/pv_checked.h"
#include "arch/x86_64/pv_native.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "lib/ksyms.h"
#include "lib/printk.h"

#define BATCH_MAX 64   /* queued writes before the batch is applied anyway */

struct queued_write {
	pte_t *ep;
	pte_t e;
};

/* Each CPU's lazy-MMU mode (each may have a TLB batch open, mm/pt/tlb.h). */
struct ck_cpu {
	bool lazy;                 /* inside lazy_mmu_enter .. leave */
	unsigned n;                /* queued writes */
	struct queued_write q[BATCH_MAX];
};

static struct {
	const struct pv_check_ops *rules;   /* registered by mm */
	bool active;               /* pv=checked installed */
	struct ck_cpu cpu[MAX_CPUS];
	uint64_t writes, batches;  /* statistics for the boot log / tests */
} ck;

/* This CPU's queue. */
static struct ck_cpu *me(void)
{
	return &ck.cpu[this_cpu()->id];
}

/* Run op on the read-only entry *ep with the backend's own write access
 * (CR0.WP clear, interrupts off meanwhile). */
#define WITH_WRITE_ACCESS(op) ({                                         \
	uint64_t flags_ = native_read_flags();                           \
	native_irq_disable();                                            \
	uint64_t cr0_ = native_read_cr0();                               \
	native_write_cr0(cr0_ & ~CR0_WP);                                \
	pte_t r_ = (op);                                                 \
	native_write_cr0(cr0_);                                          \
	native_restore_flags(flags_);                                    \
	__atomic_fetch_add(&ck.writes, 1, __ATOMIC_RELAXED);             \
	r_;                                                              \
})

/* Store e into the read-only entry *ep: the backend's own write access. */
static void raw_write(pte_t *ep, pte_t e)
{
	(void)WITH_WRITE_ACCESS((native_set_entry(ep, e), 0));
}

/* Apply this CPU's queued writes in order and empty its queue. */
static void batch_apply(void)
{
	struct ck_cpu *c = me();
	for (unsigned i = 0; i < c->n; i++)
		raw_write(c->q[i].ep, c->q[i].e);
	if (c->n)
		__atomic_fetch_add(&ck.batches, 1, __ATOMIC_RELAXED);
	c->n = 0;
}

/* Map frame pa read-only (a page table) or writable again in the direct map. */
static void dmap_protect(paddr_t pa, bool writable)
{
	pte_t *ep = ck.rules->dmap_entry(pa);
	if (!ep)
		panic("pv=checked: page-table page pa %#lx is not mapped by a 4 KiB "
		      "direct-map page", pa);
	pte_t e = pte_read(ep);
	raw_write(ep, writable ? pte_mkwrite(e) : pte_wrprotect(e));
	native_invlpg((vaddr_t)P2V(pa));
}

/* The function containing code address pc, and pc's offset in it. */
static const char *code_name(const void *pc, uint64_t *off)
{
	const char *fn = ksym_lookup((uint64_t)pc, off);
	return fn ? fn : "?";
}

/* Validate a write of e into *ep (level) asked for by code at caller:
 * panic naming the entry, the value and the code if it breaks a rule. */
static void validate(pte_t *ep, int level, pte_t e, const void *caller)
{
	const char *why = ck.rules->entry_write(ep, level, e);
	struct ck_cpu *c = me();
	for (unsigned i = 0; !why && i < c->n; i++)
		if (c->q[i].ep == ep)
			why = "entry written twice in one lazy-MMU batch (the second write "
			      "read a stale value)";
	if (!why)
		return;
	uint64_t off;
	const char *fn = code_name(caller, &off);
	panic("pv=checked: %s: level-%d entry %p (table pa %#lx) := %#lx, written "
	      "by %s+%#lx", why, level, (void *)ep, V2P(ep) & ~(PAGE_SIZE - 1), e, fn, off);
}

/* The setters: validate, then write now or queue. */
static void checked_set(pte_t *ep, int level, pte_t e, const void *caller)
{
	validate(ep, level, e, caller);
	struct ck_cpu *c = me();
	if (!c->lazy || level != PGL_PT) {
		batch_apply();   /* keep the order of writes */
		raw_write(ep, e);
		return;
	}
	if (c->n == BATCH_MAX)
		batch_apply();
	c->q[c->n++] = (struct queued_write){ ep, e };
}

/* The atomic read-modify-writes: validated like a set, never queued (the
 * caller needs the entry they replaced), after this CPU's queue. */
static pte_t ck_xchg_pte(pte_t *ep, pte_t e)
{
	validate(ep, PGL_PT, e, __builtin_return_address(0));
	batch_apply();
	return WITH_WRITE_ACCESS(native_xchg_entry(ep, e));
}

static pte_t ck_cmpxchg_pte(pte_t *ep, pte_t old, pte_t e)
{
	validate(ep, PGL_PT, e, __builtin_return_address(0));
	batch_apply();
	return WITH_WRITE_ACCESS(native_cmpxchg_entry(ep, old, e));
}

#define CALLER __builtin_return_address(0)
static void ck_set_pte(pte_t *ep, pte_t e) { checked_set(ep, PGL_PT, e, CALLER); }
static void ck_set_pde(pte_t *ep, pte_t e) { checked_set(ep, PGL_PD, e, CALLER); }
static void ck_set_pdpte(pte_t *ep, pte_t e) { checked_set(ep, PGL_PDPT, e, CALLER); }
static void ck_set_pml4e(pte_t *ep, pte_t e) { checked_set(ep, PGL_PML4, e, CALLER); }

/* A new page table: nobody but the backend writes it from now on. */
static void ck_alloc_pt(paddr_t pa, int level)
{
	(void)level;
	dmap_protect(pa, false);
}

/* A page table about to be freed: finish writes into it, give it back. */
static void ck_release_pt(paddr_t pa, int level)
{
	(void)level;
	batch_apply();
	dmap_protect(pa, true);
}

static void ck_lazy_enter(void)
{
	if (me()->lazy)
		panic("pv=checked: lazy-MMU mode entered twice (it does not nest: a "
		      "batch inside a batch, e.g. reclaim from an allocation in it)");
	me()->lazy = true;
}

static void ck_lazy_leave(void)
{
	batch_apply();
	me()->lazy = false;
}

static void ck_lazy_flush(void)
{
	batch_apply();
}

/* TLB flushes and CR3 loads see every queued write first. */
static void ck_flush_one(vaddr_t va) { batch_apply(); pv_native_ops.mmu.flush_one(va); }
static void ck_flush_all(void) { batch_apply(); pv_native_ops.mmu.flush_all(); }
static void ck_flush_user(void) { batch_apply(); pv_native_ops.mmu.flush_user(); }
static void ck_write_cr3(uint64_t v) { batch_apply(); pv_native_ops.mmu.write_cr3(v); }

/* An existing page-table page, at install: read-only from now on. */
static void protect_table(paddr_t pa)
{
	dmap_protect(pa, false);
}

void pv_checked_register(const struct pv_check_ops *ops)
{
	ck.rules = ops;
}

void pv_checked_install(void)
{
	if (!ck.rules)
		panic("pv=checked: no rules registered (pv_checked_register before pv_init)");
	unsigned n = ck.rules->install(protect_table);
	pv_ops = pv_native_ops;
	pv_ops.name = "checked";
	pv_ops.mmu.set_pte = ck_set_pte;
	pv_ops.mmu.set_pde = ck_set_pde;
	pv_ops.mmu.set_pdpte = ck_set_pdpte;
	pv_ops.mmu.set_pml4e = ck_set_pml4e;
	pv_ops.mmu.xchg_pte = ck_xchg_pte;
	pv_ops.mmu.cmpxchg_pte = ck_cmpxchg_pte;
	pv_ops.mmu.alloc_pt = ck_alloc_pt;
	pv_ops.mmu.release_pt = ck_release_pt;
	pv_ops.mmu.lazy_mmu_enter = ck_lazy_enter;
	pv_ops.mmu.lazy_mmu_leave = ck_lazy_leave;
	pv_ops.mmu.lazy_mmu_flush = ck_lazy_flush;
	pv_ops.mmu.flush_one = ck_flush_one;
	pv_ops.mmu.flush_all = ck_flush_all;
	pv_ops.mmu.flush_user = ck_flush_user;
	pv_ops.mmu.write_cr3 = ck_write_cr3;
	ck.active = true;
	native_flush_all();
	printk("pv: checked backend: direct map split to 4 KiB pages, %u page-table "
	       "pages read-only, every entry write validated\n", n);
}

bool pv_checked_report_fault(uint64_t addr, uint64_t rip, bool write)
{
	if (!ck.active || !write || addr < DIRECT_MAP_BASE)
		return false;
	int level = ck.rules->table_level(V2P(addr) & ~(PAGE_SIZE - 1));
	if (level < 0)
		return false;
	uint64_t off;
	const char *fn = code_name((const void *)rip, &off);
	printk("\npv=checked: raw page-table write bypassed pv_ops: %s+%#lx wrote "
	       "%#lx, inside the level-%d page table at pa %#lx\n", fn, off, addr,
	       level, V2P(addr) & ~(PAGE_SIZE - 1));
	return true;
}
