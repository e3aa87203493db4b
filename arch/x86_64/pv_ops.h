/* arch/x86_64/pv_ops.h -- the paravirt operations table.
 *
 * Every privileged MMU operation of the kernel goes through pv_ops.mmu, so a
 * backend (native hardware, the host unit-test simulator, later a
 * paravirtual one) can be swapped without touching mm/. mm/ calls only the
 * pv_* wrappers below, never pv_ops.mmu.x directly: the wrappers are the
 * single place the call-site patcher (paravirt issue) will rewrite.
 *
 *   struct pv_ops
 *     .name
 *     .mmu   -- CR3/CR2, TLB flushes, entry writes, PT-page notifications,
 *               lazy-MMU batching
 *     (.cpu and .irq groups: added by the paravirt issue)
 */
#ifndef ARCH_X86_64_PV_OPS_H
#define ARCH_X86_64_PV_OPS_H

#include "arch/x86_64/pte.h"

struct pv_mmu_ops {
	uint64_t (*read_cr3)(void);
	void (*write_cr3)(uint64_t cr3);
	uint64_t (*read_cr2)(void);
	void (*flush_one)(vaddr_t va);     /* one page, global or not */
	void (*flush_all)(void);           /* everything, global included */
	void (*flush_user)(void);          /* every non-global entry */
	void (*set_pte)(pte_t *ep, pte_t e);
	void (*set_pde)(pte_t *ep, pte_t e);
	void (*set_pdpte)(pte_t *ep, pte_t e);
	void (*set_pml4e)(pte_t *ep, pte_t e);
	void (*alloc_pt)(paddr_t pa, int level);   /* pa becomes a table */
	void (*release_pt)(paddr_t pa, int level); /* pa stops being one */
	void (*lazy_mmu_enter)(void);      /* batch the updates that follow */
	void (*lazy_mmu_leave)(void);      /* apply the batch, stop batching */
	void (*lazy_mmu_flush)(void);      /* apply the batch, keep batching */
};

struct pv_ops {
	const char *name;
	struct pv_mmu_ops mmu;
};

/* The active backend: pv_native.c in the kernel, host_pv.c in unit tests. */
extern struct pv_ops pv_ops;

static inline uint64_t pv_read_cr3(void) { return pv_ops.mmu.read_cr3(); }
static inline void pv_write_cr3(uint64_t v) { pv_ops.mmu.write_cr3(v); }
static inline uint64_t pv_read_cr2(void) { return pv_ops.mmu.read_cr2(); }
static inline void pv_flush_one(vaddr_t va) { pv_ops.mmu.flush_one(va); }
static inline void pv_flush_all(void) { pv_ops.mmu.flush_all(); }
static inline void pv_flush_user(void) { pv_ops.mmu.flush_user(); }
static inline void pv_set_pte(pte_t *ep, pte_t e) { pv_ops.mmu.set_pte(ep, e); }
static inline void pv_set_pde(pte_t *ep, pte_t e) { pv_ops.mmu.set_pde(ep, e); }
static inline void pv_set_pdpte(pte_t *ep, pte_t e) { pv_ops.mmu.set_pdpte(ep, e); }
static inline void pv_set_pml4e(pte_t *ep, pte_t e) { pv_ops.mmu.set_pml4e(ep, e); }
static inline void pv_alloc_pt(paddr_t pa, int level) { pv_ops.mmu.alloc_pt(pa, level); }
static inline void pv_release_pt(paddr_t pa, int level) { pv_ops.mmu.release_pt(pa, level); }
static inline void pv_lazy_mmu_enter(void) { pv_ops.mmu.lazy_mmu_enter(); }
static inline void pv_lazy_mmu_leave(void) { pv_ops.mmu.lazy_mmu_leave(); }
static inline void pv_lazy_mmu_flush(void) { pv_ops.mmu.lazy_mmu_flush(); }

/* Write entry *ep of a level-`level` table through the matching setter. */
static inline void pv_set_entry(pte_t *ep, int level, pte_t e)
{
	switch (level) {
	case PGL_PT: pv_set_pte(ep, e); break;
	case PGL_PD: pv_set_pde(ep, e); break;
	case PGL_PDPT: pv_set_pdpte(ep, e); break;
	default: pv_set_pml4e(ep, e); break;
	}
}

#endif
