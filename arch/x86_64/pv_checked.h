/* arch/x86_64/pv_checked.h -- the checking pv backend (pv=checked). */
#ifndef ARCH_X86_64_PV_CHECKED_H
#define ARCH_X86_64_PV_CHECKED_H

#include "lib/types.h"

/* Make pv_ops the checking backend: split the direct map over RAM into
 * 4 KiB pages, map every page-table page read-only there, and validate
 * every entry write from now on. Once, from pv_init(), before patching. */
void pv_checked_install(void);

/* A kernel page fault at addr from code at rip: if it is a write into a
 * page-table page that pv=checked protects, report it (naming the code)
 * and return true; else return false and print nothing. */
bool pv_checked_report_fault(uint64_t addr, uint64_t rip, bool write);

#endif
