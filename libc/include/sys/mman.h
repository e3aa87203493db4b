/* sys/mman.h -- memory mappings, with Linux x86-64's values (the kernel
 * takes these numbers as they are; no translation in the glue). */
#ifndef _SYS_MMAN_H
#define _SYS_MMAN_H

#include <sys/types.h>

#include <pagoda/abi-mman.h>  /* PROT_*, MAP_*, MADV_* (shared with the kernel) */

#define MAP_ANON       MAP_ANONYMOUS
#define MAP_FAILED     ((void *)-1)

/* POSIX spellings of the advice values. */
#define POSIX_MADV_NORMAL     MADV_NORMAL
#define POSIX_MADV_RANDOM     MADV_RANDOM
#define POSIX_MADV_SEQUENTIAL MADV_SEQUENTIAL
#define POSIX_MADV_WILLNEED   MADV_WILLNEED
#define POSIX_MADV_DONTNEED   MADV_DONTNEED

/* Each returns 0 (mmap: the address) or -1 / MAP_FAILED with errno. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
int madvise(void *addr, size_t len, int advice);
/* mremap: MREMAP_FIXED takes a fifth argument, the new address. */
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
int mincore(void *addr, size_t len, unsigned char *vec);
/* msync: MS_SYNC writes a shared file mapping's pages to the disk. */
int msync(void *addr, size_t len, int flags);

#endif
