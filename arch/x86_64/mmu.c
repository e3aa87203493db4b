/* arch/x86_64/mmu.c -- CPUID paging features and CR4 bits. */
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/pv_ops.h"

#define CPUID1_EDX_PGE (1U << 13)
#define CPUID7_EBX_SMEP (1U << 7)
#define CPUID7_EBX_SMAP (1U << 20)
#define CPUIDX1_EDX_NX (1U << 20)
#define CPUIDX1_EDX_PAGE1G (1U << 26)

bool mmu_smap_on;

void mmu_detect(struct mmu_features *f)
{
	uint32_t r[4], max, xmax;
	pv_cpuid(0, 0, r);
	max = r[0];
	pv_cpuid(0x80000000, 0, r);
	xmax = r[0];

	pv_cpuid(1, 0, r);
	f->pge = r[3] & CPUID1_EDX_PGE;
	f->smep = f->smap = false;
	if (max >= 7) {
		pv_cpuid(7, 0, r);
		f->smep = r[1] & CPUID7_EBX_SMEP;
		f->smap = r[1] & CPUID7_EBX_SMAP;
	}
	f->nx = f->page1g = false;
	if (xmax >= 0x80000001) {
		pv_cpuid(0x80000001, 0, r);
		f->nx = r[3] & CPUIDX1_EDX_NX;
		f->page1g = r[3] & CPUIDX1_EDX_PAGE1G;
	}
}

void mmu_enable(const struct mmu_features *f)
{
	uint64_t cr4 = pv_read_cr4();
	if (f->pge)
		cr4 |= CR4_PGE;
	if (f->smep)
		cr4 |= CR4_SMEP;
	if (f->smap)
		cr4 |= CR4_SMAP;
	pv_write_cr4(cr4);
	mmu_smap_on = f->smap;
}
