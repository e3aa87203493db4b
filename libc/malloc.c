/* libc/malloc.c -- Pagoda's malloc: size classes in runs, large blocks in
 * spans of their own (layout: libc/malloc_impl.h; returning memory to the
 * kernel, MALLOC_PURGE=free|dontneed|munmap|none: libc/malloc_span.c).
 *
 * It replaces newlib's sbrk-based allocator: this file defines malloc,
 * free, realloc, calloc, memalign, valloc, pvalloc, malloc_usable_size and
 * malloc_trim, and libc/malloc_r.c newlib's reentrant _malloc_r family that
 * the rest of newlib (stdio buffers, ...) calls. tools/pagoda-cc links with
 * -u _malloc_r so that these are taken from libpagoda.a before newlib's
 * libc.a is searched: newlib's malloc objects are never pulled in.
 *
 * Small sizes are rounded up to a class (16-byte steps up to 128, then four
 * classes per doubling up to SMALL_MAX); each class has a list of runs with
 * free objects. A run hands out never-used objects in address order first
 * (so a fresh run costs RSS only as it fills) and then reuses freed ones
 * (LIFO, chained through their first word). A run whose objects are all
 * free goes back to the span layer unless it is its class's last run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include "malloc_impl.h"
#include "pthread_impl.h"

volatile int __pagoda_malloc_lock;   /* taken once the program has threads */

#define FINE_MAX 128     /* classes in MALLOC_ALIGN steps up to here */
#define NCLASSES 32

static size_t class_size[NCLASSES];
static unsigned nclasses;
static struct span *partial[NCLASSES];   /* runs with a free object */

/* Fill class_size[]: 16, 32, ... 128, then 160, 192, 224, 256, 320, ... */
static void init_classes(void)
{
	size_t sz = MALLOC_ALIGN;
	while (sz <= SMALL_MAX) {
		class_size[nclasses++] = sz;
		sz += sz < FINE_MAX ? MALLOC_ALIGN : ((size_t)1 << (63 - __builtin_clzl(sz))) / 4;
	}
}

/* The smallest class holding n bytes (n <= SMALL_MAX). */
static unsigned class_of(size_t n)
{
	if (!nclasses)
		init_classes();
	unsigned c = 0;
	while (class_size[c] < n)
		c++;
	return c;
}

struct span *span_of(const void *p)
{
	struct span *s = (struct span *)((uintptr_t)p & ~(SPAN_ALIGN - 1));
	if (s->magic != SPAN_MAGIC || (char *)p < (char *)s + SPAN_HDR) {
		fprintf(stderr, "malloc: %p was not returned by malloc (or freed twice)\n", p);
		abort();
	}
	return s;
}

/* ---- small objects ---- */

static void partial_add(unsigned c, struct span *r)
{
	r->prev = NULL;
	r->next = partial[c];
	if (partial[c])
		partial[c]->prev = r;
	partial[c] = r;
}

static void partial_del(unsigned c, struct span *r)
{
	*(r->prev ? &r->prev->next : &partial[c]) = r->next;
	if (r->next)
		r->next->prev = r->prev;
}

static struct span *run_new(unsigned c)
{
	struct span *r = span_alloc(RUN_PAGES);
	if (!r)
		return NULL;
	r->kind = SPAN_RUN;
	r->cls = (uint16_t)c;
	r->nobj = r->nfree = (uint32_t)((r->pages * MALLOC_PAGE - SPAN_HDR) / class_size[c]);
	partial_add(c, r);
	return r;
}

static void *small_alloc(size_t n)
{
	unsigned c = class_of(n);
	struct span *r = partial[c] ? partial[c] : run_new(c);
	if (!r)
		return NULL;
	void *p;
	if (r->free) {
		p = r->free;
		r->free = *(void **)p;
	} else {
		p = (char *)r + SPAN_HDR + (size_t)r->carved++ * class_size[c];
	}
	if (--r->nfree == 0)
		partial_del(c, r);
	return p;
}

static void small_free(struct span *r, void *p)
{
	unsigned c = r->cls;
	if (((char *)p - (char *)r - SPAN_HDR) % class_size[c]) {
		fprintf(stderr, "malloc: free(%p): not the start of an object\n", p);
		abort();
	}
	if (r->nfree++ == 0)
		partial_add(c, r);
	*(void **)p = r->free;
	r->free = p;
	if (r->nfree == r->nobj && (partial[c] != r || r->next)) {
		partial_del(c, r);          /* empty and not the class's last run */
		span_release(r);
	}
}

/* ---- large blocks ---- */

/* A span for n bytes at offset `off` (>= SPAN_HDR, < SPAN_ALIGN). */
static void *large_alloc(size_t n, size_t off)
{
	if (n > SIZE_MAX - off - MALLOC_PAGE) {
		errno = ENOMEM;
		return NULL;
	}
	struct span *s = span_alloc((off + n + MALLOC_PAGE - 1) / MALLOC_PAGE);
	if (!s)
		return NULL;
	s->kind = SPAN_LARGE;
	return (char *)s + off;
}

/* ---- the C interface ---- */

/* malloc's body under another name: gcc turns "malloc, then memset to
 * zero" into a call to calloc, which must not happen inside calloc. */
static void *alloc(size_t n)
{
	__pagoda_lock(&__pagoda_malloc_lock);
	void *p = n <= SMALL_MAX ? small_alloc(n ? n : 1) : large_alloc(n, SPAN_HDR);
	__pagoda_unlock(&__pagoda_malloc_lock);
	if (!p)
		errno = ENOMEM;
	return p;
}

void *malloc(size_t n)
{
	return alloc(n);
}

void free(void *p)
{
	if (!p)
		return;
	struct span *s = span_of(p);
	__pagoda_lock(&__pagoda_malloc_lock);
	if (s->kind == SPAN_RUN)
		small_free(s, p);
	else
		span_release(s);
	__pagoda_unlock(&__pagoda_malloc_lock);
}

size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	struct span *s = span_of(p);
	if (s->kind == SPAN_RUN)
		return class_size[s->cls];
	return s->pages * MALLOC_PAGE - (size_t)((char *)p - (char *)s);
}

void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (!n) {
		free(p);
		return NULL;
	}
	size_t have = malloc_usable_size(p);
	if (n <= have && (n > SMALL_MAX || have <= SMALL_MAX))
		return p;                   /* fits (and would not be small now) */
	void *q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have < n ? have : n);
	free(p);
	return q;
}

void *calloc(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = alloc(count * size);
	if (p)
		memset(p, 0, count * size);   /* recycled memory is not zero */
	return p;
}

void *memalign(size_t align, size_t n)
{
	if (align & (align - 1)) {
		errno = EINVAL;
		return NULL;
	}
	if (align <= MALLOC_ALIGN)
		return malloc(n);
	if (align > SPAN_ALIGN / 2) {       /* must stay within SPAN_ALIGN of the header */
		errno = ENOMEM;
		return NULL;
	}
	__pagoda_lock(&__pagoda_malloc_lock);
	void *p = large_alloc(n, align > SPAN_HDR ? align : SPAN_HDR);
	__pagoda_unlock(&__pagoda_malloc_lock);
	if (!p)
		errno = ENOMEM;
	return p;
}

void *valloc(size_t n)
{
	return memalign(MALLOC_PAGE, n);
}

void *pvalloc(size_t n)
{
	return memalign(MALLOC_PAGE, (n + MALLOC_PAGE - 1) & ~(MALLOC_PAGE - 1));
}

int malloc_trim(size_t pad)
{
	(void)pad;
	return 0;   /* free spans are purged when they are released */
}
