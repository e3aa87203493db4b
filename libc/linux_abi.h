/* libc/linux_abi.h -- Linux x86-64 kernel ABI constants and structures that
 * differ from newlib's own, and the translators between the two (abi_map.c).
 * Internal to libc/. Everything the program sees is newlib's numbering; the
 * glue converts at the system call boundary. */
#ifndef LIBC_LINUX_ABI_H
#define LIBC_LINUX_ABI_H

#include <stdint.h>

/* open(2) flags, Linux values (octal, as in <asm-generic/fcntl.h>). */
#define LINUX_O_CREAT      0100
#define LINUX_O_EXCL       0200
#define LINUX_O_NOCTTY     0400
#define LINUX_O_TRUNC      01000
#define LINUX_O_APPEND     02000
#define LINUX_O_NONBLOCK   04000
#define LINUX_O_SYNC       04010000
#define LINUX_O_DIRECTORY  0200000
#define LINUX_O_NOFOLLOW   0400000
#define LINUX_O_CLOEXEC    02000000

#define LINUX_AT_FDCWD     (-100)

/* Clock ids. */
#define LINUX_CLOCK_REALTIME           0
#define LINUX_CLOCK_MONOTONIC          1
#define LINUX_CLOCK_PROCESS_CPUTIME_ID 2

/* ioctl: read the terminal settings (struct termios, 60 bytes is ample);
 * answered only by terminals. */
#define LINUX_TCGETS       0x5401
#define LINUX_TERMIOS_SIZE 60

/* reboot(2) magic numbers and commands. */
#define LINUX_REBOOT_MAGIC1 0xfee1deadL
#define LINUX_REBOOT_MAGIC2 672274793L

/* The kernel's struct stat (struct linux_stat). */
#include <pagoda/abi-stat.h>

/* Linux's clock ticks per second for times(2) (USER_HZ). */
#define LINUX_USER_HZ 100

/* Translators, abi_map.c. Each returns -1 for a value it cannot express. */
long open_flags_to_linux(int flags);
int clock_to_linux(int clock_id);
int signal_to_linux(int sig);
int signal_from_linux(int sig);
int wait_status_from_linux(int status);

#endif
