/* mm/fork.c -- duplicating an address space for fork().
 *
 * Classic copy-on-write (ptshare=off): the child gets its own page tables,
 * a copy of every present entry, and a reference on every frame; private
 * writable pages become read-only + COW in both, so the first write by
 * either side copies. Its cost grows with the number of mapped pages.
 *
 * Shared page tables (ptshare=fork or all, mm/ptshare.c): the child's PD
 * entries point at the parent's PT pages, write-protected; no per-page work
 * at all, so the cost grows with the number of PT pages (one per 2 MiB).
 */
#include "mm/as.h"
#include "mm/kmalloc.h"
#include "mm/pgrange.h"
#include "mm/ptshare.h"
#include "mm/vma.h"

struct addrspace *as_fork(struct addrspace *parent)
{
	struct addrspace *child = as_create();
	if (!child)
		return NULL;
	child->heap_start = parent->heap_start;
	child->brk = parent->brk;
	child->stack_limit = parent->stack_limit;
	for (struct vma *v = parent->vmas; v; v = v->next) {
		struct vma *c = vma_new(v->start, v->end, v->prot, v->flags, v->file,
					v->file_off);
		if (!c)
			goto fail;
		vma_insert(child, c);
		int r = ptshare_mode == PTSHARE_OFF
			? pgr_copy(child->pgt, parent->pgt, v->start, v->end, v->flags & VMA_SHARED)
			: ptshare_fork_vma(child->pgt, parent->pgt, v);
		if (r < 0)
			goto fail;
	}
	return child;
fail:
	as_destroy(child);
	return NULL;
}
