/* fs/dcache.c -- dentries: the names of inodes, cached as a tree
 * (fs/vfs.h has the picture and the rules).
 *
 * A directory's cached children hang on its children list; the path walk
 * finds a name there first and asks the file system's lookup only when it
 * is missing. Everything here is under dcache_lock, which is never held
 * across a file system's op or an inode_put (that may evict: free blocks).
 */
#include "fs/vfs.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

struct spinlock dcache_lock = SPINLOCK_INIT("dcache", LOCK_RANK_DCACHE);
struct dcache_stats dcache_stats;

/* The unused dentries of SB_RECLAIMABLE file systems, least recently used
 * first (Linux's dentry LRU). A dentry joins at the tail when its last
 * reference goes; one taken again stays on it (refs > 0) until
 * dcache_shrink meets it and takes it off. An unused dentry is a leaf:
 * every child holds a reference on its parent. */
static struct list unused = { &unused, &unused };

/* d's last reference went (dcache_lock held): on the list, or marked
 * used again if it is there already. */
static void unused_add(struct dentry *d)
{
	if (d->flags & DENTRY_LRU) {
		d->flags |= DENTRY_REFERENCED;
		return;
	}
	d->flags |= DENTRY_LRU;
	list_add_tail(&unused, &d->lru);
	dcache_stats.unused++;
}

/* d off the unused list, if it is there (dcache_lock held). */
static void unused_del(struct dentry *d)
{
	if (!(d->flags & DENTRY_LRU))
		return;
	d->flags &= ~(unsigned)(DENTRY_LRU | DENTRY_REFERENCED);
	list_del(&d->lru);
	dcache_stats.unused--;
}

/* Free d and its name. */
static void name_free(struct dentry *d)
{
	if (d->name != d->iname)
		kfree(d->name);
	kfree(d);
	stat_sub(&dcache_stats.dentries, 1);
}

/* A new dentry named name for ip (not linked anywhere), or NULL. */
static struct dentry *dentry_alloc(struct super_block *sb, const char *name, size_t len,
				   struct inode *ip, unsigned flags)
{
	struct dentry *d = kzalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->name = len < sizeof(d->iname) ? d->iname : kmalloc(len + 1);
	if (!d->name) {
		kfree(d);
		return NULL;
	}
	d->sb = sb;
	d->inode = ip;
	d->refs = 1;
	d->flags = flags;
	d->len = len;
	memcpy(d->name, name, len);
	d->name[len] = '\0';   /* a kmalloc'd name's too: readdir copies up to it */
	list_init(&d->children);
	list_init(&d->sibling);
	stat_inc(&dcache_stats.dentries);
	if (ip && !ip->alias)
		ip->alias = d;
	return d;
}

struct dentry *dentry_root(struct super_block *sb, struct inode *ip)
{
	struct dentry *d = dentry_alloc(sb, "/", 1, ip, 0);
	if (d)
		d->parent = d;
	else
		inode_put(ip);
	return d;
}

/* The child of dir named name[0..len) (dcache_lock held), or NULL. */
static struct dentry *child_named(struct dentry *dir, const char *name, size_t len)
{
	list_for_each(l, &dir->children) {
		struct dentry *c = list_entry(l, struct dentry, sibling);
		if (c->len == len && !memcmp(c->name, name, len))
			return c;
	}
	return NULL;
}

struct dentry *dentry_find(struct dentry *dir, const char *name, size_t len)
{
	spin_lock(&dcache_lock);
	struct dentry *d = child_named(dir, name, len);
	if (d)
		d->refs++;
	spin_unlock(&dcache_lock);
	return d;
}

struct dentry *dentry_add(struct dentry *dir, const char *name, size_t len,
			  struct inode *ip, unsigned flags)
{
	struct dentry *d = dentry_alloc(dir->sb, name, len, ip, flags);
	if (!d) {
		inode_put(ip);
		return NULL;
	}
	spin_lock(&dcache_lock);
	struct dentry *old = child_named(dir, name, len);
	if (old) {
		old->refs++;
		spin_unlock(&dcache_lock);
		if (ip->alias == d)
			ip->alias = NULL;
		name_free(d);
		inode_put(ip);
		return old;
	}
	d->parent = dir;
	dir->refs++;                 /* a child holds its parent */
	d->seq = dir->next_seq++;
	list_add_tail(&dir->children, &d->sibling);
	spin_unlock(&dcache_lock);
	return d;
}

struct dentry *dentry_get(struct dentry *d)
{
	spin_lock(&dcache_lock);
	d->refs++;
	spin_unlock(&dcache_lock);
	return d;
}

/* Should an unused dentry leave the tree now (dcache_lock held)? */
static bool forget_now(const struct dentry *d)
{
	if (d->refs)
		return false;
	if (d->flags & DENTRY_DEAD)
		return true;
	return d->parent != d && ((d->flags & DENTRY_VOLATILE) || !d->inode);
}

/* Free d (out of the tree, no references): its inode reference goes, and
 * the one it held on its parent, which is returned for the caller to put. */
static struct dentry *dentry_free(struct dentry *d)
{
	struct inode *ip = d->inode;
	struct dentry *parent = d->parent;
	unused_del(d);
	if (ip && ip->alias == d)
		ip->alias = NULL;   /* under dcache_lock */
	spin_unlock(&dcache_lock);
	name_free(d);
	inode_put(ip);
	spin_lock(&dcache_lock);
	return parent;
}

/* Drop a reference of d (dcache_lock held): an unused dentry that should
 * be forgotten is freed, and so on up its parents; one that stays cached
 * joins the unused list if its file system's names may be reclaimed. */
static void put_locked(struct dentry *d)
{
	while (d) {
		if (d->refs <= 0)
			panic("dentry_put: dentry '%s' (%p) has no references", d->name, (void *)d);
		if (--d->refs)
			break;
		if (!forget_now(d)) {
			if ((d->sb->flags & SB_RECLAIMABLE) && d->parent != d)
				unused_add(d);
			break;
		}
		if (!(d->flags & DENTRY_DEAD))
			list_del(&d->sibling);
		struct dentry *parent = d->parent;
		bool dead = d->flags & DENTRY_DEAD;
		dentry_free(d);
		d = dead ? NULL : parent;   /* a dead one gave its parent back when it died */
	}
}

void dentry_put(struct dentry *d)
{
	if (!d)
		return;
	spin_lock(&dcache_lock);
	put_locked(d);
	spin_unlock(&dcache_lock);
}

void dentry_drop(struct dentry *d)
{
	spin_lock(&dcache_lock);
	struct dentry *parent = NULL;
	if (!(d->flags & DENTRY_DEAD)) {
		d->flags |= DENTRY_DEAD;
		list_del(&d->sibling);
		list_init(&d->sibling);
		parent = d->parent;
		d->parent = d;       /* a dead name has no place; its path says "(deleted)" */
	}
	spin_unlock(&dcache_lock);
	dentry_put(parent);
}

int dentry_name_prepare(size_t len, char **buf)
{
	*buf = NULL;
	if (len < sizeof(((struct dentry *)0)->iname))
		return 0;
	*buf = kmalloc(len + 1);
	return *buf ? 0 : -ENOMEM;
}

void dentry_move(struct dentry *d, struct dentry *ndir, const char *name, size_t len, char *buf)
{
	spin_lock(&dcache_lock);
	struct dentry *old = d->parent;
	list_del(&d->sibling);
	ndir->refs++;
	d->parent = ndir;
	d->seq = ndir->next_seq++;
	list_add_tail(&ndir->children, &d->sibling);
	char *oldname = d->name != d->iname ? d->name : NULL;
	d->name = buf ? buf : d->iname;
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	d->len = len;
	spin_unlock(&dcache_lock);
	kfree(oldname);
	dentry_put(old);
}

void dentry_exchange(struct dentry *a, struct dentry *b)
{
	spin_lock(&dcache_lock);
	struct dentry *pa = a->parent, *pb = b->parent;
	list_del(&a->sibling);
	list_del(&b->sibling);
	a->parent = pb, b->parent = pa;   /* (each parent keeps one child's reference) */
	a->seq = pb->next_seq++, b->seq = pa->next_seq++;
	list_add_tail(&pb->children, &a->sibling);
	list_add_tail(&pa->children, &b->sibling);
	char *an = a->name != a->iname ? a->name : NULL, *bn = b->name != b->iname ? b->name : NULL;
	char tmp[sizeof(a->iname)];
	memcpy(tmp, a->iname, sizeof(tmp));
	memcpy(a->iname, b->iname, sizeof(tmp));
	memcpy(b->iname, tmp, sizeof(tmp));
	a->name = bn ? bn : a->iname, b->name = an ? an : b->iname;
	size_t len = a->len;
	a->len = b->len, b->len = len;
	spin_unlock(&dcache_lock);
}

bool dentry_is_ancestor(struct dentry *d, struct dentry *e)
{
	spin_lock(&dcache_lock);
	while (e != d && e->parent != e)
		e = e->parent;
	bool r = e == d;
	spin_unlock(&dcache_lock);
	return r;
}

/* The first unused leaf below (or at) d, dcache_lock held; NULL if none. */
static struct dentry *unused_leaf(struct dentry *d)
{
	list_for_each(l, &d->children) {
		struct dentry *leaf = unused_leaf(list_entry(l, struct dentry, sibling));
		if (leaf)
			return leaf;
	}
	return d->refs == 0 && list_empty(&d->children) && d->parent != d ? d : NULL;
}

void dentry_prune(struct super_block *sb)
{
	spin_lock(&dcache_lock);
	struct dentry *d;
	while ((d = unused_leaf(sb->root))) {
		list_del(&d->sibling);
		put_locked(dentry_free(d));   /* its parent loses the child's reference */
	}
	spin_unlock(&dcache_lock);
}

/* The oldest unused dentry to free (dcache_lock held), or NULL when the
 * list is empty: dentries in use again are taken off on the way, those
 * used again while on it get one more round at the tail. */
static struct dentry *oldest_unused(void)
{
	uint64_t looks = 2 * dcache_stats.unused + 1;   /* a REFERENCED one is spared once */
	while (!list_empty(&unused) && looks--) {
		struct dentry *d = list_entry(unused.next, struct dentry, lru);
		if (d->refs) {
			unused_del(d);
		} else if (d->flags & DENTRY_REFERENCED) {
			d->flags &= ~(unsigned)DENTRY_REFERENCED;
			list_del(&d->lru);
			list_add_tail(&unused, &d->lru);
		} else {
			return d;
		}
	}
	return NULL;
}

uint64_t dcache_shrink(uint64_t n)
{
	uint64_t freed = 0;
	struct dentry *d;
	spin_lock(&dcache_lock);
	while (freed < n && (d = oldest_unused())) {
		list_del(&d->sibling);
		put_locked(dentry_free(d));   /* its parent loses the child's reference */
		freed++;
	}
	spin_unlock(&dcache_lock);
	return freed;
}

void dentry_kill_root(struct super_block *sb)
{
	spin_lock(&dcache_lock);
	struct dentry *root = sb->root;
	if (root->refs != 1 || !list_empty(&root->children))   /* 1: the sb's own */
		panic("dentry_kill_root: the root of a %s still has users (%d references)",
		      sb->type->name, root->refs);
	struct inode *ip = root->inode;
	if (ip->alias == root)
		ip->alias = NULL;
	sb->root = NULL;
	spin_unlock(&dcache_lock);
	name_free(root);
	inode_put(ip);
}
