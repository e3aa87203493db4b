/* mm/frame/kmalloc.h -- kernel heap for small objects.
 *
 * Sizes up to KMALLOC_MAX_SMALL come from power-of-two size classes carved
 * out of single pages (slabs); larger sizes get their own buddy block.
 * With the debug option (kmalloc_debug, cmdline `mm_debug`) every small
 * object carries a header and a redzone after it, and freed objects are
 * poisoned: overruns, double frees and writes after free panic, naming the
 * object, its size and who allocated it.
 */
#ifndef MM_KMALLOC_H
#define MM_KMALLOC_H

#include "lib/types.h"

#define KMALLOC_MAX_SMALL 2048

/* size bytes, 16-byte aligned (page aligned above KMALLOC_MAX_SMALL), or NULL
 * when out of memory. kmalloc(0) returns a valid minimum-size object. */
void *kmalloc(size_t size);

/* kmalloc, zero-filled. */
void *kzalloc(size_t size);

/* Free an object from kmalloc; NULL is ignored. A pointer that is not the
 * start of a live object panics. */
void kfree(void *ptr);

/* Turn the redzone/poison checks on or off; only while no small object is
 * allocated (panics otherwise). */
void kmalloc_set_debug(bool on);
extern bool kmalloc_debug;

/* Small objects currently allocated (leak checks in tests). */
uint64_t kmalloc_live(void);

#endif
