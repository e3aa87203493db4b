/* fs/ext2/alloc.c -- ext2's free space: the block and inode bitmaps of each
 * group, the groups' counts, the superblock's totals (ext2.h).
 *
 *   group g:  block bitmap: bit i <-> block first_data_block + g*bpg + i
 *             inode bitmap: bit i <-> inode g*ipg + i + 1
 *
 * A bitmap block is read through the disk's cache; a change writes the
 * bytes it touched, then the group's counts, through to the disk at once
 * (ext2_write_meta). The superblock's totals are kept in memory and
 * written by ext2_write_super (sync, umount), as Linux's ext2 does.
 * Everything here runs under fs->alloc_lock.
 */
#include "fs/ext2/ext2.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

/* Blocks of group g (the last group may be short). */
static uint32_t blocks_in(const struct ext2_fs *fs, uint32_t g)
{
	uint32_t start = fs->first_data_block + g * fs->blocks_per_group;
	return MIN(fs->blocks_per_group, fs->blocks_count - start);
}

/* Write group g's free counts and directory count through. */
static int write_group(struct ext2_fs *fs, uint32_t g)
{
	uint8_t d[6];
	struct ext2_group *grp = &fs->group[g];
	ext2_put16(d, 0, (uint16_t)grp->free_blocks);
	ext2_put16(d, 2, (uint16_t)grp->free_inodes);
	ext2_put16(d, 4, (uint16_t)grp->used_dirs);
	return ext2_write_meta(fs, ext2_desc_offset(fs, g) + 12, d, sizeof(d));
}

/* Bitmap block `block` into buf (block_size bytes). */
static int read_bitmap(struct ext2_fs *fs, uint32_t block, uint8_t *buf)
{
	return ext2_read_meta(fs, (uint64_t)block * fs->block_size, buf, fs->block_size);
}

/* Write bits [first, first + n) of bitmap block `block` (in buf) through. */
static int write_bits(struct ext2_fs *fs, uint32_t block, const uint8_t *buf, uint32_t first,
		      uint32_t n)
{
	uint32_t lo = first / 8, hi = (first + n - 1) / 8;
	return ext2_write_meta(fs, (uint64_t)block * fs->block_size + lo, buf + lo, hi - lo + 1);
}

static bool bit(const uint8_t *map, uint32_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

static void set_bits(uint8_t *map, uint32_t first, uint32_t n, bool on)
{
	for (uint32_t i = first; i < first + n; i++)
		map[i / 8] = (uint8_t)(on ? map[i / 8] | 1u << (i % 8) : map[i / 8] & ~(1u << (i % 8)));
}

/* Up to want free blocks in a row in group g from bit `from` on (map
 * read): how many, the first bit in *at; 0 if none. */
static uint32_t find_run(const uint8_t *map, uint32_t bits, uint32_t from, uint32_t want,
			 uint32_t *at)
{
	for (uint32_t i = from; i < bits; i++) {
		if (bit(map, i))
			continue;
		uint32_t n = 1;
		while (n < want && i + n < bits && !bit(map, i + n))
			n++;
		*at = i;
		return n;
	}
	return from ? find_run(map, MIN(from, bits), 0, want, at) : 0;
}

/* Take up to want blocks of group g from bit `from` on (map is a buffer
 * for its bitmap): how many, the first block in *first; 0 if none; -errno. */
static int take_blocks(struct ext2_fs *fs, uint32_t g, uint32_t from, uint32_t want,
		       uint8_t *map, uint32_t *first)
{
	struct ext2_group *grp = &fs->group[g];
	if (!grp->free_blocks)
		return 0;
	int e = read_bitmap(fs, grp->block_bitmap, map);
	uint32_t at, n = e ? 0 : find_run(map, blocks_in(fs, g), from, want, &at);
	if (e || !n)
		return e;
	set_bits(map, at, n, true);
	if ((e = write_bits(fs, grp->block_bitmap, map, at, n)))
		return e;
	grp->free_blocks -= MIN(n, grp->free_blocks);
	fs->free_blocks -= MIN(n, fs->free_blocks);
	*first = fs->first_data_block + g * fs->blocks_per_group + at;
	e = write_group(fs, g);
	return e ? e : (int)n;
}

int ext2_alloc_blocks(struct ext2_fs *fs, uint32_t goal, uint32_t want, uint32_t *first)
{
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	if (!ext2_block_ok(fs, goal) || goal < fs->first_data_block)
		goal = fs->first_data_block;
	uint32_t g0 = (goal - fs->first_data_block) / fs->blocks_per_group;
	uint32_t from = (goal - fs->first_data_block) % fs->blocks_per_group;
	int r = 0;
	mutex_lock(&fs->alloc_lock);
	for (uint32_t k = 0; k < fs->groups && r == 0; k++) {
		uint32_t g = (g0 + k) % fs->groups;
		r = take_blocks(fs, g, k ? 0 : from, want, map, first);
	}
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return r ? r : -ENOSPC;
}

int ext2_free_blocks(struct ext2_fs *fs, uint32_t first, uint32_t n)
{
	if (!n)
		return 0;
	if (!ext2_block_ok(fs, first) || first < fs->first_data_block ||
	    (uint64_t)first + n > fs->blocks_count)
		return -EUCLEAN;
	uint32_t g = (first - fs->first_data_block) / fs->blocks_per_group;
	uint32_t at = (first - fs->first_data_block) % fs->blocks_per_group;
	if (at + n > blocks_in(fs, g))   /* a run never crosses groups: split it */
		return ext2_free_blocks(fs, first, blocks_in(fs, g) - at) ?:
		       ext2_free_blocks(fs, first + (blocks_in(fs, g) - at), n - (blocks_in(fs, g) - at));
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	struct ext2_group *grp = &fs->group[g];
	int e = read_bitmap(fs, grp->block_bitmap, map);
	for (uint32_t i = at; !e && i < at + n; i++)
		e = bit(map, i) ? 0 : -EUCLEAN;   /* freeing a free block: the image is damaged */
	if (!e) {
		set_bits(map, at, n, false);
		e = write_bits(fs, grp->block_bitmap, map, at, n);
	}
	if (!e) {
		grp->free_blocks += n;
		fs->free_blocks += n;
		e = write_group(fs, g);
	}
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return e;
}

/* The group a new inode of dir goes in: dir's own (a file), or (a
 * directory) the one with the most free inodes among those with free
 * blocks at least the average, so top directories spread out. */
static uint32_t inode_group(struct ext2_fs *fs, uint32_t dir_ino, bool is_dir)
{
	uint32_t own = (dir_ino - 1) / fs->inodes_per_group, best = own;
	if (!is_dir)
		return own;
	uint32_t avg = fs->free_blocks / fs->groups;
	for (uint32_t g = 0; g < fs->groups; g++) {
		struct ext2_group *c = &fs->group[g], *b = &fs->group[best];
		if (c->free_inodes && c->free_blocks >= avg &&
		    (b->free_inodes == 0 || c->free_inodes > b->free_inodes))
			best = g;
	}
	return best;
}

/* Take a free inode of group g (map: a buffer): 1 with *ino, 0 if none. */
static int take_inode(struct ext2_fs *fs, uint32_t g, bool is_dir, uint8_t *map, uint32_t *ino)
{
	struct ext2_group *grp = &fs->group[g];
	if (!grp->free_inodes)
		return 0;
	int e = read_bitmap(fs, grp->inode_bitmap, map);
	for (uint32_t i = 0; !e && i < fs->inodes_per_group; i++) {
		uint32_t n = g * fs->inodes_per_group + i + 1;
		if (bit(map, i) || n < fs->first_ino)
			continue;
		set_bits(map, i, 1, true);
		if ((e = write_bits(fs, grp->inode_bitmap, map, i, 1)))
			break;
		grp->free_inodes--;
		grp->used_dirs += is_dir;
		fs->free_inodes -= MIN(1u, fs->free_inodes);
		*ino = n;
		return write_group(fs, g) ?: 1;
	}
	return e;
}

int ext2_alloc_inode(struct ext2_fs *fs, uint32_t dir_ino, bool is_dir, uint32_t *ino)
{
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	uint32_t g0 = inode_group(fs, dir_ino, is_dir);
	int r = 0;
	for (uint32_t k = 0; k < fs->groups && r == 0; k++)
		r = take_inode(fs, (g0 + k) % fs->groups, is_dir, map, ino);
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return r < 0 ? r : r ? 0 : -ENOSPC;
}

int ext2_free_inode(struct ext2_fs *fs, uint32_t ino, bool is_dir)
{
	if (ino < fs->first_ino || ino > fs->inodes_count)
		return -EUCLEAN;
	uint32_t g = (ino - 1) / fs->inodes_per_group, i = (ino - 1) % fs->inodes_per_group;
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	struct ext2_group *grp = &fs->group[g];
	int e = read_bitmap(fs, grp->inode_bitmap, map);
	if (!e && !bit(map, i))
		e = -EUCLEAN;
	if (!e) {
		set_bits(map, i, 1, false);
		e = write_bits(fs, grp->inode_bitmap, map, i, 1);
	}
	if (!e) {
		grp->free_inodes++;
		grp->used_dirs -= is_dir && grp->used_dirs;
		fs->free_inodes++;
		e = write_group(fs, g);
	}
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return e;
}

int ext2_write_super(struct ext2_fs *fs, bool clean)
{
	uint8_t *sb = kmalloc(1024);
	if (!sb)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	int e = ext2_read_meta(fs, EXT2_SB_OFF, sb, 1024);
	if (!e) {
		ext2_put32(sb, 12, fs->free_blocks);
		ext2_put32(sb, 16, fs->free_inodes);
		ext2_put32(sb, 48, (uint32_t)vfs_now().sec);                 /* s_wtime */
		ext2_put16(sb, 58, clean ? fs->state : (uint16_t)(fs->state & ~1u));   /* VALID_FS */
		e = ext2_write_meta(fs, EXT2_SB_OFF, sb, 1024);
	}
	mutex_unlock(&fs->alloc_lock);
	kfree(sb);
	return e;
}
