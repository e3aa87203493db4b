/* mm/pt/vmflags.h -- mm's one vocabulary for protections and kinds: the VM_*
 * bits of VMAs (struct vma.prot: VM_READ/WRITE/EXEC; struct vma.flags: the
 * kinds) and of the page-table API (mm/pt/pgtable.h: the access bits plus
 * VM_COW, VM_FILE, VM_SHARED for the entry).
 *
 * PROT_* (the mmap ABI) stays at the system-call boundary: VM_READ, VM_WRITE
 * and VM_EXEC have PROT_READ/WRITE/EXEC's values (mm/as.h checks it), so a
 * PROT_ word is a VM_ access word as it is. PTE_* (hardware bits) stays in
 * arch/x86_64/pte.h; pgt_prot_bits turns VM_ bits into an entry.
 */
#ifndef MM_VMFLAGS_H
#define MM_VMFLAGS_H

#define VM_NONE 0x0
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_ACCESS (VM_READ | VM_WRITE | VM_EXEC)
#define VM_SHARED 0x8        /* MAP_SHARED: fork shares, never copy-on-write */
#define VM_FILE 0x10         /* backed by a file's object; a file's frame */
#define VM_COW 0x20          /* page-table API: mapped copy-on-write (read-only) */
#define VM_ANON 0x40         /* VMA: demand-zero memory */
#define VM_HEAP 0x80         /* VMA: the brk area */
#define VM_DONTCOPY 0x100    /* VMA: MADV_DONTFORK, a child does not get it */
#define VM_WIPEONFORK 0x200  /* VMA: MADV_WIPEONFORK, a child gets it empty */
#define VM_MAYWRITE 0x400    /* VMA: a shared file mapping whose file is open for
			      * writing: mprotect may add VM_WRITE (Linux's) */
/* prot with write permission taken away but still readable: a page of a
 * writable VMA that must fault on its first store (a shared file page
 * until page_mkwrite; after write-back). A write-only VMA reads too (x86
 * has no write-only pages, nor does Linux's mmap), so its entry must not
 * become PROT_NONE. */
static inline unsigned vm_prot_nowrite(unsigned prot)
{
	return prot & VM_WRITE ? (prot & ~(unsigned)VM_WRITE) | VM_READ : prot;
}

#define VM_SEQ_READ 0x800    /* VMA: MADV_SEQUENTIAL, a fault reads a whole window ahead */
#define VM_RAND_READ 0x1000  /* VMA: MADV_RANDOM, a fault reads only its page */

#endif
