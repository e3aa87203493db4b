/* fs/mount.c -- the mount table, file system types, and syncing them.
 *
 *   mount table: [ / (ext2 or tmpfs) ] [ /proc ] [ /dev ] [ /tmp ] ...
 *   each: sb, its root dentry, the mount it sits on and the dentry there
 *
 * A mount point's dentry counts its mounts (dentry->mounts), so the walk
 * knows to look here (mount_on) only where something is mounted. The
 * table, every mount's refs and every dentry's mounts change under
 * dcache_lock; mount and umount themselves are serialized by mount_lock
 * (they sleep: a file system's mount reads its disk).
 */
#include "fs/vfs.h"
#include "fs/textbuf.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/reclaim.h"
#include "lib/atomic.h"

#define MAX_FS_TYPES 8
#define MS_RDONLY 1
#define MS_REMOUNT 32
#define MS_BIND 4096
#define MNT_FORCE 1
#define MNT_DETACH 2

static const struct fs_type *fs_types[MAX_FS_TYPES];
static struct list mounts = { &mounts, &mounts };
static struct mount *root_mount;
static struct mutex mount_lock;

void fs_type_register(const struct fs_type *t)
{
	for (int i = 0; i < MAX_FS_TYPES; i++)
		if (!fs_types[i]) {
			fs_types[i] = t;
			return;
		}
	panic("fs_type_register: no room for file system type %s", t->name);
}

static const struct fs_type *fs_type_find(const char *name)
{
	for (int i = 0; i < MAX_FS_TYPES && fs_types[i]; i++)
		if (!strcmp(fs_types[i]->name, name))
			return fs_types[i];
	return NULL;
}

struct super_block *sb_new(const struct fs_type *t, const struct super_ops *ops)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	if (!sb)
		return NULL;
	sb->type = t;
	sb->ops = ops;
	rwsem_init(&sb->ns, "namespace", SLEEP_RANK_NAMESPACE);
	spin_init(&sb->inodes_lock, "sb-inodes", LOCK_RANK_SB_INODES);
	list_init(&sb->inodes);
	sb->next_ino = 2;
	return sb;
}

struct mount *mount_on(const struct path *p)
{
	struct mount *top = NULL;
	list_for_each(l, &mounts) {
		struct mount *m = list_entry(l, struct mount, link);
		if (m->parent == p->mnt && m->mountpoint == p->dentry)
			top = m;     /* the last mounted hides the others */
	}
	return top;
}

/* The VFS's caches as reclaim sees them (mm/reclaim.h): unused dentries
 * first (each one freed may leave its inode idle), then idle inodes. */
static uint64_t unused_dentries(void)
{
	return atomic_load(&dcache_stats.unused);
}

static uint64_t idle_inodes(void)
{
	return atomic_load(&inode_stats.idle);
}

static struct shrinker dentry_shrinker = { .name = "dentries", .count = unused_dentries,
					   .scan = dcache_shrink };
static struct shrinker inode_shrinker = { .name = "inodes", .count = idle_inodes,
					  .scan = inode_shrink };

void vfs_init(void)
{
	mutex_init(&mount_lock, "mount", SLEEP_RANK_MOUNT);
	reclaim_add_shrinker(&inode_shrinker);     /* the registry is a stack: */
	reclaim_add_shrinker(&dentry_shrinker);    /* dentries are asked first */
}

static void locked(void)
{
	mutex_lock(&mount_lock);
}

/* A mount of sb (its root held) on mountpoint in parent; NULL parent: the root. */
static struct mount *mount_add(struct super_block *sb, struct mount *parent,
			       struct dentry *mountpoint, const char *source, unsigned flags)
{
	struct mount *m = kzalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->sb = sb;
	m->root = dentry_get(sb->root);
	strlcpy(m->source, source, sizeof(m->source));
	m->flags = flags;
	spin_lock(&dcache_lock);
	m->parent = parent ? parent : m;
	m->mountpoint = mountpoint ? mountpoint : sb->root;
	m->mountpoint->refs++;
	m->mountpoint->mounts++;
	sb->active++;
	list_add_tail(&mounts, &m->link);
	spin_unlock(&dcache_lock);
	return m;
}

int vfs_mount_root(const char *type, struct blkdev *bdev, const char *source)
{
	const struct fs_type *t = fs_type_find(type);
	struct super_block *sb;
	if (!t)
		return -ENODEV;
	int r = bdev ? blkdev_claim(bdev, t) : 0;
	if (r == 0)
		r = t->mount(t, bdev, 0, NULL, &sb);
	if (r < 0)
		return r;   /* (no root: boot stops) */
	root_mount = mount_add(sb, NULL, NULL, source, 0);
	if (!root_mount)
		return -ENOMEM;
	root_mount->mountpoint->mounts--;   /* the root is not mounted on itself */
	return 0;
}

void vfs_root(struct path *out)
{
	*out = (struct path){ root_mount, root_mount->root };
	path_get(out);
}

/* The disk named by source (a block device file), or -ENOTBLK / -errno. */
static int source_disk(const struct fs_root *fs, const char *source, struct blkdev **out)
{
	struct path p;
	if (!source)
		return -EINVAL;
	int r = path_walk(fs, NULL, source, LOOKUP_FOLLOW, &p);
	if (r < 0)
		return r;
	struct inode *ip = p.dentry->inode;
	*out = S_ISBLK(ip->mode) ? blkdev_by_devt(ip->rdev) : NULL;
	path_put(&p);
	return *out ? 0 : S_ISBLK(ip->mode) ? -ENXIO : -ENOTBLK;
}

/* A mounted super block of t on bdev (a second mount shares it), or NULL. */
static struct super_block *sb_of_disk(const struct fs_type *t, struct blkdev *bdev)
{
	list_for_each(l, &mounts) {
		struct mount *m = list_entry(l, struct mount, link);
		if (bdev && m->sb->bdev == bdev && m->sb->type == t)
			return m->sb;
	}
	return NULL;
}

static int remount(const struct fs_root *fs, const char *target, unsigned flags)
{
	struct path p;
	int r = path_walk(fs, NULL, target, LOOKUP_FOLLOW, &p);
	if (r < 0)
		return r;
	if (p.dentry != p.mnt->root) {
		path_put(&p);
		return -EINVAL;
	}
	struct super_block *sb = p.mnt->sb;
	if ((flags & MS_RDONLY) && !(sb->flags & SB_RDONLY))
		r = vfs_sync_sb(sb);
	if (!(flags & MS_RDONLY) && sb->bdev && sb->bdev->readonly)
		r = -EACCES;
	if (r == 0) {
		sb->flags = (sb->flags & ~SB_RDONLY) | (flags & MS_RDONLY ? SB_RDONLY : 0);
		p.mnt->flags = flags & ~MS_REMOUNT;
	}
	path_put(&p);
	return r;
}

/* A new super block of t on bdev (NULL for a file system without a disk),
 * which it claims for t while mounted (blkdev_claim: -EBUSY when a swap
 * area or another file system type has it; sb_unmounted lets it go). */
static int mount_new(const struct fs_type *t, struct blkdev *bdev, unsigned flags,
		     const char *data, struct super_block **sb)
{
	int r = bdev ? blkdev_claim(bdev, t) : 0;
	if (r < 0)
		return r;
	r = t->mount(t, bdev, flags, data, sb);
	if (r < 0 && bdev)
		blkdev_unclaim(bdev, t);
	return r;
}

/* mount(2) with the lock held. */
static int do_mount(const struct fs_root *fs, const char *source, const char *target,
		    const char *type, unsigned flags, const char *data)
{
	if (flags & MS_REMOUNT)
		return remount(fs, target, flags);
	if (flags & MS_BIND)
		return -EINVAL;    /* bind mounts: not in Pagoda */
	const struct fs_type *t = type ? fs_type_find(type) : NULL;
	if (!t)
		return -ENODEV;
	struct blkdev *bdev = NULL;
	int r = t->needs_disk ? source_disk(fs, source, &bdev) : 0;
	if (r < 0)
		return r;
	struct path at;
	if ((r = path_walk(fs, NULL, target, LOOKUP_FOLLOW, &at)) < 0)
		return r;
	struct super_block *sb = sb_of_disk(t, bdev);
	if (!S_ISDIR(at.dentry->inode->mode))
		r = -ENOTDIR;
	else if (!sb)
		r = mount_new(t, bdev, flags, data, &sb);
	struct mount *m = NULL;
	if (r == 0 && !(m = mount_add(sb, at.mnt, at.dentry, t->needs_disk ? source : type,
				      flags)))
		r = -ENOMEM;
	path_put(&at);
	return r;
}

int vfs_mount(const struct fs_root *fs, const char *source, const char *target,
	      const char *type, unsigned flags, const char *data)
{
	locked();
	int r = do_mount(fs, source, target, type, flags, data);
	mutex_unlock(&mount_lock);
	return r;
}

/* Is anything mounted on a dentry of m (dcache_lock held)? */
static bool has_children(struct mount *m)
{
	list_for_each(l, &mounts)
		if (list_entry(l, struct mount, link)->parent == m &&
		    list_entry(l, struct mount, link) != m)
			return true;
	return false;
}

/* Take m out of the table (dcache_lock held, m idle): true if its sb
 * has no mount left. */
static bool mount_remove(struct mount *m)
{
	list_del(&m->link);
	m->mountpoint->mounts--;
	return --m->sb->active == 0;
}

void sb_release(struct super_block *sb)
{
	dentry_prune(sb);
	dentry_kill_root(sb);
	bool all = sb_drop_inodes(sb);
	if (sb->type->kill)
		sb->type->kill(sb);
	if (all)
		kfree(sb);   /* else a process's exe still holds an inode: sb stays (small) */
}

static void sb_kill(struct super_block *sb)
{
	(void)vfs_sync_sb(sb);
	if (sb->ops->sync && !(sb->flags & SB_RDONLY))
		(void)sb->ops->sync(sb, true);
	sb_release(sb);
}

/* The last mount of sb went: written back and released, its disk's claim
 * let go. */
static void sb_unmounted(struct super_block *sb)
{
	struct blkdev *bdev = sb->bdev;
	const struct fs_type *t = sb->type;
	sb_kill(sb);
	if (bdev)
		blkdev_unclaim(bdev, t);
}

static int do_umount(const struct fs_root *fs, const char *target)
{
	struct path p;
	int r = path_walk(fs, NULL, target, LOOKUP_FOLLOW, &p);
	if (r < 0)
		return r;
	struct mount *m = p.mnt;
	if (p.dentry != m->root) {
		path_put(&p);
		return -EINVAL;
	}
	bool mapped = sb_has_mapped_files(m->sb);   /* (a mapping needs an open file to begin) */
	spin_lock(&dcache_lock);
	bool busy = m == root_mount || m->refs > 1 || has_children(m) ||
		    (m->sb->active == 1 && mapped);
	bool last = !busy && mount_remove(m);
	spin_unlock(&dcache_lock);
	path_put(&p);
	if (busy)
		return -EBUSY;
	dentry_put(m->mountpoint);
	dentry_put(m->root);
	struct super_block *sb = m->sb;
	kfree(m);
	if (last)
		sb_unmounted(sb);
	return 0;
}

int vfs_umount(const struct fs_root *fs, const char *target, int flags)
{
	if (flags & ~(MNT_FORCE | MNT_DETACH | 4 /* MNT_EXPIRE */ | 8 /* UMOUNT_NOFOLLOW */))
		return -EINVAL;
	locked();
	int r = do_umount(fs, target);
	mutex_unlock(&mount_lock);
	return r;
}

long dentry_name_locked(struct dentry *d, char *buf, uint64_t n)
{
	struct fs_root all = { { root_mount, root_mount->root }, { root_mount, root_mount->root } };
	long r = -ENOENT;
	list_for_each(l, &mounts) {
		struct mount *m = list_entry(l, struct mount, link);
		if (m->sb == d->sb) {
			r = path_name_locked(&all, &(struct path){ m, d }, buf, n);
			break;
		}
	}
	return r;
}

void vfs_show_mounts(struct textbuf *tb)
{
	struct fs_root all = { { root_mount, root_mount->root }, { root_mount, root_mount->root } };
	char *buf = kmalloc(PATH_MAX);
	if (!buf) {
		tb->error = -ENOMEM;
		return;
	}
	locked();
	list_for_each(l, &mounts) {
		struct mount *m = list_entry(l, struct mount, link);
		struct path at = { m->parent, m->mountpoint };
		if (m == root_mount)
			at = (struct path){ m, m->root };
		if (path_name(&all, &at, buf, PATH_MAX) < 0)
			continue;
		bool ro = (m->flags & MS_RDONLY) || (m->sb->flags & SB_RDONLY);
		tb_printf(tb, "%s %s %s %s,relatime 0 0\n", m->source, buf, m->sb->type->name,
			  ro ? "ro" : "rw");
	}
	mutex_unlock(&mount_lock);
	kfree(buf);
}

/* Has ip something dirtied before `before` to write (pages or fields)? */
static bool needs_writing(const struct inode *ip, uint64_t before)
{
	const struct pagecache *pc = ip->mapping;
	return (pc && pc->ndirty && pc->ops->write_pages && pc->dirtied_ns < before) ||
	       (ip->dirty && ip->op && ip->op->write_inode && ip->dirtied_ns < before);
}

/* A file of sb with something to write, with a reference, or NULL. */
static struct inode *dirty_inode(struct super_block *sb, uint64_t before)
{
	struct inode *dirty = NULL;
	spin_lock(&sb->inodes_lock);
	list_for_each(l, &sb->inodes) {
		struct inode *ip = list_entry(l, struct inode, sb_link);
		if (needs_writing(ip, before)) {
			dirty = inode_get(ip);
			break;
		}
	}
	spin_unlock(&sb->inodes_lock);
	return dirty;
}

/* Write back every dirty page of every file of sb: each file at most once
 * per file there was at the start (a writer that keeps dirtying cannot
 * hold sync forever). */
static int sync_inodes(struct super_block *sb, uint64_t before)
{
	int err = 0;
	uint64_t rounds = 1;
	spin_lock(&sb->inodes_lock);
	list_for_each(l, &sb->inodes)
		rounds++;
	spin_unlock(&sb->inodes_lock);
	struct inode *ip;
	while (rounds-- && (ip = dirty_inode(sb, before))) {
		int r = ip->mapping ? pagecache_write_back(ip->mapping, 0, PC_MAX_INDEX) : 0;
		int w = ip->dirty && ip->op->write_inode ? ip->op->write_inode(ip) : 0;
		err = err ? err : r ? r : w;
		inode_put(ip);
	}
	return err;
}

int vfs_commit(struct super_block *sb, enum commit_scope scope)
{
	if (sb->ops->commit && !(sb->flags & SB_RDONLY))
		return sb->ops->commit(sb, scope);
	if (!sb->bdev || scope == COMMIT_BACKGROUND)
		return 0;
	return blkdev_sync(sb->bdev) < 0 ? -EIO : 0;
}

int vfs_sync_sb(struct super_block *sb)
{
	int err = sync_inodes(sb, ~0ull);
	int c = vfs_commit(sb, COMMIT_SYNC);
	err = err ? err : c;
	if (sb->ops->sync && !(sb->flags & SB_RDONLY)) {
		int r = sb->ops->sync(sb, false);
		err = err ? err : r;
	}
	if (sb->bdev) {
		int r = blkdev_sync(sb->bdev);
		err = err ? err : r;
	}
	return err;
}

void vfs_flush_old(uint64_t before)
{
	locked();
	list_for_each(l, &mounts) {   /* errors: at fsync */
		struct super_block *sb = list_entry(l, struct mount, link)->sb;
		(void)sync_inodes(sb, before);
		(void)vfs_commit(sb, COMMIT_BACKGROUND);
	}
	mutex_unlock(&mount_lock);
	struct blkdev *d;   /* then the disks' own caches: metadata, /dev/vd* writes */
	for (int i = 0; (d = blkdev_get(i)); i++)
		if (d->cache.ndirty && d->cache.dirtied_ns < before)
			(void)pagecache_write_back(&d->cache, 0, PC_MAX_INDEX);
}

int vfs_sync_all(bool final)
{
	int err = 0;
	locked();
	list_for_each(l, &mounts) {
		struct super_block *sb = list_entry(l, struct mount, link)->sb;
		int r = vfs_sync_sb(sb);
		if (final && sb->ops->sync && !(sb->flags & SB_RDONLY))
			r = r ? r : sb->ops->sync(sb, true);
		err = err ? err : r;
	}
	mutex_unlock(&mount_lock);
	struct blkdev *d;
	for (int i = 0; (d = blkdev_get(i)); i++)
		(void)blkdev_sync(d);   /* the raw disks' own caches (/dev/vda writes) */
	return err;
}
