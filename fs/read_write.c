/* fs/read_write.c -- reading and writing files through their page cache,
 * directories through their file system's readdir, and stat.
 *
 *   read(fd, buf, n)                       write(fd, buf, n)
 *     pagecache_readahead: absent pages      inode->lock (size, O_APPEND)
 *       in batches, and a window past        for each page:
 *     for each page of [off, off+n):           pagecache_get(PC_READ, or
 *       pagecache_get(PC_READ) -- fills        PC_OVERWRITE when the page is
 *       from the store if absent               written whole or lies past EOF)
 *       copyout(page + in)                     copyin, pagecache_set_dirty
 *                                            size grows; mtime
 * The copies run with no spinlock held: a fault on the user buffer (even
 * one that maps this very file) takes the ordinary fault path.
 */
#include "fs/file.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/page.h"
#include "mm/rmap.h"
#include "mm/uaccess.h"
#include "libc/include/pagoda/abi-stat.h"
#include "libc/include/pagoda/dirent64.h"
#include "arch/x86_64/memlayout.h"

#define MAX_FILE_SIZE ((PC_MAX_INDEX + 1) * PAGE_SIZE)

static char *page_bytes(struct page *pg)
{
	return (char *)P2V(page_to_pa(pg));
}

/* Have the store make room for [off, off + len) (ext2: blocks), with
 * the page that holds it already in the cache: read while its new
 * blocks were still holes, the page has zeros where the write does not
 * reach, never what a freshly allocated block held on the disk. */
static int prepare_write(struct inode *ip, uint64_t off, uint64_t len)
{
	return ip->op && ip->op->prepare_write ? ip->op->prepare_write(ip, off, len) : 0;
}

/* Copy chunk bytes from user ubuf into page idx at in (room made first,
 * prepare_write), the page then dirty: chunk, or -errno. */
static long copy_page_in(struct inode *ip, uint64_t idx, uint64_t in, vaddr_t ubuf,
			 uint64_t chunk)
{
	struct page *pg;
	bool whole = in == 0 && (chunk == PAGE_SIZE || idx * PAGE_SIZE + chunk >= ip->size);
	bool past = idx * PAGE_SIZE >= ip->size;
	int r = pagecache_get(ip->mapping, idx, whole || past ? PC_OVERWRITE : PC_READ, &pg);
	if (r < 0)
		return r;
	if ((r = prepare_write(ip, idx * PAGE_SIZE + in, chunk)) < 0) {
		page_put(pg);
		return r;   /* -ENOSPC: what was written before stays */
	}
	r = copyin(page_bytes(pg) + in, ubuf, chunk);
	if (r == 0)
		pagecache_set_dirty(ip->mapping, pg);
	page_put(pg);
	return r < 0 ? -EFAULT : (long)chunk;
}

/* The caller's window on a cache: under inval (if any), the object's
 * size read again. */
static uint64_t size_locked(const uint64_t *size, struct rwsem *inval)
{
	if (inval)
		down_read(inval);
	return __atomic_load_n(size, __ATOMIC_RELAXED);
}

static void size_unlock(struct rwsem *inval)
{
	if (inval)
		up_read(inval);
}

long cache_read(struct pagecache *pc, const uint64_t *sizep, struct rwsem *inval, uint64_t *off,
		vaddr_t ubuf, uint64_t n)
{
	uint64_t done = 0, size = size_locked(sizep, inval);
	long r = 0;
	if (*off < size) {   /* the pages of the read, and a window past them */
		uint64_t first = *off / PAGE_SIZE, last = (*off + MIN(n, size - *off) - 1) / PAGE_SIZE;
		pagecache_readahead(pc, first, last - first + 1, ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE);
	}
	size_unlock(inval);
	while (done < n) {
		struct page *pg;
		size = size_locked(sizep, inval);
		r = *off < size ? pagecache_get(pc, *off / PAGE_SIZE, PC_READ, &pg) : 1;
		size_unlock(inval);
		if (r != 0)
			break;   /* the end (1), or the cache's error */
		uint64_t in = *off % PAGE_SIZE, chunk = MIN(MIN(n - done, PAGE_SIZE - in), size - *off);
		r = copyout(ubuf + done, page_bytes(pg) + in, chunk) < 0 ? -EFAULT : 0;
		page_put(pg);
		if (r < 0)
			break;
		*off += chunk;
		done += chunk;
	}
	return done ? (long)done : r > 0 ? 0 : r;
}

static long page_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	return cache_read(f->inode->mapping, &f->inode->size, &f->inode->invalidate, &f->off,
			  ubuf, n);
}

/* Write under ip->lock: bytes written, or -errno when none were. */
static long write_locked(struct file *f, struct inode *ip, vaddr_t ubuf, uint64_t n)
{
	if (ip->swapfile)
		return -ETXTBSY;   /* its blocks are swap's (Linux's generic_write_checks) */
	if (f->flags & O_APPEND)
		f->off = ip->size;
	if (f->off >= MAX_FILE_SIZE)
		return -EFBIG;
	n = MIN(n, MAX_FILE_SIZE - f->off);
	uint64_t done = 0, old = ip->size;
	long r = 0;
	while (done < n) {
		uint64_t in = f->off % PAGE_SIZE, chunk = MIN(n - done, PAGE_SIZE - in);
		r = copy_page_in(ip, f->off / PAGE_SIZE, in, ubuf + done, chunk);
		if (r < 0)
			break;
		f->off += chunk;
		done += chunk;
		if (f->off > ip->size)
			ip->size = f->off;
	}
	if (ip->size != old && ip->op && ip->op->set_size && (r = ip->op->set_size(ip, old)) < 0)
		ip->size = old;   /* the store has no room: nothing past the old end */
	if (done)
		inode_touch(ip);
	return done ? (long)done : r;
}

static long page_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct inode *ip = f->inode;
	mutex_lock(&ip->lock);
	long r = write_locked(f, ip, ubuf, n);
	mutex_unlock(&ip->lock);
	if (r > 0 && ip->mapping->ops->write_pages && pagecache_dirty_over_limit())
		(void)pagecache_write_back(ip->mapping, 0, PC_MAX_INDEX);   /* Linux's balance_dirty_pages */
	return r;
}

int inode_sync_range(struct inode *ip, uint64_t first, uint64_t last)
{
	int r = pagecache_write_back(ip->mapping, first, last);
	if (ip->op && ip->op->write_inode) {
		int w = ip->op->write_inode(ip);
		r = r ? r : w;
	}
	int c = vfs_commit(ip->sb, COMMIT_FSYNC);
	return r ? r : c;
}

/* fsync: the file's pages, then the disk's cache; a write-back error
 * since the last fsync is reported once. */
static int page_fsync(struct file *f)
{
	int r = inode_sync_range(f->inode, 0, PC_MAX_INDEX);
	int e = pagecache_error_since(f->inode->mapping, &f->wb_mark);
	return e ? e : r;
}

/* A directory: its entries' pages (a disk file system's), its inode, the disk. */
static int dir_fsync(struct file *f)
{
	struct inode *ip = f->inode;
	if (ip->mapping)
		return page_fsync(f);
	return vfs_commit(ip->sb, COMMIT_FSYNC);
}

static long dir_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return -EISDIR;
}

const struct file_ops page_file_ops = {
	.read = page_read, .write = page_write, .fsync = page_fsync, .seekable = true,
};
const struct file_ops dir_file_ops = {
	.read = dir_read, .write = file_no_write, .fsync = dir_fsync, .seekable = true,
};

long inode_read(struct inode *ip, uint64_t off, void *dst, uint64_t n)
{
	if (!ip->mapping)
		return -EINVAL;
	if (off >= ip->size)
		return 0;
	n = MIN(n, ip->size - off);
	return pagecache_copy(ip->mapping, off, dst, n, PC_COPY_OUT);
}

/* ---- directories ---- */

/* Copy one linux_dirent64 (next entry at next) to ubuf: its length, 0 if
 * it does not fit in room, or -EFAULT. */
static long put_dirent(vaddr_t ubuf, uint64_t room, const struct dir_entry *de, uint64_t next)
{
	size_t nlen = strlen(de->name);
	uint16_t len = (uint16_t)ALIGN_UP(offsetof(struct linux_dirent64, d_name) + nlen + 1, 8);
	char buf[sizeof(struct linux_dirent64) + NAME_MAX + 8];
	struct linux_dirent64 *d = (void *)buf;
	if (len > room)
		return 0;
	memset(buf, 0, len);
	d->d_ino = de->ino;
	d->d_off = (int64_t)next;
	d->d_reclen = len;
	d->d_type = de->type;
	memcpy(d->d_name, de->name, nlen);
	return copyout(ubuf, buf, len) < 0 ? -EFAULT : len;
}

/* The entry at position *pos or after: "." and ".." first, then the file
 * system's. 1, 0 at the end, or -errno. */
static int next_entry(struct file *f, uint64_t *pos, struct dir_entry *de)
{
	struct dentry *d = f->path.dentry;
	if (*pos <= 1) {
		struct inode *ip = *pos == 0 ? d->inode : d->parent->inode;
		strlcpy(de->name, *pos == 0 ? "." : "..", sizeof(de->name));
		de->ino = ip->ino;
		de->type = DT_DIR;
		(*pos)++;
		return 1;
	}
	struct inode *dir = d->inode;
	if (!dir->op || !dir->op->readdir)
		return 0;
	down_read(&dir->sb->ns);
	int r = dir->op->readdir(d, pos, de);
	up_read(&dir->sb->ns);
	return r;
}

long dir_getdents(struct file *f, vaddr_t ubuf, uint64_t n)
{
	if (!f->inode || !S_ISDIR(f->inode->mode))
		return -ENOTDIR;
	struct dir_entry de;
	uint64_t done = 0;
	for (;;) {
		uint64_t at = f->off;
		int r = next_entry(f, &at, &de);
		if (r <= 0)
			return done ? (long)done : r;
		long len = put_dirent(ubuf + done, n - done, &de, at);
		if (len < 0)
			return done ? (long)done : len;
		if (len == 0)
			return done ? (long)done : -EINVAL;
		done += (uint64_t)len;
		f->off = at;
	}
}

/* ---- truncate and stat ---- */

/* ip->lock, for a change of the file's size or blocks: 0, or -ETXTBSY
 * (not locked) while the file is a swap area (Linux's IS_SWAPFILE checks
 * in truncate and fallocate). */
static int lock_for_change(struct inode *ip)
{
	mutex_lock(&ip->lock);
	if (!ip->swapfile)
		return 0;
	mutex_unlock(&ip->lock);
	return -ETXTBSY;
}

/* ip shrank to ip->size (inode->lock held): its pages past the end leave
 * every mapping (a later access there is SIGBUS) and then the cache, the
 * end page's tail zeroed (Linux's truncate_pagecache). Faults that took a
 * page before the size changed either installed it before the unmap
 * reached it, or see the unmap count raised (mm/rmap.h); those after it
 * see the new size, and none adds a page past it to the cache once the
 * pages are dropped (ip->invalidate, fs/vfs.h). */
static void drop_past_end(struct inode *ip)
{
	if (!ip->mapping)
		return;
	vmobject_unmap(&ip->vmobj, ALIGN_UP(ip->size, PAGE_SIZE) / PAGE_SIZE, UINT64_MAX,
		       UNMAP_TRUNCATE);
	down_write(&ip->invalidate);
	pagecache_truncate_at(ip->mapping, ip->size);
	up_write(&ip->invalidate);
}

int vfs_truncate(struct inode *ip, uint64_t size)
{
	if (S_ISDIR(ip->mode))
		return -EISDIR;
	if (!S_ISREG(ip->mode))
		return -EINVAL;
	if (size > MAX_FILE_SIZE)
		return -EFBIG;
	if (lock_for_change(ip) < 0)
		return -ETXTBSY;
	uint64_t old = ip->size;
	int r = 0;
	ip->size = size;
	if (size < old)
		drop_past_end(ip);
	if (size != old && ip->op && ip->op->set_size && (r = ip->op->set_size(ip, old)) < 0)
		ip->size = old;
	if (r == 0)
		inode_touch(ip);   /* Linux: even when the size did not change (O_TRUNC) */
	mutex_unlock(&ip->lock);
	return r;
}

/* ---- holes ---- */

/* Zero [off, end) of ip's cache (inside one page; nothing when empty). */
static int zero_part(struct inode *ip, uint64_t off, uint64_t end)
{
	static const char zeros[PAGE_SIZE];
	return off < end ? pagecache_write_part(ip->mapping, off, zeros, (uint32_t)(end - off)) : 0;
}

/* Pages [first, last] out of the cache and out of every mapping, a batch at
 * a time: taken out of the cache first (under ip->invalidate: no fault
 * finds them after, a fault then gets a new page for the hole), then out
 * of every mapping, then freed -- so no page is ever mapped and out of
 * its cache with nobody's reference for it (Linux unmaps a mapped page
 * before it leaves the cache, under its page lock). A fault that took a
 * page before the unmap installs nothing after it (its guard, mm/rmap.h).
 * Private copies stay. */
static void drop_pages(struct inode *ip, uint64_t first, uint64_t last)
{
	struct page *pg[PC_DETACH_BATCH];
	for (uint64_t at = first, from;;) {
		from = at;
		down_write(&ip->invalidate);
		unsigned n = pagecache_detach(ip->mapping, &at, last, pg, PC_DETACH_BATCH);
		up_write(&ip->invalidate);
		if (!n)
			return;
		vmobject_unmap(&ip->vmobj, from, at - from, UNMAP_PUNCH);
		while (n)
			page_put(pg[--n]);
	}
}

int vfs_punch_hole(struct inode *ip, uint64_t off, uint64_t len)
{
	if (!ip->op || !ip->op->punch_hole || !ip->mapping)
		return -EOPNOTSUPP;
	if (lock_for_change(ip) < 0)
		return -ETXTBSY;
	uint64_t end = MIN(off + len, ip->size);   /* nothing past the end: the size stays */
	uint64_t first = ALIGN_UP(off, PAGE_SIZE) / PAGE_SIZE, stop = end / PAGE_SIZE;
	int r = 0;
	if (off < end && first > stop) {            /* inside one page */
		r = zero_part(ip, off, end);
	} else if (off < end) {
		r = zero_part(ip, off, first * PAGE_SIZE) ?: zero_part(ip, stop * PAGE_SIZE, end);
		if (r == 0 && first < stop)
			drop_pages(ip, first, stop - 1);
	}
	if (r == 0 && off < end)
		r = ip->op->punch_hole(ip, off, end - off);
	if (r == 0)
		inode_touch(ip);
	mutex_unlock(&ip->lock);
	return r;
}

/* fallocate's part of one page: room made (prepare_write) and the page
 * dirty, so that the new blocks get the page's bytes (zeros in a hole),
 * never what the disk held there. */
static int zero_fill(struct inode *ip, uint64_t off, uint64_t len)
{
	if (!ip->op || !ip->op->prepare_write)
		return 0;
	struct page *pg;
	int r = pagecache_get(ip->mapping, off / PAGE_SIZE, PC_READ, &pg);
	if (r < 0)
		return r;
	if ((r = prepare_write(ip, off, len)) == 0)
		pagecache_set_dirty(ip->mapping, pg);
	page_put(pg);
	return r;
}

int vfs_fadvise(struct inode *ip, uint64_t off, uint64_t len, int advice)
{
	if (advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE)
		return -EINVAL;
	if (!S_ISREG(ip->mode) || !ip->mapping ||
	    (advice != POSIX_FADV_WILLNEED && advice != POSIX_FADV_DONTNEED))
		return 0;
	uint64_t end = len == 0 || off + len < off ? UINT64_MAX : off + len;
	down_read(&ip->invalidate);   /* no page past a truncation's end comes back */
	end = MIN(end, ip->size);
	if (off < end && advice == POSIX_FADV_WILLNEED)
		pagecache_fill(ip->mapping, off / PAGE_SIZE, ALIGN_UP(end, PAGE_SIZE) / PAGE_SIZE);
	up_read(&ip->invalidate);
	if (off < end && advice == POSIX_FADV_DONTNEED) {   /* (write errors: fsync's) */
		uint64_t first = off / PAGE_SIZE, last = (end - 1) / PAGE_SIZE;
		(void)pagecache_write_back(ip->mapping, first, last);
		(void)pagecache_shrink(ip->mapping, first, last, UINT64_MAX);
	}
	return 0;
}

int vfs_fallocate(struct inode *ip, uint64_t off, uint64_t len, bool keep_size)
{
	if (off + len > MAX_FILE_SIZE)
		return -EFBIG;
	if (lock_for_change(ip) < 0)
		return -ETXTBSY;
	uint64_t old = ip->size;
	if (keep_size)   /* nothing past the end: a disk format may not allow it (ext2) */
		len = off >= old ? 0 : MIN(len, old - off);
	int r = 0;
	for (uint64_t at = off; r == 0 && at < off + len; at = ALIGN_DOWN(at, PAGE_SIZE) + PAGE_SIZE)
		r = zero_fill(ip, at, MIN(off + len, ALIGN_DOWN(at, PAGE_SIZE) + PAGE_SIZE) - at);
	if (r == 0 && !keep_size && off + len > old) {
		ip->size = off + len;
		if (ip->op && ip->op->set_size && (r = ip->op->set_size(ip, old)) < 0)
			ip->size = old;
	}
	if (r == 0)
		inode_touch(ip);
	mutex_unlock(&ip->lock);
	return r;
}

long inode_stat(struct inode *ip, vaddr_t ust)
{
	struct linux_stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = ip->sb->dev;
	st.st_ino = ip->ino;
	st.st_nlink = ip->nlink;
	st.st_mode = ip->mode;
	st.st_uid = ip->uid;
	st.st_gid = ip->gid;
	st.st_rdev = ip->rdev;
	st.st_size = S_ISBLK(ip->mode) || S_ISCHR(ip->mode) ? 0 : (int64_t)ip->size;
	st.st_blksize = PAGE_SIZE;
	st.st_blocks = ip->blocks ? (int64_t)ip->blocks :
		       ip->mapping ? (int64_t)(ip->mapping->nrpages * (PAGE_SIZE / 512)) : 0;
	st.st_atime_sec = (uint64_t)ip->atime.sec;
	st.st_atime_nsec = ip->atime.nsec;
	st.st_mtime_sec = (uint64_t)ip->mtime.sec;
	st.st_mtime_nsec = ip->mtime.nsec;
	st.st_ctime_sec = (uint64_t)ip->ctime.sec;
	st.st_ctime_nsec = ip->ctime.nsec;
	return copyout(ust, &st, sizeof(st));
}
