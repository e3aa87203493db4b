/* kernel/fs.h -- the initrd file system: a read-only tree of inodes.
 *
 * The ustar archive GRUB loaded (a multiboot2 module) is unpacked at boot:
 * every regular file's bytes are copied into page-aligned frames (type
 * file), so an executable's text can be mapped straight from them and all
 * processes running one program share its frames.
 */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "kernel/types.h"
#include "mm/vmobject.h"

#define NAME_MAX 64

enum inode_type { INODE_FILE = 1, INODE_DIR, INODE_DEV };
enum dev_kind { DEV_CONSOLE = 1, DEV_NULL, DEV_ZERO };

struct page;
struct file_ops;

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
	void *ptshare;              /* shared text page tables (mm/ptshare.c) */
};

/* Unpack the initrd at [start, end) physical; returns files found or -errno. */
int initrd_load(paddr_t start, paddr_t end);

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
 * (forever: the initrd is never unmounted). */
struct vmobject *inode_vmobject(struct inode *ip);

/* ops for an open of ip (file, directory or device). */
const struct file_ops *inode_file_ops(struct inode *ip);

/* Fill a Linux struct stat for ip at user address ust. */
long inode_stat(struct inode *ip, vaddr_t ust);

/* getdents64 over an open directory. */
long dir_getdents(struct inode *dir, uint64_t *pos, vaddr_t ubuf, uint64_t n);

#endif
