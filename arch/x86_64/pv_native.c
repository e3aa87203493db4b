/* arch/x86_64/pv_native.c -- the native pv_ops backend: real instructions.
 * Entry writes are single 64-bit stores (the CPU may set A/D concurrently,
 * so entries are never written in halves). Native hardware needs no
 * page-table notifications and has no lazy mode: those are no-ops. */
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/cpu.h"

static void native_set_entry(pte_t *ep, pte_t e)
{
	__atomic_store_n(ep, e, __ATOMIC_RELEASE);
}

/* Toggling CR4.PGE drops every TLB entry, global ones included. */
static void native_flush_all(void)
{
	uint64_t cr4 = native_read_cr4();
	if (cr4 & CR4_PGE) {
		native_write_cr4(cr4 & ~CR4_PGE);
		native_write_cr4(cr4);
	} else {
		native_write_cr3(native_read_cr3());
	}
}

/* Reloading CR3 drops every non-global entry. */
static void native_flush_user(void)
{
	native_write_cr3(native_read_cr3());
}

static void native_pt_notify(paddr_t pa, int level)
{
	(void)pa;
	(void)level;
}

static void native_nop(void)
{
}

struct pv_ops pv_ops = {
	.name = "native",
	.mmu = {
		.read_cr3 = native_read_cr3,
		.write_cr3 = native_write_cr3,
		.read_cr2 = native_read_cr2,
		.flush_one = native_invlpg,
		.flush_all = native_flush_all,
		.flush_user = native_flush_user,
		.set_pte = native_set_entry,
		.set_pde = native_set_entry,
		.set_pdpte = native_set_entry,
		.set_pml4e = native_set_entry,
		.alloc_pt = native_pt_notify,
		.release_pt = native_pt_notify,
		.lazy_mmu_enter = native_nop,
		.lazy_mmu_leave = native_nop,
		.lazy_mmu_flush = native_nop,
	},
};
