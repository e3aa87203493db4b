/* arch/x86_64/pv_patch.h -- the call-site patcher (pv_patch.c). */
#ifndef ARCH_X86_64_PV_PATCH_H
#define ARCH_X86_64_PV_PATCH_H

#include "lib/types.h"

/* The direct call a site can become: e8 <rel32 from the next instruction>. */
#define CALL_REL32_OPCODE 0xe8
#define CALL_REL32_LEN 5

struct pv_patch_stats {
	unsigned inlined;   /* sites now holding the native instructions */
	unsigned direct;    /* sites now calling the backend directly */
};

/* Number of records in .pvsites. */
unsigned pv_site_count(void);

/* Rewrite every site for the backend now in pv_ops. Interrupts off, one
 * CPU, text frames writable through the direct map (after mm_init). */
struct pv_patch_stats pv_patch_sites(void);

#endif
