/* kernel/swapfile.c -- swapon(2) and swapoff(2) with Linux's ABI and errnos,
 * and /proc/swaps: the kernel's side of swap areas (mm/frame/swap.h), which
 * knows paths and disks; mm reaches a disk only through the swap_io_ops
 * given here.
 *
 *   swapon("/dev/vdb", SWAP_FLAG_PREFER | 5)
 *     path --> block device inode --> struct blkdev (the area's key)
 *     swap_area_add(&disk_io, disk, ...)   reads mkswap's header through
 *                                          disk_io, checks it, sets up slots
 *   swapoff("/dev/vdb")
 *     swap_area_stop      no new slots
 *     swap_unuse          every swapped-out page back (mm/swap.h)
 *     swap_area_remove
 *
 * Errors: -ENOENT etc. from the path walk; -EINVAL: not a block device, not
 * a swap area (no SWAPSPACE2, a bad header, too small), unknown flags, or
 * swapoff of something that is not on; -EBUSY: on already; -ENOMEM: swapoff
 * could not bring every page back into memory (the area stays on); -EPERM:
 * every area slot is taken. Swap files (regular files) are not supported
 * yet: -EINVAL, as Linux says for a file it cannot swap to.
 *
 * Locking: swapon_mutex (sleep rank SLEEP_RANK_MOUNT: like the mount
 * table, it changes which storage is in use; never nested with it) makes
 * swapon and swapoff one at a time.
 */
#include "kernel/syscall.h"
#include "kernel/fs.h"
#include "kernel/procfs.h"
#include "fs/textbuf.h"
#include "drivers/block/blkdev.h"
#include "fs/vfs.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/swap.h"
#include "mm/reclaim.h"
#include "mm/swap.h"
#include "mm/uaccess.h"
#include "mm/pagecache.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/mutex.h"
#include "lib/string.h"

#define SWAP_FLAG_PREFER 0x8000
#define SWAP_FLAG_PRIO_MASK 0x7fff
#define SWAP_FLAG_DISCARD 0x10000
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#define SWAP_FLAGS_VALID (SWAP_FLAG_PRIO_MASK | SWAP_FLAG_PREFER | SWAP_FLAG_DISCARD | \
			  SWAP_FLAG_DISCARD_ONCE | SWAP_FLAG_DISCARD_PAGES)

static struct mutex swapon_mutex = MUTEX_INIT("swapon", SLEEP_RANK_MOUNT);

/* A disk's slots: page `slot` is sectors slot * 8 .. slot * 8 + 7. The
 * pages of a run of slots go in one plug: the block layer merges them into
 * requests of up to 32 pages (they are anywhere in memory: one segment
 * each). */
static int disk_rw(void *dev, uint64_t slot, struct page **pages, unsigned n, enum swap_dir dir)
{
	struct blk_plug p;
	blk_plug_init(&p, dev);
	for (unsigned i = 0; i < n; i++)
		blk_plug_add(&p, dir == SWAP_WRITE ? BLK_WRITE : BLK_READ,
			     (slot + i) * (PAGE_SIZE / SECTOR_SIZE), page_va(pages[i]), PAGE_SIZE);
	return blk_plug_finish(&p) < 0 ? -EIO : 0;
}

static const struct swap_io_ops disk_io = { .rw = disk_rw };

/* The disk that path names (copied from user memory at upath), in *d:
 * 0, a path error, or -EINVAL (not a block device). */
static int find_disk(vaddr_t upath, char *name, struct blkdev **d)
{
	long r = copyinstr(name, upath, PATH_MAX);
	if (r < 0)
		return r == -ENAMETOOLONG || r == -ERANGE ? -ENAMETOOLONG : (int)r;
	struct path p;
	int e = fs_walk(name, LOOKUP_FOLLOW, &p);
	if (e < 0)
		return e;
	struct inode *ip = p.dentry->inode;
	*d = S_ISBLK(ip->mode) ? blkdev_by_devt(ip->rdev) : NULL;
	path_put(&p);
	return *d ? 0 : -EINVAL;
}

static long swapon_disk(struct blkdev *d, const char *name, unsigned flags)
{
	int prio = flags & SWAP_FLAG_PREFER ? (int)(flags & SWAP_FLAG_PRIO_MASK) : -1;
	int r = swap_area_add(&disk_io, d, d, d->sectors * SECTOR_SIZE, prio, name, false);
	return r < 0 ? r : 0;
}

static long sys_swapon(const uint64_t a[6])
{
	unsigned flags = (unsigned)a[1];
	if (flags & ~SWAP_FLAGS_VALID)
		return -EINVAL;
	char *name = kmalloc(PATH_MAX);
	if (!name)
		return -ENOMEM;
	struct blkdev *d;
	mutex_lock(&swapon_mutex);
	long r = find_disk(a[0], name, &d);
	if (r == 0)
		r = swapon_disk(d, name, flags);
	mutex_unlock(&swapon_mutex);
	kfree(name);
	return r;
}

/* Could the pages on area (stopped) come back? Linux's
 * security_vm_enough_memory check: the slots in use that no page in memory
 * holds (the swap cache's are back already) against free frames, clean
 * cache pages and the free slots of the other areas (where reclaim can
 * put others). */
static bool room_for(int area)
{
	uint64_t total, free_slots, cached, used = swap_area_used(area);
	swap_totals(&total, &free_slots, &cached);
	uint64_t clean = atomic_load(&pagecache_stats.pages) - atomic_load(&pagecache_stats.dirty);
	uint64_t out = used > cached ? used - cached : 0;
	return out + reclaim_low <= atomic_load(&mm_stats.free) + clean + free_slots;
}

static long swapoff_area(int area)
{
	swap_area_stop(area);
	int r = room_for(area) ? swap_unuse(area) : -ENOMEM;
	if (r == 0)
		r = swap_area_remove(area);
	if (r < 0)
		swap_area_restart(area);
	return r == -EBUSY || r == -EIO ? -ENOMEM : r;
}

static long sys_swapoff(const uint64_t a[6])
{
	char *name = kmalloc(PATH_MAX);
	if (!name)
		return -ENOMEM;
	struct blkdev *d;
	mutex_lock(&swapon_mutex);
	long r = find_disk(a[0], name, &d);
	int area = r == 0 ? swap_area_find(d) : -EINVAL;
	if (r == 0)
		r = area < 0 ? -EINVAL : swapoff_area(area);
	mutex_unlock(&swapon_mutex);
	kfree(name);
	return r;
}

/* /proc/swaps, as Linux prints it:
 * Filename				Type		Size		Used		Priority
 * /dev/vdb                                partition	262140		0		-2
 */
void procfs_show_swaps(struct textbuf *tb)
{
	tb_printf(tb, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	for (int i = 0; i < SWAP_MAX_AREAS; i++) {
		struct swap_area_info in;
		if (!swap_area_info(i, &in))
			continue;
		tb_printf(tb, "%-40s%s\t%lu\t\t%lu\t\t%d\n", in.name,
			       in.is_file ? "file\t" : "partition", in.slots * (PAGE_SIZE / 1024),
			       in.used * (PAGE_SIZE / 1024), in.prio);
	}
}

const struct syscall_entry sys_swap_table[] = {
	{ SYS_swapon, "swapon", sys_swapon },
	{ SYS_swapoff, "swapoff", sys_swapoff },
	{ 0, NULL, NULL },
};
