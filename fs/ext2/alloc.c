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
 *
 * Freed, then given back. ext2 has no journal, so a block must not be
 * reused while a record on the disk can still name it: a truncated
 * file's inode not yet written, a removed entry's directory block not yet
 * written. Were it reused, a power-off would leave two owners, and
 * e2fsck -fy, repairing the stale one, would write into the new owner's
 * (perhaps fsync'd) data. So a free only holds the blocks (fs->held:
 * bitmap bits still set; statfs counts them free) and a commit gives them
 * back:
 *
 *   truncate: pointers cleared -> blocks held (holder: the inode)
 *             -> inode record written -> ready (epoch E)
 *   commit:   epoch E taken -> FLUSH -> ready-by-E blocks given back
 *             (bitmap bits cleared); inode numbers only by a sync's
 *             commit, when every directory block was written too
 *
 * The flusher commits when something is held; a block allocation that
 * finds no free block commits and tries again. Inode numbers that run out
 * come back at once (Linux's ext2 never holds them). Holding needs
 * memory: when fs->held cannot grow, the free gives back at once.
 */
#include "fs/ext2/ext2.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/printk.h"
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

/* The first clear bit of map (bits long) at or after from, or bits: whole
 * words and bytes of set bits skipped at once (Linux's find_next_zero_bit). */
static uint32_t next_zero(const uint8_t *map, uint32_t bits, uint32_t from)
{
	uint32_t i = from;
	while (i < bits) {
		uint64_t word;
		if (i % 64 == 0 && i + 64 <= bits && (memcpy(&word, map + i / 8, 8), word == ~0ull))
			i += 64;
		else if (i % 8 == 0 && i + 8 <= bits && map[i / 8] == 0xff)
			i += 8;
		else if (bit(map, i))
			i++;
		else
			return i;
	}
	return bits;
}

/* Up to want free blocks in a row in group g from bit `from` on (map
 * read): how many, the first bit in *at; 0 if none. */
static uint32_t find_run(const uint8_t *map, uint32_t bits, uint32_t from, uint32_t want,
			 uint32_t *at)
{
	for (uint32_t i = next_zero(map, bits, from); i < bits; i = next_zero(map, bits, i + 1)) {
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
	bool held = fs->held_blocks > 0;
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	if (r == 0 && held && ext2_commit(fs, COMMIT_FSYNC) == 0)
		return ext2_alloc_blocks(fs, goal, want, first);   /* what was held is free now */
	return r ? r : -ENOSPC;
}

/* Is every block of [first, first + n) of group g in use? 0, -EUCLEAN
 * (a damaged range, or freeing a free block), -EIO. */
static int check_in_use(struct ext2_fs *fs, uint32_t g, uint32_t at, uint32_t n, uint8_t *map)
{
	int e = read_bitmap(fs, fs->group[g].block_bitmap, map);
	for (uint32_t i = at; !e && i < at + n; i++)
		e = bit(map, i) ? 0 : -EUCLEAN;
	return e;
}

/* Clear the bits of [first, first + n) (one group, checked). */
static int give_back_blocks(struct ext2_fs *fs, uint32_t first, uint32_t n, uint8_t *map)
{
	uint32_t g = (first - fs->first_data_block) / fs->blocks_per_group;
	uint32_t at = (first - fs->first_data_block) % fs->blocks_per_group;
	struct ext2_group *grp = &fs->group[g];
	int e = check_in_use(fs, g, at, n, map);
	if (!e) {
		set_bits(map, at, n, false);
		e = write_bits(fs, grp->block_bitmap, map, at, n);
	}
	if (!e) {
		grp->free_blocks += n;
		fs->free_blocks += n;
		e = write_group(fs, g);
	}
	return e;
}

/* Is inode ino in use? Its group's inode bitmap read into map: 0,
 * -EUCLEAN (freeing a free inode), -EIO. */
static int check_inode_in_use(struct ext2_fs *fs, uint32_t ino, uint8_t *map)
{
	uint32_t g = (ino - 1) / fs->inodes_per_group;
	int e = read_bitmap(fs, fs->group[g].inode_bitmap, map);
	return e ? e : bit(map, (ino - 1) % fs->inodes_per_group) ? 0 : -EUCLEAN;
}

/* Clear inode ino's bit (checked). */
static int give_back_inode(struct ext2_fs *fs, uint32_t ino, bool is_dir, uint8_t *map)
{
	uint32_t g = (ino - 1) / fs->inodes_per_group, i = (ino - 1) % fs->inodes_per_group;
	struct ext2_group *grp = &fs->group[g];
	int e = check_inode_in_use(fs, ino, map);
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
	return e;
}

static int give_back(struct ext2_fs *fs, const struct ext2_freed *f, uint8_t *map)
{
	int e = f->kind == FREED_BLOCKS ? give_back_blocks(fs, f->first, f->n, map)
					: give_back_inode(fs, f->first, f->kind == FREED_DIR, map);
	if (e)
		printk("ext2: %s %u (+%u) given back: error %d (damaged bitmap?)\n",
		       f->kind == FREED_BLOCKS ? "block" : "inode", f->first, f->n, e);
	return e;
}

/* Hold f (alloc_lock held); when fs->held cannot grow, give it back now. */
static int hold(struct ext2_fs *fs, struct ext2_freed f, uint8_t *map)
{
	if (fs->nheld == fs->held_cap) {
		uint32_t cap = fs->held_cap ? fs->held_cap * 2 : 64;
		struct ext2_freed *more = kmalloc(cap * sizeof(*more));
		if (!more)
			return give_back(fs, &f, map);
		if (fs->nheld)
			memcpy(more, fs->held, fs->nheld * sizeof(*more));
		kfree(fs->held);
		fs->held = more, fs->held_cap = cap;
	}
	f.ready = fs->commit_epoch;
	fs->held[fs->nheld++] = f;
	fs->nholding += f.holder != NULL;
	*(f.kind == FREED_BLOCKS ? &fs->held_blocks : &fs->held_inodes) += f.n;
	return 0;
}

int ext2_free_blocks(struct ext2_fs *fs, uint32_t first, uint32_t n,
		     const struct ext2_inode *holder)
{
	if (!n)
		return 0;
	if (!ext2_block_ok(fs, first) || first < fs->first_data_block ||
	    (uint64_t)first + n > fs->blocks_count)
		return -EUCLEAN;
	uint32_t g = (first - fs->first_data_block) / fs->blocks_per_group;
	uint32_t at = (first - fs->first_data_block) % fs->blocks_per_group;
	uint32_t here = MIN(n, blocks_in(fs, g) - at);   /* a run never crosses groups */
	if (here < n)
		return ext2_free_blocks(fs, first, here, holder) ?:
		       ext2_free_blocks(fs, first + here, n - here, holder);
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	int e = check_in_use(fs, g, at, n, map);
	if (!e)
		e = hold(fs, (struct ext2_freed){ first, n, FREED_BLOCKS, holder, 0 }, map);
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return e;
}

void ext2_freed_written(struct ext2_fs *fs, const struct ext2_inode *holder)
{
	mutex_lock(&fs->alloc_lock);
	/* entries with a holder are those of truncations under way: at the
	 * end of the list, so look back only until all of them were seen
	 * (thousands of numbers may wait for a sync before them) */
	for (uint32_t i = fs->nheld, left = fs->nholding; i-- > 0 && left;) {
		struct ext2_freed *f = &fs->held[i];
		if (!f->holder)
			continue;
		left--;
		if (f->holder == holder) {
			f->holder = NULL;
			f->ready = fs->commit_epoch;
			fs->nholding--;
		}
	}
	mutex_unlock(&fs->alloc_lock);
}

#define HELD_BLOCKS 1u
#define HELD_INODES 2u

/* Give back the held things of the kinds (HELD_*) ready by epoch (alloc_lock held). */
static void give_back_ready(struct ext2_fs *fs, uint64_t epoch, unsigned kinds, uint8_t *map)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < fs->nheld; i++) {
		struct ext2_freed *f = &fs->held[i];
		unsigned kind = f->kind == FREED_BLOCKS ? HELD_BLOCKS : HELD_INODES;
		if (f->holder || f->ready > epoch || !(kinds & kind)) {
			fs->held[kept++] = *f;
			continue;
		}
		*(f->kind == FREED_BLOCKS ? &fs->held_blocks : &fs->held_inodes) -= f->n;
		(void)give_back(fs, f, map);
	}
	fs->nheld = kept;
}

static bool any_ready(const struct ext2_fs *fs)
{
	for (uint32_t i = 0; i < fs->nheld; i++)
		if (!fs->held[i].holder)
			return true;
	return false;
}

int ext2_commit(struct ext2_fs *fs, enum commit_scope scope)
{
	mutex_lock(&fs->alloc_lock);
	if (scope == COMMIT_BACKGROUND && !any_ready(fs)) {
		mutex_unlock(&fs->alloc_lock);
		return 0;
	}
	uint64_t epoch = fs->commit_epoch++;
	mutex_unlock(&fs->alloc_lock);
	if (blkdev_sync(fs->dev) < 0)
		return -EIO;   /* nothing given back: the records may not be on the disk */
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return 0;      /* held until a later commit */
	mutex_lock(&fs->alloc_lock);
	give_back_ready(fs, epoch, HELD_BLOCKS | (scope == COMMIT_SYNC ? HELD_INODES : 0), map);
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return 0;
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
	uint32_t per = fs->inodes_per_group;
	int e = read_bitmap(fs, grp->inode_bitmap, map);
	for (uint32_t i = e ? per : next_zero(map, per, 0); i < per; i = next_zero(map, per, i + 1)) {
		uint32_t n = g * per + i + 1;
		if (n < fs->first_ino)
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

/* Give back every held inode number at once (alloc_lock held): the
 * numbers ran out, and a reused number beats ENOSPC (Linux's ext2). */
static void give_back_inodes_now(struct ext2_fs *fs, uint8_t *map)
{
	give_back_ready(fs, ~0ull, HELD_INODES, map);   /* (inode numbers have no holder) */
}

int ext2_alloc_inode(struct ext2_fs *fs, uint32_t dir_ino, bool is_dir, uint32_t *ino)
{
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	uint32_t g0 = inode_group(fs, dir_ino, is_dir);
	int r = 0;
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		if (pass && fs->held_inodes)
			give_back_inodes_now(fs, map);
		for (uint32_t k = 0; k < fs->groups && r == 0; k++)
			r = take_inode(fs, (g0 + k) % fs->groups, is_dir, map, ino);
	}
	mutex_unlock(&fs->alloc_lock);
	kfree(map);
	return r < 0 ? r : r ? 0 : -ENOSPC;
}

int ext2_free_inode(struct ext2_fs *fs, uint32_t ino, bool is_dir)
{
	if (ino < fs->first_ino || ino > fs->inodes_count)
		return -EUCLEAN;
	uint8_t *map = kmalloc(fs->block_size);
	if (!map)
		return -ENOMEM;
	mutex_lock(&fs->alloc_lock);
	int e = check_inode_in_use(fs, ino, map);
	if (!e)
		e = hold(fs, (struct ext2_freed){ ino, 1, is_dir ? FREED_DIR : FREED_INODE, NULL, 0 }, map);
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
