/* fs/textbuf.c -- growing text buffers (fs/textbuf.h). */
#include "fs/textbuf.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

/* Make room for one more byte; false (and tb->error set) if impossible. */
static bool tb_grow(struct textbuf *tb)
{
	if (tb->error)
		return false;
	if (tb->len < tb->cap)
		return true;
	size_t cap = tb->cap ? tb->cap * 2 : 1024;
	char *nb = cap <= TEXTBUF_MAX ? kmalloc(cap) : NULL;
	if (!nb) {
		tb->error = -ENOMEM;
		return false;
	}
	if (tb->buf)
		memcpy(nb, tb->buf, tb->len);
	kfree(tb->buf);
	tb->buf = nb;
	tb->cap = cap;
	return true;
}

static void tb_putc(char c, void *arg)
{
	struct textbuf *tb = arg;
	if (tb_grow(tb))
		tb->buf[tb->len++] = c;
}

void tb_printf(struct textbuf *tb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format(tb_putc, tb, fmt, ap);
	va_end(ap);
}

void tb_write(struct textbuf *tb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tb_putc(s[i], tb);
}

void tb_pad_to(struct textbuf *tb, size_t col)
{
	size_t start = tb->len;
	while (start > 0 && tb->buf[start - 1] != '\n')
		start--;
	do
		tb_putc(' ', tb);
	while (!tb->error && tb->len - start < col);
}

void tb_free(struct textbuf *tb)
{
	kfree(tb->buf);
	*tb = (struct textbuf){ 0 };
}
