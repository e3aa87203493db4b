/* fs/ext2/blocks.c -- a file's blocks: the map from file block to disk
 * block (i_block and its indirect blocks), its growth and its truncation,
 * and the page cache's two ops that move a page's blocks to and from the
 * disk.
 *
 *   i_block[0..11]  data blocks
 *   i_block[12]     -> a block of block numbers (per = block_size / 4)
 *   i_block[13]     -> per blocks of those;  i_block[14]: one level more
 *
 * One lookup (find_slot) says where file block lblk's number is kept --
 * in the inode, or at a slot of an indirect block -- making the indirect
 * blocks on the way when asked; reading (bmap), allocating (map_blocks)
 * and the run length of a container all start there. Indirect blocks are
 * metadata: read and written through the disk's cache (blkdev_write_meta).
 * Data blocks move between the file's page cache and the disk directly.
 * Changes of the map happen under the inode's lock (write, truncate); the
 * write-back of a page only reads it.
 */
#include "fs/ext2/ext2.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

/* Where a file block's number lives: in ip->block[at] (ind 0), or in
 * slot `at` of indirect block ind; `room`: slots from at to the end of
 * that container (file blocks that share it, in order). hole: an indirect
 * block on the way is missing (only without create). */
struct slot {
	uint32_t ind, at, room;
	bool hole;
};

/* Blocks added to ip's count (i_blocks, 512-byte units). */
static void add_blocks(struct ext2_inode *ip, int64_t n)
{
	ip->vfs.blocks += (uint64_t)(n * (int64_t)(ip->fs->block_size / 512));
}

/* The number in slot `at` of indirect block ind (or of the inode). */
static int read_slot(struct ext2_inode *ip, uint32_t ind, uint32_t at, uint32_t *out)
{
	if (!ind) {
		*out = ip->block[at];
		return 0;
	}
	uint8_t v[4];
	int e = ext2_read_meta(ip->fs, (uint64_t)ind * ip->fs->block_size + at * 4, v, 4);
	*out = e ? 0 : ext2_le32(v, 0);
	return e;
}

/* Set slot `at` of ind (or of the inode) to b (written through). */
static int write_slot(struct ext2_inode *ip, uint32_t ind, uint32_t at, uint32_t b)
{
	if (!ind) {
		ip->block[at] = b;
		inode_mark_dirty(&ip->vfs);
		return 0;
	}
	uint8_t v[4];
	ext2_put32(v, 0, b);
	return ext2_write_meta(ip->fs, (uint64_t)ind * ip->fs->block_size + at * 4, v, 4);
}

/* A new indirect block, zeroed on the disk, for ip near goal: its number. */
static int new_indirect(struct ext2_inode *ip, uint32_t goal, uint32_t *out)
{
	struct ext2_fs *fs = ip->fs;
	int r = ext2_alloc_blocks(fs, goal, 1, out);
	if (r < 0)
		return r;
	uint8_t *zero = kzalloc(fs->block_size);
	int e = zero ? ext2_write_meta(fs, (uint64_t)*out * fs->block_size, zero, fs->block_size)
		     : -ENOMEM;
	kfree(zero);
	if (e) {
		ext2_free_blocks(fs, *out, 1, NULL);   /* named by no record */
		return e;
	}
	add_blocks(ip, 1);
	return 0;
}

/* The slot of file block lblk (see struct slot); with create, missing
 * indirect blocks are made. 0, -EFBIG (past triple indirect), -EUCLEAN,
 * -ENOSPC, -EIO. */
static int find_slot(struct ext2_inode *ip, uint64_t lblk, bool create, struct slot *s)
{
	struct ext2_fs *fs = ip->fs;
	uint64_t per = fs->block_size / 4, span = per;
	int level = 1;
	*s = (struct slot){ 0 };
	if (lblk < 12) {
		s->at = (uint32_t)lblk, s->room = 12 - (uint32_t)lblk;
		return 0;
	}
	for (lblk -= 12; lblk >= span; span *= per) {
		lblk -= span;
		if (++level > 3)
			return -EFBIG;
	}
	uint32_t parent = 0, at = 11 + (uint32_t)level;
	for (;;) {   /* at: the slot in parent of the next block down */
		uint32_t b;
		int e = read_slot(ip, parent, at, &b);
		if (!e && b && !ext2_block_ok(fs, b))
			e = -EUCLEAN;
		if (!e && !b && !create) {
			s->hole = true;
			return 0;
		}
		if (!e && !b && !(e = new_indirect(ip, parent ? parent : ip->block[0], &b)))
			e = write_slot(ip, parent, at, b);
		if (e)
			return e;
		span /= per;   /* file blocks under each slot of b */
		parent = b, at = (uint32_t)(lblk / span);
		lblk %= span;
		if (--level == 0) {
			s->ind = parent, s->at = at, s->room = (uint32_t)(per - at);
			return 0;
		}
	}
}

int ext2_bmap(struct ext2_inode *ip, uint64_t lblk, uint32_t *out)
{
	struct slot s;
	int e = find_slot(ip, lblk, false, &s);
	*out = 0;
	if (e || s.hole)
		return e;
	e = read_slot(ip, s.ind, s.at, out);
	return e ? e : *out == 0 || ext2_block_ok(ip->fs, *out) ? 0 : -EUCLEAN;
}

/* The empty slots from s.at on (count of them in a row, up to n) get
 * newly allocated blocks, contiguous when the disk allows: how many. */
static int fill_run(struct ext2_inode *ip, const struct slot *s, uint32_t n, uint32_t *goal)
{
	uint32_t first;
	int got = ext2_alloc_blocks(ip->fs, *goal, n, &first);
	if (got < 0)
		return got;
	for (int i = 0; i < got; i++) {
		int e = write_slot(ip, s->ind, s->at + (uint32_t)i, first + (uint32_t)i);
		if (e)
			return e;
	}
	add_blocks(ip, got);
	*goal = first + (uint32_t)got;
	return got;
}

/* Where a new block for file block lblk should go: right after the
 * file's block before it (Linux's ext2_find_goal), else after its first
 * block, else at the start of the inode's group. */
static uint32_t goal_for(struct ext2_inode *ip, uint64_t lblk)
{
	uint32_t prev = 0;
	if (lblk > 0 && ext2_bmap(ip, lblk - 1, &prev) == 0 && prev)
		return prev + 1;
	return ip->block[0] ? ip->block[0] :
	       ip->fs->first_data_block + (uint32_t)((ip->vfs.ino - 1) / ip->fs->inodes_per_group) *
	       ip->fs->blocks_per_group;
}

/* ext2_map_blocks under ip->map_lock. */
static int map_blocks(struct ext2_inode *ip, uint64_t lblk, uint64_t n)
{
	uint32_t goal = 0;   /* found at the first hole: blocks mapped already cost no search */
	while (n) {
		struct slot s;
		int e = find_slot(ip, lblk, true, &s);
		if (e)
			return e;
		uint32_t b, run = (uint32_t)MIN(n, (uint64_t)s.room), i = 0;
		while (i < run) {   /* the holes of this container's part, filled run by run */
			if ((e = read_slot(ip, s.ind, s.at + i, &b)))
				return e;
			if (b) {
				goal = b + 1, i++;
				continue;
			}
			uint32_t holes = 1;
			while (i + holes < run && read_slot(ip, s.ind, s.at + i + holes, &b) == 0 && !b)
				holes++;
			struct slot at = s;
			at.at += i;
			if (!goal)
				goal = goal_for(ip, lblk + i);
			int got = fill_run(ip, &at, holes, &goal);
			if (got < 0)
				return got;
			i += (uint32_t)got;
		}
		lblk += run, n -= run;
	}
	return 0;
}

/* ---- truncation ---- */

/* A run of data blocks to free, gathered so contiguous ones go at once. */
struct free_run {
	uint32_t first, n;
};

static int run_flush(struct ext2_inode *ip, struct free_run *r)
{
	int e = r->n ? ext2_free_blocks(ip->fs, r->first, r->n, ip) : 0;
	add_blocks(ip, -(int64_t)r->n);
	r->n = 0;
	return e;
}

static int run_add(struct ext2_inode *ip, struct free_run *r, uint32_t b)
{
	if (r->n && b == r->first + r->n) {
		r->n++;
		return 0;
	}
	int e = run_flush(ip, r);
	r->first = b, r->n = 1;
	return e;
}

/* Free what indirect block b (depth d: 1 = its slots are data blocks)
 * maps from its file block `from` on; b itself too when from is 0. */
static int free_tree(struct ext2_inode *ip, uint32_t b, int d, uint64_t from, struct free_run *r)
{
	struct ext2_fs *fs = ip->fs;
	uint32_t per = fs->block_size / 4;
	uint64_t span = 1;
	for (int k = 1; k < d; k++)
		span *= per;
	if (!ext2_block_ok(fs, b))
		return -EUCLEAN;
	uint8_t *slots = kmalloc(fs->block_size);
	if (!slots)
		return -ENOMEM;
	int e = ext2_read_meta(fs, (uint64_t)b * fs->block_size, slots, fs->block_size);
	for (uint32_t k = (uint32_t)(from / span); !e && k < per; k++) {
		uint32_t c = ext2_le32(slots, k * 4);
		if (!c)
			continue;
		uint64_t sub = k == from / span ? from % span : 0;
		e = d == 1 ? (ext2_block_ok(fs, c) ? run_add(ip, r, c) : -EUCLEAN)
			   : free_tree(ip, c, d - 1, sub, r);
		if (!e && sub == 0 && from != 0)   /* (from 0: b itself goes) */
			e = write_slot(ip, b, k, 0);
	}
	kfree(slots);
	if (!e && from == 0)
		e = run_add(ip, r, b);   /* b itself */
	return e;
}

int ext2_map_blocks(struct ext2_inode *ip, uint64_t lblk, uint64_t n)
{
	mutex_lock(&ip->map_lock);
	int e = map_blocks(ip, lblk, n);
	mutex_unlock(&ip->map_lock);
	return e;
}

/* ext2_truncate_blocks under ip->map_lock. */
static int truncate_blocks(struct ext2_inode *ip, uint64_t lblk)
{
	struct ext2_fs *fs = ip->fs;
	uint64_t per = fs->block_size / 4, start = 12, span = per;
	struct free_run r = { 0 };
	int e = 0;
	for (uint64_t i = lblk; !e && i < 12; i++)
		if (ip->block[i]) {
			e = run_add(ip, &r, ip->block[i]);
			write_slot(ip, 0, (uint32_t)i, 0);
		}
	for (int level = 1; !e && level <= 3; level++, start += span, span *= per) {
		uint32_t b = ip->block[11 + level];
		if (!b || lblk >= start + span)
			continue;
		uint64_t from = lblk > start ? lblk - start : 0;
		e = free_tree(ip, b, level, from, &r);
		if (!e && from == 0)
			write_slot(ip, 0, 11 + (uint32_t)level, 0);
	}
	int f = run_flush(ip, &r);
	int w = ext2_write_inode(ip, false);   /* no longer names them: they can be given back */
	if (!w)
		ext2_freed_written(fs, ip);
	else
		inode_mark_dirty(&ip->vfs);   /* (an I/O error: they stay held; e2fsck frees them) */
	return e ? e : f ? f : w;
}

int ext2_truncate_blocks(struct ext2_inode *ip, uint64_t lblk)
{
	mutex_lock(&ip->map_lock);
	int e = truncate_blocks(ip, lblk);
	mutex_unlock(&ip->map_lock);
	return e;
}

/* ---- the page cache's ops ---- */

/* Add the blocks of pg that lie inside the file to plug p (the plug
 * merges blocks that are neighbours on the disk, in a page and across
 * pages, into one request); holes are skipped. A page read with no hole,
 * wholly inside the file, is marked PGC_BLOCKS (a store through a mapping need not look again:
 * file_page_mkwrite). 0, or -EUCLEAN / -EIO (a block map that cannot be
 * read), -ENOMEM (no memory to read it: no I/O error, a fault then goes
 * to the reclaimer and the OOM killer). */
static int page_blocks(struct ext2_inode *ip, struct page *pg, enum blk_op op,
		       struct blk_plug *p)
{
	uint64_t size = ip->vfs.size, index = pg->cache.index;
	uint32_t bs = ip->fs->block_size, per_page = PAGE_SIZE / bs;
	char *va = page_va(pg);
	bool whole = (index + 1) * PAGE_SIZE <= size;   /* (past the end: holes, and the file may grow) */
	for (uint32_t i = 0; i < per_page && (index * per_page + i) * bs < size; i++) {
		uint32_t b = 0;
		int e = ext2_bmap(ip, index * per_page + i, &b);
		if (e)
			return e == -EUCLEAN || e == -ENOMEM ? e : -EIO;
		if (b)
			blk_plug_add(p, op, (uint64_t)b * (bs / SECTOR_SIZE), va + i * bs, bs);
		whole = whole && b;
	}
	if (op == BLK_READ && whole)
		pagecache_reading_has_blocks(pg);
	return 0;
}

/* Read or write the blocks of pages[0..n) in one plug: 0 or the first
 * error (what was submitted is waited for either way). */
static int pages_io(struct pagecache *pc, struct page **pages, unsigned n, enum blk_op op)
{
	struct ext2_inode *ip = ext2_i(pc->owner);
	struct blk_plug p;
	int e = 0;
	blk_plug_init(&p, ip->fs->dev);
	for (unsigned i = 0; i < n && !e; i++)
		e = page_blocks(ip, pages[i], op, &p);
	int w = blk_plug_finish(&p);
	return e ? e : w;
}

/* read_pages: the pages' blocks from the disk (holes and what lies past
 * the end stay zeros: the pages come zeroed; a last block's bytes past
 * the end are zeroed). */
static int ext2_read_pages(struct pagecache *pc, struct page **pages, unsigned n)
{
	int e = pages_io(pc, pages, n, BLK_READ);
	uint64_t size = ext2_i(pc->owner)->vfs.size;
	for (unsigned i = 0; i < n && !e; i++) {
		uint64_t start = pages[i]->cache.index * PAGE_SIZE;
		if (size > start && size - start < PAGE_SIZE)   /* no bytes past the end */
			memset((char *)page_va(pages[i]) + (size - start), 0,
			       PAGE_SIZE - (size - start));
	}
	return e;
}

/* write_pages: each mapped block of the pages inside the file to the
 * disk (a hole stays one: every block a write touched was mapped first).
 * Data pages are dirty whole: the sector masks are not needed. */
static int ext2_write_pages(struct pagecache *pc, struct page **pages, const uint8_t *dirty,
			    unsigned n)
{
	(void)dirty;
	return pages_io(pc, pages, n, BLK_WRITE);
}

const struct pagecache_ops ext2_data_ops = {
	.read_pages = ext2_read_pages, .write_pages = ext2_write_pages,
};

long ext2_read(struct ext2_inode *ip, uint64_t off, void *buf, uint64_t n)
{
	if (!ip->vfs.mapping)
		return -EINVAL;   /* a device, a fifo, or a type that is no type: no data */
	if (off >= ip->vfs.size)
		return 0;
	return pagecache_copy(ip->vfs.mapping, off, buf, MIN(n, ip->vfs.size - off), PC_COPY_OUT);
}
