/* libc/start.h -- what start.c leaves for the rest of libc/. */
#ifndef LIBC_START_H
#define LIBC_START_H

/* The aux vector the kernel passed: (type, value) pairs up to AT_NULL. */
extern const unsigned long *__pagoda_auxv;

void __pagoda_start(long *sp) __attribute__((noreturn));

#endif
