/* tests/unit/test_ext2.c -- fs/ext2 against images `mke2fs -t ext2 -d`
 * makes from a tree this test writes, on a disk in host memory (a block
 * device whose requests complete at once), with 1 KiB and 4 KiB blocks:
 * every file reads back byte for byte (direct, indirect and double
 * indirect blocks, a hole, an empty file), directories list every name
 * (one of 150 entries spans blocks), fast and slow symlinks, Linux's
 * errnos; then damaged images (magic, unknown features, geometry, an
 * inode table out of the disk, a directory entry that does not fit, a
 * block number past the end) and EXT2_SEED-replayable random byte flips
 * in the metadata, which must give errors, never a crash or a loop
 * (EXT2_SEEDS of them, 60 by default; `make fuzz` runs many, alone:
 * CK_RUN_CASE=damage). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/host_mm.h"
#include "drivers/block/blkdev.h"
#include "fs/ext2/ext2.h"
#include "fs/ext2/dirindex.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(64)
#define TREE "tree"   /* in this run's own scratch directory, the cwd (main) */
#define BIG_LEN (1024 * 1024 + 123)

/* ---- a disk in memory ---- */

static uint8_t *image;
static size_t image_len;
static struct blkdev disk;
static unsigned long requests;   /* submitted to the disk */

static int mem_submit(struct blkdev *d, struct blk_request *r)
{
	uint64_t off = r->sector * SECTOR_SIZE;
	for (unsigned i = 0; i < r->nseg; off += r->seg[i++].len) {
		if (r->op == BLK_READ)
			memcpy(r->seg[i].buf, image + off, r->seg[i].len);
		else
			memcpy(image + off, r->seg[i].buf, r->seg[i].len);
	}
	requests++;
	(void)d;
	blk_complete(r, 0);
	return 0;
}

static const struct blkdev_ops mem_ops = { .submit = mem_submit };

/* ---- the source tree and its images ---- */

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void make_tree(void)
{
	ck_assert_int_eq(system("rm -rf " TREE " && mkdir -p " TREE "/dir/sub " TREE "/many"), 0);
	write_file(TREE "/hello.txt", "hello, ext2\n", 12);
	write_file(TREE "/dir/sub/deep.txt", "deep\n", 5);
	write_file(TREE "/empty", "", 0);
	static uint8_t big[BIG_LEN];
	for (size_t i = 0; i < BIG_LEN; i++)
		big[i] = (uint8_t)(i * 7 + i / 4096);
	write_file(TREE "/big.bin", big, BIG_LEN);
	FILE *f = fopen(TREE "/sparse", "wb");                 /* a hole in the middle */
	fwrite("head", 1, 4, f);
	fseek(f, 300 * 1024, SEEK_SET);
	fwrite("tail", 1, 4, f);
	fclose(f);
	for (int i = 0; i < 150; i++) {
		char p[128];
		snprintf(p, sizeof(p), TREE "/many/file-with-a-longish-name-%03d", i);
		write_file(p, p, strlen(p));
	}
	ck_assert_int_eq(symlink("hello.txt", TREE "/link"), 0);
	char longt[101];
	memset(longt, 'x', 100), longt[100] = 0;
	ck_assert_int_eq(symlink(longt, TREE "/longlink"), 0);
}

/* mke2fs an image of the tree with bs-byte blocks into `image`. */
static void make_image(int bs, const char *size)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext2 -b %d -d " TREE " ext2.img %s",
		 bs, size);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen("ext2.img", "rb");
	fseek(f, 0, SEEK_END);
	image_len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	image = malloc(image_len);
	ck_assert_uint_eq(fread(image, 1, image_len, f), image_len);
	fclose(f);
}

static void attach(void)
{
	disk = (struct blkdev){ .name = "vdz", .sectors = image_len / SECTOR_SIZE, .ops = &mem_ops };
	ck_assert_int_eq(blkdev_register(&disk), 0);
}

static void setup(void)
{
	host_mm_setup(RAM, true);
	make_tree();
}

static void teardown(void)
{
	free(image);
	image = NULL;
	host_mm_teardown();
}

/* ---- walking it ---- */

/* The inode at path (from the root), or NULL with *err set. */
static struct ext2_inode *walk(struct ext2_fs *fs, const char *path, int *err)
{
	struct ext2_inode *ip;
	*err = ext2_iget(fs, EXT2_ROOT_INO, &ip);
	while (!*err && *path) {
		const char *end = strchr(path, '/');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		uint32_t ino;
		*err = ext2_lookup(ip, path, len, &ino);
		ext2_iput(ip);
		if (!*err)
			*err = ext2_iget(fs, ino, &ip);
		path += len + (end ? 1 : 0);
	}
	return *err ? NULL : ip;
}

/* The file at path reads back as the source tree's bytes. */
static void same_file(struct ext2_fs *fs, const char *path)
{
	char src[256];
	snprintf(src, sizeof(src), TREE "/%s", path);
	FILE *f = fopen(src, "rb");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *want = malloc((size_t)n + 1), *got = malloc((size_t)n + 10);
	ck_assert_uint_eq(fread(want, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	int err;
	struct ext2_inode *ip = walk(fs, path, &err);
	ck_assert_msg(ip != NULL, "%s: error %d", path, err);
	ck_assert_uint_eq(ip->vfs.size, (uint64_t)n);
	ck_assert_int_eq(ext2_read(ip, 0, got, (uint64_t)n + 10), n);
	ck_assert_msg(memcmp(got, want, (size_t)n) == 0, "%s differs", path);
	if (n > 5000) {   /* a read across a page from an odd offset */
		ck_assert_int_eq(ext2_read(ip, 4000, got, 1000), 1000);
		ck_assert_int_eq(memcmp(got, want + 4000, 1000), 0);
	}
	ck_assert_int_eq(ext2_read(ip, (uint64_t)n, got, 10), 0);
	ext2_iput(ip);
	free(want);
	free(got);
}

static void check_tree(int bs, const char *size)
{
	make_image(bs, size);
	attach();
	struct ext2_fs *fs;
	ck_assert_int_eq(ext2_mount(&disk, &fs), 0);
	ck_assert_uint_eq(fs->block_size, (uint32_t)bs);
	static const char *const files[] = { "hello.txt", "dir/sub/deep.txt", "empty", "big.bin",
					     "sparse", "many/file-with-a-longish-name-149" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		same_file(fs, files[i]);
	int err;
	struct ext2_inode *many = walk(fs, "many", &err), *ip;
	ck_assert_ptr_nonnull(many);
	uint64_t pos = 0;
	char name[EXT2_NAME_LEN + 1];
	uint32_t ino;
	uint8_t type;
	int names = 0, r;
	while ((r = ext2_readdir(many, &pos, name, &ino, &type)) == 1)
		names += strncmp(name, "file-with-a-longish-name-", 25) == 0 && type == EXT2_FT_REG;
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(names, 150);
	ck_assert_uint_gt(many->vfs.size, (uint64_t)bs);   /* more than one block */
	ext2_iput(many);
	char target[200];
	ck_assert_ptr_nonnull(ip = walk(fs, "link", &err));
	ck_assert_int_eq(ext2_readlink(ip, target, sizeof(target)), 9);
	ck_assert_int_eq(memcmp(target, "hello.txt", 9), 0);
	ext2_iput(ip);
	ck_assert_ptr_nonnull(ip = walk(fs, "longlink", &err));
	ck_assert_int_eq(ext2_readlink(ip, target, sizeof(target)), 100);
	ck_assert_int_eq(target[99], 'x');
	ck_assert_int_eq(ext2_readlink(ip, target, 10), 10);
	ext2_iput(ip);
	/* errors */
	ck_assert_ptr_null(walk(fs, "nonexistent", &err));
	ck_assert_int_eq(err, -ENOENT);
	ck_assert_ptr_null(walk(fs, "hello.txt/x", &err));
	ck_assert_int_eq(err, -ENOTDIR);
	ck_assert_int_eq(ext2_iget(fs, 0, &ip), -EUCLEAN);
	ck_assert_int_eq(ext2_iget(fs, fs->inodes_count + 1, &ip), -EUCLEAN);
	ck_assert_ptr_nonnull(ip = walk(fs, "hello.txt", &err));
	ck_assert_int_eq(ext2_readlink(ip, target, 10), -EINVAL);
	struct ext2_inode *again;
	ck_assert_int_eq(ext2_iget(fs, (uint32_t)ip->vfs.ino, &again), 0);
	ck_assert_ptr_eq(again, ip);                 /* one in-memory inode each */
	ext2_iput(again);
	ext2_iput(ip);
}

START_TEST(test_tree_1k_blocks)
{
	check_tree(1024, "8M");
}
END_TEST

START_TEST(test_tree_4k_blocks)
{
	check_tree(4096, "16M");
}
END_TEST

/* A page of a file read with one free frame left (the page's own): its
 * indirect block cannot be read into the disk's cache, and the read says
 * -ENOMEM, not -EIO (a mapped file's fault then goes to the reclaimer and
 * the OOM killer, not SIGBUS as for a bad disk); with memory back, the
 * page reads right. */
START_TEST(test_read_without_memory)
{
	make_image(1024, "8M");
	attach();
	struct ext2_fs *fs;
	ck_assert_int_eq(ext2_mount(&disk, &fs), 0);
	int err;
	struct ext2_inode *ip = walk(fs, "big.bin", &err);
	ck_assert_ptr_nonnull(ip);
	pagecache_truncate(&disk.cache, 0, PC_MAX_INDEX);   /* the indirect block not cached */
	struct page *hog = NULL, *pg;
	while ((pg = page_alloc(0, PA_ANON))) {   /* every free frame, chained */
		*(struct page **)page_va(pg) = hog;
		hog = pg;
	}
	struct page *spare = hog;   /* one back: the data page's own */
	hog = *(struct page **)page_va(hog);
	page_free(spare, 0);
	ck_assert_int_eq(pagecache_get(ip->vfs.mapping, 20, PC_READ, &pg), -ENOMEM);
	while (hog) {
		struct page *next = *(struct page **)page_va(hog);
		page_free(hog, 0);
		hog = next;
	}
	ck_assert_int_eq(pagecache_get(ip->vfs.mapping, 20, PC_READ, &pg), 0);
	uint8_t *b = page_va(pg);
	for (size_t i = 0; i < PAGE_SIZE; i += 511)
		ck_assert_uint_eq(b[i], (uint8_t)((20 * PAGE_SIZE + i) * 7 + (20 * PAGE_SIZE + i) / 4096));
	page_put(pg);
	ext2_iput(ip);
}
END_TEST

/* ---- damaged images ---- */

static uint32_t get32(size_t off)
{
	return (uint32_t)image[off] | (uint32_t)image[off + 1] << 8 |
	       (uint32_t)image[off + 2] << 16 | (uint32_t)image[off + 3] << 24;
}

static void put32(size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		image[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* The disk's cache forgets what it read (the test changed the image). */
static void forget(void)
{
	pagecache_truncate(&disk.cache, 0, PC_MAX_INDEX);
}

static int mount_err(void)
{
	struct ext2_fs *fs;
	forget();
	return ext2_mount(&disk, &fs);
}

START_TEST(test_damaged_superblock)
{
	make_image(1024, "8M");
	attach();
	image[1024 + 56] ^= 1;                                  /* magic */
	ck_assert_int_eq(mount_err(), -EINVAL);
	image[1024 + 56] ^= 1;
	put32(1024 + 96, get32(1024 + 96) | 0x40);             /* extents: incompatible */
	ck_assert_int_eq(mount_err(), -EINVAL);
	put32(1024 + 96, get32(1024 + 96) & ~0x40u);
	uint32_t blocks = get32(1024 + 4);
	put32(1024 + 4, blocks * 4);                           /* bigger than the disk */
	ck_assert_int_eq(mount_err(), -EINVAL);
	put32(1024 + 4, blocks);
	put32(1024 + 32, 0);                                   /* no blocks per group */
	ck_assert_int_eq(mount_err(), -EUCLEAN);
}
END_TEST

START_TEST(test_damaged_tables_and_entries)
{
	make_image(1024, "8M");
	attach();
	size_t gd = 2 * 1024;                                  /* group 0's descriptor */
	uint32_t table = get32(gd + 8);
	put32(gd + 8, 0xfffffff0u);                            /* inode table past the end */
	ck_assert_int_eq(mount_err(), -EUCLEAN);
	put32(gd + 8, table);
	struct ext2_fs *fs;
	forget();
	ck_assert_int_eq(ext2_mount(&disk, &fs), 0);
	/* the root directory's first block: "." with rec_len 0 */
	struct ext2_inode *root;
	ck_assert_int_eq(ext2_iget(fs, EXT2_ROOT_INO, &root), 0);
	size_t dir_block = (size_t)root->block[0] * 1024;
	ext2_iput(root);
	image[dir_block + 4] = 0, image[dir_block + 5] = 0;
	forget();
	ck_assert_int_eq(ext2_mount(&disk, &fs), 0);
	ck_assert_int_eq(ext2_iget(fs, EXT2_ROOT_INO, &root), 0);
	uint64_t pos = 0;
	char name[EXT2_NAME_LEN + 1];
	uint32_t ino;
	uint8_t type;
	ck_assert_int_eq(ext2_readdir(root, &pos, name, &ino, &type), -EUCLEAN);
	ext2_iput(root);
}
END_TEST

START_TEST(test_block_number_past_the_end)
{
	make_image(1024, "8M");
	attach();
	struct ext2_fs *fs;
	ck_assert_int_eq(ext2_mount(&disk, &fs), 0);
	int err;
	struct ext2_inode *ip = walk(fs, "hello.txt", &err);
	ck_assert_ptr_nonnull(ip);
	uint32_t ino = (uint32_t)ip->vfs.ino;
	ext2_iput(ip);
	sb_drop_inodes(fs->sb);                               /* forgotten: read again below */
	size_t off = (size_t)fs->group[(ino - 1) / fs->inodes_per_group].inode_table * 1024 +
		     (size_t)((ino - 1) % fs->inodes_per_group) * fs->inode_size;
	put32(off + 40, fs->blocks_count + 5);                /* i_block[0] */
	forget();
	ck_assert_int_eq(ext2_iget(fs, ino, &ip), 0);
	char buf[16];
	ck_assert_int_eq(ext2_read(ip, 0, buf, sizeof(buf)), -EUCLEAN);
	ext2_iput(ip);
}
END_TEST

/* Everything reachable from the root, read (errors allowed, bounded). */
static void walk_all(struct ext2_fs *fs, uint32_t ino, int depth, int *budget)
{
	struct ext2_inode *ip;
	if (depth > 8 || --*budget < 0 || ext2_iget(fs, ino, &ip) != 0)
		return;
	char buf[512];
	(void)ext2_read(ip, 0, buf, sizeof(buf));
	(void)ext2_readlink(ip, buf, sizeof(buf));
	uint64_t pos = 0;
	char name[EXT2_NAME_LEN + 1];
	uint32_t child;
	uint8_t type;
	for (int n = 0; n < 200 && ext2_readdir(ip, &pos, name, &child, &type) == 1; n++)
		if (strcmp(name, ".") && strcmp(name, ".."))
			walk_all(fs, child, depth + 1, budget);
	ext2_iput(ip);
}

/* Change what walk_all found on a damaged image read-write, through the
 * driver's own primitives (what create, write, truncate, unlink do): each
 * may fail (-EUCLEAN, -EIO, -ENOSPC), none may crash, read or write
 * outside the image, or loop. */
static void scribble(struct ext2_fs *fs, uint32_t ino, int depth, int *budget)
{
	struct ext2_inode *ip;
	if (depth > 8 || --*budget < 0 || ext2_iget(fs, ino, &ip) != 0)
		return;
	uint32_t fresh;
	if (S_ISDIR(ip->vfs.mode) && ext2_alloc_inode(fs, ino, false, &fresh) == 0) {
		(void)ext2_add_entry(ip, "scribble", 8, fresh, EXT2_FT_REG);
		(void)ext2_lookup(ip, "scribble", 8, &fresh);
		(void)ext2_remove_entry(ip, "scribble", 8);
		(void)ext2_set_entry(ip, "..", 2, EXT2_ROOT_INO, EXT2_FT_DIR);
	}
	if (S_ISREG(ip->vfs.mode)) {
		(void)ext2_map_blocks(ip, 3, 20);             /* holes filled, indirect blocks made */
		(void)ext2_truncate_blocks(ip, (uint64_t)(rand() % 16));
		(void)ext2_write_inode(ip, false);
	}
	uint64_t pos = 0;
	char name[EXT2_NAME_LEN + 1];
	uint32_t child;
	uint8_t type;
	for (int n = 0; n < 50 && ext2_readdir(ip, &pos, name, &child, &type) == 1; n++)
		if (strcmp(name, ".") && strcmp(name, ".."))
			scribble(fs, child, depth + 1, budget);
	ext2_iput(ip);
}

START_TEST(test_random_damage)
{
	unsigned seed = getenv("EXT2_SEED") ? (unsigned)atoi(getenv("EXT2_SEED")) : 1u;
	unsigned nseeds = getenv("EXT2_SEEDS") ? (unsigned)atoi(getenv("EXT2_SEEDS")) : 60u;
	make_image(1024, "8M");
	uint8_t *clean = malloc(image_len);
	memcpy(clean, image, image_len);
	attach();
	int mounted = 0, written = 0;
	for (unsigned s = seed; s < seed + nseeds; s++) {
		srand(s);
		memcpy(image, clean, image_len);
		for (int k = 0; k < 60; k++) {   /* the metadata: the first 300 KiB */
			size_t at = k % 20 == 0 ? 1024 + (size_t)rand() % 2048 :   /* super, GDT */
				    (size_t)rand() % (300 * 1024);
			image[at] ^= (uint8_t)(1 + rand() % 255);
		}
		forget();
		struct ext2_fs *fs;
		int e = ext2_mount(&disk, &fs);
		ck_assert_int_ne(e, -ENOMEM);   /* refused for what the image says, not for memory */
		if (e != 0)
			continue;
		int budget = 400;
		walk_all(fs, EXT2_ROOT_INO, 0, &budget);
		if (ext2_make_writable(fs) == 0) {   /* then changed, and written back */
			budget = 100;
			scribble(fs, EXT2_ROOT_INO, 0, &budget);
			(void)ext2_commit(fs, COMMIT_SYNC);
			(void)blkdev_sync(&disk);
			written++;
		}
		ext2_unmount(fs);               /* every inode and its cached pages given back */
		mounted++;
	}
	printf("ext2 damage: seeds %u..%u mounted %d (changed and written back %d) refused %u\n",
	       seed, seed + nseeds - 1, mounted, written, nseeds - (unsigned)mounted);
	free(clean);
}
END_TEST

/* ---- writing: through the VFS, checked by e2fsck and debugfs ---- */

static struct fs_root wfs;

/* Mount the image read-write as the VFS's root. */
static void mount_rw(void)
{
	vfs_set_epoch((uint64_t)time(NULL) * 1000000000ull);   /* true times: e2fsck checks i_dtime */
	vfs_init();
	fs_type_register(&ext2_type);
	ck_assert_int_eq(vfs_mount_root("ext2", &disk, "/dev/vdz"), 0);
	vfs_root(&wfs.root);
	vfs_root(&wfs.cwd);
}

#define OUT_IMG "ext2-out.img"

/* Sync as at a power-off (the superblock marked clean), save the image,
 * and have e2fsck check it (-fn: force, change nothing): clean or fail
 * with its report. */
static void sync_and_fsck(void)
{
	ck_assert_int_eq(vfs_sync_all(true), 0);
	FILE *f = fopen(OUT_IMG, "wb");
	ck_assert_uint_eq(fwrite(image, 1, image_len, f), image_len);
	fclose(f);
	int r = system("e2fsck -fn " OUT_IMG " >e2fsck.log 2>&1");
	if (r != 0) {
		system("cat e2fsck.log");
		ck_abort_msg("e2fsck -fn found problems (above), exit status %d", r);
	}
}

/* The file at path on the saved image, as debugfs reads it: its size. */
static long debugfs_cat(const char *path, uint8_t *buf, size_t n)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "debugfs -R 'cat %s' " OUT_IMG " 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	long got = (long)fread(buf, 1, n, p);
	pclose(p);
	return got;
}

/* Write n bytes at off of path (made with mode 0644 if missing). */
static long write_at(const char *path, const void *buf, size_t n, uint64_t off, int flags)
{
	struct file *f;
	int e = vfs_open(&wfs, NULL, path, O_WRONLY | O_CREAT | flags, 0644, &f);
	if (e)
		return e;
	f->off = off;
	long r = f->ops->write(f, (vaddr_t)buf, n);
	file_close(f);
	return r;
}

/* Read up to n bytes at off of path: bytes read or -errno. */
static long read_at(const char *path, void *buf, size_t n, uint64_t off)
{
	struct file *f;
	int e = vfs_open(&wfs, NULL, path, O_RDONLY, 0, &f);
	if (e)
		return e;
	f->off = off;
	long r = f->ops->read(f, (vaddr_t)buf, n);
	file_close(f);
	return r;
}

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + seed + i / 1000);
}

static void check_file(const char *path, const uint8_t *want, size_t n)
{
	static uint8_t got[1 << 20];
	long r = debugfs_cat(path, got, sizeof(got));
	if (r != (long)n || memcmp(got, want, n))
		ck_abort_msg("%s on the disk: %ld bytes, want %zu (or its bytes differ)", path, r, n);
}

static void write_ops(int bs)
{
	make_image(bs, "8M");
	attach();
	mount_rw();
	static uint8_t a[300 * 1024], b[10000];
	pattern(a, sizeof(a), 1);
	pattern(b, sizeof(b), 2);
	ck_assert_int_eq(vfs_mkdir(&wfs, NULL, "/d", 0755), 0);
	ck_assert_int_eq(write_at("/d/f", b, sizeof(b), 0, O_EXCL), (long)sizeof(b));
	ck_assert_int_eq(write_at("/big", a, sizeof(a), 0, 0), (long)sizeof(a));   /* indirect blocks */
	ck_assert_int_eq(write_at("/big", "TAIL", 4, sizeof(a), O_APPEND), 4);
	ck_assert_int_eq(vfs_symlink(&wfs, NULL, "/d/l", "f"), 0);
	char longt[200];
	memset(longt, 'y', 199), longt[199] = 0;
	ck_assert_int_eq(vfs_symlink(&wfs, NULL, "/longlink2", longt), 0);
	ck_assert_int_eq(vfs_link(&wfs, NULL, "/d/f", NULL, "/d/g", 0), 0);
	ck_assert_int_eq(vfs_rename(&wfs, NULL, "/d/g", NULL, "/h", 0), 0);
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/hello.txt", UNLINK_FILE), 0);
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/dir/sub", UNLINK_DIR), -ENOTEMPTY);
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/dir/sub/deep.txt", UNLINK_FILE), 0);
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/dir/sub", UNLINK_DIR), 0);
	struct path p;
	ck_assert_int_eq(path_walk(&wfs, NULL, "/big.bin", 0, &p), 0);
	ck_assert_int_eq(vfs_truncate(p.dentry->inode, 5000), 0);
	path_put(&p);
	/* down into the middle of a page, then up: zeros past the old end, in
	 * the cache too (before: the cached page kept its old bytes past the
	 * last block) */
	static uint8_t grown[8192], zeros[8192 - 1500];
	ck_assert_int_eq(write_at("/regrow", a, sizeof(grown), 0, O_EXCL), (long)sizeof(grown));
	ck_assert_int_eq(path_walk(&wfs, NULL, "/regrow", 0, &p), 0);
	ck_assert_int_eq(vfs_truncate(p.dentry->inode, 1500), 0);
	ck_assert_int_eq(vfs_truncate(p.dentry->inode, sizeof(grown)), 0);
	ck_assert_int_eq(inode_read(p.dentry->inode, 0, grown, sizeof(grown)), (long)sizeof(grown));
	ck_assert(memcmp(grown, a, 1500) == 0 && memcmp(grown + 1500, zeros, sizeof(zeros)) == 0);
	path_put(&p);
	ck_assert_int_eq(vfs_rename(&wfs, NULL, "/d", NULL, "/many/d", 0), 0);   /* a directory moves */
	ck_assert_int_eq(vfs_rename(&wfs, NULL, "/many/file-with-a-longish-name-001", NULL,
				    "/many/file-with-a-longish-name-002", 0), 0);   /* over a file */
	for (int i = 0; i < 40; i++) {                                          /* the directory grows */
		char name[64];
		snprintf(name, sizeof(name), "/many/d/new-%02d-with-a-name-long-enough-to-fill", i);
		ck_assert_int_eq(write_at(name, b, 100 + (size_t)i, 0, O_EXCL), 100 + i);
	}
	for (int i = 0; i < 40; i += 2) {
		char name[64];
		snprintf(name, sizeof(name), "/many/d/new-%02d-with-a-name-long-enough-to-fill", i);
		ck_assert_int_eq(vfs_unlink(&wfs, NULL, name, UNLINK_FILE), 0);
	}
	sync_and_fsck();
	check_file("/many/d/f", b, sizeof(b));
	check_file("/h", b, sizeof(b));
	memcpy(a + sizeof(a) - 4, "TAIL", 4);   /* (the last 4 bytes compared: below) */
	static uint8_t want[300 * 1024 + 4];
	pattern(want, sizeof(a), 1);
	memcpy(want + sizeof(a), "TAIL", 4);
	check_file("/big", want, sizeof(want));
	check_file("/many/d/new-01-with-a-name-long-enough-to-fill", b, 101);
	uint8_t small[5000];
	ck_assert_int_eq(debugfs_cat("/big.bin", small, sizeof(small) + 1), 5000);
	uint8_t none[8];
	ck_assert_int_eq(debugfs_cat("/hello.txt", none, sizeof(none)), 0);
}

START_TEST(test_write_1k_blocks)
{
	write_ops(1024);
}
END_TEST

START_TEST(test_write_4k_blocks)
{
	write_ops(4096);
}
END_TEST

/* A full disk: ENOSPC, and what was written before is intact. */
START_TEST(test_write_until_full)
{
	make_image(1024, "2M");
	attach();
	mount_rw();
	static uint8_t chunk[8192];
	pattern(chunk, sizeof(chunk), 3);
	long total = 0, r;
	while ((r = write_at("/fill", chunk, sizeof(chunk), (uint64_t)total, 0)) == (long)sizeof(chunk))
		total += r;
	ck_assert(r == -ENOSPC || (r >= 0 && r < (long)sizeof(chunk)));
	total += r > 0 ? r : 0;
	ck_assert_int_gt(total, 200 * 1024);
	ck_assert_int_eq(write_at("/fill", chunk, sizeof(chunk), (uint64_t)total, 0), -ENOSPC);
	struct ext2_fs *fs = wfs.root.dentry->sb->priv;
	ck_assert_uint_lt(fs->free_blocks, 8);   /* (a partial block's worth may be left) */
	sync_and_fsck();
	static uint8_t want[2 << 20];
	for (long off = 0; off < total; off += (long)sizeof(chunk))
		memcpy(want + off, chunk, sizeof(chunk));
	check_file("/fill", want, (size_t)total);
	/* freeing makes room again */
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/fill", UNLINK_FILE), 0);
	ck_assert_uint_gt(fs->held_blocks, (uint32_t)(total / 1024));   /* held until a commit */
	ck_assert_int_eq(vfs_mkdir(&wfs, NULL, "/more", 0755), 0);        /* (the allocation commits) */
	ck_assert_int_eq(write_at("/more/again", chunk, sizeof(chunk), 0, 0), (long)sizeof(chunk));
	ck_assert_uint_gt(fs->free_blocks + 16, (uint32_t)(total / 1024));   /* given back (less /more's) */
	sync_and_fsck();
}
END_TEST

/* The disk blocks of path (data and indirect), into out: how many. */
static int blocks_of(const char *path, uint32_t *out, int max)
{
	struct file *f;
	ck_assert_int_eq(vfs_open(&wfs, NULL, path, O_RDONLY, 0, &f), 0);
	struct ext2_inode *ip = ext2_i(f->inode);
	int n = 0;
	for (uint64_t l = 0; l * ip->fs->block_size < ip->vfs.size && n < max; l++)
		ck_assert_int_eq(ext2_bmap(ip, l, &out[n++]), 0);
	if (ip->block[12] && n < max)
		out[n++] = ip->block[12];
	file_close(f);
	return n;
}

/* Freed blocks are not reused before a commit (a FLUSH after the record
 * that named them was written), inode numbers not before a sync: else a
 * power-off leaves two owners, and e2fsck's repair of the stale one
 * writes into the new one (the crash test found it). */
START_TEST(test_freed_held_until_commit)
{
	make_image(1024, "8M");
	attach();
	mount_rw();
	static uint8_t data[100 * 1024];
	static uint32_t a[200], b[200];
	pattern(data, sizeof(data), 4);
	struct super_block *sb = wfs.root.dentry->sb;
	struct ext2_fs *fs = sb->priv;
	uint64_t before[6], after[6];
	ck_assert_int_eq(sb->ops->statfs(sb, before), 0);
	ck_assert_int_eq(write_at("/a", data, sizeof(data), 0, 0), (long)sizeof(data));
	int na = blocks_of("/a", a, 200);
	ck_assert_int_eq(na, 101);   /* 100 data + 1 indirect */
	ck_assert_int_eq(vfs_unlink(&wfs, NULL, "/a", UNLINK_FILE), 0);
	ck_assert_uint_eq(fs->held_blocks, 101);
	ck_assert_uint_eq(fs->held_inodes, 1);
	ck_assert_uint_eq(fs->nholding, 0);       /* its record was written: all ready */
	ck_assert_int_eq(sb->ops->statfs(sb, after), 0);
	ck_assert_uint_eq(after[2], before[2]);   /* statfs: held counts as free */
	ck_assert_uint_eq(after[5], before[5]);
	ck_assert_int_eq(write_at("/b", data, sizeof(data), 0, 0), (long)sizeof(data));
	int nb = blocks_of("/b", b, 200);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			ck_assert_msg(a[i] != b[j], "block %u of the unlinked /a reused before a commit", a[i]);
	ck_assert_int_eq(vfs_commit(sb, COMMIT_FSYNC), 0);
	ck_assert_uint_eq(fs->held_blocks, 0);   /* given back */
	ck_assert_uint_eq(fs->held_inodes, 1);   /* only a sync gives numbers back */
	ck_assert_int_eq(vfs_sync_sb(sb), 0);
	ck_assert_uint_eq(fs->held_inodes, 0);
	sync_and_fsck();
}
END_TEST

#define DIR_NAMES 700

/* Name i of the big directory: lengths 6..60, so entries of every size. */
static size_t dir_name(char *buf, int i, int round)
{
	return (size_t)snprintf(buf, 80, "f%d-%d-%.*s", round, i, i % 50, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
}

/* Every name of the model is (or is not) found by ext2_lookup. */
static void check_names(struct ext2_inode *dir, const bool *live, int round)
{
	char name[80];
	for (int i = 0; i < DIR_NAMES; i++) {
		size_t len = dir_name(name, i, round);
		uint32_t ino = 0;
		int e = ext2_lookup(dir, name, len, &ino);
		ck_assert_msg(live[i] ? e == 0 && ino : e == -ENOENT, "%s: lookup %d, want %s", name, e,
			      live[i] ? "found" : "-ENOENT");
	}
}

/* A directory of many blocks: lookups, adds and removes through its
 * index in memory (fs/ext2/dirindex.h) agree with a model, fill the
 * slots removes leave, and leave a directory e2fsck finds clean. */
START_TEST(test_big_directory)
{
	static bool live[2][DIR_NAMES];
	char name[80], path[100];
	make_image(1024, "8M");
	attach();
	mount_rw();
	ck_assert_int_eq(vfs_mkdir(&wfs, NULL, "/big", 0755), 0);
	for (int i = 0; i < DIR_NAMES; i++) {
		dir_name(name, i, 0);
		snprintf(path, sizeof(path), "/big/%s", name);
		ck_assert_int_eq(write_at(path, "", 0, 0, O_EXCL), 0);
		live[0][i] = true;
	}
	struct ext2_fs *fs = wfs.root.dentry->sb->priv;
	int err;
	struct ext2_inode *dir = walk(fs, "big", &err);
	ck_assert_ptr_nonnull(dir);
	ck_assert_uint_gt(dir->vfs.size / 1024, 20);
	check_names(dir, live[0], 0);
	check_names(dir, live[1], 1);
	ck_assert_ptr_nonnull(dir->dx);
	ck_assert_uint_eq(dir->dx->count, DIR_NAMES + 2);   /* and . and .. */
	uint64_t size = dir->vfs.size;
	for (int i = 0; i < DIR_NAMES; i += 3) {   /* every third goes */
		dir_name(name, i, 0);
		snprintf(path, sizeof(path), "/big/%s", name);
		ck_assert_int_eq(vfs_unlink(&wfs, NULL, path, UNLINK_FILE), 0);
		live[0][i] = false;
	}
	for (int i = 0; i < DIR_NAMES / 3; i++) {   /* new names: into the holes first */
		dir_name(name, i, 1);
		snprintf(path, sizeof(path), "/big/%s", name);
		ck_assert_int_eq(write_at(path, "", 0, 0, O_EXCL), 0);
		live[1][i] = true;
	}
	ck_assert_uint_le(dir->vfs.size, size + 2 * 1024);
	check_names(dir, live[0], 0);
	check_names(dir, live[1], 1);
	ck_assert_ptr_nonnull(dir->dx);
	uint64_t pos = 0;
	uint32_t ino, listed = 0;
	uint8_t type;
	while (ext2_readdir(dir, &pos, name, &ino, &type) == 1)
		listed++;
	ck_assert_uint_eq(listed, dir->dx->count);
	ext2_iput(dir);
	sync_and_fsck();
}
END_TEST

#define SHRINK_DIRS 4
#define SHRINK_FILES 40   /* in each directory */

/* The name of file i of directory d of the shrink test, and its bytes. */
static void shrink_file(char *path, uint8_t *data, size_t *n, int d, int i)
{
	snprintf(path, 64, "/s/d%d/file-%d", d, i);
	*n = 200 + (size_t)(d * SHRINK_FILES + i) * 37;
	pattern(data, *n, (unsigned)(d * SHRINK_FILES + i));
}

/* Memory short: the disk's unused dentries and idle clean inodes are
 * freed (dcache_shrink, inode_shrink), with their pages; a file held
 * open keeps its dentry and its directories', a file not yet written
 * back keeps its inode; every file reads back the same afterwards
 * (looked up again from the disk), and e2fsck finds the disk clean. */
START_TEST(test_caches_shrink)
{
	static uint8_t data[8192], got[8192];
	char path[64];
	size_t n;
	make_image(1024, "8M");
	attach();
	mount_rw();
	ck_assert_int_eq(vfs_mkdir(&wfs, NULL, "/s", 0755), 0);
	for (int d = 0; d < SHRINK_DIRS; d++) {
		snprintf(path, sizeof(path), "/s/d%d", d);
		ck_assert_int_eq(vfs_mkdir(&wfs, NULL, path, 0755), 0);
		for (int i = 0; i < SHRINK_FILES; i++) {
			shrink_file(path, data, &n, d, i);
			ck_assert_int_eq(write_at(path, data, n, 0, O_EXCL), (long)n);
		}
	}
	ck_assert_int_eq(vfs_sync_all(false), 0);
	uint64_t dentries = dcache_stats.dentries, inodes = inode_stats.inodes;
	uint64_t cached = pagecache_stats.pages;
	ck_assert_uint_ge(dcache_stats.unused, SHRINK_DIRS * SHRINK_FILES);
	struct file *held;
	ck_assert_int_eq(vfs_open(&wfs, NULL, "/s/d0/file-1", O_RDONLY, 0, &held), 0);
	ck_assert_int_eq(write_at("/s/d1/file-2", "new", 3, 0, 0), 3);   /* dirty, not written back */

	while (dcache_shrink(~0ull) + inode_shrink(~0ull))
		;
	ck_assert_uint_eq(dcache_stats.unused, 0);
	ck_assert_uint_le(dcache_stats.dentries, dentries - SHRINK_DIRS * SHRINK_FILES);
	ck_assert_uint_le(inode_stats.inodes, inodes - SHRINK_DIRS * SHRINK_FILES + 3);
	ck_assert_uint_eq(inode_stats.idle, 1);          /* only the unwritten file's */
	ck_assert_uint_lt(pagecache_stats.pages, cached);   /* the files' pages went with them */
	struct dentry *d = held->path.dentry;
	ck_assert_str_eq(d->name, "file-1");              /* the held file's names stay */
	ck_assert_str_eq(d->parent->name, "d0");
	ck_assert_str_eq(d->parent->parent->name, "s");

	for (int dn = 0; dn < SHRINK_DIRS; dn++)
		for (int i = 0; i < SHRINK_FILES; i++) {
			shrink_file(path, data, &n, dn, i);
			if (dn == 1 && i == 2)
				memcpy(data, "new", 3);
			ck_assert_int_eq(read_at(path, got, sizeof(got), 0), (long)n);
			ck_assert_msg(!memcmp(got, data, n), "%s differs after the caches shrank", path);
		}
	file_close(held);
	sync_and_fsck();
	shrink_file(path, data, &n, 1, 2);
	memcpy(data, "new", 3);
	check_file("/s/d1/file-2", data, n);
}
END_TEST

static Suite *ext2_suite(void)
{
	Suite *s = suite_create("ext2");
	TCase *tc = host_tcase(s, "core", setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tree_1k_blocks);
	tcase_add_test(tc, test_tree_4k_blocks);
	tcase_add_test(tc, test_read_without_memory);
	tcase_add_test(tc, test_damaged_superblock);
	tcase_add_test(tc, test_damaged_tables_and_entries);
	tcase_add_test(tc, test_block_number_past_the_end);
	TCase *wr = host_tcase(s, "write", setup, teardown);
	tcase_set_timeout(wr, 120);
	tcase_add_test(wr, test_write_1k_blocks);
	tcase_add_test(wr, test_write_4k_blocks);
	tcase_add_test(wr, test_write_until_full);
	tcase_add_test(wr, test_freed_held_until_commit);
	tcase_add_test(wr, test_big_directory);
	tcase_add_test(wr, test_caches_shrink);
	TCase *damage = host_tcase(s, "damage", setup, teardown);   /* make fuzz: CK_RUN_CASE=damage */
	tcase_set_timeout(damage, 0);
	tcase_add_test(damage, test_random_damage);
	return s;
}

/* Run in a scratch directory of our own (two runs at once, e.g. make test
 * and make fuzz, must not share the tree and images), removed at the end. */
int main(void)
{
	char dir[] = "/tmp/pagoda-ext2-XXXXXX", cmd[64];
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("test_ext2: scratch directory");
		return 2;
	}
	int r = host_run_suite(ext2_suite());
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (chdir("/") != 0 || system(cmd) != 0)
		fprintf(stderr, "test_ext2: could not remove %s\n", dir);
	return r;
}
