/* pagoda/abi-linux.h -- Linux x86-64 system-call flag bits, ids and magic
 * numbers whose plain names newlib gives other values (newlib's <fcntl.h>
 * and <time.h> are BSD-style), so both users spell them LINUX_*: the kernel,
 * which speaks only Linux's, and the newlib glue (libc/linux_abi.h), which
 * translates. Plain #defines only: the freestanding kernel includes it. */
#ifndef PAGODA_ABI_LINUX_H
#define PAGODA_ABI_LINUX_H

/* open(2) flags (octal, as in <asm-generic/fcntl.h>). */
#define LINUX_O_RDONLY     0
#define LINUX_O_WRONLY     1
#define LINUX_O_RDWR       2
#define LINUX_O_ACCMODE    3
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

/* fcntl(2) commands and the close-on-exec descriptor flag. */
#define LINUX_F_DUPFD          0
#define LINUX_F_GETFD          1
#define LINUX_F_SETFD          2
#define LINUX_F_GETFL          3
#define LINUX_F_SETFL          4
#define LINUX_F_DUPFD_CLOEXEC  1030
#define LINUX_FD_CLOEXEC       1

/* *at(2) calls. */
#define LINUX_AT_FDCWD      (-100)
#define LINUX_AT_EMPTY_PATH 0x1000

/* Clock ids. */
#define LINUX_CLOCK_REALTIME           0
#define LINUX_CLOCK_MONOTONIC          1
#define LINUX_CLOCK_PROCESS_CPUTIME_ID 2
#define LINUX_CLOCK_MONOTONIC_RAW      4
#define LINUX_CLOCK_BOOTTIME           7
#define LINUX_TIMER_ABSTIME            1   /* clock_nanosleep: the time is a deadline */

/* Terminal ioctls: read the settings (the kernel's struct termios: four
 * flag words, c_line and 19 control characters, LINUX_TERMIOS_SIZE bytes;
 * glibc's larger user-space struct termios is not what TCGETS writes),
 * read the window size. */
#define LINUX_TCGETS       0x5401
#define LINUX_TIOCGWINSZ   0x5413
#define LINUX_TERMIOS_SIZE 36

/* futex(2) operations and flags (kernel/futex.c; libc/pthread*.c). */
#define LINUX_FUTEX_WAIT            0
#define LINUX_FUTEX_WAKE            1
#define LINUX_FUTEX_REQUEUE         3
#define LINUX_FUTEX_CMP_REQUEUE     4
#define LINUX_FUTEX_WAIT_BITSET     9
#define LINUX_FUTEX_WAKE_BITSET     10
#define LINUX_FUTEX_PRIVATE         128
#define LINUX_FUTEX_CLOCK_REALTIME  256

/* reboot(2) magic numbers and commands. */
#define LINUX_REBOOT_MAGIC1         0xfee1deadL
#define LINUX_REBOOT_MAGIC2         672274793L
#define LINUX_REBOOT_CMD_RESTART    0x01234567
#define LINUX_REBOOT_CMD_POWER_OFF  0x4321fedc
#define LINUX_REBOOT_CMD_HALT       0xcdef0123

#endif
