/* kernel/pagefault.c -- what a page fault or other exception means for the
 * process that caused it.
 *
 * Faults on user addresses go to the address space (mm/fault.c). If it
 * cannot resolve them, a fault from user mode kills the process with a
 * one-line report and a SIGSEGV (SIGBUS past the end of a file) wait
 * status, unless it has a handler for the signal (kernel/signal.c); out of
 * memory kills the largest process instead (kernel/oom.c) and the access is
 * retried. A fault from kernel mode (copyin/copyout) falls through to the
 * exception table and the system call returns -EFAULT (-ENOMEM when memory
 * ran out).
 */
#include "kernel/proc.h"
#include "kernel/oom.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "mm/as.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/trap.h"

static int last_fault_error;   /* as_fault result for the report */

static bool handle_page_fault(struct trapframe *tf, uint64_t addr)
{
	struct proc *p = current_proc();
	if (!p || !p->as || !is_user_addr(addr))
		return false;
	if ((tf->error & PF_PRESENT) && (tf->error & PF_RSVD))
		return false;
	int r = as_fault(p->as, addr, tf->error & PF_WRITE, tf->error & PF_INSTR);
	last_fault_error = r;
	uaccess_fault_error = r;   /* a copy from the kernel reports -ENOMEM */
	return r == 0;
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

/* A fault from user mode that the address space could not resolve: the
 * program's handler runs if it has one (signal_fault), else it dies. Non-page
 * faults report the instruction address (siginfo's si_addr). */
static void handle_user_fault(struct trapframe *tf, uint64_t addr)
{
	switch (tf->vector) {
	case T_PF:
		if (last_fault_error == -ENOMEM) {   /* reclaim already failed */
			oom_kill_for_fault(addr, tf->rip);
			return;                      /* retry the access */
		}
		if (last_fault_error == -EIO) {      /* past the end of a file */
			signal_fault(tf, SIGBUS, BUS_ADRERR, "access past the end of the file",
				     addr);
			return;
		}
		signal_fault(tf, SIGSEGV, tf->error & PF_PRESENT ? SEGV_ACCERR : SEGV_MAPERR,
			     pf_reason(tf->error), addr);
		return;
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

void pagefault_init(void)
{
	page_fault_hook = handle_page_fault;
	user_fault_hook = handle_user_fault;
}
