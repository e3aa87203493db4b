/* sys/syscall.h -- Linux x86-64 system call numbers (the ones Pagoda's libc
 * and programs use), plus Pagoda's own (pagoda/syscall.h). Same names as
 * Linux's <sys/syscall.h>, so programs written for musl compile here too. */
#ifndef _SYS_SYSCALL_H
#define _SYS_SYSCALL_H

#include <pagoda/syscall.h>

#define SYS_read            0
#define SYS_write           1
#define SYS_open            2
#define SYS_close           3
#define SYS_fstat           5
#define SYS_lseek           8
#define SYS_mmap            9
#define SYS_mprotect        10
#define SYS_munmap          11
#define SYS_brk             12
#define SYS_rt_sigaction    13
#define SYS_rt_sigprocmask  14
#define SYS_rt_sigreturn    15
#define SYS_ioctl           16
#define SYS_pread64         17
#define SYS_pwrite64        18
#define SYS_fsync           74
#define SYS_fdatasync       75
#define SYS_sync            162
#define SYS_syncfs          306
#define SYS_writev          20
#define SYS_access          21
#define SYS_pipe            22
#define SYS_sched_yield     24
#define SYS_mremap          25
#define SYS_msync           26
#define SYS_mincore         27
#define SYS_madvise         28
#define SYS_dup             32
#define SYS_dup2            33
#define SYS_pause           34
#define SYS_nanosleep       35
#define SYS_getitimer       36
#define SYS_alarm           37
#define SYS_setitimer       38
#define SYS_getpid          39
#define SYS_clone           56
#define SYS_fork            57
#define SYS_vfork           58
#define SYS_execve          59
#define SYS_exit            60
#define SYS_wait4           61
#define SYS_kill            62
#define SYS_uname           63
#define SYS_getcwd          79
#define SYS_chdir           80
#define SYS_fchdir          81
#define SYS_rename          82
#define SYS_rmdir           84
#define SYS_link            86
#define SYS_unlink          87
#define SYS_symlink         88
#define SYS_chmod           90
#define SYS_fchmod          91
#define SYS_umask           95
#define SYS_truncate        76
#define SYS_ftruncate       77
#define SYS_lstat           6
#define SYS_readlink        89
#define SYS_times           100
#define SYS_getuid          102
#define SYS_getgid          104
#define SYS_setuid          105
#define SYS_geteuid         107
#define SYS_getegid         108
#define SYS_getppid         110
#define SYS_rt_sigpending   127
#define SYS_rt_sigsuspend   130
#define SYS_setrlimit       160
#define SYS_reboot          169
#define SYS_statfs          137
#define SYS_mount           165
#define SYS_umount2         166
#define SYS_swapon          167
#define SYS_swapoff         168
#define SYS_arch_prctl      158
#define SYS_gettid          186
#define SYS_tkill           200
#define SYS_futex           202
#define SYS_sched_getaffinity 204
#define SYS_set_tid_address 218
#define SYS_getdents64      217
#define SYS_clock_gettime   228
#define SYS_clock_nanosleep 230
#define SYS_exit_group      231
#define SYS_tgkill          234
#define SYS_newfstatat      262
#define SYS_set_robust_list 273
#define SYS_get_robust_list 274
#define SYS_dup3            292
#define SYS_pipe2           293

#endif
