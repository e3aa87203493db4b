/* arch/x86_64/context.h -- saved kernel context of a sleeping thread. */
#ifndef ARCH_X86_64_CONTEXT_H
#define ARCH_X86_64_CONTEXT_H

#include "lib/types.h"

/* Layout of what swtch() leaves on a stack (lowest address first). */
struct context {
	uint64_t r15, r14, r13, r12, rbx, rbp;
	uint64_t rip;   /* return address of swtch */
};

void swtch(struct context **save, struct context *next);

#endif
