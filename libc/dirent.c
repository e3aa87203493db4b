/* libc/dirent.c -- opendir/readdir/closedir over getdents64(2). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pagoda/dirent64.h>
#include "raw_syscall.h"

/* fdopendir: a stream over the open directory fd (the stream owns it). */
DIR *fdopendir(int fd)
{
	DIR *d = malloc(sizeof *d);

	if (d == NULL)
		return NULL;	/* errno ENOMEM from malloc */
	d->fd = fd;
	d->pos = d->len = 0;
	return d;
}

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (d == NULL)
		close(fd);
	return d;
}

/* readdir: the next entry, or NULL at the end (errno unchanged) or on an
 * error (errno set). The entry is valid until the next call. */
struct dirent *readdir(DIR *d)
{
	const struct linux_dirent64 *rec;
	long n;

	if (d->pos >= d->len) {
		n = sys_result(raw_syscall3(SYS_getdents64, d->fd, d->buf, sizeof d->buf));
		if (n <= 0)
			return NULL;
		d->pos = 0;
		d->len = (int)n;
	}
	rec = (const struct linux_dirent64 *)(d->buf + d->pos);
	d->pos += rec->d_reclen;
	d->ent.d_ino = (ino_t)rec->d_ino;
	d->ent.d_off = rec->d_off;
	d->ent.d_reclen = rec->d_reclen;
	d->ent.d_type = rec->d_type;
	strncpy(d->ent.d_name, rec->d_name, sizeof d->ent.d_name - 1);
	d->ent.d_name[sizeof d->ent.d_name - 1] = '\0';
	return &d->ent;
}

/* rewinddir: start the stream over from the first entry. */
void rewinddir(DIR *d)
{
	lseek(d->fd, 0, SEEK_SET);
	d->pos = d->len = 0;
}

/* dirfd: the descriptor under the stream. */
int dirfd(DIR *d)
{
	return d->fd;
}

/* closedir: close the stream and its descriptor. */
int closedir(DIR *d)
{
	int r = close(d->fd);

	free(d);
	return r;
}
