/* arch/x86_64/percpu.h -- per-CPU data, reached through the GS base.
 *
 * In kernel mode GS points at this CPU's struct cpu; the syscall entry uses
 * the first fields (at fixed offsets, see syscall.asm and regs.inc) to find the kernel
 * stack before anything else is saved.
 */
#ifndef ARCH_X86_64_PERCPU_H
#define ARCH_X86_64_PERCPU_H

#include "lib/types.h"

struct proc;
struct context;

struct cpu {
	struct cpu *self;            /* offset 0: gs:0 gives the struct */
	uint64_t kernel_rsp;         /* offset 8: stack for syscall entry */
	uint64_t user_rsp;           /* offset 16: scratch for syscall entry */
	struct proc *current;        /* the running process, or NULL */
	struct context *scheduler;   /* the scheduler loop's saved context */
	int id;
	int ncli;                    /* depth of push_off() nesting */
	bool intena;                 /* were interrupts on before the first? */
};

/* Offsets used by syscall.asm (repeated in arch/x86_64/regs.inc). */
#define PERCPU_KERNEL_RSP 8
#define PERCPU_USER_RSP 16
_Static_assert(offsetof(struct cpu, kernel_rsp) == PERCPU_KERNEL_RSP && PERCPU_KERNEL_RSP == 8,
	       "regs.inc: PERCPU_KERNEL_RSP");
_Static_assert(offsetof(struct cpu, user_rsp) == PERCPU_USER_RSP && PERCPU_USER_RSP == 16,
	       "regs.inc: PERCPU_USER_RSP");

/* Set up CPU 0's struct cpu and GS base. */
void percpu_init(void);

/* User TLS base (arch_prctl ARCH_SET_FS), switched with the process. */
void arch_set_fs_base(uint64_t base);

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

#endif
