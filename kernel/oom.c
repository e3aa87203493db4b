/* kernel/oom.c -- the out-of-memory killer (Linux's oom_kill.c, reduced to
 * its rule): when a page fault finds no frame even after reclaim, the
 * process using the most memory dies, not whoever asked last. The badness
 * of a process is its RSS (mm/pt/pgtable.h's pgt_rss: present pages, the zero
 * page excluded, in O(page-table pages)); init is spared while any other
 * process holds memory. A victim frees its memory when it next runs (it
 * dies on its way back to user mode), so the faulting process yields and
 * retries; while a victim is still dying, or its address space not yet
 * freed (up to a second), no second one is chosen, and none at all when
 * free memory is above the min watermark again by the time it would
 * choose within a second of the last kill (that victim's memory came
 * back after this fault's allocation failed: the fault is retried).
 * Each RSS is read under its process's address-space lock, never under
 * proc_lock alone (which does not stop an munmap freeing tables).
 */
#include "kernel/oom.h"
#include "kernel/proc.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "mm/as.h"
#include "mm/pt/pgtable.h"
#include "mm/fault.h"
#include "mm/reclaim.h"
#include "arch/x86_64/timer.h"

/* Can p be chosen (alive, with user memory)? */
static bool oom_candidate(const struct proc *p)
{
	return p->as && (p->state == P_RUNNABLE || p->state == P_RUNNING ||
			 p->state == P_SLEEPING);
}

#define OOM_WAIT_NS 1000000000ULL   /* how long a victim's memory is waited for */
static uint64_t last_kill_ns;       /* clock_ns() of the last kill */

/* A killed process that may still hold its memory (proc_lock held): not
 * a zombie yet. Its p->as goes before its memory does (exit_release clears
 * it, then frees the address space), and on several CPUs the faulting
 * process gets here meanwhile: choosing by p->as killed a second victim. */
static bool victim_dying(void)
{
	/* a victim's memory not freed yet (another CPU's OOM walk may hold its
	 * address space after it became a zombie): wait, for a while -- one
	 * shared with a live process (a vfork parent) is never freed by the
	 * victim's death, and after OOM_WAIT_NS the killer chooses again */
	if (as_oom_victims_pending() && clock_ns() - atomic_load(&last_kill_ns) < OOM_WAIT_NS)
		return true;
	for (int i = 0; i < NPROC; i++) {
		const struct proc *p = &proc_table[i];
		if (p->killed && (p->state == P_RUNNABLE || p->state == P_RUNNING ||
				  p->state == P_SLEEPING))
			return true;
	}
	return false;
}

/* The last victim's memory came back after this fault's allocation failed
 * (free frames above the min watermark within OOM_WAIT_NS of the kill):
 * retry, do not choose again. Asked after victim_dying, which sees a victim
 * gone only once its frames are free. Bounded in time, so an allocation
 * that fails for another reason (a larger block) still ends in a kill. */
static bool victim_memory_back(void)
{
	return clock_ns() - atomic_load(&last_kill_ns) < OOM_WAIT_NS && reclaim_free_above(reclaim_min);
}

/* p's RSS in pages, or 0 when it cannot be chosen (proc_lock and its
 * address space's lock held, by proc_lock_memory). */
static uint64_t candidate_rss(const struct proc *p, const struct addrspace *as)
{
	return as && oom_candidate(p) ? pgt_rss(as->pgt) : 0;
}

/* The pid of the process with the largest RSS, init only if it is the only
 * one with memory; *rss = its RSS in pages; 0 if there is none. Each RSS
 * is read under that process's address-space lock (proc_lock_memory), as
 * /proc does: a walk of another process's tables without it reads tables
 * its munmap is freeing. May sleep; called with no lock held. */
static int oom_pick(uint64_t *rss)
{
	int best = 0, init = 0;
	uint64_t init_rss = 0;
	*rss = 0;
	for (int i = 0; i < NPROC; i++) {
		struct addrspace *as;
		int pid = atomic_load(&proc_table[i].pid);   /* a hint: looked up again */
		struct proc *p = pid > 0 ? proc_lock_memory(pid, &as) : NULL;
		if (!p)
			continue;
		uint64_t r = candidate_rss(p, as);
		if (r && proc_is_init(p)) {
			init = pid;
			init_rss = r;
		} else if (r > *rss) {
			best = pid;
			*rss = r;
		}
		proc_unlock_memory(as);
	}
	if (!best)
		*rss = init_rss;
	return best ? best : init;
}

/* The process pid still there and choosable (proc_lock held)? It may have
 * exited or exec'd since oom_pick let go of it. */
static struct proc *victim_still_there(int pid)
{
	struct proc *p = pid ? proc_find(pid) : NULL;
	return p && oom_candidate(p) ? p : NULL;
}

void oom_kill_for_fault(uint64_t addr, uint64_t rip)
{
	struct proc *cur = current_proc();
	uint64_t rss;
	int pid = oom_pick(&rss);
	spin_lock(&proc_lock);
	if (cur->killed) {            /* chosen already: go now */
		spin_unlock(&proc_lock);
		proc_die(SIGKILL, "out of memory on page fault", addr, rip);
	}
	struct proc *v = victim_still_there(pid);
	if (victim_dying() || (pid && !v) || victim_memory_back()) {
		spin_unlock(&proc_lock);
		sched_yield();        /* let the victim exit (or memory settle), then retry */
		return;
	}
	if (!v)
		v = cur;
	fault_count_oom_kill();
	printk("oom: out of memory on a page fault of pid %d (%s) at %#lx: killed pid %d (%s), "
	       "rss %lu KiB, the largest\n", cur->pid, cur->name, addr, v->pid, v->name,
	       rss * 4);
	as_mark_oom_victim(v->as);   /* v is a candidate: it has one */
	atomic_store(&last_kill_ns, clock_ns());
	if (v != cur)
		signal_send_locked(v, SIGKILL, 0);
	spin_unlock(&proc_lock);
	if (v == cur)
		proc_die(SIGKILL, "out of memory on page fault", addr, rip);
	sched_yield();
}
