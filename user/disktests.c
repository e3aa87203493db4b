/* user/disktests.c -- a disk's device file as programs use it (dd, mkfs,
 * fsck): /dev/vda read, written, synced, measured, from several threads.
 *
 * Runs as pid 1 on Pagoda with the disks the test runner makes for the
 * suite (tests/suites.txt, tests/qemu/disks.py): vda read-write and vdb
 * read-only, 16 MiB each, every 512-byte sector starting "PAGODA SECTOR
 * <n>\n". What a test writes it reports as "KTEST DISK-WROTE vda FIRST
 * COUNT" and the runner finds those sectors in the image file after QEMU
 * exits ("PAGODA WROTE <n>\n"). The same program is built with musl
 * (disktests-musl). Linux has the same calls (the errnos are its
 * blkdev_write_iter's and fsync's), but the host has no disk to give it,
 * and it writes to /dev/vda: so it refuses to run unless it is pid 1 (the
 * init of a test VM).
 *
 *   nodes        /dev/vda and vdb are block devices; BLKGETSIZE64, BLKSSZGET
 *   read         the image's bytes; lseek to the end; short read there
 *   write_fsync  sectors written, fsync'd, read back through a new open;
 *                /proc/diskstats counts the writes, sectors and flush
 *   errors       past the end ENOSPC, the read-only disk EPERM, bad user
 *                memory EFAULT, fsync of a pipe or /dev/null EINVAL
 *   threads      4 threads, each its own sectors alternating in the same
 *                pages, write + fsync + read back; and one shared fd whose
 *                offset they move (one lseek + read at a time)
 *   big          (only when named) a disk larger than memory read whole,
 *                then written whole and fsync'd
 *   ext2         (only when named; vda an ext2 image of the initrd's tree,
 *                mke2fs -d) mounted read-only on /mnt: its files are the
 *                initrd's, its programs run, writes are EROFS, /proc/mounts
 *                and statfs say what it is, umount is EBUSY while in use
 *   ext2rw       (only when named) the same disk mounted read-write: files
 *                written, renamed, linked, truncated, removed, fsync'd and
 *                unmounted; "KTEST EXT2-FILE vda PATH SIZE SEED" and
 *                "KTEST EXT2-GONE vda PATH" tell the runner what the image
 *                must hold (debugfs reads it back; e2fsck -fn finds it clean)
 *   flush        (only when named; booted with dirty_expire=500
 *                dirty_writeback=1000) 1 MiB written and not synced:
 *                meminfo's Dirty is 0 within a few seconds -- the flusher
 *                wrote it (without it, Dirty stays until a sync); the
 *                runner reads it back
 *   eio          (only when named; vdb read-write with QEMU's blkdebug
 *                failing every read of sector EIO_READ and write of
 *                EIO_WRITE: tests/qemu/disks.py's "eio" disks) a read of
 *                the bad page is EIO, of its neighbours fine (read-ahead
 *                that meets it is not an error), a read across it short;
 *                a write there succeeds into the cache and its fsync says
 *                EIO -- once to each file open at the time and to the first
 *                opened after it, as Linux's errseq -- and a later write
 *                elsewhere syncs fine (the runner finds it in the image)
 *   rootdisk     (only when named; booted with root=/dev/vda) the root is
 *                that ext2 disk, read-write, the initrd at /run: a file and
 *                a directory written at the root; init's exit syncs and
 *                marks it clean (the runner checks with debugfs, e2fsck)
 *   caches       (only when named; the ext2 root) 1500 files made and
 *                synced: /proc/sys/fs/dentry-state counts their unused
 *                dentries; writing 2 to /proc/sys/vm/drop_caches frees
 *                them (and the idle inodes, inode-nr), Linux's errnos for
 *                bad writes; then a child allocating memory until half of
 *                them went is not OOM-killed (the reclaimer's shrinkers
 *                freed them first: vmstat's slabs_scanned); every file
 *                reads back its bytes after each
 *   mmap         (only when named; the ext2 root) a file mapped shared and
 *                written through the mapping: each first store to a page
 *                dirties it (vmstat pgfault_mkwrite); fsync and msync
 *                write-protect the pages in the mapping and leave them
 *                clean though mapped (pagoda_filecache), so the next store
 *                faults and dirties them again; stores after an fsync and
 *                after msync are not lost: after munmap, sync and
 *                drop_caches, read() finds every store's bytes on the disk;
 *                the same through a read-only mapping made writable by
 *                mprotect; mapped again out of the cache, the first fault
 *                is a major one (vmstat pgmajfault, majflt in
 *                /proc/self/stat), the others minor; a store into a
 *                hole of a mapped file on a full disk is SIGBUS, and
 *                goes through once there is room
 *   bigmap       (only when named; the ext2 root on a disk larger than
 *                twice the RAM) a file twice the RAM mapped shared, read
 *                and written whole through the mapping, msync'ed, read
 *                back with read(): the reclaimer unmaps mapped file pages
 *   advice       (only when named; the ext2 root) MADV_RANDOM,
 *                MADV_SEQUENTIAL, MADV_WILLNEED and posix_fadvise's
 *                WILLNEED and DONTNEED on a file out of the cache: what
 *                each reads or drops, seen with mincore
 *   workingset   (only when named, after bigwrite: the ext2 root) a file
 *                read twice stays in memory while a file larger than
 *                the RAM is read once through read(): the second read
 *                made its pages active, the stream's are inactive
 *   bigwrite[=MIB], bigread[=MIB]
 *                (only when named; the ext2 root) a sparse file of MIB MiB
 *                (default 2048) written through a shared mapping and
 *                msync'ed, left for the host to check; a file of MIB MiB
 *                (default 4096) written, then mapped and read whole by
 *                major faults (make check-bigfiles: 512 MiB of RAM)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/filecache.h>
#include <pagoda/procfs.h>

#define SECTOR 512
#define DISK_BYTES (16u << 20)
#define BLKGETSIZE64 0x80081272ul
#define BLKSSZGET 0x1268ul

static int failures;

static void fail(int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("disktests:%d: ", line);
	vprintf(fmt, ap);
	printf(" (errno %d)\n", errno);
	va_end(ap);
	failures++;
}

#define CHECK(c) do { if (!(c)) fail(__LINE__, "%s", #c); } while (0)
#define CHECK_ERR(e, want) do { errno = 0; long r_ = (long)(e); \
	if (r_ != -1 || errno != (want)) fail(__LINE__, "%s: %ld, want -1 with %s", #e, r_, #want); } while (0)

/* The number of line name in /proc file path (procfs_field: "name:",
 * or procfs_counter: "name "), -1 if unreadable or absent. */
static long long proc_value(const char *path, const char *name,
			    long long (*pick)(const char *, const char *))
{
	char *t = procfs_read(path, NULL);
	long long v = t ? pick(t, name) : -1;
	free(t);
	return v;
}

/* vmstat's line name (-1 if missing). */
static long long vmstat(const char *name)
{
	return procfs_vmstat(name);
}

static void sector_text(char *out, unsigned long n, const char *what)
{
	memset(out, 0, SECTOR);
	snprintf(out, SECTOR, "PAGODA %s %08lu\n", what, n);
}

/* Do n sectors at buf, from sector first, hold the text of `what`? */
static int sectors_are(const char *buf, unsigned long first, int n, const char *what)
{
	char want[SECTOR];
	for (int i = 0; i < n; i++) {
		sector_text(want, first + (unsigned long)i, what);
		if (memcmp(buf + i * SECTOR, want, SECTOR) != 0)
			return 0;
	}
	return 1;
}

static long ioctl_call(int fd, unsigned long cmd, void *arg)
{
	return syscall(SYS_ioctl, fd, cmd, arg);
}

static void test_nodes(void)
{
	struct stat st;
	CHECK(stat("/dev/vda", &st) == 0 && S_ISBLK(st.st_mode) && st.st_size == 0);
	CHECK(stat("/dev/vdb", &st) == 0 && S_ISBLK(st.st_mode));
	int fd = open("/dev/vda", O_RDONLY);
	uint64_t bytes = 0;
	int ssz = 0;
	CHECK(fd >= 0);
	CHECK(ioctl_call(fd, BLKGETSIZE64, &bytes) == 0 && bytes == DISK_BYTES);
	CHECK(ioctl_call(fd, BLKSSZGET, &ssz) == 0 && ssz == SECTOR);
	CHECK_ERR(ioctl_call(fd, 0x5401 /* TCGETS */, &bytes), ENOTTY);
	close(fd);
}

static void test_read(void)
{
	static char buf[8 * SECTOR];
	long long in0 = vmstat("pgpgin");
	int fd = open("/dev/vda", O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && sectors_are(buf, 0, 8, "SECTOR"));
	CHECK(lseek(fd, 1000 * SECTOR, SEEK_SET) == 1000 * SECTOR);
	CHECK(read(fd, buf, 3 * SECTOR) == 3 * SECTOR && sectors_are(buf, 1000, 3, "SECTOR"));
	CHECK(in0 >= 0 && vmstat("pgpgin") > in0);   /* read from the disk: vmstat counts it */
	CHECK(lseek(fd, 0, SEEK_END) == DISK_BYTES);
	CHECK(read(fd, buf, 100) == 0);
	CHECK(lseek(fd, -10, SEEK_END) == DISK_BYTES - 10);
	CHECK(read(fd, buf, 100) == 10);
	close(fd);
	fd = open("/dev/vdb", O_RDONLY);
	CHECK(fd >= 0 && pread(fd, buf, SECTOR, 77 * SECTOR) == SECTOR && sectors_are(buf, 77, 1, "SECTOR"));
	close(fd);
}

#define WRITE_AT 6144

static void test_write_fsync(void)
{
	static char out[16 * SECTOR], in[16 * SECTOR];
	unsigned long long before[17], after[17];
	for (int i = 0; i < 16; i++)
		sector_text(out + i * SECTOR, WRITE_AT + (unsigned long)i, "WROTE");
	long long out0 = vmstat("pgpgout");
	CHECK(procfs_diskstats("vda", before));
	int fd = open("/dev/vda", O_RDWR);
	CHECK(fd >= 0);
	CHECK(lseek(fd, WRITE_AT * SECTOR, SEEK_SET) == WRITE_AT * SECTOR);
	CHECK(write(fd, out, sizeof(out)) == (ssize_t)sizeof(out));
	CHECK(fsync(fd) == 0);
	CHECK(procfs_diskstats("vda", after));   /* the write and its flush, counted */
	CHECK(out0 >= 0 && vmstat("pgpgout") >= out0 + 16 * SECTOR / 1024);   /* in KiB */
	CHECK(after[4] > before[4] && after[6] >= before[6] + 16 && after[15] > before[15]);
	CHECK(fdatasync(fd) == 0);
	close(fd);
	fd = open("/dev/vda", O_RDONLY);
	CHECK(fd >= 0 && lseek(fd, WRITE_AT * SECTOR, SEEK_SET) == WRITE_AT * SECTOR);
	CHECK(read(fd, in, sizeof(in)) == (ssize_t)sizeof(in) && sectors_are(in, WRITE_AT, 16, "WROTE"));
	close(fd);
	sync();
	printf("KTEST DISK-WROTE vda %d %d\n", WRITE_AT, 16);
}

static void test_errors(void)
{
	char buf[SECTOR] = "x";
	int fd = open("/dev/vda", O_RDWR);
	CHECK(fd >= 0);
	CHECK(lseek(fd, 0, SEEK_END) == DISK_BYTES);
	CHECK_ERR(write(fd, buf, sizeof(buf)), ENOSPC);
	CHECK(lseek(fd, -100, SEEK_END) == DISK_BYTES - 100);
	CHECK(write(fd, buf, sizeof(buf)) == 100);          /* short at the end */
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_ERR(read(fd, (void *)16, SECTOR), EFAULT);
	CHECK_ERR(write(fd, (void *)16, SECTOR), EFAULT);
	CHECK(lseek(fd, 0, SEEK_CUR) == 0);                 /* nothing moved */
	CHECK(read(fd, buf, SECTOR) == SECTOR && sectors_are(buf, 0, 1, "SECTOR"));
	close(fd);
	fd = open("/dev/vdb", O_WRONLY);
	if (fd >= 0)
		CHECK_ERR(write(fd, buf, sizeof(buf)), EPERM);   /* Pagoda: the open works */
	else
		CHECK(errno == EROFS || errno == EACCES);
	close(fd);
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK_ERR(fsync(p[0]), EINVAL);
	int null = open("/dev/null", O_WRONLY);
	CHECK_ERR(fsync(null), EINVAL);
	CHECK_ERR(fsync(1000), EBADF);
	close(p[0]), close(p[1]), close(null);
}

/* ---- threads ---- */

#define NTHREADS 4
#define THREAD_AT 8192      /* sectors THREAD_AT.. : thread t owns every 4th */
#define PER_THREAD 16
#define ROUNDS 10

static int shared_fd;
static int thread_bad[NTHREADS];

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	int fd = open("/dev/vda", O_RDWR);
	char s[SECTOR], back[SECTOR];
	if (fd < 0) {
		thread_bad[t]++;
		return NULL;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < PER_THREAD; k++) {
			unsigned long n = THREAD_AT + (unsigned long)(NTHREADS * k + t);
			sector_text(s, n, "WROTE");
			if (pwrite(fd, s, SECTOR, (off_t)n * SECTOR) != SECTOR)
				thread_bad[t]++;
		}
		if (fsync(fd) != 0)
			thread_bad[t]++;
		for (int k = 0; k < PER_THREAD; k++) {
			unsigned long n = THREAD_AT + (unsigned long)(NTHREADS * k + t);
			if (pread(fd, back, SECTOR, (off_t)n * SECTOR) != SECTOR || !sectors_are(back, n, 1, "WROTE"))
				thread_bad[t]++;
		}
		/* the shared descriptor: its offset moves as one with each read */
		char b[SECTOR];
		off_t at = lseek(shared_fd, 0, SEEK_CUR);
		if (at < 0 || read(shared_fd, b, SECTOR) != SECTOR)
			thread_bad[t]++;
	}
	close(fd);
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[NTHREADS];
	shared_fd = open("/dev/vdb", O_RDONLY);
	CHECK(shared_fd >= 0);
	for (int t = 0; t < NTHREADS; t++)
		CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < NTHREADS; t++) {
		CHECK(pthread_join(th[t], NULL) == 0);
		if (thread_bad[t])
			fail(__LINE__, "thread %d: %d bad results", t, thread_bad[t]);
	}
	/* every read of the shared fd took its own sector */
	CHECK(lseek(shared_fd, 0, SEEK_CUR) == NTHREADS * ROUNDS * SECTOR);
	close(shared_fd);
	printf("KTEST DISK-WROTE vda %d %d\n", THREAD_AT, NTHREADS * PER_THREAD);
}

/* ---- a disk bigger than memory (run alone: `disktests big`) ---- */

/* The whole disk read, every sector checked, then the whole disk written
 * and fsync'd: the cache must give clean pages back (reclaim) and write
 * dirty ones out before they fill memory, or this runs out of it. */
static void test_big(void)
{
	enum { CHUNK = 64 * 1024 };
	static char buf[CHUNK];
	int fd = open("/dev/vda", O_RDWR);
	uint64_t bytes = 0;
	CHECK(fd >= 0 && ioctl_call(fd, BLKGETSIZE64, &bytes) == 0 && bytes % CHUNK == 0);
	for (uint64_t off = 0; off < bytes && !failures; off += CHUNK)
		if (read(fd, buf, CHUNK) != CHUNK || !sectors_are(buf, off / SECTOR, CHUNK / SECTOR, "SECTOR"))
			fail(__LINE__, "read at %llu", (unsigned long long)off);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	for (uint64_t off = 0; off < bytes && !failures; off += CHUNK) {
		for (int i = 0; i < CHUNK / SECTOR; i++)
			sector_text(buf + i * SECTOR, off / SECTOR + (unsigned long)i, "WROTE");
		if (write(fd, buf, CHUNK) != CHUNK)
			fail(__LINE__, "write at %llu", (unsigned long long)off);
	}
	CHECK(fsync(fd) == 0);
	close(fd);
	if (!failures)
		printf("KTEST DISK-WROTE vda 0 %llu\n", (unsigned long long)(bytes / SECTOR));
}

/* ---- an ext2 disk mounted (run alone: `disktests ext2`) ---- */

#define MS_RDONLY 1
#define EXT2_MAGIC 0xef53

/* Run argv; its output into out (n bytes): its exit status, or -1. */
static int run(char *const argv[], char *out, size_t n)
{
	int fds[2], status;
	if (pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	ssize_t got = read(fds[0], out, n - 1);
	out[got > 0 ? got : 0] = '\0';
	close(fds[0]);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Does /proc/mounts have a line starting with want? */
static int mounted_as(const char *want)
{
	char buf[2048];
	int fd = open("/proc/mounts", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, want, strlen(want)))
			return 1;
	return 0;
}

static void test_ext2(void)
{
	struct stat a, b;
	char out[64];
	uint64_t st[15];   /* struct statfs: f_type first */
	CHECK(mkdir("/mnt", 0755) == 0 || errno == EEXIST);
	CHECK(syscall(SYS_mount, "/dev/vda", "/mnt", "ext2", (long)MS_RDONLY, NULL) == 0);
	CHECK(mounted_as("/dev/vda /mnt ext2 ro"));
	CHECK(syscall(SYS_statfs, "/mnt", st) == 0 && st[0] == EXT2_MAGIC);
	CHECK(stat("/mnt/bin/hello", &a) == 0 && stat("/bin/hello", &b) == 0);
	CHECK(a.st_size == b.st_size && a.st_dev != b.st_dev && S_ISREG(a.st_mode));
	char *echo[] = { "/mnt/bin/echo", "from", "ext2", NULL };
	CHECK(run(echo, out, sizeof(out)) == 0 && !strcmp(out, "from ext2\n"));
	char *no[] = { "/mnt/bin/false", NULL };
	CHECK(run(no, out, sizeof(out)) == 1);
	CHECK_ERR(open("/mnt/new", O_CREAT | O_WRONLY, 0644), EROFS);
	CHECK_ERR(open("/mnt/bin/hello", O_RDWR), EROFS);
	CHECK_ERR(mkdir("/mnt/d", 0755), EROFS);
	CHECK_ERR(unlink("/mnt/bin/hello"), EROFS);
	CHECK(chdir("/mnt/bin") == 0);
	CHECK_ERR(syscall(SYS_umount2, "/mnt", 0L), EBUSY);
	CHECK(chdir("/") == 0);
	CHECK(syscall(SYS_umount2, "/mnt", 0L) == 0);
	CHECK(!mounted_as("/dev/vda /mnt"));
	CHECK_ERR(stat("/mnt/bin/hello", &a), ENOENT);
}

/* Byte i of a file written with seed (the runner computes the same). */
static uint8_t pattern_byte(uint64_t i, unsigned seed)
{
	return (uint8_t)(i * 31 + seed + i / 1000);
}

/* Write path whole: size bytes of seed's pattern, in 64 KiB writes. */
static void write_pattern(const char *path, uint64_t size, unsigned seed)
{
	static uint8_t buf[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	for (uint64_t off = 0; fd >= 0 && off < size; off += sizeof(buf)) {
		uint64_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);
		for (uint64_t i = 0; i < n; i++)
			buf[i] = pattern_byte(off + i, seed);
		if (write(fd, buf, n) != (ssize_t)n)
			fail(__LINE__, "write %s at %llu", path, (unsigned long long)off);
	}
	CHECK(fd >= 0 && fsync(fd) == 0);
	close(fd);
}

/* Does path hold size bytes of seed's pattern? */
static int has_pattern(const char *path, uint64_t size, unsigned seed)
{
	static uint8_t buf[65536];
	int fd = open(path, O_RDONLY), ok = fd >= 0;
	uint64_t off = 0;
	ssize_t n;
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; ok && i < n; i++)
			ok = buf[i] == pattern_byte(off + (uint64_t)i, seed);
		off += (uint64_t)n;
	}
	close(fd);
	return ok && off == size;
}

static void test_ext2rw(void)
{
	struct stat st;
	CHECK(mkdir("/mnt", 0755) == 0 || errno == EEXIST);
	CHECK(syscall(SYS_mount, "/dev/vda", "/mnt", "ext2", 0L, NULL) == 0);
	CHECK(mounted_as("/dev/vda /mnt ext2 rw"));
	CHECK(mkdir("/mnt/pagoda", 0755) == 0 && mkdir("/mnt/pagoda/sub", 0700) == 0);
	write_pattern("/mnt/pagoda/f1", 100000, 1);
	write_pattern("/mnt/pagoda/f2", 5000, 2);
	write_pattern("/mnt/pagoda/big", 3u << 20, 3);
	CHECK(rename("/mnt/pagoda/f2", "/mnt/pagoda/sub/f2") == 0);
	CHECK(link("/mnt/pagoda/f1", "/mnt/pagoda/sub/f1link") == 0);
	CHECK(symlink("../f1", "/mnt/pagoda/sub/ln") == 0);
	CHECK(truncate("/mnt/pagoda/big", 1000001) == 0);
	CHECK(unlink("/mnt/bin/hello") == 0);
	int fa = open("/mnt/pagoda/falloc", O_RDWR | O_CREAT, 0644);
	CHECK(fa >= 0 && syscall(285 /* fallocate */, fa, 0, 0L, 50000L) == 0);
	CHECK(fstat(fa, &st) == 0 && st.st_size == 50000 && st.st_blocks >= 50000 / 512);
	close(fa);
	struct timespec ts[2] = { { 1000000000, 0 }, { 1234567890, 0 } };
	CHECK(syscall(280 /* utimensat */, -100L, "/mnt/pagoda/f1", ts, 0L) == 0);
	CHECK(stat("/mnt/pagoda/sub/f1link", &st) == 0 && st.st_nlink == 2 && st.st_size == 100000);
	CHECK(has_pattern("/mnt/pagoda/sub/ln", 100000, 1));
	int dfd = open("/mnt/pagoda/sub", O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0 && fsync(dfd) == 0);
	close(dfd);
	sync();
	CHECK(syscall(SYS_umount2, "/mnt", 0L) == 0);
	/* read back from the disk through a new mount */
	CHECK(syscall(SYS_mount, "/dev/vda", "/mnt", "ext2", (long)MS_RDONLY, NULL) == 0);
	CHECK(has_pattern("/mnt/pagoda/f1", 100000, 1) && has_pattern("/mnt/pagoda/sub/f2", 5000, 2));
	CHECK(has_pattern("/mnt/pagoda/big", 1000001, 3));
	CHECK_ERR(stat("/mnt/bin/hello", &st), ENOENT);
	CHECK(stat("/mnt/pagoda/f1", &st) == 0 && st.st_mtime == 1234567890);   /* on the disk */
	CHECK(stat("/mnt/pagoda/falloc", &st) == 0 && st.st_size == 50000);
	CHECK(syscall(SYS_umount2, "/mnt", 0L) == 0);
	if (!failures)
		printf("KTEST EXT2-FILE vda /pagoda/f1 100000 1\nKTEST EXT2-FILE vda /pagoda/sub/f1link 100000 1\n"
		       "KTEST EXT2-FILE vda /pagoda/sub/f2 5000 2\nKTEST EXT2-FILE vda /pagoda/big 1000001 3\n"
		       "KTEST EXT2-GONE vda /pagoda/f2\nKTEST EXT2-GONE vda /bin/hello\n");
}

/* meminfo's Dirty, kB (-1 if unreadable). */
static long dirty_kb(void)
{
	return (long)proc_value("/proc/meminfo", "Dirty", procfs_field);
}

static void test_flush(void)
{
	CHECK(mkdir("/mnt", 0755) == 0 || errno == EEXIST);
	CHECK(syscall(SYS_mount, "/dev/vda", "/mnt", "ext2", 0L, NULL) == 0);
	static uint8_t buf[1 << 20];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = pattern_byte(i, 9);
	int fd = open("/mnt/unsynced", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	close(fd);
	long dirty = -1;   /* (the flusher may have run already: a loaded host is slow) */
	for (int i = 0; i < 80 && dirty != 0; i++) {   /* up to 8 s */
		struct timespec ms100 = { 0, 100000000 };
		nanosleep(&ms100, NULL);
		dirty = dirty_kb();
	}
	CHECK(dirty == 0);
	if (!failures)
		printf("KTEST EXT2-FILE vda /unsynced %zu 9\n", sizeof(buf));
	CHECK(syscall(SYS_umount2, "/mnt", 0L) == 0);
}

#define EIO_READ 8192    /* = tests/qemu/disks.py's EIO_READ_SECTOR: page 1024 */
#define EIO_WRITE 8200   /* = EIO_WRITE_SECTOR: page 1025 */
#define PAGE 4096

static void test_eio(void)
{
	static char buf[4 * PAGE];
	int fd = open("/dev/vdb", O_RDWR);
	CHECK(fd >= 0);
	CHECK(pread(fd, buf, PAGE, (EIO_READ - 8) * SECTOR) == PAGE &&
	      sectors_are(buf, EIO_READ - 8, 8, "SECTOR"));
	CHECK_ERR(pread(fd, buf, PAGE, EIO_READ * SECTOR), EIO);
	CHECK_ERR(pread(fd, buf, SECTOR, (EIO_READ + 3) * SECTOR), EIO);   /* the same page */
	CHECK(pread(fd, buf, 4 * PAGE, (EIO_READ - 16) * SECTOR) == 2 * PAGE &&
	      sectors_are(buf, EIO_READ - 16, 16, "SECTOR"));              /* short, up to it */
	int before = open("/dev/vdb", O_RDWR);
	sector_text(buf, EIO_WRITE, "WROTE");
	CHECK(pwrite(fd, buf, SECTOR, EIO_WRITE * SECTOR) == SECTOR);   /* into the cache */
	CHECK_ERR(fsync(fd), EIO);
	CHECK(fsync(fd) == 0);                    /* heard once */
	CHECK_ERR(fsync(before), EIO);            /* open at the time: hears it too */
	int after = open("/dev/vdb", O_RDWR);
	CHECK(fsync(after) == 0);                 /* opened after it was heard of */
	for (int i = 0; i < 8; i++)
		sector_text(buf + i * SECTOR, EIO_WRITE + 8 + (unsigned long)i, "WROTE");
	CHECK(pwrite(fd, buf, PAGE, (EIO_WRITE + 8) * SECTOR) == PAGE && fsync(fd) == 0);
	if (!failures)
		printf("KTEST DISK-WROTE vdb %d %d\n", EIO_WRITE + 8, 8);
	close(after);
	close(before);
	close(fd);
}

static void test_rootdisk(void)
{
	struct stat st;
	CHECK(mounted_as("/dev/vda / ext2 rw"));
	CHECK(mounted_as("tmpfs /run tmpfs") && mounted_as("tmpfs /tmp tmpfs"));
	CHECK(stat("/run/bin", &st) == 0 && S_ISDIR(st.st_mode));   /* the initrd's tree */
	CHECK(mkdir("/pagoda-dir", 0755) == 0);
	write_pattern("/pagoda-dir/file", 123456, 7);
	write_pattern("/pagoda-root-file", 4321, 8);
	CHECK(rename("/pagoda-root-file", "/pagoda-dir/moved") == 0);
	CHECK(has_pattern("/pagoda-dir/moved", 4321, 8));
	CHECK(stat("/bin/disktests", &st) == 0 && st.st_dev == 0xfd00);   /* 253:0, the disk */
	if (!failures)
		printf("KTEST EXT2-FILE vda /pagoda-dir/file 123456 7\n"
		       "KTEST EXT2-FILE vda /pagoda-dir/moved 4321 8\nKTEST EXT2-GONE vda /pagoda-root-file\n");
}

#define CACHE_FILES 1500

/* The first n numbers of /proc file path (blanks between them): how many
 * were read. */
static int proc_numbers(const char *path, unsigned long *v, int n)
{
	char buf[256];
	int fd = open(path, O_RDONLY), got = 0;
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (char *p = buf, *end; got < n; p = end, got++) {
		v[got] = strtoul(p, &end, 10);
		if (end == p)
			break;
	}
	return got;
}

/* Write text to a /proc/sys file: write's result (errno kept). */
static long sysctl_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	long r = fd >= 0 ? (long)write(fd, text, strlen(text)) : -1;
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

/* Unused dentries now (/proc/sys/fs/dentry-state's second number). */
static unsigned long unused_dentries(void)
{
	unsigned long v[2] = { 0, 0 };
	return proc_numbers("/proc/sys/fs/dentry-state", v, 2) == 2 ? v[1] : 0;
}

/* Every file of test_caches there, holding its own number. */
static int cache_files_intact(void)
{
	char path[64], want[16], got[16];
	for (int i = 0; i < CACHE_FILES; i++) {
		snprintf(path, sizeof(path), "/caches/f%d", i);
		int n = snprintf(want, sizeof(want), "%d", i * 7);
		int fd = open(path, O_RDONLY);
		ssize_t r = fd >= 0 ? read(fd, got, sizeof(got)) : -1;
		close(fd);
		if (r != n || memcmp(got, want, (size_t)n))
			return 0;
	}
	return 1;
}

/* Allocate and touch memory a MiB at a time until the unused dentries
 * fall below `below` (the shrinker took them): exit 0 then; the OOM
 * killer ends it if they never do. */
static void press_until_shrunk(unsigned long below)
{
	for (int mib = 0; unused_dentries() >= below; mib++) {
		char *p = malloc(1 << 20);
		if (!p)
			_exit(3);
		memset(p, mib, 1 << 20);
	}
	_exit(0);
}

static void test_caches(void)
{
	char path[64], text[16];
	unsigned long v[6], before;
	long long scanned = vmstat("slabs_scanned");
	CHECK(mkdir("/caches", 0755) == 0);
	for (int i = 0; i < CACHE_FILES; i++) {
		snprintf(path, sizeof(path), "/caches/f%d", i);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		int n = snprintf(text, sizeof(text), "%d", i * 7);
		CHECK(fd >= 0 && write(fd, text, (size_t)n) == n);
		close(fd);
	}
	sync();
	CHECK(proc_numbers("/proc/sys/fs/dentry-state", v, 6) == 6 && v[1] >= CACHE_FILES);
	before = v[0];
	/* Linux's errnos: a read-only sysctl written, a write-only one read, bad values */
	errno = 0;
	CHECK(proc_numbers("/proc/sys/vm/drop_caches", v, 1) == 0 && errno == EACCES);
	CHECK_ERR(sysctl_write("/proc/sys/fs/dentry-state", "1"), EACCES);
	CHECK_ERR(sysctl_write("/proc/sys/vm/drop_caches", "0"), EINVAL);
	CHECK_ERR(sysctl_write("/proc/sys/vm/drop_caches", "5\n"), EINVAL);
	CHECK_ERR(sysctl_write("/proc/sys/vm/drop_caches", "2x"), EINVAL);
	/* drop_caches: every unused dentry goes, and the idle inodes with them */
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "2\n") == 2);
	CHECK(proc_numbers("/proc/sys/fs/dentry-state", v, 2) == 2 && v[1] == 0 &&
	      v[0] + CACHE_FILES <= before);
	CHECK(proc_numbers("/proc/sys/fs/inode-nr", v, 2) == 2 && v[1] < 10);
	CHECK(cache_files_intact());   /* looked up again from the disk */
	CHECK(unused_dentries() >= CACHE_FILES);
	/* memory pressure: the reclaimer asks the shrinkers before the OOM killer runs */
	pid_t pid = fork();
	if (pid == 0)
		press_until_shrunk(CACHE_FILES / 2);
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);   /* not killed: the dentries went first */
	CHECK(scanned >= 0 && vmstat("slabs_scanned") > scanned);
	CHECK(cache_files_intact());
}

#define MAP_PAGES 16

/* Does every page i of path hold want[i] repeated? Read with read(). */
static int pages_are(const char *path, const char *want)
{
	static char got[4096];
	int fd = open(path, O_RDONLY), ok = fd >= 0;
	for (int i = 0; ok && i < MAP_PAGES; i++) {
		ok = read(fd, got, sizeof(got)) == (ssize_t)sizeof(got);
		for (size_t k = 0; ok && k < sizeof(got); k++)
			ok = got[k] == want[i];
	}
	close(fd);
	return ok;
}

/* Write every page of the mapping from page `from` to `to` (excluded) with c. */
static void store_pages(char *m, int from, int to, char c)
{
	for (int i = from; i < to; i++)
		memset(m + (size_t)i * 4096, c, 4096);
}

/* Pages of fd's cache with an index in [first, first + n) that are dirty
 * (pagoda_filecache, system call 1006), or -1. */
static int dirty_pages(int fd, uint64_t first, uint64_t n)
{
	static struct pagoda_cachenode c[256];
	long got = syscall(1006, fd, c, 256L);
	if (got < 0 || got > 256)
		return -1;
	int dirty = 0;
	for (long i = 0; i < got; i++)
		dirty += c[i].kind == PCN_PAGE && c[i].index >= first && c[i].index < first + n &&
			 (c[i].flags & PCN_DIRTY);
	return dirty;
}

/* A child that stores c at *at and exits 0: its wait status. */
static int store_in_child(volatile char *at, char c)
{
	int st = -1;
	pid_t pid = fork();
	if (pid == 0) {
		*at = c;
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	return st;
}

/* A child that loads *at and exits 0: its wait status. */
static int load_in_child(volatile const char *at)
{
	int st = -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c = *at;
		(void)c;
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	return st;
}

/* A shared mapping of a file made PROT_WRITE alone reads too (x86 has no
 * write-only pages; neither has Linux's mmap): before its first store,
 * after it, and after write-back took W away again. Its clean pages are
 * mapped without W, which made them PROT_NONE (a read was SIGSEGV; found
 * by vmtester's scratch file on ext2). */
static void mmap_write_only(int fd)
{
	char *w = mmap(NULL, 2 * 4096, PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(w != MAP_FAILED);
	if (w == MAP_FAILED)
		return;
	int st = load_in_child(w);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = store_in_child(w + 4096, 'W');
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(fsync(fd) == 0);   /* W taken away from the mapping again */
	st = load_in_child(w + 4096);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(munmap(w, 2 * 4096) == 0);
}

/* A file's last page, read while the file ended inside it, then the file
 * grown: a store through a mapping into the grown part still gets its
 * blocks (the page was not whole when read: no PGC_BLOCKS), and reaches
 * the disk; a page read whole skips the look on its next first store. */
static void mmap_grown_end(void)
{
	static char buf[5000];
	const char *path = "/mmap-grown";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(buf, 'g', sizeof(buf));
	CHECK(fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && fsync(fd) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	char *m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(m[4096] == 'g' && m[4999] == 'g' && m[5000] == 0);   /* page 1 read, partial */
	CHECK(ftruncate(fd, 2 * 4096) == 0);
	m[7000] = 'Z';
	m[100] = 'A';
	CHECK(msync(m, 2 * 4096, MS_SYNC) == 0 && munmap(m, 2 * 4096) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	char c = 0, d = 0;
	CHECK(pread(fd, &c, 1, 7000) == 1 && c == 'Z' && pread(fd, &d, 1, 100) == 1 && d == 'A');
	close(fd);
	CHECK(unlink(path) == 0);
}

/* A store through a shared mapping into a hole of a file on a full disk:
 * SIGBUS at the store (as Linux's ext4: room is made when the page is
 * dirtied, not at write-back, where the bytes would be lost), nothing
 * changed; with room again the same store goes through and reaches the
 * disk. Pages with their blocks take stores on a full disk. */
static void mmap_full_disk(void)
{
	static char chunk[1 << 16];
	const char *path = "/mmap-hole", *filler = "/mmap-filler";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), ff;
	CHECK(fd >= 0 && ftruncate(fd, 16 * 4096) == 0);
	char *m = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	m[0] = 'h';   /* page 0's blocks while there is room */
	CHECK((ff = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	while (write(ff, chunk, sizeof(chunk)) > 0)
		;
	while (write(ff, chunk, 512) > 0)
		;
	CHECK(errno == ENOSPC);
	int st = store_in_child(m + 5 * 4096, 'x');
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
	m[1] = 'i';
	CHECK(close(ff) == 0 && unlink(filler) == 0);
	sync();   /* the filler's blocks free for good */
	st = store_in_child(m + 5 * 4096, 'x');
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(msync(m, 16 * 4096, MS_SYNC) == 0 && munmap(m, 16 * 4096) == 0 && close(fd) == 0);
	sync();
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	char got[3];
	fd = open(path, O_RDONLY);
	CHECK(pread(fd, got, 2, 0) == 2 && got[0] == 'h' && got[1] == 'i');
	CHECK(pread(fd, got, 3, 5 * 4096 - 1) == 3 && got[0] == 0 && got[1] == 'x' && got[2] == 0);
	close(fd);
	CHECK(unlink(path) == 0);
}

static void test_mmap(void)
{
	static char page[4096];
	const char *path = "/mmap-shared";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(page, 'A', sizeof(page));
	for (int i = 0; i < MAP_PAGES; i++)
		CHECK(write(fd, page, sizeof(page)) == (ssize_t)sizeof(page));
	CHECK(fsync(fd) == 0);
	char *m = mmap(NULL, MAP_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	long long mkwrite = vmstat("pgfault_mkwrite");
	volatile char sum = 0;
	for (int i = 0; i < MAP_PAGES; i++)
		sum += m[i * 4096];   /* read first: mapped read-only, clean */
	store_pages(m, 0, 8, 'B');
	CHECK(vmstat("pgfault_mkwrite") >= mkwrite + 8);   /* each first store dirtied its page */
	CHECK(dirty_pages(fd, 0, 8) == 8);
	CHECK(fsync(fd) == 0);
	/* write-back write-protected them in the mapping: clean, though mapped */
	CHECK(dirty_pages(fd, 0, MAP_PAGES) == 0);
	mkwrite = vmstat("pgfault_mkwrite");
	store_pages(m, 4, 12, 'C');   /* 4..7 again after their write-back, 8..11 first */
	CHECK(vmstat("pgfault_mkwrite") >= mkwrite + 8);   /* 4..7 faulted again: dirty again */
	CHECK(dirty_pages(fd, 0, MAP_PAGES) == 8);
	CHECK(msync(m + 8 * 4096, 4 * 4096, MS_SYNC) == 0);
	CHECK(dirty_pages(fd, 8, 4) == 0);
	/* ext2 has no holes to punch (Linux's neither): nothing changes */
	CHECK_ERR(syscall(285, fd, 3 /* PUNCH_HOLE | KEEP_SIZE */, 0L, 4096L), EOPNOTSUPP);
	CHECK_ERR(madvise(m, 4096, MADV_REMOVE), EOPNOTSUPP);
	CHECK_ERR(msync(m + 1, 4096, MS_SYNC), EINVAL);
	CHECK(munmap(m, MAP_PAGES * 4096) == 0);
	close(fd);
	const char *want = "BBBBCCCCCCCCAAAA";
	CHECK(pages_are(path, want));   /* one cache: read() sees the stores */
	sync();
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	/* a mapping of the file out of the cache: its first fault reads from
	 * the disk (a major fault, with read-ahead for the others) */
	long long major = vmstat("pgmajfault"), majflt = procfs_self_stat(12), minflt = procfs_self_stat(10);
	fd = open(path, O_RDONLY);
	m = mmap(NULL, MAP_PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	for (int i = 0; i < MAP_PAGES; i++)
		CHECK(m[i * 4096] == want[i]);
	CHECK(vmstat("pgmajfault") > major && procfs_self_stat(12) > majflt && majflt >= 0);
	CHECK(procfs_self_stat(10) > minflt && minflt >= 0);   /* the others were in the cache */
	CHECK(munmap(m, MAP_PAGES * 4096) == 0);
	close(fd);
	CHECK(pages_are(path, want));   /* read again from the disk */
	/* mprotect: a read-only shared mapping made writable keeps its clean
	 * pages read-only, so each first store still dirties its page */
	fd = open(path, O_RDWR);
	m = mmap(NULL, MAP_PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	for (int i = 0; i < MAP_PAGES; i++)
		sum += m[i * 4096];
	mkwrite = vmstat("pgfault_mkwrite");
	CHECK(mprotect(m, MAP_PAGES * 4096, PROT_READ | PROT_WRITE) == 0);
	store_pages(m, 12, 16, 'D');
	CHECK(vmstat("pgfault_mkwrite") >= mkwrite + 4);
	CHECK(munmap(m, MAP_PAGES * 4096) == 0);
	close(fd);
	sync();
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	CHECK(pages_are(path, "BBBBCCCCCCCCDDDD"));
	fd = open(path, O_RDWR);
	mmap_write_only(fd);
	char c = 0;
	CHECK(pread(fd, &c, 1, 4096) == 1 && c == 'W');
	close(fd);
	CHECK(unlink(path) == 0);
	mmap_grown_end();
	mmap_full_disk();
}

/* What follows a test's name on the command line after '=' (NAME=ARG),
 * or NULL (set for the test that runs). */
static const char *test_arg;

/* The size of a big test in pages: its argument in MiB, or mib. */
static uint64_t big_pages(uint64_t mib)
{
	return (test_arg ? strtoull(test_arg, NULL, 10) : mib) * 256;
}

/* How many of the pages of mapping m are in memory (mincore), or -1. */
static int resident_pages(void *m, size_t pages)
{
	static unsigned char vec[1024];
	if (pages > sizeof(vec) || mincore(m, pages * 4096, vec) != 0)
		return -1;
	int n = 0;
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/* advice: read-ahead advice on a file of 256 pages out of the cache, as
 * mincore of its mapping shows: MADV_RANDOM, a fault reads its page alone;
 * MADV_SEQUENTIAL, the page and a whole window after it (33 pages);
 * MADV_WILLNEED reads all, and reading the mapping then takes no major
 * fault; posix_fadvise DONTNEED drops the pages nobody maps (those that
 * fault-around mapped stay), WILLNEED brings them back. */
static void test_advice(void)
{
	enum { PAGES = 256, FADVISE64 = 221, WILLNEED = 3, DONTNEED = 4 };
	static char page[4096];
	const char *path = "/advice";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(page, 'v', sizeof(page));
	for (int i = 0; i < PAGES; i++)
		CHECK(write(fd, page, sizeof(page)) == (ssize_t)sizeof(page));
	CHECK(fsync(fd) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	size_t len = PAGES * 4096;
	char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(resident_pages(m, PAGES) == 0);
	CHECK(madvise(m, len, MADV_RANDOM) == 0);
	CHECK(m[100 * 4096] == 'v' && resident_pages(m, PAGES) == 1);
	CHECK(madvise(m, len, MADV_SEQUENTIAL) == 0);
	CHECK(m[10 * 4096] == 'v' && resident_pages(m, PAGES) == 1 + 33);
	CHECK(madvise(m, len, MADV_NORMAL) == 0);
	CHECK(madvise(m, len, MADV_WILLNEED) == 0 && resident_pages(m, PAGES) == PAGES);
	long long majflt = procfs_self_stat(12);
	volatile char sum = 0;
	for (int i = 0; i < PAGES; i++)
		sum += m[i * 4096];
	CHECK(majflt >= 0 && procfs_self_stat(12) == majflt);
	CHECK(munmap(m, len) == 0);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(m[0] == 'v');   /* fault-around maps the rest of its 64 KiB window */
	int window = 16 - (int)((uintptr_t)m / 4096 % 16);
	CHECK(syscall(FADVISE64, fd, 0L, 0L, (long)DONTNEED) == 0);
	CHECK(resident_pages(m, PAGES) == window);
	CHECK(syscall(FADVISE64, fd, 0L, 0L, (long)WILLNEED) == 0);
	CHECK(resident_pages(m, PAGES) == PAGES);
	CHECK(munmap(m, len) == 0);
	close(fd);
	CHECK(unlink(path) == 0);
}

/* The word page i of bigmap's file holds at each of its 8-byte slots
 * (round r: what the shared mapping wrote over the first round's). */
static uint64_t big_word(uint64_t i, int r)
{
	return (i * 0x9e3779b97f4a7c15ull) ^ (uint64_t)r << 56 ^ 0x5041474f4441ull;
}

/* Does page i of m (4096 bytes) hold big_word(i, r) in its first and last
 * slots? */
static int big_page_is(const uint64_t *m, uint64_t i, int r)
{
	return m[i * 512] == big_word(i, r) && m[i * 512 + 511] == big_word(i, r);
}

/* bigmap: a file twice the size of RAM (MemTotal), written with write(),
 * mapped shared and read whole (every page checked), written whole through
 * the mapping, msync'ed, then read back with read() after drop_caches.
 * Only the reclaimer's unmapping of mapped file pages makes room (it
 * walks the reverse map); without it the reader is OOM-killed. */
static void test_bigmap(void)
{
	static uint64_t buf[512 * 64];
	uint64_t ram = (uint64_t)proc_value("/proc/meminfo", "MemTotal", procfs_field) * 1024;
	uint64_t pages = 2 * ram / 4096, len = pages * 4096;
	const char *path = "/bigmap";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ram > 0);
	for (uint64_t i = 0; i < pages; i += 64) {
		for (uint64_t k = 0; k < 64; k++)
			for (int s = 0; s < 512; s++)
				buf[k * 512 + s] = big_word(i + k, 0);
		CHECK(pwrite(fd, buf, sizeof(buf), (off_t)(i * 4096)) == (ssize_t)sizeof(buf));
	}
	CHECK(fsync(fd) == 0);
	long long major = vmstat("pgmajfault");
	uint64_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	uint64_t bad = 0;
	for (uint64_t i = 0; i < pages; i++)
		bad += !big_page_is(m, i, 0);
	CHECK(bad == 0);
	CHECK(vmstat("pgmajfault") > major);   /* read from the disk, most of it */
	for (uint64_t i = 0; i < pages; i++)
		for (int s = 0; s < 512; s += 511)
			m[i * 512 + s] = big_word(i, 1);
	CHECK(msync(m, len, MS_SYNC) == 0);
	CHECK(munmap(m, len) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	for (uint64_t i = 0; i < pages && bad < 10; i++) {
		CHECK(pread(fd, buf, 4096, (off_t)(i * 4096)) == 4096);
		bad += buf[0] != big_word(i, 1) || buf[511] != big_word(i, 1) ||
		       buf[1] != big_word(i, 0);   /* the stores, and what write() left */
		if (buf[0] != big_word(i, 1))
			printf("  bigmap: page %llu reads %#llx\n", (unsigned long long)i,
			       (unsigned long long)buf[0]);
	}
	CHECK(bad == 0);
	printf("  bigmap: %llu MiB mapped with %llu MiB of RAM, %lld major faults\n",
	       (unsigned long long)(len >> 20), (unsigned long long)(ram >> 20),
	       vmstat("pgmajfault") - major);
	close(fd);
	CHECK(unlink(path) == 0);
}

/* bigwrite[=MIB] (default 2048: issue 38's 2 GiB, with MEM=512M in make
 * check-bigfiles): a sparse file of MIB MiB mapped shared, the first and
 * last words of every page stored (big_word(i, 2)), msync'ed, unmapped.
 * Each store's page is a hole read as zeros, dirtied; reclaim writes the
 * pages out (allocating their blocks) and frees them to make room for the
 * next. The file stays: the host reads every page of it from the image
 * (KTEST EXT2-WORDS, tests/qemu/disks.py), then e2fsck. */
static void test_bigwrite(void)
{
	uint64_t pages = big_pages(2048), len = pages * 4096;
	uint64_t ram = (uint64_t)proc_value("/proc/meminfo", "MemTotal", procfs_field) * 1024;
	const char *path = "/bigwrite";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)len) == 0);
	uint64_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	for (uint64_t i = 0; i < pages; i++)
		m[i * 512] = m[i * 512 + 511] = big_word(i, 2);
	CHECK(msync(m, len, MS_SYNC) == 0);
	CHECK(munmap(m, len) == 0);
	CHECK(close(fd) == 0);
	printf("KTEST EXT2-WORDS vda %s %llu 2\n", path, (unsigned long long)pages);
	printf("  bigwrite: %llu MiB written through a shared mapping with %llu MiB of RAM\n",
	       (unsigned long long)(len >> 20), (unsigned long long)(ram >> 20));
}

/* workingset (after bigwrite, whose file is larger than the RAM): a file
 * of 512 pages written, dropped from the cache and read twice with read()
 * (its second read makes its pages active: nr_active_file), then
 * /bigwrite read once, whole, with read(): the reclaimer frees the
 * stream's pages (inactive) and none of the file read twice -- all 512
 * still in memory (mincore). With the caches' pages freed cache by cache
 * in the order the caches were made, as before the lists, they went first
 * (the stream's inode is read again after the file's: drop_caches 3).
 * Its first 8 MiB read again come back to their shadows
 * (workingset_refault_file). */
static void test_workingset(void)
{
	enum { PAGES = 512 };
	static char buf[64 * 4096];
	const char *path = "/workingset";
	struct stat st;
	CHECK(stat("/bigwrite", &st) == 0 &&
	      st.st_size > proc_value("/proc/meminfo", "MemTotal", procfs_field) * 1024);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(buf, 'w', sizeof(buf));
	for (int i = 0; i < PAGES; i += 64)
		CHECK(pwrite(fd, buf, sizeof(buf), (off_t)i * 4096) == (ssize_t)sizeof(buf));
	CHECK(fsync(fd) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "3") == 1);   /* pages, idle inodes */
	int big = open("/bigwrite", O_RDONLY);   /* its inode (and cache) made after ours */
	CHECK(fd >= 0 && big >= 0);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < PAGES; i += 64)
			CHECK(pread(fd, buf, sizeof(buf), (off_t)i * 4096) == (ssize_t)sizeof(buf));
	CHECK(vmstat("nr_active_file") >= PAGES);
	long long stolen = vmstat("pgsteal_file");
	uint64_t read_mib = 0;
	for (ssize_t n; (n = read(big, buf, sizeof(buf))) > 0;)
		read_mib += (uint64_t)n;
	CHECK(read_mib == (uint64_t)st.st_size);
	void *m = mmap(NULL, PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	int resident = m == MAP_FAILED ? -1 : resident_pages(m, PAGES);
	CHECK(resident == PAGES);
	CHECK(vmstat("pgsteal_file") - stolen > (long long)(st.st_size / 4096) / 2);
	printf("  workingset: %d of %d pages read twice still in memory after %llu MiB read "
	       "once; %lld cache pages freed meanwhile\n", resident, PAGES,
	       (unsigned long long)(read_mib >> 20), vmstat("pgsteal_file") - stolen);
	long long refaults = vmstat("workingset_refault_file");   /* the stream's start again: */
	for (int i = 0; i < 2048; i += 64)                         /* each page's shadow found */
		CHECK(pread(big, buf, sizeof(buf), (off_t)i * 4096) == (ssize_t)sizeof(buf));
	CHECK(vmstat("workingset_refault_file") - refaults >= 2048);
	if (m != MAP_FAILED)
		CHECK(munmap(m, PAGES * 4096) == 0);
	close(big);
	close(fd);
	CHECK(unlink(path) == 0);
}

/* bigread[=MIB] (default 4096: issue 38's 4 GiB with 512 MiB): a file of
 * MIB MiB written with write() (big_word(i, 0) in the first and last words
 * of page i, a fill between), fsync'ed and dropped from the cache, then
 * mapped shared read-only and read whole, every page checked. Its pages
 * come from the disk through major faults (majflt of /proc/self/stat: at
 * least one per 64 pages, as read-ahead brings at most 33 pages a fault);
 * reclaim frees the pages read before. Unlinked at the end. */
static void test_bigread(void)
{
	static uint64_t buf[512 * 64];
	uint64_t pages = big_pages(4096), len = pages * 4096;
	const char *path = "/bigread";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	for (uint64_t i = 0; i < pages; i += 64) {
		for (uint64_t k = 0; k < 64; k++)
			buf[k * 512] = buf[k * 512 + 511] = big_word(i + k, 0);
		CHECK(pwrite(fd, buf, sizeof(buf), (off_t)(i * 4096)) == (ssize_t)sizeof(buf));
	}
	CHECK(fsync(fd) == 0);
	CHECK(sysctl_write("/proc/sys/vm/drop_caches", "1") == 1);
	long long majflt = procfs_self_stat(12);
	const uint64_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	uint64_t bad = 0;
	for (uint64_t i = 0; i < pages; i++)
		bad += !big_page_is(m, i, 0) || m[i * 512 + 1] != 0x5a5a5a5a5a5a5a5aull;
	CHECK(bad == 0);
	long long major = procfs_self_stat(12) - majflt;
	CHECK(majflt >= 0 && major >= (long long)(pages / 64));
	printf("  bigread: %llu MiB mapped and read, %lld major faults, %llu pages wrong\n",
	       (unsigned long long)(len >> 20), major, (unsigned long long)bad);
	CHECK(munmap((void *)m, len) == 0);
	close(fd);
	CHECK(unlink(path) == 0);
}

static const struct {
	const char *name;
	void (*fn)(void);
	int alone;            /* only when named */
} tests[] = {
	{ "nodes", test_nodes, 0 }, { "read", test_read, 0 }, { "write_fsync", test_write_fsync, 0 },
	{ "errors", test_errors, 0 }, { "threads", test_threads, 0 }, { "big", test_big, 1 },
	{ "ext2", test_ext2, 1 }, { "ext2rw", test_ext2rw, 1 }, { "rootdisk", test_rootdisk, 1 },
	{ "flush", test_flush, 1 }, { "eio", test_eio, 1 }, { "caches", test_caches, 1 },
	{ "mmap", test_mmap, 1 }, { "bigmap", test_bigmap, 1 }, { "bigwrite", test_bigwrite, 1 },
	{ "workingset", test_workingset, 1 }, { "bigread", test_bigread, 1 }, { "advice", test_advice, 1 },
};

/* Run tests[i]? Named on the command line, or no names and not alone. */
static int selected(size_t i, int argc, char **argv)
{
	size_t n = strlen(tests[i].name);
	for (int a = 1; a < argc; a++) {
		if (strncmp(argv[a], tests[i].name, n) == 0 && (!argv[a][n] || argv[a][n] == '=')) {
			test_arg = argv[a][n] ? argv[a] + n + 1 : NULL;
			return 1;
		}
	}
	test_arg = NULL;
	return argc < 2 && !tests[i].alone;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	if (getpid() != 1) {   /* never the disks of the machine it was started on */
		fprintf(stderr, "disktests: writes to /dev/vda: runs only as init of a test VM\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!selected(i, argc, argv))
			continue;
		failures = 0;
		tests[i].fn();
		printf("TEST user.disk_%s %s\n", tests[i].name, failures ? "FAIL see above" : "PASS");
		failures ? failed++ : passed++;
		fflush(stdout);
	}
	printf("DISKTESTS END %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
