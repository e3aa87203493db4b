/* arch/x86_64/setjmp.h -- non-local return inside the kernel (tests only). */
#ifndef ARCH_X86_64_SETJMP_H
#define ARCH_X86_64_SETJMP_H

#include "lib/types.h"

struct jmpbuf {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

int arch_setjmp(struct jmpbuf *jb) __attribute__((returns_twice));
__noreturn void arch_longjmp(struct jmpbuf *jb, int val);

/* While armed, a kernel-mode fault that nothing else handles resumes at the
 * catcher's setjmp (returning 1) instead of panicking. */
struct fault_catcher {
	struct jmpbuf jb;
	uint64_t vector, addr;
};
extern struct fault_catcher *fault_catcher;

#endif
