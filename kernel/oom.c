/* kernel/oom.c -- the out-of-memory killer (Linux's oom_kill.c, reduced to
 * its rule): when a page fault finds no frame even after reclaim, the
 * process using the most memory dies, not whoever asked last. The badness
 * of a process is its RSS (mm/pgtable.h's pgt_rss: present pages, the zero
 * page excluded, in O(page-table pages)); init is spared while any other
 * process holds memory. A victim frees its memory when it next runs (it
 * dies on its way back to user mode), so the faulting process yields and
 * retries; while a victim is still dying no second one is chosen.
 */
#include "kernel/oom.h"
#include "kernel/proc.h"
#include "lib/printk.h"
#include "mm/as.h"
#include "mm/pgtable.h"
#include "mm/fault.h"

/* Can p be chosen (alive, with user memory)? */
static bool oom_candidate(const struct proc *p)
{
	return p->as && (p->state == P_RUNNABLE || p->state == P_RUNNING ||
			 p->state == P_SLEEPING);
}

/* A killed process that may still hold its memory (proc_lock held): not
 * a zombie yet. Its p->as goes before its memory does (exit_release clears
 * it, then frees the address space), and on several CPUs the faulting
 * process gets here meanwhile: choosing by p->as killed a second victim. */
static bool victim_dying(void)
{
	for (int i = 0; i < NPROC; i++) {
		const struct proc *p = &proc_table[i];
		if (p->killed && (p->state == P_RUNNABLE || p->state == P_RUNNING ||
				  p->state == P_SLEEPING))
			return true;
	}
	return false;
}

/* The process with the largest RSS, init only if it is the only one;
 * *rss = its RSS in pages (proc_lock held). */
static struct proc *oom_pick(uint64_t *rss)
{
	struct proc *best = NULL;
	*rss = 0;
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (!oom_candidate(p) || proc_is_init(p))
			continue;
		uint64_t r = pgt_rss(p->as->pgt);
		if (!best || r > *rss) {
			best = p;
			*rss = r;
		}
	}
	for (int i = 0; i < NPROC && !best; i++) {
		struct proc *p = &proc_table[i];
		if (oom_candidate(p) && proc_is_init(p)) {
			best = p;
			*rss = pgt_rss(p->as->pgt);
		}
	}
	return best;
}

void oom_kill_for_fault(uint64_t addr, uint64_t rip)
{
	struct proc *cur = current_proc();
	uint64_t rss;
	spin_lock(&proc_lock);
	if (cur->killed) {            /* chosen already: go now */
		spin_unlock(&proc_lock);
		proc_die(SIGKILL, "out of memory on page fault", addr, rip);
	}
	if (victim_dying()) {
		spin_unlock(&proc_lock);
		sched_yield();        /* let the victim exit, then retry */
		return;
	}
	struct proc *v = oom_pick(&rss);
	if (!v)
		v = cur;
	fault_count_oom_kill();
	printk("oom: out of memory on a page fault of pid %d (%s) at %#lx: killed pid %d (%s), "
	       "rss %lu KiB, the largest\n", cur->pid, cur->name, addr, v->pid, v->name,
	       rss * 4);
	if (v != cur)
		signal_send_locked(v, SIGKILL, 0);
	spin_unlock(&proc_lock);
	if (v == cur)
		proc_die(SIGKILL, "out of memory on page fault", addr, rip);
	sched_yield();
}
