/* unistd.h -- newlib's, plus the Linux-flavoured extras Pagoda's libc
 * implements (musl declares the same ones in its <unistd.h>). */
#ifndef PAGODA_UNISTD_H
#define PAGODA_UNISTD_H

#include_next <unistd.h>

/* brk: set the program break to addr; 0, or -1 with errno ENOMEM. */
int brk(void *addr);

/* syscall: issue Linux system call number with up to six long arguments;
 * the result, or -1 with errno (translated to this libc's numbering). */
long syscall(long number, ...);

#endif
