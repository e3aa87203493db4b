/* fs/tmpfs.c -- tmpfs: files that live only in memory (Linux's shmem).
 *
 *   names:    the dentry cache is the directory: a tmpfs dentry stays in
 *             the tree while its name exists (never forgotten), so lookup
 *             of a name that is not cached finds nothing
 *   contents: the file's page cache, with no store behind it: a page
 *             written stays (dirty, never written out); a page never
 *             written reads as zeros (read_page of a hole) and, clean,
 *             may be dropped when memory is short -- it reads as zeros again
 *   inodes:   numbered from 2 in creation order; freed with their last
 *             name and reference (fs/inode.c)
 *
 * The root file system without a disk is a tmpfs the initrd is unpacked
 * into (fs/initramfs.c), as Linux's initramfs; /tmp, /dev/shm and /dev are
 * tmpfs mounts. Who changes what: sb->ns (fs/vfs.h) serializes every
 * change of names and link counts; a directory's entry count (priv) too.
 */
#include "fs/vfs.h"
#include "fs/file.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define TMPFS_MAGIC 0x01021994

static const struct inode_ops tmpfs_dir_ops, tmpfs_file_ops, tmpfs_link_ops;

static int hole_read(struct pagecache *pc, struct page **pages, unsigned n)
{
	(void)pc, (void)pages, (void)n;
	return 0;            /* the pages came zeroed: holes */
}

static const struct pagecache_ops tmpfs_pc_ops = { .read_pages = hole_read };

/* A new inode of sb: mode's type decides its ops. */
static struct inode *tmpfs_inode(struct super_block *sb, uint32_t mode, uint32_t rdev)
{
	struct inode *ip = inode_new(sb, mode, &tmpfs_pc_ops);
	if (!ip)
		return NULL;
	ip->ino = __atomic_fetch_add(&sb->next_ino, 1, __ATOMIC_RELAXED);
	ip->rdev = rdev;
	if (S_ISDIR(mode)) {
		ip->op = &tmpfs_dir_ops;
		ip->fop = &dir_file_ops;
		ip->nlink = 2;
	} else if (S_ISREG(mode)) {
		ip->op = &tmpfs_file_ops;
		ip->fop = &page_file_ops;
		ip->mapping->kind = PC_KIND_SHMEM;
	} else if (S_ISLNK(mode)) {
		ip->op = &tmpfs_link_ops;
	}
	return ip;
}

static int tmpfs_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	(void)dir, (void)name, (void)len, (void)out;
	return -ENOENT;      /* every name that exists is in the dentry cache */
}

static int tmpfs_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
			uint32_t rdev, const char *target, struct inode **out)
{
	(void)name, (void)len;
	char *copy = NULL;
	if (target) {
		size_t n = strlen(target);
		if (!(copy = kmalloc(n + 1)))
			return -ENOMEM;
		memcpy(copy, target, n + 1);
	}
	struct inode *ip = tmpfs_inode(dir->sb, mode, rdev);
	if (!ip) {
		kfree(copy);
		return -ENOMEM;
	}
	if (copy) {
		ip->priv = (uint64_t)copy;
		ip->size = strlen(copy);
	}
	dir->priv++;
	dir->nlink += S_ISDIR(mode);
	inode_touch(dir);
	*out = ip;
	return 0;
}

static int tmpfs_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	(void)name, (void)len;
	ip->nlink++;
	ip->ctime = vfs_now();
	dir->priv++;
	inode_touch(dir);
	return 0;
}

/* ip loses one name in dir (a directory: its "." and its entry in dir). */
static void drop_name(struct inode *dir, struct inode *ip)
{
	if (S_ISDIR(ip->mode)) {
		ip->nlink = 0;
		dir->nlink--;
	} else {
		ip->nlink--;
	}
	ip->ctime = vfs_now();
	dir->priv--;
	inode_touch(dir);
}

static int tmpfs_unlink(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	(void)name, (void)len;
	drop_name(dir, ip);
	return 0;
}

/* RENAME_EXCHANGE: each directory keeps its count of names; a
 * subdirectory that changes parent moves a link with it. */
static int tmpfs_exchange(struct inode *odir, struct inode *ip, struct inode *ndir,
			  struct inode *other)
{
	int moved = S_ISDIR(ip->mode) - S_ISDIR(other->mode);   /* into ndir, net */
	ndir->nlink += (uint32_t)moved, odir->nlink -= (uint32_t)moved;
	inode_touch(odir);
	inode_touch(ndir);
	ip->ctime = other->ctime = vfs_now();
	return 0;
}

static int tmpfs_rename(struct inode *odir, const char *oname, size_t olen, struct inode *ip,
			struct inode *ndir, const char *nname, size_t nlen, struct inode *victim,
			unsigned flags)
{
	(void)oname, (void)olen, (void)nname, (void)nlen;
	if (flags & RENAME_EXCHANGE)
		return tmpfs_exchange(odir, ip, ndir, victim);
	if (victim)
		drop_name(ndir, victim);
	odir->priv--;
	ndir->priv++;
	if (S_ISDIR(ip->mode)) {
		odir->nlink--;
		ndir->nlink++;
	}
	inode_touch(odir);
	inode_touch(ndir);
	ip->ctime = vfs_now();
	return 0;
}

static int tmpfs_empty(struct inode *ip)
{
	return ip->priv == 0;
}

/* The child of dir with the smallest seq >= *pos - 2 (positions 0 and 1
 * are "." and ".."): its name, number and type. */
static int tmpfs_readdir(struct dentry *dir, uint64_t *pos, struct dir_entry *de)
{
	int found = 0;
	spin_lock(&dcache_lock);
	list_for_each(l, &dir->children) {
		struct dentry *c = list_entry(l, struct dentry, sibling);
		if (c->seq + 2 < *pos || !c->inode)
			continue;
		memcpy(de->name, c->name, c->len + 1);
		de->ino = c->inode->ino;
		de->type = MODE_DT(c->inode->mode);
		*pos = c->seq + 3;
		found = 1;
		break;
	}
	spin_unlock(&dcache_lock);
	return found;
}

static long tmpfs_readlink(struct inode *ip, char *buf, uint64_t n)
{
	uint64_t len = MIN(ip->size, n);
	memcpy(buf, (const char *)ip->priv, len);
	return (long)len;
}

static const struct inode_ops tmpfs_dir_ops = {
	.lookup = tmpfs_lookup, .create = tmpfs_create, .link = tmpfs_link,
	.unlink = tmpfs_unlink, .rename = tmpfs_rename, .empty = tmpfs_empty,
	.readdir = tmpfs_readdir,
};
/* A hole in a tmpfs file: its pages were its store, and the VFS dropped
 * them (vfs_punch_hole); nothing is left to free. */
static int tmpfs_punch_hole(struct inode *ip, uint64_t off, uint64_t len)
{
	(void)ip, (void)off, (void)len;
	return 0;
}

/* (the VFS drops pages past a new end) */
static const struct inode_ops tmpfs_file_ops = { .punch_hole = tmpfs_punch_hole };
static const struct inode_ops tmpfs_link_ops = { .readlink = tmpfs_readlink };

static void tmpfs_free_inode(struct inode *ip)
{
	if (S_ISLNK(ip->mode))
		kfree((void *)ip->priv);
	kfree(ip);
}

static int tmpfs_statfs(struct super_block *sb, uint64_t out[6])
{
	uint64_t total = atomic_load(&mm_stats.managed) / 2;   /* Linux's default size */
	uint64_t used = 0, files = 0;
	spin_lock(&sb->inodes_lock);
	list_for_each(l, &sb->inodes) {
		struct inode *ip = list_entry(l, struct inode, sb_link);
		used += ip->mapping ? ip->mapping->nrpages : 0;
		files++;
	}
	spin_unlock(&sb->inodes_lock);
	uint64_t bfree = total > used ? total - used : 0;
	uint64_t v[6] = { PAGE_SIZE, total, bfree, bfree, total, total > files ? total - files : 0 };
	memcpy(out, v, sizeof(v));
	return 0;
}

static const struct super_ops tmpfs_super_ops = {
	.free_inode = tmpfs_free_inode, .statfs = tmpfs_statfs,
};

/* The root directory's mode from a "mode=1777" option in data (options
 * are separated by commas; others, such as size=, are ignored): 0755
 * without one, as Linux's tmpfs. */
static uint32_t root_mode(const char *data)
{
	for (const char *o = data; o && *o;) {
		if (!strncmp(o, "mode=", 5)) {
			uint32_t mode = 0;
			for (o += 5; *o >= '0' && *o <= '7'; o++)
				mode = mode * 8 + (uint32_t)(*o - '0');
			return mode & 07777;
		}
		while (*o && *o != ',')
			o++;
		o += *o == ',';
	}
	return 0755;
}

static int tmpfs_mount(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
		       const char *data, struct super_block **out)
{
	(void)bdev;
	struct super_block *sb = sb_new(t, &tmpfs_super_ops);
	if (!sb)
		return -ENOMEM;
	static uint32_t next_dev = 16;        /* st_dev: an anonymous device each */
	sb->dev = MKDEV(0, __atomic_fetch_add(&next_dev, 1, __ATOMIC_RELAXED));
	sb->magic = TMPFS_MAGIC;
	sb->flags = flags & 1 ? SB_RDONLY : 0;
	struct inode *root = tmpfs_inode(sb, S_IFDIR | root_mode(data), 0);
	if (!root || !(sb->root = dentry_root(sb, root))) {
		kfree(sb);
		return -ENOMEM;
	}
	*out = sb;
	return 0;
}

const struct fs_type tmpfs_type = { .name = "tmpfs", .mount = tmpfs_mount };

/* ---- shared anonymous memory: files of a tmpfs nobody mounts ---- */

/* Its super block (Linux's shm_mnt), made at boot; device 0:1, as Linux
 * shows such mappings in /proc/PID/maps. */
static struct super_block *shm_sb;

void shmem_init(void)
{
	if (!(shm_sb = sb_new(&tmpfs_type, &tmpfs_super_ops)))
		panic("shmem_init: no memory for the tmpfs of shared anonymous memory");
	shm_sb->dev = MKDEV(0, 1);
	shm_sb->magic = TMPFS_MAGIC;
}

struct vmobject *shmem_object_new(uint64_t size)
{
	struct inode *ip = shm_sb ? tmpfs_inode(shm_sb, S_IFREG | 0600, 0) : NULL;
	if (!ip)
		return NULL;
	ip->size = size;   /* a file of zeros (holes), no name: it goes with its last mapping */
	ip->nlink = 0;
	struct vmobject *obj = inode_vmobject(ip);
	obj->kind = VMOBJ_SHM;
	vmobject_get(obj);   /* the caller's; it holds the inode (file_hold) */
	inode_put(ip);
	return obj;
}
