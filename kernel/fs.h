/* kernel/fs.h -- the initrd file system: a read-only tree of inodes.
 *
 * The ustar archive GRUB loaded (a multiboot2 module) is unpacked at boot:
 * every regular file's bytes are copied into page-aligned frames (type
 * file), so an executable's text can be mapped straight from them and all
 * processes running one program share its frames.
 */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "lib/types.h"
#include "mm/vmobject.h"

#define NAME_MAX 64

enum inode_type { INODE_FILE = 1, INODE_DIR, INODE_DEV };
enum dev_kind { DEV_CONSOLE = 1, DEV_NULL, DEV_ZERO, DEV_DISK };

struct page;
struct file_ops;
struct textbuf;
struct inode;
struct blkdev;

/* A synthesized inode (/proc, kernel/procfs.c): children and contents are
 * made when asked for, from the kernel's state at that moment. */
struct inode_ops {
	/* Directory: the child named name[0..len), or NULL. */
	struct inode *(*lookup)(struct inode *dir, const char *name, size_t len);
	/* Directory: the first child at position >= *pos (positions need not
	 * be consecutive); *pos becomes its position and its name is copied
	 * into name (NAME_MAX bytes). NULL when there is none. */
	struct inode *(*child)(struct inode *dir, uint64_t *pos, char *name);
	/* File: append its whole text to tb; 0 or -errno (-ESRCH: the
	 * process it describes is gone). priv is ip->priv as it was when the
	 * file was opened (inodes get new privs when reused: an open
	 * /proc/PID file keeps naming the process it was opened for). */
	int (*show)(struct inode *ip, uint64_t priv, struct textbuf *tb);
	/* File without pages to map: what mmap of it returns (Linux: -EIO
	 * for /proc's own files, -ENODEV for /proc/PID's; 0 means -ENODEV). */
	int mmap_errno;
};

struct inode {
	char name[NAME_MAX];
	enum inode_type type;
	enum dev_kind dev;
	uint32_t mode;              /* permission bits from the archive */
	uint64_t ino;
	uint64_t size;
	struct page **pages;        /* regular files: one frame per 4 KiB */
	uint64_t npages;
	struct vmobject vmobj;      /* regular files: what mmap maps (mm/vmobject.h) */
	struct inode *parent, *children, *next_sibling;
	void *ptshare;              /* shared text page tables (mm/ptshare_text.c) */
	const struct inode_ops *ops; /* synthesized inodes; NULL: initrd */
	uint64_t priv;              /* synthesized inodes: the ops' own data */
};

/* Unpack the initrd at [start, end) physical; returns files found or -errno. */
int initrd_load(paddr_t start, paddr_t end);

/* Add /dev/NAME for every disk of the block layer (drivers/block/blkdev.h):
 * a block device (its inode's priv: the disk's index). Once, at boot,
 * after the disks are found. */
void fs_add_disks(void);

/* The disk behind ip, or NULL when ip is not a disk's device file. */
struct blkdev *inode_disk(const struct inode *ip);

/* Make dir the root of /proc (kernel/procfs.c); called once at boot. */
void procfs_init(struct inode *dir);

/* readlink(2) of path into buf (n bytes, no NUL): the length, or -errno.
 * Pagoda's only links are /proc's: /proc/self (the caller's pid) and
 * /proc/PID/exe (the program's path); anything else that exists is not a
 * link (-EINVAL), as on Linux. */
long fs_readlink(const char *path, char *buf, uint64_t n);

/* Resolve a path: from / when it starts with '/', else from the current
 * process's directory (from / when there is no process). NULL if missing. */
struct inode *fs_lookup(const char *path);

/* ip's absolute path ("/bin"; NULL is the root) into buf of n bytes: its
 * length including the terminating NUL (getcwd's result), or -ERANGE. */
long inode_path(const struct inode *ip, char *buf, uint64_t n);

/* Copy up to n bytes at off of a regular file into kernel buffer dst. */
uint64_t inode_read(struct inode *ip, uint64_t off, void *dst, uint64_t n);

/* The backing object of a regular file, for mmap: its get_page hands out the
 * file's own frames (-EIO past the last page). Lives as long as the inode
 * (forever: the initrd is never unmounted). NULL for a file that has no
 * pages to map (/proc's, made up on each read: mmap returns its
 * ops->mmap_errno). */
struct vmobject *inode_vmobject(struct inode *ip);

/* The file whose backing object obj is (what /proc/PID/maps names), or
 * NULL when obj is not a file's (shared anonymous memory, NULL). */
struct inode *vmobject_inode(struct vmobject *obj);

/* ops for an open of ip (file, directory or device). */
const struct file_ops *inode_file_ops(struct inode *ip);

/* Fill a Linux struct stat for ip at user address ust. */
long inode_stat(struct inode *ip, vaddr_t ust);

/* getdents64 over an open directory. */
long dir_getdents(struct inode *dir, uint64_t *pos, vaddr_t ubuf, uint64_t n);

#endif
