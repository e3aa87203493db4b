/* tests/unit/host_mm.h -- mm/ on the host: simulated physical memory, a
 * recording pv_ops backend, printk/panic. panic() aborts, so a test that
 * expects a panic is registered with tcase_add_test_raise_signal(SIGABRT)
 * (Check's fork mode runs it in a child process). */
#ifndef TESTS_UNIT_HOST_MM_H
#define TESTS_UNIT_HOST_MM_H

#include <check.h>
#include "lib/types.h"
#include "mm/frame/page.h"
#include "mm/rmap.h"
#include "mm/pt/pgtable.h"

/* Fake kernel image inside simulated memory: [HOST_IMAGE_PA, +HOST_IMAGE_LEN)
 * at KERNEL_VMA + pa: text, rodata, data, 16 KiB each. */
#define HOST_IMAGE_PA 0x10000UL
#define HOST_IMAGE_SEG 0x4000UL
#define HOST_IMAGE_LEN (3 * HOST_IMAGE_SEG)

/* What the host pv backend saw. */
struct host_pv_log {
	uint64_t cr3;               /* current "CR3" */
	int cr3_writes;
	int flush_one, flush_all, flush_user;
	vaddr_t last_flush;
	int alloc_pt, release_pt;   /* notifications */
	int entry_writes;
	int lazy_depth;
};
extern struct host_pv_log host_pv;

/* Fresh simulated RAM of `bytes`, frame database and allocator over it
 * (frame 0 and the fake image pinned); with_kernel also builds kernel_pgt
 * (2 MiB direct map, W^X image) so pgt_create/kstack_alloc work. */
void host_mm_setup(uint64_t bytes, bool with_kernel);

/* Free frames when host_mm_setup returned: a test that gives back all it
 * took ends with host_assert_no_leak(). */
extern uint64_t host_free0;
#define host_assert_no_leak() ck_assert_uint_eq(mm_stats.free, host_free0)

/* Run as simulated CPU id (0..MAX_CPUS-1; setup starts on 0): this_cpu(),
 * and so the free-frame cache page_alloc uses. No lock may be held. */
void host_set_cpu(int id);

/* Release the simulated RAM. */
void host_mm_teardown(void);

/* Allocate order-0 frames until none is left; returns how many. They are
 * chained through their link field on *held (for host_release_all). */
uint64_t host_exhaust(struct list *held);
void host_release_all(struct list *held);

/* Fill every free frame with byte c (taken all, written, given back): what
 * a frame's previous life left in it, for tests of what allocation writes. */
void host_dirty_free_frames(int c);

/* Is [p, p + len) all zero bytes? */
bool host_all_zero(const void *p, size_t len);

struct pagetable;

/* The PT page holding user address va's leaf entry in pgt (the tables
 * above it must exist). */
struct page *host_pt_of(struct pagetable *pgt, vaddr_t va);

/* The page-table API composed as mm/ composes it (unshare, then one TLB
 * batch around the change): unmap (0 or -ENOMEM from unsharing) and
 * protect (0, -ENOMEM, or -ENOENT at a hole with PGT_STRICT) of
 * [start, end); replace of one page. */
int host_unmap(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags);
int host_protect(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned prot,
		 unsigned flags);
void host_replace(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot);

/* Reclaim's step at the lazy-free page mapped at va of pgt, as
 * lazyfree_reclaim takes it (mm/lazyfree.c: the page held, one batch):
 * pgt_page_out with PAGE_OUT_DISCARD. PAGE_OUT_NOT_MAPPED if nothing is
 * mapped at va. */
enum page_out_result host_discard(struct pagetable *pgt, vaddr_t va);

/* fork's two steps as mm/fork.c takes them (prepare, then the change in
 * src's batch): the copy-on-write copy of [start, end) (flags: VM_SHARED
 * or 0) and the PT-page sharing of VMA v. 0 or -ENOMEM. */
struct vma;
int host_fork_copy(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
		   unsigned flags);
int host_fork_share(struct pagetable *dst, struct pagetable *src, const struct vma *v);
/* host_fork_share with PGT_SHARE_* flags (PGT_SHARE_PD: the PD page of
 * v's 1 GiB shared whole). */
int host_fork_share_flags(struct pagetable *dst, struct pagetable *src, const struct vma *v,
			  unsigned flags);

/* Called by the harness's vmobject_unmap (the reverse-map walk, which
 * finds no mapping on the host) with the walk's arguments, when set: a
 * test looks at the object at that moment, or plays its mappings' part. */
extern void (*host_unmap_hook)(struct vmobject *obj, uint64_t first, uint64_t n,
			       enum unmap_how how);

/* A test case named name in s, each test run between setup and teardown. */
TCase *host_tcase(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void));

/* Run suite s (CK_ENV verbosity, fork mode by default); the exit status. */
int host_run_suite(Suite *s);

#endif
