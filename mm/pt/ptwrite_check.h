/* mm/pt/ptwrite_check.h -- the VM's rules for one page-table entry write,
 * which the checking pv backend (pv=checked, arch/x86_64/pv_checked.c)
 * enforces on every write, in the way a hypervisor validates a guest's
 * page-table updates. mm_init registers them (ptwrite_check_ops); the
 * backend knows only the mechanism. */
#ifndef MM_PTWRITE_CHECK_H
#define MM_PTWRITE_CHECK_H

#include "arch/x86_64/pte.h"
#include "arch/x86_64/pv_checked.h"

/* Why writing e into entry *ep of a level-`level` table would break an
 * invariant, or NULL if it is fine:
 *   - ep lies in a page-table page of that level;
 *   - a table entry points at a page-table page of the next level, and is
 *     not writable when that page is shared (share > 1): no writable leaf
 *     may be reachable through a writable entry into a shared PT page;
 *   - a leaf written into a shared PT page is not writable;
 *   - a user leaf maps a RAM frame of a user type (anonymous or file) that
 *     has a reference -- never a kernel, page-table, free or reserved one;
 *   - a private writable user leaf maps a frame with one reference (more
 *     means another mapping would see its writes: broken copy-on-write);
 *   - a kernel 4 KiB leaf never maps a page-table page writable. */
const char *ptwrite_check(const pte_t *ep, int level, pte_t e);

/* What pv=checked asks mm (arch/x86_64/pv_checked.h): ptwrite_check per
 * entry write; the level of a frame that is a page-table page (for
 * reporting a raw write into it); the direct-map entry of a frame
 * (mm/pt/kvm.c); and, at install, the direct map split to 4 KiB pages and
 * every existing page-table page handed to protect(). */
extern const struct pv_check_ops ptwrite_check_ops;

#endif
