/* fs/names.c -- changing names: create, mkdir, symlink, link, unlink,
 * rmdir, rename (fs/vfs.h).
 *
 * Each finds the directory of the last component (path_parent), takes
 * that file system's sb->ns exclusively, looks the name up again under it
 * (another task may have changed it meanwhile), checks what Linux checks,
 * calls the file system's op and updates the dentry cache to match:
 *
 *   create:  op->create -> dentry_add
 *   unlink:  op->unlink -> dentry_drop (open files keep the inode; it goes
 *            with its last reference when it has no links left)
 *   rename:  op->rename -> dentry_drop(victim), dentry_move
 *            (RENAME_EXCHANGE: op->rename -> dentry_exchange)
 */
#include "fs/vfs.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

bool path_readonly(const struct path *p)
{
	return (p->mnt->flags & 1 /* MS_RDONLY */) || (p->mnt->sb->flags & SB_RDONLY);
}

int inode_changed(struct inode *ip)
{
	ip->ctime = vfs_now();
	return ip->op && ip->op->write_inode ? ip->op->write_inode(ip) : 0;
}

/* The cached or looked-up child name of dir (sb->ns held): 0 with *out
 * (a reference; NULL when there is none), or -errno. */
static int child_locked(struct dentry *dir, const char *name, size_t len, struct dentry **out)
{
	if ((*out = dentry_find(dir, name, len)))
		return 0;
	struct inode *dip = dir->inode, *ip;
	int r = dip->op && dip->op->lookup ? dip->op->lookup(dip, name, len, &ip) : -ENOENT;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	*out = dentry_add(dir, name, len, ip, dir->sb->flags & SB_VOLATILE ? DENTRY_VOLATILE : 0);
	return *out ? 0 : -ENOMEM;
}

static bool is_dot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

/* The parent directory of name, locked for a change: 0 with *dir (a
 * reference), *last and *len, or -errno (dot_err: the name is "/", "." or ".."). */
static int parent_for_change(const struct fs_root *fs, const struct path *start, const char *name,
			     struct path *dir, const char **last, size_t *len, int dot_err)
{
	int r = path_parent(fs, start, name, dir, last, len);
	if (r < 0)
		return r;
	if (*len == 0 || is_dot(*last, *len))
		r = dot_err;
	else if (*len > NAME_MAX)
		r = -ENAMETOOLONG;
	else if (path_readonly(dir))
		r = -EROFS;
	if (r < 0) {
		path_put(dir);
		return r;
	}
	down_write(&dir->dentry->sb->ns);
	return 0;
}

static void parent_done(struct path *dir)
{
	up_write(&dir->dentry->sb->ns);
	path_put(dir);
}

/* Make name (mode's type; rdev; a symlink's target): *out when asked. */
static int make(const struct fs_root *fs, const struct path *start, const char *name,
		uint32_t mode, uint32_t rdev, const char *target, struct path *out)
{
	struct path dir;
	const char *last;
	size_t len;
	int r = parent_for_change(fs, start, name, &dir, &last, &len, -EEXIST);
	if (r < 0)
		return r;
	struct dentry *d;
	struct inode *dip = dir.dentry->inode, *ip;
	if ((r = child_locked(dir.dentry, last, len, &d)) == 0 && d)
		r = -EEXIST;
	else if (r == 0 && !dip->nlink)
		r = -ENOENT;             /* the directory was removed */
	else if (r == 0 && !(dip->op && dip->op->create))
		r = -EPERM;
	else if (r == 0 && (r = dip->op->create(dip, last, len, mode, rdev, target, &ip)) == 0) {
		d = dentry_add(dir.dentry, last, len, ip, 0);
		r = d ? 0 : -ENOMEM;
		if (d && out) {
			*out = (struct path){ dir.mnt, d };
			path_get(out);
		}
	}
	dentry_put(d);
	parent_done(&dir);
	return r;
}

int vfs_create(const struct fs_root *fs, const struct path *start, const char *name,
	       uint32_t mode, uint32_t rdev, struct path *out)
{
	return make(fs, start, name, mode, rdev, NULL, out);
}

int vfs_mkdir(const struct fs_root *fs, const struct path *start, const char *name, uint32_t mode)
{
	return make(fs, start, name, S_IFDIR | (mode & 07777), 0, NULL, NULL);
}

int vfs_symlink(const struct fs_root *fs, const struct path *start, const char *name,
		const char *target)
{
	if (!target[0])
		return -ENOENT;
	return make(fs, start, name, S_IFLNK | 0777, 0, target, NULL);
}

int vfs_link(const struct fs_root *fs, const struct path *ostart, const char *oname,
	     const struct path *nstart, const char *nname, enum lookup_flags flags)
{
	struct path old, dir;
	const char *last;
	size_t len;
	int r = path_walk(fs, ostart, oname, flags & LOOKUP_FOLLOW, &old);
	if (r < 0)
		return r;
	struct inode *ip = old.dentry->inode;
	if ((r = parent_for_change(fs, nstart, nname, &dir, &last, &len, -EEXIST)) < 0) {
		path_put(&old);
		return r;
	}
	struct dentry *d = NULL;
	struct inode *dip = dir.dentry->inode;
	if ((r = child_locked(dir.dentry, last, len, &d)) == 0 && d)
		r = -EEXIST;             /* Linux's order: EEXIST, EXDEV, EPERM */
	else if (r == 0 && dir.mnt != old.mnt)
		r = -EXDEV;
	else if (r == 0 && S_ISDIR(ip->mode))
		r = -EPERM;
	else if (r == 0 && !ip->nlink)
		r = -ENOENT;             /* unlinked meanwhile */
	else if (r == 0 && !(dip->op && dip->op->link))
		r = -EPERM;
	else if (r == 0 && (r = dip->op->link(dip, last, len, ip)) == 0) {
		d = dentry_add(dir.dentry, last, len, inode_get(ip), 0);
		r = d ? 0 : -ENOMEM;
	}
	dentry_put(d);
	parent_done(&dir);
	path_put(&old);
	return r;
}

/* Linux's errors for unlink/rmdir of "/", "." and "..". */
static int dot_error(enum unlink_kind kind, const char *last, size_t len)
{
	(void)last;
	if (kind == UNLINK_FILE)
		return -EISDIR;
	if (len == 0)
		return -EBUSY;
	return len == 1 ? -EINVAL : -ENOTEMPTY;
}

/* Does d (or NULL) name an active swap file? Its names stay as they are
 * (Linux's may_delete: -EPERM). */
static bool is_swapfile(const struct dentry *d)
{
	return d && __atomic_load_n(&d->inode->swapfile, __ATOMIC_RELAXED);
}

/* May d (with inode ip) go as kind says? 0 or the error (sb->ns held). */
static int check_victim(struct dentry *d, enum unlink_kind kind)
{
	struct inode *ip = d->inode;
	if (kind == UNLINK_FILE && S_ISDIR(ip->mode))
		return -EISDIR;
	if (kind == UNLINK_DIR && !S_ISDIR(ip->mode))
		return -ENOTDIR;
	if (d->mounts)
		return -EBUSY;
	if (is_swapfile(d))
		return -EPERM;
	if (kind == UNLINK_DIR && ip->op && ip->op->empty) {
		int e = ip->op->empty(ip);
		return e < 0 ? e : e ? 0 : -ENOTEMPTY;
	}
	return 0;
}

int vfs_unlink(const struct fs_root *fs, const struct path *start, const char *name,
	       enum unlink_kind kind)
{
	struct path dir;
	const char *last;
	size_t len;
	int r = path_parent(fs, start, name, &dir, &last, &len);
	if (r < 0)
		return r;
	bool dot = len == 0 || is_dot(last, len);
	path_put(&dir);
	if (dot)
		return dot_error(kind, last, len);
	if ((r = parent_for_change(fs, start, name, &dir, &last, &len, -EINVAL)) < 0)
		return r;
	struct dentry *d = NULL;
	struct inode *dip = dir.dentry->inode;
	if ((r = child_locked(dir.dentry, last, len, &d)) == 0 && !d)
		r = -ENOENT;
	else if (r == 0 && (r = check_victim(d, kind)) == 0)
		r = dip->op->unlink ? dip->op->unlink(dip, last, len, d->inode) : -EPERM;
	if (r == 0)
		dentry_drop(d);
	dentry_put(d);
	parent_done(&dir);
	return r;
}

/* rename's checks of the moving name d onto nd (NULL: a free name) in
 * ndir (sb->ns held): 0 or Linux's error. */
static int check_rename(struct dentry *d, struct dentry *ndir, struct dentry *nd, unsigned flags)
{
	bool isdir = S_ISDIR(d->inode->mode);
	if (isdir && dentry_is_ancestor(d, ndir))
		return -EINVAL;              /* into itself */
	if (nd && dentry_is_ancestor(nd, d))   /* over its own ancestor (Linux checks both first) */
		return flags & RENAME_EXCHANGE ? -EINVAL : -ENOTEMPTY;
	if (d->mounts || (nd && nd->mounts))
		return -EBUSY;
	if (is_swapfile(d) || is_swapfile(nd))
		return -EPERM;
	if (flags & RENAME_EXCHANGE)
		return nd ? 0 : -ENOENT;     /* two names trade places: any types */
	if (!nd)
		return 0;
	if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	if (isdir && !S_ISDIR(nd->inode->mode))
		return -ENOTDIR;
	if (!isdir && S_ISDIR(nd->inode->mode))
		return -EISDIR;
	return isdir ? check_victim(nd, UNLINK_DIR) : 0;
}

/* rename with both parents found and sb->ns held. */
static int rename_locked(struct path *odir, const char *olast, size_t olen,
			 struct path *ndir, const char *nlast, size_t nlen, unsigned flags)
{
	struct dentry *d = NULL, *nd = NULL;
	char *nbuf = NULL;   /* the new name's room, made first */
	int r = child_locked(odir->dentry, olast, olen, &d);
	if (r == 0 && !d)
		r = -ENOENT;
	if (r == 0)
		r = child_locked(ndir->dentry, nlast, nlen, &nd);
	if (r == 0 && nd && nd->inode == d->inode)
		goto out;                    /* the same file: nothing to do (Linux) */
	if (r == 0)
		r = check_rename(d, ndir->dentry, nd, flags);
	struct inode *odip = odir->dentry->inode, *ndip = ndir->dentry->inode;
	if (r == 0 && !(odip->op && odip->op->rename))
		r = -EPERM;
	if (r == 0 && !(flags & RENAME_EXCHANGE))
		r = dentry_name_prepare(nlen, &nbuf);
	if (r == 0)
		r = odip->op->rename(odip, olast, olen, d->inode, ndip, nlast, nlen,
				     nd ? nd->inode : NULL, flags);
	if (r == 0 && (flags & RENAME_EXCHANGE)) {
		dentry_exchange(d, nd);
	} else if (r == 0) {
		if (nd)
			dentry_drop(nd);
		dentry_move(d, ndir->dentry, nlast, nlen, nbuf);
		nbuf = NULL;
	}
	kfree(nbuf);
out:
	dentry_put(nd);
	dentry_put(d);
	return r;
}

int vfs_rename(const struct fs_root *fs, const struct path *ostart, const char *oname,
	       const struct path *nstart, const char *nname, unsigned flags)
{
	if ((flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE)) ||
	    flags == (RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;              /* RENAME_WHITEOUT: not in Pagoda */
	struct path odir, ndir;
	const char *olast, *nlast;
	size_t olen, nlen;
	int r = path_parent(fs, ostart, oname, &odir, &olast, &olen);
	if (r < 0)
		return r;
	if ((r = path_parent(fs, nstart, nname, &ndir, &nlast, &nlen)) < 0) {
		path_put(&odir);
		return r;
	}
	if (olen == 0 || is_dot(olast, olen))
		r = -EBUSY;                  /* "/", ".", "..": Linux's answers */
	else if (nlen == 0 || is_dot(nlast, nlen))
		r = flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
	else if (olen > NAME_MAX || nlen > NAME_MAX)
		r = -ENAMETOOLONG;
	else if (odir.mnt != ndir.mnt)
		r = -EXDEV;
	else if (path_readonly(&odir))
		r = -EROFS;
	if (r == 0) {
		down_write(&odir.dentry->sb->ns);
		r = rename_locked(&odir, olast, olen, &ndir, nlast, nlen, flags);
		up_write(&odir.dentry->sb->ns);
	}
	path_put(&ndir);
	path_put(&odir);
	return r;
}

long vfs_readlink(const struct fs_root *fs, const struct path *start, const char *name,
		  char *buf, uint64_t n)
{
	struct path p;
	int r = path_walk(fs, start, name, 0, &p);
	if (r < 0)
		return r;
	struct inode *ip = p.dentry->inode;
	long len = S_ISLNK(ip->mode) && ip->op && ip->op->readlink ?
		   ip->op->readlink(ip, buf, n) : -EINVAL;
	path_put(&p);
	return len;
}
