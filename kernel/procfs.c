/* kernel/procfs.c -- the tree of /proc: its root, one directory per live
 * process (and "self"), and the inodes of their files.
 *
 *   /proc/meminfo vmstat uptime loadavg          system-wide files
 *   /proc/phasetime                              per-phase TSC counters (mm/frame/phasetime.h)
 *   /proc/self                                   the caller's PID directory
 *   /proc/PID/status stat statm cmdline maps smaps smaps_rollup
 *   /proc/PID/task/TID/...                       each thread (kernel/thread.h),
 *                                                its own PID directory
 *
 * Inodes here are synthesized (fs.h's inode_ops): nothing is stored, every
 * read makes the text anew (kernel/procfs_pid.c, kernel/procfs_sys.c). The
 * inodes of a PID directory live in a block per process-table slot (static:
 * nothing to allocate or leak), reused by the slot's next process; each
 * names its pid, and a file whose process is gone reads as ESRCH, as on
 * Linux, also after the slot's reuse: an open file reads the pid it was
 * opened for (struct file's inode_priv), and pids are never reused.
 */
#include "kernel/fs.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "kernel/proc.h"
#include "kernel/procfs.h"
#include "lib/string.h"
#include "kernel/textbuf.h"

#define INO_BASE 0x100000000ull   /* above every initrd inode number */

/* ---- system-wide files ---- */

struct sys_file {
	const char *name;
	void (*show)(struct textbuf *tb);
};

static const struct sys_file sys_files[] = {
	{ "cmdline", procfs_show_kcmdline },
	{ "loadavg", procfs_show_loadavg },
	{ "lockstat", procfs_show_lockstat },
	{ "meminfo", procfs_show_meminfo },
	{ "phasetime", procfs_show_phasetime },
	{ "stat", procfs_show_sysstat },
	{ "uptime", procfs_show_uptime },
	{ "vmstat", procfs_show_vmstat },
	{ "zoneinfo", procfs_show_zoneinfo },
};
#define NSYS (sizeof(sys_files) / sizeof(sys_files[0]))

static struct inode sys_inodes[NSYS];
static struct inode *proc_root;

/* ---- per-process files ---- */

struct pid_file {
	const char *name;
	void (*show)(struct proc *p, struct textbuf *tb);
};

static const struct pid_file pid_files[] = {
	{ "cmdline", procfs_show_cmdline },
	{ "maps", procfs_show_maps },
	{ "smaps", procfs_show_smaps },
	{ "smaps_rollup", procfs_show_smaps_rollup },
	{ "stat", procfs_show_stat },
	{ "statm", procfs_show_statm },
	{ "status", procfs_show_status },
};
#define NPIDFILES (sizeof(pid_files) / sizeof(pid_files[0]))

struct pid_dir {
	struct inode dir;                 /* priv: the pid (a thread's: its tid) */
	struct inode files[NPIDFILES];    /* priv: the pid */
	struct inode task;                /* priv: the process's pid (tgid) */
};
static struct pid_dir pid_dirs[NPROC];   /* by process-table slot */

static bool proc_visible(const struct proc *p)
{
	return p->state != P_UNUSED && p->state != P_EMBRYO;
}

/* Listed in /proc (tgid 0: processes, i.e. group leaders) or in
 * /proc/TGID/task (the threads of tgid, an exited one only if the leader)? */
static bool listed(const struct proc *p, int tgid)
{
	if (!proc_visible(p) || (p->state == P_ZOMBIE && !proc_is_leader(p)))
		return false;
	return tgid ? p->tgid == tgid : proc_is_leader(p);
}

/* Fill a synthesized inode. */
static void synth_inode(struct inode *ip, const char *name, enum inode_type type,
			const struct inode_ops *ops, struct inode *parent,
			uint64_t ino, uint64_t priv)
{
	memset(ip, 0, sizeof(*ip));
	strlcpy(ip->name, name, NAME_MAX);
	ip->type = type;
	ip->mode = type == INODE_DIR ? 0555 : 0444;
	ip->ops = ops;
	ip->parent = parent;
	ip->ino = ino;
	ip->priv = priv;
}

/* A PID file: run its show on the process with pid priv (the one the file
 * was opened for: pids are never reused), which must still be there. */
static int pid_file_show(struct inode *ip, uint64_t priv, struct textbuf *tb)
{
	const struct pid_file *pf = &pid_files[ip - ip->parent->children];
	struct addrspace *as;
	struct proc *p = proc_lock_memory((int)priv, &as);
	if (!p)
		return -ESRCH;
	pf->show(p, tb);   /* p's fields and its memory hold still meanwhile */
	proc_unlock_memory(as);
	return 0;
}

static const struct inode_ops pid_file_ops = { .show = pid_file_show };

/* The program of the process a PID directory names, or NULL. */
static struct inode *pid_exe(struct inode *dir)
{
	spin_lock(&proc_lock);
	struct proc *p = proc_find((int)dir->priv);
	struct inode *exe = p && proc_visible(p) ? p->exe : NULL;
	spin_unlock(&proc_lock);
	return exe;
}

static struct inode *pid_dir_lookup(struct inode *dir, const char *name, size_t len)
{
	if (len == 3 && !strncmp(name, "exe", 3))
		return pid_exe(dir);   /* a link on Linux: here the file itself */
	if (len == 4 && !strncmp(name, "task", 4))
		return &container_of(dir, struct pid_dir, dir)->task;
	for (size_t i = 0; i < NPIDFILES; i++)
		if (strlen(pid_files[i].name) == len && !strncmp(pid_files[i].name, name, len))
			return &dir->children[i];
	return NULL;
}

static struct inode *pid_dir_child(struct inode *dir, uint64_t *pos, char *name)
{
	if (*pos == NPIDFILES) {
		strlcpy(name, "task", NAME_MAX);
		return &container_of(dir, struct pid_dir, dir)->task;
	}
	if (*pos > NPIDFILES)
		return NULL;
	strlcpy(name, pid_files[*pos].name, NAME_MAX);
	return &dir->children[*pos];
}

static const struct inode_ops pid_dir_ops = { .lookup = pid_dir_lookup,
					      .child = pid_dir_child };
static const struct inode_ops task_dir_ops;
static struct inode *pid_dir_of(struct proc *p);

/* The directory of live process p (proc_lock held), renamed for p's pid
 * if the slot held another process before. Its children are its files. */
static struct inode *pid_dir_of(struct proc *p)
{
	struct pid_dir *d = &pid_dirs[p - proc_table];
	if (d->dir.priv == (uint64_t)p->pid && d->dir.ops)
		return &d->dir;
	char name[NAME_MAX];
	ksnprintf(name, sizeof(name), "%d", p->pid);
	uint64_t ino = INO_BASE + (uint64_t)p->pid * 16;
	synth_inode(&d->dir, name, INODE_DIR, &pid_dir_ops, proc_root, ino, (uint64_t)p->pid);
	d->dir.children = d->files;
	for (size_t i = 0; i < NPIDFILES; i++)
		synth_inode(&d->files[i], pid_files[i].name, INODE_FILE, &pid_file_ops,
			    &d->dir, ino + 1 + i, (uint64_t)p->pid);
	synth_inode(&d->task, "task", INODE_DIR, &task_dir_ops, &d->dir, ino + 1 + NPIDFILES,
		    (uint64_t)p->tgid);
	return &d->dir;
}

/* The pid spelled by name[0..len) (digits, no leading zero), or -1. */
static int parse_pid(const char *name, size_t len)
{
	if (len == 0 || len > 9 || (len > 1 && name[0] == '0'))
		return -1;
	int pid = 0;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		pid = pid * 10 + (name[i] - '0');
	}
	return pid;
}

/* The directory of the process with pid (or the caller's, for -1). */
static struct inode *pid_dir_find(int pid)
{
	struct inode *ip = NULL;
	spin_lock(&proc_lock);
	struct proc *p = pid < 0 ? current_proc()->tg->leader : proc_find(pid);
	if (p && proc_visible(p))
		ip = pid_dir_of(p);
	spin_unlock(&proc_lock);
	return ip;
}

/* ---- the root ---- */

static int sys_file_show(struct inode *ip, uint64_t priv, struct textbuf *tb)
{
	(void)priv;
	sys_files[ip - sys_inodes].show(tb);
	return 0;
}

static const struct inode_ops sys_file_ops = { .show = sys_file_show, .mmap_errno = -EIO };

static struct inode *root_lookup(struct inode *dir, const char *name, size_t len)
{
	(void)dir;
	for (size_t i = 0; i < NSYS; i++)
		if (strlen(sys_files[i].name) == len && !strncmp(sys_files[i].name, name, len))
			return &sys_inodes[i];
	if (len == 4 && !strncmp(name, "self", 4))
		return pid_dir_find(-1);
	int pid = parse_pid(name, len);
	return pid > 0 ? pid_dir_find(pid) : NULL;
}

/* Positions: the system files, then "self", then PID directories at
 * FIRST_PID_POS + pid, in increasing pid order (as Linux lists them). */
#define SELF_POS NSYS
#define FIRST_PID_POS (NSYS + 1)

/* The listed process (tgid 0) or thread of tgid with the smallest pid >=
 * pid, or NULL (proc_lock held). */
static struct proc *next_proc_from(uint64_t pid, int tgid)
{
	struct proc *best = NULL;
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (listed(p, tgid) && (uint64_t)p->pid >= pid && (!best || p->pid < best->pid))
			best = p;
	}
	return best;
}

/* /proc/PID/task: a directory per thread (its own PID directory). */
static struct inode *task_lookup(struct inode *dir, const char *name, size_t len)
{
	int tid = parse_pid(name, len);
	struct inode *ip = NULL;
	spin_lock(&proc_lock);
	struct proc *t = tid > 0 ? proc_find(tid) : NULL;
	if (t && listed(t, (int)dir->priv))
		ip = pid_dir_of(t);
	spin_unlock(&proc_lock);
	return ip;
}

/* Positions are tids: the next thread at or after *pos. */
static struct inode *task_child(struct inode *dir, uint64_t *pos, char *name)
{
	struct inode *ip = NULL;
	spin_lock(&proc_lock);
	struct proc *t = next_proc_from(*pos, (int)dir->priv);
	if (t && (ip = pid_dir_of(t))) {
		*pos = (uint64_t)t->pid;
		strlcpy(name, ip->name, NAME_MAX);
	}
	spin_unlock(&proc_lock);
	return ip;
}

static const struct inode_ops task_dir_ops = { .lookup = task_lookup, .child = task_child };

static struct inode *root_child(struct inode *dir, uint64_t *pos, char *name)
{
	(void)dir;
	if (*pos < NSYS) {
		strlcpy(name, sys_files[*pos].name, NAME_MAX);
		return &sys_inodes[*pos];
	}
	struct inode *ip = NULL;
	if (*pos == SELF_POS && (ip = pid_dir_find(-1))) {
		strlcpy(name, "self", NAME_MAX);
		return ip;
	}
	spin_lock(&proc_lock);
	struct proc *p = next_proc_from(*pos > FIRST_PID_POS ? *pos - FIRST_PID_POS : 0, 0);
	if (p && (ip = pid_dir_of(p))) {
		*pos = FIRST_PID_POS + (uint64_t)p->pid;
		strlcpy(name, ip->name, NAME_MAX);
	}
	spin_unlock(&proc_lock);
	return ip;
}

static const struct inode_ops root_ops = { .lookup = root_lookup, .child = root_child };

void procfs_init(struct inode *dir)
{
	proc_root = dir;
	dir->ops = &root_ops;
	dir->mode = 0555;
	for (size_t i = 0; i < NSYS; i++)
		synth_inode(&sys_inodes[i], sys_files[i].name, INODE_FILE, &sys_file_ops,
			    dir, INO_BASE + i + 1, 0);
}

/* Split path into its directory (into dir, n bytes) and last name. */
static const char *split_path(const char *path, char *dir, size_t n)
{
	const char *slash = NULL;
	for (const char *c = path; *c; c++)
		slash = *c == '/' ? c : slash;
	size_t len = slash ? (size_t)(slash - path) : 0;
	if (len >= n)
		len = n - 1;
	memcpy(dir, path, len);
	strlcpy(dir + len, slash && len == 0 ? "/" : slash ? "" : ".", n - len);
	return slash ? slash + 1 : path;
}

long fs_readlink(const char *path, char *buf, uint64_t n)
{
	char dirpath[256], text[256];
	const char *name = split_path(path, dirpath, sizeof(dirpath));
	struct inode *dir = fs_lookup(dirpath);
	if (!fs_lookup(path))
		return -ENOENT;
	long len = -EINVAL;
	if (dir == proc_root && !strcmp(name, "self")) {
		struct proc *p = current_proc();
		len = ksnprintf(text, sizeof(text), "%d", p ? p->tgid : 0);
	} else if (dir && dir->ops == &pid_dir_ops && !strcmp(name, "exe") && pid_exe(dir)) {
		len = inode_path(pid_exe(dir), text, sizeof(text));
		len = len < 0 ? len : len - 1;   /* without its NUL */
	}
	if (len < 0)
		return len;
	len = MIN((uint64_t)len, n);
	memcpy(buf, text, (size_t)len);
	return len;
}
