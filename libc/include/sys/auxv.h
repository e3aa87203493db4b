/* sys/auxv.h -- the ELF auxiliary vector the kernel put on the stack. */
#ifndef _SYS_AUXV_H
#define _SYS_AUXV_H

#define AT_NULL    0
#define AT_PHDR    3
#define AT_PHENT   4
#define AT_PHNUM   5
#define AT_PAGESZ  6
#define AT_ENTRY   9
#define AT_UID     11
#define AT_EUID    12
#define AT_GID     13
#define AT_EGID    14
#define AT_HWCAP   16
#define AT_CLKTCK  17
#define AT_SECURE  23
#define AT_RANDOM  25
#define AT_EXECFN  31

/* getauxval: the value of entry type, or 0 (errno ENOENT) if absent. */
unsigned long getauxval(unsigned long type);

#endif
