/* fs/ext2/dir.c -- changing a directory's entries (ext2.h), in its page
 * cache: the pages are marked dirty and reach the disk by write-back or
 * fsync of the directory.
 *
 *   a block:  [ino|rec_len|name_len|type|name...][ino|rec_len|...]...
 *             rec_len chains the entries to the block's end; an entry may
 *             be longer than its name needs (the slack is free space);
 *             ino 0 at a block's start: an empty slot
 *
 *   add:     the first entry with slack enough is split (or an empty slot
 *            taken); none: the directory grows by a block holding the one
 *            entry
 *   remove:  the previous entry in the block takes the space over (the
 *            first one of a block becomes an empty slot)
 *
 * A directory changed here loses EXT2_INDEX_FL: its dir_index tree would
 * no longer match, and a linear directory is valid ext2 (Linux's ext2
 * never keeps the tree either). A directory of more than one block gets
 * an index in memory instead (dirindex.h), so that finding a name or room
 * reads one block, not all. Callers of changes hold sb->ns exclusively,
 * lookups shared; each takes the directory's inode->lock (its index).
 */
#include "fs/ext2/ext2.h"
#include "fs/ext2/dirindex.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define DIRENT_HEAD 8

static uint32_t rec_need(size_t name_len)
{
	return (uint32_t)ALIGN_UP(DIRENT_HEAD + name_len, 4);
}

uint8_t ext2_ftype(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return EXT2_FT_REG;
	case S_IFDIR: return EXT2_FT_DIR;
	case S_IFCHR: return EXT2_FT_CHR;
	case S_IFBLK: return EXT2_FT_BLK;
	case S_IFIFO: return EXT2_FT_FIFO;
	case S_IFSOCK: return EXT2_FT_SOCK;
	case S_IFLNK: return EXT2_FT_SYMLINK;
	default: return EXT2_FT_UNKNOWN;
	}
}

/* A directory block in its page: the page (a reference) and the block's bytes. */
struct dir_block {
	struct page *pg;
	uint8_t *b;
};

static int block_get(struct ext2_inode *dir, uint64_t lblk, struct dir_block *db)
{
	uint32_t bs = dir->fs->block_size;
	int e = pagecache_get(dir->vfs.mapping, lblk * bs / PAGE_SIZE, PC_READ, &db->pg);
	if (e)
		return e;
	db->b = (uint8_t *)P2V(page_to_pa(db->pg)) + lblk * bs % PAGE_SIZE;
	return 0;
}

static void block_put(struct ext2_inode *dir, struct dir_block *db, bool changed)
{
	if (changed)
		pagecache_set_dirty(dir->vfs.mapping, db->pg);
	page_put(db->pg);
}

/* Write one entry at b + at. */
static void put_entry(uint8_t *b, uint32_t at, uint32_t ino, uint32_t rec, const char *name,
		      size_t len, uint8_t ft)
{
	ext2_put32(b, at, ino);
	ext2_put16(b, at + 4, (uint16_t)rec);
	b[at + 6] = (uint8_t)len;
	b[at + 7] = ft;
	memcpy(b + at + DIRENT_HEAD, name, len);
}

/* Is the entry at `at` of a block of bs bytes well formed? */
static bool entry_ok(const uint8_t *b, uint32_t at, uint32_t bs)
{
	uint16_t rec = ext2_le16(b, at + 4);
	return at + DIRENT_HEAD <= bs && rec >= DIRENT_HEAD && rec % 4 == 0 && at + rec <= bs &&
	       b[at + 6] + (uint32_t)DIRENT_HEAD <= rec;
}

/* The directory changed: its times, no index, its inode written. */
static int dir_changed(struct ext2_inode *dir)
{
	dir->flags &= ~(uint32_t)EXT2_INDEX_FL;
	inode_touch(&dir->vfs);
	return ext2_write_inode(dir, false);
}

/* The largest entry block b can take (0 when it is damaged). */
static uint16_t block_room(const uint8_t *b, uint32_t bs)
{
	uint32_t best = 0;
	for (uint32_t at = 0; at < bs; at += ext2_le16(b, at + 4)) {
		if (!entry_ok(b, at, bs))
			return 0;
		uint32_t used = ext2_le32(b, at) ? rec_need(b[at + 6]) : 0;
		best = MAX(best, ext2_le16(b, at + 4) - used);
	}
	return (uint16_t)best;
}

/* ---- the index of a big directory (dirindex.h; inode->lock held) ---- */

#define DX_MIN_BLOCKS 2   /* a directory this big gets an index */

static void drop_index(struct ext2_inode *dir)
{
	dx_free(dir->dx);
	dir->dx = NULL;
}

/* Block lblk's live entries and its room into dx: 0 or -errno. */
static int index_block(struct ext2_inode *dir, struct ext2_dir_index *dx, uint32_t lblk)
{
	uint32_t bs = dir->fs->block_size;
	struct dir_block db;
	int e = block_get(dir, lblk, &db);
	if (e)
		return e;
	for (uint32_t at = 0; !e && at < bs; at += ext2_le16(db.b, at + 4)) {
		if (!entry_ok(db.b, at, bs))
			e = -EUCLEAN;
		else if (ext2_le32(db.b, at))
			e = dx_insert(dx, dx_hash((const char *)db.b + at + DIRENT_HEAD, db.b[at + 6]),
				      lblk, (uint16_t)at);
	}
	if (!e)
		e = dx_set_room(dx, lblk, block_room(db.b, bs));
	block_put(dir, &db, false);
	return e;
}

/* dir's index: built by one scan once the directory has DX_MIN_BLOCKS
 * blocks; NULL for a small directory, or when it could not be built
 * (damage, no memory: the caller scans, and meets the damage itself). */
static struct ext2_dir_index *dir_index(struct ext2_inode *dir)
{
	uint64_t nblocks = dir->vfs.size / dir->fs->block_size;
	if (dir->dx || nblocks < DX_MIN_BLOCKS)
		return dir->dx;
	struct ext2_dir_index *dx = dx_new();
	int e = dx ? 0 : -ENOMEM;
	for (uint64_t l = 0; !e && l < nblocks; l++)
		e = index_block(dir, dx, (uint32_t)l);
	if (e) {
		dx_free(dx);
		return NULL;
	}
	return dir->dx = dx;
}

/* An entry was added at lblk/at or removed from there (block b as it is
 * now): the index follows, or goes when it cannot. */
static void index_changed(struct ext2_inode *dir, const uint8_t *b, uint32_t lblk, uint32_t at,
			  const char *name, size_t len, bool added)
{
	struct ext2_dir_index *dx = dir->dx;
	if (!dx)
		return;
	uint32_t hash = dx_hash(name, len);
	int e = added ? dx_insert(dx, hash, lblk, (uint16_t)at)
		      : dx_remove(dx, hash, lblk, (uint16_t)at) ? 0 : -EUCLEAN;
	if (e || dx_set_room(dx, lblk, block_room(b, dir->fs->block_size)))
		drop_index(dir);
}

/* ---- finding, adding, removing entries (inode->lock held) ---- */

/* Find name in block lblk: 1 with the block in db (a reference), the
 * entry's offset and the previous one's (~0: the first of its block), 0
 * if absent, -errno. */
static int find_in_block(struct ext2_inode *dir, uint64_t lblk, const char *name, size_t len,
			 struct dir_block *db, uint32_t *at_out, uint32_t *prev_out)
{
	uint32_t bs = dir->fs->block_size;
	int e = block_get(dir, lblk, db);
	if (e)
		return e;
	for (uint32_t at = 0, prev = ~0u; at < bs; prev = at, at += ext2_le16(db->b, at + 4)) {
		if (!entry_ok(db->b, at, bs)) {
			block_put(dir, db, false);
			return -EUCLEAN;
		}
		if (ext2_le32(db->b, at) && db->b[at + 6] == len &&
		    !memcmp(db->b + at + DIRENT_HEAD, name, len)) {
			*at_out = at, *prev_out = prev;
			return 1;
		}
	}
	block_put(dir, db, false);
	return 0;
}

/* Find name in dir (find_in_block's results, *lblk_out its block): in
 * the blocks the index names for its hash, or in every block. */
static int find_entry(struct ext2_inode *dir, const char *name, size_t len, struct dir_block *db,
		      uint64_t *lblk_out, uint32_t *at_out, uint32_t *prev_out)
{
	struct ext2_dir_index *dx = dir_index(dir);
	uint64_t nblocks = dir->vfs.size / dir->fs->block_size;
	struct dx_cursor c = { 0 };
	uint32_t hash = dx_hash(name, len);
	int r = 0;
	for (uint64_t l = 0; r == 0 && (dx ? dx_next(dx, hash, &c) : l < nblocks); l++) {
		*lblk_out = dx ? c.lblk : l;
		r = find_in_block(dir, *lblk_out, name, len, db, at_out, prev_out);
	}
	return r;
}

int ext2_lookup(struct ext2_inode *dir, const char *name, size_t len, uint32_t *ino)
{
	if (!S_ISDIR(dir->vfs.mode))
		return -ENOTDIR;
	if (len > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	struct dir_block db;
	uint64_t lblk;
	uint32_t at, prev;
	mutex_lock(&dir->vfs.lock);
	int r = find_entry(dir, name, len, &db, &lblk, &at, &prev);
	if (r == 1) {
		*ino = ext2_le32(db.b, at);
		block_put(dir, &db, false);
	}
	mutex_unlock(&dir->vfs.lock);
	return r == 1 ? 0 : r == 0 ? -ENOENT : r;
}

/* Put the entry in block b if it has room: 1 with its offset in *at_out,
 * 0 if no room, -EUCLEAN. */
static int add_in_block(struct ext2_inode *dir, uint8_t *b, const char *name, size_t len,
			uint32_t ino, uint8_t ft, uint32_t *at_out)
{
	uint32_t bs = dir->fs->block_size, need = rec_need(len);
	for (uint32_t at = 0; at < bs;) {
		if (!entry_ok(b, at, bs))
			return -EUCLEAN;
		uint32_t e_ino = ext2_le32(b, at), rec = ext2_le16(b, at + 4);
		uint32_t used = e_ino ? rec_need(b[at + 6]) : 0;
		if (rec - used >= need) {
			if (e_ino) {   /* split: the entry keeps what it needs */
				ext2_put16(b, at + 4, (uint16_t)used);
				at += used, rec -= used;
			}
			put_entry(b, at, ino, rec, name, len, ft);
			*at_out = at;
			return 1;
		}
		at += rec;
	}
	return 0;
}

/* Add in block lblk if it has room: add_in_block's results. */
static int add_to_block(struct ext2_inode *dir, uint64_t lblk, const char *name, size_t len,
			uint32_t ino, uint8_t ft)
{
	struct dir_block db;
	uint32_t at;
	int r = block_get(dir, lblk, &db);
	if (r)
		return r;
	if ((r = add_in_block(dir, db.b, name, len, ino, ft, &at)) == 1)
		index_changed(dir, db.b, (uint32_t)lblk, at, name, len, true);
	block_put(dir, &db, r == 1);
	return r;
}

/* A new block at the end of dir holding only the entry: 0 or -errno. */
static int add_block(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino,
		     uint8_t ft)
{
	uint32_t bs = dir->fs->block_size;
	uint64_t lblk = dir->vfs.size / bs;
	int e = ext2_map_blocks(dir, lblk, 1);
	if (e)
		return e;
	dir->vfs.size += bs;
	struct dir_block db;
	if ((e = block_get(dir, lblk, &db)))
		return e;
	memset(db.b, 0, bs);
	put_entry(db.b, 0, ino, bs, name, len, ft);
	index_changed(dir, db.b, (uint32_t)lblk, 0, name, len, true);
	block_put(dir, &db, true);
	return 0;
}

/* ext2_add_entry with inode->lock held: in the first block with room (the
 * index says which; an index that was wrong goes, and the blocks are
 * scanned), else in a new block. */
static int add_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino,
		     uint8_t ft)
{
	struct ext2_dir_index *dx = dir_index(dir);
	uint64_t nblocks = dir->vfs.size / dir->fs->block_size;
	if (dx) {
		uint32_t l = dx_block_with_room(dx, rec_need(len), (uint32_t)nblocks);
		int r = l == DX_NONE ? 0 : add_to_block(dir, l, name, len, ino, ft);
		if (r)
			return r < 0 ? r : dir_changed(dir);
		if (l != DX_NONE)
			drop_index(dir);   /* it said room where there was none */
		else
			return add_block(dir, name, len, ino, ft) ?: dir_changed(dir);
	}
	for (uint64_t l = 0; l < nblocks; l++) {
		int r = add_to_block(dir, l, name, len, ino, ft);
		if (r)
			return r < 0 ? r : dir_changed(dir);
	}
	return add_block(dir, name, len, ino, ft) ?: dir_changed(dir);
}

int ext2_add_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft)
{
	if (len == 0 || len > EXT2_NAME_LEN)
		return len ? -ENAMETOOLONG : -ENOENT;
	mutex_lock(&dir->vfs.lock);
	int r = add_entry(dir, name, len, ino, ft);
	mutex_unlock(&dir->vfs.lock);
	return r;
}

/* ext2_remove_entry with inode->lock held. */
static int remove_entry(struct ext2_inode *dir, const char *name, size_t len)
{
	struct dir_block db;
	uint64_t lblk;
	uint32_t at, prev;
	int r = find_entry(dir, name, len, &db, &lblk, &at, &prev);
	if (r <= 0)
		return r ? r : -ENOENT;
	if (prev == ~0u)
		ext2_put32(db.b, at, 0);   /* the first of its block: an empty slot */
	else
		ext2_put16(db.b, prev + 4, (uint16_t)(ext2_le16(db.b, prev + 4) + ext2_le16(db.b, at + 4)));
	index_changed(dir, db.b, (uint32_t)lblk, at, name, len, false);
	block_put(dir, &db, true);
	return dir_changed(dir);
}

int ext2_remove_entry(struct ext2_inode *dir, const char *name, size_t len)
{
	mutex_lock(&dir->vfs.lock);
	int r = remove_entry(dir, name, len);
	mutex_unlock(&dir->vfs.lock);
	return r;
}

int ext2_set_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft)
{
	struct dir_block db;
	uint64_t lblk;
	uint32_t at, prev;
	mutex_lock(&dir->vfs.lock);
	int r = find_entry(dir, name, len, &db, &lblk, &at, &prev);
	if (r == 1) {
		ext2_put32(db.b, at, ino);
		db.b[at + 7] = ft;
		block_put(dir, &db, true);
		r = dir_changed(dir);
	} else if (r == 0) {
		r = -ENOENT;
	}
	mutex_unlock(&dir->vfs.lock);
	return r;
}

int ext2_dir_init(struct ext2_inode *dir, uint32_t parent_ino)
{
	uint32_t bs = dir->fs->block_size;
	int e = ext2_map_blocks(dir, 0, 1);
	if (e)
		return e;
	dir->vfs.size = bs;
	struct dir_block db;
	if ((e = block_get(dir, 0, &db)))
		return e;
	memset(db.b, 0, bs);
	put_entry(db.b, 0, (uint32_t)dir->vfs.ino, 12, ".", 1, EXT2_FT_DIR);
	put_entry(db.b, 12, parent_ino, bs - 12, "..", 2, EXT2_FT_DIR);
	block_put(dir, &db, true);
	return 0;
}

int ext2_dir_empty(struct ext2_inode *dir)
{
	uint64_t pos = 0;
	char name[EXT2_NAME_LEN + 1];
	uint32_t ino;
	uint8_t type;
	int r;
	while ((r = ext2_readdir(dir, &pos, name, &ino, &type)) == 1)
		if (strcmp(name, ".") && strcmp(name, ".."))
			return 0;
	return r < 0 ? r : 1;
}
