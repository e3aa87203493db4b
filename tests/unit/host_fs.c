/* tests/unit/host_fs.c -- what fs/ needs from below that the host does
 * not have: shared text (mm/ptshare_text.c), address spaces (the reverse
 * map's walk, mm/rmap.c), user copies (user addresses are host pointers
 * here). The clock is host_mm.c's. */
#include <stdlib.h>
#include <string.h>
#include "lib/types.h"
#include "mm/uaccess.h"
#include "mm/ptshare.h"
#include "mm/rmap.h"
#include "mm/vmobject.h"

void ptshare_text_forget(struct vmobject *file)
{
	(void)file;
}

void (*host_unmap_hook)(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how);

/* The host has no address spaces, so no file is ever mapped here: the
 * walk would find nothing (a mapping on the list is a harness bug); a
 * test may look at the file when the walk would run (host_unmap_hook). */
void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	if (!list_empty(&obj->mappings))
		abort();
	__atomic_add_fetch(&obj->rmap_seq, 1, __ATOMIC_SEQ_CST);
	if (host_unmap_hook)
		host_unmap_hook(obj, first, n, how);
}

void vmobject_wrprotect(struct vmobject *obj, uint64_t first, uint64_t n)
{
	vmobject_unmap(obj, first, n, UNMAP_PUNCH);   /* the same: nothing is mapped */
}

int copyin(void *dst, vaddr_t usrc, uint64_t len)
{
	memcpy(dst, (const void *)usrc, len);
	return 0;
}

int copyout(vaddr_t udst, const void *src, uint64_t len)
{
	memcpy((void *)udst, src, len);
	return 0;
}

int clear_user(vaddr_t udst, uint64_t len)
{
	memset((void *)udst, 0, len);
	return 0;
}
