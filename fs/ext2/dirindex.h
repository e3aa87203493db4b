/* fs/ext2/dirindex.h -- a big directory's entries indexed in memory.
 *
 * An ext2 directory is a list of entries in blocks; finding a name (or
 * room for a new one) means reading all of them. For a directory of more
 * than one block, dir.c builds this index by one scan the first time it
 * needs it and keeps it true at each change, so a lookup, an add or a
 * remove reads one block:
 *
 *   names:  hash(name) --> { block, offset } -> { block, offset } ...
 *           (a chain per bucket: names whose hashes collide are told
 *           apart by reading the entry)
 *   room:   block 0: 12   block 1: 0   block 2: 3800 ...
 *           (the largest entry each block can take: an add goes to the
 *           first block with room enough)
 *
 * Nothing of it is on the disk: Linux's ext2 scans the blocks, its ext4
 * driver reads the dir_index tree that directories here give up when they
 * change (dir.c clears EXT2_INDEX_FL). An offset never moves while its
 * entry lives (an add splits an entry's slack, a remove merges an entry
 * into the one before it), so entries stay where the index says.
 *
 * Who changes what: dir.c only, under the directory's inode->lock; the
 * index lives as long as the in-memory inode (ext2_inode.dx, freed with
 * it) unless dir.c drops it at damage. Errors: -ENOMEM (the caller drops
 * the index and scans); never panics.
 */
#ifndef FS_EXT2_DIRINDEX_H
#define FS_EXT2_DIRINDEX_H

#include "lib/types.h"

#define DX_NONE 0xffffffffu   /* dx_block_with_room: no block has room */

struct dx_name;

struct ext2_dir_index {
	struct dx_name **bucket;   /* nbuckets chains (a power of two) */
	uint32_t nbuckets, count;  /* count: names in it */
	uint16_t *room;            /* by block: the largest entry it can take */
	uint32_t nblocks;          /* entries of room (some past the directory's end: 0) */
};

/* Where dx_next is in a chain, and the entry it found. */
struct dx_cursor {
	const void *n;             /* NULL: at the start */
	uint32_t lblk;
	uint16_t at;
};

/* The hash of a name (FNV-1a: spreads short names that differ at the end). */
uint32_t dx_hash(const char *name, size_t len);

/* An empty index, or NULL (no memory). */
struct ext2_dir_index *dx_new(void);

/* Free dx and all it holds (NULL: nothing). */
void dx_free(struct ext2_dir_index *dx);

/* A name of that hash lives at block lblk, offset at: 0 or -ENOMEM. */
int dx_insert(struct ext2_dir_index *dx, uint32_t hash, uint32_t lblk, uint16_t at);

/* The name of that hash at lblk/at is gone: true if it was indexed. */
bool dx_remove(struct ext2_dir_index *dx, uint32_t hash, uint32_t lblk, uint16_t at);

/* The next entry whose name has this hash (c zeroed to start): true with
 * c->lblk and c->at set, false when there is none left. */
bool dx_next(const struct ext2_dir_index *dx, uint32_t hash, struct dx_cursor *c);

/* Block lblk can take an entry of room bytes: 0 or -ENOMEM. */
int dx_set_room(struct ext2_dir_index *dx, uint32_t lblk, uint16_t room);

/* The first of the directory's nblocks blocks with room for an entry of
 * need bytes, or DX_NONE. */
uint32_t dx_block_with_room(const struct ext2_dir_index *dx, uint32_t need, uint32_t nblocks);

#endif
