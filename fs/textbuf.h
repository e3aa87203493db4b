/* fs/textbuf.h -- a growing text buffer for files made on read (/proc).
 *
 * tb_printf appends formatted text (lib/format.h's conversions), growing
 * the buffer with kmalloc as needed up to TEXTBUF_MAX bytes. When memory runs
 * out or the limit is reached, the text is cut there and tb->error says
 * -ENOMEM; later appends are ignored. The buffer belongs to the textbuf:
 * tb_free releases it.
 */
#ifndef FS_TEXTBUF_H
#define FS_TEXTBUF_H

#include "lib/types.h"

#define TEXTBUF_MAX (256 * 1024)

struct textbuf {
	char *buf;
	size_t len, cap;
	int error;        /* 0, or -ENOMEM once an append did not fit */
};

/* Append formatted text. */
void tb_printf(struct textbuf *tb, const char *fmt, ...) __printf(2, 3);

/* Append n bytes (NULs included: /proc/PID/cmdline). */
void tb_write(struct textbuf *tb, const char *s, size_t n);

/* Append spaces until the current line is col characters long (at least
 * one space: Linux's seq_pad for the path column of maps). */
void tb_pad_to(struct textbuf *tb, size_t col);

/* Free the buffer; tb is empty again. */
void tb_free(struct textbuf *tb);

#endif
