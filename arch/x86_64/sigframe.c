/* arch/x86_64/sigframe.c -- building and reading signal frames (the copies
 * to and from the user stack are kernel/signal.c's: see sigframe.h). */
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/trap.h"
#include "lib/errno.h"
#include "lib/string.h"

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

_Static_assert(sizeof(struct sigcontext) == 256, "Linux sigcontext layout");
_Static_assert(sizeof(struct siginfo) == 128, "Linux siginfo layout");

/* Copy the general registers between a trap frame and a sigcontext. */
#define SIGCONTEXT_REGS(X) X(r8) X(r9) X(r10) X(r11) X(r12) X(r13) X(r14) X(r15) \
	X(rdi) X(rsi) X(rbp) X(rbx) X(rdx) X(rax) X(rcx) X(rsp) X(rip)

/* The registers of tf into a sigcontext. */
static void save_context(struct sigcontext *mc, const struct trapframe *tf)
{
#define SAVE(r) mc->r = tf->r;
	SIGCONTEXT_REGS(SAVE)
#undef SAVE
	mc->rflags = tf->rflags;
	mc->cs = (uint16_t)tf->cs;
	mc->ss = (uint16_t)tf->ss;
	mc->err = tf->error;
	mc->trapno = tf->vector;
}

void sigframe_build(struct sigframe_image *img, const struct trapframe *tf,
		    uint64_t restorer, const struct ksiginfo *info, uint64_t blocked)
{
	struct sigframe *f = &img->frame;
	img->fpu_at = ALIGN_DOWN(tf->rsp - RED_ZONE - sizeof(struct fpu_state), FPU_ALIGN);
	img->at = ALIGN_DOWN(img->fpu_at - sizeof(struct sigframe), 16) - 8;   /* as after a call */
	memset(f, 0, sizeof(*f));
	f->pretcode = restorer;
	save_context(&f->uc.mc, tf);
	f->uc.mc.oldmask = blocked;
	f->uc.mc.cr2 = info->addr;
	f->uc.mc.fpstate = img->fpu_at;
	f->uc.sigmask = blocked;
	f->info.signo = info->signo;
	f->info.code = info->code;
	if (info->code == SI_USER)
		f->info.kill.pid = info->pid;
	else
		f->info.addr = info->addr;
	fpu_save(&img->fpu);
}

void sigframe_enter(struct trapframe *tf, const struct sigframe_image *img,
		    uint64_t handler)
{
	tf->rsp = img->at;
	tf->rip = handler;
	tf->rdi = (uint64_t)img->frame.info.signo;
	tf->rsi = img->at + offsetof(struct sigframe, info);
	tf->rdx = img->at + offsetof(struct sigframe, uc);
	tf->rax = 0;
	tf->rflags &= ~(RFLAGS_TF | RFLAGS_DF);
}

uint64_t sigframe_return_addr(const struct trapframe *tf)
{
	return tf->rsp - 8;   /* the handler's ret popped pretcode */
}

int sigframe_load(struct trapframe *tf, struct sigframe_image *img, uint64_t *blocked)
{
	const struct sigframe *f = &img->frame;
	if (!is_user_addr(f->uc.mc.rip) || !is_user_addr(f->uc.mc.rsp))
		return -EFAULT;   /* iretq to a kernel or non-canonical address */
	if (img->fpu_at) {
		fpu_state_sanitize(&img->fpu);
		fpu_restore(&img->fpu);
	}
#define LOAD(r) tf->r = f->uc.mc.r;
	SIGCONTEXT_REGS(LOAD)
#undef LOAD
	tf->rflags = (tf->rflags & ~RFLAGS_FROM_FRAME) | (f->uc.mc.rflags & RFLAGS_FROM_FRAME);
	*blocked = f->uc.sigmask;
	return 0;
}
