/* mm/vma.h -- the sorted VMA list of an address space (mm/as.h). */
#ifndef MM_VMA_H
#define MM_VMA_H

#include "mm/as.h"

/* A new VMA (not yet in any list) holding its own reference on obj (may be
 * NULL), or NULL when out of memory. */
struct vma *vma_new(vaddr_t start, vaddr_t end, unsigned prot, unsigned flags,
		    struct vmobject *obj, uint64_t obj_off);

/* Free a VMA that is in no list, dropping its object reference. */
void vma_free(struct vma *v);

/* Insert v, keeping the list sorted; v must not overlap any VMA. */
void vma_insert(struct addrspace *as, struct vma *v);

/* Unlink v from the list and free it (vma_free). */
void vma_delete(struct addrspace *as, struct vma *v);

/* Split v at addr (start < addr < end): v keeps [start, addr), the returned
 * new VMA (already in the list) gets [addr, end). NULL when out of memory. */
struct vma *vma_split(struct addrspace *as, struct vma *v, vaddr_t addr);

/* Split VMAs so that start and end fall on VMA boundaries. -ENOMEM or 0. */
int vma_isolate(struct addrspace *as, vaddr_t start, vaddr_t end);

/* The VMA containing va, or NULL: a binary search of as->vidx, which is
 * rebuilt first when the list changed (O(n) once, then O(log n)); when
 * memory for the index runs out, a walk of the list (never fails). */
struct vma *vma_find(struct addrspace *as, vaddr_t va);

/* Rebuild the lookup index if the list changed (as->lock held for writing:
 * as_unlock_write calls it, so readers find it fresh). Out of memory: the
 * index stays stale and lookups walk the list. */
void vma_index_refresh(struct addrspace *as);

/* Does any VMA overlap [start, end)? Is [start, end) entirely covered? */
bool vma_overlaps(struct addrspace *as, vaddr_t start, vaddr_t end);
bool vma_covers(struct addrspace *as, vaddr_t start, vaddr_t end);

/* The highest free gap of len bytes below top (aligned to align), or 0. */
vaddr_t vma_find_gap(struct addrspace *as, uint64_t len, vaddr_t top, uint64_t align);

/* Merge neighbours that have become identical (after mprotect). */
void vma_merge(struct addrspace *as);

#endif
