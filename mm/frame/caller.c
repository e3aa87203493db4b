/* mm/frame/caller.c -- symbol names for mm/'s panic messages. */
#include "mm/frame/caller.h"
#ifndef PAGODA_HOST
#include "lib/ksyms.h"
#endif

const char *mm_symbol(const void *addr, uint64_t *off)
{
	(void)addr;
	*off = 0;
#ifndef PAGODA_HOST
	const char *s = ksym_lookup((uint64_t)addr, off);
	if (s)
		return s;
#endif
	return "?";
}
