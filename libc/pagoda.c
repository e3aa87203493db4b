/* libc/pagoda.c -- wrappers for Pagoda's own system calls (1000 and up).
 * Contracts: libc/include/pagoda/ (vmquery.h, meminfo.h, procinfo.h,
 * forkbench.h, pttree.h).
 * Built into newlib and musl programs alike. */
#include <pagoda/pagoda.h>
#include "raw_syscall.h"

int pagoda_vmquery(const void *addr, struct pagoda_vmquery *q)
{
	return (int)sys_result(raw_syscall2(SYS_pagoda_vmquery, addr, q));
}

int pagoda_meminfo(struct pagoda_meminfo *m)
{
	return (int)sys_result(raw_syscall1(SYS_pagoda_meminfo, m));
}

int pagoda_procinfo(long index, struct pagoda_procinfo *p)
{
	return (int)sys_result(raw_syscall2(SYS_pagoda_procinfo, index, p));
}

long pagoda_pttree(int pid, uint64_t lo, uint64_t hi, int depth, struct pagoda_ptnode *buf,
		   long max)
{
	return sys_result(raw_syscall6(SYS_pagoda_pttree, pid, (long)lo, (long)hi, depth, (long)buf, max));
}

long pagoda_filecache(int fd, struct pagoda_cachenode *buf, long max)
{
	return sys_result(raw_syscall3(SYS_pagoda_filecache, fd, buf, max));
}

int pagoda_vmcheck(void)
{
	return (int)sys_result(raw_syscall0(SYS_pagoda_vmcheck));
}

int pagoda_forkbench(const struct pagoda_forkbench_req *req, struct pagoda_forkbench_result *res)
{
	return (int)sys_result(raw_syscall2(SYS_pagoda_forkbench, req, res));
}
