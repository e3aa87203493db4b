/* mm/vmobject.h -- what a VMA's pages come from: the backing-object
 * interface (Linux's vm_operations_struct, SerenityOS's VMObject).
 *
 * A VMA that is not plain private anonymous memory points at one object and
 * an offset into it; the fault handler (mm/fault.c) asks the object for the
 * frame of a page index and maps it. mm/ knows no file system: a file's
 * object is built by the VFS (fs/inode.c), and so is shared anonymous
 * memory's: an unnamed file of a tmpfs nobody mounts (fs/tmpfs.c
 * shmem_object_new; one shared-memory mechanism, as Linux's shmem).
 *
 *   VMA [start, end) --obj, obj_off--> vmobject --ops->get_page(idx)--> frame
 *
 * Writes through a shared mapping: an object whose pages must reach a
 * store (notify_write: an ext2 file's page cache) has its pages mapped
 * read-only at first; the first store faults, page_mkwrite marks the page
 * dirty, and the entry becomes writable (mm/fault.c fault_mkwrite).
 *
 * References: every VMA holds one reference on its object (vma_new takes
 * it, vma_delete drops it); the object's frames hold one reference for the
 * object itself (the checker's "+1 for its file": they are typed PG_FILE),
 * and each mapping takes one more.
 *
 * The reverse map (Linux's i_mmap): every VMA in an address space that
 * maps the object is on obj->mappings, so that the object's pages can be
 * taken out of every mapping (a truncated file: mm/rmap.h):
 *
 *   vmobject --mappings--> VMA (as A) <--> VMA (as B) <--> VMA (as A) ...
 *                           |                |
 *                           as A's PT pages, as B's (or one PT page both share)
 *
 * A VMA joins when it enters an address space's list (vma_insert,
 * vma_split) and leaves when it is freed; both under the address space's
 * lock held for writing (or while nobody else can see it) and, for the
 * list itself, mappings_lock (LOCK_RANK_RMAP). A walker of the list reads
 * only a VMA's address space (which never changes) under mappings_lock;
 * the VMA's bounds it reads under that address space's lock.
 */
#ifndef MM_VMOBJECT_H
#define MM_VMOBJECT_H

#include "lib/types.h"
#include "lib/list.h"
#include "lib/spinlock.h"

struct page;
struct vma;
struct vmobject;

/* Errors of get_page: -ENOMEM (no frame), -EIO (index past the object's end:
 * the access raises SIGBUS, as Linux's past-EOF fault does), -EAGAIN (the
 * page left the object meanwhile: the fault retries). */
/* How get_page reads a missing page from the object's store: with the
 * read-ahead of a stream (pagecache_readahead), alone (the VMA's
 * MADV_RANDOM), or with a whole window after it (MADV_SEQUENTIAL). */
enum vmobject_ra { VMOBJ_RA_NORMAL, VMOBJ_RA_RANDOM, VMOBJ_RA_SEQUENTIAL };

struct vmobject_ops {
	/* The frame of page idx with one new reference for the caller (which
	 * maps it); a missing page of a fillable object is created, zeroed,
	 * one of an object with a store read as ra says. Returns 0 with *out
	 * set, 1 (also with *out set) when the page had to be read from the
	 * object's store (a major fault), or -errno as above. */
	int (*get_page)(struct vmobject *obj, uint64_t idx, enum vmobject_ra ra,
			struct page **out);
	/* The frames of pages [first, first + n) (n <= 16) that are in memory
	 * and ready now, for a read fault's neighbours (mm/fault.c
	 * fault_around): out[i] with a new reference, as get_page's, or NULL
	 * (absent, being read, past the object's end). Reads nothing, never
	 * allocates a page; returns how many it found. NULL: the object's
	 * pages come only through get_page. */
	unsigned (*get_ready)(struct vmobject *obj, uint64_t first, unsigned n,
			      struct page **out);
	/* Frame pg of the object (from get_page) is about to be made writable
	 * in a shared mapping: note that it will be written (a file's page:
	 * dirty, its store must get it, with room made for it there; Linux's
	 * page_mkwrite). Called only for an object with notify_write set. 0,
	 * -EAGAIN when pg is no longer the object's (truncated meanwhile: the
	 * fault retries, and finds the new end), -ENOSPC or -EIO (no room on
	 * the store, or it failed: the storer gets SIGBUS), -ETXTBSY (the
	 * object may not be written now: a swap file; SIGBUS too), -ENOMEM.
	 * The caller holds a reference, or read pg from an entry a
	 * truncation may clear meanwhile (then the frame may be free: only
	 * its cache state is read, under the cache's lock). */
	int (*page_mkwrite)(struct vmobject *obj, struct page *pg);
	/* Is page idx there (mincore): 1 or 0; never allocates. */
	int (*resident)(struct vmobject *obj, uint64_t idx);
	/* Empty [idx, idx + n) (MADV_REMOVE): every mapping reads zeros
	 * afterwards; the object takes the pages out of every mapping itself
	 * (a hole punched, vfs_punch_hole). No locks of the caller held. 0,
	 * or -EOPNOTSUPP (a file system without holes). NULL: the object
	 * cannot (a read-only file). */
	int (*remove)(struct vmobject *obj, uint64_t idx, uint64_t n);
	/* Read [idx, idx + n) from the object's store into memory now, not
	 * mapped (MADV_WILLNEED; Linux's vfs_fadvise). No locks of the caller
	 * held. NULL: nothing to read (memory that is all in RAM). */
	void (*willneed)(struct vmobject *obj, uint64_t idx, uint64_t n);
	/* The first reference came (0 -> 1: the first VMA of an object that
	 * lives elsewhere, a file's): hold what it lives in. NULL: nothing. */
	void (*hold)(struct vmobject *obj);
	/* The last reference went: free obj (or, with hold, let go of what
	 * hold held). NULL: obj lives forever. */
	void (*release)(struct vmobject *obj);
};

enum vmobject_kind {
	VMOBJ_FILE,   /* a file's pages: its page cache (fs/inode.c) */
	VMOBJ_SHM,    /* MAP_SHARED|MAP_ANONYMOUS memory: an unnamed tmpfs file
		       * (fs/tmpfs.c); its VMAs are VM_ANON, its pages Shmem */
};

struct vmobject {
	const struct vmobject_ops *ops;
	enum vmobject_kind kind;
	uint32_t refs;       /* VMAs pointing at it (atomic: processes on several CPUs exit at once) */
	uint64_t npages;     /* size; get_page past it is -EIO */
	bool notify_write;   /* a shared mapping maps its pages read-only until
			      * the first store, which calls page_mkwrite (a
			      * file with a store); false: writable at once */
	struct list mappings;          /* the VMAs mapping it (vma.obj_link) */
	struct spinlock mappings_lock; /* the list (LOCK_RANK_RMAP) */
	uint32_t rmap_seq;   /* raised by each walk of the reverse map that
			      * takes entries away (vmobject_unmap) or their
			      * write permission (vmobject_wrprotect): what a
			      * fault's map_guard checks (atomic), mm/rmap.h */
};

/* Set up obj (not yet mapped): its ops and kind, no references, no
 * mappings; the caller sets npages and notify_write. */
void vmobject_init(struct vmobject *obj, const struct vmobject_ops *ops,
		   enum vmobject_kind kind);

/* VMA v (with an object) entered an address space's list: put it on its
 * object's mappings. vmobject_remove_mapping takes it off (v not on the
 * list: nothing). */
void vmobject_add_mapping(struct vma *v);
void vmobject_remove_mapping(struct vma *v);

/* Take / drop a VMA's reference; the last put calls ops->release (if any).
 * A put at 0 panics. NULL is ignored by both. vmobject_tryget takes one
 * only while obj has references (false when it has none: its last one may
 * be going), for a finder that must not call hold (reclaim, under a lock
 * of its own). */
void vmobject_get(struct vmobject *obj);
bool vmobject_tryget(struct vmobject *obj);
void vmobject_put(struct vmobject *obj);


#endif
