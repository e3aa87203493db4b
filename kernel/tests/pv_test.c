/* kernel/tests/pv_test.c -- test=pv: the pv_ops table, its call sites and
 * what the boot-time patcher made of them (arch/x86_64/pv_*.c). */
#include "kernel/ktest.h"
#include "lib/cmdline.h"
#include "lib/string.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/pv_patch.h"
#include "arch/x86_64/pv_native.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "arch/x86_64/memlayout.h"
#include "mm/pt/ptwrite_check.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/kvm.h"

#define INDIRECT_CALL_OPCODE 0xff
#define INDIRECT_CALL_MODRM_RIP 0x15   /* call *disp32(%rip) */

extern const struct pv_site _pvsites_start[], _pvsites_end[];
extern char _text_start[], _text_end[];

/* Does site s still hold `call *pv_ops+OFF(%rip)`? */
static bool site_is_indirect(const struct pv_site *s)
{
	const uint8_t *p = (const uint8_t *)s->addr;
	return p[0] == INDIRECT_CALL_OPCODE && p[1] == INDIRECT_CALL_MODRM_RIP;
}

/* Every record names a site in kernel text, of a real operation. */
KTEST(pv, site_records_sane)
{
	KEXPECT_EQ(pv_site_count() > 0, (bool)PARAVIRT);
	for (const struct pv_site *s = _pvsites_start; s < _pvsites_end; s++) {
		KEXPECT(s->addr >= (uint64_t)_text_start && s->addr < (uint64_t)_text_end);
		KEXPECT(s->slot > 0 && s->slot < PV_NSLOTS);
		KEXPECT(s->len >= CALL_REL32_LEN);
		KEXPECT_EQ(s->clobbers, PV_CLOB_CALLER_SAVED);
	}
}

/* pv=indirect leaves every site alone; the other modes patch every one. */
KTEST(pv, sites_match_mode)
{
	bool indirect = !strcmp(cmdline_get_or("pv", "patched"), "indirect");
	unsigned left = 0;
	for (const struct pv_site *s = _pvsites_start; s < _pvsites_end; s++)
		left += site_is_indirect(s);
	KEXPECT_EQ(left, indirect ? pv_site_count() : 0);
}

/* A patched site holds what the backend asked for: a direct call to the
 * slot's function, or exactly the native template (then NOPs). */
KTEST(pv, patched_sites_match_backend)
{
	for (const struct pv_site *s = _pvsites_start; s < _pvsites_end; s++) {
		const uint8_t *p = (const uint8_t *)s->addr;
		const void *fn = ((const void *const *)&pv_ops)[s->slot];
		if (site_is_indirect(s))
			continue;
		if (p[0] == CALL_REL32_OPCODE) {
			int32_t rel;
			memcpy(&rel, p + 1, sizeof(rel));
			KEXPECT_EQ((uint64_t)(s->addr + CALL_REL32_LEN + rel), (uint64_t)fn);
			continue;
		}
		const struct pv_insn *t = pv_native_insn(s->slot, fn);
		KEXPECT(t != NULL);
		if (t)
			KEXPECT(memcmp(p, t->start, (size_t)(t->end - t->start)) == 0);
	}
}

/* The irq group works whatever the sites became. */
KTEST(pv, irq_save_restore)
{
	bool was = irq_enabled();
	uint64_t f = irq_save();
	KEXPECT(!irq_enabled());
	KEXPECT_EQ((f & RFLAGS_IF) != 0, was);
	irq_restore(f);
	KEXPECT_EQ(irq_enabled(), was);
}

/* The cpu and mmu groups read what the boot code set up. */
KTEST(pv, cpu_and_mmu_reads)
{
	KEXPECT(pv_read_cr0() & CR0_WP);
	KEXPECT(pv_read_cr4() & CR4_PAE);
	KEXPECT(pv_rdmsr(MSR_EFER) & EFER_NXE);
	uint32_t r[4];
	pv_cpuid(0, 0, r);
	KEXPECT(r[0] >= 1);
	KEXPECT(pv_read_cr3() != 0);
}

/* A table to test entry writes against, and a frame of the given type. */
static struct page *test_frame(unsigned flags)
{
	struct page *pg = page_alloc(0, flags);
	KEXPECT(pg != NULL);
	return pg;
}

/* The invariants pv=checked enforces, asked without writing anything. */
KTEST(pv, ptwrite_check_rules)
{
	struct page *pt = ptpage_alloc(PGL_PT), *pd = ptpage_alloc(PGL_PD);
	struct page *anon = test_frame(PA_ANON), *kern = test_frame(0);
	pte_t *pte = ptpage_entries(pt), *pde = ptpage_entries(pd);
	pte_t user = PTE_P | PTE_U | PTE_W;

	KEXPECT(ptwrite_check(pte, PGL_PT, pte_make(page_to_pa(anon), user)) == NULL);
	KEXPECT(ptwrite_check(pte, PGL_PT, pte_make(page_to_pa(kern), user)) != NULL);
	KEXPECT(ptwrite_check(pte, PGL_PT, pte_make(page_to_pa(pd), user)) != NULL);
	KEXPECT(ptwrite_check(pte, PGL_PD, pte_make(page_to_pa(anon), user)) != NULL);
	KEXPECT(ptwrite_check(pte, PGL_PT, 0) == NULL);
	KEXPECT(ptwrite_check(pte, PGL_PT, pte_make(page_to_pa(pt), PTE_P | PTE_W)) != NULL);

	KEXPECT(ptwrite_check(pde, PGL_PD, pte_make(page_to_pa(pt), user)) == NULL);
	KEXPECT(ptwrite_check(pde, PGL_PD, pte_make(page_to_pa(anon), user)) != NULL);
	pt->pt.share = 2;   /* pretend a second address space shares pt */
	KEXPECT(ptwrite_check(pde, PGL_PD, pte_make(page_to_pa(pt), user)) != NULL);
	KEXPECT(ptwrite_check(pde, PGL_PD, pte_make(page_to_pa(pt), PTE_P | PTE_U)) == NULL);
	KEXPECT(ptwrite_check(pte, PGL_PT, pte_make(page_to_pa(anon), user)) != NULL);
	pt->pt.share = 1;

	page_free(anon, 0);
	page_free(kern, 0);
	ptpage_free(pd);
	ptpage_free(pt);
}

/* The hook table mm registers with pv=checked: the rules above, the level
 * of a page-table frame (-1 for any other), a frame's direct-map entry. */
KTEST(pv, checked_hooks_are_mms)
{
	const struct pv_check_ops *ops = &ptwrite_check_ops;
	struct page *pt = ptpage_alloc(PGL_PT), *pd = ptpage_alloc(PGL_PD);
	struct page *anon = test_frame(PA_ANON);
	KEXPECT(ops->entry_write == ptwrite_check);
	KEXPECT_EQ(ops->table_level(page_to_pa(pt)), PGL_PT);
	KEXPECT_EQ(ops->table_level(page_to_pa(pd)), PGL_PD);
	KEXPECT_EQ(ops->table_level(page_to_pa(anon)), -1);
	KEXPECT_EQ(ops->table_level(max_pfn << PAGE_SHIFT), -1);   /* past RAM */
	pte_t *ep = ops->dmap_entry(page_to_pa(anon));
	if (ep)   /* 4 KiB direct map (pv=checked): the entry maps that frame */
		KEXPECT_EQ(pte_addr(pte_read(ep)), page_to_pa(anon));
	else      /* large pages: no 4 KiB entry */
		KEXPECT(kvm_dmap_page_size() > PAGE_SIZE);
	page_free(anon, 0);
	ptpage_free(pd);
	ptpage_free(pt);
}

/* Lazy-MMU mode: pv=checked queues leaf writes until leave (a batch);
 * the native backend writes at once. */
KTEST(pv, lazy_batch)
{
	bool checked = !strcmp(cmdline_get_or("pv", "patched"), "checked");
	struct page *pt = ptpage_alloc(PGL_PT), *f = test_frame(PA_ANON);
	pte_t *ep = ptpage_entries(pt), e = pte_make(page_to_pa(f), PTE_P | PTE_U);
	pv_lazy_mmu_enter();
	pt_set_leaf(&kernel_pgt, 0, ep, PGL_PT, e);
	KEXPECT_EQ(pte_read(ep), checked ? 0 : e);
	pv_lazy_mmu_leave();
	KEXPECT_EQ(pte_read(ep), e);
	pt_set_leaf(&kernel_pgt, 0, ep, PGL_PT, 0);
	page_free(f, 0);
	ptpage_free(pt);
}

/* test=crash_pvcheck_bad (with pv=checked): an entry write through pv_ops
 * that breaks an invariant -- a user mapping of a kernel text frame. */
KTEST(crash_pvcheck_bad, user_maps_kernel_frame)
{
	struct page *pt = ptpage_alloc(PGL_PT);
	KEXPECT(pt != NULL);
	pte_t e = pte_make(KV2P(_text_start), PTE_P | PTE_U);
	pt_set_leaf(&kernel_pgt, 0, ptpage_entries(pt), PGL_PT, e);
	KEXPECT(!"pv=checked let a user mapping of a kernel frame through");
}

/* test=crash_pvcheck (with pv=checked): a page-table entry written directly,
 * bypassing pv_ops. The page is read-only in the direct map, so the write
 * faults and the checked backend names this function. */
KTEST(crash_pvcheck, raw_pte_write)
{
	struct page *pt = ptpage_alloc(PGL_PT);
	KEXPECT(pt != NULL);
	volatile pte_t *ep = ptpage_entries(pt);
	*ep = PTE_P;
	KEXPECT(!"the raw write to a page-table page did not fault");
}
