/*
 * user/bench/bench_mem.h -- anonymous memory for the benchmarks: checked
 * mmap/munmap/madvise and page-by-page touching.
 */
#ifndef BENCH_MEM_H
#define BENCH_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MADV_FREE
#define MADV_FREE 8 /* the Linux x86-64 value; older libc headers lack it */
#endif

#define BENCH_MIB (1024ul * 1024ul)

/* How bench_touch touches each page. */
enum bench_touch_kind {
	BENCH_TOUCH_READ,  /* load one byte (may map a shared zero page) */
	BENCH_TOUCH_WRITE, /* store one byte (needs a private page) */
};

/* Map len bytes of private anonymous read/write memory; dies on failure. */
void *bench_map(size_t len);

/* Unmap a bench_map region; dies on failure. */
void bench_unmap(void *p, size_t len);

/* madvise(p, len, advice); dies on failure, naming `what`. */
void bench_advise(void *p, size_t len, int advice, const char *what);

/* 1 if the kernel accepts madvise `advice` on anonymous memory, 0 if it
 * rejects it with EINVAL (an advice it does not implement); dies otherwise. */
int bench_advice_works(int advice);

/* Touch one byte in every page of [p, p+len). Returns a value derived from
 * the bytes read, so that the compiler keeps the loads. */
uint64_t bench_touch(void *p, size_t len, enum bench_touch_kind kind);

#endif
