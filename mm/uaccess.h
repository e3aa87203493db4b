/* mm/uaccess.h -- copying between the kernel and the current user process.
 *
 * Each call checks that the range lies in user space and that the current
 * address space maps it with the needed access, taking faults like the user
 * would (demand-zero, COW) so lazy and shared pages work; kernel writes fault
 * on read-only PTEs because CR0.WP is set. A bad pointer gives -EFAULT; a
 * fault that ran out of memory (the page could not be allocated even after
 * reclaim) gives -ENOMEM, so the system call fails with Linux's ENOMEM.
 */
#ifndef MM_UACCESS_H
#define MM_UACCESS_H

#include "lib/types.h"

#include "mm/fault.h"

/* 0, or -EFAULT / -ENOMEM (see above: the page-fault handler resumes a
 * copy whose fault ran out of memory at its fix-up with -ENOMEM). */
int copyin(void *dst, vaddr_t usrc, uint64_t len);
int copyout(vaddr_t udst, const void *src, uint64_t len);

/* Copy a NUL-terminated string of at most max bytes (including the NUL);
 * returns its length, -EFAULT, or -ENAMETOOLONG. */
long copyinstr(char *dst, vaddr_t usrc, uint64_t max);

/* Zero len user bytes. */
int clear_user(vaddr_t udst, uint64_t len);

/* Atomically replace the aligned user word at uaddr by new if it holds old
 * (through the user mapping, so its page is faulted in writable and its
 * Dirty bit set like a user store's); *seen = what it held. 0, -EFAULT
 * (bad or misaligned address) or -ENOMEM. */
int cmpxchg_user32(vaddr_t uaddr, uint32_t old, uint32_t new, uint32_t *seen);

#endif
