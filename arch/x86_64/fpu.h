/* arch/x86_64/fpu.h -- x87/SSE state for user programs.
 *
 * The kernel itself never touches SSE (-mgeneral-regs-only), so each
 * process's FPU/SSE registers only need saving when the scheduler switches
 * processes: fxsave into the one leaving, fxrstor from the one coming.
 */
#ifndef ARCH_X86_64_FPU_H
#define ARCH_X86_64_FPU_H

#include "lib/types.h"

struct fpu_state {
	uint8_t fx[512];
} __aligned(16);

/* Enable SSE (CR0.MP, CR4.OSFXSR/OSXMMEXCPT) and build the clean state. */
void fpu_init(void);

/* Enable SSE on this CPU and reset its x87/SSE control (every AP; fpu_init
 * does it for the BSP). */
void fpu_init_cpu(void);

/* A fresh state: x87 and SSE exceptions masked, registers zero. */
void fpu_state_reset(struct fpu_state *st);

/* Save this CPU's x87/SSE state into every byte of *st: FXSAVE's image,
 * with the 96 reserved and software bytes it never writes (416-511) zero,
 * so a copy to user space (a signal frame) discloses nothing. */
void fpu_save(struct fpu_state *st);
void fpu_restore(const struct fpu_state *st);

/* Clear MXCSR bits this CPU does not support, so that fxrstor of a state a
 * user program handed in (rt_sigreturn) cannot fault in the kernel. */
void fpu_state_sanitize(struct fpu_state *st);

#endif
