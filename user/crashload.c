/* user/crashload.c -- the workload of the crash test (tests/qemu/crash.py).
 *
 *   crashload [-s SEED] [-g GEN] [-d DIR] [-n FILES]
 *
 * Writes files under DIR/gGEN/ (DIR default /crash) as a program that cares
 * about its data does, and says on stdout which ones the kernel has
 * promised to keep:
 *
 *   DURABLE path size seed [F] path holds size bytes of seed's pattern and
 *                              was fsync'd, and so was its directory: it must
 *                              survive a power-off from now on; F: the
 *                              flushes vda had completed by then
 *                              (/proc/diskstats; absent when it has none),
 *                              so it must be on a disk that kept what came
 *                              before the F-th flush;
 *   REMOVING path / REMOVED path   the file is being unlinked: between the
 *                              two lines it may be there or not; after
 *                              REMOVED (the directory fsync'd) it is gone;
 *   REMOVED-ALL dir            the same for every file of dir said REMOVING;
 *   DONE                       FILES files written (0: never; run until killed).
 *
 * Durable files are never changed again, until the run three generations
 * later removes them (so that the disk never fills). Between them it
 * writes "noise"
 * that is never fsync'd (files rewritten, truncated, renamed, unlinked) so
 * that a power-off finds dirty data, half-written metadata and blocks
 * being allocated and freed. Half of the durable files are written the
 * careful way (a temporary name, fsync, rename over the final name, fsync
 * of the directory), half in place. The host kills QEMU at a random
 * moment, repairs the image with e2fsck -fy and reads every durable file
 * back with debugfs. The pattern is disktests' (byte i = i*31 + seed +
 * i/1000). On Linux it runs in any directory (-d) as the reference.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pagoda/procfs.h>

#include "fuzz_rand.h"

#define NDIRS 4
#define NNOISE 6

static uint64_t rng;
static char top[256];

static uint64_t below(uint64_t n)
{
	return fuzz_rand64(&rng) % n;
}

static void die(const char *what, const char *path)
{
	printf("crashload: FAIL %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* A size that is small, a few blocks, or past the indirect blocks. */
static uint64_t pick_size(void)
{
	switch (below(4)) {
	case 0: return below(3000);
	case 1: return below(40000);
	case 2: return 40000 + below(120000);
	default: return 200000 + below(400000);
	}
}

/* Write size bytes of seed's pattern to fd, in random pieces. */
static void write_pattern(int fd, const char *path, uint64_t size, unsigned seed)
{
	static uint8_t buf[65536];
	uint64_t off = 0;
	while (off < size) {
		uint64_t n = 1 + below(sizeof(buf));
		n = n < size - off ? n : size - off;
		for (uint64_t i = 0; i < n; i++)
			buf[i] = (uint8_t)((off + i) * 31 + seed + (off + i) / 1000);
		ssize_t w = write(fd, buf, n);
		if (w != (ssize_t)n) {
			if (w >= 0)
				errno = ENOSPC;   /* a short write: the disk is full */
			die("write", path);
		}
		off += n;
	}
}

/* fsync a directory (its entries reach the disk). */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd) != 0)
		die("fsync dir", dir);
	close(fd);
}

/* Durable file number i: written, fsync'd, its directory fsync'd, said. */
/* Flush requests disk name has completed (/proc/diskstats' 16th field
 * after the name), or -1 when there is no such line. */
static long flushes_done(const char *name)
{
	unsigned long long f[17];
	return procfs_diskstats(name, f) ? (long)f[15] : -1;
}

static void durable(int i)
{
	char dir[300], path[320], tmp[330];
	snprintf(dir, sizeof(dir), "%s/d%d", top, i % NDIRS);
	snprintf(path, sizeof(path), "%s/f%d", dir, i);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int careful = (int)below(2);
	uint64_t size = pick_size();
	unsigned seed = (unsigned)below(256);
	int fd = open(careful ? tmp : path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", path);
	write_pattern(fd, path, size, seed);
	if (fsync(fd) != 0)
		die("fsync", path);
	close(fd);
	if (careful && rename(tmp, path) != 0)
		die("rename", tmp);
	sync_dir(dir);
	long f = flushes_done("vda");
	printf("DURABLE %s %llu %u", path, (unsigned long long)size, seed);
	printf(f >= 0 ? " %ld\n" : "\n", f);
}

/* Unlink durable file i, saying so around it. */
static void remove_durable(int i)
{
	char dir[300], path[320];
	snprintf(dir, sizeof(dir), "%s/d%d", top, i % NDIRS);
	snprintf(path, sizeof(path), "%s/f%d", dir, i);
	printf("REMOVING %s\n", path);
	if (unlink(path) != 0)
		die("unlink", path);
	sync_dir(dir);
	printf("REMOVED %s\n", path);
}

/* Remove every file of generation gen (three back: the disk stays roomy). */
static void remove_generation(const char *base, long gen)
{
	for (int d = 0; d < NDIRS; d++) {
		char dir[300], path[600];
		snprintf(dir, sizeof(dir), "%s/g%ld/d%d", base, gen, d);
		DIR *dp = opendir(dir);
		struct dirent *e;
		while (dp && (e = readdir(dp))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			printf("REMOVING %s\n", path);
			if (unlink(path) != 0)
				die("unlink", path);
			rewinddir(dp);   /* (the directory changed under readdir) */
		}
		if (dp) {
			closedir(dp);
			sync_dir(dir);
			printf("REMOVED-ALL %s\n", dir);
		}
	}
}

/* One step of noise: never fsync'd, never checked, only in the way. */
static void noise(void)
{
	char path[300], other[300];
	snprintf(path, sizeof(path), "%s/noise/n%d", top, (int)below(NNOISE));
	snprintf(other, sizeof(other), "%s/noise/n%d", top, (int)below(NNOISE));
	int fd;
	switch (below(5)) {
	case 0:
	case 1:
		fd = open(path, O_WRONLY | O_CREAT | (below(2) ? O_TRUNC : O_APPEND), 0644);
		if (fd < 0)
			die("open", path);
		write_pattern(fd, path, pick_size(), 1);
		close(fd);
		break;
	case 2:
		if (truncate(path, (off_t)below(300000)) != 0 && errno != ENOENT)
			die("truncate", path);
		break;
	case 3:
		if (rename(path, other) != 0 && errno != ENOENT)
			die("rename", path);
		break;
	default:
		if (unlink(path) != 0 && errno != ENOENT)
			die("unlink", path);
	}
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("mkdir", path);
}

static void make_tree(const char *base)
{
	char path[300];
	make_dir(base);
	make_dir(top);
	for (int d = 0; d < NDIRS; d++) {
		snprintf(path, sizeof(path), "%s/d%d", top, d);
		make_dir(path);
		sync_dir(path);
	}
	snprintf(path, sizeof(path), "%s/noise", top);
	make_dir(path);
	sync_dir(top);
	sync_dir(base);
	char parent[300];
	snprintf(parent, sizeof(parent), "%s", base);
	char *slash = strrchr(parent, '/');
	if (slash)
		slash[slash == parent] = 0;   /* "/crash" -> "/", "a/b" -> "a" */
	sync_dir(slash ? parent : ".");   /* base's own entry */
}

int main(int argc, char **argv)
{
	const char *base = "/crash";
	long files = 0, gen = 0;
	int opt;
	rng = 1;
	while ((opt = getopt(argc, argv, "s:g:d:n:")) != -1) {
		switch (opt) {
		case 's': rng = strtoull(optarg, NULL, 0); break;
		case 'g': gen = strtol(optarg, NULL, 0); break;
		case 'd': base = optarg; break;
		case 'n': files = strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: crashload [-s SEED] [-g GEN] [-d DIR] [-n FILES]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	snprintf(top, sizeof(top), "%s/g%ld", base, gen);
	make_tree(base);
	if (gen >= 3)
		remove_generation(base, gen - 3);
	printf("crashload: seed %llu gen %ld in %s\n", (unsigned long long)rng, gen, top);
	for (int i = 0; files == 0 || i < files; i++) {
		for (int n = (int)below(4); n > 0; n--)
			noise();
		durable(i);
		if (i >= 4 && below(8) == 0)
			remove_durable(i - 4);
	}
	printf("DONE\n");
	return 0;
}
