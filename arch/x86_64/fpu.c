/* arch/x86_64/fpu.c -- enable SSE and save/restore user FPU state. */
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/string.h"

#define CR0_MP (1UL << 1)
#define CR0_EM (1UL << 2)
#define CR0_TS (1UL << 3)
#define CR4_OSXMMEXCPT (1UL << 10)
#define FXSAVE_MXCSR_OFFSET 24
#define FXSAVE_MXCSR_MASK_OFFSET 28
#define MXCSR_MASK_DEFAULT 0xffbf   /* when the CPU reports 0 */
#define FXSAVE_USED 416             /* bytes FXSAVE writes; 416-511 it leaves alone */

static struct fpu_state clean_state;

void fpu_init(void)
{
	fpu_init_cpu();
	fpu_save(&clean_state);
}

void fpu_init_cpu(void)
{
	uint64_t cr0 = pv_read_cr0();
	pv_write_cr0((cr0 & ~(CR0_EM | CR0_TS)) | CR0_MP);
	pv_write_cr4(pv_read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	__asm__ volatile("fninit");
	uint32_t mxcsr = 0x1f80;   /* all SSE exceptions masked, round to nearest */
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
}

void fpu_state_reset(struct fpu_state *st)
{
	memcpy(st, &clean_state, sizeof(*st));
}

void fpu_save(struct fpu_state *st)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*st));
	memset(st->fx + FXSAVE_USED, 0, sizeof(st->fx) - FXSAVE_USED);
}

void fpu_restore(const struct fpu_state *st)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*st));
}

void fpu_state_sanitize(struct fpu_state *st)
{
	uint32_t mask, mxcsr;
	memcpy(&mask, clean_state.fx + FXSAVE_MXCSR_MASK_OFFSET, sizeof(mask));
	if (mask == 0)
		mask = MXCSR_MASK_DEFAULT;
	memcpy(&mxcsr, st->fx + FXSAVE_MXCSR_OFFSET, sizeof(mxcsr));
	mxcsr &= mask;
	memcpy(st->fx + FXSAVE_MXCSR_OFFSET, &mxcsr, sizeof(mxcsr));
}
