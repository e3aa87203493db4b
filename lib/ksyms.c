/* lib/ksyms.c -- binary search in the generated symbol table. */
#include "lib/ksyms.h"
#include "lib/string.h"

/* Generated (sorted by address); see tools/gen-ksyms.sh. */
extern const uint64_t ksyms_count;
extern const uint64_t ksyms_addrs[];
extern const uint32_t ksyms_name_offsets[];
extern const char ksyms_names[];
extern const char _text_start[], _text_end[];

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	if (addr < (uint64_t)_text_start || addr >= (uint64_t)_text_end ||
	    ksyms_count == 0 || addr < ksyms_addrs[0])
		return NULL;
	uint64_t lo = 0, hi = ksyms_count;   /* invariant: addrs[lo] <= addr */
	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;
		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms_addrs[lo];
	return ksyms_names + ksyms_name_offsets[lo];
}

uint64_t ksym_address(const char *name)
{
	for (uint64_t i = 0; i < ksyms_count; i++)
		if (strcmp(ksyms_names + ksyms_name_offsets[i], name) == 0)
			return ksyms_addrs[i];
	return 0;
}
