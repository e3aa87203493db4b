/* libc/errno_map.c -- Linux errno numbers -> the C library's errno numbers.
 *
 * The kernel speaks Linux errno values. musl uses the same numbers, but
 * newlib's <errno.h> agrees with Linux only from EPERM (1) to ERANGE (34):
 * above that newlib has its own numbering (ENOSYS is 88 there, 38 in
 * Linux). This file is the single place that translates. It is built into
 * both libcs' programs (libc/pagoda.c needs it); with musl it is the identity.
 */
#include <errno.h>
#include "raw_syscall.h"

#ifdef __NEWLIB__
/* Linux numbers above ERANGE that programs may meet, and newlib's names. */
static const struct { short linux_no, libc_no; } errno_table[] = {
	{ 35, EDEADLK },      { 36, ENAMETOOLONG }, { 37, ENOLCK },
	{ 38, ENOSYS },       { 39, ENOTEMPTY },    { 40, ELOOP },
	{ 42, ENOMSG },       { 43, EIDRM },        { 61, ENODATA },
	{ 62, ETIME },        { 71, EPROTO },       { 74, EBADMSG },
	{ 75, EOVERFLOW },    { 84, EILSEQ },       { 88, ENOTSOCK },
	{ 95, EOPNOTSUPP },   { 110, ETIMEDOUT },   { 122, EDQUOT },
	{ 125, ECANCELED },   { 130, EOWNERDEAD },  { 131, ENOTRECOVERABLE },
};

int errno_from_linux(int e)
{
	if (e <= ERANGE)
		return e;
	for (unsigned i = 0; i < sizeof errno_table / sizeof errno_table[0]; i++)
		if (errno_table[i].linux_no == e)
			return errno_table[i].libc_no;
	return EIO;	/* a Linux error newlib has no name for */
}
#else
int errno_from_linux(int e)
{
	return e;
}
#endif

/* sys_result: see raw_syscall.h. */
long sys_result(long r)
{
	if (raw_is_error(r)) {
		errno = errno_from_linux((int)-r);
		return -1;
	}
	return r;
}
