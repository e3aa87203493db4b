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
 * never keeps the tree either). Callers hold sb->ns exclusively.
 */
#include "fs/ext2/ext2.h"
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

/* Put the entry in block db if it has room: 1 if it did, 0 if not, -EUCLEAN. */
static int add_in_block(struct ext2_inode *dir, uint8_t *b, const char *name, size_t len,
			uint32_t ino, uint8_t ft)
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
			return 1;
		}
		at += rec;
	}
	return 0;
}

int ext2_add_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft)
{
	uint32_t bs = dir->fs->block_size;
	uint64_t nblocks = dir->vfs.size / bs;
	if (len == 0 || len > EXT2_NAME_LEN)
		return len ? -ENAMETOOLONG : -ENOENT;
	for (uint64_t l = 0; l < nblocks; l++) {
		struct dir_block db;
		int e = block_get(dir, l, &db);
		int r = e ? e : add_in_block(dir, db.b, name, len, ino, ft);
		if (!e)
			block_put(dir, &db, r == 1);
		if (r)
			return r < 0 ? r : dir_changed(dir);
	}
	int e = ext2_map_blocks(dir, nblocks, 1);   /* no room: one more block */
	if (e)
		return e;
	dir->vfs.size += bs;
	struct dir_block db;
	if ((e = block_get(dir, nblocks, &db)))
		return e;
	memset(db.b, 0, bs);
	put_entry(db.b, 0, ino, bs, name, len, ft);
	block_put(dir, &db, true);
	return dir_changed(dir);
}

/* Find name in dir: 1 with its block, offset and the previous entry's
 * offset (~0: the first of its block), 0 if absent, -errno. */
static int find_entry(struct ext2_inode *dir, const char *name, size_t len, struct dir_block *db,
		      uint32_t *at_out, uint32_t *prev_out)
{
	uint32_t bs = dir->fs->block_size;
	for (uint64_t l = 0; l < dir->vfs.size / bs; l++) {
		int e = block_get(dir, l, db);
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
	}
	return 0;
}

int ext2_remove_entry(struct ext2_inode *dir, const char *name, size_t len)
{
	struct dir_block db;
	uint32_t at, prev;
	int r = find_entry(dir, name, len, &db, &at, &prev);
	if (r <= 0)
		return r ? r : -ENOENT;
	if (prev == ~0u)
		ext2_put32(db.b, at, 0);   /* the first of its block: an empty slot */
	else
		ext2_put16(db.b, prev + 4, (uint16_t)(ext2_le16(db.b, prev + 4) + ext2_le16(db.b, at + 4)));
	block_put(dir, &db, true);
	return dir_changed(dir);
}

int ext2_set_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft)
{
	struct dir_block db;
	uint32_t at, prev;
	int r = find_entry(dir, name, len, &db, &at, &prev);
	if (r <= 0)
		return r ? r : -ENOENT;
	ext2_put32(db.b, at, ino);
	db.b[at + 7] = ft;
	block_put(dir, &db, true);
	return dir_changed(dir);
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
