/* fs/ext2/vfs.c -- ext2 under the VFS: the file system type `mount -t
 * ext2` finds, and the ops the VFS calls on ext2's inodes (fs/vfs.h),
 * each a thin adapter over fs/ext2/ext2.c. Read-only so far: a mount is
 * read-only whatever was asked (/proc/mounts says "ro"), so every change
 * of a name or a file is -EROFS before it reaches here.
 */
#include "fs/ext2/ext2.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

/* lookup: the entry's inode, read (or found in memory). */
static int ext2_vfs_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct ext2_inode *d = ext2_i(dir), *ip;
	uint32_t ino;
	int r = ext2_lookup(d, name, len, &ino);
	if (r == 0 && (r = ext2_iget(d->fs, ino, &ip)) == 0)
		*out = &ip->vfs;
	return r;
}

/* DT_* of an ext2 directory entry's file type. */
static uint8_t entry_type(uint8_t ft)
{
	static const uint8_t dt[] = { 0, 8, 4, 2, 6, 1, 12, 10 };
	return ft < sizeof(dt) ? dt[ft] : 0;
}

/* readdir: positions from 2 on are the directory's byte offsets + 2; its
 * own "." and ".." entries are skipped (the VFS gives those). */
static int ext2_vfs_readdir(struct dentry *dir, uint64_t *pos, struct dir_entry *de)
{
	struct ext2_inode *d = ext2_i(dir->inode);
	uint64_t at = *pos - 2;
	uint32_t ino;
	uint8_t ft;
	for (;;) {
		int r = ext2_readdir(d, &at, de->name, &ino, &ft);
		if (r <= 0)
			return r;
		if (strcmp(de->name, ".") && strcmp(de->name, ".."))
			break;
	}
	de->ino = ino;
	de->type = entry_type(ft);
	*pos = at + 2;
	return 1;
}

static long ext2_vfs_readlink(struct inode *ip, char *buf, uint64_t n)
{
	return ext2_readlink(ext2_i(ip), buf, n);
}

static const struct inode_ops dir_ops = {
	.lookup = ext2_vfs_lookup, .readdir = ext2_vfs_readdir,
};
static const struct inode_ops link_ops = { .readlink = ext2_vfs_readlink };
static const struct inode_ops file_ops = { 0 };

void ext2_set_ops(struct ext2_inode *ip)
{
	uint32_t mode = ip->vfs.mode;
	ip->vfs.op = S_ISDIR(mode) ? &dir_ops : S_ISLNK(mode) ? &link_ops : &file_ops;
	ip->vfs.fop = S_ISDIR(mode) ? &dir_file_ops : S_ISREG(mode) ? &page_file_ops : NULL;
}

static void ext2_free_inode(struct inode *ip)
{
	kfree(ext2_i(ip));
}

static int ext2_statfs(struct super_block *sb, uint64_t out[6])
{
	struct ext2_fs *fs = sb->priv;
	uint64_t v[6] = { fs->block_size, fs->blocks_count, fs->free_blocks, fs->free_blocks,
			  fs->inodes_count, fs->free_inodes };
	memcpy(out, v, sizeof(v));
	return 0;
}

const struct super_ops ext2_super_ops = {
	.free_inode = ext2_free_inode, .statfs = ext2_statfs,
};

static int ext2_vfs_mount(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
			  const char *data, struct super_block **out)
{
	(void)t, (void)flags, (void)data;
	struct ext2_fs *fs;
	int r = ext2_mount(bdev, &fs);
	if (r == 0)
		*out = fs->sb;
	return r;
}

static void ext2_kill(struct super_block *sb)
{
	ext2_free(sb->priv);
}

const struct fs_type ext2_type = {
	.name = "ext2", .mount = ext2_vfs_mount, .kill = ext2_kill, .needs_disk = true,
};
