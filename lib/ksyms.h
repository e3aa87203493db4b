/* lib/ksyms.h -- kernel symbol table for backtraces.
 * The table is generated from the first link (tools/gen-ksyms.sh) and linked
 * into the final kernel image's .ksyms section. */
#ifndef LIB_KSYMS_H
#define LIB_KSYMS_H

#include "lib/types.h"

/* Name of the function containing addr and addr's offset in it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

/* Address of a function by name, or 0. */
uint64_t ksym_address(const char *name);

#endif
