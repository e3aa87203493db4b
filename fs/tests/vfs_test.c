/* fs/tests/vfs_test.c -- in-kernel tests of the VFS (test=vfs): path walks
 * across mounts, names and their inodes' lifetimes on tmpfs, mount and
 * umount, and renames racing lookups on several CPUs.
 */
#include "kernel/ktest.h"
#include "kernel/fs.h"
#include "kernel/kthread.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memlayout.h"

/* The file system root walks start from (no process: the VFS root). */
static struct fs_root root;

static void enter(void)
{
	fs_enter(&root);
}

static void leave(void)
{
	fs_leave(&root);
}

/* Walk name: 0 or -errno; the result's dentry into *d (a reference) when asked. */
static int walk(const char *name, enum lookup_flags flags, struct path *out)
{
	struct path p;
	int r = path_walk(&root, NULL, name, flags, &p);
	if (r == 0 && out)
		*out = p;
	else if (r == 0)
		path_put(&p);
	return r;
}

/* Inodes sb holds in memory now. */
static int inodes_of(struct super_block *sb)
{
	int n = 0;
	spin_lock(&sb->inodes_lock);
	list_for_each(l, &sb->inodes)
		n++;
	spin_unlock(&sb->inodes_lock);
	return n;
}

KTEST(vfs, dotdot_crosses_mounts)
{
	enter();
	struct path p;
	KEXPECT_EQ(walk("/proc/..", 0, &p), 0);
	KEXPECT(p.dentry == root.root.dentry && p.mnt == root.root.mnt);
	path_put(&p);
	KEXPECT_EQ(walk("/dev/shm/../../tmp/..", 0, &p), 0);
	KEXPECT(p.dentry == root.root.dentry);
	path_put(&p);
	KEXPECT_EQ(walk("/..", 0, &p), 0);     /* the root's parent is itself */
	KEXPECT(p.dentry == root.root.dentry);
	path_put(&p);
	char buf[64];
	KEXPECT_EQ(walk("/dev/shm/", 0, &p), 0);
	KEXPECT_EQ(path_name(&root, &p, buf, sizeof(buf)), 9);
	KEXPECT(!strcmp(buf, "/dev/shm"));
	KEXPECT(p.mnt->sb != root.root.mnt->sb);   /* a mount of its own */
	path_put(&p);
	leave();
}

KTEST(vfs, walk_errors)
{
	enter();
	KEXPECT_EQ(walk("", 0, NULL), -ENOENT);
	KEXPECT_EQ(walk("/no-such-name", 0, NULL), -ENOENT);
	KEXPECT_EQ(walk("/proc/meminfo/x", 0, NULL), -ENOTDIR);
	KEXPECT_EQ(walk("/proc/meminfo/", 0, NULL), -ENOTDIR);
	KEXPECT_EQ(vfs_symlink(&root, NULL, "/tmp/vfs-loop", "/tmp/vfs-loop"), 0);
	KEXPECT_EQ(walk("/tmp/vfs-loop", LOOKUP_FOLLOW, NULL), -ELOOP);
	KEXPECT_EQ(walk("/tmp/vfs-loop", 0, NULL), 0);   /* the link itself */
	KEXPECT_EQ(vfs_unlink(&root, NULL, "/tmp/vfs-loop", UNLINK_FILE), 0);
	struct file *f;   /* O_CREAT|O_DIRECTORY: EINVAL and nothing made (Linux 6.4 on) */
	KEXPECT_EQ(vfs_open(&root, NULL, "/tmp/vfs-cd", O_CREAT | O_DIRECTORY | O_RDWR, 0644, &f),
		   -EINVAL);
	KEXPECT_EQ(walk("/tmp/vfs-cd", 0, NULL), -ENOENT);
	char *longname = kmalloc(PATH_MAX + 8);
	KEXPECT(longname != NULL);
	if (longname) {
		memset(longname, 'a', PATH_MAX + 4);
		longname[PATH_MAX + 4] = '\0';
		KEXPECT_EQ(walk(longname, 0, NULL), -ENAMETOOLONG);
		longname[NAME_MAX + 1] = '\0';
		KEXPECT_EQ(walk(longname, 0, NULL), -ENAMETOOLONG);
		kfree(longname);
	}
	leave();
}

/* A file's inode goes with its last name and last reference, pages too. */
KTEST(vfs, unlinked_file_freed_at_last_reference)
{
	enter();
	struct path tmp, f;
	KEXPECT_EQ(walk("/tmp", 0, &tmp), 0);
	struct super_block *sb = tmp.dentry->sb;
	int before = inodes_of(sb);
	uint64_t shmem = pagecache_stats.shmem;
	KEXPECT_EQ(vfs_create(&root, NULL, "/tmp/vfs-f", S_IFREG | 0644, 0, &f), 0);
	struct inode *ip = f.dentry->inode;
	char data[100] = "some bytes";
	KEXPECT_EQ(pagecache_copy(ip->mapping, 3 * PAGE_SIZE, data, sizeof(data), PC_COPY_IN),
		   (long)sizeof(data));
	ip->size = 3 * PAGE_SIZE + sizeof(data);
	KEXPECT_EQ(inodes_of(sb), before + 1);
	KEXPECT_EQ(pagecache_stats.shmem, shmem + 1);
	KEXPECT_EQ(vfs_unlink(&root, NULL, "/tmp/vfs-f", UNLINK_FILE), 0);
	KEXPECT_EQ(walk("/tmp/vfs-f", 0, NULL), -ENOENT);
	KEXPECT_EQ(ip->nlink, 0u);
	KEXPECT_EQ(inodes_of(sb), before + 1);       /* f still holds it */
	char back[100];
	KEXPECT_EQ(inode_read(ip, 3 * PAGE_SIZE, back, sizeof(back)), (long)sizeof(back));
	KEXPECT(!memcmp(back, data, sizeof(data)));
	path_put(&f);
	KEXPECT_EQ(inodes_of(sb), before);
	KEXPECT_EQ(pagecache_stats.shmem, shmem);
	path_put(&tmp);
	leave();
}

KTEST(vfs, mount_busy_umount)
{
	enter();
	struct path f;
	uint64_t objects = kmalloc_live();
	KEXPECT_EQ(vfs_mkdir(&root, NULL, "/tmp/vfs-m", 0755), 0);
	KEXPECT_EQ(vfs_mount(&root, "tmpfs", "/tmp/vfs-m", "tmpfs", 0, NULL), 0);
	KEXPECT_EQ(vfs_create(&root, NULL, "/tmp/vfs-m/inner", S_IFREG | 0644, 0, &f), 0);
	KEXPECT(f.mnt->sb != root.root.mnt->sb);
	KEXPECT_EQ(vfs_unlink(&root, NULL, "/tmp/vfs-m", UNLINK_DIR), -EBUSY);
	KEXPECT_EQ(vfs_umount(&root, "/tmp/vfs-m", 0), -EBUSY);   /* f is open */
	KEXPECT_EQ(vfs_umount(&root, "/tmp", 0), -EBUSY);         /* a mount on it */
	path_put(&f);
	KEXPECT_EQ(vfs_umount(&root, "/tmp/vfs-m", 0), 0);
	KEXPECT_EQ(walk("/tmp/vfs-m/inner", 0, NULL), -ENOENT);   /* the directory beneath */
	KEXPECT_EQ(vfs_umount(&root, "/tmp/vfs-m", 0), -EINVAL);  /* not a mount any more */
	KEXPECT_EQ(vfs_unlink(&root, NULL, "/tmp/vfs-m", UNLINK_DIR), 0);
	KEXPECT_EQ(kmalloc_live(), objects);   /* the mount, its sb, root, files: all gone */
	KEXPECT_EQ(vfs_mount(&root, NULL, "/tmp", "nosuchfs", 0, NULL), -ENODEV);
	KEXPECT_EQ(vfs_umount(&root, "/", 0), -EBUSY);
	leave();
}

/* ---- renames racing lookups on several CPUs ---- */

#define RACERS 3
#define ROUNDS 300

static volatile int racer_done[RACERS];

/* Rename /tmp/vfs-r/aN to bN and back, looking both up in between: at
 * every moment exactly one of the two names exists for this thread. */
static void racer_main(void *arg)
{
	int id = (int)(uintptr_t)arg, bad = 0;
	char a[32], b[32];
	ksnprintf(a, sizeof(a), "/tmp/vfs-r/a%d", id);
	ksnprintf(b, sizeof(b), "/tmp/vfs-r/b%d", id);
	struct fs_root r;
	fs_enter(&r);
	for (int i = 0; i < ROUNDS; i++) {
		const char *from = i % 2 ? b : a, *to = i % 2 ? a : b;
		bad += vfs_rename(&r, NULL, from, NULL, to, 0) != 0;
		struct path p;
		if (path_walk(&r, NULL, to, 0, &p) == 0)
			path_put(&p);
		else
			bad++;
		bad += path_walk(&r, NULL, from, 0, &p) != -ENOENT;
		/* and someone else's names, which move meanwhile */
		char other[32];
		ksnprintf(other, sizeof(other), "/tmp/vfs-r/%c%d", i % 3 ? 'a' : 'b', (id + 1) % RACERS);
		if (path_walk(&r, NULL, other, 0, &p) == 0)
			path_put(&p);
	}
	fs_leave(&r);
	racer_done[id] = bad ? -1 : 1;
	static struct spinlock idle = SPINLOCK_INIT("vfs-test-idle", LOCK_RANK_BLK_QUEUE);
	spin_lock(&idle);
	for (;;)
		wait_on(&idle, &idle);   /* nobody wakes it: kernel threads never return */
}

KTEST(vfs, renames_race_lookups)
{
	enter();
	KEXPECT_EQ(vfs_mkdir(&root, NULL, "/tmp/vfs-r", 0755), 0);
	for (int i = 0; i < RACERS; i++) {
		char a[32];
		struct path f;
		ksnprintf(a, sizeof(a), "/tmp/vfs-r/a%d", i);
		KEXPECT_EQ(vfs_create(&root, NULL, a, S_IFREG | 0644, 0, &f), 0);
		path_put(&f);
		racer_done[i] = 0;
	}
	for (int i = 0; i < RACERS; i++)
		KEXPECT_EQ(kthread_start("vfs-test", racer_main, (void *)(uintptr_t)i), 0);
	for (int i = 0; i < RACERS; i++) {
		while (!racer_done[i])
			cpu_relax();
		KEXPECT_EQ(racer_done[i], 1);
	}
	struct path d;
	KEXPECT_EQ(walk("/tmp/vfs-r", 0, &d), 0);
	KEXPECT_EQ(d.dentry->inode->priv, (uint64_t)RACERS);   /* tmpfs's entry count */
	path_put(&d);
	for (int i = 0; i < RACERS; i++) {
		char a[32];
		ksnprintf(a, sizeof(a), "/tmp/vfs-r/a%d", i);   /* ROUNDS is even: back at aN */
		KEXPECT_EQ(vfs_unlink(&root, NULL, a, UNLINK_FILE), 0);
	}
	KEXPECT_EQ(vfs_unlink(&root, NULL, "/tmp/vfs-r", UNLINK_DIR), 0);
	leave();
}
