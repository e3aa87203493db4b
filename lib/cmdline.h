/* lib/cmdline.h -- the kernel command line as key=value options.
 *
 * "test=mm ptshare=fork quiet" gives test -> "mm", ptshare -> "fork",
 * quiet -> "" (a bare word is a key with an empty value). Any subsystem may
 * query it after cmdline_parse() ran at boot.
 */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include "lib/types.h"

#define CMDLINE_MAX 512
#define CMDLINE_MAX_OPTS 32

/* Parse s (copied); later options with the same key override earlier ones.
 * Returns the number of options, or -1 if s was too long or had too many. */
int cmdline_parse(const char *s);

/* Value of key, or NULL if absent. */
const char *cmdline_get(const char *key);

/* Value of key, or def if absent. */
const char *cmdline_get_or(const char *key, const char *def);

/* Numeric value of key (decimal, 0x hex, optional K/M/G suffix), or def. */
uint64_t cmdline_get_u64(const char *key, uint64_t def);

/* True if key is present (with any value). */
bool cmdline_has(const char *key);

/* Is value one of the words in the comma-separated list? ("a,b", "b") */
bool cmdline_list_has(const char *list, const char *word);

/* The raw command line as given. */
const char *cmdline_raw(void);

#endif
