/* arch/x86_64/pv_native.c -- the native pv_ops backend: real instructions,
 * and the instruction templates the patcher copies inline into call sites.
 *
 * Native hardware needs no page-table notifications and has no lazy mode:
 * those operations are empty (and patched into NOPs).
 */
#include "arch/x86_64/pv_native.h"
#include "arch/x86_64/pv_ops.h"

/* Out-of-line copies of the cpu.h instructions, for the table. */
static void nat_load_gdt(const struct pv_dtr *d) { native_lgdt(d); }
static void nat_load_idt(const struct pv_dtr *d) { native_lidt(d); }
static void nat_load_tr(uint64_t sel) { native_ltr(sel); }
static uint64_t nat_read_cr0(void) { return native_read_cr0(); }
static void nat_write_cr0(uint64_t v) { native_write_cr0(v); }
static uint64_t nat_read_cr4(void) { return native_read_cr4(); }
static void nat_write_cr4(uint64_t v) { native_write_cr4(v); }
static uint64_t nat_rdmsr(uint64_t msr) { return native_rdmsr(msr); }
static void nat_wrmsr(uint64_t msr, uint64_t v) { native_wrmsr(msr, v); }
static void nat_cpuid(uint64_t l, uint64_t s, uint32_t r[4]) { native_cpuid(l, s, r); }
static uint64_t nat_save_fl(void) { return native_read_flags(); }
static void nat_restore_fl(uint64_t f) { native_restore_flags(f); }
static void nat_irq_disable(void) { native_irq_disable(); }
static void nat_irq_enable(void) { native_irq_enable(); }
static void nat_safe_halt(void) { native_safe_halt(); }
static void nat_halt(void) { native_halt(); }
static uint64_t nat_read_cr3(void) { return native_read_cr3(); }
static void nat_write_cr3(uint64_t v) { native_write_cr3(v); }
static uint64_t nat_read_cr2(void) { return native_read_cr2(); }
static void nat_flush_one(vaddr_t va) { native_invlpg(va); }
static void nat_flush_all(void) { native_flush_all(); }
static void nat_flush_user(void) { native_flush_user(); }
static void nat_set_entry(pte_t *ep, pte_t e) { native_set_entry(ep, e); }
static pte_t nat_xchg_entry(pte_t *ep, pte_t e) { return native_xchg_entry(ep, e); }
static pte_t nat_cmpxchg_entry(pte_t *ep, pte_t old, pte_t e) { return native_cmpxchg_entry(ep, old, e); }
static void nat_pt_notify(paddr_t pa, int level) { (void)pa, (void)level; }
static void nat_nop(void) { }

/* One table written once, used for the constant copy and the live one. */
#define NATIVE_OPS {                                                     \
	.name = "native", \
	.cpu = { \
		.load_gdt = nat_load_gdt, \
		.load_idt = nat_load_idt, \
		.load_tr = nat_load_tr, \
		.read_cr0 = nat_read_cr0, \
		.write_cr0 = nat_write_cr0, \
		.read_cr4 = nat_read_cr4, \
		.write_cr4 = nat_write_cr4, \
		.read_msr = nat_rdmsr, \
		.write_msr = nat_wrmsr, \
		.cpuid = nat_cpuid, \
		.load_sp0 = native_load_sp0, \
	}, \
	.irq = { \
		.save_fl = nat_save_fl, \
		.restore_fl = nat_restore_fl, \
		.irq_disable = nat_irq_disable, \
		.irq_enable = nat_irq_enable, \
		.safe_halt = nat_safe_halt, \
		.halt = nat_halt, \
	}, \
	.mmu = { \
		.read_cr3 = nat_read_cr3, \
		.write_cr3 = nat_write_cr3, \
		.read_cr2 = nat_read_cr2, \
		.flush_one = nat_flush_one, \
		.flush_all = nat_flush_all, \
		.flush_user = nat_flush_user, \
		.set_pte = nat_set_entry, \
		.set_pde = nat_set_entry, \
		.set_pdpte = nat_set_entry, \
		.set_pml4e = nat_set_entry, \
		.xchg_pte = nat_xchg_entry, \
		.cmpxchg_pte = nat_cmpxchg_entry, \
		.alloc_pt = nat_pt_notify, \
		.release_pt = nat_pt_notify, \
		.lazy_mmu_enter = nat_nop, \
		.lazy_mmu_leave = nat_nop, \
		.lazy_mmu_flush = nat_nop, \
	},                                                               \
}

const struct pv_ops pv_native_ops = NATIVE_OPS;

/* The live table starts out native: every site works before pv_init(). */
struct pv_ops pv_ops = NATIVE_OPS;

/* Templates: the native instructions of the simple operations, assembled
 * here (never executed here: they live in .rodata) and copied inline by the
 * patcher. They follow the site convention: argument 1 in rdi, argument 2
 * in rsi, the result in rax. */
#define PV_TEMPLATE(name, insns)                                         \
	__asm__(".pushsection .rodata\n" #name ":\n\t" insns "\n"        \
		#name "_end:\n.popsection");                             \
	extern const uint8_t name[], name##_end[]

PV_TEMPLATE(pvt_save_fl, "pushfq; popq %rax");
PV_TEMPLATE(pvt_restore_fl, "pushq %rdi; popfq");
PV_TEMPLATE(pvt_cli, "cli");
PV_TEMPLATE(pvt_sti, "sti");
PV_TEMPLATE(pvt_safe_halt, "sti; hlt");
PV_TEMPLATE(pvt_halt, "hlt");
PV_TEMPLATE(pvt_read_cr3, "movq %cr3, %rax");
PV_TEMPLATE(pvt_write_cr3, "movq %rdi, %cr3");
PV_TEMPLATE(pvt_read_cr2, "movq %cr2, %rax");
PV_TEMPLATE(pvt_invlpg, "invlpg (%rdi)");
PV_TEMPLATE(pvt_set_entry, "movq %rsi, (%rdi)");
PV_TEMPLATE(pvt_xchg_entry, "movq %rsi, %rax; xchgq %rax, (%rdi)");
PV_TEMPLATE(pvt_cmpxchg_entry, "movq %rsi, %rax; lock cmpxchgq %rdx, (%rdi)");
PV_TEMPLATE(pvt_nothing, "");
PV_TEMPLATE(pvt_nop1, ".nops 1");
PV_TEMPLATE(pvt_nop2, ".nops 2");
PV_TEMPLATE(pvt_nop3, ".nops 3");
PV_TEMPLATE(pvt_nop4, ".nops 4");
PV_TEMPLATE(pvt_nop5, ".nops 5");

#define INSN(tmpl, clob) { tmpl, tmpl##_end, clob }

/* Indexed by slot; start NULL: no template (the site gets a direct call). */
static const struct pv_insn templates[PV_NSLOTS] = {
	[PV_SLOT(irq.save_fl)] = INSN(pvt_save_fl, PV_CLOB_RAX),
	[PV_SLOT(irq.restore_fl)] = INSN(pvt_restore_fl, 0),
	[PV_SLOT(irq.irq_disable)] = INSN(pvt_cli, 0),
	[PV_SLOT(irq.irq_enable)] = INSN(pvt_sti, 0),
	[PV_SLOT(irq.safe_halt)] = INSN(pvt_safe_halt, 0),
	[PV_SLOT(irq.halt)] = INSN(pvt_halt, 0),
	[PV_SLOT(mmu.read_cr3)] = INSN(pvt_read_cr3, PV_CLOB_RAX),
	[PV_SLOT(mmu.write_cr3)] = INSN(pvt_write_cr3, 0),
	[PV_SLOT(mmu.read_cr2)] = INSN(pvt_read_cr2, PV_CLOB_RAX),
	[PV_SLOT(mmu.flush_one)] = INSN(pvt_invlpg, 0),
	[PV_SLOT(mmu.set_pte)] = INSN(pvt_set_entry, 0),
	[PV_SLOT(mmu.set_pde)] = INSN(pvt_set_entry, 0),
	[PV_SLOT(mmu.set_pdpte)] = INSN(pvt_set_entry, 0),
	[PV_SLOT(mmu.set_pml4e)] = INSN(pvt_set_entry, 0),
	[PV_SLOT(mmu.xchg_pte)] = INSN(pvt_xchg_entry, PV_CLOB_RAX),
	[PV_SLOT(mmu.cmpxchg_pte)] = INSN(pvt_cmpxchg_entry, PV_CLOB_RAX),
	[PV_SLOT(mmu.alloc_pt)] = INSN(pvt_nothing, 0),
	[PV_SLOT(mmu.release_pt)] = INSN(pvt_nothing, 0),
	[PV_SLOT(mmu.lazy_mmu_enter)] = INSN(pvt_nothing, 0),
	[PV_SLOT(mmu.lazy_mmu_leave)] = INSN(pvt_nothing, 0),
	[PV_SLOT(mmu.lazy_mmu_flush)] = INSN(pvt_nothing, 0),
};

const struct pv_insn *pv_native_insn(unsigned slot, const void *fn)
{
	if (slot >= PV_NSLOTS || !templates[slot].start)
		return NULL;
	if (fn != ((const void *const *)&pv_native_ops)[slot])
		return NULL;
	return &templates[slot];
}

/* The assembler's choice of one NOP instruction of each length. */
static const uint8_t *const nops[PV_NOP_MAX + 1] = {
	NULL, pvt_nop1, pvt_nop2, pvt_nop3, pvt_nop4, pvt_nop5,
};

const uint8_t *pv_native_nop(unsigned len)
{
	return len >= 1 && len <= PV_NOP_MAX ? nops[len] : NULL;
}
