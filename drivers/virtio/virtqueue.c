/* drivers/virtio/virtqueue.c -- a split virtqueue (see virtqueue.h). */
#include "drivers/virtio/virtqueue.h"
#include "lib/errno.h"

#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

static size_t avail_off(uint16_t size)
{
	return sizeof(struct vq_desc) * size;
}

static size_t used_off(uint16_t size)
{
	return ALIGN4(avail_off(size) + 4 + 2 * (size_t)size + 2);   /* + used_event */
}

size_t vq_mem_size(uint16_t size)
{
	return used_off(size) + 4 + sizeof(struct vq_used_elem) * size + 2;   /* + avail_event */
}

void vq_init(struct virtq *q, uint16_t size, void *mem, paddr_t pa)
{
	char *m = mem;
	*q = (struct virtq){ .size = size, .num_free = size };
	q->desc = (struct vq_desc *)m;
	q->avail = (struct vq_avail *)(m + avail_off(size));
	q->used = (volatile struct vq_used *)(m + used_off(size));
	q->desc_pa = pa, q->avail_pa = pa + avail_off(size), q->used_pa = pa + used_off(size);
	for (uint16_t i = 0; i < size; i++)
		q->desc[i].next = (uint16_t)(i + 1);   /* the free list */
}

int vq_add(struct virtq *q, const struct vq_buf *bufs, int n, void *token)
{
	if (n <= 0 || n > q->size)
		return -EINVAL;
	if (n > q->num_free)
		return -ENOSPC;
	uint16_t head = q->free_head, i = head;
	for (int k = 0; k < n; k++) {
		struct vq_desc *d = &q->desc[i];
		d->addr = bufs[k].pa;
		d->len = bufs[k].len;
		d->flags = (uint16_t)((bufs[k].device_writes ? VQ_DESC_WRITE : 0) |
				      (k + 1 < n ? VQ_DESC_NEXT : 0));
		if (k + 1 < n)
			i = d->next;
	}
	q->free_head = q->desc[i].next;
	q->num_free = (uint16_t)(q->num_free - n);
	q->token[head] = token;
	q->avail->ring[q->avail->idx & (q->size - 1)] = head;
	__atomic_thread_fence(__ATOMIC_RELEASE);   /* the entry before the index */
	__atomic_store_n(&q->avail->idx, (uint16_t)(q->avail->idx + 1), __ATOMIC_RELEASE);
	return 0;
}

/* Give the chain at head back to the free list. */
static void free_chain(struct virtq *q, uint16_t head)
{
	uint16_t i = head, n = 1;
	while ((q->desc[i].flags & VQ_DESC_NEXT) && n < q->size)
		i = q->desc[i].next, n++;
	q->desc[i].next = q->free_head;
	q->desc[i].flags = 0;
	q->free_head = head;
	q->num_free = (uint16_t)(q->num_free + n);
}

void *vq_pop(struct virtq *q, uint32_t *len)
{
	while (q->last_used != __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE)) {
		volatile struct vq_used_elem *e = &q->used->ring[q->last_used & (q->size - 1)];
		uint32_t id = e->id;
		q->last_used++;
		void *token = id < q->size ? q->token[id] : NULL;
		if (!token) {
			q->bad_used++;   /* not a request in flight: the device is wrong */
			continue;
		}
		*len = e->len;
		q->token[id] = NULL;
		free_chain(q, (uint16_t)id);
		return token;
	}
	return NULL;
}
