/* arch/x86_64/sigframe.h -- the signal frame on the user stack (Linux x86-64
 * layout, so programs built for Linux find their registers where they expect).
 *
 *   higher addresses    interrupted stack (rsp), then 128 bytes of red zone
 *                       FPU state (fxsave image, 64-byte aligned)
 *                       struct siginfo
 *                       struct ucontext (registers, fpstate pointer, mask)
 *   rsp of handler ->   return address = sa_restorer (calls rt_sigreturn)
 *
 * This file knows the layout, the registers and the FPU; it does not touch
 * user memory. A frame is built here into a kernel buffer (struct
 * sigframe_image, with the user addresses it belongs at), copied out and in
 * by kernel/signal.c through mm's uaccess (every copy to user memory takes
 * mm's fault path, which arch must not call), and read back here.
 */
#ifndef ARCH_X86_64_SIGFRAME_H
#define ARCH_X86_64_SIGFRAME_H

#include "lib/types.h"
#include "arch/x86_64/fpu.h"

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

struct sigcontext {            /* Linux's struct sigcontext (64-bit) */
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, rflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;          /* user address of the fxsave image */
	uint64_t reserved[8];
};

struct ucontext {
	uint64_t flags, link;
	uint64_t ss_sp, ss_flags, ss_size;   /* stack_t: no alternate stacks */
	struct sigcontext mc;
	uint64_t sigmask;
};

struct siginfo {               /* siginfo_t: 128 bytes */
	int32_t signo, errno_, code, pad;
	union {
		uint64_t addr;                       /* faults */
		struct { int32_t pid; uint32_t uid; } kill;
		uint8_t bytes[112];
	};
};

struct sigframe {
	uint64_t pretcode;
	struct ucontext uc;
	struct siginfo info;
};

/* A frame and its FPU image, and the user addresses they belong at. */
struct sigframe_image {
	uint64_t at;               /* user address of frame (the handler's rsp) */
	uint64_t fpu_at;           /* user address of fpu, 0: none (sigreturn) */
	struct sigframe frame;
	struct fpu_state fpu;
};

/* Build the frame for handler delivery of info into *img: the registers in
 * tf, the live FPU state, the blocked mask, the return address restorer,
 * and where on tf's user stack (below the red zone) it goes. img->at may
 * be a kernel or non-canonical address (a bad rsp): the caller checks it
 * with is_user_addr before copying. Never fails. */
void sigframe_build(struct sigframe_image *img, const struct trapframe *tf,
		    uint64_t restorer, const struct ksiginfo *info, uint64_t blocked);

/* Point tf at handler(signo, &frame.info, &frame.uc) with the frame of img
 * (already copied to img->at) on its stack. */
void sigframe_enter(struct trapframe *tf, const struct sigframe_image *img,
		    uint64_t handler);

/* rt_sigreturn: the user address of the frame the handler returned from. */
uint64_t sigframe_return_addr(const struct trapframe *tf);

/* Reload tf, the FPU state (if img->fpu_at; img->fpu then holds the user's
 * image) and *blocked from the frame in img (copied in from img->at). 0, or
 * -EFAULT, changing nothing, for an invalid frame (non-user rip/rsp). */
int sigframe_load(struct trapframe *tf, struct sigframe_image *img, uint64_t *blocked);

#endif
