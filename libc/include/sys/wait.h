/* sys/wait.h -- newlib's (its W* macros decode Linux status words: exit
 * code << 8, or the signal in the low 7 bits), plus wait4. The glue maps
 * signal numbers in statuses to newlib's <signal.h> numbering. */
#ifndef PAGODA_SYS_WAIT_H
#define PAGODA_SYS_WAIT_H

#include_next <sys/wait.h>

struct rusage;
/* wait4: waitpid with a resource-usage result; ru must be NULL on Pagoda. */
pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru);

#endif
