/* arch/x86_64/pte.h -- x86-64 page-table entry format: the ONLY place that
 * knows bit positions. Everything else uses these names and accessors.
 *
 *  63  62..59  58..52     51..12          11..9  8 7  6 5 4   3   2 1 0
 * +--+-------+--------+----------------+------+-+--+-+-+---+---+-+-+-+
 * |NX| (pkey)| soft   | frame address  | soft |G|PS|D|A|PCD|PWT|U|W|P|
 * +--+-------+--------+----------------+------+-+--+-+-+---+---+-+-+-+
 *
 * Levels are numbered from the leaf up: PGL_PT (4 KiB leaves), PGL_PD
 * (2 MiB), PGL_PDPT (1 GiB), PGL_PML4 (512 GiB per entry).
 */
#ifndef ARCH_X86_64_PTE_H
#define ARCH_X86_64_PTE_H

#include "lib/types.h"

typedef uint64_t pte_t;

/* hardware bits */
#define PTE_P (1UL << 0)     /* present */
#define PTE_W (1UL << 1)     /* writable */
#define PTE_U (1UL << 2)     /* user accessible */
#define PTE_PWT (1UL << 3)   /* write-through */
#define PTE_PCD (1UL << 4)   /* cache disable */
#define PTE_A (1UL << 5)     /* accessed (set by the CPU) */
#define PTE_D (1UL << 6)     /* dirty (set by the CPU; leaves only) */
#define PTE_PS (1UL << 7)    /* large page (PD: 2 MiB, PDPT: 1 GiB) */
#define PTE_G (1UL << 8)     /* global: survives CR3 writes */
#define PTE_NX (1UL << 63)   /* no execute (EFER.NXE) */

/* software bits: ignored by the CPU, named for the VM */
#define PTE_COW (1UL << 9)       /* write fault copies the frame */
#define PTE_FILE (1UL << 11)     /* frame belongs to a file (initrd) */
#define PTE_SHARED (1UL << 52)   /* MAP_SHARED: never COW */
#define PTE_PINNED (1UL << 53)   /* never reclaimed */
#define PTE_PROTNONE (1UL << 54) /* PROT_NONE leaf: kept NOT present, frame and
				    bits intact (Linux's _PAGE_PROTNONE) */
#define PTE_SWAP (1UL << 55)     /* swap entry (below): never with P or PROTNONE */
#define PTE_SOFT_MASK (PTE_COW | PTE_FILE | (0x7fUL << 52))

#define PTE_ADDR_MASK 0x000ffffffffff000UL
#define PTE_FLAGS_MASK (~PTE_ADDR_MASK)

/* geometry */
#define PGL_PT 1
#define PGL_PD 2
#define PGL_PDPT 3
#define PGL_PML4 4
#define PT_ENTRIES 512
#define PML4_KERNEL_FIRST 256    /* PML4 slots 256..511 map the kernel half */

/* Bytes mapped by one entry of a level-`level` table. */
static inline uint64_t pgl_entry_size(int level)
{
	return 1UL << (12 + 9 * (level - 1));
}

/* Index of va's entry in its level-`level` table. */
static inline unsigned pgl_index(vaddr_t va, int level)
{
	return (va >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1);
}

/* Sign-extend bit 47: the canonical form of a 48-bit address. */
static inline vaddr_t va_canonical(vaddr_t va)
{
	return (vaddr_t)(((int64_t)(va << 16)) >> 16);
}

static inline pte_t pte_make(paddr_t pa, pte_t flags)
{
	return (pa & PTE_ADDR_MASK) | (flags & PTE_FLAGS_MASK);
}

static inline paddr_t pte_addr(pte_t e) { return e & PTE_ADDR_MASK; }
static inline pte_t pte_flags(pte_t e) { return e & PTE_FLAGS_MASK; }
static inline bool pte_present(pte_t e) { return e & PTE_P; }
/* A PROT_NONE leaf: not present (every access faults, the kernel's too),
 * but it maps its frame: counted, copied by fork, freed by teardown. */
static inline bool pte_protnone(pte_t e) { return (e & (PTE_P | PTE_PROTNONE)) == PTE_PROTNONE; }
/* Does e map something: present, or a PROT_NONE leaf? */
static inline bool pte_mapped(pte_t e) { return e & (PTE_P | PTE_PROTNONE); }
static inline bool pte_writable(pte_t e) { return e & PTE_W; }
static inline bool pte_user(pte_t e) { return e & PTE_U; }
static inline bool pte_huge(pte_t e) { return e & PTE_PS; }
static inline bool pte_global(pte_t e) { return e & PTE_G; }
static inline bool pte_exec(pte_t e) { return !(e & PTE_NX); }
static inline bool pte_accessed(pte_t e) { return e & PTE_A; }
static inline bool pte_dirty(pte_t e) { return e & PTE_D; }
static inline bool pte_cow(pte_t e) { return e & PTE_COW; }
static inline bool pte_file(pte_t e) { return e & PTE_FILE; }
static inline pte_t pte_set(pte_t e, pte_t bits) { return e | bits; }
static inline pte_t pte_clear(pte_t e, pte_t bits) { return e & ~bits; }
static inline bool pte_shared(pte_t e) { return e & PTE_SHARED; }
/* Do a and b map the same frame the same way (the accessed and dirty bits
 * that the MMU sets aside)? */
static inline bool pte_same_mapping(pte_t a, pte_t b)
{
	return pte_clear(a, PTE_A | PTE_D) == pte_clear(b, PTE_A | PTE_D);
}

/* Verbs: the entry with one property changed (frame and other bits kept). */
static inline pte_t pte_wrprotect(pte_t e) { return pte_clear(e, PTE_W); }
static inline pte_t pte_mkwrite(pte_t e) { return pte_set(e, PTE_W); }
static inline pte_t pte_mkclean(pte_t e) { return pte_clear(e, PTE_D); }
static inline pte_t pte_mkdirty(pte_t e) { return pte_set(e, PTE_D); }
static inline pte_t pte_mksmall(pte_t e) { return pte_clear(e, PTE_PS); }
/* Copy-on-write: read-only, and a write fault copies. */
static inline pte_t pte_mkcow(pte_t e) { return pte_set(pte_wrprotect(e), PTE_COW); }
/* No longer copy-on-write (a write in place is allowed). */
static inline pte_t pte_clear_cow(pte_t e) { return pte_clear(e, PTE_COW); }
/* Building an entry: start from 0 (or pte_table) and add. */
static inline pte_t pte_mkpresent(pte_t e) { return pte_set(e, PTE_P); }
/* A PROT_NONE leaf: kept not present, every access faults. */
static inline pte_t pte_mkprotnone(pte_t e) { return pte_set(pte_clear(e, PTE_P), PTE_PROTNONE); }
static inline pte_t pte_mknoexec(pte_t e) { return pte_set(e, PTE_NX); }
static inline pte_t pte_mkuser(pte_t e) { return pte_set(e, PTE_U); }
static inline pte_t pte_mkglobal(pte_t e) { return pte_set(e, PTE_G); }
static inline pte_t pte_mkhuge(pte_t e) { return pte_set(e, PTE_PS); }
static inline pte_t pte_mkfile(pte_t e) { return pte_set(e, PTE_FILE); }
static inline pte_t pte_mkshared(pte_t e) { return pte_set(e, PTE_SHARED); }
/* An entry pointing at the table at pa: present and writable (the leaves
 * decide; add pte_mkuser for the user half). */
static inline pte_t pte_table(paddr_t pa) { return pte_make(pa, PTE_P | PTE_W); }
/* The flag bits a change of protection keeps: accessed, dirty and the
 * software bits (not PROT_NONE, which follows the new protection). */
static inline pte_t pte_keep_on_protect(pte_t e)
{
	return pte_flags(e) & (PTE_A | PTE_D | PTE_SOFT_MASK) & ~PTE_PROTNONE;
}
/* Not accessed since now (reclaim's look: a page used again gets A back). */
static inline pte_t pte_mkold(pte_t e) { return pte_clear(e, PTE_A); }

/* ---- swap entries ----
 * A page written to swap leaves in its PT entries a swap entry: not
 * present, mapping no frame, naming the slot that holds the page (Linux's
 * swp_entry_t in a non-present PTE). The CPU ignores every other bit of an
 * entry without P, so the slot sits where a frame address would:
 *
 *  63     56 55  54      52 51             12 11        5 4    1  0
 * +--------+--+----------+-----------------+-----------+------+--+
 * |   0    |S |    0     | slot in the area|     0     | area |0 |
 * +--------+--+----------+-----------------+-----------+------+--+
 *
 * S is PTE_SWAP. The entry is the slot's name everywhere in mm/ (the swap
 * cache is keyed by it); it counts in its PT page as an entry that holds
 * something, not as a resident page. */
#define PTE_SWAP_AREAS 16   /* bits 1..4: A and D (5, 6) stay clear */
static inline bool pte_none(pte_t e) { return e == 0; }
static inline bool pte_is_swap(pte_t e)
{
	return (e & (PTE_P | PTE_PROTNONE | PTE_SWAP)) == PTE_SWAP;
}
static inline pte_t pte_mkswap(unsigned area, uint64_t slot)
{
	return PTE_SWAP | ((slot << 12) & PTE_ADDR_MASK) | ((pte_t)(area % PTE_SWAP_AREAS) << 1);
}
static inline unsigned pte_swap_area(pte_t e) { return (unsigned)(e >> 1) % PTE_SWAP_AREAS; }
static inline uint64_t pte_swap_slot(pte_t e) { return (e & PTE_ADDR_MASK) >> 12; }
/* Does leaf e hold something: a frame (pte_mapped) or a swapped-out page? */
static inline bool pte_holds(pte_t e) { return pte_mapped(e) || pte_is_swap(e); }

/* Is e a leaf at this level (a 4 KiB PTE, or a 2 MiB / 1 GiB page)? */
static inline bool pte_is_leaf(pte_t e, int level)
{
	return level == PGL_PT || (level <= PGL_PDPT && pte_huge(e));
}

/* Atomic (single 64-bit) read of an entry the CPU may update (A/D bits). */
static inline pte_t pte_read(const pte_t *ep)
{
	return __atomic_load_n(ep, __ATOMIC_RELAXED);
}

#endif
