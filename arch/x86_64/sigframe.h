/* arch/x86_64/sigframe.h -- the signal frame on the user stack (Linux x86-64
 * layout, so programs built for Linux find their registers where they expect).
 *
 *   higher addresses    interrupted stack (rsp), then 128 bytes of red zone
 *                       FPU state (fxsave image, 64-byte aligned)
 *                       struct siginfo
 *                       struct ucontext (registers, fpstate pointer, mask)
 *   rsp of handler ->   return address = sa_restorer (calls rt_sigreturn)
 */
#ifndef ARCH_X86_64_SIGFRAME_H
#define ARCH_X86_64_SIGFRAME_H

#include "lib/types.h"

struct trapframe;

/* What the handler learns about the signal (siginfo_t's first fields). */
struct ksiginfo {
	int signo, code;
	int pid;            /* sender, for kill() */
	uint64_t addr;      /* faulting address, for SIGSEGV/SIGBUS/SIGILL/SIGFPE */
};

#define SI_USER 0
#define SI_KERNEL 0x80
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRERR 2        /* SIGBUS: nonexistent physical address (past EOF) */

/* Save the registers in tf, the live FPU state and the blocked mask on the
 * user stack and point tf at handler(sig, info, ucontext) returning to
 * restorer. 0, or -EFAULT when the stack cannot hold the frame. */
int sigframe_push(struct trapframe *tf, uint64_t handler, uint64_t restorer,
		  const struct ksiginfo *info, uint64_t blocked);

/* rt_sigreturn: reload tf, the FPU state and *blocked from the frame the
 * handler returned from (tf->rsp - 8). 0, or -EFAULT for an unreadable or
 * invalid frame (non-user rip/rsp). */
int sigframe_pop(struct trapframe *tf, uint64_t *blocked);

#endif
