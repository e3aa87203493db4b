/* drivers/virtio/virtqueue.h -- a virtio 1.0 split virtqueue (the spec's
 * section 2.4): how a driver hands buffers to a device and gets them back.
 *
 *   one page, shared with the device:
 *   +-----------------------+----------------------+---------------------+
 *   | descriptor table      | available ring       | used ring           |
 *   | addr len flags next   | flags idx ring[size] | flags idx           |
 *   | x size                | (driver writes)      | {id, len}[size]     |
 *   | (driver writes)       |                      | (device writes)     |
 *   +-----------------------+----------------------+---------------------+
 *
 * The driver chains free descriptors into one request (device-readable
 * buffers first, then device-writable ones), puts the head's index in the
 * available ring and bumps avail->idx; the device, once notified, consumes
 * it and puts {head, bytes written} in the used ring, bumping used->idx.
 * Free descriptors form a list through `next`.
 *
 * Who changes what: the owner of the queue (a driver, under its queue lock)
 * calls every function here; the device writes only the used ring. Plain
 * memory: no hardware access, so the host unit test drives it as a device
 * would. Errors: vq_add returns -ENOSPC when too few descriptors are free.
 */
#ifndef DRIVERS_VIRTIO_VIRTQUEUE_H
#define DRIVERS_VIRTIO_VIRTQUEUE_H

#include "lib/types.h"

#define VQ_MAX_SIZE 128   /* descriptors; the three parts fit one page */

#define VQ_DESC_NEXT 1    /* the chain goes on at `next` */
#define VQ_DESC_WRITE 2   /* the device writes this buffer */

struct vq_desc {
	uint64_t addr;      /* physical */
	uint32_t len;
	uint16_t flags, next;
};

struct vq_avail {
	uint16_t flags, idx;
	uint16_t ring[VQ_MAX_SIZE];
};

struct vq_used_elem {
	uint32_t id, len;
};

struct vq_used {
	uint16_t flags, idx;
	struct vq_used_elem ring[VQ_MAX_SIZE];
};

/* One buffer of a request. */
struct vq_buf {
	paddr_t pa;
	uint32_t len;
	bool device_writes;
};

struct virtq {
	uint16_t size;                 /* descriptors, a power of two <= VQ_MAX_SIZE */
	uint16_t free_head, num_free;
	uint16_t last_used;            /* used->idx as far as vq_pop has read */
	struct vq_desc *desc;
	struct vq_avail *avail;
	volatile struct vq_used *used;
	paddr_t desc_pa, avail_pa, used_pa;
	void *token[VQ_MAX_SIZE];      /* the caller's per request, by head */
	uint32_t bad_used;             /* used entries naming no request (skipped) */
	uint16_t index;                /* the device's queue number */
	volatile uint16_t *doorbell;   /* set by the transport (virtio_queue_setup) */
};

/* Bytes of ring memory a queue of `size` needs (<= one page). */
size_t vq_mem_size(uint16_t size);

/* Lay q out in zeroed memory `mem` at physical `pa` (vq_mem_size bytes),
 * every descriptor free. size: a power of two, 1..VQ_MAX_SIZE. */
void vq_init(struct virtq *q, uint16_t size, void *mem, paddr_t pa);

/* Chain bufs[0..n) into one request named by token (not NULL) and make it
 * available: 0, or -ENOSPC (fewer than n descriptors free; nothing done),
 * -EINVAL (n is 0 or above the queue's size). The caller then notifies
 * the device. */
int vq_add(struct virtq *q, const struct vq_buf *bufs, int n, void *token);

/* The next request the device has finished: its token, with the bytes the
 * device wrote in *len; its descriptors are free again. NULL when none is
 * finished. A used entry naming no request in flight (a device bug) is
 * skipped and counted in bad_used. */
void *vq_pop(struct virtq *q, uint32_t *len);

#endif
