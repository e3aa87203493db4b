/* kernel/procfs.c -- the /proc file system: its tree, made from the
 * process table when looked at (fs/vfs.h's SB_VOLATILE: nothing cached).
 *
 *   /proc/meminfo vmstat uptime loadavg mounts ...   system-wide files
 *   /proc/self -> PID                                a link: the caller's
 *   /proc/PID/status stat statm cmdline maps smaps smaps_rollup
 *   /proc/PID/exe -> the program's path              a link
 *   /proc/PID/task/TID/...                           each thread, its own
 *                                                    PID directory
 *   /proc/sys/fs/dentry-state inode-nr               the VFS's caches
 *   /proc/sys/vm/drop_caches                         write 1, 2 or 3 to
 *                                                    empty them (Linux's)
 *   /proc/sys/vm/swappiness                          the swap side's weight
 *                                                    in reclaim (mm/reclaim.h)
 *
 * An inode here is made by each lookup and freed with its dentry; its priv
 * says what it is (kind, index, pid). Every read of a file makes the text
 * anew (kernel/procfs_pid.c, kernel/procfs_sys.c); a file whose process is
 * gone reads as ESRCH, as on Linux: an open file reads the pid it was
 * opened for (struct file's inode_priv), and pids are never reused.
 */
#include "kernel/fs.h"
#include "fs/textbuf.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "kernel/proc.h"
#include "kernel/procfs.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"
#include "libc/include/pagoda/dirent64.h"

#define PROC_MAGIC 0x9fa0
#define INO_BASE 0x100000000ull
#define PATH_MAX_PROC 512

enum pkind { PK_ROOT, PK_SYS, PK_SELF, PK_PIDDIR, PK_PIDFILE, PK_TASKDIR, PK_EXE,
	     PK_SYSCTL_DIR, PK_SYSCTL };

#define PRIV(kind, index, pid) ((uint64_t)(uint32_t)(pid) | (uint64_t)(index) << 32 | \
				(uint64_t)(kind) << 48)
#define PRIV_PID(priv) ((int)(uint32_t)(priv))
#define PRIV_INDEX(priv) ((unsigned)(((priv) >> 32) & 0xffff))
#define PRIV_KIND(priv) ((enum pkind)((priv) >> 48))

static void show_mounts(struct textbuf *tb)
{
	vfs_show_mounts(tb);
}

struct sys_file {
	const char *name;
	void (*show)(struct textbuf *tb);
};

static const struct sys_file sys_files[] = {
	{ "cmdline", procfs_show_kcmdline },
	{ "diskstats", procfs_show_diskstats },
	{ "loadavg", procfs_show_loadavg },
	{ "lockstat", procfs_show_lockstat },
	{ "meminfo", procfs_show_meminfo },
	{ "mounts", show_mounts },
	{ "phasetime", procfs_show_phasetime },
	{ "stat", procfs_show_sysstat },
	{ "swaps", procfs_show_swaps },
	{ "uptime", procfs_show_uptime },
	{ "vmstat", procfs_show_vmstat },
	{ "zoneinfo", procfs_show_zoneinfo },
};
#define NSYS (sizeof(sys_files) / sizeof(sys_files[0]))

/* /proc/sys: its directories (index: the PK_SYSCTL_DIR's), each in its
 * parent, and the files in them (Linux's sysctls). A file with no show
 * reads as EACCES, with no store writes as EACCES (as their modes say,
 * which Linux enforces at open even for root). */
enum { SYSCTL_TOP, SYSCTL_FS, SYSCTL_VM, NSYSCTL_DIRS };
static const struct { const char *name; unsigned parent; } sysctl_dirs[] = {
	[SYSCTL_TOP] = { "sys", SYSCTL_TOP }, [SYSCTL_FS] = { "fs", SYSCTL_TOP },
	[SYSCTL_VM] = { "vm", SYSCTL_TOP },
};

struct sysctl_file {
	unsigned dir;
	const char *name;
	uint32_t mode;
	void (*show)(struct textbuf *tb);
	int (*store)(const char *text, size_t n);
};

static const struct sysctl_file sysctl_files[] = {
	{ SYSCTL_FS, "dentry-state", 0444, procfs_show_dentry_state, NULL },
	{ SYSCTL_FS, "inode-nr", 0444, procfs_show_inode_nr, NULL },
	{ SYSCTL_VM, "drop_caches", 0200, NULL, procfs_store_drop_caches },
	{ SYSCTL_VM, "swappiness", 0644, procfs_show_swappiness, procfs_store_swappiness },
};
#define NSYSCTLS (sizeof(sysctl_files) / sizeof(sysctl_files[0]))

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
	{ "wchan", procfs_show_wchan },
};
#define NPIDFILES (sizeof(pid_files) / sizeof(pid_files[0]))

static const struct inode_ops dir_ops, link_ops;
static const struct file_ops sys_file_ops, pid_file_ops, sysctl_file_ops;

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

/* The inode number of (kind, index, pid): the same at every lookup. */
static uint64_t pino(enum pkind kind, unsigned index, int pid)
{
	return kind == PK_ROOT ? 1 : INO_BASE + ((uint64_t)pid << 12) + ((uint64_t)kind << 6) + index;
}

/* An inode of the /proc tree: kind, index among its siblings, pid. */
static struct inode *proc_inode(struct super_block *sb, enum pkind kind, unsigned index, int pid)
{
	static const uint32_t modes[] = {
		[PK_ROOT] = S_IFDIR | 0555, [PK_SYS] = S_IFREG | 0444, [PK_SELF] = S_IFLNK | 0777,
		[PK_PIDDIR] = S_IFDIR | 0555, [PK_PIDFILE] = S_IFREG | 0444,
		[PK_TASKDIR] = S_IFDIR | 0555, [PK_EXE] = S_IFLNK | 0777,
		[PK_SYSCTL_DIR] = S_IFDIR | 0555,
	};
	uint32_t mode = kind == PK_SYSCTL ? S_IFREG | sysctl_files[index].mode : modes[kind];
	struct inode *ip = inode_new(sb, mode, NULL);
	if (!ip)
		return NULL;
	ip->priv = PRIV(kind, index, pid);
	ip->ino = pino(kind, index, pid);
	ip->op = S_ISDIR(ip->mode) ? &dir_ops : S_ISLNK(ip->mode) ? &link_ops : NULL;
	ip->fop = S_ISDIR(ip->mode) ? &dir_file_ops : kind == PK_SYS ? &sys_file_ops :
		  kind == PK_SYSCTL ? &sysctl_file_ops : &pid_file_ops;
	return ip;
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

static bool named(const char *a, const char *name, size_t len)
{
	return strlen(a) == len && !strncmp(a, name, len);
}

/* Is there a listed process or thread pid (of tgid; 0: a process)? */
static bool pid_listed(int pid, int tgid)
{
	spin_lock(&proc_lock);
	struct proc *p = pid > 0 ? proc_find(pid) : NULL;
	bool ok = p && listed(p, tgid);
	if (p && tgid && proc_visible(p) && p->tgid == tgid)
		ok = true;
	spin_unlock(&proc_lock);
	return ok;
}

/* lookup in the root: a system file, "self", or a process. */
static int root_lookup(struct super_block *sb, const char *name, size_t len, struct inode **out)
{
	for (unsigned i = 0; i < NSYS; i++)
		if (named(sys_files[i].name, name, len))
			return (*out = proc_inode(sb, PK_SYS, i, 0)) ? 0 : -ENOMEM;
	if (named("self", name, len))
		return (*out = proc_inode(sb, PK_SELF, 0, 0)) ? 0 : -ENOMEM;
	if (named("sys", name, len))
		return (*out = proc_inode(sb, PK_SYSCTL_DIR, SYSCTL_TOP, 0)) ? 0 : -ENOMEM;
	int pid = parse_pid(name, len);
	if (!pid_listed(pid, 0)) {
		spin_lock(&proc_lock);
		struct proc *p = pid > 0 ? proc_find(pid) : NULL;
		bool thread = p && proc_visible(p);   /* Linux: /proc/TID works, unlisted */
		spin_unlock(&proc_lock);
		if (!thread)
			return -ENOENT;
	}
	return (*out = proc_inode(sb, PK_PIDDIR, 0, pid)) ? 0 : -ENOMEM;
}

static int pid_dir_lookup(struct super_block *sb, int pid, const char *name, size_t len,
			  struct inode **out)
{
	for (unsigned i = 0; i < NPIDFILES; i++)
		if (named(pid_files[i].name, name, len))
			return (*out = proc_inode(sb, PK_PIDFILE, i, pid)) ? 0 : -ENOMEM;
	if (named("task", name, len))
		return (*out = proc_inode(sb, PK_TASKDIR, 0, pid)) ? 0 : -ENOMEM;
	if (named("exe", name, len))
		return (*out = proc_inode(sb, PK_EXE, 0, pid)) ? 0 : -ENOMEM;
	return -ENOENT;
}

/* The i-th entry of /proc/sys directory dir: its subdirectories, then its
 * files. true with *kind, *index set; false past the last. */
static bool sysctl_child(unsigned dir, uint64_t i, enum pkind *kind, unsigned *index)
{
	for (unsigned d = 1; d < NSYSCTL_DIRS; d++)
		if (sysctl_dirs[d].parent == dir && i-- == 0)
			return *kind = PK_SYSCTL_DIR, *index = d, true;
	for (unsigned f = 0; f < NSYSCTLS; f++)
		if (sysctl_files[f].dir == dir && i-- == 0)
			return *kind = PK_SYSCTL, *index = f, true;
	return false;
}

static const char *sysctl_name(enum pkind kind, unsigned index)
{
	return kind == PK_SYSCTL_DIR ? sysctl_dirs[index].name : sysctl_files[index].name;
}

static int sysctl_lookup(struct super_block *sb, unsigned dir, const char *name, size_t len,
			 struct inode **out)
{
	enum pkind kind;
	unsigned index;
	for (uint64_t i = 0; sysctl_child(dir, i, &kind, &index); i++)
		if (named(sysctl_name(kind, index), name, len))
			return (*out = proc_inode(sb, kind, index, 0)) ? 0 : -ENOMEM;
	return -ENOENT;
}

static int proc_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int pid = PRIV_PID(dir->priv);
	switch (PRIV_KIND(dir->priv)) {
	case PK_ROOT:
		return root_lookup(dir->sb, name, len, out);
	case PK_PIDDIR:
		return pid_dir_lookup(dir->sb, pid, name, len, out);
	case PK_SYSCTL_DIR:
		return sysctl_lookup(dir->sb, PRIV_INDEX(dir->priv), name, len, out);
	case PK_TASKDIR: {
		int tid = parse_pid(name, len);
		spin_lock(&proc_lock);
		struct proc *t = tid > 0 ? proc_find(tid) : NULL;
		bool ok = t && listed(t, pid);
		spin_unlock(&proc_lock);
		return ok ? (*out = proc_inode(dir->sb, PK_PIDDIR, 0, tid)) ? 0 : -ENOMEM : -ENOENT;
	}
	default:
		return -ENOTDIR;
	}
}

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

static int entry(struct dir_entry *de, const char *name, uint64_t ino, uint8_t type)
{
	strlcpy(de->name, name, sizeof(de->name));
	de->ino = ino;
	de->type = type;
	return 1;
}

/* Positions of the root: 2.. the system files, then "self", "sys", then
 * PID directories at FIRST_PID_POS + pid, in increasing pid order (as
 * Linux). */
#define SELF_POS (2 + NSYS)
#define SYSCTL_POS (SELF_POS + 1)
#define FIRST_PID_POS (SYSCTL_POS + 1)

/* The next process (tgid 0) or thread of tgid at or after position
 * *pos, first_pos + pid: an entry, *pos moved past it. */
static int pid_entry(uint64_t *pos, uint64_t first_pos, int tgid, struct dir_entry *de)
{
	spin_lock(&proc_lock);
	struct proc *p = next_proc_from(*pos > first_pos ? *pos - first_pos : 0, tgid);
	int pid = p ? p->pid : 0;
	spin_unlock(&proc_lock);
	if (!p)
		return 0;
	char name[16];
	ksnprintf(name, sizeof(name), "%d", pid);
	*pos = first_pos + (uint64_t)pid + 1;
	return entry(de, name, pino(PK_PIDDIR, 0, pid), DT_DIR);
}

static int proc_readdir(struct dentry *dir, uint64_t *pos, struct dir_entry *de)
{
	uint64_t priv = dir->inode->priv;
	int pid = PRIV_PID(priv);
	uint64_t i = *pos - 2;
	switch (PRIV_KIND(priv)) {
	case PK_ROOT:
		if (i < NSYS) {
			(*pos)++;
			return entry(de, sys_files[i].name, pino(PK_SYS, (unsigned)i, 0), DT_REG);
		}
		if (*pos == SELF_POS) {
			(*pos)++;
			return entry(de, "self", pino(PK_SELF, 0, 0), DT_LNK);
		}
		if (*pos == SYSCTL_POS) {
			(*pos)++;
			return entry(de, "sys", pino(PK_SYSCTL_DIR, SYSCTL_TOP, 0), DT_DIR);
		}
		return pid_entry(pos, FIRST_PID_POS, 0, de);
	case PK_PIDDIR:
		(*pos)++;
		if (i < NPIDFILES)
			return entry(de, pid_files[i].name, pino(PK_PIDFILE, (unsigned)i, pid), DT_REG);
		if (i == NPIDFILES)
			return entry(de, "task", pino(PK_TASKDIR, 0, pid), DT_DIR);
		if (i == NPIDFILES + 1)
			return entry(de, "exe", pino(PK_EXE, 0, pid), DT_LNK);
		return 0;
	case PK_TASKDIR:
		return pid_entry(pos, 2, pid, de);
	case PK_SYSCTL_DIR: {
		enum pkind kind;
		unsigned index;
		if (!sysctl_child(PRIV_INDEX(priv), i, &kind, &index))
			return 0;
		(*pos)++;
		return entry(de, sysctl_name(kind, index), pino(kind, index, 0),
			     kind == PK_SYSCTL ? DT_REG : DT_DIR);
	}
	default:
		return -ENOTDIR;
	}
}

static long proc_readlink(struct inode *ip, char *buf, uint64_t n)
{
	char text[PATH_MAX_PROC];
	long len;
	if (PRIV_KIND(ip->priv) == PK_SELF) {
		struct proc *p = current_proc();
		len = ksnprintf(text, sizeof(text), "%d", p ? p->tgid : 0);
	} else {
		spin_lock(&proc_lock);
		struct proc *p = proc_find(PRIV_PID(ip->priv));
		struct inode *exe = p && proc_visible(p) ? inode_get(p->exe) : NULL;
		spin_unlock(&proc_lock);
		len = exe ? inode_name(exe, text, sizeof(text)) : -ENOENT;
		inode_put(exe);
		len = len < 0 ? len : len - 1;   /* without its NUL */
	}
	if (len < 0)
		return len;
	len = MIN((uint64_t)len, n);
	memcpy(buf, text, (size_t)len);
	return len;
}

static const struct inode_ops dir_ops = { .lookup = proc_lookup, .readdir = proc_readdir };
static const struct inode_ops link_ops = { .readlink = proc_readlink };

/* ---- reading a file: its text made at the first read ---- */

/* A file's text: a system file's, or a PID file's of the process the file
 * was opened for (which must still be there). */
static int show(uint64_t priv, struct textbuf *tb)
{
	if (PRIV_KIND(priv) == PK_SYS) {
		sys_files[PRIV_INDEX(priv)].show(tb);
		return 0;
	}
	if (PRIV_KIND(priv) == PK_SYSCTL) {
		const struct sysctl_file *s = &sysctl_files[PRIV_INDEX(priv)];
		if (!s->show)
			return -EACCES;
		s->show(tb);
		return 0;
	}
	struct addrspace *as;
	struct proc *p = proc_lock_memory(PRIV_PID(priv), &as);
	if (!p)
		return -ESRCH;
	pid_files[PRIV_INDEX(priv)].show(p, tb);   /* p's fields and its memory hold still */
	proc_unlock_memory(as);
	return 0;
}

static void synth_close(struct file *f)
{
	struct textbuf *tb = f->priv;
	if (tb) {
		tb_free(tb);
		kfree(tb);
	}
	f->priv = NULL;
}

static long synth_fill(struct file *f)
{
	struct textbuf *tb = kzalloc(sizeof(*tb));
	if (!tb)
		return -ENOMEM;
	int r = show(f->inode_priv, tb);
	r = r ? r : tb->error;
	if (r < 0) {
		tb_free(tb);
		kfree(tb);
		return r;
	}
	synth_close(f);
	f->priv = tb;
	return 0;
}

/* The text is made at the first read, and again at every read from
 * offset 0 (a reader that seeks back sees fresh figures); the open file
 * keeps it until close. */
static long synth_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	if (!f->priv || f->off == 0) {
		long r = synth_fill(f);
		if (r < 0)
			return r;
	}
	struct textbuf *tb = f->priv;
	if (f->off >= tb->len)
		return 0;
	n = MIN(n, tb->len - f->off);
	if (copyout(ubuf, tb->buf + f->off, n) < 0)
		return -EFAULT;
	f->off += n;
	return (long)n;
}

/* mmap: -EIO for /proc's own files, -ENODEV for a process's (Linux's). */
static const struct file_ops sys_file_ops = {
	.read = synth_read, .write = file_no_write, .close = synth_close, .seekable = true,
	.mmap_errno = -EIO,
};
/* A write to a /proc/sys file: the whole text at once (Linux takes it
 * from offset 0 on; a longer one than a number needs is EINVAL). */
static long sysctl_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	const struct sysctl_file *s = &sysctl_files[PRIV_INDEX(f->inode_priv)];
	char text[32];
	if (!s->store)
		return -EACCES;
	if (n >= sizeof(text))
		return -EINVAL;
	if (copyin(text, ubuf, n) < 0)
		return -EFAULT;
	int r = s->store(text, (size_t)n);
	return r < 0 ? r : (long)n;
}

static const struct file_ops sysctl_file_ops = {
	.read = synth_read, .write = sysctl_write, .close = synth_close, .seekable = true,
	.mmap_errno = -EIO,
};
static const struct file_ops pid_file_ops = {
	.read = synth_read, .write = file_no_write, .close = synth_close, .seekable = true,
};

/* ---- the file system ---- */

static int proc_statfs(struct super_block *sb, uint64_t out[6])
{
	(void)sb;
	uint64_t v[6] = { PAGE_SIZE, 0, 0, 0, 0, 0 };
	memcpy(out, v, sizeof(v));
	return 0;
}

static const struct super_ops proc_super_ops = { .statfs = proc_statfs };

static int procfs_mount(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
		      const char *data, struct super_block **out)
{
	(void)bdev, (void)flags, (void)data;
	struct super_block *sb = sb_new(t, &proc_super_ops);
	if (!sb)
		return -ENOMEM;
	sb->flags = SB_VOLATILE;
	sb->magic = PROC_MAGIC;
	sb->dev = MKDEV(0, 4);
	struct inode *root = proc_inode(sb, PK_ROOT, 0, 0);
	if (!root || !(sb->root = dentry_root(sb, root))) {
		kfree(sb);
		return -ENOMEM;
	}
	*out = sb;
	return 0;
}

const struct fs_type procfs_type = { .name = "proc", .mount = procfs_mount };
