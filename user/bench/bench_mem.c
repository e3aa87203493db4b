/*
 * user/bench/bench_mem.c -- anonymous memory helpers (see bench_mem.h).
 */
#include "bench_mem.h"
#include "bench_util.h"

#include <errno.h>

void *bench_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bench_die("mmap");
	return p;
}

void bench_unmap(void *p, size_t len)
{
	if (munmap(p, len) != 0)
		bench_die("munmap");
}

void bench_advise(void *p, size_t len, int advice, const char *what)
{
	if (madvise(p, len, advice) != 0)
		bench_die(what);
}

int bench_advice_works(int advice)
{
	size_t len = (size_t)bench_page_size();
	void *p = bench_map(len);
	int ok = madvise(p, len, advice) == 0;

	if (!ok && errno != EINVAL)
		bench_die("madvise probe");
	bench_unmap(p, len);
	return ok;
}

uint64_t bench_touch(void *p, size_t len, enum bench_touch_kind kind)
{
	volatile unsigned char *b = p;
	size_t step = (size_t)bench_page_size(), off;
	uint64_t sum = 0;

	for (off = 0; off < len; off += step) {
		if (kind == BENCH_TOUCH_WRITE)
			b[off] = (unsigned char)off;
		else
			sum += b[off];
	}
	return sum;
}
