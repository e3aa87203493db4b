/* user/cat.c -- cat [FILE...]: copy each file (or stdin; "-" is stdin) to
 * stdout. Exit 1 if any file could not be read. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* copy: all of fd to stdout; 0, or -1 on a read or write error. */
static int copy(int fd)
{
	static char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t done = 0, w; done < n; done += w)
			if ((w = write(1, buf + done, (size_t)(n - done))) <= 0)
				return -1;
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return copy(0) < 0;
	for (int i = 1; i < argc; i++) {
		int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
		if (fd < 0 || copy(fd) < 0) {
			fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
		if (fd > 0)
			close(fd);
	}
	return status;
}
