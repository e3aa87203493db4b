/* arch/x86_64/trap.h -- the trap frame that entry.asm builds on the kernel
 * stack for every exception, interrupt and system call. */
#ifndef ARCH_X86_64_TRAP_H
#define ARCH_X86_64_TRAP_H

#include "lib/types.h"

/* Exception vectors. */
#define T_DE 0     /* divide error */
#define T_DB 1
#define T_NMI 2
#define T_BP 3
#define T_OF 4
#define T_BR 5
#define T_UD 6     /* invalid opcode */
#define T_NM 7
#define T_DF 8     /* double fault (IST1) */
#define T_TS 10
#define T_NP 11
#define T_SS 12
#define T_GP 13    /* general protection */
#define T_PF 14    /* page fault */
#define T_MF 16
#define T_AC 17
#define T_MC 18
#define T_XM 19
#define T_NEXC 32  /* first vector after the exceptions */
#define T_IRQ0 32  /* legacy PIC IRQs 0..15 -> vectors 32..47 */
#define T_NVEC 256 /* every vector has a stub; 48.. are the local APIC's */
#define T_SYSCALL 0x100  /* marks frames built by the syscall entry */

#define IRQ_TIMER 0
#define IRQ_COM1 4

/* Page-fault error code bits. */
#define PF_PRESENT (1UL << 0)  /* protection violation (else not present) */
#define PF_WRITE (1UL << 1)
#define PF_USER (1UL << 2)
#define PF_RSVD (1UL << 3)
#define PF_INSTR (1UL << 4)

#define SEG_KCODE 0x08
#define SEG_KDATA 0x10
#define SEG_UDATA 0x1b  /* 0x18 | RPL 3 */
#define SEG_UCODE 0x23  /* 0x20 | RPL 3 */
#define SEG_TSS 0x28

/* The registers are pushed by SAVE_REGS (arch/x86_64/regs.inc), vector and
 * error by the entry stubs; the asserts below pin the offsets regs.inc uses. */
struct trapframe {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
};
_Static_assert(offsetof(struct trapframe, vector) == 15 * 8, "regs.inc: SAVE_REGS pushes 15 registers");
_Static_assert(offsetof(struct trapframe, cs) == 18 * 8, "regs.inc: TF_CS");
_Static_assert(sizeof(struct trapframe) == 22 * 8, "regs.inc: trap frame size");
_Static_assert(SEG_UDATA == 0x1b && SEG_UCODE == 0x23 && T_SYSCALL == 0x100,
	       "regs.inc repeats these for syscall.asm");

static inline bool trap_from_user(const struct trapframe *tf)
{
	return (tf->cs & 3) == 3;
}

/* Enable the syscall instruction (arch/x86_64/syscall_init.c). */
void syscall_init(void);

/* Called by syscall.asm with the saved user registers (kernel/syscall.c). */
void syscall_dispatch(struct trapframe *tf);

/* Called before returning to user mode from any trap (scheduler, kills). */
typedef void (*user_return_hook_t)(struct trapframe *tf);
extern user_return_hook_t user_return_hook;

/* Called by entry.asm for every vector. */
void trap_dispatch(struct trapframe *tf);

/* Print every register of tf. */
void trapframe_print(const struct trapframe *tf);

/* Name of an exception vector ("page fault"). */
const char *trap_name(uint64_t vector);

/* Install the handler for legacy IRQ line irq. */
typedef void (*irq_handler_t)(struct trapframe *tf);
void irq_register(int irq, irq_handler_t h);

/* Install the handler of local-APIC vector vec (48..254: IPIs, the APIC
 * timer); the dispatcher sends the EOI before calling it. */
void vector_register(int vec, irq_handler_t h);

/* The vectors a device's message-signalled interrupts (MSI-X) may use. */
#define T_DEVICE_FIRST 0x30
#define T_DEVICE_LAST 0xdf

/* A free vector in [T_DEVICE_FIRST, T_DEVICE_LAST] with h installed, or -1
 * when all are taken. Any CPU, any time (vectors are never given back). */
int vector_alloc(irq_handler_t h);

/* Hook for page faults: returns true if handled (mm/ installs it). */
typedef bool (*pf_handler_t)(struct trapframe *tf, uint64_t addr);
extern pf_handler_t page_fault_hook;

/* Hook for faults from user mode that no one handled (kills the process). */
typedef void (*user_fault_handler_t)(struct trapframe *tf, uint64_t addr);
extern user_fault_handler_t user_fault_hook;

/* Kernel-mode fault fix-ups: a faulting instruction in [start,end) resumes
 * at fixup with rax = -EFAULT (used by copyin/copyout). */
struct extable_entry {
	uint64_t start, end, fixup;
};

/* If tf's kernel-mode instruction has a fix-up, resume there with rax = err
 * (a negative errno: -EFAULT for a bad address, and the page-fault hook
 * passes -ENOMEM when the fault ran out of memory) and return true. */
bool trap_extable_fixup(struct trapframe *tf, long err);

#endif
