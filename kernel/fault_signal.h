/* kernel/fault_signal.h -- what an exception from user mode means for the
 * process: the signal, the one-line report, the OOM kill (fault_signal.c). */
#ifndef KERNEL_FAULT_SIGNAL_H
#define KERNEL_FAULT_SIGNAL_H

#include "mm/as.h"

/* Install the page-fault and user-fault hooks of arch/x86_64/trap.h. Once,
 * at boot, before the first process runs. */
void fault_signal_init(void);

/* How page faults and madvise take the address-space lock: mode, or
 * AS_LOCK_WRITE for everything under the boot option fault_lock=write (the
 * pre-"sem" kernel of seed 002's ebizzy table; docs/benchmarks.md). */
enum as_lock_mode fault_lock_mode(enum as_lock_mode mode);

#endif
