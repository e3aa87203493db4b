/* kernel/proc.h -- processes and their threads.
 *
 * A struct proc is one thread: a kernel stack holding its saved user
 * registers (tf) and kernel context (ctx), its signal mask and TLS base,
 * and references on what it shares with the other threads of its process
 * (kernel/thread.h): the address space (mm/as.h), open files, directory,
 * dispositions, the thread group. A process is a thread group; its leader's
 * place in the process tree is the process's. States:
 *
 *   UNUSED -> EMBRYO -> RUNNABLE <-> RUNNING -> ZOMBIE -> (reaped) UNUSED
 *   (a thread that is not its group's leader is reaped by nobody: its
 *   slot is freed once it has switched away, kernel/thread.h)
 *                          ^            |
 *                          +- SLEEPING <+
 */
#ifndef KERNEL_PROC_H
#define KERNEL_PROC_H

#include "lib/types.h"
#include "kernel/signal.h"
#include "lib/spinlock.h"
#include "lib/rwsem.h"
#include "arch/x86_64/context.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "kernel/itimer.h"
#include "kernel/thread.h"

#define NPROC 128         /* process table size: fork fails with EAGAIN past it */
#define PROC_NAME_MAX 16
#define PROC_CMDLINE_MAX 256   /* bytes of argv kept for /proc/PID/cmdline */

enum proc_state { P_UNUSED, P_EMBRYO, P_RUNNABLE, P_RUNNING, P_SLEEPING, P_ZOMBIE };

struct addrspace;
struct file;
struct inode;

struct proc {
	int pid;                     /* the thread id (gettid) */
	int tgid;                    /* the thread group's pid (getpid) */
	enum proc_state state;
	int cpu;                     /* the CPU it runs on (RUNNING) or last ran on */
	char name[PROC_NAME_MAX];
	char cmdline[PROC_CMDLINE_MAX];  /* argv of the last execve, NUL after each */
	uint32_t cmdline_len;        /* bytes used (cut at PROC_CMDLINE_MAX) */
	struct proc *parent;
	struct proc *vfork_parent;   /* sleeping in vfork until we exec or exit */
	struct addrspace *as;        /* user memory; NULL for kernel threads */
	struct sleep_locks_held sleep_locks;   /* its sleeping locks' ranks (lib/rwsem.h) */
	void *kstack_top;
	struct trapframe *tf;        /* saved user registers, top of kstack */
	struct context *ctx;         /* saved kernel registers (swtch) */
	const void *wait_chan;       /* what a SLEEPING process waits for */
	uint64_t wait_deadline;      /* sleep_on_until: clock_ns() to wake at; 0: none */
	bool killed;                 /* dies on its way back to user mode */
	int kill_signal;             /* signal that killed it (wait status) */
	struct sigstate sig;         /* this thread's pending and blocked signals */
	struct thread_group *tg;     /* kernel/thread.h: shared by CLONE_THREAD */
	void (*kthread_fn)(void *);  /* a kernel thread's function (kernel/kthread.h) */
	void *kthread_arg;
	struct sighand *sighand;     /* dispositions: shared by CLONE_SIGHAND */
	struct fdtable *fdt;         /* descriptors: shared by CLONE_FILES */
	struct fs_context *fs;       /* current directory: shared by CLONE_FS */
	int exit_status;             /* Linux wait status word */
	uint64_t fs_base;            /* arch_prctl(ARCH_SET_FS) */
	uint64_t clear_child_tid;    /* set_tid_address: zeroed and woken at exit */
	uint64_t set_child_tid;      /* CLONE_CHILD_SETTID: the child stores its tid
	                              * there itself on its way to user mode */
	uint64_t robust_list, robust_len;   /* set_robust_list: walked at exit and exec */
	struct file *held[FD_HELD_MAX];     /* fd_get's references, dropped at */
	int nheld;                          /* the end of the system call */
	struct inode *exe;           /* the program of the last execve (/proc/PID/exe): a
				      * reference; changed under proc_lock (proc_set_exe) */
	uint64_t utime_ticks, stime_ticks;
	uint64_t min_flt, maj_flt;   /* this thread's page faults (its own writes alone) */
	uint64_t start_ticks;
	struct itimer itimer[NR_ITIMERS];   /* alarm/setitimer (kernel/itimer.h) */
	struct fpu_state fpu;        /* user x87/SSE registers while switched out */
};

/* Linux wait status words. */
#define W_EXITCODE(code) (((code) & 0xff) << 8)
#define W_TERMSIG(sig) ((sig) & 0x7f)


extern struct spinlock proc_lock;
extern struct proc proc_table[NPROC];

static inline struct proc *current_proc(void)
{
	return this_cpu()->current;
}

/* Is p its thread group's leader (its tid is the group's pid)? */
static inline bool proc_is_leader(const struct proc *p)
{
	return p->pid == p->tgid;
}

void proc_init(void);

/* Create the first user process running path (argv0..), made RUNNABLE.
 * Returns its pid or -errno. */
int proc_spawn_init(const char *path, const char *const argv[]);

/* fork: duplicate the calling process. Child pid, or -errno. */
int proc_fork(void);

/* What clone(2) in its fork-like forms asks beyond a fork (kernel/sys_proc.c
 * checks the flags): the child's stack pointer (0: the parent's), where to
 * write the child's pid in the parent's memory and in the child's (0: not),
 * and the child's clear_child_tid (set_tid_address). */
struct fork_req {
	vaddr_t stack, parent_tid, child_tid, clear_tid;
	unsigned flags;        /* FORK_VFORK */
	uint64_t clone_flags;  /* CLONE_VM, CLONE_THREAD, ... (kernel/thread.h) */
	uint64_t tls;          /* the child's FS base with CLONE_SETTLS */
};
/* vfork(2) / CLONE_VFORK: the parent sleeps until the child execs or exits
 * (or the parent is killed). The child still gets its own copy of memory. */
#define FORK_VFORK 0x1

/* proc_fork with req applied to the child before it can run (req NULL: a
 * plain fork). Child pid, or -errno. A tid address that cannot be written
 * is skipped, as Linux does. */
int proc_fork_req(const struct fork_req *req);

/* p execs or exits: wake its parent if it sleeps in vfork for p. */
void proc_vfork_release(struct proc *p);

/* Terminate the calling process with a wait status word; never returns.
 * For init, the registered init-exit hook runs first (and never returns). */
__noreturn void proc_exit(int status);

/* What happens when init exits with a wait status: fn never returns (the
 * test harness registers ktest_init_exited: report, exit QEMU with the
 * status, power off). Set once at boot; without one, init's exit panics
 * (Linux: "Attempted to kill init"). */
typedef __noreturn void (*init_exit_fn)(int status);
void proc_set_init_exit(init_exit_fn fn);

/* CPU time of p's process in ticks (HZ): its live threads' and the exited
 * ones', and that of its reaped children (times(2), like Linux's group
 * totals). Takes proc_lock. */
struct group_times {
	uint64_t utime, stime, cutime, cstime;
	uint64_t min_flt, maj_flt, cmin_flt, cmaj_flt;   /* page faults, the same way */
};
void proc_group_times(const struct proc *p, struct group_times *t);
/* The same with proc_lock held (/proc's show functions). */
void proc_group_times_locked(const struct proc *p, struct group_times *t);

/* wait4: reap a zombie child (pid > 0: that one; -1: any). */
int proc_wait(int pid, int *status, int options);

/* kill(2): send sig to pid (0 only checks that it exists). 0, or -ESRCH
 * when pid names no process; a zombie not reaped yet still exists (0, the
 * signal is dropped, as on Linux). A signal init has no handler for is
 * dropped and still returns 0 (Linux's SIGNAL_UNKILLABLE; kernel/signal.c). */
int proc_kill(int pid, int sig);

/* Send sig to every process but init (the console's ^C). */
void proc_signal_all(int sig);

/* Kill the current process for a fault, with a one-line report. */
/* Is p the first process (init)? */
bool proc_is_init(const struct proc *p);

__noreturn void proc_die(int sig, const char *why, uint64_t addr, uint64_t rip);

/* Give back an EMBRYO's or a reaped ZOMBIE's slot and kernel stack (a
 * zombie's only once it has switched away for good). */
void proc_free(struct proc *p);

/* p's program becomes exe (its reference passes; NULL at exit): the old
 * one is put. Process context (the put may free the file). */
void proc_set_exe(struct proc *p, struct inode *exe);

/* Look up a thread by tid, zombies included (proc_lock held); a process's
 * pid is its leader's tid. */
struct proc *proc_find(int pid);
/* For a reader of another process's memory (/proc, introspection): find
 * pid (not EMBRYO) and return it with proc_lock held (its fields stable)
 * and its address space in *asp, referenced and locked for reading (NULL:
 * it has none, e.g. a zombie). NULL when there is no such process (nothing
 * held). proc_unlock_memory(*asp) releases all of it. May sleep. */
struct proc *proc_lock_memory(int pid, struct addrspace **asp);
void proc_unlock_memory(struct addrspace *as);

/* Run the VM invariant checker (mm/vmcheck.h) over every address
 * space (mm/as.h's as_for_each: the processes' and those no process shows
 * yet or any more), with the other CPUs stopped: 0, -ENOMEM, or a panic
 * naming what is wrong. With the `vmcheck` kernel option it also runs at
 * every exit. */
int proc_vmcheck(void);

/* Set the name shown by ps (from the program's basename). */
void proc_set_name(struct proc *p, const char *path);

/* Keep argv (NULL-terminated) as p's command line, each string followed by
 * its NUL, cut at PROC_CMDLINE_MAX bytes. */
void proc_set_cmdline(struct proc *p, const char *const argv[]);

/* The last pid handed out (/proc/loadavg). */
int proc_last_pid(void);

/* The PSS of every process, summed (2^-PSS_SHIFT pages, mm/memstat.h), and
 * the distinct frames they map: the two sides of PSS's promise. Both ~0
 * ("unknown") when there is no memory for the census bitmap. */
void proc_pss_census(uint64_t *pss_frac, uint64_t *frames);

/* Processes running or runnable, and all live ones (not UNUSED or EMBRYO);
 * takes proc_lock. */
void proc_count(int *running, int *total);

/* Scheduler (kernel/sched.c). */
__noreturn void scheduler(void);
void sched_yield(void);
void sched(void);                         /* proc_lock held, state set */
void sleep_on(const void *chan, struct spinlock *lk);
/* sleep_on that also ends at the first tick at or past clock_ns() deadline
 * (the caller checks the clock: a wakeup may come earlier, or spuriously). */
void sleep_on_until(const void *chan, struct spinlock *lk, uint64_t deadline);
/* sleep_on / sleep_on_until for a call a signal interrupts (pipe and tty
 * reads, futex waits): it does not sleep if a signal that interrupts
 * (signal_interrupted) is pending by the time it holds proc_lock. The
 * caller's own check before is under its lock, not proc_lock, and a sender
 * on another CPU marks the signal and wakes sleepers under proc_lock: it
 * could come between the two and find the caller not asleep yet. The
 * caller checks again after (its loop). */
void sleep_on_signal(const void *chan, struct spinlock *lk);
void sleep_on_signal_until(const void *chan, struct spinlock *lk, uint64_t deadline);
/* Where p sleeps (/proc/PID/wchan): the first return address on its saved
 * stack outside SLEEP_TEXT (lib/wait.h), found when asked, as Linux's
 * get_wchan, not at every sleep; 0 when p does not sleep. proc_lock held:
 * p cannot wake and run on its stack meanwhile. */
uint64_t sleep_site(struct proc *p);
void wakeup(const void *chan);            /* proc_lock NOT held */
void wakeup_locked(const void *chan);     /* proc_lock held */
/* Make p RUNNABLE (proc_lock held) and kick an idle CPU to come and run it. */
void sched_make_runnable_locked(struct proc *p);
/* Something p must see on its way back to user mode changed (a signal, a
 * kill; proc_lock held): if p runs on another CPU now, interrupt it so it
 * looks at once instead of at its next tick. */
void sched_notify_locked(struct proc *p);
void sched_init(void);
/* Stop every other CPU at a safe point (returning to user mode, or in its
 * scheduler loop: never inside a kernel operation) and keep it there until
 * sched_resume_others: for checkers that need every address space still
 * (proc_vmcheck). The caller holds no lock; may wait for another stopper.
 * On one CPU both do nothing. */
void sched_stop_others(void);
void sched_resume_others(void);
void sleep_until_ns(uint64_t deadline);   /* nanosleep */

/* The 1, 5 and 15 minute load averages in hundredths (1.50 is 150). */
void sched_loadavg(unsigned long hundredths[3]);

/* Where the CPU's timer ticks went since boot, and context switches. */
struct cpu_times {
	uint64_t user, system, idle;   /* ticks in user mode, kernel, idle */
	uint64_t switches;             /* processes switched to */
};
/* Summed over the CPUs, and of one CPU (0 .. ncpus-1). */
void sched_cpu_times(struct cpu_times *t);
void sched_cpu_times_of(int cpu, struct cpu_times *t);

#endif
