/* pagoda/pttree.h -- ask the kernel for a process's page-table tree.
 *
 * long pagoda_pttree(int pid, uint64_t lo, uint64_t hi, int depth,
 *                    struct pagoda_ptnode *buf, long max)
 *   System call 1005 (SYS_pagoda_pttree). Describes every page-table page
 *   of process pid's address space that maps part of [lo, hi) (page
 *   aligned, lo < hi <= 1 << 47, the end of the user half), its PML4 first, then in
 *   address order depth first, down to `depth` levels (4: PML4 to PT pages;
 *   1: the PML4 alone). A table page shared with other processes is
 *   described in each of them, with the same pa: ptdraw draws it once.
 *   Fills buf[0 .. min(n, max)) and returns n, the number of table pages
 *   (call again with a larger buffer when n > max); a process without a
 *   user address space (a zombie) has none. -1 with errno ESRCH (no such
 *   pid), EINVAL (bad range or depth, max < 0), EFAULT (bad buf), ENOSYS on
 *   kernels without it (Linux). vmquery answers for one address of the
 *   caller; this call answers for a whole tree of any process.
 */
#ifndef PAGODA_PTTREE_H
#define PAGODA_PTTREE_H

#include <stdint.h>

/* pagoda_ptnode.level: PTN_PML4 .. PTN_PT, as arch/x86_64/pte.h's PGL_*. */
#define PTN_PT   1
#define PTN_PD   2
#define PTN_PDPT 3
#define PTN_PML4 4

/* pagoda_ptnode.flags */
#define PTN_WRPROT 0x1u   /* the entry pointing at it has no write bit (a
                             PD entry above a PT page shared by fork) */

/* Most nodes one call fills; more are counted, not copied. */
#define PAGODA_PTTREE_MAX 1024

struct pagoda_ptnode {
	uint64_t pa;          /* physical address of the table page          */
	uint64_t parent_pa;   /* the table whose entry points at it; 0: PML4  */
	uint64_t va;          /* first virtual address that entry maps        */
	uint32_t level;       /* PTN_*                                        */
	uint32_t flags;       /* PTN_WRPROT                                   */
	uint32_t share;       /* address spaces pointing at it                */
	uint32_t present;     /* present entries in it (its frame's count)    */
	/* PT pages only (else 0): its present leaf entries, and how many of
	 * them are copy-on-write, lazy-free (MADV_FREE), file-backed, and
	 * map the shared zero page; and its swap entries (pages out on swap:
	 * not present, each naming a slot) */
	uint32_t leaf_present, leaf_cow, leaf_lazyfree, leaf_file, leaf_zero;
	uint32_t leaf_swap;
};

#endif
