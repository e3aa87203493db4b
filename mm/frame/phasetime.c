/* mm/frame/phasetime.c -- per-phase TSC counters (see mm/frame/phasetime.h). */
#include "mm/frame/phasetime.h"

#if PHASETIME
bool phasetime_on;
#endif
struct phase_stat phase_stats[PH_COUNT];

static const char *const phase_names[PH_COUNT] = {
	[PH_FAULT] = "fault",
	[PH_FAULT_VMA] = "fault_vma",
	[PH_FAULT_WALK] = "fault_walk",
	[PH_FAULT_ALLOC] = "fault_alloc",
	[PH_FAULT_MAP] = "fault_map",
	[PH_FAULT_COW] = "fault_cow",
	[PH_FAULT_FORK_PARENT] = "fault_fork_parent",
	[PH_FAULT_FORK_CHILD] = "fault_fork_child",
	[PH_ZERO] = "zero_frame",
	[PH_PTPAGE_ALLOC] = "ptpage_alloc",
	[PH_FORK] = "fork",
	[PH_FORK_AS] = "fork_as",
	[PH_FORK_AS_CREATE] = "fork_as_create",
	[PH_FORK_VMA] = "fork_vma",
	[PH_FORK_ENTRIES] = "fork_entries",
	[PH_EXIT] = "exit",
	[PH_EXIT_AS] = "exit_as",
	[PH_WAIT_REAP] = "wait_reap",
	[PH_LAZYFREE] = "lazyfree",
	[PH_LAZYFREE_FLUSH] = "lazyfree_flush",
	[PH_PGT_DESTROY] = "pgt_destroy",
	[PH_PGT_LEAVE_CR3] = "pgt_leave_cr3",
	[PH_KSTACK_ALLOC] = "kstack_alloc",
	[PH_KSTACK_FREE] = "kstack_free",
};

/* The last fork's two address spaces and the faults each has left to count. */
static struct {
	const void *as[2];       /* parent, child */
	unsigned left[2];
} after_fork;

bool phasetime_set(bool on)
{
#if PHASETIME
	phasetime_on = on;
	return true;
#else
	return !on;
#endif
}

const char *phase_name(unsigned p)
{
	return p < PH_COUNT && phase_names[p] ? phase_names[p] : "?";
}

void phasetime_forked(const void *parent, const void *child)
{
	after_fork.as[0] = parent;
	after_fork.as[1] = child;
	after_fork.left[0] = after_fork.left[1] = PHASE_AFTER_FORK;
}

enum phase phasetime_fault_kind(const void *as)
{
	for (unsigned i = 0; i < 2; i++) {
		if (as == after_fork.as[i] && after_fork.left[i]) {
			after_fork.left[i]--;
			return i ? PH_FAULT_FORK_CHILD : PH_FAULT_FORK_PARENT;
		}
	}
	return PH_COUNT;
}
