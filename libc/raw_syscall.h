/* libc/raw_syscall.h -- the `syscall` instruction and the -errno convention.
 *
 * Linux x86-64 ABI: number in rax, arguments in rdi, rsi, rdx, r10, r8, r9;
 * the kernel clobbers rcx (return rip) and r11 (rflags) and returns in rax.
 * A result in [-4095, -1] is -errno; anything else is a success value.
 * Internal to libc/: programs use the POSIX functions (or syscall()).
 */
#ifndef LIBC_RAW_SYSCALL_H
#define LIBC_RAW_SYSCALL_H

/* raw_syscall6: issue system call n with six arguments; returns rax as is. */
static inline long raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The same with fewer arguments (the unused registers are passed as 0). */
#define raw_syscall0(n)             raw_syscall6((n), 0, 0, 0, 0, 0, 0)
#define raw_syscall1(n, a)          raw_syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define raw_syscall2(n, a, b)       raw_syscall6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define raw_syscall3(n, a, b, c)    raw_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define raw_syscall4(n, a, b, c, d) \
	raw_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* raw_is_error: true if a raw result encodes -errno. */
static inline int raw_is_error(long r)
{
	return (unsigned long)r > -4096UL;
}

/* sys_result: turn a raw result into the C convention: on -errno set errno
 * (translated to the C library's numbering) and return -1, else return r. */
long sys_result(long r);

/* errno_from_linux: the C library's errno value for Linux errno e. */
int errno_from_linux(int e);

#endif
