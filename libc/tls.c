/* libc/tls.c -- thread-local storage and per-thread errno (newlib build).
 *
 * x86-64's TLS ABI (variant II): a thread's thread pointer (the FS base) is
 * the address of its control block, whose first word points at itself; its
 * __thread data is the block of the PT_TLS template right below, ending at
 * the thread pointer rounded to the template's alignment (the linker
 * resolves every __thread variable to a fixed negative offset from it).
 * The template's bounds come from libc/user.ld's __tls_* symbols.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pthread_impl.h"

#define ARCH_SET_FS 0x1002

extern char __tls_image[], __tls_filesz[], __tls_memsz[], __tls_align[];

volatile int __pagoda_threaded;
static struct __pthread *main_tcb;

/* The thread pointer's alignment: the template's, at least 16 (the
 * control block's). */
static size_t tls_align(void)
{
	size_t a = (size_t)__tls_align;
	return a < 16 ? 16 : a;
}

/* The TLS block's size: the template's memory size rounded up to the
 * template's own alignment (p_align), the offset the linker's __thread
 * addresses count back from the thread pointer. */
static size_t tls_size(void)
{
	size_t a = (size_t)__tls_align ? (size_t)__tls_align : 1;
	return ((size_t)__tls_memsz + a - 1) & ~(a - 1);
}

size_t __pagoda_tls_need(void)
{
	return tls_size() + sizeof(struct __pthread) + tls_align();
}

struct __pthread *__pagoda_tls_place(char *bottom, char *top)
{
	uintptr_t tp = ((uintptr_t)top - sizeof(struct __pthread)) & ~(tls_align() - 1);
	if (tp < (uintptr_t)bottom + tls_size())
		return NULL;
	char *block = (char *)tp - tls_size();
	memcpy(block, __tls_image, (size_t)__tls_filesz);
	memset(block + (size_t)__tls_filesz, 0, tls_size() - (size_t)__tls_filesz);
	struct __pthread *t = (struct __pthread *)tp;
	memset(t, 0, sizeof(*t));
	t->self = t;
	return t;
}

void __pagoda_tls_main(void)
{
	if (main_tcb)
		return;
	size_t len = (__pagoda_tls_need() + 4095) & ~4095UL;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(127);   /* at start-up: nothing else can be done */
	main_tcb = __pagoda_tls_place(m, m + len);
	main_tcb->tid = (int)raw_syscall0(SYS_getpid);
	raw_syscall2(SYS_arch_prctl, ARCH_SET_FS, main_tcb);
}

struct __pthread *__pagoda_self(void)
{
	if (!main_tcb)
		__pagoda_tls_main();
	struct __pthread *t;
	__asm__("mov %%fs:0, %0" : "=r"(t));
	return t;
}

/* newlib's errno is (*__errno()): the main thread keeps newlib's own (its
 * internals write it directly), every other thread its control block's. */
int *__errno(void)
{
	if (!__pagoda_threaded)
		return &_REENT->_errno;
	struct __pthread *t = __pagoda_self();
	return t->map ? &t->err : &_REENT->_errno;
}
