/* kernel/oom.h -- choosing and killing a process when memory runs out. */
#ifndef KERNEL_OOM_H
#define KERNEL_OOM_H

#include "lib/types.h"

/* A user page fault of the current process at addr found no frame even
 * after reclaim. Kill the process with the largest resident set (init only
 * when it is the only process with memory), with a console line naming the
 * victim, its RSS and the fault that asked, counted in
 * fault_stats_sum().oom_kills. Returns when the faulting process should retry
 * the access: the victim is another process (or an earlier victim is still
 * dying), and the CPU was given away so that it can exit; does not return
 * when the faulting process is the victim. */
void oom_kill_for_fault(uint64_t addr, uint64_t rip);

#endif
