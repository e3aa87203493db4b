/* user/sh/line.c -- read a command line, echoing and editing it when the
 * terminal does not (Pagoda's console, like a Linux tty in canonical mode,
 * echoes and handles backspace itself and says so with ECHO in its termios;
 * a raw line or `sh -i` on a pipe gets the shell's own editing). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include "sh.h"

#define LINUX_TCGETS      0x5401  /* ioctl: read struct termios           */
#define TERMIOS_LFLAG_OFF 12      /* c_lflag: after c_iflag/oflag/cflag   */
#define TERMIOS_ECHO      0x8     /* c_lflag bit: the terminal echoes     */

int sh_terminal_echoes(int fd)
{
	unsigned char t[60] = { 0 };

	if (syscall(SYS_ioctl, fd, LINUX_TCGETS, t) != 0)
		return 0;
	return (t[TERMIOS_LFLAG_OFF] & TERMIOS_ECHO) != 0;
}

#define CTRL(c) ((c) & 0x1f)
#define DEL 0x7f

/* echo: show s (n bytes) on the terminal. */
static void echo(const char *s, size_t n)
{
	(void)!write(1, s, n);
}

int sh_readline(int fd, char *buf, size_t size, int edit)
{
	size_t len = 0;
	char c;

	for (;;) {
		ssize_t r = read(fd, &c, 1);
		if (r <= 0 || (edit && c == CTRL('D') && len == 0)) {
			if (len == 0)
				return -1;
			break;	/* a last line without newline */
		}
		if (c == '\n' || c == '\r') {
			if (edit)
				echo("\n", 1);
			break;
		}
		if (edit && (c == DEL || c == '\b')) {
			if (len > 0) {
				len--;
				echo("\b \b", 3);
			}
		} else if (edit && c == CTRL('U')) {
			for (; len > 0; len--)
				echo("\b \b", 3);
		} else if (len + 1 < size && (c == '\t' || (unsigned char)c >= ' ')) {
			buf[len++] = c;
			if (edit)
				echo(&c, 1);
		}
	}
	buf[len] = '\0';
	return (int)len;
}
