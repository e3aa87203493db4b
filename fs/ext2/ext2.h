/* fs/ext2/ext2.h -- the second extended file system, as `mke2fs -t ext2`
 * writes it (revision 1, 1 to 64 KiB blocks), read-only for now.
 *
 *   disk:  [boot 1 KiB][superblock 1 KiB][group descriptors]...
 *          group 0                         group 1
 *          +-------+-----+-----+-----+---- +-------+-----+-----+----
 *          | super | GDT | bmp | ibmp| inode table | data blocks ...
 *          +-------+-----+-----+-----+---- ...
 *
 *   inode:  mode, size, times, links, i_block[15]:
 *           [0..11] data blocks  [12] -> block of block numbers
 *           [13] -> blocks of [12]'s kind   [14] -> one level more
 *           (0: a hole, which reads as zeros)
 *
 *   directory: its data blocks hold entries {inode, rec_len, name_len,
 *           file_type, name}; rec_len chains them through each block
 *           (an entry with inode 0 is free space; a dir_index directory's
 *           tree hides in such entries, so reading it linearly is right).
 *
 * Metadata (superblock, descriptors, inodes, indirect blocks, directory
 * blocks) is read through the disk's own page cache (blkdev_read); a
 * file's data through the file's page cache (ext2_read), filled block by
 * block from the disk. Nothing is trusted: a block number past the file
 * system, an inode number out of range, a directory entry that does not
 * fit its block give -EUCLEAN (Linux's "structure needs cleaning"), never
 * a read outside the image or a loop.
 *
 * Under the VFS (fs/vfs.h): each ext2_inode has the VFS's struct inode
 * inside it (its mode, links, size, times and page cache), found by
 * number on the super block's list (inode_find, inode_insert); the glue
 * -- the file system type, the ops the VFS calls -- is fs/ext2/vfs.c.
 *
 * Who changes what: an ext2_fs is read-only once mounted; an inode's
 * fields are set before it is published (inode_insert) and never change
 * (read-only).
 */
#ifndef FS_EXT2_EXT2_H
#define FS_EXT2_EXT2_H

#include "fs/vfs.h"
#include "lib/types.h"

struct blkdev;

#define EXT2_ROOT_INO 2
#define EXT2_NAME_LEN 255

/* Linux's file types of directory entries (and DT_ of getdents). */
enum ext2_ftype { EXT2_FT_UNKNOWN, EXT2_FT_REG, EXT2_FT_DIR, EXT2_FT_CHR, EXT2_FT_BLK,
		  EXT2_FT_FIFO, EXT2_FT_SOCK, EXT2_FT_SYMLINK };

/* A block group's descriptor as the disk has it (free counts kept in
 * memory and written through on every change, under alloc_lock). */
struct ext2_group {
	uint32_t block_bitmap, inode_bitmap, inode_table;
	uint32_t free_blocks, free_inodes, used_dirs;
};

struct ext2_fs {
	struct super_block *sb;       /* the VFS's: its inodes, its root */
	struct blkdev *dev;
	uint32_t block_size;
	uint32_t blocks_count, inodes_count;
	uint32_t blocks_per_group, inodes_per_group, groups;
	uint32_t first_data_block, inode_size;
	struct ext2_group *group;     /* each group's descriptor */
	uint32_t incompat, ro_compat;
	uint32_t free_blocks, free_inodes;   /* the superblock's counts (under alloc_lock) */
	uint32_t first_ino;           /* the first inode not reserved (11) */
	uint16_t state;               /* s_state as mounted (1: clean) */
	struct mutex alloc_lock;      /* bitmaps, group and superblock counts, held */
	bool writable;                /* mounted read-write */
	struct ext2_freed *held;      /* freed, not yet given back (alloc.c) */
	uint32_t nheld, held_cap;
	uint32_t nholding;            /* of those, with a holder (the latest, mostly) */
	uint32_t held_blocks, held_inodes;   /* counted free by statfs */
	uint64_t commit_epoch;        /* commits started (ext2_commit) */
};

/* Blocks or an inode number freed, held until no record on the disk can
 * still name them (fs/ext2/alloc.c's "Freed, then given back"). */
enum ext2_freed_kind { FREED_BLOCKS, FREED_INODE, FREED_DIR };
struct ext2_freed {
	uint32_t first, n;                 /* blocks first.. (n), or inode first (n 1) */
	enum ext2_freed_kind kind;
	const struct ext2_inode *holder;   /* its record still names them: not yet ready */
	uint64_t ready;                    /* commit_epoch when it became ready */
};

struct ext2_inode {
	struct inode vfs;             /* ino, mode, links, uid, gid, size, times, i_blocks
				       * (vfs.blocks: 512-byte units), the page cache */
	struct ext2_fs *fs;
	uint32_t block[15];
	uint32_t flags, dtime;        /* i_flags (EXT2_INDEX_FL...), i_dtime */
	struct ext2_dir_index *dx;    /* a big directory's names in memory (dir.c), or NULL */
	struct mutex map_lock;        /* block[] and the indirect blocks' slots against
				       * each other's changes: ext2_map_blocks and
				       * ext2_truncate_blocks take it (SLEEP_RANK_BLOCK_MAP;
				       * Linux's ext2 truncate_mutex) */
};

static inline struct ext2_inode *ext2_i(struct inode *ip)
{
	return container_of(ip, struct ext2_inode, vfs);
}

/* Read d's superblock and group descriptors into a new super block of
 * the VFS (read-only; its root dentry made): 0 with *out set, or -EINVAL
 * (not ext2: bad magic, a revision or block size it cannot be, features
 * this driver does not know in the incompatible set), -EUCLEAN (the
 * superblock's numbers contradict each other), -EIO, -ENOMEM. */
int ext2_mount(struct blkdev *d, struct ext2_fs **out);

/* Undo ext2_mount of a file system that was never mounted in the VFS's
 * table (tests): every inode must be put. */
void ext2_unmount(struct ext2_fs *fs);
/* Allow writing (a read-write mount): 0, or -EROFS (read-only features
 * this driver does not know), -EIO. */
int ext2_make_writable(struct ext2_fs *fs);
/* Free fs itself (its super block is being freed: ext2_type's kill). */
void ext2_free(struct ext2_fs *fs);

/* The file system type the VFS mounts, and the ops of an inode of each
 * type (fs/ext2/vfs.c). */
extern const struct fs_type ext2_type;
extern const struct super_ops ext2_super_ops;
void ext2_set_ops(struct ext2_inode *ip);

/* Inode ino of fs, with a reference (ext2_iput drops it): 0 with *out
 * set, or -EUCLEAN (ino out of range, or a free inode), -EIO, -ENOMEM. */
int ext2_iget(struct ext2_fs *fs, uint32_t ino, struct ext2_inode **out);
void ext2_iput(struct ext2_inode *ip);

/* The inode number of name[0..len) in directory dir: 0 with *ino set, or
 * -ENOENT, -ENOTDIR, -ENAMETOOLONG, -EUCLEAN, -EIO, -ENOMEM. */
int ext2_lookup(struct ext2_inode *dir, const char *name, size_t len, uint32_t *ino);

/* The entry of directory dir at byte position *pos or after it: 1 with
 * its name (NUL-terminated, EXT2_NAME_LEN + 1 bytes), inode and type, *pos
 * moved past it; 0 at the end; or -ENOTDIR, -EUCLEAN, -EIO, -ENOMEM. */
int ext2_readdir(struct ext2_inode *dir, uint64_t *pos, char *name, uint32_t *ino,
		 uint8_t *type);

/* Copy up to n bytes of file ip at off into buf: bytes copied (0 at or
 * past the end), or -EINVAL (not a file, directory or symlink: no data),
 * -EUCLEAN, -EIO, -ENOMEM (nothing copied). */
long ext2_read(struct ext2_inode *ip, uint64_t off, void *buf, uint64_t n);

/* The target of symlink ip into buf (n bytes, not NUL-terminated): its
 * length, or -EINVAL (not a link), -EUCLEAN, -EIO, -ENOMEM. */
long ext2_readlink(struct ext2_inode *ip, char *buf, uint64_t n);

/* ---- between fs/ext2's own files ---- */

#define EXT2_INDEX_FL 0x1000          /* a dir_index (htree) directory */
#define EXT2_SB_OFF 1024

static inline uint32_t ext2_le32(const uint8_t *p, unsigned off)
{
	return (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 | (uint32_t)p[off + 2] << 16 |
	       (uint32_t)p[off + 3] << 24;
}

static inline uint16_t ext2_le16(const uint8_t *p, unsigned off)
{
	return (uint16_t)(p[off] | p[off + 1] << 8);
}

static inline void ext2_put32(uint8_t *p, unsigned off, uint32_t v)
{
	p[off] = (uint8_t)v, p[off + 1] = (uint8_t)(v >> 8);
	p[off + 2] = (uint8_t)(v >> 16), p[off + 3] = (uint8_t)(v >> 24);
}

static inline void ext2_put16(uint8_t *p, unsigned off, uint16_t v)
{
	p[off] = (uint8_t)v, p[off + 1] = (uint8_t)(v >> 8);
}

/* Byte offset of group g's descriptor (the table follows the superblock's block). */
static inline uint64_t ext2_desc_offset(const struct ext2_fs *fs, uint32_t g)
{
	return (uint64_t)(fs->first_data_block + 1) * fs->block_size + (uint64_t)g * 32;
}

/* Metadata through the disk's cache: read n bytes at off (0 or -EIO), or
 * write them into it, the sectors they touch dirty until the disk's cache
 * is written back (blkdev_write_meta: at a commit, a sync, or by the
 * flusher). */
int ext2_read_meta(struct ext2_fs *fs, uint64_t off, void *buf, uint32_t n);
int ext2_write_meta(struct ext2_fs *fs, uint64_t off, const void *buf, uint32_t n);
/* Is b a block number of the file system (not 0, not past the end)? */
bool ext2_block_ok(const struct ext2_fs *fs, uint32_t b);

/* fs/ext2/alloc.c: blocks and inodes, near a goal (fs->alloc_lock inside).
 * ext2_alloc_blocks: up to want contiguous free blocks from goal on (the
 * goal's group first, then the others): how many, the first in *first,
 * or -ENOSPC, -EIO. ext2_free_blocks frees n from first (a damaged range
 * is refused: -EUCLEAN); holder: the inode whose record names them until
 * it is written (ext2_freed_written), or NULL. ext2_alloc_inode: a free
 * inode number in dir's group (a directory: the group with the most free
 * inodes of those with free blocks, as Linux's Orlov spreads top
 * directories) or -ENOSPC. ext2_free_inode frees it. Freed blocks and
 * numbers are held, and given back by ext2_commit (the super op commit:
 * FLUSH, then what a commit of that scope may give back; -EIO).
 * ext2_write_super writes the superblock's counts, times and state
 * (clean when the file system is unmounted). */
int ext2_alloc_blocks(struct ext2_fs *fs, uint32_t goal, uint32_t want, uint32_t *first);
int ext2_free_blocks(struct ext2_fs *fs, uint32_t first, uint32_t n,
		     const struct ext2_inode *holder);
void ext2_freed_written(struct ext2_fs *fs, const struct ext2_inode *holder);
int ext2_alloc_inode(struct ext2_fs *fs, uint32_t dir_ino, bool is_dir, uint32_t *ino);
int ext2_free_inode(struct ext2_fs *fs, uint32_t ino, bool is_dir);
int ext2_commit(struct ext2_fs *fs, enum commit_scope scope);
int ext2_write_super(struct ext2_fs *fs, bool clean);

/* fs/ext2/ext2.c: ext2_write_inode writes ip's fields to its record on
 * the disk (fresh: a new inode, the rest of its record zeroed). */
int ext2_write_inode(struct ext2_inode *ip, bool fresh);

/* fs/ext2/blocks.c: a file's block map. ext2_bmap: the disk block of file
 * block lblk (0: a hole); ext2_map_blocks makes [lblk, lblk + n) exist
 * (data and indirect blocks allocated, near the file's others; under
 * ip->map_lock, which it takes: a write() holds ip->vfs.lock too, a store
 * through a shared mapping only ip->vfs.invalidate): 0, -ENOSPC, -EFBIG,
 * -EUCLEAN, -EIO, -ENOMEM; ext2_truncate_blocks frees every block from
 * file block lblk on (also under map_lock). The
 * file's page cache ops (ext2_data_ops) read and write whole blocks. */
int ext2_bmap(struct ext2_inode *ip, uint64_t lblk, uint32_t *out);
int ext2_map_blocks(struct ext2_inode *ip, uint64_t lblk, uint64_t n);
int ext2_truncate_blocks(struct ext2_inode *ip, uint64_t lblk);
extern const struct pagecache_ops ext2_data_ops;

/* fs/ext2/dir.c: a directory's entries, through its page cache (written
 * out by write-back or fsync; sb->ns held exclusively). ext2_add_entry
 * puts name -> ino (of type ft) in dir (a new block when no entry has
 * room); ext2_remove_entry takes name out; ext2_set_entry points an
 * existing name at another inode (rename over a file); ext2_dir_init
 * fills a new directory's first block with "." and ".."; ext2_dir_empty
 * says whether only those are left. */
int ext2_add_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft);
int ext2_remove_entry(struct ext2_inode *dir, const char *name, size_t len);
int ext2_set_entry(struct ext2_inode *dir, const char *name, size_t len, uint32_t ino, uint8_t ft);
int ext2_dir_init(struct ext2_inode *dir, uint32_t parent_ino);
int ext2_dir_empty(struct ext2_inode *dir);
/* The ext2 file type of a mode. */
uint8_t ext2_ftype(uint32_t mode);

#endif
