/* tests/unit/host_fs.c -- what fs/ needs from below that the host does
 * not have: shared text (mm/ptshare_text.c), user copies (user addresses
 * are host pointers here). The clock and the reverse map's walk
 * (mm/rmap.c) are host_mm.c's. */
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
