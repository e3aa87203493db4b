/* pagoda/abi-stat.h -- the kernel's struct stat on Linux x86-64 (144 bytes),
 * as stat(2)/fstat(2)/newfstatat(2) write it. Shared by the kernel
 * (kernel/fs_ops.c fills it) and the newlib glue (libc/sys_file.c converts
 * it to newlib's struct stat); only <stdint.h> types. */
#ifndef PAGODA_ABI_STAT_H
#define PAGODA_ABI_STAT_H

#include <stdint.h>

struct linux_stat {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t  st_size, st_blksize, st_blocks;
	uint64_t st_atime_sec, st_atime_nsec;
	uint64_t st_mtime_sec, st_mtime_nsec;
	uint64_t st_ctime_sec, st_ctime_nsec;
	int64_t  unused[3];
};
_Static_assert(sizeof(struct linux_stat) == 144, "Linux x86-64 struct stat");

#endif
