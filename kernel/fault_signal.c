/* kernel/fault_signal.c -- what a page fault or other exception means for
 * the process that caused it: the signal, the report, the OOM kill.
 *
 * Faults on user addresses go to the address space (as_fault, mm/fault.c),
 * which says what they came to (enum fault_result); the signal and its
 * si_code are chosen from that once, here (user_page_fault). An unresolved
 * fault from user mode kills the process with a one-line report and a
 * SIGSEGV (SIGBUS past the end of a file) wait status, unless it has a
 * handler for the signal (kernel/signal.c); out of memory kills the largest
 * process instead (kernel/oom.c) and the access is retried. A fault from
 * kernel mode (copyin/copyout) falls through to the exception table and
 * the system call returns -EFAULT (-ENOMEM when memory ran out).
 */
#include "kernel/fault_signal.h"
#include "kernel/reclaimd.h"
#include "lib/cmdline.h"
#include "lib/errno.h"
#include "lib/ksyms.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "kernel/proc.h"
#include "kernel/oom.h"
#include "mm/as.h"
#include "mm/reclaim.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/trap.h"

/* The as_fault flags for a page fault with x86 error code error. */
static unsigned fault_flags(uint64_t error)
{
	return (error & PF_WRITE ? FAULT_WRITE : 0) | (error & PF_INSTR ? FAULT_EXEC : 0) |
	       (error & PF_PRESENT ? 0 : FAULT_ABSENT);
}

/* `fault_lock=write`: page faults and madvise take the address-space lock
 * for writing, one at a time per process, as Linux did before seed 002's
 * mmap_sem change (for the ebizzy "sem" comparison); the default, read,
 * lets the threads of a process fault and madvise in parallel (the split
 * PT lock orders their entries). */
static bool fault_lock_exclusive;

enum as_lock_mode fault_lock_mode(enum as_lock_mode mode)
{
	return fault_lock_exclusive ? AS_LOCK_WRITE : mode;
}

/* What a page fault at addr in p's address space came to. */
static enum fault_result mm_resolves(struct proc *p, const struct trapframe *tf, uint64_t addr)
{
	if (!is_user_addr(addr))
		return FAULT_BAD_ADDRESS;   /* a kernel address: never mapped for it */
	if ((tf->error & PF_PRESENT) && (tf->error & PF_RSVD))
		return FAULT_BAD_ACCESS;    /* a reserved bit in an entry: mm's bug */
	reclaim_if_low();   /* direct reclaim before any lock (mm/reclaim.h) */
	if (trap_from_user(tf))
		reclaimd_throttle();   /* in the reserve: the reclaimer first */
	as_lock(p->as, fault_lock_mode(AS_LOCK_READ));
	enum fault_result r = as_fault(p->as, addr, fault_flags(tf->error));
	as_unlock(p->as, fault_lock_mode(AS_LOCK_READ));
	reclaimd_kick();    /* below the low watermark now: wake the reclaimer */
	if (r == FAULT_HANDLED_MAJOR)   /* this thread's own counts: no shared write */
		p->maj_flt++;
	else if (r == FAULT_HANDLED)
		p->min_flt++;
	return r == FAULT_HANDLED_MAJOR ? FAULT_HANDLED : r;
}

static void user_page_fault(struct trapframe *tf, uint64_t addr, enum fault_result r);

/* A page fault while this CPU holds a spinlock: the kernel touched user
 * memory (or a bad address) under it. Panics naming the code and the lock. */
static __noreturn void fault_under_spinlock(const struct trapframe *tf, uint64_t addr)
{
	uint64_t off = 0;
	const char *fn = ksym_lookup(tf->rip, &off);
	panic("page fault at %#lx (error %#lx) from rip %#lx (%s+%#lx) with spinlock %s held",
	      addr, tf->error, tf->rip, fn ? fn : "?", off, spin_held_name());
}

/* The page-fault hook: resolved, or the process signalled (user mode):
 * true; a kernel-mode fault that stays: false (the exception table). */
static bool handle_page_fault(struct trapframe *tf, uint64_t addr)
{
	struct proc *p = current_proc();
	if (!p || !p->as)
		return false;
	if (spin_held_count())   /* resolving sleeps on the address-space lock */
		fault_under_spinlock(tf, addr);
	enum fault_result r = mm_resolves(p, tf, addr);
	if (r == FAULT_HANDLED)
		return true;
	if (!trap_from_user(tf))   /* a copy from the kernel: retried once the reclaimer
				    * thread freed memory; else ENOMEM or EFAULT */
		return r == FAULT_OOM && (reclaimd_wait() || trap_extable_fixup(tf, -ENOMEM));
	user_page_fault(tf, addr, r);
	return true;
}

static const char *pf_reason(uint64_t error)
{
	if (error & PF_INSTR)
		return error & PF_PRESENT ? "execute of a non-executable page"
					  : "execute of an unmapped address";
	if (error & PF_WRITE)
		return error & PF_PRESENT ? "write to a read-only page"
					  : "write to an unmapped address";
	return error & PF_PRESENT ? "read of a protected page" : "read of an unmapped address";
}

/* A user page fault that came to r (not FAULT_HANDLED): the signal and its
 * si_code (Linux's), chosen once; the program's handler runs if it has one
 * (signal_fault), else it dies. */
static void user_page_fault(struct trapframe *tf, uint64_t addr, enum fault_result r)
{
	switch (r) {
	case FAULT_OOM:   /* the task's own reclaim already failed */
		if (!reclaimd_wait())   /* else the reclaimer thread freed some: retry */
			oom_kill_for_fault(addr, tf->rip);
		return;   /* retry the access */
	case FAULT_SIGBUS:
		signal_fault(tf, SIGBUS, BUS_ADRERR,
			     "access past the end of the file, or the page could not be read or stored", addr);
		return;
	case FAULT_BAD_ACCESS:
		signal_fault(tf, SIGSEGV, SEGV_ACCERR, pf_reason(tf->error), addr);
		return;
	default:
		signal_fault(tf, SIGSEGV, SEGV_MAPERR, pf_reason(tf->error), addr);
		return;
	}
}

/* Any other exception from user mode (page faults are user_page_fault's):
 * the program's handler runs if it has one, else it dies. They report the
 * instruction address (siginfo's si_addr). */
static void handle_user_fault(struct trapframe *tf, uint64_t addr)
{
	(void)addr;
	switch (tf->vector) {
	case T_DE:
		signal_fault(tf, SIGFPE, SI_KERNEL, "divide error", tf->rip);
		return;
	case T_UD:
		signal_fault(tf, SIGILL, SI_KERNEL, "invalid opcode", tf->rip);
		return;
	case T_BP:
	case T_DB:
		signal_fault(tf, SIGTRAP, SI_KERNEL, trap_name(tf->vector), tf->rip);
		return;
	case T_GP:
		signal_fault(tf, SIGSEGV, SI_KERNEL, "general protection fault", tf->rip);
		return;
	default:
		signal_fault(tf, SIGSEGV, SI_KERNEL, trap_name(tf->vector), tf->rip);
		return;
	}
}

void fault_signal_init(void)
{
	fault_lock_exclusive = strcmp(cmdline_get_or("fault_lock", "read"), "write") == 0;
	page_fault_hook = handle_page_fault;
	user_fault_hook = handle_user_fault;
}
