/* fs/inode.c -- inodes: their references, their eviction, and the object
 * mmap maps for a file: its page cache (fs/vfs.h).
 *
 *   VMA --obj--> inode->vmobj --get_page(idx)--> pagecache_get(mapping, idx)
 *
 * A shared mapping's first store to a page of a file with a store comes
 * through page_mkwrite, which dirties it (mm/vmobject.h).
 *
 * The vmobject's references count the VMAs mapping the file; the first one
 * holds the inode (hold: inode_get), the last gives it back (release), so
 * a file unlinked while mapped keeps its pages until the last munmap.
 */
#include "fs/vfs.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/ptshare.h"
#include "mm/rmap.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/memlayout.h"

static uint64_t epoch_ns;   /* CLOCK_REALTIME when clock_ns() was 0 */

struct inode_stats inode_stats;

/* The idle inodes of SB_RECLAIMABLE file systems, longest idle first
 * (Linux's inode LRU): an inode joins when its last reference goes while
 * it still has links; one referenced again stays on it until
 * inode_shrink meets it. Who changes what: the list and every on_idle
 * under idle_lock; the last reference of such an inode is dropped only
 * under it too, and a reference to an idle inode is taken only under its
 * sb's inodes_lock (inode_find): holding both, inode_shrink sees a count
 * of 0 that nobody can raise. */
static struct spinlock idle_lock = SPINLOCK_INIT("inode-idle", LOCK_RANK_INODE_IDLE);
static struct list idle = { &idle, &idle };

/* ip on the idle list (idle_lock held), unless it is there already. */
static void idle_add(struct inode *ip)
{
	if (ip->on_idle)
		return;
	ip->on_idle = true;
	list_add_tail(&idle, &ip->idle_link);
	inode_stats.idle++;
}

/* ip off the idle list if it is there (idle_lock held). */
static void idle_del(struct inode *ip)
{
	if (!ip->on_idle)
		return;
	ip->on_idle = false;
	list_del(&ip->idle_link);
	inode_stats.idle--;
}

void vfs_set_epoch(uint64_t ns)
{
	epoch_ns = ns;
}

struct vfs_time vfs_now(void)
{
	uint64_t ns = epoch_ns + clock_ns();
	return (struct vfs_time){ .sec = (int64_t)(ns / 1000000000ull),
				  .nsec = (uint32_t)(ns % 1000000000ull) };
}

void inode_mark_dirty(struct inode *ip)
{
	if (!ip->dirty)
		ip->dirtied_ns = clock_ns();
	ip->dirty = true;
}

void inode_touch(struct inode *ip)
{
	ip->mtime = ip->ctime = vfs_now();
	inode_mark_dirty(ip);
}

static const struct vmobject_ops file_obj_ops;

/* Write-back is about to clean pages [first, first + n) that a shared
 * mapping wrote: every mapping of them loses W (the page cache's mkclean). */
static void file_mkclean(struct pagecache *pc, uint64_t first, uint64_t n)
{
	vmobject_wrprotect(&((struct inode *)pc->owner)->vmobj, first, n);
}

void inode_init(struct inode *ip, struct super_block *sb, uint32_t mode,
		const struct pagecache_ops *pc_ops)
{
	ip->sb = sb;
	ip->mode = mode;
	ip->nlink = 1;
	ip->refs = 1;
	ip->atime = ip->mtime = ip->ctime = vfs_now();
	mutex_init(&ip->lock, "inode", SLEEP_RANK_INODE);
	rwsem_init(&ip->invalidate, "invalidate", SLEEP_RANK_INVALIDATE);
	list_init(&ip->sb_link);
	list_init(&ip->locks);
	stat_inc(&inode_stats.inodes);
	if ((S_ISREG(mode) || S_ISLNK(mode) || S_ISDIR(mode)) && pc_ops) {
		pagecache_init(&ip->data, pc_ops, ip, PC_KIND_FILE);
		ip->data.mkclean = file_mkclean;
		ip->data.obj = &ip->vmobj;   /* reclaim unmaps its pages through it */
		ip->mapping = &ip->data;
		vmobject_init(&ip->vmobj, &file_obj_ops, VMOBJ_FILE);
	}
}

/* The inode numbered ino on sb's list (inodes_lock held), or NULL; one
 * that is going (no links, no references) is not found. */
static struct inode *find_locked(struct super_block *sb, uint64_t ino)
{
	list_for_each(l, &sb->inodes) {
		struct inode *ip = list_entry(l, struct inode, sb_link);
		if (ip->ino == ino && (ip->nlink || atomic_load(&ip->refs)))
			return ip;
	}
	return NULL;
}

struct inode *inode_find(struct super_block *sb, uint64_t ino)
{
	spin_lock(&sb->inodes_lock);
	struct inode *ip = inode_get(find_locked(sb, ino));
	spin_unlock(&sb->inodes_lock);
	return ip;
}

struct inode *inode_insert(struct inode *ip)
{
	struct super_block *sb = ip->sb;
	spin_lock(&sb->inodes_lock);
	struct inode *other = inode_get(find_locked(sb, ip->ino));
	if (!other)
		list_add_tail(&sb->inodes, &ip->sb_link);
	spin_unlock(&sb->inodes_lock);
	return other ? other : ip;
}

struct inode *inode_new(struct super_block *sb, uint32_t mode, const struct pagecache_ops *pc_ops)
{
	struct inode *ip = kzalloc(sizeof(*ip));
	if (!ip)
		return NULL;
	inode_init(ip, sb, mode, (S_ISREG(mode) || S_ISLNK(mode)) ? pc_ops : NULL);
	spin_lock(&sb->inodes_lock);
	list_add_tail(&sb->inodes, &ip->sb_link);
	spin_unlock(&sb->inodes_lock);
	return ip;
}

struct inode *inode_get(struct inode *ip)
{
	if (ip)
		atomic_inc(&ip->refs);
	return ip;
}

/* Take ip off its file system's list: from now on no inode_find sees it. */
static void inode_unlist(struct inode *ip)
{
	spin_lock(&ip->sb->inodes_lock);
	list_del(&ip->sb_link);
	list_init(&ip->sb_link);
	spin_unlock(&ip->sb->inodes_lock);
}

/* Free ip's memory (off the list, no reference, no mapping): its pages,
 * its shared-text records and the inode. */
static void inode_free(struct inode *ip)
{
	spin_lock(&idle_lock);
	idle_del(ip);
	spin_unlock(&idle_lock);
	stat_sub(&inode_stats.inodes, 1);
	if (ip->mapping == &ip->data) {
		ptshare_text_forget(&ip->vmobj);   /* shared text tables of it (mm/ptshare_text.c) */
		pagecache_destroy(&ip->data);
	}
	if (ip->sb->ops->free_inode)
		ip->sb->ops->free_inode(ip);
	else
		kfree(ip);
}

/* Drop a reference that is not the last: true, or false (it is the last:
 * not dropped). */
static bool put_not_last(int *refs)
{
	int v = atomic_load(refs);
	while (v > 1)
		if (atomic_cmpxchg(refs, &v, v - 1))
			return true;
	return false;
}

/* Drop the last reference of ip (maybe: another CPU may have taken one
 * meanwhile): true if ip stays cached (still named: its file system keeps
 * it, on the idle list if reclaimable) or is still in use. */
static bool put_last_keeps(struct inode *ip)
{
	bool reclaimable = ip->sb->flags & SB_RECLAIMABLE;
	if (reclaimable)
		spin_lock(&idle_lock);
	bool last = atomic_dec_and_test(&ip->refs);
	bool named = ip->nlink && !(ip->sb->flags & SB_VOLATILE);
	if (last && named && reclaimable)
		idle_add(ip);
	if (reclaimable)
		spin_unlock(&idle_lock);
	return !last || named;
}

void inode_put(struct inode *ip)
{
	if (!ip)
		return;
	if (atomic_load(&ip->refs) <= 0)
		panic("inode_put: inode %lu of %s has no references", ip->ino, ip->sb->type->name);
	if (put_not_last(&ip->refs) || put_last_keeps(ip))
		return;
	inode_unlist(ip);             /* first: its number may be reused by evict's freeing */
	if (ip->sb->ops->evict)
		ip->sb->ops->evict(ip);   /* the blocks on its store */
	inode_free(ip);
}

/* ---- the backing object of a file (mm/vmobject.h) ---- */

static struct inode *obj_inode(struct vmobject *obj)
{
	return container_of(obj, struct inode, vmobj);
}

/* The page, under ip->invalidate (shared): a truncation cannot drop the
 * pages past its new end between the check of the size and the page's
 * arrival in the cache (fs/vfs.h). A page not in the cache is read in,
 * with read-ahead around it (a major fault: 1). */
static int file_get_page(struct vmobject *obj, uint64_t idx, enum vmobject_ra ra,
			 struct page **out)
{
	struct inode *ip = obj_inode(obj);
	down_read(&ip->invalidate);
	uint64_t end = ALIGN_UP(ip->size, PAGE_SIZE) / PAGE_SIZE;
	int r = idx < end ? pagecache_get(ip->mapping, idx, PC_FIND, out) : -EIO;   /* -EIO: SIGBUS */
	if (r == -ENOENT || r == -ENODATA) {
		bool store = ip->mapping->ops->write_pages || r == -ENODATA;   /* tmpfs: swap */
		if (ra == VMOBJ_RA_NORMAL)
			pagecache_readahead(ip->mapping, idx, 1, end);
		else if (ra == VMOBJ_RA_SEQUENTIAL)
			pagecache_fill(ip->mapping, idx, MIN(idx + 1 + PC_RA_MAX, end));
		r = pagecache_get(ip->mapping, idx, PC_READ, out);
		r = r == 0 && store ? 1 : r;   /* tmpfs: from swap, or a hole (no I/O) */
	}
	up_read(&ip->invalidate);
	/* tmpfs keeps what a mapping may write (no first-store fault there) */
	if (r >= 0 && ip->mapping->kind == PC_KIND_SHMEM && pagecache_mkwrite(ip->mapping, *out) < 0) {
		page_put(*out);
		r = -EAGAIN;   /* truncated meanwhile */
	}
	return r;
}

/* The ready pages of [first, first + n) inside the file's end, under
 * ip->invalidate as file_get_page; tmpfs's marked as get_page marks them. */
static unsigned file_get_ready(struct vmobject *obj, uint64_t first, unsigned n,
			       struct page **out)
{
	struct inode *ip = obj_inode(obj);
	down_read(&ip->invalidate);
	uint64_t end = ALIGN_UP(ip->size, PAGE_SIZE) / PAGE_SIZE;
	unsigned inside = first >= end ? 0 : (unsigned)MIN(n, end - first), found = 0;
	if (inside)
		found = pagecache_get_ready(ip->mapping, first, inside, out);
	up_read(&ip->invalidate);
	for (unsigned i = 0; i < n; i++) {
		if (i >= inside) {
			out[i] = NULL;
		} else if (out[i] && ip->mapping->kind == PC_KIND_SHMEM &&
			   pagecache_mkwrite(ip->mapping, out[i]) < 0) {
			page_put(out[i]);   /* truncated meanwhile */
			out[i] = NULL;
			found--;
		}
	}
	return found;
}

/* A store through a shared mapping is coming: the page goes to the disk
 * (dirty until a write-back write-protects and writes it:
 * pagecache_mkwrite), its blocks made to exist (prepare_mmap_write: a
 * hole filled; once while the page is cached: PGC_BLOCKS), and the file
 * was modified (Linux's file_update_time in its page_mkwrite). Under ip->invalidate (shared), so that the page
 * stays in the cache, and its index inside the file's blocks that a
 * truncation frees after. -EAGAIN: truncated meanwhile; -ETXTBSY: the
 * file is an active swap area (its blocks are swap's: no page of its cache
 * is ever written back over them); the file system's -ENOSPC, -ENOMEM,
 * -EIO (the page is dirty then but unchanged: no store happens). */
static int file_page_mkwrite(struct vmobject *obj, struct page *pg)
{
	struct inode *ip = obj_inode(obj);
	down_read(&ip->invalidate);
	int r = ip->swapfile ? -ETXTBSY : pagecache_mkwrite(ip->mapping, pg);
	if (r == 0 && ip->op && ip->op->prepare_mmap_write &&   /* once while it is cached */
	    !pagecache_test_flags(ip->mapping, pg, PGC_BLOCKS) &&
	    (r = ip->op->prepare_mmap_write(ip, pg->cache.index)) == 1) {
		pagecache_set_flags(ip->mapping, pg, PGC_BLOCKS);
		r = 0;
	}
	up_read(&ip->invalidate);
	if (r == 0)
		inode_touch(ip);
	return r;
}

/* MADV_WILLNEED of a mapping: POSIX_FADV_WILLNEED of its range. */
static void file_willneed(struct vmobject *obj, uint64_t idx, uint64_t n)
{
	(void)vfs_fadvise(obj_inode(obj), idx * PAGE_SIZE, n * PAGE_SIZE, POSIX_FADV_WILLNEED);
}

/* MADV_REMOVE of a shared mapping: a hole punched (the file system's, if
 * it has them: tmpfs; ext2 has not, as on Linux: -EOPNOTSUPP). */
static int file_remove(struct vmobject *obj, uint64_t idx, uint64_t n)
{
	return vfs_punch_hole(obj_inode(obj), idx * PAGE_SIZE, n * PAGE_SIZE);
}

static int file_resident(struct vmobject *obj, uint64_t idx)
{
	struct page *pg;
	if (pagecache_get(obj_inode(obj)->mapping, idx, PC_FIND, &pg) < 0)
		return 0;
	page_put(pg);
	return 1;
}

/* ---- the object's holds: a mapping holds the inode ---- */

static void file_hold(struct vmobject *obj)
{
	inode_get(obj_inode(obj));
}

static void file_release(struct vmobject *obj)
{
	inode_put(obj_inode(obj));
}

static const struct vmobject_ops file_obj_ops = {
	.get_page = file_get_page, .get_ready = file_get_ready,
	.page_mkwrite = file_page_mkwrite, .resident = file_resident,
	.remove = file_remove, .willneed = file_willneed,
	.hold = file_hold, .release = file_release,
};

struct vmobject *inode_vmobject(struct inode *ip)
{
	if (!S_ISREG(ip->mode) || !ip->mapping)
		return NULL;
	ip->vmobj.npages = ALIGN_UP(ip->size, PAGE_SIZE) / PAGE_SIZE;
	ip->vmobj.notify_write = ip->mapping->ops->write_pages != NULL;   /* tmpfs: no store */
	return &ip->vmobj;
}

struct inode *vmobject_inode(struct vmobject *obj)
{
	return obj && obj->ops == &file_obj_ops ? obj_inode(obj) : NULL;
}

bool sb_drop_inodes(struct super_block *sb)
{
	for (;;) {
		struct inode *idle = NULL;
		bool all = true;
		spin_lock(&sb->inodes_lock);
		list_for_each(l, &sb->inodes) {
			struct inode *ip = list_entry(l, struct inode, sb_link);
			if (atomic_load(&ip->refs) == 0 && !idle)
				idle = ip;
			else if (atomic_load(&ip->refs))
				all = false;
		}
		if (idle) {
			list_del(&idle->sb_link);
			list_init(&idle->sb_link);
		}
		spin_unlock(&sb->inodes_lock);
		if (!idle)
			return all;
		inode_free(idle);   /* the file system is going: nothing to evict on its store */
	}
}

/* Has idle ip nothing unwritten, fields or pages? (Nobody holds it: no
 * write can be under way.) */
static bool idle_clean(const struct inode *ip)
{
	return !ip->dirty && (!ip->mapping || !atomic_load(&ip->mapping->ndirty));
}

/* The idle inode to free next, taken off its sb's list (so no lookup
 * finds it), or NULL: inodes used again or going are taken off the idle
 * list on the way, unwritten ones go round to its tail. */
static struct inode *take_idle(void)
{
	struct inode *found = NULL;
	spin_lock(&idle_lock);
	for (uint64_t looks = inode_stats.idle; !found && looks && !list_empty(&idle); looks--) {
		struct inode *ip = list_entry(idle.next, struct inode, idle_link);
		spin_lock(&ip->sb->inodes_lock);
		if (atomic_load(&ip->refs) || list_empty(&ip->sb_link)) {
			idle_del(ip);            /* in use again, or its sb is dropping it */
		} else if (!idle_clean(ip)) {
			list_del(&ip->idle_link);   /* the flusher writes it first */
			list_add_tail(&idle, &ip->idle_link);
		} else {
			idle_del(ip);
			list_del(&ip->sb_link);
			list_init(&ip->sb_link);
			found = ip;
		}
		spin_unlock(&ip->sb->inodes_lock);
	}
	spin_unlock(&idle_lock);
	return found;
}

uint64_t inode_shrink(uint64_t n)
{
	uint64_t freed = 0;
	struct inode *ip;
	while (freed < n && (ip = take_idle())) {
		inode_free(ip);
		freed++;
	}
	return freed;
}

bool sb_has_mapped_files(struct super_block *sb)
{
	bool mapped = false;
	spin_lock(&sb->inodes_lock);
	list_for_each(l, &sb->inodes)
		mapped |= atomic_load(&list_entry(l, struct inode, sb_link)->vmobj.refs) != 0;
	spin_unlock(&sb->inodes_lock);
	return mapped;
}
