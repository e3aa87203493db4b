/* fs/ext2/vfs.c -- ext2 under the VFS: the file system type `mount -t
 * ext2` finds, and the ops the VFS calls on ext2's inodes (fs/vfs.h),
 * each a thin adapter over the rest of fs/ext2: names (dir.c), blocks
 * (blocks.c), free space (alloc.c), inodes (ext2.c).
 *
 * The superblock says "not clean" while the file system is mounted
 * read-write and "clean" again after the umount's (or power-off's) sync,
 * as Linux's ext2 does, so e2fsck checks an image that was not unmounted.
 */
#include "fs/ext2/ext2.h"
#include "fs/ext2/dirindex.h"
#include "fs/file.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/memlayout.h"

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

/* ---- changes ---- */

/* A new inode of dir's file system for `mode`: in memory, on the disk
 * (fresh record), not yet named. */
static int new_inode(struct ext2_inode *dir, uint32_t mode, uint32_t rdev, struct ext2_inode **out)
{
	struct ext2_fs *fs = dir->fs;
	uint32_t ino;
	int e = ext2_alloc_inode(fs, (uint32_t)dir->vfs.ino, S_ISDIR(mode), &ino);
	if (e)
		return e;
	struct ext2_inode *ip = kzalloc(sizeof(*ip));
	if (!ip) {
		ext2_free_inode(fs, ino, S_ISDIR(mode));
		return -ENOMEM;
	}
	inode_init(&ip->vfs, fs->sb, mode, &ext2_data_ops);
	mutex_init(&ip->map_lock, "ext2-map", SLEEP_RANK_BLOCK_MAP);
	ip->vfs.ino = ino;
	ip->vfs.rdev = rdev;
	ip->fs = fs;
	if (S_ISCHR(mode) || S_ISBLK(mode)) {   /* Linux's encodings: old when it fits */
		if (MAJOR(rdev) < 256 && MINOR(rdev) < 256)
			ip->block[0] = MAJOR(rdev) << 8 | MINOR(rdev);
		else
			ip->block[1] = rdev;
	}
	ext2_set_ops(ip);
	*out = ip;
	return 0;
}

/* Undo new_inode after a later step failed. */
static void drop_new(struct ext2_inode *ip)
{
	ext2_truncate_blocks(ip, 0);
	ext2_free_inode(ip->fs, (uint32_t)ip->vfs.ino, S_ISDIR(ip->vfs.mode));
	if (ip->vfs.mapping)
		pagecache_destroy(ip->vfs.mapping);
	kfree(ip);
}

/* A symlink's target: in i_block when it fits (a fast link), else a block. */
static int set_target(struct ext2_inode *ip, const char *target)
{
	size_t n = strlen(target);
	ip->vfs.size = n;
	if (n < sizeof(ip->block)) {
		memcpy(ip->block, target, n);
		return 0;
	}
	if (n >= ip->fs->block_size)
		return -ENAMETOOLONG;
	int e = ext2_map_blocks(ip, 0, 1);
	long w = e ? e : pagecache_copy(ip->vfs.mapping, 0, (void *)target, n, PC_COPY_IN);
	return w < 0 ? (int)w : 0;
}

static int ext2_vfs_create(struct inode *dirv, const char *name, size_t len, uint32_t mode,
			   uint32_t rdev, const char *target, struct inode **out)
{
	struct ext2_inode *dir = ext2_i(dirv), *ip;
	int e = new_inode(dir, mode, rdev, &ip);
	if (e)
		return e;
	if (S_ISDIR(mode)) {
		ip->vfs.nlink = 2;
		e = ext2_dir_init(ip, (uint32_t)dir->vfs.ino);
	} else if (S_ISLNK(mode)) {
		e = set_target(ip, target);
	}
	e = e ?: ext2_write_inode(ip, true);
	e = e ?: ext2_add_entry(dir, name, len, (uint32_t)ip->vfs.ino, ext2_ftype(mode));
	if (e) {
		drop_new(ip);
		return e;
	}
	if (S_ISDIR(mode)) {
		dir->vfs.nlink++;
		ext2_write_inode(dir, false);
	}
	*out = inode_insert(&ip->vfs);
	return 0;
}

static int ext2_vfs_link(struct inode *dirv, const char *name, size_t len, struct inode *ipv)
{
	struct ext2_inode *ip = ext2_i(ipv);
	int e = ext2_add_entry(ext2_i(dirv), name, len, (uint32_t)ipv->ino, ext2_ftype(ipv->mode));
	if (e)
		return e;
	ipv->nlink++;
	ipv->ctime = vfs_now();
	return ext2_write_inode(ip, false);
}

/* ip loses its name in dir (a directory: its "." and dir's ".." too). */
static int drop_name(struct ext2_inode *dir, struct ext2_inode *ip)
{
	if (S_ISDIR(ip->vfs.mode)) {
		ip->vfs.nlink = 0;
		dir->vfs.nlink--;
		ext2_write_inode(dir, false);
	} else {
		ip->vfs.nlink--;
	}
	ip->vfs.ctime = vfs_now();
	return ext2_write_inode(ip, false);
}

static int ext2_vfs_unlink(struct inode *dirv, const char *name, size_t len, struct inode *ipv)
{
	int e = ext2_remove_entry(ext2_i(dirv), name, len);
	return e ? e : drop_name(ext2_i(dirv), ext2_i(ipv));
}

static int ext2_vfs_rename(struct inode *odirv, const char *oname, size_t olen, struct inode *ipv,
			   struct inode *ndirv, const char *nname, size_t nlen, struct inode *victim,
			   unsigned flags)
{
	if (flags & RENAME_EXCHANGE)
		return -EINVAL;   /* as Linux's ext2 */
	struct ext2_inode *odir = ext2_i(odirv), *ndir = ext2_i(ndirv), *ip = ext2_i(ipv);
	uint8_t ft = ext2_ftype(ipv->mode);
	int e = victim ? ext2_set_entry(ndir, nname, nlen, (uint32_t)ipv->ino, ft)
		       : ext2_add_entry(ndir, nname, nlen, (uint32_t)ipv->ino, ft);
	if (!e && victim)
		e = drop_name(ndir, ext2_i(victim));
	if (!e)
		e = ext2_remove_entry(odir, oname, olen);
	if (!e && S_ISDIR(ipv->mode) && odir != ndir) {
		e = ext2_set_entry(ip, "..", 2, (uint32_t)ndirv->ino, EXT2_FT_DIR);
		odirv->nlink--, ndirv->nlink++;
		ext2_write_inode(odir, false);
		ext2_write_inode(ndir, false);
	}
	ipv->ctime = vfs_now();
	int w = ext2_write_inode(ip, false);
	return e ? e : w;
}

static int ext2_vfs_empty(struct inode *ip)
{
	return ext2_dir_empty(ext2_i(ip));
}

/* The size changed to ip->size (inode lock held). A shrink comes after
 * the VFS zeroed the end page's bytes past the end (a later growth must
 * read zeros there, also from the last block on the disk) and waited for
 * that page's write-back in flight (which may still be writing blocks past
 * the end: pagecache_truncate_at); only then are the blocks past the end
 * freed. */
static int ext2_vfs_set_size(struct inode *v, uint64_t old)
{
	struct ext2_inode *ip = ext2_i(v);
	uint32_t bs = ip->fs->block_size;
	inode_mark_dirty(v);
	if (v->size >= old)
		return 0;
	return ext2_truncate_blocks(ip, ALIGN_UP(v->size, bs) / bs);
}

/* Map the blocks a write will fill; a failure (a full disk) gives back
 * those it mapped past the file's end (as Linux's ext2_write_failed). */
static int ext2_vfs_prepare_write(struct inode *v, uint64_t off, uint64_t len)
{
	uint32_t bs = ext2_i(v)->fs->block_size;
	uint64_t first = off / bs, last = (off + len - 1) / bs;
	int e = len ? ext2_map_blocks(ext2_i(v), first, last - first + 1) : 0;
	if (e)
		ext2_truncate_blocks(ext2_i(v), ALIGN_UP(v->size, bs) / bs);
	return e;
}

/* The blocks of page index (inside the file: the fault checked) mapped:
 * 1 when that is all of the page's, 0 when the file ends in it; a failure
 * keeps those it mapped (inside the file, they are its own). */
static int ext2_vfs_prepare_mmap_write(struct inode *v, uint64_t index)
{
	uint32_t bs = ext2_i(v)->fs->block_size;
	uint64_t first = index * (PAGE_SIZE / bs), end = ALIGN_UP(v->size, bs) / bs;
	uint64_t n = end > first ? MIN(PAGE_SIZE / bs, end - first) : 0;
	int e = n ? ext2_map_blocks(ext2_i(v), first, n) : 0;
	return e ? e : n == PAGE_SIZE / bs;
}

/* bmap_page: the page's blocks, in file order, must follow one another on
 * the disk to be one swap slot (with 1 KiB blocks a page is four). */
static int ext2_vfs_bmap_page(struct inode *v, uint64_t index, uint64_t *sector)
{
	struct ext2_inode *ip = ext2_i(v);
	uint32_t bs = ip->fs->block_size, per_page = PAGE_SIZE / bs, first = 0;
	int how = PAGE_CONTIGUOUS;
	for (uint32_t i = 0; i < per_page; i++) {
		uint32_t b;
		int e = ext2_bmap(ip, index * per_page + i, &b);
		if (e)
			return e;
		if (!b)
			return PAGE_HOLE;
		if (i == 0)
			first = b;
		else if (b != first + i)
			how = PAGE_SCATTERED;
	}
	*sector = (uint64_t)first * (bs / SECTOR_SIZE);
	return how;
}

static int ext2_vfs_write_inode(struct inode *v)
{
	return ext2_write_inode(ext2_i(v), false);
}

/* The last reference to an unlinked inode went: its blocks and its
 * number go back, its record says when (i_dtime), as Linux's. */
static void ext2_evict(struct inode *v)
{
	struct ext2_inode *ip = ext2_i(v);
	if (!ip->fs->writable)
		return;
	ext2_truncate_blocks(ip, 0);
	v->size = 0;
	ip->dtime = (uint32_t)vfs_now().sec;
	ext2_write_inode(ip, false);
	ext2_free_inode(ip->fs, (uint32_t)v->ino, S_ISDIR(v->mode));
}

static int ext2_vfs_commit(struct super_block *sb, enum commit_scope scope)
{
	return ext2_commit(sb->priv, scope);
}

static int ext2_sync(struct super_block *sb, bool final)
{
	struct ext2_fs *fs = sb->priv;
	return fs->writable ? ext2_write_super(fs, final) : 0;
}

static const struct inode_ops dir_ops = {
	.lookup = ext2_vfs_lookup, .readdir = ext2_vfs_readdir, .create = ext2_vfs_create,
	.link = ext2_vfs_link, .unlink = ext2_vfs_unlink, .rename = ext2_vfs_rename,
	.empty = ext2_vfs_empty, .write_inode = ext2_vfs_write_inode,
};
static const struct inode_ops link_ops = {
	.readlink = ext2_vfs_readlink, .write_inode = ext2_vfs_write_inode,
};
static const struct inode_ops file_ops = {
	.set_size = ext2_vfs_set_size, .prepare_write = ext2_vfs_prepare_write,
	.prepare_mmap_write = ext2_vfs_prepare_mmap_write,
	.write_inode = ext2_vfs_write_inode, .bmap_page = ext2_vfs_bmap_page,
};

void ext2_set_ops(struct ext2_inode *ip)
{
	uint32_t mode = ip->vfs.mode;
	ip->vfs.op = S_ISDIR(mode) ? &dir_ops : S_ISLNK(mode) ? &link_ops : &file_ops;
	ip->vfs.fop = S_ISDIR(mode) ? &dir_file_ops : S_ISREG(mode) ? &page_file_ops : NULL;
}

static void ext2_vfs_free_inode(struct inode *ip)
{
	dx_free(ext2_i(ip)->dx);
	kfree(ext2_i(ip));
}

static int ext2_statfs(struct super_block *sb, uint64_t out[6])
{
	struct ext2_fs *fs = sb->priv;
	uint64_t bfree = (uint64_t)fs->free_blocks + fs->held_blocks;   /* held: free soon */
	uint64_t v[6] = { fs->block_size, fs->blocks_count, bfree, bfree,
			  fs->inodes_count, (uint64_t)fs->free_inodes + fs->held_inodes };
	memcpy(out, v, sizeof(v));
	return 0;
}

const struct super_ops ext2_super_ops = {
	.free_inode = ext2_vfs_free_inode, .statfs = ext2_statfs, .evict = ext2_evict,
	.sync = ext2_sync, .commit = ext2_vfs_commit,
};

/* Mount read-write unless asked for read-only or the disk is read-only
 * (then read-only, as Linux falls back): the superblock says "not clean"
 * until the umount. */
static int ext2_vfs_mount(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
			  const char *data, struct super_block **out)
{
	(void)t, (void)data;
	struct ext2_fs *fs;
	int r = ext2_mount(bdev, &fs);
	if (r)
		return r;
	if (!(flags & 1 /* MS_RDONLY */) && !bdev->readonly && ext2_make_writable(fs) == 0)
		fs->sb->flags &= ~(unsigned)SB_RDONLY;
	*out = fs->sb;
	return 0;
}

static void ext2_kill(struct super_block *sb)
{
	ext2_free(sb->priv);
}

const struct fs_type ext2_type = {
	.name = "ext2", .mount = ext2_vfs_mount, .kill = ext2_kill, .needs_disk = true,
};
