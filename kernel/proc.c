/* kernel/proc.c -- the process table: creation, fork, exit, wait, kill. */
#include "kernel/proc.h"
#include "kernel/fs.h"
#include "lib/errno.h"
#include "lib/mutex.h"
#include "kernel/exec.h"
#include "kernel/file.h"
#include "kernel/futex.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/as.h"
#include "mm/memstat.h"
#include "mm/frame/phasetime.h"
#include "mm/uaccess.h"
#include "mm/pt/kstack.h"
#include "mm/vmcheck.h"
#include "lib/cmdline.h"
#include "arch/x86_64/reset.h"
#include "arch/x86_64/timer.h"

struct spinlock proc_lock = SPINLOCK_INIT("proc", LOCK_RANK_PROC);
struct proc proc_table[NPROC];
static int next_pid = 1;
static struct proc *init_proc;
static bool vmcheck_on_exit;   /* the `vmcheck` kernel option */

extern char trap_return[];

void proc_init(void)
{
	sched_init();
	vmcheck_on_exit = cmdline_has("vmcheck");
	if (vmcheck_on_exit)
		vmcheck_reserve();
}

struct proc *proc_find(int pid)
{
	for (int i = 0; i < NPROC; i++)
		if (proc_table[i].state != P_UNUSED && proc_table[i].pid == pid)
			return &proc_table[i];
	return NULL;
}

struct proc *proc_lock_memory(int pid, struct addrspace **asp)
{
	for (;;) {
		spin_lock(&proc_lock);
		struct proc *p = proc_find(pid);
		struct addrspace *as = p && p->state != P_EMBRYO ? p->as : NULL;
		if (!as) {
			*asp = NULL;
			if (p && p->state != P_EMBRYO)
				return p;
			spin_unlock(&proc_lock);
			return NULL;
		}
		as_get(as);                /* it cannot be freed while we wait */
		spin_unlock(&proc_lock);
		as_lock_read(as);          /* sleeping lock: outside proc_lock */
		spin_lock(&proc_lock);
		p = proc_find(pid);
		if (p && p->as == as) {
			*asp = as;
			return p;
		}
		spin_unlock(&proc_lock);   /* it exec'd or exited meanwhile: again */
		as_unlock_read(as);
		as_put(as);
	}
}

void proc_unlock_memory(struct addrspace *as)
{
	spin_unlock(&proc_lock);
	if (as) {
		as_unlock_read(as);
		as_put(as);
	}
}

void proc_set_name(struct proc *p, const char *path)
{
	const char *base = path;
	for (const char *s = path; *s; s++)
		if (*s == '/' && s[1])
			base = s + 1;
	strlcpy(p->name, base, sizeof(p->name));
}

void proc_set_cmdline(struct proc *p, const char *const argv[])
{
	uint32_t len = 0;
	for (int i = 0; argv && argv[i] && len < PROC_CMDLINE_MAX; i++) {
		size_t n = MIN(strlen(argv[i]) + 1, (size_t)(PROC_CMDLINE_MAX - len));
		memcpy(p->cmdline + len, argv[i], n);
		len += (uint32_t)n;
	}
	p->cmdline_len = len;
}

int proc_last_pid(void)
{
	return next_pid - 1;
}

/* Is p the first live slot using its address space (proc_lock held)? The
 * threads of a process share one: count it once. */
static bool as_first_user(const struct proc *p)
{
	for (const struct proc *q = proc_table; q < p; q++)
		if (q->as == p->as && q->state != P_UNUSED && q->state != P_EMBRYO)
			return false;
	return true;
}

void proc_pss_census(uint64_t *pss_frac, uint64_t *frames)
{
	struct frame_census c;
	*pss_frac = *frames = ~0ULL;
	if (frame_census_begin(&c) < 0)
		return;
	*pss_frac = 0;
	for (int i = 0; i < NPROC; i++) {
		struct addrspace *as;
		if (!proc_lock_memory(proc_table[i].pid, &as))
			continue;
		if (as && as_first_user(&proc_table[i])) {   /* threads: once */
			struct as_memstat st;
			as_memstat(as, &st);
			*pss_frac += st.pss_frac;
			frame_census_add(&c, as);
		}
		proc_unlock_memory(as);
	}
	*frames = frame_census_end(&c);
}

void proc_count(int *running, int *total)
{
	*running = *total = 0;
	spin_lock(&proc_lock);
	for (int i = 0; i < NPROC; i++) {
		enum proc_state s = proc_table[i].state;
		*running += s == P_RUNNING || s == P_RUNNABLE;
		*total += s != P_UNUSED && s != P_EMBRYO;
	}
	spin_unlock(&proc_lock);
}

/* First code a new process runs (from swtch): drop the scheduler's lock
 * and return to user mode through the trap frame. A CLONE_CHILD_SETTID
 * child stores its tid here, in its own address space through the MMU
 * (Linux's schedule_tail): a store like any user store, which sets the
 * entry's Dirty bit, so reclaim cannot drop it as a clean MADV_FREE page,
 * and which takes the fault path's locks. Best effort, as on Linux: a bad
 * address does not stop the child. */
static void proc_first_return(void)
{
	spin_unlock(&proc_lock);
	struct proc *p = current_proc();
	if (p->set_child_tid) {
		int tid = p->pid;
		(void)copyout(p->set_child_tid, &tid, sizeof(tid));
		p->set_child_tid = 0;
	}
}

/* Claim a table slot with a kernel stack whose top holds a trap frame and
 * whose context resumes in proc_first_return, then trap_return. EMBRYO. */
static struct proc *proc_alloc(void)
{
	spin_lock(&proc_lock);
	struct proc *p = NULL;
	for (int i = 0; i < NPROC && !p; i++)
		if (proc_table[i].state == P_UNUSED)
			p = &proc_table[i];
	if (!p) {
		spin_unlock(&proc_lock);
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->state = P_EMBRYO;
	p->pid = next_pid++;
	spin_unlock(&proc_lock);

	p->kstack_top = kstack_alloc();
	if (!p->kstack_top) {
		p->state = P_UNUSED;
		return NULL;
	}
	char *sp = p->kstack_top;
	sp -= sizeof(struct trapframe);
	p->tf = (struct trapframe *)sp;
	memset(p->tf, 0, sizeof(*p->tf));
	sp -= sizeof(uint64_t);
	*(uint64_t *)sp = (uint64_t)trap_return;   /* proc_first_return returns here */
	sp -= sizeof(struct context);
	p->ctx = (struct context *)sp;
	memset(p->ctx, 0, sizeof(*p->ctx));
	p->ctx->rip = (uint64_t)proc_first_return;
	p->start_ticks = timer_ticks();
	return p;
}

void proc_set_exe(struct proc *p, struct inode *exe)
{
	spin_lock(&proc_lock);
	struct inode *old = p->exe;
	p->exe = exe;
	spin_unlock(&proc_lock);
	inode_put(old);
}

void proc_free(struct proc *p)
{
	if (p->kstack_top)
		kstack_free(p->kstack_top);
	p->kstack_top = NULL;
	p->state = P_UNUSED;
}

int proc_spawn_init(const char *path, const char *const argv[])
{
	struct proc *p = proc_alloc();
	if (!p)
		return -ENOMEM;
	int r = thread_init_first(p);
	r = r ?: exec_load(p, path, argv, NULL);
	if (r < 0) {
		thread_release(p);
		spin_lock(&proc_lock);
		thread_group_put(p);
		spin_unlock(&proc_lock);
		proc_free(p);
		return r;
	}
	/* like Linux, pid 1 starts with the console as stdin/out/err */
	struct file *con;
	if (file_open("/dev/console", O_RDWR, &con) == 0) {
		for (int fd = 0; fd < 3; fd++)
			fd_install(p, fd ? file_dup(con) : con);
	}
	init_proc = p;
	spin_lock(&proc_lock);
	p->state = P_RUNNABLE;
	spin_unlock(&proc_lock);
	return p->pid;
}

int proc_fork(void)
{
	return proc_fork_req(NULL);
}

/* Apply a clone request to a child that does not run yet. The pid write
 * is best effort, as on Linux: a bad address does not fail the fork. */
static void fork_apply(struct proc *child, const struct fork_req *req)
{
	int pid = child->pid;
	if (req->stack)
		child->tf->rsp = req->stack;
	if (req->clone_flags & CLONE_SETTLS)
		child->fs_base = req->tls;
	child->clear_child_tid = req->clear_tid;
	child->set_child_tid = req->child_tid;   /* proc_first_return stores it */
	if (req->parent_tid)
		(void)copyout(req->parent_tid, &pid, sizeof(pid));
}

/* The vfork parent's sleep (proc_lock held): until child execs or exits,
 * or, as Linux's killable wait, the parent is killed. The child cannot be
 * reaped meanwhile: only this parent could reap it. */
static void vfork_wait(struct proc *child)
{
	struct proc *me = current_proc();
	child->vfork_parent = me;
	while (child->vfork_parent && !me->killed)
		sleep_on(child, &proc_lock);
	child->vfork_parent = NULL;
}

/* proc_fork_req without its timing (a vfork parent's wait included). */
static int fork_process(const struct fork_req *req)
{
	struct proc *parent = current_proc();
	uint64_t flags = req ? req->clone_flags : 0;
	struct proc *child = proc_alloc();
	if (!child)
		return -EAGAIN;
	if (flags & CLONE_VM) {
		child->as = as_get(parent->as);
	} else {
		as_lock_write(parent->as);      /* fork write-protects its entries */
		child->as = as_fork(parent->as);
		as_unlock_write(parent->as);
	}
	if (!child->as || thread_share(child, parent, flags) < 0) {
		as_put(child->as);
		proc_free(child);
		return -ENOMEM;
	}
	*child->tf = *parent->tf;
	fpu_save(&child->fpu);              /* the parent's live registers */
	child->tf->rax = 0;                 /* fork returns 0 in the child */
	child->fs_base = parent->fs_base;
	signal_fork(&child->sig, &parent->sig);
	child->exe = inode_get(parent->exe);
	memcpy(child->name, parent->name, sizeof(child->name));
	memcpy(child->cmdline, parent->cmdline, parent->cmdline_len);
	child->cmdline_len = parent->cmdline_len;
	if (req)
		fork_apply(child, req);
	int pid = child->pid;
	spin_lock(&proc_lock);
	sched_make_runnable_locked(child);
	if (req && (req->flags & FORK_VFORK))
		vfork_wait(child);
	spin_unlock(&proc_lock);
	return pid;
}

void proc_vfork_release(struct proc *p)
{
	spin_lock(&proc_lock);
	if (p->vfork_parent) {
		p->vfork_parent = NULL;
		wakeup_locked(p);
	}
	spin_unlock(&proc_lock);
}

int proc_fork_req(const struct fork_req *req)
{
	uint64_t t0 = phase_begin();
	int r = fork_process(req);
	phase_end(PH_FORK, t0);
	return r;
}

static init_exit_fn init_exit;   /* proc_set_init_exit */

void proc_set_init_exit(init_exit_fn fn)
{
	init_exit = fn;
}

/* Give p's children to init (proc_lock held); wake init if one is a
 * zombie already. */
static void reparent_children(struct proc *p)
{
	bool orphans_dead = false;
	for (int i = 0; i < NPROC; i++) {
		struct proc *c = &proc_table[i];
		if (c->parent == p && c->state != P_UNUSED) {
			c->parent = init_proc;
			orphans_dead |= c->state == P_ZOMBIE;
		}
	}
	if (orphans_dead)
		wakeup_locked(init_proc);
}

/* p has let go of everything but its slot (proc_lock held): a zombie now.
 * When it was its group's last thread the group is done: its children go
 * to init and its parent learns (SIGCHLD, a wakeup of its wait4). */
static void exit_locked(struct proc *p, int status)
{
	struct thread_group *tg = p->tg;
	p->exit_status = status;
	p->state = P_ZOMBIE;
	tg->utime_done += p->utime_ticks;
	tg->stime_done += p->stime_ticks;
	tg->min_flt += p->min_flt;
	tg->maj_flt += p->maj_flt;
	tg->live--;
	if (tg->flags & TG_EXEC)
		wakeup_locked(tg);   /* thread_exec waits for the others */
	if (tg->live > 0)
		return;
	struct proc *leader = tg->leader;
	reparent_children(leader);
	if (leader->parent) {
		signal_send_locked(leader->parent, SIGCHLD, leader->pid);   /* ignored by default */
		wakeup_locked(leader->parent);
	}
}

/* The user memory and the shared objects of the exiting thread p. */
static void exit_release(struct proc *p)
{
	futex_exit_notify(p);   /* clear_child_tid: zero it, wake a joiner */
	fd_release_held(p);     /* an exit from inside a system call */
	thread_release(p);
	struct addrspace *as = p->as;
	as_activate(NULL);
	spin_lock(&proc_lock);
	p->as = NULL;
	spin_unlock(&proc_lock);
	uint64_t t0 = phase_begin();
	if (as_put(as))   /* the last thread of the address space frees it */
		phase_end(PH_EXIT_AS, t0);
	if (vmcheck_on_exit)
		proc_vmcheck();
}

void proc_exit(int status)
{
	struct proc *p = current_proc();
	uint64_t t_exit = phase_begin();
	if (p == init_proc && init_exit)
		init_exit(status);
	if (p == init_proc)
		panic("init exited with status %#x and nothing was set to follow it", status);
	proc_vfork_release(p);
	exit_release(p);
	spin_lock(&proc_lock);
	exit_locked(p, status);
	phase_end(PH_EXIT, t_exit);
	sched();
	panic("zombie pid %d ran again", p->pid);
}

void proc_group_times_locked(const struct proc *p, struct group_times *t)
{
	const struct thread_group *tg = p->tg;
	*t = (struct group_times){ tg->utime_done, tg->stime_done, tg->cutime, tg->cstime,
				   tg->min_flt, tg->maj_flt, tg->cmin_flt, tg->cmaj_flt };
	for (int i = 0; i < NPROC; i++) {
		const struct proc *q = &proc_table[i];
		if (q->tg == tg && q->state != P_UNUSED && q->state != P_ZOMBIE) {
			t->utime += q->utime_ticks;
			t->stime += q->stime_ticks;
			t->min_flt += q->min_flt;
			t->maj_flt += q->maj_flt;
		}
	}
}

void proc_group_times(const struct proc *p, struct group_times *t)
{
	spin_lock(&proc_lock);
	proc_group_times_locked(p, t);
	spin_unlock(&proc_lock);
}

#define WNOHANG 1

/* Can the exited child c be reaped: a group leader whose threads have all
 * exited? Its wait status: the group's if it ended by exit_group or a
 * fatal signal, else the leader's own. */
static bool reapable(const struct proc *c)
{
	return c->state == P_ZOMBIE && c->tg->live == 0;
}

static int reap_status(const struct proc *c)
{
	return c->tg->flags & TG_EXITING ? c->tg->exit_status : c->exit_status;
}

int proc_wait(int pid, int *status, int options)
{
	spin_lock(&proc_lock);
	struct proc *me = current_proc()->tg->leader;   /* any thread waits for the group */
	for (;;) {
		bool have_kids = false;
		for (int i = 0; i < NPROC; i++) {
			struct proc *c = &proc_table[i];
			if (c->parent != me || c->state == P_UNUSED || c->state == P_EMBRYO ||
			    !proc_is_leader(c) || (pid > 0 && c->pid != pid))
				continue;
			have_kids = true;
			if (!reapable(c))
				continue;
			int cpid = c->pid;
			if (status)
				*status = reap_status(c);
			me->tg->cutime += c->tg->utime_done + c->tg->cutime;   /* all its threads exited */
			me->tg->cstime += c->tg->stime_done + c->tg->cstime;
			me->tg->cmin_flt += c->tg->min_flt + c->tg->cmin_flt;
			me->tg->cmaj_flt += c->tg->maj_flt + c->tg->cmaj_flt;
			c->parent = NULL;
			thread_group_put(c);
			spin_unlock(&proc_lock);
			uint64_t t0 = phase_begin();
			proc_free(c);
			phase_end(PH_WAIT_REAP, t0);
			return cpid;
		}
		if (!have_kids) {
			spin_unlock(&proc_lock);
			return -ECHILD;
		}
		if (options & WNOHANG) {
			spin_unlock(&proc_lock);
			return 0;
		}
		if (signal_interrupted(current_proc())) {
			spin_unlock(&proc_lock);
			return -EINTR;
		}
		sleep_on(me, &proc_lock);
	}
}

int proc_kill(int pid, int sig)
{
	spin_lock(&proc_lock);
	struct proc *p = proc_find(pid);
	int r = 0;
	/* A zombie process (its leader's slot, not reaped yet) still exists:
	 * as on Linux the signal is dropped and kill succeeds. A leader that
	 * exited before its threads still names the live process. An exited
	 * thread's tid names nothing (Linux reaps threads at once). */
	bool zombie = p && p->state == P_ZOMBIE;
	if (!p || (zombie && !proc_is_leader(p)))
		r = -ESRCH;
	else if (sig != 0 && !(zombie && p->tg->live == 0))
		signal_send_locked(p, sig, current_proc()->tgid);
	spin_unlock(&proc_lock);
	return r;
}

void proc_signal_all(int sig)
{
	spin_lock(&proc_lock);
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (p != init_proc && p->as && (p->state == P_RUNNABLE || p->state == P_RUNNING ||
						p->state == P_SLEEPING))
			signal_send_locked(p, sig, 0);
	}
	spin_unlock(&proc_lock);
}

static void vmcheck_one(struct addrspace *as, void *c)
{
	vmcheck_add(c, as);
}

/* Every address space, not only the processes': one that no process shows
 * (exec's new one while the other threads end; an exited process's, held
 * by a /proc reader or the OOM killer) still holds references on frames
 * and tables that the processes' share (a check of the processes' alone
 * counted them as too many: seen with the threaded sysfuzz). */
/* One check at a time (vmcheck_mutex, taken at the system call's top as
 * swapon's is, so ranked with it): the threads of a test that check at
 * once each get the arrays reserved at boot in turn, instead of a second
 * allocation of them that fails under memory pressure (seen with the
 * threaded tester over swap: -ENOMEM from pagoda_vmcheck). */
static struct mutex vmcheck_mutex = MUTEX_INIT("vmcheck", SLEEP_RANK_MOUNT);

int proc_vmcheck(void)
{
	struct vmcheck c;
	mutex_lock(&vmcheck_mutex);
	int r = vmcheck_begin(&c);
	if (r == 0) {
		sched_stop_others();   /* a consistent picture of every address space */
		as_for_each(vmcheck_one, &c);
		vmcheck_finish(&c);
		sched_resume_others();
	}
	mutex_unlock(&vmcheck_mutex);
	return r;
}

bool proc_is_init(const struct proc *p)
{
	return p == init_proc;
}

void proc_die(int sig, const char *why, uint64_t addr, uint64_t rip)
{
	struct proc *p = current_proc();
	printk("pid %d (%s): %s at address %#lx, rip %#lx: killed by %s\n",
	       p->pid, p->name, why, addr, rip, signal_name(sig));
	thread_exit_group(W_TERMSIG(sig));   /* a fault ends the whole process */
}
