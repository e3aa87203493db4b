/* arch/x86_64/pv_native.h -- the native backend as the other backends and
 * the patcher see it. */
#ifndef ARCH_X86_64_PV_NATIVE_H
#define ARCH_X86_64_PV_NATIVE_H

#include "arch/x86_64/pv_ops.h"

/* The native table (pv_ops starts out as a copy of it). */
extern const struct pv_ops pv_native_ops;

/* Native instructions that can replace a call site inline. */
struct pv_insn {
	const uint8_t *start;   /* the instruction bytes (in .rodata) ... */
	const uint8_t *end;     /* ... up to here; none: does nothing natively */
	uint16_t clobbers;      /* PV_CLOB_* registers they write */
};

/* The template for slot when fn, the active backend's function there, is
 * the native one; NULL otherwise (then the site gets a direct call). */
const struct pv_insn *pv_native_insn(unsigned slot, const void *fn);

/* One NOP instruction of len bytes, 1 <= len <= PV_NOP_MAX; else NULL. */
#define PV_NOP_MAX 5
const uint8_t *pv_native_nop(unsigned len);

#endif
