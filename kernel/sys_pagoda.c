/* kernel/sys_pagoda.c -- Pagoda's introspection system calls (numbers from
 * 1000; the structures are shared with user space in libc/include/pagoda/).
 *
 *   pagoda_vmquery(addr, q)   how one user address is mapped
 *   pagoda_meminfo(m)         system-wide memory counters
 *   pagoda_procinfo(i, p)     the i-th live process, for ps
 *   pagoda_vmcheck()          run the VM invariant checker (mm/vmcheck.h)
 *   pagoda_forkbench(req, r)  the in-kernel fork benchmark (kernel/forkbench/measure.h)
 *   pagoda_pttree(pid, ...)   a process's page-table pages (mm/pt/pttree.h)
 *   pagoda_filecache(fd, ...) an open file's page cache (mm/pagecache.h)
 */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/forkbench/measure.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/as.h"
#include "mm/introspect.h"
#include "mm/frame/kmalloc.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/pttree.h"
#include "mm/uaccess.h"
#include "mm/pagecache.h"
#include "libc/include/pagoda/filecache.h"
#include "kernel/file.h"
#include "fs/file.h"
#include "arch/x86_64/memlayout.h"

/* ---- vmquery, meminfo, procinfo: computed by mm (mm/introspect.h) ---- */

static long sys_vmquery(const uint64_t a[6])
{
	if (a[0] >= USER_TOP)
		return -EINVAL;
	struct pagoda_vmquery q;
	struct addrspace *as = current_proc()->as;
	as_lock_read(as);
	as_vmquery(as, a[0], &q);
	as_unlock_read(as);
	return copyout(a[1], &q, sizeof(q));
}

static long sys_meminfo(const uint64_t a[6])
{
	struct pagoda_meminfo m = { 0 };
	mm_fill_meminfo(&m);
	proc_pss_census(&m.pss_total_frac, &m.user_frames);
	m.kmalloc_objects = kmalloc_live();
	return copyout(a[0], &m, sizeof(m));
}

static uint32_t proc_state_letter(enum proc_state s)
{
	return s == P_ZOMBIE ? PROC_STATE_ZOMBIE :
	       s == P_SLEEPING ? PROC_STATE_SLEEPING : PROC_STATE_RUNNABLE;
}

/* The index-th live process into *pi (proc_lock held): found? */
/* The index-th visible process (table order), or 0. proc_lock held. */
static int pid_at(uint64_t index)
{
	uint64_t seen = 0;
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (p->state != P_UNUSED && p->state != P_EMBRYO && seen++ == index)
			return p->pid;
	}
	return 0;
}

static bool procinfo_of(int pid, struct pagoda_procinfo *pi)
{
	struct addrspace *as;
	struct proc *p = pid ? proc_lock_memory(pid, &as) : NULL;
	if (!p)
		return false;
	pi->pid = p->pid;
	pi->ppid = p->parent ? p->parent->pid : 0;
	pi->state = proc_state_letter(p->state);
	memcpy(pi->name, p->name, sizeof(pi->name));
	if (as)
		as_fill_procinfo(as, pi);
	proc_unlock_memory(as);
	return true;
}

static long sys_procinfo(const uint64_t a[6])
{
	if ((int64_t)a[0] < 0)
		return -EINVAL;
	struct pagoda_procinfo pi = { 0 };
	spin_lock(&proc_lock);
	int pid = pid_at(a[0]);
	spin_unlock(&proc_lock);
	return procinfo_of(pid, &pi) ? copyout(a[1], &pi, sizeof(pi)) : -ESRCH;
}

/* ---- vmcheck ---- */

static long sys_vmcheck(const uint64_t a[6])
{
	(void)a;
	return proc_vmcheck();
}

/* ---- forkbench ---- */

/* Copy the request in, run it (minutes for big sizes), copy the results
 * out. The results are checked for writability first, so a bad pointer
 * costs no run. */
static long sys_forkbench(const uint64_t a[6])
{
	struct pagoda_forkbench_req req;
	struct pagoda_forkbench_result *res = kmalloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	long r = copyin(&req, a[0], sizeof(req));
	if (r == 0)
		r = forkbench_check_req(&req);
	if (r == 0)
		r = clear_user(a[1], sizeof(*res));
	if (r == 0)
		r = forkbench_run(&req, res, NULL);
	if (r == 0)
		r = copyout(a[1], res, sizeof(*res));
	kfree(res);
	return r;
}

/* ---- pttree ---- */

/* Are pagoda_pttree's range [a[1], a[2]), depth a[3] and max a[5] valid? */
static bool pttree_args_valid(const uint64_t a[6])
{
	vaddr_t lo = a[1], hi = a[2], user_end = PML4_KERNEL_FIRST * pgl_entry_size(PGL_PML4);
	return (int64_t)a[5] >= 0 && lo < hi && hi <= user_end && IS_ALIGNED(lo | hi, PAGE_SIZE) &&
	       a[3] >= 1 && a[3] <= PGL_PML4;
}

/* Describe the tables of process a[0] into buf (max nodes): their number,
 * or -ESRCH. proc_lock_memory keeps its address space still meanwhile. */
static long pttree_of(const uint64_t a[6], struct pagoda_ptnode *buf, size_t max)
{
	struct addrspace *as;
	if (!proc_lock_memory((int)a[0], &as))
		return -ESRCH;
	long n = as ? (long)pt_tree(as->pgt, a[1], a[2], (int)a[3], buf, max) : 0;
	proc_unlock_memory(as);
	return n;
}

/* pagoda_pttree(pid, lo, hi, depth, buf, max): mm/pt/pttree.c describes the
 * tables into a kernel buffer (the walk must not fault on buf), then one
 * copyout of the part that fits. */
static long sys_pttree(const uint64_t a[6])
{
	if (!pttree_args_valid(a))
		return -EINVAL;
	size_t max = a[5] < PAGODA_PTTREE_MAX ? a[5] : PAGODA_PTTREE_MAX;
	struct pagoda_ptnode *buf = kmalloc(max * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	long n = pttree_of(a, buf, max);
	long r = n < 0 ? n : copyout(a[4], buf, ((size_t)n < max ? (size_t)n : max) * sizeof(*buf));
	kfree(buf);
	return r < 0 ? r : n;
}

/* ---- filecache ---- */

/* pagoda_filecache(fd, buf, max): the cache described into a kernel
 * buffer under its lock (no fault may happen there), then one copyout. */
static long sys_filecache(const uint64_t a[6])
{
	if ((int64_t)a[2] < 0)
		return -EINVAL;
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	struct pagecache *pc = file_cache(f);
	if (!pc)
		return -EINVAL;
	size_t max = a[2] < PAGODA_FILECACHE_MAX ? a[2] : PAGODA_FILECACHE_MAX;
	struct pagoda_cachenode *buf = kmalloc(max * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	long n = (long)pagecache_describe(pc, buf, max);
	long r = copyout(a[1], buf, ((size_t)n < max ? (size_t)n : max) * sizeof(*buf));
	kfree(buf);
	return r < 0 ? r : n;
}

const struct syscall_entry sys_pagoda_table[] = {
	{ SYS_pagoda_vmquery, "pagoda_vmquery", sys_vmquery },
	{ SYS_pagoda_meminfo, "pagoda_meminfo", sys_meminfo },
	{ SYS_pagoda_procinfo, "pagoda_procinfo", sys_procinfo },
	{ SYS_pagoda_vmcheck, "pagoda_vmcheck", sys_vmcheck },
	{ SYS_pagoda_forkbench, "pagoda_forkbench", sys_forkbench },
	{ SYS_pagoda_pttree, "pagoda_pttree", sys_pttree },
	{ SYS_pagoda_filecache, "pagoda_filecache", sys_filecache },
	{ 0, NULL, NULL },
};
