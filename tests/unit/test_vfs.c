/* tests/unit/test_vfs.c -- the VFS (fs/) on the host with tmpfs, under
 * ASan/UBSan: names and their errnos, symlinks and "..", mounts, files'
 * bytes through the page cache, every inode, dentry and page given back
 * (kmalloc_live and the free frames return to where they were), and a
 * model-based random test of names (VFS_SEED=S replays seed S; with
 * VFS_SEEDS=N, N seeds from S (or 1); 40 by default; `make fuzz` runs many): random creates, mkdirs, unlinks, rmdirs, renames and
 * links in a small tree, after each of which the tree the
 * VFS lists, with its types and link counts, equals a model's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/errno.h"
#include "mm/frame/kmalloc.h"
#include "mm/rmap.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(32)

/* ---- a tmpfs root ---- */

static struct fs_root fs;
static uint64_t objects0;

static void setup(void)
{
	host_mm_setup(RAM, false);
	objects0 = kmalloc_live();
	vfs_init();
	fs_type_register(&tmpfs_type);
	ck_assert_int_eq(vfs_mount_root("tmpfs", NULL, "rootfs"), 0);
	vfs_root(&fs.root);
	vfs_root(&fs.cwd);
}

static int walk(const char *name, enum lookup_flags flags, struct path *out)
{
	struct path p;
	int r = path_walk(&fs, NULL, name, flags, &p);
	if (r == 0 && out)
		*out = p;
	else if (r == 0)
		path_put(&p);
	return r;
}

static struct inode *inode_at(const char *name)
{
	struct path p;
	ck_assert_int_eq(walk(name, 0, &p), 0);
	struct inode *ip = p.dentry->inode;
	path_put(&p);
	return ip;
}

static void make_file(const char *name, const char *text)
{
	struct path p;
	ck_assert_int_eq(vfs_create(&fs, NULL, name, S_IFREG | 0644, 0, &p), 0);
	struct inode *ip = p.dentry->inode;
	long n = (long)strlen(text);
	ck_assert_int_eq(pagecache_copy(ip->mapping, 0, (void *)text, (uint64_t)n, PC_COPY_IN), n);
	ip->size = (uint64_t)n;
	path_put(&p);
}

static void check_text(const char *name, const char *want)
{
	char buf[128] = "";
	struct path p;
	ck_assert_int_eq(walk(name, LOOKUP_FOLLOW, &p), 0);
	struct inode *ip = p.dentry->inode;
	path_put(&p);
	ck_assert_int_eq(inode_read(ip, 0, buf, sizeof(buf) - 1), (long)strlen(want));
	ck_assert_str_eq(buf, want);
}

/* RENAME_EXCHANGE: two names trade places (a file and a directory across
 * directories: the link counts follow the directory); a name and its
 * own ancestor cannot. */
START_TEST(rename_exchange)
{
	setup();
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/a", 0755), 0);
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/b", 0755), 0);
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/a/sub", 0755), 0);
	make_file("/a/sub/x", "in sub");
	make_file("/b/a-rather-long-name-that-is-not-inline-in-the-dentry", "file");
	struct inode *sub = inode_at("/a/sub");
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/a/sub", NULL,
				    "/b/a-rather-long-name-that-is-not-inline-in-the-dentry",
				    RENAME_EXCHANGE), 0);
	check_text("/a/sub", "file");
	check_text("/b/a-rather-long-name-that-is-not-inline-in-the-dentry/x", "in sub");
	ck_assert_ptr_eq(inode_at("/b/a-rather-long-name-that-is-not-inline-in-the-dentry"), sub);
	ck_assert_int_eq(inode_at("/a")->nlink, 2);   /* its subdirectory went to /b */
	ck_assert_int_eq(inode_at("/b")->nlink, 3);
	ck_assert_int_eq(walk("/b/a-rather-long-name-that-is-not-inline-in-the-dentry/../../a/sub", 0,
			      NULL), 0);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/b", NULL,
				    "/b/a-rather-long-name-that-is-not-inline-in-the-dentry",
				    RENAME_EXCHANGE), -EINVAL);   /* into itself */
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/b/a-rather-long-name-that-is-not-inline-in-the-dentry/x",
				    NULL, "/b", RENAME_EXCHANGE), -EINVAL);   /* with its ancestor */
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/a/sub", NULL, "/a/sub", RENAME_EXCHANGE), 0);
}
END_TEST

START_TEST(names_and_errors)
{
	setup();
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/d", 0755), 0);
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/d", 0755), -EEXIST);
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/x/y", 0755), -ENOENT);
	make_file("/d/f", "hello");
	ck_assert_int_eq(walk("/d/f/g", 0, NULL), -ENOTDIR);
	ck_assert_int_eq(walk("/d/f/", 0, NULL), -ENOTDIR);
	ck_assert_int_eq(walk("/d/../d/./f", 0, NULL), 0);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/d", UNLINK_DIR), -ENOTEMPTY);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/d", UNLINK_FILE), -EISDIR);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/d/f", UNLINK_DIR), -ENOTDIR);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/d/.", UNLINK_DIR), -EINVAL);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/", UNLINK_DIR), -EBUSY);
	ck_assert_int_eq(vfs_link(&fs, NULL, "/d", NULL, "/e", 0), -EPERM);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/d", NULL, "/d/sub", 0), -EINVAL);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/d/f", NULL, "/d/g", RENAME_EXCHANGE), -ENOENT);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/d/f", NULL, "/d/f", RENAME_EXCHANGE | RENAME_NOREPLACE),
			 -EINVAL);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/d/f", NULL, "/d/f", 8 /* WHITEOUT */), -EINVAL);
	ck_assert_int_eq(inode_at("/d")->nlink, 2);
	ck_assert_int_eq(inode_at("/")->nlink, 3);
	check_text("/d/f", "hello");
	char buf[64];
	struct path p;
	ck_assert_int_eq(walk("/d/f", 0, &p), 0);
	ck_assert_int_eq(path_name(&fs, &p, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "/d/f");
	ck_assert_int_eq(path_name(&fs, &p, buf, 4), -ERANGE);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/d/f", UNLINK_FILE), 0);
	ck_assert_int_eq(path_name(&fs, &p, buf, sizeof(buf)), 13);
	ck_assert_str_eq(buf, "/f (deleted)");
	path_put(&p);
}
END_TEST

START_TEST(symlinks)
{
	setup();
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/d", 0755), 0);
	make_file("/d/f", "via link");
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/l", "d/f"), 0);
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/ld", "/d"), 0);
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/d/up", ".."), 0);
	check_text("/l", "via link");
	check_text("/ld/f", "via link");
	check_text("/d/up/d/up/l", "via link");
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/loop", "/loop"), 0);
	ck_assert_int_eq(walk("/loop", LOOKUP_FOLLOW, NULL), -ELOOP);
	ck_assert_int_eq(walk("/loop/x", 0, NULL), -ELOOP);
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/dangling", "/nowhere"), 0);
	ck_assert_int_eq(walk("/dangling", LOOKUP_FOLLOW, NULL), -ENOENT);
	ck_assert_int_eq(vfs_symlink(&fs, NULL, "/empty", ""), -ENOENT);
	char buf[16];
	ck_assert_int_eq(vfs_readlink(&fs, NULL, "/l", buf, sizeof(buf)), 3);
	ck_assert_int_eq(memcmp(buf, "d/f", 3), 0);
	ck_assert_int_eq(vfs_readlink(&fs, NULL, "/d", buf, sizeof(buf)), -EINVAL);
	ck_assert(S_ISLNK(inode_at("/l")->mode));
}
END_TEST

/* Everything made is given back: kmalloc objects and frames. */
START_TEST(all_given_back_at_umount)
{
	setup();
	uint64_t objects = kmalloc_live();
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/m", 0755), 0);
	ck_assert_int_eq(vfs_mount(&fs, "tmpfs", "/m", "tmpfs", 0, "mode=1777"), 0);
	ck_assert_uint_eq(inode_at("/m")->mode, S_IFDIR | 01777);
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/m/a", 0755), 0);
	make_file("/m/a/f", "bytes");
	ck_assert_int_eq(vfs_link(&fs, NULL, "/m/a/f", NULL, "/m/g", 0), 0);
	ck_assert_int_eq(vfs_link(&fs, NULL, "/m/a/f", NULL, "/outside", 0), -EXDEV);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/m/g", NULL, "/moved", 0), -EXDEV);
	struct path held;
	ck_assert_int_eq(walk("/m/a", 0, &held), 0);
	ck_assert_int_eq(vfs_umount(&fs, "/m", 0), -EBUSY);
	path_put(&held);
	ck_assert_int_eq(walk("/m/a/..", 0, &held), 0);   /* the mount's root */
	ck_assert_int_eq(vfs_umount(&fs, "/m/a", 0), -EINVAL);
	path_put(&held);
	ck_assert_int_eq(vfs_umount(&fs, "/m", 0), 0);
	ck_assert_int_eq(walk("/m/a", 0, NULL), -ENOENT);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/m", UNLINK_DIR), 0);
	ck_assert_uint_eq(kmalloc_live(), objects);
	/* a file unlinked while held goes at its last reference, pages too */
	uint64_t frames = mm_stats.free;
	make_file("/big", "x");
	struct path p;
	ck_assert_int_eq(walk("/big", 0, &p), 0);
	char page[PAGE_SIZE] = { 1 };
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pagecache_copy(p.dentry->inode->mapping, (uint64_t)i * PAGE_SIZE, page,
						PAGE_SIZE, PC_COPY_IN), PAGE_SIZE);
	ck_assert_int_eq(vfs_unlink(&fs, NULL, "/big", UNLINK_FILE), 0);
	ck_assert_uint_lt(mm_stats.free, frames);
	path_put(&p);
	ck_assert_uint_eq(kmalloc_live(), objects);
	ck_assert_uint_eq(mm_stats.free, frames);
}
END_TEST

/* tmpfs's names are its directories: memory pressure never takes them
 * (dcache_shrink and inode_shrink find nothing of it to free). */
START_TEST(tmpfs_names_never_shrunk)
{
	setup();
	ck_assert_int_eq(vfs_mkdir(&fs, NULL, "/keep", 0755), 0);
	make_file("/keep/a", "alpha");
	make_file("/keep/b", "beta");
	uint64_t dentries = dcache_stats.dentries, inodes = inode_stats.inodes;
	ck_assert_uint_eq(dcache_stats.unused, 0);
	ck_assert_uint_eq(dcache_shrink(~0ull), 0);
	ck_assert_uint_eq(inode_shrink(~0ull), 0);
	ck_assert_uint_eq(dcache_stats.dentries, dentries);
	ck_assert_uint_eq(inode_stats.inodes, inodes);
	check_text("/keep/a", "alpha");
	check_text("/keep/b", "beta");
}
END_TEST

START_TEST(truncate_zeroes_the_tail)
{
	setup();
	make_file("/f", "0123456789");
	struct inode *ip = inode_at("/f");
	ck_assert_int_eq(vfs_truncate(ip, 4), 0);
	ck_assert_int_eq(vfs_truncate(ip, 10), 0);
	char buf[10];
	ck_assert_int_eq(inode_read(ip, 0, buf, 10), 10);
	ck_assert_int_eq(memcmp(buf, "0123\0\0\0\0\0\0", 10), 0);
	ck_assert_int_eq(vfs_truncate(inode_at("/"), 0), -EISDIR);
	ck_assert_int_eq(vfs_truncate(ip, ~0ull), -EFBIG);
}
END_TEST

/* A hole punched: its pages leave the cache before the reverse-map walk
 * takes them out of the mappings, and are freed after it -- so a fault
 * between can map no page the cache has dropped (the walk once came
 * first, and a fault after it mapped a page the cache then dropped:
 * make fuzz's vmcheck saw a file frame mapped without its file's
 * reference). The hole reads zeros, the rest stays. */
static struct inode *punched;
static unsigned punch_walks, punch_cached;

static void punch_look(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	(void)obj;
	ck_assert_int_eq(how, UNMAP_PUNCH);
	punch_walks++;
	for (uint64_t i = first; i < first + n; i++) {
		struct page *pg;
		if (pagecache_get(punched->mapping, i, PC_FIND, &pg) == 0) {
			punch_cached++;
			page_put(pg);
		}
	}
}

START_TEST(punch_drops_pages_before_the_unmap)
{
	enum { P = 4096, PAGES = 8 };
	static char bytes[PAGES * P];
	setup();
	make_file("/f", "");
	punched = inode_at("/f");
	memset(bytes, 'x', sizeof bytes);
	ck_assert_int_eq(pagecache_copy(punched->mapping, 0, bytes, sizeof bytes, PC_COPY_IN),
			 (long)sizeof bytes);
	punched->size = sizeof bytes;
	uint64_t free0 = mm_stats.free;
	host_unmap_hook = punch_look;
	ck_assert_int_eq(vfs_punch_hole(punched, 2 * P, 4 * P), 0);
	host_unmap_hook = NULL;
	ck_assert_uint_gt(punch_walks, 0);
	ck_assert_uint_eq(punch_cached, 0);
	ck_assert_uint_eq(mm_stats.free, free0 + 4);   /* the four pages freed */
	ck_assert_int_eq(inode_read(punched, 0, bytes, sizeof bytes), (long)sizeof bytes);
	for (int i = 0; i < PAGES * P; i++)
		ck_assert_int_eq(bytes[i], i >= 2 * P && i < 6 * P ? 0 : 'x');
}
END_TEST

/* A rename to a name longer than a dentry's inline buffer when no memory
 * is left for it: -ENOMEM and the old name still works (a tmpfs name lives
 * only in its dentry; the rename once went ahead and the dentry lost its
 * name: readdir listed an entry no lookup found, and make fuzz's cleanup
 * looped for ever); with memory back, the rename works. */
START_TEST(rename_keeps_the_name_without_memory)
{
	enum { MAXP = RAM / PAGE_SIZE, MAXO = 1 << 16 };
	static struct page *pages[MAXP];
	static void *objs[MAXO];
	char name[202] = "/";   /* a size class of its own, far from the walks' */
	memset(name + 1, 'n', 200);
	setup();
	make_file("/a", "kept");
	unsigned np = 0, no = 0;
	void *small[9];   /* room kept for the path walks' small allocations */
	for (int i = 0; i < 9; i++)
		small[i] = kmalloc(16);   /* small[8] keeps their slab a slab */
	while (np < MAXP && (pages[np] = page_alloc(0, 0)))
		np++;
	while (no < MAXO && (objs[no] = kmalloc(sizeof(name))))
		no++;
	for (int i = 0; i < 8; i++)
		kfree(small[i]);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/a", NULL, name, 0), -ENOMEM);
	check_text("/a", "kept");
	kfree(small[8]);
	while (no)
		kfree(objs[--no]);
	while (np)
		page_free(pages[--np], 0);
	ck_assert_int_eq(vfs_rename(&fs, NULL, "/a", NULL, name, 0), 0);
	check_text(name, "kept");
	ck_assert_int_eq(walk("/a", 0, NULL), -ENOENT);
}
END_TEST

/* A name longer than a dentry's inline buffer lives in memory of its own,
 * which must end with a NUL: readdir copies a name up to its NUL. The
 * buffer it gets is one just freed with other bytes in it. Before, the
 * NUL was missing when a file was made with such a name (a rename wrote
 * it): readdir listed the name with those bytes after it, no lookup found
 * that, and make fuzz's cleanup failed ("listed again after its removal")
 * whenever a fuzzed call had made a long name in /tmp. */
START_TEST(long_name_listed_as_made)
{
	char name[102] = "/", want[101];
	memset(name + 1, 'n', 100);
	strcpy(want, name + 1);
	setup();
	char *dirty = kmalloc(sizeof(want));   /* the size class the name gets */
	memset(dirty, 'X', sizeof(want));
	kfree(dirty);
	make_file(name, "long");
	struct path p;
	ck_assert_int_eq(walk("/", 0, &p), 0);
	struct dir_entry de;
	uint64_t pos = 2;
	int found = 0;
	while (p.dentry->inode->op->readdir(p.dentry, &pos, &de) == 1)
		found += !strcmp(de.name, want);
	path_put(&p);
	ck_assert_int_eq(found, 1);
	check_text(name, "long");
}
END_TEST

/* Shared anonymous memory is an unnamed tmpfs file: zeros until written,
 * one frame per index for every get, nothing past its end; MADV_REMOVE's
 * op empties a page (the next get is a new page of zeros); the last
 * reference frees the file and its pages. */
START_TEST(shmem_object_is_an_unnamed_file)
{
	setup();
	shmem_init();
	uint64_t objects = kmalloc_live(), free0 = mm_stats.free;
	struct vmobject *o = shmem_object_new(100000ull * PAGE_SIZE);
	struct page *p, *q;
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->kind, VMOBJ_SHM);
	ck_assert_int_eq(o->ops->resident(o, 77777), 0);
	ck_assert_int_eq(o->ops->get_page(o, 77777, VMOBJ_RA_NORMAL, &p), 0);
	ck_assert(host_all_zero(page_va(p), PAGE_SIZE));
	ck_assert_int_eq(o->ops->get_page(o, 77777, VMOBJ_RA_NORMAL, &q), 0);
	ck_assert_ptr_eq(p, q);
	page_put(q);
	ck_assert_int_eq(o->ops->resident(o, 77777), 1);
	ck_assert_int_eq(o->ops->get_page(o, 100000, VMOBJ_RA_NORMAL, &q), -EIO);
	memset(page_va(p), 'x', PAGE_SIZE);
	ck_assert_int_eq(o->ops->remove(o, 77777, 1), 0);
	ck_assert_int_eq(o->ops->resident(o, 77777), 0);
	page_put(p);
	ck_assert_int_eq(o->ops->get_page(o, 77777, VMOBJ_RA_NORMAL, &p), 0);
	ck_assert(host_all_zero(page_va(p), PAGE_SIZE));
	page_put(p);
	vmobject_put(o);   /* the last: the file goes */
	ck_assert_uint_eq(kmalloc_live(), objects);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* ---- the model ---- */

#define NNAMES 12
#define MAXE 64

/* The model: entries by path ("/a", "/a/b"), each a file id (hard links
 * share it), a directory, or a symlink. */
enum mtype { M_FILE, M_DIR, M_LINK };
struct mentry {
	char path[32];
	enum mtype type;
	int file;
};
static struct mentry model[MAXE];
static int nmodel;

static int mfind(const char *path)
{
	for (int i = 0; i < nmodel; i++)
		if (!strcmp(model[i].path, path))
			return i;
	return -1;
}

static void madd(const char *path, enum mtype type, int file)
{
	ck_assert_int_lt(nmodel, MAXE);
	model[nmodel] = (struct mentry){ .type = type, .file = file };
	strcpy(model[nmodel++].path, path);
}

static void mdel(int i)
{
	model[i] = model[--nmodel];
}

static const char *const names[NNAMES] = { "/a", "/b", "/c", "/a/x", "/a/y", "/b/x", "/b/y",
					   "/c/z", "/a/x/p", "/b/x/p", "/d", "/a/q" };

/* Is path inside dir (a proper descendant)? */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && path[n] == '/';
}

/* Move every model entry at or below from to under to. */
static void mmove(const char *from, const char *to)
{
	for (int i = 0; i < nmodel; i++)
		if (!strcmp(model[i].path, from) || below(model[i].path, from)) {
			char rest[32];
			strcpy(rest, model[i].path + strlen(from));
			snprintf(model[i].path, sizeof(model[i].path), "%s%s", to, rest);
		}
}

static int links_of(int file)
{
	int n = 0;
	for (int i = 0; i < nmodel; i++)
		n += model[i].type == M_FILE && model[i].file == file;
	return n;
}

/* Directories directly in dir (for a directory's link count). */
static int subdirs(const char *dir)
{
	int n = 0;
	for (int i = 0; i < nmodel; i++)
		if (model[i].type == M_DIR && below(model[i].path, dir) &&
		    !strchr(model[i].path + strlen(dir) + 1, '/'))
			n++;
	return n;
}

/* Entries the VFS lists in dir, each checked against the model. */
static int check_dir(const char *dir)
{
	struct path p;
	ck_assert_int_eq(walk(dir, 0, &p), 0);
	struct dir_entry de;
	uint64_t pos = 2;
	int listed = 0;
	while (p.dentry->inode->op->readdir(p.dentry, &pos, &de) == 1) {
		char path[300];
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", de.name);
		int i = mfind(path);
		if (i < 0)
			ck_abort_msg("%s is listed but not in the model", path);
		uint8_t want = model[i].type == M_DIR ? 4 : model[i].type == M_LINK ? 10 : 8;
		ck_assert_uint_eq(de.type, want);
		struct inode *ip = inode_at(path);
		if (model[i].type == M_FILE)
			ck_assert_uint_eq(ip->nlink, (unsigned)links_of(model[i].file));
		if (model[i].type == M_DIR) {
			ck_assert_uint_eq(ip->nlink, 2u + (unsigned)subdirs(path));
			listed += check_dir(path);
		}
		listed++;
	}
	path_put(&p);
	return listed;
}

static void check_model(void)
{
	ck_assert_int_eq(check_dir("/"), nmodel);
	ck_assert_uint_eq(inode_at("/")->nlink, 2u + (unsigned)subdirs(""));
}

/* What walking to path's directory gives: 0, -ENOENT (a missing
 * directory on the way) or -ENOTDIR (a file on the way). */
static int parent_error(const char *path)
{
	char prefix[32];
	for (const char *c = strchr(path + 1, '/'); c; c = strchr(c + 1, '/')) {
		memcpy(prefix, path, (size_t)(c - path));
		prefix[c - path] = '\0';
		int i = mfind(prefix);
		if (i < 0)
			return -ENOENT;
		if (model[i].type != M_DIR)
			return -ENOTDIR;
	}
	return 0;
}

/* One random operation; the model follows when the VFS says it worked,
 * and says what the VFS must have said. */
static void random_op(unsigned *seed)
{
	const char *a = names[rand_r(seed) % NNAMES], *b = names[rand_r(seed) % NNAMES];
	int ia = mfind(a), ib = mfind(b), r;
	static int next_file;
	int perr = parent_error(b);
	switch (rand_r(seed) % 6) {   /* (symlinks: their own test above) */
	case 0: {
		struct path made;
		r = vfs_create(&fs, NULL, b, S_IFREG | 0644, 0, &made);
		if (r == 0) {
			path_put(&made);
			madd(b, M_FILE, next_file++);
		}
		ck_assert_int_eq(r, perr ? perr : ib >= 0 ? -EEXIST : 0);
		break;
	}
	case 1:
		r = vfs_mkdir(&fs, NULL, b, 0755);
		ck_assert_int_eq(r, perr ? perr : ib >= 0 ? -EEXIST : 0);
		if (r == 0)
			madd(b, M_DIR, 0);
		break;
	case 2:
		r = vfs_unlink(&fs, NULL, a, UNLINK_FILE);
		ck_assert_int_eq(r, ia < 0 ? r : model[ia].type == M_DIR ? -EISDIR : 0);
		if (r == 0)
			mdel(ia);
		break;
	case 3:
		r = vfs_unlink(&fs, NULL, a, UNLINK_DIR);
		if (r == 0) {
			for (int i = 0; i < nmodel; i++)
				ck_assert(!below(model[i].path, a));
			mdel(ia);
		} else if (ia >= 0 && model[ia].type == M_DIR) {
			ck_assert_int_eq(r, -ENOTEMPTY);
		}
		break;
	case 4: {
		r = vfs_rename(&fs, NULL, a, NULL, b, 0);
		bool same = ia >= 0 && ib >= 0 && model[ia].type == M_FILE && model[ib].type == M_FILE &&
			    model[ia].file == model[ib].file;   /* two names of one file: nothing */
		if (r == 0 && ia >= 0 && strcmp(a, b) && !same) {
			if (ib >= 0) {
				ck_assert(!below(b, a));
				mdel(ib);
			}
			mmove(a, b);
		}
		if (ia >= 0 && model[ia].type == M_DIR && below(b, a) && !perr)
			ck_assert_int_eq(r, -EINVAL);
		break;
	}
	default:
		r = vfs_link(&fs, NULL, a, NULL, b, 0);
		if (r == 0)
			madd(b, M_FILE, model[ia].file);
		if (ia >= 0 && model[ia].type == M_DIR)   /* (an existing new name first: Linux's order) */
			ck_assert(mfind(b) >= 0 ? r == -EEXIST : r == -EPERM || r == -ENOENT || r == -ENOTDIR);
		break;
	}
}

START_TEST(model_random)
{
	setup();
	uint64_t objects = kmalloc_live();
	const char *s = getenv("VFS_SEED"), *n = getenv("VFS_SEEDS");
	unsigned first = s ? (unsigned)atoi(s) : 1, count = n ? (unsigned)atoi(n) : s ? 1 : 40;
	for (unsigned seed = first; seed < first + count; seed++) {
		unsigned rng = seed;
		nmodel = 0;
		for (int step = 0; step < 300; step++) {
			random_op(&rng);
			check_model();
		}
		/* empty the tree: deepest names first */
		while (nmodel) {
			int deepest = 0;
			for (int i = 1; i < nmodel; i++)
				if (strlen(model[i].path) > strlen(model[deepest].path))
					deepest = i;
			ck_assert_int_eq(vfs_unlink(&fs, NULL, model[deepest].path,
						    model[deepest].type == M_DIR ? UNLINK_DIR : UNLINK_FILE), 0);
			mdel(deepest);
		}
		if (kmalloc_live() != objects)
			ck_abort_msg("seed %u (VFS_SEED=%u replays it): %ld kmalloc objects left", seed,
				     seed, (long)(kmalloc_live() - objects));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vfs");
	TCase *tc = tcase_create("vfs");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, names_and_errors);
	tcase_add_test(tc, rename_exchange);
	tcase_add_test(tc, symlinks);
	tcase_add_test(tc, all_given_back_at_umount);
	tcase_add_test(tc, truncate_zeroes_the_tail);
	tcase_add_test(tc, punch_drops_pages_before_the_unmap);
	tcase_add_test(tc, rename_keeps_the_name_without_memory);
	tcase_add_test(tc, long_name_listed_as_made);
	tcase_add_test(tc, tmpfs_names_never_shrunk);
	tcase_add_test(tc, shmem_object_is_an_unnamed_file);
	suite_add_tcase(s, tc);
	TCase *model_case = tcase_create("model");   /* make fuzz runs it alone: CK_RUN_CASE=model */
	tcase_set_timeout(model_case, 3600);
	tcase_add_test(model_case, model_random);
	suite_add_tcase(s, model_case);
	return host_run_suite(s);
}
