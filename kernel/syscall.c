/* kernel/syscall.c -- dispatch a system call from its trap frame. */
#include "kernel/syscall.h"
#include "mm/reclaim.h"
#include "kernel/reclaimd.h"
#include "lib/cmdline.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "kernel/file.h"
#include "kernel/proc.h"
#include "arch/x86_64/trap.h"

static syscall_fn table[NSYSCALLS];
static const char *names[NSYSCALLS];
static bool trace;   /* kernel option `strace`: print every system call */

static void add_table(const struct syscall_entry *t)
{
	for (; t->fn; t++) {
		if (t->nr >= NSYSCALLS || table[t->nr])
			panic("syscall %s: bad or duplicate number %u", t->name, t->nr);
		table[t->nr] = t->fn;
		names[t->nr] = t->name;
	}
}

/* Fill the dispatch array from the per-area tables. */
void syscall_table_init(void)
{
	add_table(sys_proc_table);
	add_table(sys_file_table);
	add_table(sys_lock_table);
	add_table(sys_path_table);
	add_table(sys_mem_table);
	add_table(sys_misc_table);
	add_table(sys_itimer_table);
	add_table(sys_pagoda_table);
	add_table(sys_signal_table);
	add_table(sys_futex_table);
	add_table(sys_thread_table);
	add_table(sys_swap_table);
	trace = cmdline_has("strace");
}

/* `strace`: one line per call, "pid name(a0, a1, a2) = result". */
static void trace_call(const struct proc *p, uint64_t nr, const uint64_t a[6], long r)
{
	const char *name = nr < NSYSCALLS && names[nr] ? names[nr] : "?";
	printk("strace: %d %s#%lu(%#lx, %#lx, %#lx, %#lx) = %ld\n", p->pid, name, nr,
	       a[0], a[1], a[2], a[3], r);
}

void syscall_dispatch(struct trapframe *tf)
{
	struct proc *p = current_proc();
	p->tf = tf;
	uint64_t nr = tf->rax;
	const uint64_t arg[6] = { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9 };
	long r = -ENOSYS;
	reclaim_if_low();   /* direct reclaim: no lock held here (mm/reclaim.h) */
	if (!reclaim_free_above(reclaim_min))   /* still short (only the thread can swap): wait for */
		(void)reclaimd_wait();   /* one of its runs, as Linux throttles direct reclaim */
	if (nr < NSYSCALLS && table[nr])
		r = table[nr](arg);
	fd_release_held(p);   /* the files fd_get held for the call */
	if (trace)
		trace_call(p, nr, arg, r);
	tf->rax = (uint64_t)r;
	if (user_return_hook)
		user_return_hook(tf);
}
