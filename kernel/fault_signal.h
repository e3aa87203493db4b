/* kernel/fault_signal.h -- what an exception from user mode means for the
 * process: the signal, the one-line report, the OOM kill (fault_signal.c). */
#ifndef KERNEL_FAULT_SIGNAL_H
#define KERNEL_FAULT_SIGNAL_H

/* Install the page-fault and user-fault hooks of arch/x86_64/trap.h. Once,
 * at boot, before the first process runs. */
void fault_signal_init(void);

#endif
