/* fs/ext2/ext2.c -- ext2 on the disk, read-only (see ext2.h). */
#include "fs/ext2/ext2.h"
#include "drivers/block/blkdev.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"

#define SUPER_OFF 1024
#define MAGIC 0xef53
#define GOOD_OLD_INODE_SIZE 128
#define DESC_SIZE 32
#define MAX_DESC_BYTES (4u << 20)   /* 131072 groups: 16 TiB of 128 MiB groups */
#define INCOMPAT_FILETYPE 0x2
#define INCOMPAT_KNOWN INCOMPAT_FILETYPE

#define le32 ext2_le32
#define le16 ext2_le16
#define read_meta ext2_read_meta
#define block_ok ext2_block_ok

int ext2_read_meta(struct ext2_fs *fs, uint64_t off, void *buf, uint32_t n)
{
	long r = blkdev_read(fs->dev, off, buf, n);
	return r == (long)n ? 0 : r < 0 ? (int)r : -EIO;
}

int ext2_write_meta(struct ext2_fs *fs, uint64_t off, const void *buf, uint32_t n)
{
	while (n) {   /* a page at a time */
		uint32_t chunk = (uint32_t)MIN((uint64_t)n, PAGE_SIZE - off % PAGE_SIZE);
		int e = blkdev_write_meta(fs->dev, off, buf, chunk);
		if (e)
			return e == -EROFS ? e : -EIO;
		off += chunk, buf = (const char *)buf + chunk, n -= chunk;
	}
	return 0;
}

bool ext2_block_ok(const struct ext2_fs *fs, uint32_t b)
{
	return b != 0 && b < fs->blocks_count;
}

/* ---- mount ---- */

/* The superblock's fields into fs: 0, -EINVAL (not an ext2 this driver can
 * read) or -EUCLEAN (numbers that contradict each other). */
static int parse_super(struct ext2_fs *fs, const uint8_t *sb)
{
	uint32_t log = le32(sb, 24), rev = le32(sb, 76);
	if (le16(sb, 56) != MAGIC || rev > 1 || log > 2)
		return -EINVAL;   /* blocks above 4 KiB would not fit a page */
	fs->block_size = 1024u << log;
	fs->inodes_count = le32(sb, 0), fs->blocks_count = le32(sb, 4);
	fs->first_data_block = le32(sb, 20);
	fs->blocks_per_group = le32(sb, 32), fs->inodes_per_group = le32(sb, 40);
	fs->inode_size = rev ? le16(sb, 88) : GOOD_OLD_INODE_SIZE;
	fs->incompat = rev ? le32(sb, 96) : 0, fs->ro_compat = rev ? le32(sb, 100) : 0;
	fs->free_blocks = le32(sb, 12), fs->free_inodes = le32(sb, 16);
	fs->first_ino = rev ? le32(sb, 84) : 11;
	fs->state = le16(sb, 58);
	if (fs->incompat & ~INCOMPAT_KNOWN) {
		printk("ext2: unsupported incompatible features %#x\n", fs->incompat & ~INCOMPAT_KNOWN);
		return -EINVAL;
	}
	uint32_t bits = fs->block_size * 8;
	bool sane = fs->blocks_per_group && fs->blocks_per_group <= bits &&
		    fs->inodes_per_group && fs->inodes_per_group <= bits &&
		    fs->inode_size >= GOOD_OLD_INODE_SIZE && fs->inode_size <= fs->block_size &&
		    !(fs->inode_size & (fs->inode_size - 1)) &&
		    fs->first_data_block == (fs->block_size == 1024 ? 1u : 0u) &&
		    fs->blocks_count > fs->first_data_block &&
		    fs->first_ino >= 11 && fs->first_ino <= fs->inodes_count;
	if (!sane)
		return -EUCLEAN;
	fs->groups = (fs->blocks_count - fs->first_data_block + fs->blocks_per_group - 1) /
		     fs->blocks_per_group;
	return (uint64_t)fs->groups * fs->inodes_per_group >= fs->inodes_count ? 0 : -EUCLEAN;
}

/* Group g's descriptor from the raw table gd: 0, or -EUCLEAN (a table
 * or bitmap outside the file system, counts above the group's size). */
static int parse_group(struct ext2_fs *fs, const uint8_t *gd, uint32_t g)
{
	struct ext2_group *grp = &fs->group[g];
	const uint8_t *d = gd + g * DESC_SIZE;
	uint32_t table_blocks = (fs->inodes_per_group * fs->inode_size + fs->block_size - 1) /
				fs->block_size;
	grp->block_bitmap = le32(d, 0), grp->inode_bitmap = le32(d, 4);
	grp->inode_table = le32(d, 8);
	grp->free_blocks = le16(d, 12), grp->free_inodes = le16(d, 14), grp->used_dirs = le16(d, 16);
	bool ok = block_ok(fs, grp->block_bitmap) && block_ok(fs, grp->inode_bitmap) &&
		  block_ok(fs, grp->inode_table) &&
		  grp->inode_table + (uint64_t)table_blocks <= fs->blocks_count &&
		  grp->free_blocks <= fs->blocks_per_group && grp->free_inodes <= fs->inodes_per_group;
	return ok ? 0 : -EUCLEAN;
}

/* Each group's descriptor: 0, -EUCLEAN, -EIO, -ENOMEM. */
static int read_groups(struct ext2_fs *fs)
{
	if ((uint64_t)fs->groups * DESC_SIZE > MAX_DESC_BYTES)
		return -EUCLEAN;   /* more groups than any disk of ours could hold */
	uint32_t n = fs->groups * DESC_SIZE;
	uint8_t *gd = kmalloc(n);
	fs->group = kzalloc(fs->groups * sizeof(*fs->group));
	if (!gd || !fs->group) {
		kfree(gd);
		return -ENOMEM;
	}
	int e = read_meta(fs, ext2_desc_offset(fs, 0), gd, n);
	for (uint32_t g = 0; !e && g < fs->groups; g++)
		e = parse_group(fs, gd, g);
	kfree(gd);
	return e;
}

/* The VFS's super block of fs, with the root inode's dentry: 0 or -errno. */
static int make_super(struct ext2_fs *fs)
{
	struct super_block *sb = sb_new(&ext2_type, &ext2_super_ops);
	if (!sb)
		return -ENOMEM;
	sb->priv = fs;
	sb->bdev = fs->dev;
	sb->flags = SB_RDONLY | SB_RECLAIMABLE;   /* read-only until ext2_make_writable */
	sb->magic = MAGIC;
	sb->dev = blkdev_devt_of(fs->dev);
	fs->sb = sb;
	struct ext2_inode *root;
	int e = ext2_iget(fs, EXT2_ROOT_INO, &root);
	if (e == 0 && !S_ISDIR(root->vfs.mode)) {
		ext2_iput(root);
		e = -EUCLEAN;
	}
	if (e == 0 && !(sb->root = dentry_root(sb, &root->vfs)))
		e = -ENOMEM;
	if (e) {
		sb_drop_inodes(sb);
		kfree(sb);
	}
	return e;
}

int ext2_mount(struct blkdev *d, struct ext2_fs **out)
{
	uint8_t *sb = kmalloc(1024);
	struct ext2_fs *fs = kzalloc(sizeof(*fs));
	int e = !sb || !fs ? -ENOMEM : 0;
	if (!e) {
		fs->dev = d;
		e = read_meta(fs, SUPER_OFF, sb, 1024);
	}
	if (!e)
		e = parse_super(fs, sb);
	if (!e && (uint64_t)fs->blocks_count * fs->block_size > d->sectors * SECTOR_SIZE)
		e = -EINVAL;   /* bigger than its disk (Linux: "bad geometry") */
	if (!e)
		e = read_groups(fs);
	kfree(sb);
	if (!e) {
		mutex_init(&fs->alloc_lock, "ext2-alloc", SLEEP_RANK_FS_ALLOC);
		e = make_super(fs);
	}
	if (e) {
		if (fs)
			kfree(fs->group);
		kfree(fs);
		return e;
	}
	*out = fs;
	return 0;
}

#define RO_COMPAT_KNOWN 0x3   /* sparse_super, large_file */

int ext2_make_writable(struct ext2_fs *fs)
{
	if (fs->ro_compat & ~RO_COMPAT_KNOWN) {
		printk("ext2: read-only: unknown read-only features %#x\n",
		       fs->ro_compat & ~RO_COMPAT_KNOWN);
		return -EROFS;
	}
	fs->writable = true;
	return ext2_write_super(fs, false);   /* "not clean" while mounted */
}

void ext2_free(struct ext2_fs *fs)
{
	kfree(fs->held);   /* (a sync gave back what it could: the rest stays in use) */
	kfree(fs->group);
	kfree(fs);
}

void ext2_unmount(struct ext2_fs *fs)
{
	sb_release(fs->sb);   /* frees fs too (ext2_type's kill) */
}

/* ---- inodes ---- */


/* Byte offset of inode ino's record. */
static uint64_t inode_offset(struct ext2_fs *fs, uint32_t ino)
{
	uint32_t g = (ino - 1) / fs->inodes_per_group, i = (ino - 1) % fs->inodes_per_group;
	return (uint64_t)fs->group[g].inode_table * fs->block_size + (uint64_t)i * fs->inode_size;
}

/* The on-disk inode ino into ip: 0, -EUCLEAN (free), -EIO. */
static int read_inode(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *ip)
{
	uint8_t raw[GOOD_OLD_INODE_SIZE];
	int e = read_meta(fs, inode_offset(fs, ino), raw, sizeof(raw));
	if (e)
		return e;
	uint16_t mode = le16(raw, 0), links = le16(raw, 26);
	if (mode == 0 || links == 0)
		return -EUCLEAN;   /* a free inode */
	inode_init(&ip->vfs, fs->sb, mode, &ext2_data_ops);
	mutex_init(&ip->map_lock, "ext2-map", SLEEP_RANK_BLOCK_MAP);
	struct inode *v = &ip->vfs;
	v->ino = ino;
	v->uid = le16(raw, 2), v->gid = le16(raw, 24);
	v->size = le32(raw, 4), v->nlink = links, v->blocks = le32(raw, 28);
	v->atime = (struct vfs_time){ le32(raw, 8), 0 };
	v->ctime = (struct vfs_time){ le32(raw, 12), 0 };
	v->mtime = (struct vfs_time){ le32(raw, 16), 0 };
	if (S_ISREG(mode))
		v->size |= (uint64_t)le32(raw, 108) << 32;   /* large_file */
	v->uid |= (uint32_t)le16(raw, 120) << 16, v->gid |= (uint32_t)le16(raw, 122) << 16;
	for (int k = 0; k < 15; k++)
		ip->block[k] = le32(raw, 40 + 4 * k);
	ip->flags = le32(raw, 32), ip->dtime = le32(raw, 20);
	if (S_ISCHR(mode) || S_ISBLK(mode))   /* old (8:8) or new encoding, as Linux keeps them */
		v->rdev = ip->block[0] ? MKDEV(ip->block[0] >> 8 & 0xff, ip->block[0] & 0xff) : ip->block[1];
	ip->fs = fs;
	return 0;
}

/* ip's fields into the record raw (GOOD_OLD_INODE_SIZE bytes). */
static void pack_inode(const struct ext2_inode *ip, uint8_t *raw)
{
	const struct inode *v = &ip->vfs;
	ext2_put16(raw, 0, (uint16_t)v->mode);
	ext2_put16(raw, 2, (uint16_t)v->uid), ext2_put16(raw, 120, (uint16_t)(v->uid >> 16));
	ext2_put16(raw, 24, (uint16_t)v->gid), ext2_put16(raw, 122, (uint16_t)(v->gid >> 16));
	ext2_put32(raw, 4, (uint32_t)v->size);
	ext2_put32(raw, 108, S_ISREG(v->mode) ? (uint32_t)(v->size >> 32) : 0);
	ext2_put32(raw, 8, (uint32_t)v->atime.sec);
	ext2_put32(raw, 12, (uint32_t)v->ctime.sec);
	ext2_put32(raw, 16, (uint32_t)v->mtime.sec);
	ext2_put32(raw, 20, ip->dtime);
	ext2_put16(raw, 26, (uint16_t)v->nlink);
	ext2_put32(raw, 28, (uint32_t)v->blocks);
	ext2_put32(raw, 32, ip->flags);
	for (int k = 0; k < 15; k++)
		ext2_put32(raw, 40 + 4 * k, ip->block[k]);
}

int ext2_write_inode(struct ext2_inode *ip, bool fresh)
{
	struct ext2_fs *fs = ip->fs;
	uint32_t n = fresh ? fs->inode_size : GOOD_OLD_INODE_SIZE;
	uint8_t *raw = kzalloc(n);
	if (!raw)
		return -ENOMEM;
	uint64_t off = inode_offset(fs, (uint32_t)ip->vfs.ino);
	int e = fresh ? 0 : read_meta(fs, off, raw, n);
	if (!e) {
		ip->vfs.dirty = false;
		pack_inode(ip, raw);
		e = ext2_write_meta(fs, off, raw, n);
	}
	kfree(raw);
	return e;
}

int ext2_iget(struct ext2_fs *fs, uint32_t ino, struct ext2_inode **out)
{
	if (ino == 0 || ino > fs->inodes_count)
		return -EUCLEAN;
	struct inode *found = inode_find(fs->sb, ino);
	if (found) {
		*out = ext2_i(found);
		return 0;
	}
	struct ext2_inode *ip = kzalloc(sizeof(*ip));
	if (!ip)
		return -ENOMEM;
	int e = read_inode(fs, ino, ip);
	if (e) {
		kfree(ip);
		return e;
	}
	ext2_set_ops(ip);
	struct inode *in = inode_insert(&ip->vfs);   /* another task read it meanwhile? */
	if (in != &ip->vfs) {
		if (ip->vfs.mapping)
			pagecache_destroy(ip->vfs.mapping);
		kfree(ip);
	}
	*out = ext2_i(in);
	return 0;
}

void ext2_iput(struct ext2_inode *ip)
{
	inode_put(&ip->vfs);
}

/* ---- directories ---- */

/* A directory being read: its block that starts at byte `start` (~0: none
 * read yet) in blk, so that a scan reads each block once. */
struct dir_cursor {
	uint8_t *blk;
	uint64_t start;
};

/* The entry at *pos or after it (ext2_readdir's results), reading a block
 * only when *pos leaves the one the cursor holds. */
static int next_entry(struct ext2_inode *dir, struct dir_cursor *c, uint64_t *pos,
		      char *name, uint32_t *ino, uint8_t *type)
{
	struct ext2_fs *fs = dir->fs;
	while (*pos < dir->vfs.size) {
		uint64_t start = *pos - *pos % fs->block_size;
		if (start != c->start) {
			long got = ext2_read(dir, start, c->blk, fs->block_size);
			if (got != (long)fs->block_size)
				return got < 0 ? (int)got : -EUCLEAN;   /* a directory of whole blocks */
			c->start = start;
		}
		uint32_t at = (uint32_t)(*pos - start);
		uint16_t rec = le16(c->blk, at + 4);
		uint8_t len = c->blk[at + 6];
		if (at + 8 > fs->block_size || rec < 8 || rec % 4 || at + rec > fs->block_size ||
		    len + 8u > rec)
			return -EUCLEAN;
		*pos += rec;
		*ino = le32(c->blk, at);
		if (*ino == 0)
			continue;   /* free space (or a dir_index node) */
		memcpy(name, c->blk + at + 8, len);
		name[len] = '\0';
		*type = fs->incompat & INCOMPAT_FILETYPE ? c->blk[at + 7] : EXT2_FT_UNKNOWN;
		return 1;
	}
	return 0;
}

/* A cursor over dir: 0, -ENOTDIR or -ENOMEM. */
static int dir_open(struct ext2_inode *dir, struct dir_cursor *c)
{
	if (!S_ISDIR(dir->vfs.mode))
		return -ENOTDIR;
	*c = (struct dir_cursor){ kmalloc(dir->fs->block_size), ~0ull };
	return c->blk ? 0 : -ENOMEM;
}

int ext2_readdir(struct ext2_inode *dir, uint64_t *pos, char *name, uint32_t *ino,
		 uint8_t *type)
{
	struct dir_cursor c = { 0 };
	int r = dir_open(dir, &c);
	if (r == 0)
		r = next_entry(dir, &c, pos, name, ino, type);
	kfree(c.blk);
	return r;
}

long ext2_readlink(struct ext2_inode *ip, char *buf, uint64_t n)
{
	if (!S_ISLNK(ip->vfs.mode))
		return -EINVAL;
	if (ip->vfs.blocks == 0) {   /* a fast symlink: the target in i_block */
		if (ip->vfs.size >= sizeof(ip->block))
			return -EUCLEAN;
		n = MIN(n, ip->vfs.size);
		memcpy(buf, ip->block, n);
		return (long)n;
	}
	return ext2_read(ip, 0, buf, n);
}
