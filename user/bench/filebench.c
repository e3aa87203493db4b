/*
 * user/bench/filebench.c -- file-system costs, the same binary on Pagoda and
 * on Linux (make bench-linux boots both with the same ext2 image on a virtio
 * disk). Every metric is a time, smaller is better:
 *
 *   write_fsync_64M   ms  write a new 64 MiB file in 1 MiB writes, fsync it
 *   read_cold_64M     ms  read it back in 1 MiB reads after a remount
 *                         (nothing of it cached)
 *   read_warm_64M     ms  read it again (all of it cached)
 *   rand_read_4k      us  one 4 KiB pread at a random page of the file,
 *                         after a remount (each read goes to the disk)
 *   create_unlink     us  per file: create 1000 files of 100 bytes, then
 *                         unlink them
 *   fsync_4k          us  append 4 KiB to a file and fsync it
 *   dev_read_64M      ms  read 64 MiB of the disk device itself in 1 MiB
 *                         reads, at a place not read before: what the device
 *                         delivers (the limit of read_cold_64M)
 *   map_warm_64M      ms  map the 64 MiB file (all of it cached) shared and
 *                         read-only, load one byte of each page, unmap: the
 *                         page faults of a cached file
 *   map_write_64M     ms  map it shared and writable, store to every byte,
 *                         msync(MS_SYNC), unmap: dirtying through a mapping
 *                         and writing it back
 *   map_cold_64M      ms  map_warm_64M after a remount (every page read from
 *                         the disk by the faults)
 *   exec_cached       us  fork + exec + wait of proc_hello copied to the
 *                         file system, its pages cached (executed once before)
 *
 * Usage: filebench [--dev DEV --mnt DIR] [--dir DIR] [--quick] [--runs N]
 * With --dev, DEV (an ext2 disk) is mounted on DIR (--mnt) first, the files
 * live there, and "cold" means after umount + mount: both kernels drop a
 * file system's cached pages then. Without --dev the files go to --dir
 * (default /tmp) and the cold metrics are skipped (nothing to remount: the
 * host smoke test). --quick shrinks everything (1 MiB, 10 files): it checks
 * that the program works and measures nothing.
 */
#include "bench_proc.h"
#include "bench_rng.h"
#include "bench_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1024L * 1024)
#define CHUNK MIB          /* one read or write of the sequential metrics */
#define SMALL_BYTES 100    /* a small file of create_unlink */

struct cfg {
	const char *dev, *mnt, *dir;
	long mib;              /* size of the big file, MiB */
	int files, fsyncs, reads;
};

static char *buf;          /* CHUNK bytes */

static double ms_since(uint64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e6;
}

/* path = dir/name (PATH_MAX-sized buffer). */
static void join(char *path, const char *dir, const char *name)
{
	snprintf(path, 512, "%s/%s", dir, name);
}

static void mount_dev(const struct cfg *c)
{
	if (syscall(SYS_mount, c->dev, c->mnt, "ext2", 0L, NULL) != 0)
		bench_die("mount");
}

/* umount + mount: nothing of the file system stays cached. */
static void remount(const struct cfg *c)
{
	sync();
	if (syscall(SYS_umount2, c->mnt, 0L) != 0)
		bench_die("umount");
	mount_dev(c);
}

/* Write mib MiB to a new file at path, then fsync it. */
static void write_file(const char *path, long mib)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		bench_die("create big file");
	for (long i = 0; i < mib; i++) {
		memset(buf, (int)('a' + i % 26), 64);
		if (write(fd, buf, CHUNK) != CHUNK)
			bench_die("write big file");
	}
	if (fsync(fd) != 0 || close(fd) != 0)
		bench_die("fsync big file");
}

/* Read the whole file at path in CHUNK reads; checks its length. */
static void read_file(const char *path, long mib)
{
	int fd = open(path, O_RDONLY);
	long total = 0;
	ssize_t n;
	if (fd < 0)
		bench_die("open big file");
	while ((n = read(fd, buf, CHUNK)) > 0)
		total += n;
	if (n < 0 || total != mib * MIB)
		bench_die("read big file");
	close(fd);
}

/* The sequential metrics, runs times; leaves the big file at path. */
static void sequential(const struct cfg *c, const char *path)
{
	double w[BENCH_MAX_RUNS], cold[BENCH_MAX_RUNS], warm[BENCH_MAX_RUNS];
	int n = bench_runs();
	for (int r = 0; r < n; r++) {
		unlink(path);
		sync();
		uint64_t t0 = bench_now_ns();
		write_file(path, c->mib);
		w[r] = ms_since(t0);
		if (c->dev)
			remount(c);
		t0 = bench_now_ns();
		read_file(path, c->mib);
		cold[r] = ms_since(t0);
		t0 = bench_now_ns();
		read_file(path, c->mib);
		warm[r] = ms_since(t0);
	}
	bench_report("filebench", "write_fsync_64M", "ms", w, n);
	if (c->dev)
		bench_report("filebench", "read_cold_64M", "ms", cold, n);
	else
		bench_skip("filebench", "read_cold_64M", "no --dev to remount");
	bench_report("filebench", "read_warm_64M", "ms", warm, n);
}

/* Map mib MiB of the file at path shared (writable when store), load a
 * byte of each page or store to every byte, msync it when stored, unmap;
 * the milliseconds that took. */
static double map_file(const char *path, long mib, int store)
{
	size_t len = (size_t)mib * MIB;
	int fd = open(path, store ? O_RDWR : O_RDONLY);
	if (fd < 0)
		bench_die("open big file");
	uint64_t t0 = bench_now_ns();
	char *m = mmap(NULL, len, store ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		bench_die("mmap big file");
	volatile char sum = 0;
	if (store)
		memset(m, 's', len);
	else
		for (size_t i = 0; i < len; i += 4096)
			sum += m[i];
	if ((store && msync(m, len, MS_SYNC) != 0) || munmap(m, len) != 0)
		bench_die("msync/munmap big file");
	double ms = ms_since(t0);
	close(fd);
	return ms;
}

/* The mapped-file metrics, runs times, on the big file (cached). */
static void mapped(const struct cfg *c, const char *path)
{
	double warm[BENCH_MAX_RUNS], store[BENCH_MAX_RUNS], cold[BENCH_MAX_RUNS];
	int n = bench_runs();
	for (int r = 0; r < n; r++) {
		warm[r] = map_file(path, c->mib, 0);
		store[r] = map_file(path, c->mib, 1);
		if (c->dev)
			remount(c);
		cold[r] = map_file(path, c->mib, 0);
	}
	bench_report("filebench", "map_warm_64M", "ms", warm, n);
	bench_report("filebench", "map_write_64M", "ms", store, n);
	if (c->dev)
		bench_report("filebench", "map_cold_64M", "ms", cold, n);
	else
		bench_skip("filebench", "map_cold_64M", "no --dev to remount");
}

/* Copy the file at from to a new file at to, mode 0755. */
static void copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t got;
	if (in < 0 || out < 0)
		bench_die("open program to copy");
	while ((got = read(in, buf, CHUNK)) > 0)
		if (write(out, buf, (size_t)got) != got)
			bench_die("copy program");
	if (got < 0 || close(in) != 0 || close(out) != 0)
		bench_die("copy program");
}

/* exec_cached: proc_hello (beside this program) copied into the file
 * system, executed once, then fork + exec + wait timed. */
static void exec_cached(const struct cfg *c, const char *prog)
{
	char from[512], to[512];
	bench_path_beside(from, sizeof from, prog, "proc_hello");
	join(to, c->dir, "filebench-hello");
	copy_file(from, to);
	char *const argv[] = { to, NULL };
	bench_spawn_wait(to, argv);   /* its pages cached */
	double s[BENCH_MAX_RUNS];
	int n = bench_runs(), times = c->files / 10;
	for (int r = 0; r < n; r++) {
		uint64_t t0 = bench_now_ns();
		for (int i = 0; i < times; i++)
			bench_spawn_wait(to, argv);
		s[r] = ms_since(t0) * 1000 / times;
	}
	unlink(to);
	bench_report("filebench", "exec_cached", "us", s, n);
}

/* Random 4 KiB reads of the big file after a remount. */
static void random_reads(const struct cfg *c, const char *path)
{
	double s[BENCH_MAX_RUNS];
	struct bench_rng rng;
	int n = bench_runs();
	if (!c->dev) {
		bench_skip("filebench", "rand_read_4k", "no --dev to remount");
		return;
	}
	bench_rng_seed(&rng, 42);
	for (int r = 0; r < n; r++) {
		remount(c);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			bench_die("open big file");
		uint64_t pages = (uint64_t)c->mib * MIB / 4096, t0 = bench_now_ns();
		for (int i = 0; i < c->reads; i++) {
			off_t off = (off_t)(bench_rng_below(&rng, pages) * 4096);
			if (pread(fd, buf, 4096, off) != 4096)
				bench_die("pread big file");
		}
		s[r] = ms_since(t0) * 1000 / c->reads;
		close(fd);
	}
	bench_report("filebench", "rand_read_4k", "us", s, n);
}

/* create_unlink: files small files created, then unlinked; us per file. */
static void small_files(const struct cfg *c)
{
	double s[BENCH_MAX_RUNS];
	char path[512], name[32];
	int n = bench_runs();
	memset(buf, 'x', SMALL_BYTES);
	for (int r = 0; r < n; r++) {
		uint64_t t0 = bench_now_ns();
		for (int i = 0; i < c->files; i++) {
			snprintf(name, sizeof name, "small-%d", i);
			join(path, c->dir, name);
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0 || write(fd, buf, SMALL_BYTES) != SMALL_BYTES || close(fd) != 0)
				bench_die("create small file");
		}
		for (int i = 0; i < c->files; i++) {
			snprintf(name, sizeof name, "small-%d", i);
			join(path, c->dir, name);
			if (unlink(path) != 0)
				bench_die("unlink small file");
		}
		s[r] = ms_since(t0) * 1000 / c->files;
	}
	bench_report("filebench", "create_unlink", "us", s, n);
}

/* fsync_4k: append 4 KiB + fsync, fsyncs times per run; us per pair. */
static void fsync_latency(const struct cfg *c)
{
	double s[BENCH_MAX_RUNS];
	char path[512];
	int n = bench_runs();
	join(path, c->dir, "fsync-log");
	memset(buf, 'l', 4096);
	for (int r = 0; r < n; r++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (fd < 0 || fsync(fd) != 0)
			bench_die("create fsync log");
		uint64_t t0 = bench_now_ns();
		for (int i = 0; i < c->fsyncs; i++)
			if (write(fd, buf, 4096) != 4096 || fsync(fd) != 0)
				bench_die("append + fsync");
		s[r] = ms_since(t0) * 1000 / c->fsyncs;
		close(fd);
	}
	unlink(path);
	bench_report("filebench", "fsync_4k", "us", s, n);
}

/* dev_read: the device read in CHUNK reads, each run at a new place in
 * its second half (never read before, so never cached). */
static void device_read(const struct cfg *c)
{
	double s[BENCH_MAX_RUNS];
	int n = bench_runs(), fd = c->dev ? open(c->dev, O_RDONLY) : -1;
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	if (fd < 0 || size < 2 * n * c->mib * MIB) {
		bench_skip("filebench", "dev_read_64M", fd < 0 ? "no --dev" : "device too small");
		if (fd >= 0)
			close(fd);
		return;
	}
	for (int r = 0; r < n; r++) {
		off_t at = size / 2 + (off_t)r * c->mib * MIB;
		uint64_t t0 = bench_now_ns();
		for (long i = 0; i < c->mib; i++)
			if (pread(fd, buf, CHUNK, at + i * CHUNK) != CHUNK)
				bench_die("read device");
		s[r] = ms_since(t0);
	}
	close(fd);
	bench_report("filebench", "dev_read_64M", "ms", s, n);
}

static void usage(void)
{
	fprintf(stderr, "usage: filebench [--dev DEV --mnt DIR] [--dir DIR] [--quick] [--runs N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct cfg c = { NULL, "/mnt", "/tmp", 64, 1000, 100, 1024 };
	char path[512];
	bench_init(&argc, argv, "filebench");
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--dev"))
			c.dev = argv[++i];
		else if (!strcmp(argv[i], "--mnt"))
			c.mnt = argv[++i];
		else if (!strcmp(argv[i], "--dir"))
			c.dir = argv[++i];
		else
			usage();
	}
	if (bench_quick()) {
		c.mib = 1, c.files = 10, c.fsyncs = 4, c.reads = 16;
	}
	if (!(buf = malloc(CHUNK)))
		bench_die("malloc");
	if (c.dev) {
		mount_dev(&c);
		c.dir = c.mnt;
	}
	join(path, c.dir, "filebench-big");
	sequential(&c, path);
	mapped(&c, path);
	random_reads(&c, path);
	unlink(path);
	small_files(&c);
	exec_cached(&c, argv[0]);
	fsync_latency(&c);
	device_read(&c);
	if (c.dev && syscall(SYS_umount2, c.mnt, 0L) != 0)
		bench_die("umount");
	return bench_finish();
}
