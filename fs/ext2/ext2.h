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
 * Who changes what: an ext2_fs is read-only once mounted; the inode table
 * (fs->inodes, a list) changes under fs->lock; an inode's fields are set
 * before it is published and never change (read-only).
 */
#ifndef FS_EXT2_EXT2_H
#define FS_EXT2_EXT2_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/types.h"
#include "mm/pagecache.h"

struct blkdev;

#define EXT2_ROOT_INO 2
#define EXT2_NAME_LEN 255

/* Linux's file types of directory entries (and DT_ of getdents). */
enum ext2_ftype { EXT2_FT_UNKNOWN, EXT2_FT_REG, EXT2_FT_DIR, EXT2_FT_CHR, EXT2_FT_BLK,
		  EXT2_FT_FIFO, EXT2_FT_SOCK, EXT2_FT_SYMLINK };

struct ext2_fs {
	struct blkdev *dev;
	uint32_t block_size;
	uint32_t blocks_count, inodes_count;
	uint32_t blocks_per_group, inodes_per_group, groups;
	uint32_t first_data_block, inode_size;
	uint32_t *inode_table;        /* each group's first inode-table block */
	uint32_t incompat, ro_compat;
	struct spinlock lock;         /* inodes */
	struct list inodes;           /* every ext2_inode read, by ino */
};

struct ext2_inode {
	struct ext2_fs *fs;
	uint32_t ino;
	uint16_t mode;                /* S_IF* type and permission bits */
	uint16_t links;
	uint32_t uid, gid;
	uint64_t size;
	uint32_t atime, ctime, mtime;
	uint32_t block[15];
	uint32_t blocks512;           /* i_blocks: 512-byte units allocated */
	struct pagecache cache;       /* the file's data, by page */
	struct list link;             /* on fs->inodes */
	uint32_t refs;                /* under fs->lock */
};

/* Read d's superblock and group descriptors: 0 with *out set, or -EINVAL
 * (not ext2: bad magic, a revision or block size it cannot be, features
 * this driver does not know in the incompatible set), -EUCLEAN (the
 * superblock's numbers contradict each other), -EIO, -ENOMEM. */
int ext2_mount(struct blkdev *d, struct ext2_fs **out);

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
 * past the end), or -EUCLEAN, -EIO, -ENOMEM (nothing copied). */
long ext2_read(struct ext2_inode *ip, uint64_t off, void *buf, uint64_t n);

/* The target of symlink ip into buf (n bytes, not NUL-terminated): its
 * length, or -EINVAL (not a link), -EUCLEAN, -EIO, -ENOMEM. */
long ext2_readlink(struct ext2_inode *ip, char *buf, uint64_t n);

#endif
