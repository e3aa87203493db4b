/* kernel/sys_mem.c -- memory system calls: mmap, munmap, mprotect, brk,
 * madvise. Argument checks follow Linux; the work is in mm/. */
#include "kernel/syscall.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "mm/as.h"
#include "mm/madvise.h"
#include "arch/x86_64/memlayout.h"

#define MAP_TYPE 0x0f
#define MAP_KNOWN (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | \
		   MAP_NORESERVE | MAP_POPULATE | MAP_FIXED_NOREPLACE | \
		   0x0100 /* GROWSDOWN */ | 0x0800 /* DENYWRITE */ | \
		   0x1000 /* EXECUTABLE */ | 0x2000 /* LOCKED */ | \
		   0x10000 /* NONBLOCK */ | 0x20000 /* STACK */)
#define PROT_KNOWN (PROT_READ | PROT_WRITE | PROT_EXEC)

static long sys_mmap(const uint64_t a[6])
{
	vaddr_t addr = a[0];
	uint64_t len = a[1], off = a[5];
	unsigned prot = (unsigned)a[2], flags = (unsigned)a[3];
	int fd = (int)a[4];
	unsigned type = flags & MAP_TYPE;

	if (!len || (type != MAP_SHARED && type != MAP_PRIVATE) ||
	    (flags & ~(unsigned)MAP_KNOWN) || (prot & ~(unsigned)PROT_KNOWN) ||
	    off % PAGE_SIZE || addr % PAGE_SIZE)
		return -EINVAL;
	if (len > USER_TOP)
		return -ENOMEM;
	len = ALIGN_UP(len, PAGE_SIZE);

	struct inode *ip = NULL;
	if (!(flags & MAP_ANONYMOUS)) {
		struct file *f = fd_get(fd);
		if (!f)
			return -EBADF;
		if (!f->inode || f->inode->type != INODE_FILE)
			return -ENODEV;
		if (type == MAP_SHARED && (prot & PROT_WRITE))
			return -EACCES;     /* the initrd is read-only */
		ip = f->inode;
	}
	vaddr_t got;
	int r = as_mmap(current_proc()->as, addr, len, prot, flags, ip, off, &got);
	return r < 0 ? r : (long)got;
}

static long sys_munmap(const uint64_t a[6])
{
	if (a[0] % PAGE_SIZE || !a[1])
		return -EINVAL;
	return as_munmap(current_proc()->as, a[0], ALIGN_UP(a[1], PAGE_SIZE));
}

static long sys_mprotect(const uint64_t a[6])
{
	if (a[0] % PAGE_SIZE || (a[2] & ~(uint64_t)PROT_KNOWN))
		return -EINVAL;
	if (!a[1])
		return 0;
	return as_mprotect(current_proc()->as, a[0], ALIGN_UP(a[1], PAGE_SIZE),
			   (unsigned)a[2]);
}

static long sys_brk(const uint64_t a[6])
{
	return (long)as_brk(current_proc()->as, a[0]);
}

static long sys_madvise(const uint64_t a[6])
{
	return as_madvise(current_proc()->as, a[0], a[1], (int)a[2]);
}

const struct syscall_entry sys_mem_table[] = {
	{ SYS_mmap, "mmap", sys_mmap },
	{ SYS_munmap, "munmap", sys_munmap },
	{ SYS_mprotect, "mprotect", sys_mprotect },
	{ SYS_brk, "brk", sys_brk },
	{ SYS_madvise, "madvise", sys_madvise },
	{ 0, NULL, NULL },
};
