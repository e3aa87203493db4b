/* kernel/fs.h -- what processes see of the file system (fs/vfs.h): each
 * process's root and current directory, the boot-time mounts, and /proc.
 *
 *   boot: root tmpfs <- initrd unpacked (fs/initramfs.c)
 *         (root=/dev/vda: root ext2 on the disk, the initrd in /run, a tmpfs)
 *         /dev  tmpfs with the device nodes     /proc  procfs
 *         /tmp  tmpfs (mode 1777)               /dev/shm tmpfs (1777)
 */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/types.h"

/* The root and current directory the current process walks from, with
 * references (the VFS root for kernel threads and at boot); fs_leave
 * drops them. A chdir on another thread meanwhile does not disturb them. */
void fs_enter(struct fs_root *r);
void fs_leave(struct fs_root *r);

/* Walk path as the current process (path_walk with fs_enter's root). */
int fs_walk(const char *path, enum lookup_flags flags, struct path *out);

/* Open path as the current process would (no O_CREAT): 0 or -errno. */
int file_open(const char *path, int flags, struct file **out);

/* Mount the root -- ext2 on the disk `root` names ("/dev/vda", the
 * root= boot option), or without one (or if it fails) a tmpfs -- unpack
 * the initrd module [start, end) into it (a disk root: into a tmpfs at
 * /run; no module: start == end), make /dev (its nodes, the disks'
 * too), /proc, /tmp, /dev/shm: the number of files unpacked, or -errno.
 * Once, at boot, after the disks are found. */
int fs_boot(paddr_t start, paddr_t end, const char *root);

/* /proc (kernel/procfs.c). */
extern const struct fs_type procfs_type;

/* The name of a file's inode for /proc/PID/maps (one of its names), or
 * a negative errno when it has none left. */
long inode_name(struct inode *ip, char *buf, uint64_t n);

#endif
