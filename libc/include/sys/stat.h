/* sys/stat.h -- newlib's, plus lstat, which newlib declares only for a few
 * systems (musl declares it in its own <sys/stat.h>). */
#ifndef PAGODA_SYS_STAT_H
#define PAGODA_SYS_STAT_H

#include_next <sys/stat.h>

/* lstat: stat of a symbolic link itself (newfstatat with
 * AT_SYMLINK_NOFOLLOW); 0, or -1 with errno. */
int lstat(const char *__restrict path, struct stat *__restrict st);

#endif
