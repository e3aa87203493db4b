/* drivers/virtio/virtio_pci.c -- the virtio PCI transport (see virtio_pci.h). */
#include "drivers/virtio/virtio_pci.h"
#include "lib/errno.h"
#include "lib/printk.h"

enum { CFG_COMMON = 1, CFG_NOTIFY = 2, CFG_ISR = 3, CFG_DEVICE = 4 };
enum {
	STATUS_ACKNOWLEDGE = 1, STATUS_DRIVER = 2, STATUS_DRIVER_OK = 4,
	STATUS_FEATURES_OK = 8, STATUS_FAILED = 128,
};
#define NO_VECTOR 0xffff

/* Where capability cap (cfg_type, bar, offset, length) points, or NULL;
 * its length in *len. */
static volatile void *cap_ptr(const struct pci_dev *pci, unsigned cap, uint64_t min_len,
			      uint32_t *len)
{
	uint8_t bar = pci_read8(pci, cap + 4);
	uint32_t off = pci_read32(pci, cap + 8);
	*len = pci_read32(pci, cap + 12);
	return *len < min_len ? NULL : pci_bar_ptr(pci, bar, off, *len);
}

int virtio_pci_open(struct virtio_dev *v, struct pci_dev *pci)
{
	*v = (struct virtio_dev){ .pci = pci };
	for (unsigned cap = pci_cap_next(pci, PCI_CAP_VENDOR, 0); cap;
	     cap = pci_cap_next(pci, PCI_CAP_VENDOR, cap)) {
		uint8_t type = pci_read8(pci, cap + 3);
		uint32_t len;
		if (type == CFG_COMMON && !v->common)
			v->common = cap_ptr(pci, cap, sizeof(struct virtio_common_cfg), &len);
		else if (type == CFG_NOTIFY && !v->notify) {
			v->notify = cap_ptr(pci, cap, 2, &v->notify_len);
			v->notify_mult = pci_read32(pci, cap + 16);
		} else if (type == CFG_DEVICE && !v->device_cfg)
			v->device_cfg = cap_ptr(pci, cap, 1, &len);
	}
	if (!v->common || !v->notify || !v->device_cfg)
		return -ENODEV;   /* a legacy-only device, or capabilities out of reach */
	pci_enable(pci);
	v->common->device_status = 0;   /* reset: reads 0 once done */
	for (int i = 0; i < 1000000 && v->common->device_status; i++)
		__builtin_ia32_pause();
	if (v->common->device_status)
		return -ENODEV;
	v->common->device_status = STATUS_ACKNOWLEDGE | STATUS_DRIVER;
	return 0;
}

int virtio_negotiate(struct virtio_dev *v, uint64_t wanted)
{
	volatile struct virtio_common_cfg *c = v->common;
	uint64_t offered = 0;
	for (uint32_t half = 0; half < 2; half++) {
		c->device_feature_select = half;
		offered |= (uint64_t)c->device_feature << (32 * half);
	}
	v->features = offered & (wanted | 1ull << VIRTIO_F_VERSION_1);
	if (!(v->features & 1ull << VIRTIO_F_VERSION_1))
		goto fail;
	for (uint32_t half = 0; half < 2; half++) {
		c->driver_feature_select = half;
		c->driver_feature = (uint32_t)(v->features >> (32 * half));
	}
	c->device_status = c->device_status | STATUS_FEATURES_OK;
	if (!(c->device_status & STATUS_FEATURES_OK))
		goto fail;
	c->msix_config = NO_VECTOR;   /* no configuration-change interrupts */
	return 0;
fail:
	virtio_fail(v);
	return -ENODEV;
}

uint16_t virtio_queue_max(struct virtio_dev *v, uint16_t index)
{
	v->common->queue_select = index;
	return v->common->queue_size;
}

int virtio_queue_setup(struct virtio_dev *v, uint16_t index, struct virtq *q, uint16_t msix_entry)
{
	volatile struct virtio_common_cfg *c = v->common;
	c->queue_select = index;
	if (c->queue_size < q->size || c->queue_enable)
		return -ENODEV;
	c->queue_size = q->size;
	c->queue_desc = q->desc_pa;
	c->queue_driver = q->avail_pa;
	c->queue_device = q->used_pa;
	c->queue_msix_vector = msix_entry;
	if (c->queue_msix_vector != msix_entry)
		return -ENODEV;   /* the device could not take the vector */
	uint64_t bell = (uint64_t)c->queue_notify_off * v->notify_mult;
	if (bell + 2 > v->notify_len)
		return -ENODEV;
	q->index = index;
	q->doorbell = (volatile uint16_t *)(v->notify + bell);
	c->queue_enable = 1;
	return 0;
}

void virtio_notify(struct virtq *q)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* the ring before the doorbell */
	*q->doorbell = q->index;
}

void virtio_ready(struct virtio_dev *v)
{
	v->common->device_status = v->common->device_status | STATUS_DRIVER_OK;
}

void virtio_fail(struct virtio_dev *v)
{
	v->common->device_status = v->common->device_status | STATUS_FAILED;
}
