/* kernel/sys_mem.c -- memory system calls: mmap, munmap, mprotect, brk,
 * madvise, mremap, mincore, msync. Argument checks follow Linux (mm/mmap.c's
 * do_mmap, do_vmi_munmap, do_mprotect_pkey, in their order); the work is in
 * mm/. */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/exec.h"
#include "kernel/fault_signal.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "mm/as.h"
#include "mm/madvise.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"

/* The flags MAP_SHARED_VALIDATE accepts (Linux's LEGACY_MAP_MASK, the x86
 * flags and the huge page size bits, as Linux 6.18 answers); others are
 * EOPNOTSUPP with it, and ignored with MAP_SHARED or MAP_PRIVATE. */
#define MAP_KNOWN (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | \
		   MAP_NORESERVE | MAP_POPULATE | \
		   0x0100 /* GROWSDOWN */ | 0x0800 /* DENYWRITE */ | \
		   0x1000 /* EXECUTABLE */ | 0x2000 /* LOCKED */ | \
		   0x10000 /* NONBLOCK */ | 0x20000 /* STACK */ | \
		   0x40 /* 32BIT */ | 0x80 /* ABOVE4G */ | 0x40000 /* HUGETLB */ | \
		   0x7c000000 /* UNINITIALIZED, huge page size bits */)
#define PROT_KNOWN (PROT_READ | PROT_WRITE | PROT_EXEC)
#define MAX_FILE_SIZE 0x7fffffffffffffffULL   /* Linux's MAX_LFS_FILESIZE */

/* The file checks of do_mmap for fd, in Linux's order: the file's backing
 * object into *obj, or -EBADF, -EOVERFLOW (offset + length past the largest
 * file), -EOPNOTSUPP (MAP_SHARED_VALIDATE with an unknown flag), -EACCES (not
 * open for reading, or a writable shared mapping of a read-only file),
 * -ENODEV (not a regular file). *maywrite: the file is open for writing
 * (a shared mapping may become writable). */
static int mmap_file(int fd, uint64_t len, uint64_t off, unsigned prot, unsigned flags,
		     struct vmobject **obj, bool *maywrite)
{
	struct file *f = fd_get(fd);
	if (!f)
		return -EBADF;
	if (off > (uint64_t)MAX_FILE_SIZE - len)
		return -EOVERFLOW;
	unsigned type = flags & MAP_TYPE;
	if (type == MAP_SHARED_VALIDATE && (flags & ~(unsigned)MAP_KNOWN))
		return -EOPNOTSUPP;
	bool writable = (f->flags & O_ACCMODE) != O_RDONLY;
	*maywrite = writable;
	if (type != MAP_PRIVATE && (prot & PROT_WRITE) && !writable)
		return -EACCES;
	if ((f->flags & O_ACCMODE) == O_WRONLY)
		return -EACCES;
	*obj = f->inode ? inode_vmobject(f->inode) : NULL;
	if (*obj)
		return 0;
	return f->ops->mmap_errno ? f->ops->mmap_errno : -ENODEV;
}

static long sys_mmap(const uint64_t a[6])
{
	vaddr_t addr = a[0];
	uint64_t len = a[1], off = a[5];
	unsigned prot = (unsigned)a[2], flags = (unsigned)a[3];
	unsigned type = flags & MAP_TYPE;

	if (off % PAGE_SIZE || !len || (prot & ~(unsigned)PROT_KNOWN))
		return -EINVAL;
	if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if ((flags & MAP_ANONYMOUS) && type == MAP_SHARED_VALIDATE)
		return -EINVAL;   /* Linux's anonymous path knows only the two types */
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	if (flags & MAP_FIXED) {
		if (addr % PAGE_SIZE)
			return -EINVAL;
	} else {
		addr = ALIGN_DOWN(addr, PAGE_SIZE);   /* a hint: x86 rounds it down */
	}
	if (len > USER_TOP)
		return -ENOMEM;
	len = ALIGN_UP(len, PAGE_SIZE);

	struct vmobject *obj = NULL;
	bool maywrite = false, shm = (flags & MAP_ANONYMOUS) && type == MAP_SHARED;
	if (!(flags & MAP_ANONYMOUS)) {
		int r = mmap_file((int)a[4], len, off, prot, flags, &obj, &maywrite);
		if (r < 0)
			return r;
	} else if (shm && !(obj = shmem_object_new(len))) {   /* a tmpfs file, unnamed */
		return -ENOMEM;
	}
	off = shm ? 0 : off;
	if (type == MAP_SHARED_VALIDATE)
		flags = (flags & ~(unsigned)MAP_TYPE) | MAP_SHARED;
	struct addrspace *as = current_proc()->as;
	as_lock_write(as);
	if (obj && !addr && !(flags & MAP_FIXED) && off == 0 && type == MAP_PRIVATE)
		addr = exec_lib_address(as, vmobject_inode(obj));   /* a library? */
	vaddr_t got;
	int r = as_mmap(as, addr, len, prot | (maywrite ? VM_MAYWRITE : 0), flags, obj, off, &got);
	as_unlock_write(as);
	if (shm)
		vmobject_put(obj);   /* the VMA holds it now (or nothing: then it goes) */
	return r < 0 ? r : (long)got;
}

/* do_vmi_munmap's checks: the range may start below the null guard (there
 * is simply nothing mapped there) but not end past the user top. */
static long sys_munmap(const uint64_t a[6])
{
	vaddr_t start = a[0];
	uint64_t len = a[1];
	if (start % PAGE_SIZE || start > USER_TOP || len > USER_TOP - start || !len)
		return -EINVAL;
	struct addrspace *as = current_proc()->as;
	as_lock_write(as);
	int r = as_munmap(as, start, ALIGN_UP(len, PAGE_SIZE));
	as_unlock_write(as);
	return r;
}

static long sys_mprotect(const uint64_t a[6])
{
	vaddr_t start = a[0];
	uint64_t len = a[1];
	if (start % PAGE_SIZE)
		return -EINVAL;
	if (!len)
		return 0;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len || start + len <= start)
		return -ENOMEM;   /* the rounded length wraps around */
	if (a[2] & ~(uint64_t)PROT_KNOWN)
		return -EINVAL;
	struct addrspace *as = current_proc()->as;
	as_lock_write(as);
	int r = as_mprotect(as, start, len, (unsigned)a[2]);
	as_unlock_write(as);
	return r;
}

static long sys_brk(const uint64_t a[6])
{
	struct addrspace *as = current_proc()->as;
	as_lock_write(as);
	vaddr_t r = as_brk(as, a[0]);
	as_unlock_write(as);
	return (long)r;
}

static long sys_madvise(const uint64_t a[6])
{
	struct addrspace *as = current_proc()->as;
	enum as_lock_mode mode = fault_lock_mode(madvise_lock_mode((int)a[2]));
	as_lock(as, mode);
	int r = as_madvise(as, a[0], a[1], (int)a[2]);
	as_unlock(as, mode);
	if (r == 0 && (a[2] == MADV_REMOVE || a[2] == MADV_WILLNEED || a[2] == MADV_COLD ||
		       a[2] == MADV_PAGEOUT))   /* with the lock let go */
		r = as_madvise_unlocked(as, a[0], a[1], (int)a[2]);
	return r;
}

/* mremap's argument checks (Linux's order); DONTUNMAP needs MAYMOVE and
 * equal lengths. Growing a mapping of length 0 (Linux duplicates a shared
 * one) is not supported: EINVAL. */
static long sys_mremap(const uint64_t a[6])
{
	vaddr_t old = a[0], to = a[4];
	uint64_t old_len = ALIGN_UP(a[1], PAGE_SIZE), new_len = ALIGN_UP(a[2], PAGE_SIZE);
	unsigned flags = (unsigned)a[3];
	if (a[3] & ~(uint64_t)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP) ||
	    ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE)) ||
	    ((flags & MREMAP_DONTUNMAP) && old_len != new_len) || old % PAGE_SIZE)
		return -EINVAL;
	if (!new_len || !old_len)
		return -EINVAL;   /* zero, or the rounding wrapped */
	vaddr_t got;
	struct addrspace *as = current_proc()->as;
	as_lock_write(as);
	int r = as_mremap(as, old, old_len, new_len, flags, to, &got);
	as_unlock_write(as);
	return r < 0 ? r : (long)got;
}

#define MINCORE_CHUNK 256   /* pages answered per copyout */

/* The next shared file mapping of as in [*at, end) (as read-locked): its
 * file with a reference and the pages [*first, *last] of it the range
 * covers, *at moved past them; NULL when none is left (*at = end). Sets
 * *hole when part of the range before it is not mapped. */
static struct inode *next_file_range(struct addrspace *as, vaddr_t *at, vaddr_t end,
				     uint64_t *first, uint64_t *last, bool *hole)
{
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next) {
		if (v->end <= *at)
			continue;
		vaddr_t lo = MAX(v->start, *at), hi = MIN(v->end, end);
		*hole |= v->start > *at;
		*at = hi;
		struct inode *ip = v->flags & VM_SHARED ? vmobject_inode(v->obj) : NULL;
		if (ip) {
			*first = (v->obj_off + (lo - v->start)) / PAGE_SIZE;
			*last = (v->obj_off + (hi - v->start)) / PAGE_SIZE - 1;
			return inode_get(ip);
		}
	}
	*hole |= *at < end;
	*at = end;
	return NULL;
}

/* msync(addr, len, flags), Linux's checks in its order: -EINVAL for an
 * unaligned addr, an unknown flag, MS_ASYNC with MS_SYNC; -ENOMEM when
 * part of the range is not mapped (the rest is still synced). MS_SYNC
 * makes each shared file mapping's pages in the range durable
 * (inode_sync_range, its error: -EIO), one file at a time with the address
 * space unlocked. MS_ASYNC and MS_INVALIDATE have nothing more to do: the
 * mapping is the page cache (read and write see its bytes at once), and
 * the flusher writes dirty pages in time (Linux since 2.6.19). */
static long sys_msync(const uint64_t a[6])
{
	vaddr_t start = a[0], at = start;
	uint64_t flags = a[2];
	if (start % PAGE_SIZE || (flags & ~(uint64_t)(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	vaddr_t end = start + ALIGN_UP(a[1], PAGE_SIZE);
	if (end < start)
		return -ENOMEM;
	struct addrspace *as = current_proc()->as;
	bool hole = false;
	int err = 0;
	while (at < end) {
		uint64_t first, last;
		as_lock_read(as);
		struct inode *ip = next_file_range(as, &at, end, &first, &last, &hole);
		as_unlock_read(as);
		if (!ip)
			break;
		int r = flags & MS_SYNC ? inode_sync_range(ip, first, last) : 0;
		err = err ? err : r;
		inode_put(ip);
	}
	return err ? err : hole ? -ENOMEM : 0;
}

/* mincore: EINVAL unaligned, ENOMEM past the user top or over a hole, EFAULT
 * for a vector outside user space (checked first, as Linux's access_ok). */
static long sys_mincore(const uint64_t a[6])
{
	vaddr_t start = a[0], uvec = a[2];
	uint64_t len = a[1];
	if (start % PAGE_SIZE)
		return -EINVAL;
	if (start > USER_TOP || len > USER_TOP - start)
		return -ENOMEM;
	uint64_t npages = ALIGN_UP(len, PAGE_SIZE) / PAGE_SIZE;
	if (uvec > USER_TOP || npages > USER_TOP - uvec)
		return -EFAULT;
	uint8_t buf[MINCORE_CHUNK];
	for (uint64_t done = 0; done < npages;) {
		uint64_t n = MIN(npages - done, MINCORE_CHUNK);
		struct addrspace *as = current_proc()->as;
		as_lock_read(as);
		int r = as_mincore(as, start + done * PAGE_SIZE, n, buf);
		as_unlock_read(as);
		r = r ?: copyout(uvec + done, buf, n);   /* outside the lock: it may fault */
		if (r < 0)
			return r;
		done += n;
	}
	return 0;
}

const struct syscall_entry sys_mem_table[] = {
	{ SYS_mmap, "mmap", sys_mmap },
	{ SYS_munmap, "munmap", sys_munmap },
	{ SYS_mprotect, "mprotect", sys_mprotect },
	{ SYS_brk, "brk", sys_brk },
	{ SYS_madvise, "madvise", sys_madvise },
	{ SYS_mremap, "mremap", sys_mremap },
	{ SYS_mincore, "mincore", sys_mincore },
	{ SYS_msync, "msync", sys_msync },
	{ 0, NULL, NULL },
};
