/* libc/malloc_r.c -- newlib's reentrant allocator entry points, on top of
 * Pagoda's malloc (libc/malloc.c). newlib's own code (stdio, locale, ...)
 * calls these; defining them here keeps newlib's mallocr.o out of the link.
 * Errors are also stored in the reentrancy structure, as newlib expects. */
#include <errno.h>
#include <malloc.h>
#include <reent.h>
#include <stdlib.h>

/* Copy errno into r when p is NULL (an allocation failed). */
static void *note(struct _reent *r, void *p)
{
	if (!p)
		r->_errno = errno;
	return p;
}

void *_malloc_r(struct _reent *r, size_t n) { return note(r, malloc(n)); }
void _free_r(struct _reent *r, void *p) { (void)r; free(p); }
void *_realloc_r(struct _reent *r, void *p, size_t n) { return note(r, realloc(p, n)); }
void *_calloc_r(struct _reent *r, size_t c, size_t n) { return note(r, calloc(c, n)); }
void *_memalign_r(struct _reent *r, size_t a, size_t n) { return note(r, memalign(a, n)); }
void *_valloc_r(struct _reent *r, size_t n) { return note(r, valloc(n)); }
void *_pvalloc_r(struct _reent *r, size_t n) { return note(r, pvalloc(n)); }
size_t _malloc_usable_size_r(struct _reent *r, void *p) { (void)r; return malloc_usable_size(p); }
int _malloc_trim_r(struct _reent *r, size_t pad) { (void)r; return malloc_trim(pad); }
