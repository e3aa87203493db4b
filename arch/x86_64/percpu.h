/* arch/x86_64/percpu.h -- per-CPU data, reached through the GS base.
 *
 * In kernel mode GS points at this CPU's struct cpu; the syscall entry uses
 * the first fields (at fixed offsets, see syscall.asm and regs.inc) to find the kernel
 * stack before anything else is saved.
 */
#ifndef ARCH_X86_64_PERCPU_H
#define ARCH_X86_64_PERCPU_H

#include "lib/types.h"
#include "lib/spinlock.h"

struct proc;
struct context;
struct page;

#define LOCKDEP_MAX_HELD 8

/* A CPU's cache of free order-0 frames (mm/frame/buddy.c fills and drains it in
 * batches from the free lists). Its frames are still free: type PG_FREE,
 * counted in mm_stats.free. The lock (LOCK_RANK_PCP) is almost always
 * taken by its own CPU; another CPU takes it only to drain the cache when
 * memory is short. */
#define PCP_FRAMES 64
struct frame_cache {
	struct spinlock lock;
	unsigned n;                  /* frames[0..n) are cached */
	struct page *frames[PCP_FRAMES];
};

struct cpu {
	struct cpu *self;            /* offset 0: gs:0 gives the struct */
	uint64_t kernel_rsp;         /* offset 8: stack for syscall entry */
	uint64_t user_rsp;           /* offset 16: scratch for syscall entry */
	struct proc *current;        /* the running process, or NULL */
	struct context *scheduler;   /* the scheduler loop's saved context */
	int id;                      /* index in cpus[]: 0 is the boot CPU */
	int ncli;                    /* depth of push_off() nesting */
	bool intena;                 /* were interrupts on before the first? */
	const struct spinlock *held[LOCKDEP_MAX_HELD];   /* locks it holds (lib/spinlock.c) */
	int nheld;
	uint64_t lock_acquired[LOCK_RANK_COUNT];   /* its acquisitions per lock class */
	uint32_t apic_id;            /* its local APIC's id */
	volatile bool online;        /* set by the CPU itself when it is up */
	volatile uint64_t lapic_ticks;   /* local APIC timer interrupts taken */
	volatile uint64_t ipi_calls;     /* cross-CPU calls answered */
	uint64_t boot_stack_top;     /* the stack it started (and idles) on */
	volatile uint64_t cr3;       /* the page table it runs on (smp_note_cr3) */
	bool answering;              /* running a cross-CPU call (arch/x86_64/ipi.c) */
	struct frame_cache pcp;      /* free frames for this CPU (mm/frame/buddy.c) */
};

/* Offsets used by syscall.asm (repeated in arch/x86_64/regs.inc). */
#define PERCPU_KERNEL_RSP 8
#define PERCPU_USER_RSP 16
_Static_assert(offsetof(struct cpu, kernel_rsp) == PERCPU_KERNEL_RSP && PERCPU_KERNEL_RSP == 8,
	       "regs.inc: PERCPU_KERNEL_RSP");
_Static_assert(offsetof(struct cpu, user_rsp) == PERCPU_USER_RSP && PERCPU_USER_RSP == 16,
	       "regs.inc: PERCPU_USER_RSP");

/* Every CPU's struct cpu, by id; ncpus of them are in use (1 until the
 * application processors are found, arch/x86_64/smp.c). */
extern struct cpu cpus[];
extern int ncpus;

/* Set up CPU 0's struct cpu and GS base. */
void percpu_init(void);

/* Point this CPU's GS base at c (an application processor's first act). */
void percpu_init_ap(struct cpu *c);

/* User TLS base (arch_prctl ARCH_SET_FS), switched with the process. */
void arch_set_fs_base(uint64_t base);

#ifdef PAGODA_HOST
/* Host unit tests: the simulated CPU the test runs as (tests/unit/host_mm.c). */
extern struct cpu *host_cpu;
static inline struct cpu *this_cpu(void)
{
	return host_cpu;
}
#else
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}
#endif

#endif
