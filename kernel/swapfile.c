/* kernel/swapfile.c -- swapon(2) and swapoff(2) with Linux's ABI and errnos,
 * and /proc/swaps: the kernel's side of swap areas (mm/frame/swap.h), which
 * knows paths and disks; mm reaches a disk only through the swap_io_ops
 * given here.
 *
 *   swapon("/dev/vdb", SWAP_FLAG_PREFER | 5)
 *     path --> block device inode --> struct blkdev (the area's key)
 *     swap_area_add(&disk_io, disk, ...)   reads mkswap's header through
 *                                          disk_io, checks it, sets up slots
 *   swapon("/swapfile", 0)
 *     path --> regular file's inode (the key; held while on, marked
 *              ip->swapfile: no write, truncation or store changes it now)
 *     its dirty pages written back, its clean ones dropped, then every
 *     page's place on the disk found once (op->bmap_page) into extents
 *     swap_area_add(&file_io, f, ...)      slot i is then the 8 sectors
 *                                          where its extent puts it on the
 *                                          disk, never through the file system
 *                                          (swapping allocates no blocks and
 *                                          reads no block map)
 *   swapoff("/dev/vdb")
 *     swap_area_stop      no new slots
 *     swap_unuse          every swapped-out page back (mm/swap.h)
 *     swap_area_remove
 *
 * Errors: -ENOENT etc. from the path walk; -EINVAL: not a block device, not
 * a swap area (no SWAPSPACE2, a bad header, too small), unknown flags, or
 * swapoff of something that is not on; -EBUSY: on already; -ENOMEM: swapoff
 * could not bring every page back into memory (the area stays on); -EPERM:
 * every area slot is taken. A swap file: -EINVAL when its file system has
 * no bmap_page (tmpfs, as on Linux), when it has holes (Linux: "swapfile
 * has holes") or its first page is scattered; its other scattered pages
 * are left out (bad pages). -EIO: writing its dirty pages back failed.
 *
 * Locking: swapon_mutex (sleep rank SLEEP_RANK_MOUNT: like the mount
 * table, it changes which storage is in use; never nested with it) makes
 * swapon and swapoff one at a time.
 */
#include "kernel/syscall.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "kernel/procfs.h"
#include "arch/x86_64/timer.h"
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
#include "lib/printk.h"
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

/* The swap code's claim on the disks it uses (blkdev_claim): a disk a file
 * system is mounted on cannot become a swap area, nor the other way round
 * (Linux: swapon's and mount's exclusive opens, EBUSY). */
static const char swap_holder[] = "swap";

static void disk_release(void *dev)
{
	blkdev_unclaim(dev, swap_holder);
}

static const struct swap_io_ops disk_io = { .rw = disk_rw, .release = disk_release };

/* What a swapon or swapoff path names: a disk, or a regular file (its
 * path, with references: put_target). The disk or the file's inode is the
 * key of its area. */
struct swap_target {
	struct blkdev *disk;
	struct path file;         /* .dentry NULL unless a regular file */
};

/* The disk or file that path names (copied from user memory at upath into
 * name): 0, a path error, or -EINVAL (neither a block device nor a
 * regular file). */
static int find_target(vaddr_t upath, char *name, struct swap_target *t)
{
	long r = copyinstr(name, upath, PATH_MAX);
	if (r < 0)
		return r == -ENAMETOOLONG || r == -ERANGE ? -ENAMETOOLONG : (int)r;
	struct path p;
	int e = fs_walk(name, LOOKUP_FOLLOW, &p);
	if (e < 0)
		return e;
	struct inode *ip = p.dentry->inode;
	t->disk = S_ISBLK(ip->mode) ? blkdev_by_devt(ip->rdev) : NULL;
	if (S_ISREG(ip->mode))
		t->file = p;   /* (its references move to t) */
	else
		path_put(&p);
	return t->disk || t->file.dentry ? 0 : -EINVAL;
}

static void put_target(struct swap_target *t)
{
	if (t->file.dentry)
		path_put(&t->file);
}

static const void *target_key(const struct swap_target *t)
{
	return t->file.dentry ? (const void *)t->file.dentry->inode : (const void *)t->disk;
}

/* ---- swap files ---- */

/* A run of pages of a swap file that lie one after another on the disk
 * (Linux's swap_extent). */
struct swap_extent {
	uint64_t page;            /* its first page (slot) in the file */
	uint64_t pages;
	uint64_t sector;          /* where that page starts on the disk */
};

/* A swap file while it is on: where its pages lie on the disk of its file
 * system, found once at swapon, as extents sorted by page; a page in none
 * is left out (its blocks are not neighbours: a bad page). A fresh file is
 * a few extents: one per run of blocks between two of ext2's indirect
 * blocks or block-group headers. */
struct swap_file {
	struct path path;         /* references: the file stays, its file system
				   * stays mounted (umount: -EBUSY) */
	struct inode *ip;         /* path's inode; ip->swapfile set */
	struct blkdev *disk;      /* ip->sb->bdev */
	uint64_t pages;           /* the file's whole pages */
	uint32_t n, room;         /* extents used, allocated */
	struct swap_extent *ext;
};

/* The extent holding page `slot`, or NULL (left out). */
static const struct swap_extent *extent_of(const struct swap_file *f, uint64_t slot)
{
	uint32_t lo = 0, hi = f->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		const struct swap_extent *e = &f->ext[mid];
		if (slot < e->page)
			hi = mid;
		else if (slot >= e->page + e->pages)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

static int file_rw(void *dev, uint64_t slot, struct page **pages, unsigned n, enum swap_dir dir)
{
	struct swap_file *f = dev;
	struct blk_plug p;
	blk_plug_init(&p, f->disk);
	for (unsigned i = 0; i < n; i++) {
		const struct swap_extent *e = extent_of(f, slot + i);
		if (!e)
			panic("swapfile: slot %lu of %s was left out", slot + i, f->path.dentry->name);
		blk_plug_add(&p, dir == SWAP_WRITE ? BLK_WRITE : BLK_READ,
			     e->sector + (slot + i - e->page) * (PAGE_SIZE / SECTOR_SIZE),
			     page_va(pages[i]), PAGE_SIZE);
	}
	return blk_plug_finish(&p) < 0 ? -EIO : 0;
}

static bool file_usable(void *dev, uint64_t slot)
{
	return extent_of(dev, slot) != NULL;
}

/* Mark ip a swap file or not (under both locks: see struct inode). */
static void set_swapfile(struct inode *ip, bool on)
{
	mutex_lock(&ip->lock);
	down_write(&ip->invalidate);
	ip->swapfile = on;
	up_write(&ip->invalidate);
	mutex_unlock(&ip->lock);
}

static void file_free(struct swap_file *f)
{
	kfree(f->ext);
	kfree(f);
}

static void file_release(void *dev)
{
	struct swap_file *f = dev;
	set_swapfile(f->ip, false);
	path_put(&f->path);
	file_free(f);
}

static const struct swap_io_ops file_io = { .rw = file_rw, .release = file_release,
					    .usable = file_usable };

/* Page `page` starts on the disk at sector: grow the last extent or add
 * one. 0 or -ENOMEM. */
static int extent_add(struct swap_file *f, uint64_t page, uint64_t sector)
{
	struct swap_extent *last = f->n ? &f->ext[f->n - 1] : NULL;
	if (last && last->page + last->pages == page &&
	    last->sector + last->pages * (PAGE_SIZE / SECTOR_SIZE) == sector) {
		last->pages++;
		return 0;
	}
	if (f->n == f->room) {
		uint32_t room = f->room ? f->room * 2 : 16;
		struct swap_extent *ext = kmalloc(room * sizeof(*ext));
		if (!ext)
			return -ENOMEM;
		memcpy(ext, f->ext, f->n * sizeof(*ext));
		kfree(f->ext);
		f->ext = ext;
		f->room = room;
	}
	f->ext[f->n++] = (struct swap_extent){ page, 1, sector };
	return 0;
}

/* Where each page of ip is on the disk, into f's extents: 0, -EINVAL (a
 * hole, or page 0 -- mkswap's header -- scattered), -EIO, -EUCLEAN,
 * -ENOMEM. */
static int map_pages(struct inode *ip, struct swap_file *f)
{
	mutex_lock(&ip->lock);
	int r = 0;
	for (uint64_t i = 0; i < f->pages && r == 0; i++) {
		uint64_t sector;
		int how = ip->op->bmap_page(ip, i, &sector);
		if (how < 0)
			r = how;
		else if (how == PAGE_HOLE || (how == PAGE_SCATTERED && i == 0))
			r = -EINVAL;
		else if (how == PAGE_CONTIGUOUS)
			r = extent_add(f, i, sector);   /* (scattered: left out) */
	}
	mutex_unlock(&ip->lock);
	return r;
}

/* The swap file at path: its pages on the disk, its inode marked (its
 * contents are swap's from here on), references on path taken: 0 and
 * *out, or -errno with the inode as it was. Its dirty pages are written
 * back first (the header is read from the disk), and its clean ones
 * dropped (what swapping writes would make them stale). */
static int swap_file_open(const struct path *path, struct swap_file **out)
{
	struct inode *ip = path->dentry->inode;
	if (!ip->op || !ip->op->bmap_page || !ip->sb->bdev)
		return -EINVAL;
	uint64_t pages = ip->size / PAGE_SIZE;
	if (pages < SWAP_MIN_PAGES)
		return -EINVAL;
	struct swap_file *f = kzalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct swap_file){ .path = *path, .ip = ip, .disk = ip->sb->bdev, .pages = pages };
	set_swapfile(ip, true);
	int r = pagecache_write_back(ip->mapping, 0, PC_MAX_INDEX) < 0 ? -EIO : 0;
	if (r == 0) {
		(void)pagecache_shrink(ip->mapping, 0, PC_MAX_INDEX, UINT64_MAX);
		r = map_pages(ip, f);
	}
	if (r < 0) {
		set_swapfile(ip, false);
		file_free(f);
		return r;
	}
	path_get(path);
	*out = f;
	return 0;
}

static long swapon_file(const struct path *path, const char *name, int prio)
{
	if (__atomic_load_n(&path->dentry->inode->swapfile, __ATOMIC_RELAXED))
		return -EBUSY;   /* (swapon_mutex: nobody marks it meanwhile) */
	struct swap_file *f;
	int r = swap_file_open(path, &f);
	if (r < 0)
		return r;
	r = swap_area_add(&file_io, f, f->ip, f->pages * PAGE_SIZE, prio, name, true);
	if (r < 0) {
		file_release(f);
		return r;
	}
	struct swap_area_info in;
	if (swap_area_info(r, &in))   /* (Linux: "Adding 1048572k swap on /swapfile. ... extents:9") */
		printk("swap: on %s: %lu kB in %u extents, %lu pages left out\n", name,
		       in.slots * (PAGE_SIZE / 1024), f->n, f->pages - 1 - in.slots);
	return 0;
}

/* ---- swapon, swapoff ---- */

static long swapon_disk(struct blkdev *d, const char *name, int prio)
{
	if (blkdev_claim(d, swap_holder) < 0)
		return -EBUSY;          /* a file system is mounted on it */
	int r = swap_area_add(&disk_io, d, d, d->sectors * SECTOR_SIZE, prio, name, false);
	if (r < 0)
		blkdev_unclaim(d, swap_holder);   /* (the area's own claim, if on, stays) */
	return r < 0 ? r : 0;
}

static long sys_swapon(const uint64_t a[6])
{
	unsigned flags = (unsigned)a[1];
	if (flags & ~SWAP_FLAGS_VALID)
		return -EINVAL;
	int prio = flags & SWAP_FLAG_PREFER ? (int)(flags & SWAP_FLAG_PRIO_MASK) : -1;
	char *name = kmalloc(PATH_MAX);
	if (!name)
		return -ENOMEM;
	struct swap_target t = { 0 };
	mutex_lock(&swapon_mutex);
	long r = find_target(a[0], name, &t);
	if (r == 0)
		r = t.file.dentry ? swapon_file(&t.file, name, prio) : swapon_disk(t.disk, name, prio);
	mutex_unlock(&swapon_mutex);
	put_target(&t);
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

#define UNUSE_WAITS 50              /* swapoff's waits for slots still busy ... */
#define UNUSE_WAIT_NS 10000000ull   /* ... 10 ms each */

/* swap_unuse, again while it leaves slots in use (-EBUSY): pages the
 * reclaimer still holds for a write in flight keep theirs until the write
 * ends and the page leaves the cache (swapoff right after a munmap of
 * swapped memory failed with ENOMEM now and then: make pictures' lists
 * step). Linux's try_to_unuse waits on the page lock the same way. */
static int unuse_waiting(int area)
{
	int r = swap_unuse(area);
	for (int i = 0; r == -EBUSY && i < UNUSE_WAITS; i++) {
		sleep_until_ns(clock_ns() + UNUSE_WAIT_NS);
		r = swap_unuse(area);
	}
	return r;
}

static long swapoff_area(int area)
{
	swap_area_stop(area);
	int r = room_for(area) ? unuse_waiting(area) : -ENOMEM;
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
	struct swap_target t = { 0 };
	mutex_lock(&swapon_mutex);
	long r = find_target(a[0], name, &t);
	int area = r == 0 ? swap_area_find(target_key(&t)) : -EINVAL;
	if (r == 0)
		r = area < 0 ? -EINVAL : swapoff_area(area);
	mutex_unlock(&swapon_mutex);
	put_target(&t);
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
