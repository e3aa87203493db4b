/* sys/dirent.h -- directory streams for newlib's <dirent.h> (newlib's own
 * version of this file is an #error for bare targets). Entries come from
 * Linux's getdents64(2); struct dirent has musl's/glibc's field names. */
#ifndef _SYS_DIRENT_H
#define _SYS_DIRENT_H

#include <sys/types.h>

#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

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
