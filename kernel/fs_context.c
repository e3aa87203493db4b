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

/* /dev/NAME for every disk of the block layer (0660: as udev makes them). */
static void add_disks(const struct fs_root *r)
{
	struct blkdev *d;
	for (int i = 0; (d = blkdev_get(i)); i++) {
		char path[32];
		ksnprintf(path, sizeof(path), "/dev/%s", d->name);
		boot_mknod(r, path, S_IFBLK | 0660, blkdev_devt(i));
	}
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

/* The root: ext2 on the disk root names ("/dev/vda"), or a tmpfs. The
 * initrd goes into the root, or (a disk root) into a tmpfs at /run. */
static int mount_root(const char *root, const char **initrd_at)
{
	*initrd_at = "/";
	if (root) {
		struct blkdev *d = !strncmp(root, "/dev/", 5) ? blkdev_find(root + 5) : NULL;
		int e = d ? vfs_mount_root("ext2", d, root) : -ENODEV;
		if (e == 0) {
			*initrd_at = "/run";
			printk("fs: root is ext2 on %s\n", root);
			return 0;
		}
		printk("fs: cannot mount %s as the root (error %d): the initrd is the root\n", root, e);
	}
	return vfs_mount_root("tmpfs", NULL, "rootfs");
}

int fs_boot(paddr_t start, paddr_t end, const char *root)
{
	vfs_init();
	memdev_init();
	fs_type_register(&tmpfs_type);
	shmem_init();
	fs_type_register(&procfs_type);
	fs_type_register(&ext2_type);
	const char *initrd_at;
	int n = mount_root(root, &initrd_at);
	if (n < 0)
		return n;
	struct fs_root r;
	fs_enter(&r);
	if (strcmp(initrd_at, "/"))
		boot_mount(&r, initrd_at, "tmpfs", "mode=755");
	n = start < end ? initramfs_unpack(&r, initrd_at, start, end) : 0;
	boot_mount(&r, "/dev", "tmpfs", "mode=755");
	boot_mknod(&r, "/dev/console", S_IFCHR | 0600, MKDEV(5, 1));
	boot_mknod(&r, "/dev/tty", S_IFCHR | 0666, MKDEV(5, 0));
	boot_mknod(&r, "/dev/null", S_IFCHR | 0666, MKDEV(1, 3));
	boot_mknod(&r, "/dev/zero", S_IFCHR | 0666, MKDEV(1, 5));
	boot_mknod(&r, "/dev/full", S_IFCHR | 0666, MKDEV(1, 7));
	boot_mknod(&r, "/dev/random", S_IFCHR | 0666, MKDEV(1, 8));
	boot_mknod(&r, "/dev/urandom", S_IFCHR | 0666, MKDEV(1, 9));
	add_disks(&r);
	boot_mount(&r, "/dev/shm", "tmpfs", "mode=1777");
	boot_mount(&r, "/proc", "proc", NULL);
	boot_mount(&r, "/tmp", "tmpfs", "mode=1777");
	if (r.root.dentry->inode->sb->bdev)   /* mount points made on a disk root: durable now */
		(void)vfs_sync_sb(r.root.dentry->inode->sb);
	fs_leave(&r);
	return n;
}

long inode_name(struct inode *ip, char *buf, uint64_t n)
{
	spin_lock(&dcache_lock);
	struct dentry *d = ip->alias;   /* freed only under dcache_lock */
	long e = d ? dentry_name_locked(d, buf, n) : -ENOENT;
	spin_unlock(&dcache_lock);
	return e;
}
