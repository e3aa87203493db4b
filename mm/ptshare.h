/* mm/ptshare.h -- page-table sharing policy: the sharing mode (fork's
 * strategy, mm/fork.c) and program text shared across unrelated processes
 * (mm/ptshare_text.c). The mechanics -- unsharing, installing a shared
 * table, sharing a range -- are the tables layer's (mm/pt/share.h).
 */
#ifndef MM_PTSHARE_H
#define MM_PTSHARE_H

#include "lib/types.h"
#include "arch/x86_64/pte.h"

struct addrspace;
struct vma;
struct page;
struct vmobject;

enum ptshare_mode {
	PTSHARE_OFF,    /* classic fork: copy the page tables */
	PTSHARE_FORK,   /* fork shares PT pages */
	PTSHARE_ALL,    /* fork, plus program text shared across processes */
	PTSHARE_PD,     /* all, and fork shares whole PD pages (1 GiB): the
			   default, fork flat in memory size and a small fork
			   no dearer than under ALL (docs/benchmarks.md) */
};
extern enum ptshare_mode ptshare_mode;

/* Shared program text (mm/ptshare_text.c), exec's question to mm once the
 * images are mapped: under ptshare=all, attach the PT pages of read-only
 * file mappings that another process running the same file at the same
 * address already built, or build and publish them; other modes: nothing. */
void ptshare_text_attach(struct addrspace *as);

/* A read fault at va (not mapped) in VMA v of as: under ptshare=all, when
 * the 2 MiB chunk of va has no PT page yet and holds only read-only
 * mappings of v's file (a library the loader mapped with mmap), attach the
 * published PT page of that chunk or build and publish it. true when it did
 * either (va may still be unmapped if memory ran out: fault it normally). */
bool ptshare_text_fault(struct addrspace *as, const struct vma *v, vaddr_t va);

/* The pages of a shared object to place, at its link addresses: [lo, hi)
 * page aligned, its first writable page at wr (hi when it has none). */
struct lib_span {
	vaddr_t lo, wr, hi;
};

/* Where to map the shared object file of span s in as (the address for
 * s->lo): its canonical address, the same in every process, in a slot of
 * the library area (USER_LIB_BASE) that the file gets on first use, placed
 * so that its first writable page starts a 2 MiB chunk and its read-only
 * pages fill the chunks below on their own (shareable PT pages). 0 when the
 * slot is taken in as (a mapping overlaps it), the area is full or the span
 * is larger than the area: the caller places it the ordinary way. Never
 * maps anything; the slot table lives forever, as the initrd's files. */
vaddr_t ptshare_lib_place(struct addrspace *as, struct vmobject *file, const struct lib_span *s);

/* Give back the published text PT pages no process maps any more (their
 * record's share is their last): each is unpublished, then freed with its
 * frame references. Takes the text-share lock; allocates nothing. Called
 * by the reclaimer under memory pressure and by drop_caches. Returns the
 * table pages freed. */
uint64_t ptshare_text_shrink(void);

/* ptshare_text_shrink if a put since the last one left a text table with
 * its record alone (pt_text_unused, mm/pt/ptpage.h): called where an
 * address space's shares drop (as_destroy, the unlocks that release stale
 * tables), so a program's text tables go with its last process and RSS,
 * PSS and free memory stay exact. Takes the text-share lock. */
void ptshare_text_release_unused(void);

/* file's object is going away (its inode is freed: no mapping is left):
 * its records and library slot are forgotten, so that a new file at the
 * same address never matches them. */
void ptshare_text_forget(struct vmobject *file);

/* Pages are leaving file (vmobject_unmap, mm/rmap.h: it shrank): its
 * records are unpublished and their shares put, so that no later exec
 * attaches a table that still maps them; processes attached keep their
 * share (the walk clears the entries there). A chunk being built meanwhile
 * is not published (its build saw the file's unmap count before). */
void ptshare_text_unpublish(struct vmobject *file);

/* Call fn(pt, arg) for each published text PT page, under the text-share
 * lock (fn must not take it, nor allocate): the checker counts each
 * record's share (mm/vmcheck.c). */
void ptshare_text_for_each(void (*fn)(struct page *pt, void *arg), void *arg);

/* Set the mode from the command line value ("off", "fork", "all", "pd"). */
void ptshare_set_mode(const char *value);

const char *ptshare_mode_name(void);

#endif
