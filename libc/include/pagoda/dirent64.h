/* pagoda/dirent64.h -- the record getdents64(2) (Linux number 217) writes:
 * Linux's struct linux_dirent64. Records are packed one after another, each
 * d_reclen bytes long (8-byte aligned), d_name NUL-terminated. The system
 * call returns the number of bytes written, 0 at the end of the directory,
 * EINVAL if the buffer cannot hold the next record, ENOTDIR for a
 * non-directory. */
#ifndef PAGODA_DIRENT64_H
#define PAGODA_DIRENT64_H

#include <stdint.h>

/* d_type values. */
#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t  d_off;
	uint16_t d_reclen;
	uint8_t  d_type;
	char     d_name[];
};

#endif
