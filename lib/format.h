/* lib/format.h -- printf-style formatting shared by printk and ksnprintf.
 *
 * Supported: %d %i %u %x %X %o %p %s %c %% with flags '-', '0', '#', width,
 * precision for %s, and length modifiers l, ll, z, h, hh.
 */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include "lib/types.h"

typedef void (*format_out_t)(char c, void *arg);

/* Format fmt/ap, emitting each character through out(c, arg).
 * Returns the number of characters emitted. */
int format(format_out_t out, void *arg, const char *fmt, va_list ap);

/* snprintf: writes at most size-1 characters plus NUL; returns the length the
 * full output would have had. */
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
