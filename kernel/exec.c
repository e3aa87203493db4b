/* kernel/exec.c -- the ELF64 loader and the initial user stack.
 *
 * Read-only segments (text, rodata) are mapped from the file's own frames,
 * so every process running a program shares them; writable segments get
 * private anonymous memory filled from the file, bss stays zero. The stack
 * is laid out as Linux does it (System V x86-64 ABI):
 *
 *   high  strings of argv and envp, 16 random bytes (AT_RANDOM)
 *         auxv pairs ... AT_NULL
 *         NULL, envp[n-1] ... envp[0]
 *         NULL, argv[argc-1] ... argv[0]
 *   rsp-> argc                                   (16-byte aligned)
 */
#include "kernel/exec.h"
#include "kernel/errno.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "kernel/string.h"
#include "libc/include/pagoda/abi-auxv.h"
#include "mm/as.h"
#include "mm/ptshare.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"

#define ELF_MAGIC 0x464c457fu   /* "\x7fELF" */
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define EM_X86_64 62
#define PT_LOAD 1
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define MAX_PHDRS 16

#define RFLAGS_USER 0x202   /* IF set, reserved bit 1 */

struct elf64_ehdr {
	uint32_t magic;
	uint8_t class, data, version, osabi, pad[8];
	uint16_t type, machine;
	uint32_t version2;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

static unsigned segment_prot(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* Map one PT_LOAD segment into as. */
static int load_segment(struct addrspace *as, struct inode *ip,
			const struct elf64_phdr *ph)
{
	if (ph->filesz > ph->memsz || ph->offset + ph->filesz > ip->size ||
	    ph->vaddr % PAGE_SIZE != ph->offset % PAGE_SIZE ||
	    ph->vaddr < USER_NULL_GUARD || ph->vaddr + ph->memsz > USER_MMAP_TOP)
		return -ENOEXEC;
	vaddr_t start = ALIGN_DOWN(ph->vaddr, PAGE_SIZE);
	uint64_t len = ALIGN_UP(ph->vaddr + ph->memsz, PAGE_SIZE) - start;
	unsigned prot = segment_prot(ph->flags);
	vaddr_t got;

	if (!(ph->flags & PF_W))   /* shared, straight from the file's frames */
		return as_mmap(as, start, len, prot, MAP_PRIVATE | MAP_FIXED, inode_vmobject(ip),
			       ALIGN_DOWN(ph->offset, PAGE_SIZE), &got);

	int r = as_mmap(as, start, len, prot, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
			NULL, 0, &got);
	char buf[512];
	for (uint64_t done = 0; r == 0 && done < ph->filesz; done += sizeof(buf)) {
		uint64_t n = MIN(sizeof(buf), ph->filesz - done);
		inode_read(ip, ph->offset + done, buf, n);
		r = as_write(as, ph->vaddr + done, buf, n);
	}
	return r;
}

/* Push n bytes onto the new stack at *sp (growing down). */
static int push(struct addrspace *as, vaddr_t *sp, const void *src, uint64_t n)
{
	*sp -= n;
	return as_write(as, *sp, src, n);
}

static int count_strings(const char *const v[])
{
	int n = 0;
	while (v && v[n])
		n++;
	return n;
}

/* Build argc/argv/envp/auxv; returns the initial rsp in *out. */
static int build_stack(struct addrspace *as, const char *const argv[],
		       const char *const envp[], const struct elf64_ehdr *eh,
		       vaddr_t phdr_va, vaddr_t *out)
{
	int argc = count_strings(argv), envc = count_strings(envp);
	uint64_t ptrs[MAX_ARGS + 1];
	vaddr_t sp = USER_STACK_TOP, argv_va[MAX_ARGS], envp_va[MAX_ARGS];
	int r = 0;

	if (argc + envc > MAX_ARGS)
		return -E2BIG;
	for (int i = argc - 1; i >= 0 && !r; i--) {
		r = push(as, &sp, argv[i], strlen(argv[i]) + 1);
		argv_va[i] = sp;
	}
	for (int i = envc - 1; i >= 0 && !r; i--) {
		r = push(as, &sp, envp[i], strlen(envp[i]) + 1);
		envp_va[i] = sp;
	}
	uint64_t rnd[2] = { tsc_read() * 0x9e3779b97f4a7c15ULL, tsc_read() ^ 0x5851f42d4c957f2dULL };
	r = r ?: push(as, &sp, rnd, sizeof(rnd));
	vaddr_t random_va = sp;
	sp = ALIGN_DOWN(sp, 16);

	uint64_t auxv[] = {
		AT_PHDR, phdr_va, AT_PHENT, sizeof(struct elf64_phdr),
		AT_PHNUM, eh->phnum, AT_PAGESZ, PAGE_SIZE, AT_ENTRY, eh->entry,
		AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0,
		AT_RANDOM, random_va, AT_EXECFN, argc ? argv_va[0] : 0, AT_NULL, 0,
	};
	/* keep rsp 16-byte aligned after argc, argv, envp and auxv are pushed */
	uint64_t words = 1 + (argc + 1) + (envc + 1) + ARRAY_SIZE(auxv);
	if (words % 2)
		sp -= 8;
	r = r ?: push(as, &sp, auxv, sizeof(auxv));
	for (int i = 0; i < envc; i++)
		ptrs[i] = envp_va[i];
	ptrs[envc] = 0;
	r = r ?: push(as, &sp, ptrs, (envc + 1) * sizeof(uint64_t));
	for (int i = 0; i < argc; i++)
		ptrs[i] = argv_va[i];
	ptrs[argc] = 0;
	r = r ?: push(as, &sp, ptrs, (argc + 1) * sizeof(uint64_t));
	uint64_t argc64 = (uint64_t)argc;
	r = r ?: push(as, &sp, &argc64, sizeof(argc64));
	*out = sp;
	return r;
}

/* Check the ELF header and read the program headers. */
static int read_headers(struct inode *ip, struct elf64_ehdr *eh, struct elf64_phdr *ph)
{
	if (ip->type != INODE_FILE)
		return -EACCES;
	if (inode_read(ip, 0, eh, sizeof(*eh)) != sizeof(*eh) || eh->magic != ELF_MAGIC ||
	    eh->class != ELFCLASS64 || eh->data != ELFDATA2LSB || eh->type != ET_EXEC ||
	    eh->machine != EM_X86_64 || eh->phentsize != sizeof(*ph) ||
	    eh->phnum == 0 || eh->phnum > MAX_PHDRS)
		return -ENOEXEC;
	uint64_t n = eh->phnum * sizeof(*ph);
	if (inode_read(ip, eh->phoff, ph, n) != n)
		return -ENOEXEC;
	return 0;
}

int exec_load(struct proc *p, const char *path, const char *const argv[],
	      const char *const envp[])
{
	struct inode *ip = fs_lookup(path);
	struct elf64_ehdr eh;
	struct elf64_phdr ph[MAX_PHDRS];
	if (!ip)
		return -ENOENT;
	int r = read_headers(ip, &eh, ph);
	if (r < 0)
		return r;

	struct addrspace *as = as_create();
	if (!as)
		return -ENOMEM;
	vaddr_t brk = 0, phdr_va = 0, sp = 0, got;
	for (int i = 0; i < eh.phnum && !r; i++) {
		if (ph[i].type != PT_LOAD)
			continue;
		r = load_segment(as, ip, &ph[i]);
		brk = MAX(brk, ALIGN_UP(ph[i].vaddr + ph[i].memsz, PAGE_SIZE));
		if (eh.phoff >= ph[i].offset && eh.phoff < ph[i].offset + ph[i].filesz)
			phdr_va = ph[i].vaddr + (eh.phoff - ph[i].offset);
	}
	as->heap_start = as->brk = brk;
	if (r == 0 && ptshare_mode == PTSHARE_ALL)
		ptshare_text_attach(as);
	r = r ?: as_mmap(as, USER_STACK_TOP - USER_STACK_MAX, USER_STACK_MAX,
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 NULL, 0, &got);
	r = r ?: build_stack(as, argv, envp, &eh, phdr_va, &sp);
	if (r < 0) {
		as_destroy(as);
		return r == -EFAULT ? -ENOMEM : r;
	}

	struct addrspace *old = p->as;
	p->as = as;
	if (p == current_proc())
		as_activate(as);
	if (old)
		as_destroy(old);
	memset(p->tf, 0, sizeof(*p->tf));
	p->tf->rip = eh.entry;
	p->tf->rsp = sp;
	p->tf->cs = SEG_UCODE;
	p->tf->ss = SEG_UDATA;
	p->tf->rflags = RFLAGS_USER;
	p->fs_base = 0;
	fpu_state_reset(&p->fpu);
	signal_exec(&p->sig);
	if (p == current_proc())
		fpu_restore(&p->fpu);
	proc_set_name(p, path);
	proc_set_cmdline(p, argv);
	p->exe = ip;
	return 0;
}
