/* kernel/thread.h -- threads: thread groups and the state their threads share.
 *
 * A struct proc is one thread (Linux's task). clone(2) decides, flag by flag,
 * what the new thread shares with its creator, each shared thing a
 * reference-counted object:
 *
 *   CLONE_VM       the address space (mm/as.h, as_get/as_put)
 *   CLONE_FILES    the descriptor table          struct fdtable
 *   CLONE_FS       the current directory          struct fs_context
 *   CLONE_SIGHAND  the signal dispositions        struct sighand
 *   CLONE_THREAD   the thread group: one pid (tgid) for all its threads,
 *                  process-directed signals, the group's exit status
 *                                                 struct thread_group
 *
 * The first thread of a group is its leader: its tid is the group's pid.
 * Only leaders are anyone's children: wait4 reports a group once its last
 * thread has exited, with the leader's exit status (or the status of an
 * exit_group or fatal signal, which ends every thread). A thread that is
 * not the leader is reaped by nobody: its slot is freed as soon as it has
 * switched away for the last time (thread_switched_out).
 *
 * Locking: thread-group fields and every group's membership are guarded by
 * proc_lock; the other objects' reference counts are atomic, their contents
 * have their own rules (struct fdtable's lock).
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include "lib/types.h"
#include "lib/spinlock.h"
#include "fs/vfs.h"
#include "kernel/signal.h"

#define NOFILE 64         /* open files per descriptor table */
#define FD_HELD_MAX 4     /* files one system call may hold through fd_get */

struct proc;
struct file;
struct inode;

/* Group flags (struct thread_group.flags). */
enum tg_flags {
	TG_EXITING = 0x1,   /* exit_group or a fatal signal: every thread dies */
	TG_EXEC = 0x2,      /* a thread execs and waits for the others to end */
};

struct thread_group {
	int refs;                 /* procs pointing here, zombies included */
	int live;                 /* threads that have not exited yet */
	struct proc *leader;      /* tid == the group's pid */
	unsigned flags;           /* enum tg_flags */
	int exit_status;          /* the group's wait status once TG_EXITING */
	uint64_t pending;         /* process-directed signals (kill) */
	int sender[NSIG];         /* pid that sent each of them */
	uint64_t utime_done, stime_done;  /* ticks of its threads that exited */
	uint64_t cutime, cstime;  /* ticks of its reaped children (and theirs) */
	uint64_t min_flt, maj_flt;   /* page faults of its threads that exited: without
				      * and with a read from the disk (Linux's) */
	uint64_t cmin_flt, cmaj_flt; /* those of its reaped children (and theirs) */
};

struct fdtable {
	int refs;                 /* atomic */
	struct spinlock lock;     /* slot changes (fd_alloc, fd_put, ...) */
	struct file *files[NOFILE];
	uint64_t cloexec;         /* bit fd: close files[fd] at execve */
};

struct fs_context {
	int refs;                 /* atomic */
	struct spinlock lock;     /* where (chdir on one thread, walks on others) */
	struct fs_root where;     /* root and current directory (path references) */
	uint32_t umask;
};

struct sighand {
	int refs;                 /* atomic */
	struct k_sigaction action[NSIG];   /* action[sig - 1]; proc_lock */
};

/* clone(2) flags (Linux's values). */
#define CSIGNAL 0x000000ffUL
#define CLONE_VM 0x00000100UL
#define CLONE_FS 0x00000200UL
#define CLONE_FILES 0x00000400UL
#define CLONE_SIGHAND 0x00000800UL
#define CLONE_VFORK 0x00004000UL
#define CLONE_PARENT 0x00008000UL
#define CLONE_THREAD 0x00010000UL
#define CLONE_SYSVSEM 0x00040000UL
#define CLONE_SETTLS 0x00080000UL
#define CLONE_PARENT_SETTID 0x00100000UL
#define CLONE_CHILD_CLEARTID 0x00200000UL
#define CLONE_DETACHED 0x00400000UL
#define CLONE_CHILD_SETTID 0x01000000UL

/* The first thread's objects (proc_spawn_init): 0 or -ENOMEM (nothing
 * allocated). */
int thread_init_first(struct proc *p);

/* Give child what clone's flags say it shares with parent, copies of the
 * rest (a fork: flags 0). 0, or -ENOMEM with nothing of child's held
 * (thread_release undoes a partial one). */
int thread_share(struct proc *child, struct proc *parent, uint64_t flags);

/* Drop p's references on its descriptor table, directory and dispositions
 * (at exit; the last reference closes the files). Takes proc_lock to clear
 * the pointers (signals from other CPUs then skip p): not with it held. */
void thread_release(struct proc *p);

/* Drop p's reference on its group (proc_lock held); the last frees it. */
void thread_group_put(struct proc *p);

/* Threads of p's group still alive (proc_lock held): /proc Threads:. */
int thread_count(const struct proc *p);

/* End every other thread of p's group with wait status `status` as the
 * group's (first caller wins), p included if it is not `except` (proc_lock
 * held). The threads die on their way back to user mode; sleeping ones are
 * woken. */
void thread_group_kill_locked(struct proc *p, int status, const struct proc *except);

/* exit_group(2): end every thread of the caller's group; never returns. */
__noreturn void thread_exit_group(int status);

/* A successful execve from p: every other thread of the group is ended and
 * waited for; if p was not the leader it takes the leader's place and pid
 * (Linux's de_thread). The descriptor table, directory and dispositions
 * become p's own if another process shares them. 0; -EAGAIN when the group
 * is already ending or another thread's exec won (p is killed and dies on
 * its way out, as on Linux: of two threads calling execve at once, one
 * exec wins); or -ENOMEM (a copy failed; the threads are gone all the same,
 * as on Linux past the point of no return). */
int thread_exec(struct proc *p);

/* The scheduler switched away from p for good (proc_lock held): free the
 * slot of a thread that exited and that nobody reaps. */
void thread_switched_out(struct proc *p);

/* The thread of p's group with tid `tid` (proc_lock held), or NULL. */
struct proc *thread_find(int tgid, int tid);

/* Descriptor table helpers (kernel/thread.c). fdtable_copy: a new table
 * holding references on every file of t; NULL on OOM. */
struct fdtable *fdtable_copy(struct fdtable *t);

#endif
