/* kernel/sys_thread.c -- the small thread system calls: set_robust_list,
 * get_robust_list, sched_getaffinity (clone is kernel/sys_proc.c's, futex
 * kernel/futex.c's, tgkill kernel/sys_signal.c's). */
#include "kernel/syscall.h"
#include "kernel/proc.h"
#include "lib/errno.h"
#include "mm/uaccess.h"
#include "arch/x86_64/smp.h"

#define ROBUST_LIST_HEAD_SIZE 24   /* struct robust_list_head on x86-64 */

/* set_robust_list(head, len): the list the kernel walks when the thread
 * exits or execs (kernel/futex.c: the futexes it still owns are marked
 * FUTEX_OWNER_DIED and a waiter of each woken); get_robust_list reads it. */
static long sys_set_robust_list(const uint64_t a[6])
{
	if (a[1] != ROBUST_LIST_HEAD_SIZE)
		return -EINVAL;
	current_proc()->robust_list = a[0];
	current_proc()->robust_len = a[1];
	return 0;
}

/* get_robust_list(tid, head_ptr, len_ptr): of the caller or of a thread of
 * its process (tid 0: the caller). */
static long sys_get_robust_list(const uint64_t a[6])
{
	spin_lock(&proc_lock);
	struct proc *t = a[0] ? thread_find(current_proc()->tgid, (int)a[0]) : current_proc();
	uint64_t head = t ? t->robust_list : 0, len = ROBUST_LIST_HEAD_SIZE;
	spin_unlock(&proc_lock);
	if (!t)
		return -ESRCH;
	if (copyout(a[1], &head, sizeof(head)) < 0 || copyout(a[2], &len, sizeof(len)) < 0)
		return -EFAULT;
	return 0;
}

/* sched_getaffinity(pid, len, mask): every online CPU (no thread is pinned).
 * Linux's rules: len must cover the kernel's mask (8 bytes here) and be a
 * multiple of 8; the result is the bytes written. */
static long sys_sched_getaffinity(const uint64_t a[6])
{
	uint64_t mask = smp_online_mask();
	if (a[1] < sizeof(mask) || (a[1] & (sizeof(long) - 1)))
		return -EINVAL;
	if (a[0]) {
		spin_lock(&proc_lock);
		struct proc *t = thread_find(0, (int)a[0]);
		spin_unlock(&proc_lock);
		if (!t)
			return -ESRCH;
	}
	return copyout(a[2], &mask, sizeof(mask)) < 0 ? -EFAULT : (long)sizeof(mask);
}

const struct syscall_entry sys_thread_table[] = {
	{ SYS_set_robust_list, "set_robust_list", sys_set_robust_list },
	{ SYS_get_robust_list, "get_robust_list", sys_get_robust_list },
	{ SYS_sched_getaffinity, "sched_getaffinity", sys_sched_getaffinity },
	{ 0, NULL, NULL },
};
