/* libc/malloc_impl.h -- Pagoda's malloc, internals shared by its files.
 *
 * Everything malloc hands out lives in a SPAN: a run of whole pages from
 * mmap, aligned to SPAN_ALIGN, with a struct span header at its start.
 * Because a pointer is always within SPAN_ALIGN bytes of its span's start,
 * free() finds the header by rounding the pointer down:
 *
 *   SPAN_ALIGN boundary
 *   |
 *   v
 *   +--------+------------------------------------------+
 *   | header | small run: objects of one size class     |  RUN_PAGES pages
 *   +--------+------------------------------------------+
 *   | header | one large block (size > SMALL_MAX)       |  as many as needed
 *   +--------+------------------------------------------+
 *
 * Small sizes (<= SMALL_MAX) are rounded up to a size class and served from
 * runs of that class (malloc.c); larger ones get a span each. Free spans go
 * to malloc_span.c, which returns their pages to the kernel according to
 * MALLOC_PURGE (see there) and keeps them for reuse.
 *
 * Single-threaded (Pagoda has no threads); not async-signal-safe.
 */
#ifndef LIBC_MALLOC_IMPL_H
#define LIBC_MALLOC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#define MALLOC_PAGE 4096UL
#define SPAN_ALIGN (64UL << 10)          /* every span starts on this boundary */
#define SPAN_HDR 64                      /* header bytes; objects start after */
#define RUN_PAGES (SPAN_ALIGN / MALLOC_PAGE)   /* a small run: one SPAN_ALIGN */
#define SMALL_MAX 8192                   /* larger requests get their own span */
#define MALLOC_ALIGN 16                  /* malloc's alignment guarantee */
#define SPAN_MAGIC 0x5350414eu           /* "SPAN" */

enum span_kind { SPAN_RUN = 1, SPAN_LARGE = 2 };

struct span {
	uint32_t magic;          /* SPAN_MAGIC while allocated */
	uint16_t kind;           /* enum span_kind */
	uint16_t cls;            /* run: its size class */
	size_t pages;            /* length of the span in pages */
	struct span *next, *prev;/* run: class's partial list; free: the cache */
	void *free;              /* run: first freed object (chained in place) */
	uint32_t nfree, nobj;    /* run: free and total objects */
	uint32_t carved;         /* run: objects handed out at least once; the
				  * rest were never touched (no RSS yet) */
};

/* A span of at least `pages` pages (recycled or fresh from mmap), header
 * zeroed except pages; NULL with errno ENOMEM. */
struct span *span_alloc(size_t pages);

/* Give a span back: its pages beyond the first are purged as MALLOC_PURGE
 * says and the span is kept for reuse (or unmapped). */
void span_release(struct span *s);

/* The span holding p, or NULL (with a message on stderr and abort()) if p
 * was not returned by malloc. */
struct span *span_of(const void *p);

#endif
