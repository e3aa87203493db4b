/* pagoda/syscall.h -- numbers of Pagoda's own system calls.
 *
 * Pagoda implements the Linux x86-64 system call ABI (numbers, registers,
 * -errno returns). Numbers from 1000 up are Pagoda extensions for
 * introspection; Linux answers them with ENOSYS, which every user of these
 * calls must handle. The structures they fill are in pagoda/vmquery.h,
 * pagoda/meminfo.h, pagoda/procinfo.h, pagoda/forkbench.h, pagoda/pttree.h and
 * pagoda/filecache.h. This header uses only <stdint.h>
 * types so that the kernel, newlib programs and musl programs can share it.
 */
#ifndef PAGODA_SYSCALL_H
#define PAGODA_SYSCALL_H

#define SYS_pagoda_vmquery  1000  /* (addr, struct pagoda_vmquery *)        */
#define SYS_pagoda_meminfo  1001  /* (struct pagoda_meminfo *)               */
#define SYS_pagoda_procinfo 1002  /* (index, struct pagoda_procinfo *)       */
#define SYS_pagoda_vmcheck  1003  /* (void): run the VM invariant checker    */
#define SYS_pagoda_forkbench 1004 /* (req, result): in-kernel fork benchmark */
#define SYS_pagoda_pttree   1005  /* (pid, lo, hi, depth, struct pagoda_ptnode *, max) */
#define SYS_pagoda_filecache 1006 /* (fd, struct pagoda_cachenode *, max)    */

#endif
