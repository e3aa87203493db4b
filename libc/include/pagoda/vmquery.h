/* pagoda/vmquery.h -- ask the kernel how one user address is mapped.
 *
 * long pagoda_vmquery(const void *addr, struct pagoda_vmquery *q)
 *   System call 1000 (SYS_pagoda_vmquery). Looks up the page containing addr
 *   in the calling process's page table, WITHOUT faulting anything in, and
 *   fills *q. Tests use it to assert sharing state: after fork with shared
 *   page tables parent and child see the same pt_pa and pt_share_count 2
 *   (or, with ptshare=pd, the same pt_pa below a PD page of pd_share_count 2);
 *   after a COW break the frame_refcount drops back to 1.
 *
 *   Returns 0 on success (also when nothing is mapped there: then
 *   mapped == 0 and the other fields describe as much of the walk as exists),
 *   -1 with errno EFAULT if q is not writable user memory, EINVAL if addr is
 *   not a canonical user address, ENOSYS on kernels without it (Linux).
 */
#ifndef PAGODA_VMQUERY_H
#define PAGODA_VMQUERY_H

#include <stdint.h>

/* Bits of pagoda_vmquery.prot: the effective protection of the leaf entry
 * (what the hardware allows right now, so a COW page shows no VMQ_WRITE). */
#define VMQ_READ   0x1u
#define VMQ_WRITE  0x2u
#define VMQ_EXEC   0x4u
#define VMQ_USER   0x8u

/* Bits of pagoda_vmquery.soft: Pagoda's software PTE state. */
#define VMQ_COW       0x1u  /* private page shared copy-on-write             */
#define VMQ_LAZYFREE  0x2u  /* on the lazy list (MADV_FREE'd): dropped if clean */
#define VMQ_FILE      0x4u  /* backed by a file (initrd) frame                */
#define VMQ_DIRTY     0x8u  /* hardware dirty bit                             */
#define VMQ_ACCESSED  0x10u /* hardware accessed bit                          */
#define VMQ_PT_WRPROT 0x20u /* the PD entry above is write-protected (shared) */
#define VMQ_PD_WRPROT 0x40u /* the PDPT entry above is write-protected (shared PD) */
/* The page's place on the replacement lists (mm/frame/lru.h): hot, or
 * cold (neither bit) and maybe in its test period; or out on swap. */
#define VMQ_HOT       0x80u  /* on the hot list                              */
#define VMQ_TEST      0x100u /* a cold page in its test period               */
#define VMQ_SWAPPED   0x200u /* not present: a swap entry (pte holds it)     */

struct pagoda_vmquery {
	uint64_t va;               /* addr rounded down to its page            */
	uint64_t pa;               /* physical address of the frame, 0 if none */
	uint64_t pte;              /* the raw leaf entry (architecture format) */
	uint64_t pt_pa;            /* physical address of the last-level page
	                              table page (0 if no PT page exists)      */
	uint32_t mapped;           /* 1 if a present leaf entry maps va        */
	uint32_t page_size;        /* 4096, or 2 MiB for a large page          */
	uint32_t prot;             /* VMQ_READ | VMQ_WRITE | ...               */
	uint32_t soft;             /* VMQ_COW | VMQ_LAZYFREE | ...             */
	uint32_t frame_refcount;   /* references on the frame (0 if none)     */
	uint32_t pt_share_count;   /* address spaces sharing the PT page      */
	uint32_t pt_present_count; /* present leaf entries in the PT page     */
	uint32_t pd_share_count;   /* address spaces sharing the PD page above
	                              (ptshare=pd; 1 when private, 0: none)    */
};

#endif
