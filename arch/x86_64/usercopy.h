/* arch/x86_64/usercopy.h -- raw user-memory access with fault fix-ups
 * (arch/x86_64/usercopy.asm). Callers check ranges first (mm/uaccess.c). */
#ifndef ARCH_X86_64_USERCOPY_H
#define ARCH_X86_64_USERCOPY_H

#include "lib/types.h"

long arch_copy_user(void *dst, const void *src, uint64_t n);
long arch_strncpy_user(char *dst, const char *usrc, uint64_t max);
long arch_clear_user(void *udst, uint64_t n);
long arch_cmpxchg_user32(uint32_t *uaddr, uint32_t old, uint32_t new, uint32_t *seen);

#endif
