/* arch/x86_64/memlayout.h -- Pagoda's virtual memory map (48-bit, 4-level).
 *
 *  0x0000_0000_0000_0000 +-----------------------------+
 *                        | unmapped: null guard (4 MiB) |
 *  0x0000_0000_0040_0000 +-----------------------------+ USER_TEXT_BASE
 *                        | user text (ELF, read-only)   |  2 MiB aligned: one
 *                        |                              |  PT page per 2 MiB,
 *  next 2 MiB boundary   +-----------------------------+  shareable by all
 *                        | user data, bss, then brk     |  runs of a program
 *                        |            heap ->           |
 *                        |             ...              |
 *  0x0000_5555_5540_0000 +-----------------------------+ USER_PIE_BASE
 *                        | position-independent program |  (ET_DYN), then
 *                        | then its brk heap ->         |  its brk heap
 *                        |             ...              |
 *                        |        <- mmap area          |  top-down from
 *                        |                              | USER_MMAP_TOP
 *  0x0000_7fff_c000_0000 +-----------------------------+ USER_LIB_BASE
 *                        | shared libraries, each at    |  one canonical
 *                        | its file's slot (ld.so too)  |  address per file
 *  0x0000_7fff_e000_0000 +-----------------------------+ USER_LIB_END
 *                        |        <- user stack         | USER_STACK_TOP
 *  0x0000_7fff_ffff_f000 +-----------------------------+ USER_TOP
 *                        | non-canonical hole           |
 *  0xffff_8000_0000_0000 +-----------------------------+ DIRECT_MAP_BASE
 *                        | direct map of all RAM        |  1 GiB / 2 MiB
 *                        | (RW, NX, global)             |  pages
 *  0xffff_c000_0000_0000 +-----------------------------+ KSTACK_BASE
 *                        | kernel stacks, each with an  |
 *                        | unmapped guard page below    |
 *  0xffff_ffff_8000_0000 +-----------------------------+ KERNEL_VMA
 *                        | kernel image, loaded at 1 MiB|
 *                        | text RX, rodata R,           |
 *                        | data+bss RW NX               |
 *  0xffff_ffff_ffff_ffff +-----------------------------+
 */
#ifndef ARCH_X86_64_MEMLAYOUT_H
#define ARCH_X86_64_MEMLAYOUT_H

#include "lib/types.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define LARGE_PAGE_SIZE (1UL << 21)   /* 2 MiB: what one PT page maps */
#define HUGE_PAGE_SIZE (1UL << 30)    /* 1 GiB: what one PD page maps */

#define USER_NULL_GUARD 0x400000UL
#define USER_TEXT_BASE 0x400000UL
#define USER_TOP 0x00007ffffffff000UL
#define USER_HALF_END (1UL << 47)     /* end of the lower canonical half */
#define USER_STACK_TOP USER_TOP
#define USER_STACK_MAX (8UL << 20)                 /* 8 MiB, like ulimit -s */
#define USER_MMAP_TOP (USER_STACK_TOP - (1UL << 30)) /* 1 GiB below stack */
/* Where exec puts a position-independent program: 2/3 of the user half, as
 * Linux's ELF_ET_DYN_BASE, rounded down to 2 MiB (whole PT pages). */
#define USER_PIE_BASE 0x555555400000UL
/* The library area (mm/ptshare_text.c): between the mmap area and the stack,
 * where no mapping without an address goes, and in the stack's PD page. Each
 * shared object gets one 2 MiB-aligned slot here, the same in every process. */
#define USER_LIB_BASE 0x7fffc0000000UL
#define USER_LIB_END 0x7fffe0000000UL

#define DIRECT_MAP_BASE 0xffff800000000000UL
#define DIRECT_MAP_MAX (1UL << 39)                 /* 512 GiB: one PML4 slot */
#define KSTACK_BASE 0xffffc00000000000UL
/* Kernel stacks: slot i is [KSTACK_BASE + i * KSTACK_SLOT, + KSTACK_SLOT);
 * its lower KSTACK_GUARD bytes stay unmapped, the stack is the rest:
 *   | guard (unmapped) 16 KiB | stack 16 KiB |<- top   next slot ...     */
#define KSTACK_SIZE (16UL << 10)
#define KSTACK_GUARD (16UL << 10)
#define KSTACK_SLOT (KSTACK_GUARD + KSTACK_SIZE)
#define KSTACK_SLOTS 4096
#define KERNEL_VMA 0xffffffff80000000UL
#define KERNEL_PHYS_BASE 0x100000UL

#ifdef PAGODA_HOST
/* Host unit tests: "physical memory" is a buffer; physical address 0 is its
 * start. Set by the host test harness. */
extern uintptr_t host_physmem_base;
#define P2V(pa) ((void *)(host_physmem_base + (uintptr_t)(pa)))
#define V2P(va) ((paddr_t)((uintptr_t)(va) - host_physmem_base))
#else
/* Physical address -> its alias in the direct map, and back. */
#define P2V(pa) ((void *)((uintptr_t)(pa) + DIRECT_MAP_BASE))
#define V2P(va) ((paddr_t)((uintptr_t)(va) - DIRECT_MAP_BASE))
/* Kernel image symbol -> physical address. */
#define KV2P(va) ((paddr_t)((uintptr_t)(va) - KERNEL_VMA))
#endif

static inline bool is_user_addr(vaddr_t va)
{
	return va < USER_TOP;
}

#endif
