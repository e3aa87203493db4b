/* mm/as.h -- user address spaces: VMAs over a page table.
 *
 * An address space is a sorted list of VMAs (virtual memory areas, each a
 * range with one protection and one backing) plus the page table that caches
 * their translations. Pages appear on demand: a fault inside a VMA maps a
 * zero page or a new zeroed frame (private anonymous), a frame of the VMA's
 * backing object (a file's, or shared anonymous memory's: mm/vmobject.h),
 * or copies a shared frame (copy on write). Every function taking user
 * ranges returns 0 or a Linux -errno.
 */
#ifndef MM_AS_H
#define MM_AS_H

#include "lib/types.h"
#include "lib/list.h"
#include "lib/rwsem.h"

/* mmap/mprotect flags: Linux values, shared with libc. */
#include "libc/include/pagoda/abi-mman.h"
/* protections and VMA kinds (struct vma.prot, .flags) */
#include "mm/pt/vmflags.h"

/* A PROT_ word from the system-call boundary is a VM_ access word. */
_Static_assert(VM_READ == PROT_READ && VM_WRITE == PROT_WRITE && VM_EXEC == PROT_EXEC &&
	       VM_NONE == PROT_NONE, "VM_ access bits must equal PROT_'s");

struct pagetable;
struct vmobject;

struct vma {
	vaddr_t start, end;        /* [start, end), page aligned */
	unsigned prot;             /* VM_READ/WRITE/EXEC (mm/pt/vmflags.h) */
	unsigned flags;            /* VM_ kinds: VM_ANON, VM_SHARED, ... */
	struct vmobject *obj;      /* backing object (mm/vmobject.h): a file's
				    * (VM_FILE) or shared anonymous memory's
				    * (VM_ANON|VM_SHARED); NULL: private anon */
	uint64_t obj_off;          /* byte offset in obj of start; private
				    * anonymous: start when made (kept by
				    * splits and mremap), naming its pages'
				    * indices in the anonymous reverse map */
	struct vma *next;          /* sorted by address */
	struct addrspace *as;      /* the address space whose list holds it (NULL: none yet) */
	struct list obj_link;      /* on obj->mappings while in a list (mm/vmobject.h) */
	struct anon_vma *anon;     /* the reverse map of its anonymous pages
				    * (mm/anon_rmap.h), NULL until the first;
				    * shared with the VMAs fork and splits made of it */
	struct list anon_link;     /* on anon->vmas while in a list */
};

/* A sorted array of an address space's VMAs for binary search (mm/vma.c):
 * rebuilt from the list by the first lookup after the list changed. */
struct vma_index {
	struct vma **v;            /* kmalloc'ed, cap entries; NULL: none */
	uint32_t n, cap;
	bool stale;                /* the list changed since v was built */
	bool writer;               /* as->lock is held for writing (as_lock_write) */
};

/* Locking and lifetime.
 *
 *   lock   a sleeping reader/writer lock (lib/rwsem.h). For reading: page
 *          faults, madvise's advices that change only entries (DONTNEED,
 *          FREE, REMOVE, POPULATE: mm/madvise.h), and whoever only looks
 *          (introspection, /proc, the invariant checker); for writing:
 *          whatever changes the VMA list or the brk (mmap, munmap,
 *          mprotect, mremap, brk, the *FORK advices) and fork, which
 *          write-protects the parent's entries.
 *          Never held across a copy to or from user memory: a fault there
 *          takes it for reading. An address space nobody else can see yet
 *          (fork's child, exec's new one) needs no lock.
 *   users  references: the threads using it (CLONE_VM), and anyone looking at
 *          another process's address space (as_get while that process
 *          cannot drop its own, e.g. under proc_lock). The last as_put
 *          frees it.
 */
struct addrspace {
	struct list all;           /* on the list of every address space (as_for_each) */
	struct rwsem lock;
	struct pagetable *pgt;
	struct vma *vmas;
	struct vma_index vidx;     /* lookups: vma_find */
	vaddr_t heap_start, brk;   /* brk area [heap_start, brk) */
	int users;                 /* references (see above); atomic */
	uint64_t write_locks;      /* as_lock_write calls (counted under the lock) */
	bool oom_victim;           /* the OOM killer chose its owner (as_mark_oom_victim) */
	uint64_t rmap_ticket;      /* the last reverse-map walk that visited it (mm/rmap.c) */
	struct addrspace *rmap_next; /* on that walk's list of last references to put after it */
};

/* The OOM killer chose as's owner: as counts as memory on its way back
 * until as_destroy frees it -- which may come after the owner is a zombie,
 * when another CPU's OOM walk still held a reference (as_get) to read its
 * RSS. Idempotent. Call with as referenced (the owner's p->as). */
void as_mark_oom_victim(struct addrspace *as);

/* Address spaces of OOM victims not freed yet: while any is, the OOM
 * killer chooses no second victim (it waits for that memory). */
uint64_t as_oom_victims_pending(void);

/* A new, empty address space with one user, on the list of every address
 * space until as_destroy. NULL on OOM. */
struct addrspace *as_create(void);

/* fn(as, arg) for every address space that exists, under the list's lock
 * (rank as-list, 22): those of processes, and those no process shows,
 * which still hold their tables and frames: exec's new one while the
 * other threads end, one an exited process left to a /proc reader or the
 * OOM killer (as_get). fn must not sleep or take the list's lock. */
void as_for_each(void (*fn)(struct addrspace *as, void *arg), void *arg);
/* Tear as down now, whoever else uses it (a user-less one, or NULL; it
 * must not be locked, and its page table active on no CPU: pgt_destroy
 * panics). */
void as_destroy(struct addrspace *as);

/* How a caller holds as->lock: shared with other readers, or alone. */
enum as_lock_mode { AS_LOCK_READ, AS_LOCK_WRITE };

/* as_lock_read or as_lock_write as mode says; as_unlock the same way. */
void as_lock(struct addrspace *as, enum as_lock_mode mode);
void as_unlock(struct addrspace *as, enum as_lock_mode mode);

/* The address-space lock (see struct addrspace). as_unlock_write also
 * refreshes the VMA lookup index for the readers that come next. */
void as_lock_read(struct addrspace *as);
/* as_lock_read if no writer holds or waits: true if taken (reclaim's
 * visits, which must not wait behind a writer that waits for reclaim). */
bool as_trylock_read(struct addrspace *as);
void as_unlock_read(struct addrspace *as);
void as_lock_write(struct addrspace *as);
void as_unlock_write(struct addrspace *as);

/* One more user of as (a CLONE_VM thread); as_put drops one and destroys
 * as when it was the last (true then). NULL is allowed for as_put.
 * as_tryget takes one only while as has users (NULL when it has none: its
 * teardown has begun), for a finder that reached as through a VMA (the
 * reverse map, mm/rmap.c). Whoever may be found so is given back with
 * as_put, never as_destroy: a finder's reference outlives the builder's. */
struct addrspace *as_get(struct addrspace *as);
struct addrspace *as_tryget(struct addrspace *as);
bool as_put(struct addrspace *as);

/* as_put, unless it is the last reference: then nothing changes and false
 * (the caller puts it later, where destroying as may take the locks that
 * freeing its VMAs' objects takes: a reverse-map walk holds one of its
 * own meanwhile). */
bool as_put_unless_last(struct addrspace *as);

/* Load as's page table (NULL: the kernel's alone). */
void as_activate(struct addrspace *as);

/* How fork duplicates the pages of private VMAs (mm/fork.c). */
enum fork_strategy {
	FORK_COPY,    /* eager: new frames, contents copied, no COW (pgt_dup) */
	FORK_COW,     /* classic: copy the page tables, pages COW (pgt_copy) */
	FORK_SHARE,   /* share whole PT pages (pgt_share, mm/pt/share.h) */
	FORK_SHARE_PD, /* share whole PD pages where the 1 GiB allows, else PT pages */
	FORK_NSTRATEGIES
};

/* fork: a copy of as with the strategy chosen by ptshare= (off: FORK_COW,
 * pd: FORK_SHARE_PD, else FORK_SHARE). NULL on OOM. */
struct addrspace *as_fork(struct addrspace *as);

/* fork with strategy s; NULL on OOM (nothing left behind). */
struct addrspace *as_fork_with(struct addrspace *as, enum fork_strategy s);

/* mmap: map len bytes at addr (a hint unless MAP_FIXED); *out = address.
 * file: the object mapped (the VMA takes its own reference): a file's, or
 * for MAP_SHARED|MAP_ANONYMOUS shared anonymous memory's (a VMOBJ_SHM
 * object the caller made: fs's shmem_object_new; without one -EINVAL);
 * NULL for private anonymous memory. Shared anonymous memory is an object
 * so that parent and child find the same frames even when fork comes
 * before the first touch. prot: PROT_ bits, plus VM_MAYWRITE for a shared mapping of a
 * file open for writing (mprotect may add PROT_WRITE later). MAP_POPULATE
 * faults the new range in at once (best effort, as Linux's mm_populate).
 * 0, -ENOMEM, -EEXIST (MAP_FIXED_NOREPLACE), -EINVAL. */
int as_mmap(struct addrspace *as, vaddr_t addr, uint64_t len, unsigned prot,
	    unsigned flags, struct vmobject *file, uint64_t off, vaddr_t *out);
/* The highest free gap of len bytes below USER_MMAP_TOP, aligned to align
 * (a power of two, at least PAGE_SIZE), where a mapping without an address
 * goes; 0 when there is none. Changes nothing. */
vaddr_t as_find_gap(struct addrspace *as, uint64_t len, uint64_t align);
/* munmap of [addr, addr + len) (len page aligned): 0, -EINVAL past the user
 * top, -ENOMEM if a VMA could not be split. Holes are fine. */

int as_munmap(struct addrspace *as, vaddr_t addr, uint64_t len);

/* Unmap the pages of [start, end) (page aligned), VMAs unchanged: unshare
 * (pgt_unshare), then pgt_unmap in one TLB batch. flags 0 (as->lock held
 * for writing): whole shared PT pages just lose this share (PGT_KEEP_WHOLE)
 * and emptied tables are freed. PGT_KEEP_TABLES (held for reading, faults
 * run meanwhile): every shared table in the range is made private and only
 * leaves change; with PGT_ALL_SHARERS too, nothing is unshared and shared
 * tables lose the entries for all their sharers (an object's pages leaving
 * every mapping, mm/rmap.h; PGT_KEEP_COPIES keeps private copies). 0, or
 * -ENOMEM from unsharing with nothing unmapped. */
int as_unmap_pages(struct addrspace *as, vaddr_t start, vaddr_t end, unsigned flags);

/* mprotect of [addr, addr + len) (len page aligned): 0, -ENOMEM (a hole in
 * the range, or out of memory), -EACCES (VM_WRITE on a shared mapping of a
 * file not open for writing: no VM_MAYWRITE). */
int as_mprotect(struct addrspace *as, vaddr_t addr, uint64_t len, unsigned prot);

/* mremap with Linux's semantics, lengths page aligned and non-zero, flags
 * checked by the caller (MREMAP_MAYMOVE, MREMAP_FIXED with new address to):
 * shrink in place, grow in place when the addresses after the mapping are
 * free, else (MAYMOVE) move it, frames and all, to a free range or to `to`
 * (MREMAP_DONTUNMAP: the old range stays mapped, empty).
 * *out = the new address. -EFAULT (old range not inside one mapping),
 * -EINVAL (bad or overlapping FIXED target), -ENOMEM (no room, not allowed
 * to move, or out of memory: nothing moved). */
int as_mremap(struct addrspace *as, vaddr_t old, uint64_t old_len, uint64_t new_len,
	      unsigned flags, vaddr_t to, vaddr_t *out);

/* mincore: vec[i] = 1 if page i of [start, start + npages pages) is
 * resident (mapped, or held by the VMA's object), else 0. -ENOMEM if any
 * page is outside every VMA. Never allocates. */
int as_mincore(struct addrspace *as, vaddr_t start, uint64_t npages, uint8_t *vec);

/* brk: set the break (0 queries it); returns the new (or unchanged) break. */
vaddr_t as_brk(struct addrspace *as, vaddr_t newbrk);

/* as_fault, resolving a page fault, and its result: mm/fault.h. */
#include "mm/fault.h"

/* Write len bytes at va in as from the kernel, allocating pages as a
 * fault would, each entry marked Accessed and Dirty as a user store marks
 * it. For an address space no thread runs yet (exec fills the new image's
 * data and stack, the fork benchmark its regions): nothing changes its
 * mappings meanwhile. A store into a running process's memory goes through
 * its own mappings instead (copyout, by a thread of that process). 0, or
 * -ENOMEM / -EFAULT (no writable mapping at va). */
int as_write(struct addrspace *as, vaddr_t va, const void *src, uint64_t len);

/* Find the VMA containing va, or NULL. */
struct vma *as_find_vma(struct addrspace *as, vaddr_t va);

#endif
