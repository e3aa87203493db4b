/* sys/utsname.h -- uname(2), Linux layout (struct new_utsname: six
 * NUL-terminated fields of 65 bytes). */
#ifndef _SYS_UTSNAME_H
#define _SYS_UTSNAME_H

#define _UTSNAME_LENGTH 65

struct utsname {
	char sysname[_UTSNAME_LENGTH];    /* "Pagoda" (or "Linux") */
	char nodename[_UTSNAME_LENGTH];
	char release[_UTSNAME_LENGTH];
	char version[_UTSNAME_LENGTH];
	char machine[_UTSNAME_LENGTH];    /* "x86_64" */
	char domainname[_UTSNAME_LENGTH];
};

/* uname: fill *u; 0, or -1 with errno (EFAULT). */
int uname(struct utsname *u);

#endif
