/* arch/x86_64/syscall_init.c -- enable the syscall instruction. */
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/trap.h"

#define FMASK_BITS (RFLAGS_IF | (1UL << 8) /* TF */ | (1UL << 10) /* DF */ | \
		    (1UL << 18) /* AC */)

extern char syscall_entry[];

/* STAR: kernel CS/SS from 0x08, user CS/SS from 0x10 (+16 / +8, RPL 3). */
void syscall_init(void)
{
	pv_wrmsr(MSR_EFER, pv_rdmsr(MSR_EFER) | EFER_SCE);
	pv_wrmsr(MSR_STAR, ((uint64_t)(SEG_KDATA | 3) << 48) |
				       ((uint64_t)SEG_KCODE << 32));
	pv_wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	pv_wrmsr(MSR_FMASK, FMASK_BITS);
}
