/* lib/string.h -- the few mem/str functions the kernel needs. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "lib/types.h"

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
size_t strlcpy(char *d, const char *s, size_t n);

#endif
