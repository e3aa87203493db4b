/* kernel/thread.c -- thread groups and the objects clone(2) shares
 * (kernel/thread.h): descriptor tables, directories, dispositions; group
 * exit, exec from a thread, and freeing the slots of exited threads. */
#include "kernel/thread.h"
#include "kernel/proc.h"
#include "kernel/file.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

/* ---- descriptor tables ---- */

static struct fdtable *fdtable_new(void)
{
	struct fdtable *t = kzalloc(sizeof(*t));
	if (!t)
		return NULL;
	t->refs = 1;
	spin_init(&t->lock, "fdtable", LOCK_RANK_FDTABLE);
	return t;
}

struct fdtable *fdtable_copy(struct fdtable *t)
{
	struct fdtable *c = fdtable_new();
	if (!c)
		return NULL;
	spin_lock(&t->lock);
	for (int fd = 0; fd < NOFILE; fd++)
		if (t->files[fd])
			c->files[fd] = file_dup(t->files[fd]);
	c->cloexec = t->cloexec;
	spin_unlock(&t->lock);
	return c;
}

/* Drop a reference; the last closes every file and frees the table. */
static void fdtable_put(struct fdtable *t)
{
	if (!t || !atomic_dec_and_test(&t->refs))
		return;
	for (int fd = 0; fd < NOFILE; fd++)
		if (t->files[fd])
			fd_file_close(t, t->files[fd]);
	kfree(t);
}

/* ---- directories and dispositions ---- */

/* A copy of f (a new process's: the VFS root, umask 022, when f is NULL). */
static struct fs_context *fs_copy(struct fs_context *f)
{
	struct fs_context *c = kzalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	spin_init(&c->lock, "fs-context", LOCK_RANK_FS_CONTEXT);
	if (!f) {
		vfs_root(&c->where.root);
		vfs_root(&c->where.cwd);
		c->umask = 022;
		return c;
	}
	spin_lock(&f->lock);
	c->where = f->where;
	path_get(&c->where.root);
	path_get(&c->where.cwd);
	c->umask = f->umask;
	spin_unlock(&f->lock);
	return c;
}

static void fs_put(struct fs_context *f)
{
	if (!f || !atomic_dec_and_test(&f->refs))
		return;
	path_put(&f->where.root);
	path_put(&f->where.cwd);
	kfree(f);
}

/* A copy of h (spin under proc_lock: a sigaction may be under way), or
 * fresh defaults when h is NULL. */
static struct sighand *sighand_copy(const struct sighand *h)
{
	struct sighand *c = kzalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	if (h) {
		spin_lock(&proc_lock);
		memcpy(c->action, h->action, sizeof(c->action));
		spin_unlock(&proc_lock);
	}
	return c;
}

static void sighand_put(struct sighand *h)
{
	if (h && atomic_dec_and_test(&h->refs))
		kfree(h);
}

/* ---- thread groups ---- */

/* A new group led by p (p->pid its pid). */
static int group_new(struct proc *p)
{
	struct thread_group *tg = kzalloc(sizeof(*tg));
	if (!tg)
		return -ENOMEM;
	tg->refs = tg->live = 1;
	tg->leader = p;
	p->tg = tg;
	p->tgid = p->pid;
	return 0;
}

/* child joins parent's group (proc_lock held). A group that is already
 * ending takes the thread only to end it at once. */
static void group_join_locked(struct proc *child, struct proc *parent)
{
	struct thread_group *tg = parent->tg;
	tg->refs++;
	tg->live++;
	child->tg = tg;
	child->tgid = parent->tgid;
	child->parent = parent->parent;
	if (tg->flags & (TG_EXITING | TG_EXEC)) {
		child->killed = true;
		child->kill_signal = SIGKILL;
	}
}

void thread_group_put(struct proc *p)
{
	struct thread_group *tg = p->tg;
	p->tg = NULL;
	if (tg && --tg->refs == 0)
		kfree(tg);
}

int thread_count(const struct proc *p)
{
	return p->tg ? p->tg->live : 0;
}

int thread_init_first(struct proc *p)
{
	p->fdt = fdtable_new();
	p->fs = fs_copy(NULL);
	p->sighand = sighand_copy(NULL);
	if (!p->fdt || !p->fs || !p->sighand || group_new(p) < 0) {
		thread_release(p);
		return -ENOMEM;
	}
	return 0;
}

/* The descriptor table, directory and dispositions: shared or copied. */
static int share_objects(struct proc *child, struct proc *parent, uint64_t flags)
{
	if (flags & CLONE_FILES)
		atomic_inc(&parent->fdt->refs), child->fdt = parent->fdt;
	else
		child->fdt = fdtable_copy(parent->fdt);
	if (flags & CLONE_FS)
		atomic_inc(&parent->fs->refs), child->fs = parent->fs;
	else
		child->fs = fs_copy(parent->fs);
	if (flags & CLONE_SIGHAND)
		atomic_inc(&parent->sighand->refs), child->sighand = parent->sighand;
	else
		child->sighand = sighand_copy(parent->sighand);
	return child->fdt && child->fs && child->sighand ? 0 : -ENOMEM;
}

int thread_share(struct proc *child, struct proc *parent, uint64_t flags)
{
	int r = share_objects(child, parent, flags);
	if (r == 0 && !(flags & CLONE_THREAD)) {
		r = group_new(child);
		child->parent = parent->tg->leader;
	}
	if (r < 0) {
		thread_release(child);
		return r;
	}
	if (flags & CLONE_THREAD) {
		spin_lock(&proc_lock);
		group_join_locked(child, parent);
		spin_unlock(&proc_lock);
	}
	return 0;
}

/* Give p the objects fdt, fs and sh (NULL: none) and drop the old ones.
 * The pointers change under proc_lock: other CPUs' signals and /proc read
 * them under it, and must never see one that is being freed. */
static void replace_objects(struct proc *p, struct fdtable *fdt, struct fs_context *fs,
			    struct sighand *sh)
{
	spin_lock(&proc_lock);
	struct fdtable *old_fdt = p->fdt;
	struct fs_context *old_fs = p->fs;
	struct sighand *old_sh = p->sighand;
	p->fdt = fdt, p->fs = fs, p->sighand = sh;
	spin_unlock(&proc_lock);
	fdtable_put(old_fdt);
	fs_put(old_fs);
	sighand_put(old_sh);
}

void thread_release(struct proc *p)
{
	replace_objects(p, NULL, NULL, NULL);
	proc_set_exe(p, NULL);
}

/* ---- ending threads ---- */

/* Make q die on its way back to user mode, waking it if it sleeps. */
static void kill_thread_locked(struct proc *q)
{
	q->killed = true;
	if (!q->kill_signal)
		q->kill_signal = SIGKILL;
	if (q->state == P_SLEEPING)
		sched_make_runnable_locked(q);
	else
		sched_notify_locked(q);   /* running on another CPU: die now */
}

/* Is q a thread of tg that has not exited? */
static bool live_in(const struct proc *q, const struct thread_group *tg)
{
	return q->tg == tg && q->state != P_UNUSED && q->state != P_EMBRYO &&
	       q->state != P_ZOMBIE;
}

/* Kill every live thread of tg but except. */
static void kill_others_locked(struct thread_group *tg, const struct proc *except)
{
	for (int i = 0; i < NPROC; i++) {
		struct proc *q = &proc_table[i];
		if (q != except && live_in(q, tg))
			kill_thread_locked(q);
	}
}

void thread_group_kill_locked(struct proc *p, int status, const struct proc *except)
{
	struct thread_group *tg = p->tg;
	if (!(tg->flags & TG_EXITING)) {
		tg->flags |= TG_EXITING;
		tg->exit_status = status;
	}
	kill_others_locked(tg, except);
}

void thread_exit_group(int status)
{
	struct proc *p = current_proc();
	spin_lock(&proc_lock);
	thread_group_kill_locked(p, status, p);
	spin_unlock(&proc_lock);
	proc_exit(status);
}

struct proc *thread_find(int tgid, int tid)
{
	struct proc *q = proc_find(tid);
	if (!q || (tgid > 0 && q->tgid != tgid) || q->state == P_ZOMBIE)
		return NULL;
	return q;
}

/* ---- exec from a thread ---- */

/* p (not the leader) takes the place of its group's leader, a zombie now
 * that p is the only live thread (proc_lock held): the pid, the parent,
 * the children; the old leader's slot is freed. */
static void take_leader_locked(struct proc *p)
{
	struct thread_group *tg = p->tg;
	struct proc *old = tg->leader;
	for (int i = 0; i < NPROC; i++)
		if (proc_table[i].state != P_UNUSED && proc_table[i].parent == old)
			proc_table[i].parent = p;
	p->pid = old->pid;
	p->parent = old->parent;
	tg->leader = p;
	thread_group_put(old);
	proc_free(old);
}

/* Make each shared object p's own (another process may share it). */
static int unshare_objects(struct proc *p)
{
	struct proc tmp = { 0 };
	uint64_t shared = (p->fdt->refs > 1 ? 0 : CLONE_FILES) |
			  (p->fs->refs > 1 ? 0 : CLONE_FS) |
			  (p->sighand->refs > 1 ? 0 : CLONE_SIGHAND);
	if (shared == (CLONE_FILES | CLONE_FS | CLONE_SIGHAND))
		return 0;
	if (share_objects(&tmp, p, shared) < 0) {
		thread_release(&tmp);
		return -ENOMEM;
	}
	replace_objects(p, tmp.fdt, tmp.fs, tmp.sighand);
	return 0;
}

/* Is p's group ending, or p killed, so that its exec must give up? */
static bool exec_lost_locked(const struct proc *p)
{
	return p->killed || (p->tg->flags & TG_EXITING);
}

/* End every other thread of p's group and wait for them (proc_lock held):
 * 0, or -EAGAIN if another thread's exec or exit came first (the exec that
 * set TG_EXEC first wins; it has killed p). */
static int end_other_threads_locked(struct proc *p)
{
	struct thread_group *tg = p->tg;
	if (exec_lost_locked(p) || (tg->flags & TG_EXEC))
		return -EAGAIN;
	tg->flags |= TG_EXEC;
	kill_others_locked(tg, p);
	while (tg->live > 1 && !exec_lost_locked(p))
		sleep_on(tg, &proc_lock);
	tg->flags &= ~TG_EXEC;
	if (exec_lost_locked(p))
		return -EAGAIN;
	if (!proc_is_leader(p))
		take_leader_locked(p);
	return 0;
}

int thread_exec(struct proc *p)
{
	int r = 0;
	spin_lock(&proc_lock);
	if (p->tg->live > 1 || !proc_is_leader(p))
		r = end_other_threads_locked(p);
	spin_unlock(&proc_lock);
	return r ?: unshare_objects(p);
}

void thread_switched_out(struct proc *p)
{
	if (p->state != P_ZOMBIE || proc_is_leader(p))
		return;
	thread_group_put(p);
	proc_free(p);
}
