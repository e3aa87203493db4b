/* fs/tests/ext2_test.c -- test=ext2: fs/ext2 on a virtio disk that the test
 * runner made with `mke2fs -t ext2 -d` from the build's root tree, the
 * tree the initrd holds too (tests/qemu/disks.py, "vda:64M:ext2"). Every
 * regular file and symlink found on the disk, walked from its root, must
 * be in the initrd with the same bytes, and /bin must list the same
 * programs in both; reads from several kernel threads on other CPUs at
 * once (one file's page cache, one inode) agree with the initrd. */
#include "kernel/ktest.h"
#include "kernel/fs.h"
#include "kernel/kthread.h"
#include "drivers/block/blkdev.h"
#include "fs/ext2/ext2.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/cpu.h"

#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define CHUNK 4096

static struct ext2_fs *mounted;

static struct ext2_fs *fs_of_vda(void)
{
	struct blkdev *d = blkdev_find("vda");
	if (!mounted && d && ext2_mount(d, &mounted) != 0)
		mounted = NULL;
	return mounted;
}

/* Does ext2 file ip hold the bytes of initrd file path? */
static bool same_as_initrd(struct ext2_inode *ip, const char *path)
{
	struct path where;
	if (fs_walk(path, LOOKUP_FOLLOW, &where) < 0) {
		printk("ext2 test: %s: not in the initrd\n", path);
		return false;
	}
	struct inode *in = inode_get(where.dentry->inode);
	path_put(&where);
	if (!S_ISREG(in->mode) || in->size != ip->vfs.size) {
		printk("ext2 test: %s: not in the initrd with size %lu\n", path, ip->vfs.size);
		inode_put(in);
		return false;
	}
	char *a = kmalloc(CHUNK), *b = kmalloc(CHUNK);
	bool same = a && b;
	for (uint64_t off = 0; same && off < ip->vfs.size; off += CHUNK) {
		uint64_t n = MIN(CHUNK, ip->vfs.size - off);
		same = ext2_read(ip, off, a, CHUNK) == (long)n && inode_read(in, off, b, n) == (long)n &&
		       memcmp(a, b, n) == 0;
	}
	if (!same)
		printk("ext2 test: %s differs from the initrd's\n", path);
	inode_put(in);
	kfree(a);
	kfree(b);
	return same;
}

struct walk_count {
	int files, dirs, links, bad;
};

/* Compare everything under directory ip (at path) with the initrd. */
static void walk(struct ext2_inode *dir, const char *path, struct walk_count *c, int depth)
{
	char *name = kmalloc(EXT2_NAME_LEN + 1), *child = kmalloc(512);
	uint64_t pos = 0;
	uint32_t ino;
	uint8_t type;
	int r;
	while (name && child && (r = ext2_readdir(dir, &pos, name, &ino, &type)) == 1) {
		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "lost+found"))
			continue;
		ksnprintf(child, 512, "%s/%s", path, name);
		struct ext2_inode *ip;
		if (ext2_iget(dir->fs, ino, &ip) != 0) {
			c->bad++;
			continue;
		}
		if ((ip->vfs.mode & S_IFMT) == S_IFDIR && depth < 8) {
			c->dirs++;
			walk(ip, child, c, depth + 1);
		} else if ((ip->vfs.mode & S_IFMT) == S_IFREG) {
			c->files++;
			c->bad += !same_as_initrd(ip, child);
		} else {
			c->links++;
		}
		ext2_iput(ip);
	}
	kfree(name);
	kfree(child);
}

KTEST(ext2, mount_and_compare_with_initrd)
{
	struct ext2_fs *fs = fs_of_vda();
	KEXPECT(fs != NULL);
	if (!fs)
		return;
	struct ext2_inode *root;
	KEXPECT_EQ(ext2_iget(fs, EXT2_ROOT_INO, &root), 0);
	struct walk_count c = { 0 };
	walk(root, "", &c, 0);
	ext2_iput(root);
	printk("ext2 test: %d files, %d directories, %d others compared\n", c.files, c.dirs, c.links);
	KEXPECT(c.files >= 40 && c.dirs >= 1);
	KEXPECT_EQ(c.bad, 0);
}

KTEST(ext2, bin_lists_the_same_programs)
{
	struct ext2_fs *fs = fs_of_vda();
	struct path bin;
	KEXPECT(fs);
	KEXPECT_EQ(fs_walk("/bin", LOOKUP_FOLLOW, &bin), 0);
	if (!fs || !bin.dentry)
		return;
	int initrd_n = 0, found = 0;
	struct ext2_inode *root, *ebin;
	uint32_t ino;
	KEXPECT_EQ(ext2_iget(fs, EXT2_ROOT_INO, &root), 0);
	KEXPECT_EQ(ext2_lookup(root, "bin", 3, &ino), 0);
	KEXPECT_EQ(ext2_iget(fs, ino, &ebin), 0);
	struct dir_entry *de = kmalloc(sizeof(*de));
	uint64_t pos = 2;
	while (de && bin.dentry->inode->op->readdir(bin.dentry, &pos, de) == 1) {
		found += ext2_lookup(ebin, de->name, strlen(de->name), &ino) == 0;
		initrd_n++;
	}
	kfree(de);
	path_put(&bin);
	KEXPECT(initrd_n >= 40);
	KEXPECT_EQ(found, initrd_n);
	KEXPECT_EQ(ext2_lookup(ebin, "no-such-program", 15, &ino), -ENOENT);
	KEXPECT_EQ(ext2_lookup(root, "bin/sh", 6, &ino), -ENOENT);   /* one name, not a path */
	ext2_iput(ebin);
	ext2_iput(root);
}

/* ---- several CPUs reading one file through one page cache ---- */

#define READERS 3

static volatile int reader_done[READERS];

/* The inode at path (no leading slash) of the mounted disk, or NULL. */
static struct ext2_inode *open_path(const char *path)
{
	struct ext2_inode *ip;
	if (ext2_iget(mounted, EXT2_ROOT_INO, &ip) != 0)
		return NULL;
	while (*path) {
		const char *end = strchr(path, '/');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		uint32_t ino;
		int e = ext2_lookup(ip, path, len, &ino);
		ext2_iput(ip);
		if (e || ext2_iget(mounted, ino, &ip) != 0)
			return NULL;
		path += len + (end ? 1 : 0);
	}
	return ip;
}

static void reader_main(void *arg)
{
	int id = (int)(uintptr_t)arg;
	struct ext2_inode *ip = open_path("bin/usertests");
	bool ok = ip != NULL;
	for (int round = 0; ok && round < 3; round++)
		ok = same_as_initrd(ip, "/bin/usertests");
	if (ip)
		ext2_iput(ip);
	reader_done[id] = ok ? 1 : -1;
	static struct spinlock idle = SPINLOCK_INIT("ext2-test-idle", LOCK_RANK_BLK_QUEUE);
	spin_lock(&idle);
	for (;;)
		wait_on(&idle, &idle);   /* nobody wakes it: kernel threads never return */
}

KTEST(ext2, readers_on_other_cpus)
{
	KEXPECT(fs_of_vda() != NULL);
	if (!mounted)
		return;
	for (int i = 0; i < READERS; i++) {
		reader_done[i] = 0;
		KEXPECT_EQ(kthread_start("ext2-test", reader_main, (void *)(uintptr_t)i), 0);
	}
	for (int i = 0; i < READERS; i++) {
		while (!reader_done[i])
			cpu_relax();
		KEXPECT_EQ(reader_done[i], 1);
	}
}

/* ---- ext2 in the VFS: mounted, walked, read through the page cache ---- */

KTEST(ext2, mounted_in_the_vfs)
{
	struct fs_root r;
	fs_enter(&r);
	KEXPECT_EQ(vfs_mkdir(&r, NULL, "/tmp/e", 0755), 0);
	KEXPECT_EQ(vfs_mount(&r, "/dev/vda", "/tmp/e", "nosuch", 1, NULL), -ENODEV);
	KEXPECT_EQ(vfs_mount(&r, "/dev/console", "/tmp/e", "ext2", 1, NULL), -ENOTBLK);
	KEXPECT_EQ(vfs_mount(&r, "/dev/vda", "/tmp/e", "ext2", 1 /* MS_RDONLY */, NULL), 0);
	struct path p;
	KEXPECT_EQ(path_walk(&r, NULL, "/tmp/e/bin/usertests", LOOKUP_FOLLOW, &p), 0);
	if (p.dentry) {
		struct inode *ext = p.dentry->inode, *in;
		struct path initrd;
		KEXPECT_EQ(fs_walk("/bin/usertests", LOOKUP_FOLLOW, &initrd), 0);
		in = initrd.dentry->inode;
		KEXPECT_EQ(ext->size, in->size);
		KEXPECT(ext->sb != in->sb && !strcmp(ext->sb->type->name, "ext2"));
		char *a = kmalloc(CHUNK), *b = kmalloc(CHUNK);
		bool same = a && b;
		for (uint64_t off = 0; same && off < in->size; off += CHUNK) {
			long n = (long)MIN(CHUNK, in->size - off);
			same = inode_read(ext, off, a, CHUNK) == n && inode_read(in, off, b, CHUNK) == n &&
			       !memcmp(a, b, (size_t)n);
		}
		KEXPECT(same);
		kfree(a);
		kfree(b);
		struct file *f;
		KEXPECT_EQ(vfs_open(&r, NULL, "/tmp/e/bin/usertests", O_RDWR, 0, &f), -EROFS);
		KEXPECT_EQ(vfs_mkdir(&r, NULL, "/tmp/e/new", 0755), -EROFS);
		KEXPECT_EQ(vfs_umount(&r, "/tmp/e", 0), -EBUSY);   /* p holds it */
		path_put(&initrd);
		path_put(&p);
	}
	KEXPECT_EQ(path_walk(&r, NULL, "/tmp/e/bin/../bin/sh", LOOKUP_FOLLOW, &p), 0);
	if (p.dentry)
		path_put(&p);
	KEXPECT_EQ(vfs_umount(&r, "/tmp/e", 0), 0);
	KEXPECT_EQ(path_walk(&r, NULL, "/tmp/e/bin", 0, &p), -ENOENT);
	KEXPECT_EQ(vfs_unlink(&r, NULL, "/tmp/e", UNLINK_DIR), 0);
	fs_leave(&r);
}
