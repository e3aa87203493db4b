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

static uint32_t le32(const uint8_t *p, unsigned off)
{
	return (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 | (uint32_t)p[off + 2] << 16 |
	       (uint32_t)p[off + 3] << 24;
}

static uint16_t le16(const uint8_t *p, unsigned off)
{
	return (uint16_t)(p[off] | p[off + 1] << 8);
}

/* n bytes of the disk at byte off through its cache: 0 or -EIO. */
static int read_meta(struct ext2_fs *fs, uint64_t off, void *buf, uint32_t n)
{
	long r = blkdev_read(fs->dev, off, buf, n);
	return r == (long)n ? 0 : r < 0 ? (int)r : -EIO;
}

/* Is b a block number of the file system (not 0, not past the end)? */
static bool block_ok(const struct ext2_fs *fs, uint32_t b)
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
		    fs->blocks_count > fs->first_data_block;
	if (!sane)
		return -EUCLEAN;
	fs->groups = (fs->blocks_count - fs->first_data_block + fs->blocks_per_group - 1) /
		     fs->blocks_per_group;
	return (uint64_t)fs->groups * fs->inodes_per_group >= fs->inodes_count ? 0 : -EUCLEAN;
}

/* Each group's inode table from the descriptors: 0, -EUCLEAN, -EIO, -ENOMEM. */
static int read_groups(struct ext2_fs *fs)
{
	if ((uint64_t)fs->groups * DESC_SIZE > MAX_DESC_BYTES)
		return -EUCLEAN;   /* more groups than any disk of ours could hold */
	uint32_t n = fs->groups * DESC_SIZE;
	uint8_t *gd = kmalloc(n);
	fs->inode_table = kmalloc(fs->groups * sizeof(uint32_t));
	if (!gd || !fs->inode_table) {
		kfree(gd);
		return -ENOMEM;
	}
	int e = read_meta(fs, (uint64_t)(fs->first_data_block + 1) * fs->block_size, gd, n);
	uint32_t table_blocks = (fs->inodes_per_group * fs->inode_size + fs->block_size - 1) /
				fs->block_size;
	for (uint32_t g = 0; !e && g < fs->groups; g++) {
		fs->inode_table[g] = le32(gd, g * DESC_SIZE + 8);
		if (!block_ok(fs, fs->inode_table[g]) ||
		    fs->inode_table[g] + (uint64_t)table_blocks > fs->blocks_count)
			e = -EUCLEAN;
	}
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
	sb->flags = SB_RDONLY;          /* read-only so far */
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
	if (!e)
		e = make_super(fs);
	if (e) {
		if (fs)
			kfree(fs->inode_table);
		kfree(fs);
		return e;
	}
	*out = fs;
	return 0;
}

void ext2_free(struct ext2_fs *fs)
{
	kfree(fs->inode_table);
	kfree(fs);
}

void ext2_unmount(struct ext2_fs *fs)
{
	sb_release(fs->sb);   /* frees fs too (ext2_type's kill) */
}

/* ---- inodes ---- */

static const struct pagecache_ops ext2_file_ops;

/* The on-disk inode ino into ip: 0, -EUCLEAN (free), -EIO. */
static int read_inode(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *ip)
{
	uint8_t raw[GOOD_OLD_INODE_SIZE];
	uint32_t g = (ino - 1) / fs->inodes_per_group, i = (ino - 1) % fs->inodes_per_group;
	uint64_t off = (uint64_t)fs->inode_table[g] * fs->block_size + (uint64_t)i * fs->inode_size;
	int e = read_meta(fs, off, raw, sizeof(raw));
	if (e)
		return e;
	uint16_t mode = le16(raw, 0), links = le16(raw, 26);
	if (mode == 0 || links == 0)
		return -EUCLEAN;   /* a free inode */
	inode_init(&ip->vfs, fs->sb, mode, &ext2_file_ops);
	struct inode *v = &ip->vfs;
	v->ino = ino;
	v->uid = le16(raw, 2), v->gid = le16(raw, 24);
	v->size = le32(raw, 4), v->nlink = links, v->blocks = le32(raw, 28);
	v->atime = (struct vfs_time){ le32(raw, 8), 0 };
	v->ctime = (struct vfs_time){ le32(raw, 12), 0 };
	v->mtime = (struct vfs_time){ le32(raw, 16), 0 };
	if (S_ISREG(mode))
		v->size |= (uint64_t)le32(raw, 108) << 32;   /* large_file */
	for (int k = 0; k < 15; k++)
		ip->block[k] = le32(raw, 40 + 4 * k);
	ip->fs = fs;
	return 0;
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

/* ---- data ---- */

/* The disk block of file block lblk of ip into *out (0: a hole): 0, or
 * -EUCLEAN (a block number outside the file system), -EFBIG, -EIO. */
static int bmap(struct ext2_inode *ip, uint64_t lblk, uint32_t *out)
{
	struct ext2_fs *fs = ip->fs;
	uint64_t per = fs->block_size / 4, span = per;
	int level = 1;
	if (lblk < 12) {
		*out = ip->block[lblk];
		return *out == 0 || block_ok(fs, *out) ? 0 : -EUCLEAN;
	}
	for (lblk -= 12; lblk >= span; span *= per) {
		lblk -= span;
		if (++level > 3)
			return -EFBIG;
	}
	uint32_t b = ip->block[11 + level];
	for (; level > 0 && b; level--) {
		if (!block_ok(fs, b))
			return -EUCLEAN;
		span /= per;   /* blocks under each slot of this level's block */
		uint8_t slot[4];
		int e = read_meta(fs, (uint64_t)b * fs->block_size + lblk / span * 4, slot, 4);
		if (e)
			return e;
		b = le32(slot, 0);
		lblk %= span;
	}
	*out = b;
	return b == 0 || block_ok(fs, b) ? 0 : -EUCLEAN;
}

/* The file cache's read_page: each block of the page from the disk
 * (holes and what lies past the end stay zeros). */
static int ext2_read_page(struct pagecache *pc, uint64_t index, struct page *pg)
{
	struct ext2_inode *ip = ext2_i(pc->owner);
	uint64_t size = ip->vfs.size;
	uint32_t bs = ip->fs->block_size, per_page = PAGE_SIZE / bs;
	char *va = page_va(pg);
	for (uint32_t i = 0; i < per_page; i++) {
		uint64_t lblk = index * per_page + i, at = lblk * bs;
		uint32_t b;
		if (at >= size)
			break;
		int e = bmap(ip, lblk, &b);
		if (!e && b)
			e = blk_rw(ip->fs->dev, BLK_READ, (uint64_t)b * (bs / SECTOR_SIZE),
				   va + i * bs, bs);
		if (e)
			return e == -EUCLEAN ? e : -EIO;
		if (size - at < bs)   /* the last block: no bytes past the end */
			memset(va + i * bs + (size - at), 0, bs - (size - at));
	}
	return 0;
}

static const struct pagecache_ops ext2_file_ops = { .read_page = ext2_read_page };

long ext2_read(struct ext2_inode *ip, uint64_t off, void *buf, uint64_t n)
{
	if (!ip->vfs.mapping)
		return -EINVAL;   /* a device, a fifo, or a type that is no type: no data */
	if (off >= ip->vfs.size)
		return 0;
	return pagecache_copy(ip->vfs.mapping, off, buf, MIN(n, ip->vfs.size - off), PC_COPY_OUT);
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

int ext2_lookup(struct ext2_inode *dir, const char *name, size_t len, uint32_t *ino)
{
	if (len > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	struct dir_cursor c = { 0 };
	char *entry = kmalloc(EXT2_NAME_LEN + 1);
	int r = entry ? dir_open(dir, &c) : -ENOMEM;
	uint64_t pos = 0;
	uint8_t type;
	if (r == 0) {
		while ((r = next_entry(dir, &c, &pos, entry, ino, &type)) == 1)
			if (strlen(entry) == len && memcmp(entry, name, len) == 0)
				break;
		kfree(c.blk);
	}
	kfree(entry);
	return r == 1 ? 0 : r == 0 ? -ENOENT : r;
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
