/* kernel/tests/pv_test.c -- test=pv: the pv_ops table, its call sites and
 * what the boot-time patcher made of them (arch/x86_64/pv_*.c). */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/pv_patch.h"

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
		KEXPECT(s->len >= 5);
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
