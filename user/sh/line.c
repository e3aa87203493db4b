/* user/sh/line.c -- read one command line.
 *
 * Pagoda's console is a terminal in canonical mode (kernel/console.c): the
 * kernel echoes what is typed, handles backspace and ^U, and hands over a
 * whole line at a time, as a Unix tty does. So the shell just reads bytes up
 * to the newline; ^D on an empty line (a read of 0 bytes) ends input. */
#include <unistd.h>
#include "sh.h"

int sh_readline(int fd, char *buf, size_t size, int interactive)
{
	size_t len = 0;
	char c;

	(void)interactive;
	for (;;) {
		ssize_t r = read(fd, &c, 1);
		if (r <= 0) {
			if (len == 0)
				return -1;
			break;	/* a last line without newline */
		}
		if (c == '\n' || c == '\r')
			break;
		if (len + 1 < size && (c == '\t' || (unsigned char)c >= ' '))
			buf[len++] = c;
	}
	buf[len] = '\0';
	return (int)len;
}
