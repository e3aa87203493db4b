/* libc/malloc_span.c -- spans: whole pages from mmap, and what happens to
 * them when malloc no longer needs them (see libc/malloc_impl.h).
 *
 * A released span is kept in a cache (most recent first) so the next
 * request of the same size reuses it without a system call. Its pages
 * beyond the first (which holds the header) are first given back to the
 * kernel as the environment variable MALLOC_PURGE says:
 *
 *   free      madvise(MADV_FREE): the kernel may take the pages when it
 *             needs memory; if it did not, reuse costs nothing (default)
 *   dontneed  madvise(MADV_DONTNEED): dropped now; reuse zero-fills
 *   munmap    the span is unmapped at once and never cached
 *   none      nothing: the pages stay resident
 *
 * This is jemalloc's decay with a decay time of zero: its "dirty -> muzzy"
 * step is MADV_FREE, "muzzy -> clean" is MADV_DONTNEED / munmap. The cache
 * holds at most CACHE_MAX_PAGES; beyond that the oldest spans are unmapped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "malloc_impl.h"

#define CACHE_MAX_PAGES 8192      /* 32 MiB of released spans kept for reuse */
#define CACHE_SLACK_DIV 4         /* reuse a span up to 1/4 larger than asked */

enum purge { PURGE_FREE, PURGE_DONTNEED, PURGE_MUNMAP, PURGE_NONE, PURGE_UNSET };

static enum purge purge = PURGE_UNSET;
static struct span *cache_head, *cache_tail;
static size_t cache_pages;

/* The policy from MALLOC_PURGE, read once (unknown values: the default). */
static enum purge purge_policy(void)
{
	static const char *const names[] = { "free", "dontneed", "munmap", "none" };

	if (purge == PURGE_UNSET) {
		const char *v = getenv("MALLOC_PURGE");
		purge = PURGE_FREE;
		for (int i = 0; v && i < PURGE_UNSET; i++)
			if (strcmp(v, names[i]) == 0)
				purge = (enum purge)i;
	}
	return purge;
}

static void cache_unlink(struct span *s)
{
	*(s->prev ? &s->prev->next : &cache_head) = s->next;
	*(s->next ? &s->next->prev : &cache_tail) = s->prev;
	cache_pages -= s->pages;
}

static void cache_push(struct span *s)
{
	s->prev = NULL;
	s->next = cache_head;
	*(cache_head ? &cache_head->prev : &cache_tail) = s;
	cache_head = s;
	cache_pages += s->pages;
}

/* A cached span of pages..pages + pages/CACHE_SLACK_DIV pages, or NULL. */
static struct span *cache_take(size_t pages)
{
	for (struct span *s = cache_head; s; s = s->next) {
		if (s->pages >= pages && s->pages <= pages + pages / CACHE_SLACK_DIV) {
			cache_unlink(s);
			return s;
		}
	}
	return NULL;
}

/* Fresh pages from the kernel, aligned to SPAN_ALIGN (map more, trim). */
static struct span *span_map(size_t pages)
{
	size_t len = pages * MALLOC_PAGE, maplen = len + SPAN_ALIGN - MALLOC_PAGE;
	if (pages > (SIZE_MAX - SPAN_ALIGN) / MALLOC_PAGE) {
		errno = ENOMEM;
		return NULL;
	}
	char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *start = (char *)(((uintptr_t)p + SPAN_ALIGN - 1) & ~(SPAN_ALIGN - 1));
	if (start > p)
		munmap(p, (size_t)(start - p));
	if (p + maplen > start + len)
		munmap(start + len, (size_t)(p + maplen - (start + len)));
	return (struct span *)start;
}

struct span *span_alloc(size_t pages)
{
	struct span *s = cache_take(pages);
	if (!s)
		s = span_map(pages);
	if (!s)
		return NULL;
	size_t got = s->pages ? s->pages : pages;   /* fresh pages read as zero */
	memset(s, 0, sizeof(*s));
	s->pages = got;
	s->magic = SPAN_MAGIC;
	return s;
}

void span_release(struct span *s)
{
	enum purge how = purge_policy();
	size_t len = s->pages * MALLOC_PAGE;
	s->magic = 0;
	if (how == PURGE_MUNMAP) {
		munmap(s, len);
		return;
	}
	if (how == PURGE_FREE || how == PURGE_DONTNEED)
		madvise((char *)s + MALLOC_PAGE, len - MALLOC_PAGE,
			how == PURGE_FREE ? MADV_FREE : MADV_DONTNEED);
	cache_push(s);
	while (cache_pages > CACHE_MAX_PAGES) {
		struct span *old = cache_tail;
		cache_unlink(old);
		munmap(old, old->pages * MALLOC_PAGE);
	}
}
