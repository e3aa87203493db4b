/* arch/x86_64/sigframe.c -- building and unwinding signal frames. */
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/trap.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/uaccess.h"

#define RED_ZONE 128
#define FPU_ALIGN 64
#define RFLAGS_CF (1UL << 0)
#define RFLAGS_PF (1UL << 2)
#define RFLAGS_AF (1UL << 4)
#define RFLAGS_ZF (1UL << 6)
#define RFLAGS_SF (1UL << 7)
#define RFLAGS_TF (1UL << 8)
#define RFLAGS_DF (1UL << 10)
#define RFLAGS_OF (1UL << 11)
#define RFLAGS_RF (1UL << 16)
#define RFLAGS_AC (1UL << 18)
/* the flags a program may change through its signal frame */
#define RFLAGS_FROM_FRAME (RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | RFLAGS_SF | \
		     RFLAGS_TF | RFLAGS_DF | RFLAGS_OF | RFLAGS_RF | RFLAGS_AC)

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

_Static_assert(sizeof(struct sigcontext) == 256, "Linux sigcontext layout");
_Static_assert(sizeof(struct siginfo) == 128, "Linux siginfo layout");

/* Copy the general registers between a trap frame and a sigcontext. */
#define SIGCONTEXT_REGS(X) X(r8) X(r9) X(r10) X(r11) X(r12) X(r13) X(r14) X(r15) \
	X(rdi) X(rsi) X(rbp) X(rbx) X(rdx) X(rax) X(rcx) X(rsp) X(rip)

int sigframe_push(struct trapframe *tf, uint64_t handler, uint64_t restorer,
		  const struct ksiginfo *info, uint64_t blocked)
{
	uint64_t fpu_at = ALIGN_DOWN(tf->rsp - RED_ZONE - sizeof(struct fpu_state), FPU_ALIGN);
	uint64_t at = ALIGN_DOWN(fpu_at - sizeof(struct sigframe), 16) - 8;   /* as after a call */
	struct fpu_state fpu;
	struct sigframe f;

	memset(&f, 0, sizeof(f));
	f.pretcode = restorer;
#define SAVE(r) f.uc.mc.r = tf->r;
	SIGCONTEXT_REGS(SAVE)
#undef SAVE
	f.uc.mc.rflags = tf->rflags;
	f.uc.mc.cs = (uint16_t)tf->cs;
	f.uc.mc.ss = (uint16_t)tf->ss;
	f.uc.mc.err = tf->error;
	f.uc.mc.trapno = tf->vector;
	f.uc.mc.oldmask = blocked;
	f.uc.mc.cr2 = info->addr;
	f.uc.mc.fpstate = fpu_at;
	f.uc.sigmask = blocked;
	f.info.signo = info->signo;
	f.info.code = info->code;
	if (info->code == SI_USER)
		f.info.kill.pid = info->pid;
	else
		f.info.addr = info->addr;
	fpu_save(&fpu);
	if (!is_user_addr(at) || copyout(fpu_at, &fpu, sizeof(fpu)) < 0 ||
	    copyout(at, &f, sizeof(f)) < 0)
		return -EFAULT;

	tf->rsp = at;
	tf->rip = handler;
	tf->rdi = (uint64_t)info->signo;
	tf->rsi = at + offsetof(struct sigframe, info);
	tf->rdx = at + offsetof(struct sigframe, uc);
	tf->rax = 0;
	tf->rflags &= ~(RFLAGS_TF | RFLAGS_DF);
	return 0;
}

int sigframe_pop(struct trapframe *tf, uint64_t *blocked)
{
	struct sigframe f;
	struct fpu_state fpu;

	if (copyin(&f, tf->rsp - 8, sizeof(f)) < 0)
		return -EFAULT;
	if (!is_user_addr(f.uc.mc.rip) || !is_user_addr(f.uc.mc.rsp))
		return -EFAULT;   /* iretq to a kernel or non-canonical address */
	if (f.uc.mc.fpstate) {
		if (copyin(&fpu, f.uc.mc.fpstate, sizeof(fpu)) < 0)
			return -EFAULT;
		fpu_state_sanitize(&fpu);
		fpu_restore(&fpu);
	}
#define LOAD(r) tf->r = f.uc.mc.r;
	SIGCONTEXT_REGS(LOAD)
#undef LOAD
	tf->rflags = (tf->rflags & ~RFLAGS_FROM_FRAME) | (f.uc.mc.rflags & RFLAGS_FROM_FRAME);
	*blocked = f.uc.sigmask;
	return 0;
}
