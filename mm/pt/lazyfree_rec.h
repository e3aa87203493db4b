/* mm/pt/lazyfree_rec.h -- the lazy-free records: which entries of which PT
 * page are counted lazy-free (mm/lazyfree.h says what lazy-free is and who
 * marks; mm/reclaim.c takes the pages back).
 *
 * One record per PT page of an address space (2 MiB), not per page: it is
 * allocated once, the first time MADV_FREE finds lazy-free pages there,
 * and reused by every later MADV_FREE of those addresses, so giving the
 * same memory back again and again allocates nothing.
 *
 *   lazyfree_list --> [pgt A, va 0x400000, bits 0..255] --> [pgt B, ...] --> ...
 *                      oldest MADV_FREE first (a record moves to the young
 *                      end whenever MADV_FREE marks in its PT page again)
 *
 * Records are also chained in a small hash table keyed by (pgt, va), so
 * that MADV_FREE and the entry writers find the record of a PT page in one
 * look. Invariant (lazyfree_check):
 *   bit i of record R is set  <=>  the entry of R->pgt at R->va + i pages
 *   is counted lazy-free: present, anonymous, PTE_LAZYFREE;
 *   R->npages = the bits set; lazyfree_stats.pages = the sum over records.
 * So the records are the tables' accounting, kept by the leaf writer as it
 * keeps a PT page's present count: pt_set_leaf and the teardown of a PT
 * page (mm/pt/ptpage.c) drop a bit whose entry stops being the page's
 * lazy-free mapping, atomically with the write under the PT page's lock --
 * a forget done by the callers instead raced MADV_FREE against
 * MADV_DONTNEED (both run under the address-space lock for reading). What
 * is lazy-free, and when a page is given back, is decided above: MADV_FREE
 * marks (mm/lazyfree.c), reclaim discards (mm/reclaim.c), fork drops the
 * records of what it shares (lazyfree_forget_range). A PTE_LAZYFREE bit
 * without a record bit (left in a PT page that became shared, where
 * reclaim cannot write) means nothing.
 */
#ifndef MM_PT_LAZYFREE_REC_H
#define MM_PT_LAZYFREE_REC_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "arch/x86_64/pte.h"

struct page;
struct pagetable;

#define LAZYFREE_WORDS (PT_ENTRIES / 64)

struct lazyfree_rec {
	struct list link;             /* on lazyfree_list, oldest first */
	struct lazyfree_rec *hnext;   /* the next record in its hash bucket */
	struct pagetable *pgt;        /* the address space ... */
	vaddr_t va;                   /* ... and the 2 MiB (one PT page) it covers */
	uint32_t npages;              /* bits set in lazy[] */
	uint32_t call;                /* the lazyfree_range call that marked it last */
	uint64_t lazy[LAZYFREE_WORDS]; /* bit i: the page at va + i pages */
};

struct lazyfree_stats {
	uint64_t pages;        /* pages counted lazy-free now (meminfo LazyFree) */
	uint64_t marked;       /* pages marked by MADV_FREE (pglazyfree) */
	uint64_t discarded;    /* clean pages reclaim freed (pglazyfreed) */
	uint64_t reused;       /* written again before reclaim: kept */
	uint64_t forgotten;    /* unmapped, replaced or forked while lazy */
	uint64_t records;      /* records on the list now (one per PT page) */
};
extern struct lazyfree_stats lazyfree_stats;
extern struct list lazyfree_list;

/* Guards the list, the hash table, every record and lazyfree_stats (rank
 * LOCK_RANK_LAZYFREE: taken inside a PT page's lock, mm/pt/ptpage.h; reclaim,
 * holding it, takes PT locks only with spin_trylock). A record's bit is
 * set only while its entry maps the page, so a CPU holding this lock may
 * walk to the entry of a set bit: its tables cannot be freed meanwhile
 * (clearing the entry clears the bit first, under this lock). */
extern struct spinlock lazyfree_lock;

/* The entry e of pgt at va is about to be cleared or replaced: if it is
 * counted lazy-free, clear its bit (the page is no longer lazy-free).
 * Cheap when e is not LAZYFREE. Does nothing when this CPU holds
 * lazyfree_lock: that is reclaim, which clears the bit itself first. */
void lazyfree_forget_entry(struct pagetable *pgt, vaddr_t va, pte_t e);
static inline void lazyfree_forget(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	if (pte_lazyfree(e))
		lazyfree_forget_entry(pgt, va, e);
}

/* pgt stops using PT page pt (mapping the 2 MiB at va) without clearing
 * its entries -- it drops its share of a PT page other address spaces still
 * use (munmap, exit): drop pgt's record of it. */
void lazyfree_forget_table(struct pagetable *pgt, struct page *pt, vaddr_t va);

/* Drop pgt's records for addresses in [start, end): fork shares the PD page
 * mapping them with another address space (no record lives below a shared
 * PD page). O(records on the list); nothing when the list is empty. */
void lazyfree_forget_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* The record of pgt's PT page that maps va, or NULL (lazyfree_lock held). */
struct lazyfree_rec *lazyfree_rec_find(const struct pagetable *pgt, vaddr_t va);

/* Make r (the caller's allocation, now the list's) the record of pgt's PT
 * page at va, the youngest, with no bit set (lazyfree_lock held). */
void lazyfree_rec_add(struct lazyfree_rec *r, struct pagetable *pgt, vaddr_t va);

/* The bit of the page at va in its PT page's record. */
static inline unsigned lazyfree_rec_index(vaddr_t va)
{
	return pgl_index(va, PGL_PT);
}

static inline bool lazyfree_rec_test(const struct lazyfree_rec *r, unsigned i)
{
	return r->lazy[i / 64] & (1UL << (i % 64));
}

/* Set bit i of r; true if it was clear (the page is newly counted;
 * lazyfree_lock held). Inline: MADV_FREE marks page by page. */
static inline bool lazyfree_rec_set(struct lazyfree_rec *r, unsigned i)
{
	if (lazyfree_rec_test(r, i))
		return false;
	r->lazy[i / 64] |= 1UL << (i % 64);
	r->npages++;
	lazyfree_stats.pages++;
	return true;
}

/* Unlink record r (its pages stop counting), free it (lazyfree_lock held). */
void lazyfree_drop(struct lazyfree_rec *r);

/* Clear bit i of record r if set (lazyfree_lock held); true if it was. */
bool lazyfree_rec_clear(struct lazyfree_rec *r, unsigned i);

/* Is the page of pgt at va counted lazy-free (its record's bit set)? */
bool lazyfree_counted(const struct pagetable *pgt, vaddr_t va);

/* Check the invariant above for every record (panics naming the first bad
 * one); returns the number of pages counted. */
uint64_t lazyfree_check(void);

#endif
