/* user/memtouch.c -- anonymous memory written and checked, every byte:
 *
 *   memtouch [-s SWAPDEV] MIB [ROUNDS]
 *
 * Maps MIB MiB, then ROUNDS times (default 2) fills every byte with a
 * pattern of (offset, round) and reads every byte back; prints the time and
 * the swap traffic of each round and the bytes found wrong. With more MiB
 * than RAM it runs only over swap (make run MEM=64M SWAP=512M
 * CMD='memtouch 384'). -s turns swap on at SWAPDEV first (swapon(2); EBUSY
 * is fine). Exit status 0 if every byte was right, 1 if not, 2 on bad
 * arguments, 3 when the memory or swap cannot be had.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/procfs.h>

/* The 8 bytes at byte offset off (a multiple of 8) in round r: each byte
 * of them differs with the offset, the page and the round. */
static uint64_t pattern(uint64_t off, unsigned round)
{
	return (off * 0x0101010101010101ull) ^ (off >> 12 << 32) ^ (round * 0x5b5b5b5b5b5b5b5bull);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* One round: fill, check (8 bytes at a time, every byte compared); the
 * bytes wrong. */
static uint64_t round_once(volatile uint64_t *m, uint64_t len, unsigned r)
{
	uint64_t bad = 0;
	for (uint64_t i = 0; i < len / 8; i++)
		m[i] = pattern(i * 8, r);
	for (uint64_t i = 0; i < len / 8; i++) {
		uint64_t x = m[i] ^ pattern(i * 8, r);
		for (; x; x >>= 8)
			bad += (x & 0xff) != 0;
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int a = 1;
	if (a + 1 < argc && !strcmp(argv[a], "-s"))
		dev = argv[a + 1], a += 2;
	char *end = NULL;
	uint64_t mib = a < argc ? strtoull(argv[a], &end, 10) : 0;
	unsigned rounds = a + 1 < argc ? (unsigned)atoi(argv[a + 1]) : 2;
	if (!mib || *end || !rounds || a + 2 < argc) {
		fprintf(stderr, "usage: memtouch [-s SWAPDEV] MIB [ROUNDS]\n");
		return 2;
	}
	if (dev && syscall(SYS_swapon, dev, 0) != 0 && errno != EBUSY) {
		perror(dev);
		return 3;
	}
	uint64_t len = mib << 20, bad = 0;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("memtouch: mmap");
		return 3;
	}
	for (unsigned r = 1; r <= rounds; r++) {
		long long in0 = procfs_vmstat("pswpin"), out0 = procfs_vmstat("pswpout");
		double t0 = now();
		uint64_t b = round_once(m, len, r);
		printf("memtouch: round %u: %llu MiB written and read back in %.1f s, %llu bytes wrong; "
		       "swap: %lld pages in, %lld out\n", r, (unsigned long long)mib, now() - t0,
		       (unsigned long long)b, procfs_vmstat("pswpin") - in0,
		       procfs_vmstat("pswpout") - out0);
		bad += b;
	}
	munmap(m, len);
	return bad ? 1 : 0;
}
