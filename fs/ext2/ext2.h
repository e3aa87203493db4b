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

struct ext2_fs {
	struct super_block *sb;       /* the VFS's: its inodes, its root */
	struct blkdev *dev;
	uint32_t block_size;
	uint32_t blocks_count, inodes_count;
	uint32_t blocks_per_group, inodes_per_group, groups;
	uint32_t first_data_block, inode_size;
	uint32_t *inode_table;        /* each group's first inode-table block */
	uint32_t incompat, ro_compat;
	uint32_t free_blocks, free_inodes;   /* the superblock's counts (statfs) */
};

struct ext2_inode {
	struct inode vfs;             /* ino, mode, links, uid, gid, size, times, i_blocks
				       * (vfs.blocks: 512-byte units), the page cache */
	struct ext2_fs *fs;
	uint32_t block[15];
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

#endif
