/* mm/uaccess.c -- checked copies between kernel and user memory.
 *
 * The range check here keeps user pointers out of kernel space; the page
 * fault path (mm/fault.c) does the rest: it maps demand-zero and COW pages
 * for faults inside a VMA and refuses everything else, which turns into
 * -EFAULT through the exception table (arch/x86_64/usercopy.asm).
 */
#include "mm/uaccess.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/usercopy.h"

/* Is [va, va+len) entirely inside user space? */
static bool user_range_ok(vaddr_t va, uint64_t len)
{
	return va + len >= va && va + len <= USER_TOP;
}

int copyin(void *dst, vaddr_t usrc, uint64_t len)
{
	if (!user_range_ok(usrc, len))
		return -EFAULT;
	return (int)arch_copy_user(dst, (const void *)usrc, len);
}

int copyout(vaddr_t udst, const void *src, uint64_t len)
{
	if (!user_range_ok(udst, len))
		return -EFAULT;
	return (int)arch_copy_user((void *)udst, src, len);
}

long copyinstr(char *dst, vaddr_t usrc, uint64_t max)
{
	if (usrc >= USER_TOP || max == 0)
		return -EFAULT;
	uint64_t room = MIN(max, USER_TOP - usrc);
	long n = arch_strncpy_user(dst, (const char *)usrc, room);
	if (n < 0)
		return n;
	if ((uint64_t)n == room) {
		dst[room - 1] = 0;
		return room == max ? -ENAMETOOLONG : -EFAULT;
	}
	return n;
}

int clear_user(vaddr_t udst, uint64_t len)
{
	if (!user_range_ok(udst, len))
		return -EFAULT;
	return (int)arch_clear_user((void *)udst, len);
}

int cmpxchg_user32(vaddr_t uaddr, uint32_t old, uint32_t new, uint32_t *seen)
{
	if ((uaddr & 3) || !user_range_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	return (int)arch_cmpxchg_user32((uint32_t *)uaddr, old, new, seen);
}
