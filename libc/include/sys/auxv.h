/* sys/auxv.h -- the ELF auxiliary vector the kernel put on the stack. */
#ifndef _SYS_AUXV_H
#define _SYS_AUXV_H

#include <pagoda/abi-auxv.h>  /* AT_* (shared with the kernel) */

/* getauxval: the value of entry type, or 0 (errno ENOENT) if absent. */
unsigned long getauxval(unsigned long type);

#endif
