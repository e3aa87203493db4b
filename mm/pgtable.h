/* mm/pgtable.h -- address spaces as page tables: map, unmap, protect and
 * look up 4 KiB pages.
 *
 *   struct pagetable --root--> PML4  [0..255]  user half, private
 *                                    [256..511] kernel half: the same PDPT
 *                                               pages in every PML4
 *
 * Frame references: a mapping owns one reference on the frame it maps.
 * pgt_map() TAKES OVER the caller's reference (it does not page_get), and
 * pgt_unmap() / pgt_destroy() drop it (page_put). Frames outside the frame
 * database or of type PG_RESERVED (MMIO) are mapped without references.
 */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include "mm/page.h"
#include "arch/x86_64/pte.h"

struct pagetable {
	struct page *root;       /* the PML4 page */
	uint64_t nr_tables;      /* table pages below the PML4 (private) */
};

/* Protection for pgt_map/pgt_protect; PGT_R/W/X equal PROT_READ/WRITE/EXEC.
 * The user bit follows the address (user half: U, kernel half: global). A
 * user mapping with none of R/W/X (PGT_NONE) keeps its frame in a PROT_NONE
 * entry that is not present: every access faults, the kernel's too. */
#define PGT_NONE 0x0
#define PGT_R 0x1
#define PGT_W 0x2
#define PGT_X 0x4
#define PGT_COW 0x10      /* software: copy on write (mapped read-only) */
#define PGT_FILE 0x20     /* software: file-backed frame */
#define PGT_SHARED 0x40   /* software: MAP_SHARED */

/* The kernel's page table (mm/kvm.c); every user PML4 shares its upper half. */
extern struct pagetable kernel_pgt;

/* A new user address space: empty user half, kernel half shared. NULL when
 * out of memory. */
struct pagetable *pgt_create(void);

/* Free every user table page of pgt and its PML4, dropping the reference of
 * every mapped frame (or just the share of a shared PT page). pgt must not
 * be the active one. */
void pgt_destroy(struct pagetable *pgt);

/* Map the page at va (page aligned) to frame pa with prot. Returns 0, or
 * -ENOMEM (nothing changed). Panics if va is already mapped. */
int pgt_map(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot);

/* Map [va, va + len) to [pa, pa + len) page by page; all or nothing. */
int pgt_map_range(struct pagetable *pgt, vaddr_t va, paddr_t pa, uint64_t len,
		  unsigned prot);

/* Remove the mapping of va, flush it, drop the frame reference, and free the
 * page-table pages that became empty. Panics if va is not mapped. */
void pgt_unmap(struct pagetable *pgt, vaddr_t va);

/* Change the protection of the mapping of va (keeps the frame, accessed,
 * dirty and other software bits) and flush it. Returns 0, or -ENOENT if va
 * is not mapped (or not canonical). */
int pgt_protect(struct pagetable *pgt, vaddr_t va, unsigned prot);

/* Entry e (a present 4 KiB leaf at va) with protection prot: frame,
 * accessed, dirty and software bits kept. A private user entry gets W only
 * when its frame is anonymous and mapped once (Linux's
 * can_change_pte_writable); otherwise it stays, or becomes, copy-on-write. */
pte_t pgt_protect_entry(pte_t e, vaddr_t va, unsigned prot);

/* Is va mapped (by a 4 KiB, 2 MiB or 1 GiB page, or a PROT_NONE entry:
 * then *flags lacks PTE_P)? Any va may be asked
 * (non-canonical ones are not mapped). Then *pa = its physical
 * address (with va's offset) and *flags = the leaf entry's flag bits (test
 * them with the pte.h accessors). Either pointer may be NULL. */
bool pgt_lookup(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags);

/* pgt_lookup before a leaf write at user address va: the same walk first
 * makes a shared PT page mapping va private (mm/walk.h's write flag; a
 * no-op when the PD entry is writable), so *flags is the entry the write
 * will change. 1 if mapped, 0 if not, -ENOMEM if unsharing failed. */
int pgt_lookup_write(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags);

/* Make pgt the current address space (load CR3). */
void pgt_activate(struct pagetable *pgt);

/* Physical address of pgt's PML4 (the CR3 value). */
paddr_t pgt_root_pa(const struct pagetable *pgt);

/* Is pgt the address space the CPU is using now? */
bool pgt_active(const struct pagetable *pgt);

/* Present leaf entries (4 KiB pages) in pgt's user half less those mapping
 * the shared zero page (which is not resident, as on Linux): the resident
 * set, from the PT pages' present and zero counts in O(page-table pages). */
uint64_t pgt_rss(struct pagetable *pgt);

/* The leaf entry bits for prot at va (user or kernel half). */
pte_t pgt_prot_bits(vaddr_t va, unsigned prot);

/* Forbid (or, while building it again, allow) new kernel-half PML4 entries
 * (mm/kvm.c). */
void pgt_freeze_kernel_half(bool frozen);

#endif
