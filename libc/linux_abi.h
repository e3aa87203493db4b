/* libc/linux_abi.h -- Linux x86-64 kernel ABI constants and structures that
 * differ from newlib's own, and the translators between the two (abi_map.c).
 * Internal to libc/. Everything the program sees is newlib's numbering; the
 * glue converts at the system call boundary. */
#ifndef LIBC_LINUX_ABI_H
#define LIBC_LINUX_ABI_H

#include <stdint.h>

/* Flag bits, clock ids, ioctl and reboot numbers (LINUX_*; shared with the
 * kernel). */
#include <pagoda/abi-linux.h>

/* The kernel's struct stat (struct linux_stat). */
#include <pagoda/abi-stat.h>

/* rt_sigprocmask's `how` and sigset size (libc/signal.c, libc/pthread.c). */
#define LINUX_SIG_BLOCK 0
#define LINUX_SIG_UNBLOCK 1
#define LINUX_SIG_SETMASK 2
#define LINUX_SIGSET_SIZE 8

/* Linux's clock ticks per second for times(2) (USER_HZ). */
#define LINUX_USER_HZ 100

/* Translators, abi_map.c. Each returns -1 for a value it cannot express. */
long open_flags_to_linux(int flags);
/* Linux's open/status flag bits -> newlib's (bits newlib lacks dropped). */
int open_flags_from_linux(long flags);
int clock_to_linux(int clock_id);
int signal_to_linux(int sig);
int signal_from_linux(int sig);
int wait_status_from_linux(int status);

#endif
