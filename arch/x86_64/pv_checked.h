/* arch/x86_64/pv_checked.h -- the checking pv backend (pv=checked). */
#ifndef ARCH_X86_64_PV_CHECKED_H
#define ARCH_X86_64_PV_CHECKED_H

#include "arch/x86_64/pte.h"

/* The rules the checking backend enforces, registered by the layer that owns
 * the page tables (mm/: mm_init registers mm/pt/ptwrite_check.c's rules). The
 * backend is the mechanism -- read-only tables, validated writes applied by
 * itself, lazy-MMU batches applied before flushes -- and knows no rule of
 * mm's: it asks these. All four are required. */
struct pv_check_ops {
	/* Called for every entry write, before it is made (or queued): why
	 * writing e into the level-`level` entry *ep breaks a rule, or NULL. */
	const char *(*entry_write)(const pte_t *ep, int level, pte_t e);
	/* The level of the page-table page at frame pa, or -1 if pa is not a
	 * page-table page (a faulting write into it is then not reported). */
	int (*table_level)(paddr_t pa);
	/* The 4 KiB direct-map entry that maps frame pa, or NULL. */
	pte_t *(*dmap_entry)(paddr_t pa);
	/* Once, at install, before the backend is on: map all RAM in the
	 * direct map with 4 KiB pages (so that one table can be made read-only
	 * alone), then call protect(pa) for every existing page-table page;
	 * returns how many there were. */
	unsigned (*install)(void (*protect)(paddr_t pa));
};

/* Register the rules (ops is kept, not copied). Before pv_init(). */
void pv_checked_register(const struct pv_check_ops *ops);

/* Make pv_ops the checking backend: have the registered ops split the
 * direct map over RAM into 4 KiB pages, map every page-table page read-only
 * there, and validate every entry write from now on. Once, from pv_init(),
 * before patching; panics if no ops were registered. */
void pv_checked_install(void);

/* A kernel page fault at addr from code at rip: if it is a write into a
 * page-table page that pv=checked protects, report it (naming the code)
 * and return true; else return false and print nothing. */
bool pv_checked_report_fault(uint64_t addr, uint64_t rip, bool write);

#endif
