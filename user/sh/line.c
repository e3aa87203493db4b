/* user/sh/line.c -- read a command line, with echo and editing when the
 * input is a terminal. Pagoda's console hands the shell raw bytes (no echo,
 * no line discipline), so the shell does the editing itself. */
#include <unistd.h>
#include "sh.h"

#define CTRL(c) ((c) & 0x1f)
#define DEL 0x7f

/* echo: show s (n bytes) on the terminal. */
static void echo(const char *s, size_t n)
{
	(void)!write(1, s, n);
}

int sh_readline(int fd, char *buf, size_t size, int interactive)
{
	size_t len = 0;
	char c;

	for (;;) {
		ssize_t r = read(fd, &c, 1);
		if (r <= 0 || (interactive && c == CTRL('D') && len == 0)) {
			if (len == 0)
				return -1;
			break;	/* a last line without newline */
		}
		if (c == '\n' || c == '\r') {
			if (interactive)
				echo("\n", 1);
			break;
		}
		if (interactive && (c == DEL || c == '\b')) {
			if (len > 0) {
				len--;
				echo("\b \b", 3);
			}
		} else if (interactive && c == CTRL('U')) {
			for (; len > 0; len--)
				echo("\b \b", 3);
		} else if (len + 1 < size && (c == '\t' || (unsigned char)c >= ' ')) {
			buf[len++] = c;
			if (interactive)
				echo(&c, 1);
		}
	}
	buf[len] = '\0';
	return (int)len;
}
