/* arch/x86_64/pv_ops.h -- the paravirt operations table and its wrappers.
 *
 * Every privileged operation of the kernel goes through one of the pv_*
 * wrappers below, so a backend (native hardware, the checking backend, the
 * host unit-test simulator) can be swapped without touching the callers.
 *
 *   struct pv_ops
 *     .name
 *     .cpu   -- descriptor tables, CR0/CR4, MSRs, CPUID, the kernel stack
 *               of the next process (context-switch hook)
 *     .irq   -- interrupt flag: save, restore, disable, enable, halt
 *     .mmu   -- CR3/CR2, TLB flushes, entry writes, PT-page notifications,
 *               lazy-MMU batching
 *
 * How a wrapper compiles depends on the build (docs/pv-ops.md):
 *
 *   PARAVIRT=1 (default)  a call site: `call *pv_ops+OFFSET(%rip)` recorded
 *                         in the .pvsites section (struct pv_site), which
 *                         the boot-time patcher (pv_patch.c) rewrites into a
 *                         direct call or the native instructions inline;
 *   PARAVIRT=0            the native instruction itself (cpu.h);
 *   PAGODA_HOST           a plain C call through the table (unit tests).
 *
 * A site follows the C calling convention: arguments in rdi, rsi, rdx, the
 * result in rax, and every caller-saved register clobbered, so whatever the
 * patcher puts there (a call or fewer instructions) is correct.
 */
#ifndef ARCH_X86_64_PV_OPS_H
#define ARCH_X86_64_PV_OPS_H

#include "arch/x86_64/pte.h"
#include "arch/x86_64/cpu.h"

#ifndef PARAVIRT
#define PARAVIRT 1
#endif

/* The operand of lgdt/lidt. */
struct pv_dtr {
	uint16_t limit;
	uint64_t base;
} __packed;

struct pv_cpu_ops {
	void (*load_gdt)(const struct pv_dtr *d);
	void (*load_idt)(const struct pv_dtr *d);
	void (*load_tr)(uint64_t selector);
	uint64_t (*read_cr0)(void);
	void (*write_cr0)(uint64_t v);
	uint64_t (*read_cr4)(void);
	void (*write_cr4)(uint64_t v);
	uint64_t (*read_msr)(uint64_t msr);
	void (*write_msr)(uint64_t msr, uint64_t v);
	void (*cpuid)(uint64_t leaf, uint64_t sub, uint32_t r[4]);
	void (*load_sp0)(uint64_t rsp0);   /* context switch: next kernel stack */
};

struct pv_irq_ops {
	uint64_t (*save_fl)(void);         /* RFLAGS */
	void (*restore_fl)(uint64_t f);    /* RFLAGS = f */
	void (*irq_disable)(void);
	void (*irq_enable)(void);
	void (*safe_halt)(void);           /* enable and wait, atomically */
	void (*halt)(void);                /* wait, flags unchanged */
};

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
	/* Read-modify-write of a live PT entry (4 KiB leaf), atomic against
	 * the MMUs of every CPU, which may set A and D in it at any time:
	 * xchg stores e and returns the entry it replaced; cmpxchg stores e
	 * only if the entry is still old, and returns the entry it found. */
	pte_t (*xchg_pte)(pte_t *ep, pte_t e);
	pte_t (*cmpxchg_pte)(pte_t *ep, pte_t old, pte_t e);
	void (*alloc_pt)(paddr_t pa, int level);   /* pa becomes a table */
	void (*release_pt)(paddr_t pa, int level); /* pa stops being one */
	void (*lazy_mmu_enter)(void);      /* batch the updates that follow */
	void (*lazy_mmu_leave)(void);      /* apply the batch, stop batching */
	void (*lazy_mmu_flush)(void);      /* apply the batch, keep batching */
};

/* Every member after .name is a function pointer, so an operation is also
 * known by its slot: its index in the table seen as an array of pointers. */
struct pv_ops {
	const char *name;
	struct pv_cpu_ops cpu;
	struct pv_irq_ops irq;
	struct pv_mmu_ops mmu;
};

#define PV_SLOT(op) (offsetof(struct pv_ops, op) / sizeof(void *))
#define PV_NSLOTS (sizeof(struct pv_ops) / sizeof(void *))

/* The active backend: pv_native.c's table, replaced by pv_init() (or the
 * host's recording backend in unit tests). */
extern struct pv_ops pv_ops;

/* Registers a site's replacement may write (struct pv_site.clobbers). */
#define PV_CLOB_RAX (1u << 0)
#define PV_CLOB_RCX (1u << 1)
#define PV_CLOB_RDX (1u << 2)
#define PV_CLOB_RSI (1u << 3)
#define PV_CLOB_RDI (1u << 4)
#define PV_CLOB_R8_R11 (1u << 5)
#define PV_CLOB_CALLER_SAVED (PV_CLOB_RAX | PV_CLOB_RCX | PV_CLOB_RDX | \
			      PV_CLOB_RSI | PV_CLOB_RDI | PV_CLOB_R8_R11)

/* One record of the .pvsites section per call site (tools/gdb's pg-pvsites
 * reads them: keep the site address the first text address in it). */
struct pv_site {
	uint64_t addr;       /* first byte of `call *pv_ops+OFF(%rip)` */
	uint8_t len;         /* bytes the patcher may rewrite */
	uint8_t slot;        /* PV_SLOT of the operation */
	uint16_t clobbers;   /* PV_CLOB_* the site allows */
	uint32_t reserved;
};

#if defined(PAGODA_HOST)
/* Unit tests: the table is called like any C function pointer. */
#define PV_CALL0(op, native) pv_ops.op()
#define PV_CALL1(op, native, a) pv_ops.op(a)
#define PV_CALL2(op, native, a, b) pv_ops.op(a, b)
#define PV_CALL3(op, native, a, b, c) pv_ops.op(a, b, c)
#elif PARAVIRT
/* A patchable call site: an indirect call through slot op, and a struct
 * pv_site record describing it. Arguments are evaluated into temporaries
 * first, then placed in rdi/rsi/rdx; an argument register the operation
 * does not take is an output only (clobbered, never loaded). The "+r" on
 * rsp tells the compiler a call happens here (the frame must be set up). */
#define PV_SITE_TEXT                                                     \
	"771:\n\t"                                                       \
	"call *pv_ops+%c[off](%%rip)\n"                                   \
	"772:\n\t"                                                       \
	".pushsection .pvsites, \"a\"\n\t"                              \
	".balign 8\n\t"                                                  \
	".quad 771b\n\t"                                                 \
	".byte 772b - 771b, %c[slot]\n\t"                                \
	".short %c[clob]\n\t"                                            \
	".long 0\n\t"                                                    \
	".popsection"
#define PV_SITE(op, c1, c2, c3, a1, a2, a3) ({                           \
	uint64_t pv_a1_ = (uint64_t)(a1), pv_a2_ = (uint64_t)(a2);       \
	uint64_t pv_a3_ = (uint64_t)(a3), pv_rax_;                       \
	register uint64_t pv_rdi_ __asm__("rdi") = pv_a1_;               \
	register uint64_t pv_rsi_ __asm__("rsi") = pv_a2_;               \
	register uint64_t pv_rdx_ __asm__("rdx") = pv_a3_;               \
	register uint64_t pv_rsp_ __asm__("rsp");                        \
	__asm__ volatile(PV_SITE_TEXT                                    \
			 : "=a"(pv_rax_), c1(pv_rdi_), c2(pv_rsi_),      \
			   c3(pv_rdx_), "+r"(pv_rsp_)                    \
			 : [off] "i"(offsetof(struct pv_ops, op)),       \
			   [slot] "i"(PV_SLOT(op)),                      \
			   [clob] "i"(PV_CLOB_CALLER_SAVED)              \
			 : "rcx", "r8", "r9", "r10", "r11", "memory", "cc"); \
	pv_rax_;                                                         \
})
#define PV_CALL0(op, native) PV_SITE(op, "=r", "=r", "=r", 0, 0, 0)
#define PV_CALL1(op, native, a) PV_SITE(op, "+r", "=r", "=r", a, 0, 0)
#define PV_CALL2(op, native, a, b) PV_SITE(op, "+r", "+r", "=r", a, b, 0)
#define PV_CALL3(op, native, a, b, c) PV_SITE(op, "+r", "+r", "+r", a, b, c)
#else
/* PARAVIRT=0: the wrappers are the native instructions. */
#define PV_CALL0(op, native) (native)
#define PV_CALL1(op, native, a) (native)
#define PV_CALL2(op, native, a, b) (native)
#define PV_CALL3(op, native, a, b, c) (native)
#endif

/* cpu group */
static inline void pv_load_gdt(const struct pv_dtr *d) { (void)PV_CALL1(cpu.load_gdt, native_lgdt(d), d); }
static inline void pv_load_idt(const struct pv_dtr *d) { (void)PV_CALL1(cpu.load_idt, native_lidt(d), d); }
static inline void pv_load_tr(uint64_t sel) { (void)PV_CALL1(cpu.load_tr, native_ltr(sel), sel); }
static inline uint64_t pv_read_cr0(void) { return PV_CALL0(cpu.read_cr0, native_read_cr0()); }
static inline void pv_write_cr0(uint64_t v) { (void)PV_CALL1(cpu.write_cr0, native_write_cr0(v), v); }
static inline uint64_t pv_read_cr4(void) { return PV_CALL0(cpu.read_cr4, native_read_cr4()); }
static inline void pv_write_cr4(uint64_t v) { (void)PV_CALL1(cpu.write_cr4, native_write_cr4(v), v); }
static inline uint64_t pv_rdmsr(uint64_t msr) { return PV_CALL1(cpu.read_msr, native_rdmsr(msr), msr); }
static inline void pv_wrmsr(uint64_t msr, uint64_t v) { (void)PV_CALL2(cpu.write_msr, native_wrmsr(msr, v), msr, v); }
static inline void pv_cpuid(uint64_t leaf, uint64_t sub, uint32_t r[4]) { (void)PV_CALL3(cpu.cpuid, native_cpuid(leaf, sub, r), leaf, sub, r); }
static inline void pv_load_sp0(uint64_t rsp0) { (void)PV_CALL1(cpu.load_sp0, native_load_sp0(rsp0), rsp0); }

/* irq group */
static inline uint64_t pv_save_fl(void) { return PV_CALL0(irq.save_fl, native_read_flags()); }
static inline void pv_restore_fl(uint64_t f) { (void)PV_CALL1(irq.restore_fl, native_restore_flags(f), f); }
static inline void pv_irq_disable(void) { (void)PV_CALL0(irq.irq_disable, native_irq_disable()); }
static inline void pv_irq_enable(void) { (void)PV_CALL0(irq.irq_enable, native_irq_enable()); }
static inline void pv_safe_halt(void) { (void)PV_CALL0(irq.safe_halt, native_safe_halt()); }
static inline void pv_halt(void) { (void)PV_CALL0(irq.halt, native_halt()); }

/* mmu group */
static inline uint64_t pv_read_cr3(void) { return PV_CALL0(mmu.read_cr3, native_read_cr3()); }
static inline void pv_write_cr3(uint64_t v) { (void)PV_CALL1(mmu.write_cr3, native_write_cr3(v), v); }
static inline uint64_t pv_read_cr2(void) { return PV_CALL0(mmu.read_cr2, native_read_cr2()); }
static inline void pv_flush_one(vaddr_t va) { (void)PV_CALL1(mmu.flush_one, native_invlpg(va), va); }
static inline void pv_flush_all(void) { (void)PV_CALL0(mmu.flush_all, native_flush_all()); }
static inline void pv_flush_user(void) { (void)PV_CALL0(mmu.flush_user, native_flush_user()); }
static inline void pv_set_pte(pte_t *ep, pte_t e) { (void)PV_CALL2(mmu.set_pte, native_set_entry(ep, e), ep, e); }
static inline void pv_set_pde(pte_t *ep, pte_t e) { (void)PV_CALL2(mmu.set_pde, native_set_entry(ep, e), ep, e); }
static inline void pv_set_pdpte(pte_t *ep, pte_t e) { (void)PV_CALL2(mmu.set_pdpte, native_set_entry(ep, e), ep, e); }
static inline void pv_set_pml4e(pte_t *ep, pte_t e) { (void)PV_CALL2(mmu.set_pml4e, native_set_entry(ep, e), ep, e); }
static inline pte_t pv_xchg_pte(pte_t *ep, pte_t e) { return PV_CALL2(mmu.xchg_pte, native_xchg_entry(ep, e), ep, e); }
static inline pte_t pv_cmpxchg_pte(pte_t *ep, pte_t old, pte_t e) { return PV_CALL3(mmu.cmpxchg_pte, native_cmpxchg_entry(ep, old, e), ep, old, e); }
static inline void pv_alloc_pt(paddr_t pa, int level) { (void)PV_CALL2(mmu.alloc_pt, ((void)pa, (void)level), pa, level); }
static inline void pv_release_pt(paddr_t pa, int level) { (void)PV_CALL2(mmu.release_pt, ((void)pa, (void)level), pa, level); }
static inline void pv_lazy_mmu_enter(void) { (void)PV_CALL0(mmu.lazy_mmu_enter, (void)0); }
static inline void pv_lazy_mmu_leave(void) { (void)PV_CALL0(mmu.lazy_mmu_leave, (void)0); }
static inline void pv_lazy_mmu_flush(void) { (void)PV_CALL0(mmu.lazy_mmu_flush, (void)0); }

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

/* Choose the backend from the command line (pv=patched|indirect|checked)
 * and patch the call sites; once, after mm_init, before interrupts. */
void pv_init(void);

#endif
