/* kernel/exec.c -- the ELF64 loader and the initial user stack.
 *
 * Read-only segments (text, rodata) are mapped from the file's own frames,
 * so every process running a program shares them; writable segments are
 * mapped privately from the file too (copied page by page on the first
 * store), the end of their last file page zeroed, bss anonymous. The stack
 * is laid out as Linux does it (System V x86-64 ABI):
 *
 *   high  strings of argv and envp, 16 random bytes (AT_RANDOM)
 *         auxv pairs ... AT_NULL
 *         NULL, envp[n-1] ... envp[0]
 *         NULL, argv[argc-1] ... argv[0]
 *   rsp-> argc                                   (16-byte aligned)
 */
#include "kernel/exec.h"
#include "lib/errno.h"
#include "kernel/fs.h"
#include "kernel/futex.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "libc/include/pagoda/abi-auxv.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/ptshare.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/pv_ops.h"

#define ELF_MAGIC 0x464c457fu   /* "\x7fELF" */
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_INTERP 3
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define MAX_PHDRS 16
#define INTERP_MAX 256   /* bytes of a PT_INTERP path, NUL included */
#define CLOCK_TICKS 100  /* AT_CLKTCK: times() units, as Linux reports */

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

/* One ELF file being loaded: its headers and its load bias, added to every
 * p_vaddr (0 for ET_EXEC; for ET_DYN the base choose_bias picked). */
struct elf_image {
	struct inode *ip;
	struct elf64_ehdr eh;
	struct elf64_phdr ph[MAX_PHDRS];
	vaddr_t bias;
};

/* What exec_load works on (kmalloc'd: too big for the kernel stack). */
struct exec_ctx {
	struct elf_image prog, interp;
	char interp_path[INTERP_MAX];
};

enum image_role { IMAGE_PROGRAM, IMAGE_INTERP };

/* Does PT_LOAD header ph fit img's file and, moved by img->bias, the user
 * mmap area? Checked for every segment before anything is mapped. */
static bool segment_valid(const struct elf_image *img, const struct elf64_phdr *ph)
{
	uint64_t size = img->ip->size;
	vaddr_t va = ph->vaddr + img->bias;
	return ph->filesz <= ph->memsz && ph->offset <= size && ph->filesz <= size - ph->offset &&
	       ph->vaddr % PAGE_SIZE == ph->offset % PAGE_SIZE && ph->vaddr <= USER_MMAP_TOP &&
	       va >= USER_NULL_GUARD && va <= USER_LIB_END && ph->memsz <= USER_LIB_END - va;
}

/* Map one checked PT_LOAD segment into as, as Linux's binfmt_elf: its
 * pages that hold file bytes privately from the file (the cache's frames,
 * copied on the first store: a writable data segment costs nothing until
 * written), the bytes of the last such page past the file part zeroed (a
 * store: that page is copied), the rest (bss) anonymous. */
static int load_segment(struct addrspace *as, const struct elf_image *img,
			const struct elf64_phdr *ph)
{
	static const char zeros[PAGE_SIZE];
	vaddr_t va = ph->vaddr + img->bias, start = ALIGN_DOWN(va, PAGE_SIZE), got;
	vaddr_t file_end = va + ph->filesz, end = ALIGN_UP(va + ph->memsz, PAGE_SIZE);
	vaddr_t mid = ph->filesz ? ALIGN_UP(file_end, PAGE_SIZE) : start;   /* file | bss */
	unsigned prot = segment_prot(ph->flags);
	int r = 0;

	if (!(ph->flags & PF_W))   /* read-only: the file's bytes past filesz show, as Linux */
		mid = end;
	if (mid > start)
		r = as_mmap(as, start, mid - start, prot, MAP_PRIVATE | MAP_FIXED,
			    inode_vmobject(img->ip), ALIGN_DOWN(ph->offset, PAGE_SIZE), &got);
	if (r == 0 && (ph->flags & PF_W) && ph->filesz && file_end < mid)
		r = as_write(as, file_end, zeros, mid - file_end);
	if (r == 0 && end > mid)
		r = as_mmap(as, mid, end - mid, prot, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
			    NULL, 0, &got);
	return r;
}

/* The lowest p_vaddr (rounded down to 2 MiB) and highest segment end of
 * img's PT_LOAD headers. false if there is none or one lies past the mmap
 * area (so that the sums below cannot overflow). */
static bool image_span(const struct elf_image *img, vaddr_t *lo, vaddr_t *hi)
{
	*lo = USER_MMAP_TOP;
	*hi = 0;
	for (int i = 0; i < img->eh.phnum; i++) {
		const struct elf64_phdr *ph = &img->ph[i];
		if (ph->type != PT_LOAD)
			continue;
		if (ph->vaddr > USER_MMAP_TOP || ph->memsz > USER_MMAP_TOP)
			return false;
		*lo = MIN(*lo, ALIGN_DOWN(ph->vaddr, LARGE_PAGE_SIZE));
		*hi = MAX(*hi, ph->vaddr + ph->memsz);
	}
	return *hi > *lo;
}

/* The pages img's PT_LOAD headers cover at their link addresses, for mm's
 * library placement (ptshare_lib_place). false without PT_LOAD headers or
 * with one past the mmap area. */
static bool image_lib_span(const struct elf_image *img, struct lib_span *s)
{
	vaddr_t lo, hi;
	if (!image_span(img, &lo, &hi))
		return false;
	s->lo = USER_MMAP_TOP;
	s->hi = 0;
	for (int i = 0; i < img->eh.phnum; i++) {
		const struct elf64_phdr *ph = &img->ph[i];
		if (ph->type == PT_LOAD) {
			s->lo = MIN(s->lo, ALIGN_DOWN(ph->vaddr, PAGE_SIZE));
			s->hi = MAX(s->hi, ALIGN_UP(ph->vaddr + ph->memsz, PAGE_SIZE));
		}
	}
	s->wr = s->hi;
	for (int i = 0; i < img->eh.phnum; i++)
		if (img->ph[i].type == PT_LOAD && (img->ph[i].flags & PF_W))
			s->wr = MIN(s->wr, ALIGN_DOWN(img->ph[i].vaddr, PAGE_SIZE));
	return true;
}

/* Where the ET_DYN interpreter img goes (its bias into img->bias): mm's
 * canonical address for its file, else (slot taken) the highest free 2
 * MiB-aligned gap of the mmap area, where Linux's mmap puts it. 0, or
 * -ENOMEM for no room. */
static int interp_bias(struct addrspace *as, struct elf_image *img)
{
	struct lib_span s;
	vaddr_t lo, hi, at = 0;
	if (!image_span(img, &lo, &hi) || !image_lib_span(img, &s))
		return -ENOEXEC;
	at = ptshare_lib_place(as, inode_vmobject(img->ip), &s);
	if (at) {
		img->bias = at - s.lo;
		return 0;
	}
	at = as_find_gap(as, ALIGN_UP(hi - lo, LARGE_PAGE_SIZE), LARGE_PAGE_SIZE);
	img->bias = at - lo;
	return at ? 0 : -ENOMEM;
}

/* Pick img->bias and check every segment against it. ET_EXEC stays where it
 * was linked; an ET_DYN program goes at USER_PIE_BASE; an ET_DYN interpreter
 * where interp_bias says. -ENOEXEC for a bad or misplaced segment, -ENOMEM
 * for no room. */
static int choose_bias(struct addrspace *as, struct elf_image *img, enum image_role role)
{
	vaddr_t lo, hi;
	if (!image_span(img, &lo, &hi))
		return -ENOEXEC;
	img->bias = img->eh.type == ET_DYN ? USER_PIE_BASE - lo : 0;
	int r = img->eh.type == ET_DYN && role == IMAGE_INTERP ? interp_bias(as, img) : 0;
	if (r < 0)
		return r;
	for (int i = 0; i < img->eh.phnum; i++)
		if (img->ph[i].type == PT_LOAD && !segment_valid(img, &img->ph[i]))
			return -ENOEXEC;
	return 0;
}

/* Map all of img's segments (after choose_bias); *end is the page-aligned
 * end of the highest one (where the program's brk heap starts). */
static int load_image(struct addrspace *as, const struct elf_image *img, vaddr_t *end)
{
	int r = 0;
	*end = 0;
	for (int i = 0; i < img->eh.phnum && !r; i++) {
		const struct elf64_phdr *ph = &img->ph[i];
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		r = load_segment(as, img, ph);
		*end = MAX(*end, ALIGN_UP(ph->vaddr + img->bias + ph->memsz, PAGE_SIZE));
	}
	return r;
}

/* Where img's program headers are mapped (AT_PHDR), 0 if in no segment. */
static vaddr_t image_phdr(const struct elf_image *img)
{
	uint64_t phoff = img->eh.phoff;
	for (int i = 0; i < img->eh.phnum; i++) {
		const struct elf64_phdr *ph = &img->ph[i];
		if (ph->type == PT_LOAD && phoff >= ph->offset && phoff - ph->offset < ph->filesz)
			return ph->vaddr + img->bias + (phoff - ph->offset);
	}
	return 0;
}

/* The CPU's feature word loaders read as AT_HWCAP (CPUID leaf 1, EDX). */
static uint64_t cpu_hwcap(void)
{
	uint32_t r[4];
	pv_cpuid(1, 0, r);
	return r[3];
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

/* What the auxiliary vector tells the program about its images. */
struct exec_auxv {
	vaddr_t phdr, entry, base;   /* AT_PHDR, AT_ENTRY, AT_BASE (0: no interpreter) */
	uint64_t phnum;
	const char *execfn;          /* the path given to execve */
};

/* Build argc/argv/envp/auxv; returns the initial rsp in *out. */
static int build_stack(struct addrspace *as, const char *const argv[],
		       const char *const envp[], const struct exec_auxv *ax, vaddr_t *out)
{
	int argc = count_strings(argv), envc = count_strings(envp);
	uint64_t ptrs[MAX_ARGS + 1];
	vaddr_t sp = USER_STACK_TOP, argv_va[MAX_ARGS], envp_va[MAX_ARGS];

	if (argc + envc > MAX_ARGS)
		return -E2BIG;
	int r = push(as, &sp, ax->execfn, strlen(ax->execfn) + 1);
	vaddr_t execfn_va = sp;
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
		AT_PHDR, ax->phdr, AT_PHENT, sizeof(struct elf64_phdr), AT_PHNUM, ax->phnum,
		AT_PAGESZ, PAGE_SIZE, AT_BASE, ax->base, AT_FLAGS, 0, AT_ENTRY, ax->entry,
		AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0, AT_SECURE, 0,
		AT_HWCAP, cpu_hwcap(), AT_CLKTCK, CLOCK_TICKS,
		AT_RANDOM, random_va, AT_EXECFN, execfn_va, AT_NULL, 0,
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

/* Read and check img's ELF header and program headers (the segments are
 * checked later, by choose_bias). -EACCES for a directory, -ENOEXEC. */
static int read_headers(struct inode *ip, struct elf_image *img)
{
	struct elf64_ehdr *eh = &img->eh;
	img->ip = ip;
	if (!S_ISREG(ip->mode) || !(ip->mode & 0111))
		return -EACCES;
	if (inode_read(ip, 0, eh, sizeof(*eh)) != (long)sizeof(*eh) || eh->magic != ELF_MAGIC ||
	    eh->class != ELFCLASS64 || eh->data != ELFDATA2LSB ||
	    (eh->type != ET_EXEC && eh->type != ET_DYN) || eh->machine != EM_X86_64 ||
	    eh->phentsize != sizeof(img->ph[0]) || eh->phnum == 0 || eh->phnum > MAX_PHDRS)
		return -ENOEXEC;
	uint64_t n = eh->phnum * sizeof(img->ph[0]);
	if (eh->phoff > ip->size || n > ip->size - eh->phoff ||
	    inode_read(ip, eh->phoff, img->ph, n) != (long)n)
		return -ENOEXEC;
	return 0;
}

/* img's PT_INTERP path into path: 1, 0 when there is none, -ENOEXEC when it
 * is empty, too long or not NUL-terminated, -EIO when it lies past the end
 * of the file (Linux's errors for a short read). */
static int read_interp(const struct elf_image *img, char path[INTERP_MAX])
{
	for (int i = 0; i < img->eh.phnum; i++) {
		const struct elf64_phdr *ph = &img->ph[i];
		uint64_t n = ph->filesz;
		if (ph->type != PT_INTERP)
			continue;
		if (n < 2 || n > INTERP_MAX)
			return -ENOEXEC;
		if (ph->offset > img->ip->size || n > img->ip->size - ph->offset ||
		    inode_read(img->ip, ph->offset, path, n) != (long)n)
			return -EIO;
		return path[n - 1] == '\0' ? 1 : -ENOEXEC;
	}
	return 0;
}

/* The regular file at path, with an inode reference: 0 or -errno. */
static int find_file(const char *path, struct inode **out)
{
	struct path p;
	int r = fs_walk(path, LOOKUP_FOLLOW, &p);
	if (r < 0)
		return r;
	*out = inode_get(p.dentry->inode);
	path_put(&p);
	return 0;
}

/* Look up and read the program at path and its interpreter (if it names
 * one) into c (their inodes held: exec_ctx_done lets go). -ENOENT for a
 * missing program or interpreter, as Linux. */
static int read_program(const char *path, struct exec_ctx *c)
{
	c->prog.ip = c->interp.ip = NULL;
	struct inode *ip;
	int r = find_file(path, &ip);
	if (r < 0)
		return r;
	r = read_headers(ip, &c->prog);
	r = r ?: read_interp(&c->prog, c->interp_path);
	if (r <= 0)
		return r;
	r = find_file(c->interp_path, &ip);
	return r ?: read_headers(ip, &c->interp);
}

/* Build the new address space of c's program (and interpreter) with its
 * stack; *entry is where the process starts, *sp its rsp. 0 or -errno. */
static int build_as(struct addrspace *as, struct exec_ctx *c, const char *path,
		    const char *const argv[], const char *const envp[], vaddr_t *entry,
		    vaddr_t *sp)
{
	struct elf_image *prog = &c->prog, *interp = c->interp.ip ? &c->interp : NULL;
	vaddr_t brk = 0, iend, got;
	int r = choose_bias(as, prog, IMAGE_PROGRAM) ?: load_image(as, prog, &brk);
	if (interp)
		r = r ?: choose_bias(as, interp, IMAGE_INTERP) ?: load_image(as, interp, &iend);
	as->heap_start = as->brk = brk;
	if (r == 0)
		ptshare_text_attach(as);   /* mm decides whether text is shared */
	r = r ?: as_mmap(as, USER_STACK_TOP - USER_STACK_MAX, USER_STACK_MAX,
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 NULL, 0, &got);
	struct exec_auxv ax = {
		.phdr = image_phdr(prog), .entry = prog->bias + prog->eh.entry,
		.base = interp ? interp->bias : 0, .phnum = prog->eh.phnum, .execfn = path,
	};
	*entry = interp ? interp->bias + interp->eh.entry : ax.entry;
	return r ?: build_stack(as, argv, envp, &ax, sp);
}

vaddr_t exec_lib_address(struct addrspace *as, struct inode *ip)
{
	struct elf_image *img = kmalloc(sizeof(*img));
	struct lib_span s;
	vaddr_t at = 0;
	if (img && ip && read_headers(ip, img) == 0 && img->eh.type == ET_DYN &&
	    image_lib_span(img, &s))
		at = ptshare_lib_place(as, inode_vmobject(ip), &s);
	kfree(img);
	return at;
}

int exec_load(struct proc *p, const char *path, const char *const argv[],
	      const char *const envp[])
{
	struct exec_ctx *c = kmalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	struct addrspace *as = NULL;
	vaddr_t entry = 0, sp = 0;
	int r = read_program(path, c);
	if (r == 0 && !(as = as_create()))
		r = -ENOMEM;
	if (as) {
		/* the reverse map may find it by its first file mapping: it
		 * waits until the image is whole (mm/rmap.h) */
		as_lock_write(as);
		r = r ?: build_as(as, c, path, argv, envp, &entry, &sp);
		as_unlock_write(as);
	}
	struct inode *exe = c->prog.ip;   /* the program, not its interpreter */
	inode_put(c->interp.ip);          /* its mappings hold it now */
	if (r < 0)
		inode_put(exe);
	kfree(c);
	if (r < 0) {
		as_put(as);   /* (not as_destroy: a reverse-map walk may hold it) */
		return r == -EFAULT ? -ENOMEM : r;
	}

	/* the point of no return: the other threads end (kernel/thread.h) */
	if (p == current_proc() && (r = thread_exec(p)) < 0) {
		as_put(as);
		inode_put(exe);
		return r;
	}
	if (p == current_proc())
		futex_exec_notify(p);          /* in the old memory: its robust futexes */
	spin_lock(&proc_lock);             /* readers find p->as under it */
	struct addrspace *old = p->as;
	p->as = as;
	spin_unlock(&proc_lock);
	if (p == current_proc())
		as_activate(as);
	as_put(old);   /* a CLONE_VM sharer (vfork) may still use it */
	memset(p->tf, 0, sizeof(*p->tf));
	p->tf->rip = entry;
	p->tf->rsp = sp;
	p->tf->cs = SEG_UCODE;
	p->tf->ss = SEG_UDATA;
	p->tf->rflags = RFLAGS_USER;
	p->fs_base = 0;
	fpu_state_reset(&p->fpu);
	signal_exec(p->sighand);
	if (p == current_proc())
		fpu_restore(&p->fpu);
	proc_set_name(p, path);
	proc_set_cmdline(p, argv);
	proc_set_exe(p, exe);
	return 0;
}
