/* libc/sys_mem.c -- the program break and memory mappings.
 *
 * sbrk is what newlib's malloc grows its heap with. It keeps the current
 * break in a variable and moves it with brk(2), which (Linux semantics)
 * returns the new break on success and the unchanged old break on failure.
 * The purge-policy malloc (a later part, libc/malloc/) will take mmap and
 * madvise from here too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "raw_syscall.h"

static char *cur_brk;	/* the break as far as we know; NULL before first use */

/* sbrk: move the break by incr bytes (may be negative); returns the old
 * break, or (void *)-1 with errno ENOMEM. */
void *sbrk(ptrdiff_t incr)
{
	char *old, *want;

	if (cur_brk == NULL)
		cur_brk = (char *)raw_syscall1(SYS_brk, 0);
	old = cur_brk;
	if (incr == 0)
		return old;
	if ((incr > 0 && (uintptr_t)old + (uintptr_t)incr < (uintptr_t)old) ||
	    (incr < 0 && (uintptr_t)-incr > (uintptr_t)old)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	want = old + incr;
	cur_brk = (char *)raw_syscall1(SYS_brk, want);
	if (cur_brk != want) {
		errno = ENOMEM;
		return (void *)-1;
	}
	return old;
}

/* brk: set the break to addr exactly; 0, or -1 with errno ENOMEM. */
int brk(void *addr)
{
	cur_brk = (char *)raw_syscall1(SYS_brk, addr);
	if (cur_brk != addr) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* mmap(2): map len bytes; the address, or MAP_FAILED with errno. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = raw_syscall6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);

	return raw_is_error(r) ? (sys_result(r), MAP_FAILED) : (void *)r;
}

/* munmap(2): unmap [addr, addr+len). */
int munmap(void *addr, size_t len)
{
	return (int)sys_result(raw_syscall2(SYS_munmap, addr, len));
}

/* mprotect(2): change the protection of [addr, addr+len). */
int mprotect(void *addr, size_t len, int prot)
{
	return (int)sys_result(raw_syscall3(SYS_mprotect, addr, len, prot));
}

/* madvise(2): advice on [addr, addr+len) (MADV_* are Linux's). */
int madvise(void *addr, size_t len, int advice)
{
	return (int)sys_result(raw_syscall3(SYS_madvise, addr, len, advice));
}

/* mremap(2): resize or move a mapping; the new address, or MAP_FAILED. */
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	long r = raw_syscall6(SYS_mremap, (long)old, (long)old_len, (long)new_len, flags,
			      (long)new_addr, 0);
	return raw_is_error(r) ? (sys_result(r), MAP_FAILED) : (void *)r;
}

/* mincore(2): one byte per page of [addr, addr+len), bit 0 = resident. */
int mincore(void *addr, size_t len, unsigned char *vec)
{
	return (int)sys_result(raw_syscall3(SYS_mincore, addr, len, vec));
}

/* msync(2): MS_SYNC writes the pages of shared file mappings in the range. */
int msync(void *addr, size_t len, int flags)
{
	return (int)sys_result(raw_syscall3(SYS_msync, addr, len, flags));
}
