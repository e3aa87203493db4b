/* sys/dirent.h -- directory streams for newlib's <dirent.h> (newlib's own
 * version of this file is an #error for bare targets). Entries come from
 * Linux's getdents64(2); struct dirent has musl's/glibc's field names. */
#ifndef _SYS_DIRENT_H
#define _SYS_DIRENT_H

#include <sys/types.h>

#include <pagoda/dirent64.h>  /* DT_* (shared with the kernel) */

struct dirent {
	ino_t          d_ino;        /* inode number                      */
	off_t          d_off;        /* position of the next entry        */
	unsigned short d_reclen;     /* size of this record (in the kernel) */
	unsigned char  d_type;       /* DT_*                              */
	char           d_name[256];  /* NUL-terminated name               */
};

#define DIR_BUF_SIZE 2048

/* An open directory: its descriptor and a buffer of raw getdents64 records
 * (buf[pos..len) not yet returned), plus the entry readdir hands out. */
typedef struct {
	int fd;
	int pos, len;
	struct dirent ent;
	char buf[DIR_BUF_SIZE] __attribute__((aligned(8)));
} DIR;

#endif
