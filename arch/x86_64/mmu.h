/* arch/x86_64/mmu.h -- CPU paging features, their enabling, and the SMAP
 * window for kernel access to user memory. */
#ifndef ARCH_X86_64_MMU_H
#define ARCH_X86_64_MMU_H

#include "lib/types.h"

struct mmu_features {
	bool nx;      /* no-execute bit (EFER.NXE set at boot) */
	bool pge;     /* global pages */
	bool page1g;  /* 1 GiB pages in the PDPT */
	bool smep;    /* supervisor-mode execution prevention */
	bool smap;    /* supervisor-mode access prevention */
};

/* What this CPU supports (CPUID). */
void mmu_detect(struct mmu_features *f);

/* Turn on CR4.PGE, SMEP and SMAP where f says the CPU has them. Call after
 * the kernel page table is loaded (no user pages exist yet). */
void mmu_enable(const struct mmu_features *f);

/* Set by mmu_enable: SMAP is on, so user access needs the window below. */
extern bool mmu_smap_on;

/* Open / close the window in which the kernel may touch user pages (SMAP:
 * stac/clac). Every copyin/copyout brackets its user accesses with these. */
static inline void user_access_begin(void)
{
	if (mmu_smap_on)
		__asm__ volatile("stac" : : : "memory");
}

static inline void user_access_end(void)
{
	if (mmu_smap_on)
		__asm__ volatile("clac" : : : "memory");
}

/* Run fn(arg) on the stack whose top is top, then come back to this stack. */
void arch_call_on_stack(void *top, void (*fn)(void *), void *arg);

#endif
