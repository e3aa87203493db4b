/* pagoda/filecache.h -- ask the kernel for an open file's page cache.
 *
 * long pagoda_filecache(int fd, struct pagoda_cachenode *buf, long max)
 *   System call 1006 (SYS_pagoda_filecache). Describes the page cache of
 *   the file fd is open on (mm/pagecache.h): the nodes of its tree, root
 *   first, then depth first in index order, each followed by what its
 *   slots hold (nodes below, or pages), so a parent always comes before
 *   its children:
 *
 *     node 1 (level 2, indices 0..4095)
 *       node 2 (level 1, indices 0..63)      page 0, page 1, ... page 63
 *       node 3 (level 1, indices 64..127)    page 64, page 70
 *
 *   Fills buf[0 .. min(n, max)) and returns n, the number of nodes and
 *   pages (call again with a larger buffer when n > max). The picture is
 *   one moment's: the cache may change as soon as the call returns. -1
 *   with errno EBADF (fd not open), EINVAL (the file has no page cache: a
 *   pipe, a /proc file; or max < 0), EFAULT (bad buf), ENOSYS on kernels
 *   without it (Linux). cachedraw (user/cachedraw.c) draws it.
 */
#ifndef PAGODA_FILECACHE_H
#define PAGODA_FILECACHE_H

#include <stdint.h>

/* pagoda_cachenode.kind */
#define PCN_NODE 1
#define PCN_PAGE 2

/* pagoda_cachenode.flags of a page: the kernel's page-cache states */
#define PCN_UPTODATE  0x1u   /* holds the file's bytes */
#define PCN_DIRTY     0x2u   /* changed since it was last written out */
#define PCN_LOCKED    0x4u   /* being read in */
#define PCN_WRITEBACK 0x8u   /* being written out */

/* Most entries one call fills; more are counted, not copied. */
#define PAGODA_FILECACHE_MAX 4096

struct pagoda_cachenode {
	uint32_t id;          /* its place in the answer, from 1             */
	uint32_t parent;      /* the id of the node whose slot holds it; 0: the root */
	uint32_t kind;        /* PCN_NODE, PCN_PAGE                           */
	uint32_t slot;        /* its slot in the parent (0..63)               */
	uint64_t index;       /* a page: its index in the file (offset / 4096);
	                         a node: the first index below it             */
	uint64_t pa;          /* a page: its frame's physical address; a node: 0 */
	uint32_t level;       /* a node: 1 holds pages, 2 nodes of level 1, ... */
	uint32_t flags;       /* a page: PCN_* */
	uint32_t refs;        /* a page: references to its frame (1: the cache's
	                         alone; each mapping and each user adds one)   */
	uint32_t dirty_sectors; /* a page: bit s set = 512-byte sector s dirty */
};

#endif
