/* mm/pt/kvm.h -- building the kernel address space (kernel_pgt):
 *
 *   DIRECT_MAP_BASE + [0, dmap_end)   all RAM, RW NX global, 1 GiB or 2 MiB
 *   KSTACK_BASE ...                   one PDPT, filled by kstack_alloc
 *   kernel image segments             text RX, rodata R NX, data RW NX
 *
 * No user half: the boot identity map is gone once kernel_pgt is loaded. */
#ifndef MM_KVM_H
#define MM_KVM_H

#include "arch/x86_64/pte.h"

#define KVM_MAX_SEGS 4

struct kvm_segment {
	vaddr_t start, end;    /* kernel image virtual range, page aligned */
	unsigned prot;         /* VM_READ | VM_WRITE | VM_EXEC */
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

/* Does the direct map reach physical [0, end)? (RAM and, as it covers at
 * least 4 GiB, the devices' memory below 4 GiB.) */
bool kvm_dmap_covers(paddr_t end);

/* Bytes of one direct-map page of RAM (after kvm_build; PAGE_SIZE after
 * kvm_dmap_split). */
uint64_t kvm_dmap_page_size(void);

/* Map physical [0, end) of the direct map with 4 KiB pages (splitting its
 * 1 GiB / 2 MiB pages, same attributes), so that single frames can get
 * their own protection (the checking pv backend maps page-table pages
 * read-only). Panics when memory runs out. */
void kvm_dmap_split(paddr_t end);

/* The 4 KiB direct-map entry mapping frame pa; NULL if pa is still covered
 * by a large page (see kvm_dmap_split) or not mapped. */
pte_t *kvm_dmap_pte(paddr_t pa);

#endif
