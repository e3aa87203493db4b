/* kernel/fs_context.c -- each process's root and current directory, and
 * the file system at boot (kernel/fs.h). */
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "kernel/thread.h"
#include "fs/ext2/ext2.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/printk.h"
#include "lib/string.h"

void fs_enter(struct fs_root *r)
{
	struct proc *p = current_proc();
	struct fs_context *fs = p ? p->fs : NULL;
	if (!fs) {
		vfs_root(&r->root);
		vfs_root(&r->cwd);
		return;
	}
	spin_lock(&fs->lock);
	*r = fs->where;
	path_get(&r->root);
	path_get(&r->cwd);
	spin_unlock(&fs->lock);
}

void fs_leave(struct fs_root *r)
{
	path_put(&r->root);
	path_put(&r->cwd);
}

int fs_walk(const char *path, enum lookup_flags flags, struct path *out)
{
	struct fs_root r;
	fs_enter(&r);
	int e = path_walk(&r, NULL, path, flags, out);
	fs_leave(&r);
	return e;
}

int file_open(const char *path, int flags, struct file **out)
{
	struct fs_root r;
	fs_enter(&r);
	int e = vfs_open(&r, NULL, path, flags & ~O_CREAT, 0, out);
	fs_leave(&r);
	return e;
}

long fs_path_name(const struct path *p, char *buf, uint64_t n)
{
	struct fs_root r;
	fs_enter(&r);
	long e = path_name(&r, p, buf, n);
	fs_leave(&r);
	return e;
}

/* mknod at boot (the root's walk), reporting a failure. */
static void boot_mknod(const struct fs_root *r, const char *path, uint32_t mode, uint32_t rdev)
{
	struct path p;
	int e = vfs_create(r, NULL, path, mode, rdev, &p);
	if (e == 0)
		path_put(&p);
	else if (e != -EEXIST)
		printk("fs: cannot make %s (error %d)\n", path, e);
}

/* mkdir + mount at boot. */
static void boot_mount(const struct fs_root *r, const char *path, const char *type,
		       const char *data)
{
	int e = vfs_mkdir(r, NULL, path, 0755);
	if (e == 0 || e == -EEXIST)
		e = vfs_mount(r, type, path, type, 0, data);
	if (e < 0)
		printk("fs: cannot mount %s on %s (error %d)\n", type, path, e);
}

int fs_boot(paddr_t start, paddr_t end)
{
	vfs_init();
	memdev_init();
	fs_type_register(&tmpfs_type);
	fs_type_register(&procfs_type);
	fs_type_register(&ext2_type);
	int n = vfs_mount_root("tmpfs", NULL, "rootfs");
	if (n < 0)
		return n;
	struct fs_root r;
	fs_enter(&r);
	n = start < end ? initramfs_unpack(&r, start, end) : 0;
	boot_mount(&r, "/dev", "tmpfs", "mode=755");
	boot_mknod(&r, "/dev/console", S_IFCHR | 0600, MKDEV(5, 1));
	boot_mknod(&r, "/dev/tty", S_IFCHR | 0666, MKDEV(5, 0));
	boot_mknod(&r, "/dev/null", S_IFCHR | 0666, MKDEV(1, 3));
	boot_mknod(&r, "/dev/zero", S_IFCHR | 0666, MKDEV(1, 5));
	boot_mknod(&r, "/dev/full", S_IFCHR | 0666, MKDEV(1, 7));
	boot_mknod(&r, "/dev/random", S_IFCHR | 0666, MKDEV(1, 8));
	boot_mknod(&r, "/dev/urandom", S_IFCHR | 0666, MKDEV(1, 9));
	boot_mount(&r, "/dev/shm", "tmpfs", "mode=1777");
	boot_mount(&r, "/proc", "proc", NULL);
	boot_mount(&r, "/tmp", "tmpfs", "mode=1777");
	fs_leave(&r);
	return n;
}

void fs_add_disks(void)
{
	struct fs_root r;
	struct blkdev *d;
	fs_enter(&r);
	for (int i = 0; (d = blkdev_get(i)); i++) {
		char path[32];
		ksnprintf(path, sizeof(path), "/dev/%s", d->name);
		boot_mknod(&r, path, S_IFBLK | 0660, blkdev_devt(i));   /* 0660: as udev makes them */
	}
	fs_leave(&r);
}

long inode_name(struct inode *ip, char *buf, uint64_t n)
{
	spin_lock(&dcache_lock);
	struct dentry *d = ip->alias;   /* freed only under dcache_lock */
	long e = d ? dentry_name_locked(d, buf, n) : -ENOENT;
	spin_unlock(&dcache_lock);
	return e;
}
