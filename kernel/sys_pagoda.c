/* kernel/sys_pagoda.c -- Pagoda's introspection system calls (numbers from
 * 1000; the structures are shared with user space in libc/include/pagoda/).
 *
 *   pagoda_vmquery(addr, q)   how one user address is mapped
 *   pagoda_meminfo(m)         system-wide memory counters
 *   pagoda_procinfo(i, p)     the i-th live process, for ps
 *   pagoda_vmcheck()          run the VM invariant checker (mm/vmcheck.h)
 *   pagoda_forkbench(req, r)  the in-kernel fork benchmark (kernel/forkbench_measure.h)
 *   pagoda_pttree(pid, ...)   a process's page-table pages (mm/pttree.h)
 */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/forkbench_measure.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/as.h"
#include "mm/fault.h"
#include "mm/kmalloc.h"
#include "mm/lazyfree.h"
#include "mm/memstat.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/reclaim.h"
#include "mm/tlb.h"
#include "mm/ptshare.h"
#include "mm/pttree.h"
#include "mm/uaccess.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"
#include "libc/include/pagoda/meminfo.h"
#include "libc/include/pagoda/procinfo.h"
#include "libc/include/pagoda/vmquery.h"

/* ---- vmquery: one walk down to va, remembering the PD entry and leaf ---- */

struct vmq_walk {
	struct pagoda_vmquery *q;
	pte_t pde;
};

static int vmq_pde(struct walk *w)
{
	struct vmq_walk *s = w->arg;
	s->pde = pte_read(w->ep);
	if (!pte_huge(s->pde)) {
		struct page *pt = pa_to_page(pte_addr(s->pde));
		s->q->pt_pa = pte_addr(s->pde);
		s->q->pt_share_count = pt->pt.share;
		s->q->pt_present_count = pt->count;
	}
	return 0;
}

static int vmq_pte(struct walk *w)
{
	struct pagoda_vmquery *q = ((struct vmq_walk *)w->arg)->q;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	q->mapped = 1;
	q->pte = e;
	q->page_size = (uint32_t)pgl_entry_size(w->level);
	q->pa = pte_addr(e) + (w->va & (q->page_size - 1));
	q->prot = !pte_present(e) ? 0 :   /* PROT_NONE */
		  VMQ_READ | (pte_writable(e) ? VMQ_WRITE : 0) |
		  (pte_exec(e) ? VMQ_EXEC : 0) | (pte_user(e) ? VMQ_USER : 0);
	q->soft = (pte_cow(e) ? VMQ_COW : 0) | (pte_lazyfree(e) ? VMQ_LAZYFREE : 0) |
		  (pte_file(e) ? VMQ_FILE : 0) | (pte_dirty(e) ? VMQ_DIRTY : 0) |
		  (pte_accessed(e) ? VMQ_ACCESSED : 0);
	q->frame_refcount = pg ? pg->refcount : 0;
	return 0;
}

static const struct walk_ops vmq_ops = { .pde = vmq_pde, .pte = vmq_pte };

static long sys_vmquery(const uint64_t a[6])
{
	vaddr_t va = ALIGN_DOWN(a[0], PAGE_SIZE);
	if (a[0] >= USER_TOP)
		return -EINVAL;
	struct pagoda_vmquery q = { .va = va };
	struct vmq_walk s = { .q = &q };
	struct walk w = { .ops = &vmq_ops, .pgt = current_proc()->as->pgt, .arg = &s };
	walk_range(&w, va, va + PAGE_SIZE);
	if (pte_present(s.pde) && !pte_writable(s.pde))
		q.soft |= VMQ_PT_WRPROT;
	return copyout(a[1], &q, sizeof(q));
}

/* ---- meminfo ---- */

_Static_assert(PSS_SHIFT == PAGODA_PSS_SHIFT, "one fixed point for PSS");

static long sys_meminfo(const uint64_t a[6])
{
	struct pagoda_meminfo m = { 0 };
	struct mm_meminfo mi;
	mm_meminfo(&mi);
	proc_pss_census(&m.pss_total_frac, &m.user_frames);
	m.shared_pt_pages = mi.shared_pt;
	m.pt_saved_pages = mi.pt_saved;
	m.ptshare_mode = ptshare_mode;
	m.fork_shared_pt = ptshare_stats.fork_shared;
	m.text_shared_pt = ptshare_stats.text_attached;
	m.pt_unshares = ptshare_stats.unshare_copy;
	m.total_pages = mi.total;
	m.free_pages = mi.free;
	m.kernel_pages = mi.kernel;
	m.anon_pages = mi.anon;
	m.file_pages = mi.file;
	m.pagetable_pages = mi.pagetable;
	m.page_faults = fault_stats.zero + fault_stats.zero_page + fault_stats.file + fault_stats.cow;
	m.cow_faults = fault_stats.cow;
	m.tlb_flushes = tlb_stats.flush_one + tlb_stats.flush_full;
	m.lazyfree_pages = mi.lazyfree;
	m.pglazyfree = lazyfree_stats.marked;
	m.pglazyfreed = lazyfree_stats.discarded;
	m.reclaim_scans = reclaim_stats.scans;
	m.oom_kills = reclaim_stats.oom_kills;
	return copyout(a[0], &m, sizeof(m));
}

/* ---- procinfo ---- */

static uint32_t proc_state_letter(enum proc_state s)
{
	return s == P_ZOMBIE ? PROC_STATE_ZOMBIE :
	       s == P_SLEEPING ? PROC_STATE_SLEEPING : PROC_STATE_RUNNABLE;
}

static long sys_procinfo(const uint64_t a[6])
{
	if ((int64_t)a[0] < 0)
		return -EINVAL;
	struct pagoda_procinfo pi = { 0 };
	struct as_memstat st = { 0 };
	uint64_t seen = 0;
	bool found = false;
	spin_lock(&proc_lock);
	for (int i = 0; i < NPROC && !found; i++) {
		struct proc *p = &proc_table[i];
		if (p->state == P_UNUSED || p->state == P_EMBRYO || seen++ != a[0])
			continue;
		found = true;
		pi.pid = p->pid;
		pi.ppid = p->parent ? p->parent->pid : 0;
		pi.state = proc_state_letter(p->state);
		memcpy(pi.name, p->name, sizeof(pi.name));
		if (p->as)
			as_memstat(p->as, &st);
	}
	spin_unlock(&proc_lock);
	if (!found)
		return -ESRCH;
	pi.vm_pages = st.vm_pages;
	pi.rss_pages = st.rss_pages;
	pi.pss_pages = st.pss_pages;
	pi.lazyfree_pages = st.lazyfree_pages;
	pi.pt_pages = st.pt_pages;
	pi.shared_pt_pages = st.shared_pt_pages;
	return copyout(a[1], &pi, sizeof(pi));
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
 * or -ESRCH. proc_lock keeps the address space alive meanwhile. */
static long pttree_of(const uint64_t a[6], struct pagoda_ptnode *buf, size_t max)
{
	long n = -ESRCH;
	spin_lock(&proc_lock);
	struct proc *p = proc_find((int)a[0]);
	if (p && p->state != P_EMBRYO)
		n = p->as ? (long)pt_tree(p->as->pgt, a[1], a[2], (int)a[3], buf, max) : 0;
	spin_unlock(&proc_lock);
	return n;
}

/* pagoda_pttree(pid, lo, hi, depth, buf, max): mm/pttree.c describes the
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

const struct syscall_entry sys_pagoda_table[] = {
	{ SYS_pagoda_vmquery, "pagoda_vmquery", sys_vmquery },
	{ SYS_pagoda_meminfo, "pagoda_meminfo", sys_meminfo },
	{ SYS_pagoda_procinfo, "pagoda_procinfo", sys_procinfo },
	{ SYS_pagoda_vmcheck, "pagoda_vmcheck", sys_vmcheck },
	{ SYS_pagoda_forkbench, "pagoda_forkbench", sys_forkbench },
	{ SYS_pagoda_pttree, "pagoda_pttree", sys_pttree },
	{ 0, NULL, NULL },
};
