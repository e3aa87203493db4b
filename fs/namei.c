/* fs/namei.c -- the path walk: from a name to a struct path (fs/vfs.h).
 *
 *   "/usr/../bin/sh"
 *    root --usr--> (cached? else sb->ops lookup) --..--> back up (across
 *    a mount: to the mount point, then its parent) --bin--> [a mount on
 *    it? go to the mounted root] --sh--> [a symlink? walk its target from
 *    here, at most SYMLOOP_MAX deep]
 *
 * One component at a time: the dentry cache first (dcache_lock), the file
 * system's lookup under its sb->ns (shared) when the name is not cached.
 */
#include "fs/vfs.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

void path_get(const struct path *p)
{
	spin_lock(&dcache_lock);
	p->mnt->refs++;
	p->dentry->refs++;
	spin_unlock(&dcache_lock);
}

void path_put(struct path *p)
{
	if (!p->dentry)
		return;
	spin_lock(&dcache_lock);
	p->mnt->refs--;
	spin_unlock(&dcache_lock);
	dentry_put(p->dentry);
	p->dentry = NULL;
	p->mnt = NULL;
}

/* The mount on top of p, or NULL (dcache_lock held). */
struct mount *mount_on(const struct path *p);

/* While p's dentry has a mount on it, go to that mount's root. */
static void follow_mounts(struct path *p)
{
	spin_lock(&dcache_lock);
	struct mount *m;
	while (p->dentry->mounts && (m = mount_on(p))) {
		struct dentry *old = p->dentry;
		p->mnt->refs--;
		m->refs++;
		m->root->refs++;
		p->mnt = m;
		p->dentry = m->root;
		old->refs--;   /* never the last: the mount point is held by the mount */
	}
	spin_unlock(&dcache_lock);
}

/* "..": up one, staying at fs's root, crossing mounts downwards. */
static void go_up(const struct fs_root *fs, struct path *p)
{
	spin_lock(&dcache_lock);
	for (;;) {
		if (p->dentry == fs->root.dentry && p->mnt == fs->root.mnt)
			break;
		if (p->dentry != p->mnt->root) {
			struct dentry *parent = p->dentry->parent;
			parent->refs++;
			p->dentry->refs--;    /* the child held the parent: not the last */
			p->dentry = parent;
			break;
		}
		if (p->mnt->parent == p->mnt)
			break;            /* the root of everything */
		struct mount *m = p->mnt;
		m->parent->refs++;
		m->mountpoint->refs++;
		p->dentry->refs--;
		m->refs--;
		p->mnt = m->parent;
		p->dentry = m->mountpoint;
	}
	spin_unlock(&dcache_lock);
}

/* The dentry of name[0..len) in directory dir (looked up when not cached):
 * 0 with *out (a reference), or -errno. */
static int lookup_one(struct dentry *dir, const char *name, size_t len, struct dentry **out)
{
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if ((*out = dentry_find(dir, name, len)))
		return 0;
	struct inode *dip = dir->inode;
	if (!dip->op || !dip->op->lookup)
		return -ENOENT;
	struct super_block *sb = dir->sb;
	down_read(&sb->ns);
	int r = 0;
	if (!(*out = dentry_find(dir, name, len))) {
		struct inode *ip;
		r = dip->op->lookup(dip, name, len, &ip);
		if (r == 0) {
			*out = dentry_add(dir, name, len, ip, sb->flags & SB_VOLATILE ? DENTRY_VOLATILE : 0);
			r = *out ? 0 : -ENOMEM;
		}
	}
	up_read(&sb->ns);
	return r;
}

static int walk(const struct fs_root *fs, struct path *cur, const char *name,
		enum lookup_flags flags, int depth);

/* p is a symlink reached from directory dir: replace p by what it names. */
static int follow_link(const struct fs_root *fs, const struct path *dir, struct path *p,
		       enum lookup_flags flags, int depth)
{
	if (depth >= SYMLOOP_MAX)
		return -ELOOP;
	struct inode *ip = p->dentry->inode;
	char *target = kmalloc(PATH_MAX);
	if (!target)
		return -ENOMEM;
	long n = ip->op && ip->op->readlink ? ip->op->readlink(ip, target, PATH_MAX - 1) : -EINVAL;
	int r = (int)n;
	if (n >= 0) {
		target[n] = '\0';
		struct path next = *dir;
		path_get(&next);
		r = n == 0 ? -ENOENT : walk(fs, &next, target, flags | LOOKUP_FOLLOW, depth + 1);
		if (r == 0) {
			path_put(p);
			*p = next;
		} else {
			path_put(&next);
		}
	}
	kfree(target);
	return r;
}

/* One component name[0..len) from directory *cur; last says whether more
 * follow. *cur becomes what it names. */
static int step(const struct fs_root *fs, struct path *cur, const char *name, size_t len,
		bool last, enum lookup_flags flags, int depth)
{
	if (len == 1 && name[0] == '.')
		return 0;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		go_up(fs, cur);
		return 0;
	}
	struct dentry *d;
	int r = lookup_one(cur->dentry, name, len, &d);
	if (r < 0)
		return r;
	struct path next = { cur->mnt, d };
	spin_lock(&dcache_lock);
	cur->mnt->refs++;
	spin_unlock(&dcache_lock);
	follow_mounts(&next);
	if (S_ISLNK(next.dentry->inode->mode) && (!last || (flags & LOOKUP_FOLLOW))) {
		r = follow_link(fs, cur, &next, last ? flags : LOOKUP_FOLLOW, depth);
		if (r < 0) {
			path_put(&next);
			return r;
		}
	}
	path_put(cur);
	*cur = next;
	return 0;
}

/* Walk name from *cur (a reference held, moved along). */
static int walk(const struct fs_root *fs, struct path *cur, const char *name,
		enum lookup_flags flags, int depth)
{
	if (name[0] == '/') {
		path_put(cur);
		*cur = fs->root;
		path_get(cur);
	}
	while (*name) {
		while (*name == '/')
			name++;
		if (!*name)
			break;
		if (!S_ISDIR(cur->dentry->inode->mode))
			return -ENOTDIR;
		const char *end = name;
		while (*end && *end != '/')
			end++;
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		if (last && *end == '/')
			flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;   /* "dir/": a directory */
		int r = step(fs, cur, name, (size_t)(end - name), last, flags, depth);
		if (r < 0)
			return r;
		name = end;
	}
	if ((flags & LOOKUP_DIRECTORY) && !S_ISDIR(cur->dentry->inode->mode))
		return -ENOTDIR;
	return 0;
}

/* Where a walk of name begins: start, or fs's cwd, with a reference. */
static void walk_start(const struct fs_root *fs, const struct path *start, struct path *cur)
{
	*cur = start ? *start : fs->cwd;
	path_get(cur);
}

int path_walk(const struct fs_root *fs, const struct path *start, const char *name,
	      enum lookup_flags flags, struct path *out)
{
	if (!name[0] && !(flags & LOOKUP_EMPTY))
		return -ENOENT;
	if (strnlen(name, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	walk_start(fs, start, out);
	int r = walk(fs, out, name, flags, 0);
	if (r < 0)
		path_put(out);
	return r;
}

int path_parent(const struct fs_root *fs, const struct path *start, const char *name,
		struct path *dir, const char **last, size_t *len)
{
	if (!name[0])
		return -ENOENT;
	size_t n = strnlen(name, PATH_MAX);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	while (n > 1 && name[n - 1] == '/')
		n--;                        /* "a/b/" names b */
	size_t s = n;
	while (s > 0 && name[s - 1] != '/')
		s--;
	char *prefix = kmalloc(s + 1);
	if (!prefix)
		return -ENOMEM;
	memcpy(prefix, name, s);
	prefix[s] = '\0';
	walk_start(fs, start, dir);
	int r = walk(fs, dir, prefix, LOOKUP_FOLLOW, 0);
	kfree(prefix);
	if (r == 0 && !S_ISDIR(dir->dentry->inode->mode))
		r = -ENOTDIR;
	if (r < 0) {
		path_put(dir);
		return r;
	}
	*last = name + s;
	*len = name[s] == '/' ? 0 : n - s;   /* "/" itself: no last name */
	return 0;
}

/* Append p's names from the root upwards into the end of buf: the start
 * of the text in buf, or NULL when it does not fit (dcache_lock held). */
static char *prepend_path(const struct fs_root *fs, struct path p, char *buf, uint64_t n)
{
	char *at = buf + n;
	*--at = '\0';
	bool any = false;
	for (;;) {
		if (p.dentry == fs->root.dentry && p.mnt == fs->root.mnt)
			break;
		if (p.dentry == p.mnt->root) {
			if (p.mnt->parent == p.mnt)
				break;
			p = (struct path){ p.mnt->parent, p.mnt->mountpoint };
			continue;
		}
		if ((uint64_t)(at - buf) < p.dentry->len + 1)
			return NULL;
		at -= p.dentry->len;
		memcpy(at, p.dentry->name, p.dentry->len);
		*--at = '/';
		any = true;
		if (p.dentry->parent == p.dentry)
			break;             /* a dead name: its directory is forgotten */
		p.dentry = p.dentry->parent;
	}
	if (!any) {
		if (at == buf)
			return NULL;
		*--at = '/';
	}
	return at;
}

long path_name_locked(const struct fs_root *fs, const struct path *p, char *buf, uint64_t n)
{
	static const char deleted[] = " (deleted)";
	if (n < 2)
		return -ERANGE;
	bool dead = p->dentry->flags & DENTRY_DEAD;
	char *at = prepend_path(fs, *p, buf, n);
	if (!at)
		return -ERANGE;
	uint64_t len = (uint64_t)(buf + n - at);      /* with the NUL */
	memmove(buf, at, len);
	if (dead) {
		if (len + sizeof(deleted) - 1 > n)
			return -ERANGE;
		memcpy(buf + len - 1, deleted, sizeof(deleted));
		len += sizeof(deleted) - 1;
	}
	return (long)len;
}

long path_name(const struct fs_root *fs, const struct path *p, char *buf, uint64_t n)
{
	spin_lock(&dcache_lock);
	long r = path_name_locked(fs, p, buf, n);
	spin_unlock(&dcache_lock);
	return r;
}
