/* kernel/syscall.h -- system calls: Linux x86-64 numbers and conventions.
 *
 * rax = number; rdi, rsi, rdx, r10, r8, r9 = arguments; the result (or
 * -errno) goes back in rax. Unknown numbers return -ENOSYS. Pagoda's own
 * calls (numbers from 1000) are documented in libc/include/pagoda/.
 */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "lib/types.h"

typedef long (*syscall_fn)(const uint64_t arg[6]);

struct syscall_entry {
	unsigned nr;
	const char *name;
	syscall_fn fn;
};

/* Each sys_*.c file provides a table; syscall.c builds the dispatch array. */
extern const struct syscall_entry sys_proc_table[], sys_file_table[], sys_path_table[], sys_lock_table[],
	sys_mem_table[], sys_misc_table[], sys_itimer_table[], sys_pagoda_table[], sys_signal_table[],
	sys_futex_table[], sys_thread_table[], sys_swap_table[];

/* Build the dispatch array from those tables. Once, at boot; panics on a
 * bad or duplicate number. */
void syscall_table_init(void);

/* Linux numbers used by the tables. */
enum {
	SYS_read = 0, SYS_write = 1, SYS_open = 2, SYS_close = 3, SYS_stat = 4,
	SYS_fstat = 5, SYS_lstat = 6, SYS_poll = 7, SYS_lseek = 8, SYS_mmap = 9,
	SYS_mprotect = 10, SYS_munmap = 11, SYS_brk = 12, SYS_rt_sigaction = 13,
	SYS_rt_sigprocmask = 14, SYS_rt_sigreturn = 15, SYS_ioctl = 16, SYS_pread64 = 17, SYS_pwrite64 = 18, SYS_readv = 19, SYS_writev = 20,
	SYS_access = 21, SYS_readlink = 89, SYS_readlinkat = 267, SYS_pipe = 22, SYS_sched_yield = 24, SYS_mremap = 25, SYS_msync = 26, SYS_mincore = 27, SYS_madvise = 28,
	SYS_dup = 32, SYS_dup2 = 33, SYS_pause = 34, SYS_nanosleep = 35, SYS_getitimer = 36,
	SYS_alarm = 37, SYS_setitimer = 38, SYS_getpid = 39,
	SYS_clone = 56, SYS_fork = 57, SYS_vfork = 58, SYS_execve = 59, SYS_exit = 60,
	SYS_wait4 = 61, SYS_kill = 62, SYS_uname = 63, SYS_fcntl = 72, SYS_flock = 73, SYS_fsync = 74, SYS_fdatasync = 75,
	SYS_getcwd = 79, SYS_sysinfo = 99, SYS_chdir = 80, SYS_gettimeofday = 96, SYS_times = 100,
	SYS_getuid = 102, SYS_getgid = 104, SYS_geteuid = 107, SYS_getegid = 108,
	SYS_getppid = 110, SYS_arch_prctl = 158, SYS_sync = 162, SYS_reboot = 169, SYS_syncfs = 306,
	SYS_rt_sigpending = 127, SYS_rt_sigsuspend = 130, SYS_gettid = 186, SYS_tkill = 200, SYS_time = 201, SYS_getdents64 = 217,
	SYS_set_tid_address = 218, SYS_clock_gettime = 228, SYS_clock_nanosleep = 230, SYS_exit_group = 231,
	SYS_tgkill = 234, SYS_futex = 202, SYS_sched_setaffinity = 203,
	SYS_sched_getaffinity = 204, SYS_set_robust_list = 273, SYS_get_robust_list = 274, SYS_openat = 257, SYS_newfstatat = 262, SYS_dup3 = 292, SYS_pipe2 = 293,
	SYS_getcpu = 309,
	SYS_truncate = 76, SYS_ftruncate = 77, SYS_fchdir = 81, SYS_rename = 82, SYS_mkdir = 83,
	SYS_rmdir = 84, SYS_creat = 85, SYS_link = 86, SYS_unlink = 87, SYS_symlink = 88,
	SYS_chmod = 90, SYS_fchmod = 91, SYS_umask = 95, SYS_mknod = 133, SYS_statfs = 137,
	SYS_fstatfs = 138, SYS_mount = 165, SYS_umount2 = 166, SYS_mkdirat = 258, SYS_mknodat = 259,
	SYS_unlinkat = 263, SYS_renameat = 264, SYS_linkat = 265, SYS_symlinkat = 266,
	SYS_fchmodat = 268, SYS_faccessat = 269, SYS_renameat2 = 316, SYS_getrandom = 318,
	SYS_swapon = 167, SYS_swapoff = 168,
	SYS_utimensat = 280, SYS_fallocate = 285, SYS_fadvise64 = 221, SYS_statx = 332,
};
/* SYS_pagoda_*: shared with user space */
#include "libc/include/pagoda/syscall.h"

#define NSYSCALLS 1024

#endif
