/* fs/ext2/dirindex.c -- a big directory's names hashed in memory (see
 * dirindex.h). */
#include "fs/ext2/dirindex.h"
#include "lib/errno.h"
#include "mm/frame/kmalloc.h"

#define DX_FIRST_BUCKETS 64

/* One entry of the directory: where it is, by its name's hash. */
struct dx_name {
	uint32_t hash, lblk;
	uint16_t at;
	struct dx_name *next;
};

uint32_t dx_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

struct ext2_dir_index *dx_new(void)
{
	struct ext2_dir_index *dx = kzalloc(sizeof(*dx));
	if (dx && !(dx->bucket = kzalloc(DX_FIRST_BUCKETS * sizeof(*dx->bucket)))) {
		kfree(dx);
		return NULL;
	}
	if (dx)
		dx->nbuckets = DX_FIRST_BUCKETS;
	return dx;
}

void dx_free(struct ext2_dir_index *dx)
{
	if (!dx)
		return;
	for (uint32_t b = 0; b < dx->nbuckets; b++)
		for (struct dx_name *n = dx->bucket[b], *next; n; n = next) {
			next = n->next;
			kfree(n);
		}
	kfree(dx->bucket);
	kfree(dx->room);
	kfree(dx);
}

/* Twice the buckets, every name moved over (no memory: as it was). */
static void grow(struct ext2_dir_index *dx)
{
	uint32_t nb = dx->nbuckets * 2;
	struct dx_name **bucket = kzalloc(nb * sizeof(*bucket));
	if (!bucket)
		return;   /* longer chains, still right */
	for (uint32_t b = 0; b < dx->nbuckets; b++)
		for (struct dx_name *n = dx->bucket[b], *next; n; n = next) {
			next = n->next;
			n->next = bucket[n->hash & (nb - 1)];
			bucket[n->hash & (nb - 1)] = n;
		}
	kfree(dx->bucket);
	dx->bucket = bucket;
	dx->nbuckets = nb;
}

int dx_insert(struct ext2_dir_index *dx, uint32_t hash, uint32_t lblk, uint16_t at)
{
	struct dx_name *n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = (struct dx_name){ hash, lblk, at, dx->bucket[hash & (dx->nbuckets - 1)] };
	dx->bucket[hash & (dx->nbuckets - 1)] = n;
	if (++dx->count > 2 * dx->nbuckets)
		grow(dx);
	return 0;
}

bool dx_remove(struct ext2_dir_index *dx, uint32_t hash, uint32_t lblk, uint16_t at)
{
	for (struct dx_name **p = &dx->bucket[hash & (dx->nbuckets - 1)]; *p; p = &(*p)->next)
		if ((*p)->lblk == lblk && (*p)->at == at) {
			struct dx_name *n = *p;
			*p = n->next;
			kfree(n);
			dx->count--;
			return true;
		}
	return false;
}

bool dx_next(const struct ext2_dir_index *dx, uint32_t hash, struct dx_cursor *c)
{
	const struct dx_name *n = c->n ? ((const struct dx_name *)c->n)->next
				       : dx->bucket[hash & (dx->nbuckets - 1)];
	while (n && n->hash != hash)
		n = n->next;
	c->n = n;
	if (n)
		c->lblk = n->lblk, c->at = n->at;
	return n != NULL;
}

int dx_set_room(struct ext2_dir_index *dx, uint32_t lblk, uint16_t room)
{
	if (lblk >= dx->nblocks) {
		uint32_t n = dx->nblocks ? dx->nblocks : 8;
		while (n <= lblk)
			n *= 2;
		uint16_t *r = kzalloc(n * sizeof(*r));
		if (!r)
			return -ENOMEM;
		for (uint32_t i = 0; i < dx->nblocks; i++)
			r[i] = dx->room[i];
		kfree(dx->room);
		dx->room = r, dx->nblocks = n;
	}
	dx->room[lblk] = room;
	return 0;
}

uint32_t dx_block_with_room(const struct ext2_dir_index *dx, uint32_t need, uint32_t nblocks)
{
	for (uint32_t l = 0; l < nblocks && l < dx->nblocks; l++)
		if (dx->room[l] >= need)
			return l;
	return DX_NONE;
}
