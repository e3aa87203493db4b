/* kernel/initrd.c -- unpack the ustar initrd into the inode tree.
 *
 * ustar: a sequence of 512-byte headers, each followed by the file's data
 * rounded up to 512 bytes; two zero blocks end the archive. We keep
 * directories and regular files, and add /dev/console, /dev/null, /dev/zero.
 */
#include "kernel/fs.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/printk.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define TAR_BLOCK 512

struct ustar_header {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12];
	char chksum[8], typeflag, linkname[100], magic[6], version[2];
	char uname[32], gname[32], devmajor[8], devminor[8], prefix[155];
};

static struct inode root = { .name = "/", .type = INODE_DIR, .mode = 0755, .ino = 1 };
static uint64_t next_ino = 2;

static uint64_t octal(const char *s, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n && s[i] >= '0' && s[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(s[i] - '0');
	return v;
}

static struct inode *child_named(struct inode *dir, const char *name, size_t len)
{
	for (struct inode *c = dir->children; c; c = c->next_sibling)
		if (strlen(c->name) == len && strncmp(c->name, name, len) == 0)
			return c;
	return NULL;
}

/* The child of dir named name[0..len): synthesized or from the archive. */
static struct inode *lookup_child(struct inode *dir, const char *name, size_t len)
{
	return dir->ops ? dir->ops->lookup(dir, name, len) : child_named(dir, name, len);
}

/* Create (or find) name under dir. */
static struct inode *add_child(struct inode *dir, const char *name, size_t len,
			       enum inode_type type)
{
	struct inode *ip = child_named(dir, name, len);
	if (ip)
		return ip;
	ip = kzalloc(sizeof(*ip));
	if (!ip)
		return NULL;
	size_t n = MIN(len, (size_t)NAME_MAX - 1);
	memcpy(ip->name, name, n);
	ip->type = type;
	ip->mode = type == INODE_DIR ? 0755 : 0644;
	ip->ino = next_ino++;
	ip->parent = dir;
	ip->next_sibling = dir->children;
	dir->children = ip;
	return ip;
}

/* Walk path from dir, creating missing directories when create is set;
 * returns the inode named by the last component (created as type). */
static struct inode *walk_path(struct inode *dir, const char *path, bool create,
			       enum inode_type type)
{
	struct inode *ip = dir;
	while (*path) {
		while (*path == '/')
			path++;
		if (!*path)
			break;
		const char *end = path;
		while (*end && *end != '/')
			end++;
		size_t len = (size_t)(end - path);
		const char *rest = end;
		while (*rest == '/')
			rest++;
		bool last = !*rest;
		if (len == 1 && path[0] == '.') {
			/* stay */
		} else if (len == 2 && path[0] == '.' && path[1] == '.') {
			ip = ip->parent ? ip->parent : ip;
		} else {
			struct inode *next = lookup_child(ip, path, len);
			if (!next && create)
				next = add_child(ip, path, len, last ? type : INODE_DIR);
			if (!next || (!last && next->type != INODE_DIR))
				return NULL;
			ip = next;
		}
		path = end;
	}
	return ip;
}

/* Copy a file's bytes into fresh frames. */
static const struct vmobject_ops file_obj_ops;

static int fill_file(struct inode *ip, const char *data, uint64_t size)
{
	ip->size = size;
	ip->npages = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;
	ip->vmobj = (struct vmobject){ .ops = &file_obj_ops, .kind = VMOBJ_FILE,
				       .refs = 1, .npages = ip->npages };
	if (!ip->npages)
		return 0;
	ip->pages = kzalloc(ip->npages * sizeof(struct page *));
	if (!ip->pages)
		return -ENOMEM;
	for (uint64_t i = 0; i < ip->npages; i++) {
		struct page *pg = page_alloc(0, PA_ZERO | PA_FILE);
		if (!pg)
			return -ENOMEM;
		uint64_t n = MIN(PAGE_SIZE, size - i * PAGE_SIZE);
		memcpy(P2V(page_to_pa(pg)), data + i * PAGE_SIZE, n);
		ip->pages[i] = pg;
	}
	return 0;
}

static struct inode *add_device(const char *name, enum dev_kind kind)
{
	struct inode *dev = walk_path(&root, "dev", true, INODE_DIR);
	struct inode *ip = add_child(dev, name, strlen(name), INODE_DEV);
	if (ip) {
		ip->dev = kind;
		ip->mode = 0666;
	}
	return ip;
}

void fs_add_disks(void)
{
	struct blkdev *d;
	for (int i = 0; (d = blkdev_get(i)); i++) {
		struct inode *ip = add_device(d->name, DEV_DISK);
		if (!ip) {
			printk("fs: no memory for /dev/%s\n", d->name);
			continue;
		}
		ip->mode = 0660;                         /* as udev makes them */
		ip->priv = (uint64_t)i;
		ip->size = d->sectors * SECTOR_SIZE;     /* lseek's SEEK_END */
	}
}

struct blkdev *inode_disk(const struct inode *ip)
{
	return ip->type == INODE_DEV && ip->dev == DEV_DISK ? blkdev_get((int)ip->priv) : NULL;
}

int initrd_load(paddr_t start, paddr_t end)
{
	const char *p = P2V(start), *limit = P2V(end);
	int files = 0;

	while (p + TAR_BLOCK <= limit) {
		const struct ustar_header *h = (const void *)p;
		if (!h->name[0])
			break;
		uint64_t size = octal(h->size, sizeof(h->size));
		const char *data = p + TAR_BLOCK;
		if (data + size > limit)
			return -EINVAL;
		char path[256];
		ksnprintf(path, sizeof(path), "%.155s/%.100s", h->prefix, h->name);
		if (h->typeflag == '5') {
			walk_path(&root, path, true, INODE_DIR);
		} else if (h->typeflag == '0' || h->typeflag == 0) {
			struct inode *ip = walk_path(&root, path, true, INODE_FILE);
			if (!ip)
				return -ENOMEM;
			ip->mode = (uint32_t)octal(h->mode, sizeof(h->mode)) & 07777;
			int r = fill_file(ip, data, size);
			if (r < 0)
				return r;
			files++;
		}
		p = data + ALIGN_UP(size, TAR_BLOCK);
	}
	add_device("console", DEV_CONSOLE);
	add_device("null", DEV_NULL);
	add_device("zero", DEV_ZERO);
	struct inode *proc = walk_path(&root, "proc", true, INODE_DIR);
	if (!proc)
		return -ENOMEM;
	procfs_init(proc);
	return files;
}

struct inode *fs_lookup(const char *path)
{
	struct proc *p = current_proc();
	struct inode *start = path[0] != '/' && p && p->fs && p->fs->cwd ? p->fs->cwd : &root;
	return walk_path(start, path, false, INODE_FILE);
}

long inode_path(const struct inode *ip, char *buf, uint64_t n)
{
	uint64_t len = 0;
	if (!ip)
		ip = &root;
	for (const struct inode *i = ip; i != &root; i = i->parent)
		len += 1 + strlen(i->name);
	if (len == 0)
		len = 1;          /* the root: "/" */
	if (len + 1 > n)
		return -ERANGE;
	buf[len] = '\0';
	buf[0] = '/';
	uint64_t end = len;
	for (const struct inode *i = ip; i != &root; i = i->parent) {
		uint64_t l = strlen(i->name);
		end -= l;
		memcpy(buf + end, i->name, l);
		buf[--end] = '/';
	}
	return (long)len + 1;
}

/* ---- the file's backing object (mm/vmobject.h) ---- */

static struct inode *obj_inode(struct vmobject *obj)
{
	return container_of(obj, struct inode, vmobj);
}

static int file_get_page(struct vmobject *obj, uint64_t idx, struct page **out)
{
	struct inode *ip = obj_inode(obj);
	if (idx >= ip->npages)
		return -EIO;      /* past the end of the file: SIGBUS */
	page_get(ip->pages[idx]);
	*out = ip->pages[idx];
	return 0;
}

static int file_resident(struct vmobject *obj, uint64_t idx)
{
	return idx < obj_inode(obj)->npages;   /* the initrd is all in RAM */
}

static const struct vmobject_ops file_obj_ops = {
	.get_page = file_get_page, .resident = file_resident,
};

struct vmobject *inode_vmobject(struct inode *ip)
{
	return ip->vmobj.ops ? &ip->vmobj : NULL;   /* set up at boot (fill_file) */
}

uint64_t inode_read(struct inode *ip, uint64_t off, void *dst, uint64_t n)
{
	if (off >= ip->size)
		return 0;
	n = MIN(n, ip->size - off);
	for (uint64_t done = 0; done < n;) {
		uint64_t idx = (off + done) / PAGE_SIZE, in = (off + done) % PAGE_SIZE;
		uint64_t chunk = MIN(n - done, PAGE_SIZE - in);
		memcpy((char *)dst + done, (char *)P2V(page_to_pa(ip->pages[idx])) + in, chunk);
		done += chunk;
	}
	return n;
}

struct inode *vmobject_inode(struct vmobject *obj)
{
	return obj && obj->ops == &file_obj_ops ? obj_inode(obj) : NULL;
}
