/* mm/kvm.h -- building the kernel address space (kernel_pgt):
 *
 *   DIRECT_MAP_BASE + [0, dmap_end)   all RAM, RW NX global, 1 GiB or 2 MiB
 *   KSTACK_BASE ...                   one PDPT, filled by kstack_alloc
 *   kernel image segments             text RX, rodata R NX, data RW NX
 *
 * No user half: the boot identity map is gone once kernel_pgt is loaded. */
#ifndef MM_KVM_H
#define MM_KVM_H

#include "kernel/types.h"

#define KVM_MAX_SEGS 4

struct kvm_segment {
	vaddr_t start, end;    /* kernel image virtual range, page aligned */
	unsigned prot;         /* PGT_R | PGT_W | PGT_X */
};

struct kvm_layout {
	paddr_t dmap_end;      /* the direct map covers physical [0, dmap_end) */
	bool page1g;           /* map it with 1 GiB pages, else 2 MiB */
	struct kvm_segment seg[KVM_MAX_SEGS];
	int nseg;              /* image segment i maps to pa = va - KERNEL_VMA */
};

/* Build kernel_pgt for layout l and freeze its kernel half (every kernel
 * PML4 entry exists from then on). Panics when memory runs out. Does not
 * load it: pgt_activate(&kernel_pgt). */
void kvm_build(const struct kvm_layout *l);

/* Bytes of one direct-map page (after kvm_build). */
uint64_t kvm_dmap_page_size(void);

#endif
