/* drivers/virtio/virtio_pci.h -- a virtio 1.0 device on the PCI transport
 * ("modern" virtio: the spec's section 4.1): finding its registers through
 * vendor capabilities, negotiating features, setting up queues.
 *
 *   PCI capability (vendor, 0x09)      points into a memory BAR at
 *   cfg_type 1  COMMON_CFG   ------->  features, status, queue_select,
 *                                      queue_size/desc/driver/device/enable
 *   cfg_type 2  NOTIFY_CFG   ------->  doorbells: queue q at
 *                                      queue_notify_off(q) * multiplier
 *   cfg_type 3  ISR_CFG                (legacy interrupts: not used; MSI-X)
 *   cfg_type 4  DEVICE_CFG   ------->  the device type's own fields
 *
 * Initialisation (section 3.1.1): reset, ACKNOWLEDGE, DRIVER, features,
 * FEATURES_OK (read back), queues, DRIVER_OK. Who changes what: the driver
 * that owns the device, at boot, on one CPU; after DRIVER_OK only the
 * doorbells are written, by the queue's owner under its lock.
 *
 * Errors: -ENODEV when a capability is missing or out of its BAR, the
 * device refuses VIRTIO_F_VERSION_1 or FEATURES_OK, or a queue cannot be
 * set up; the device is then marked FAILED. Never panics.
 */
#ifndef DRIVERS_VIRTIO_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_VIRTIO_PCI_H

#include "drivers/pci.h"
#include "drivers/virtio/virtqueue.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_F_VERSION_1 32

/* The common configuration structure (little-endian, as x86). */
struct virtio_common_cfg {
	uint32_t device_feature_select, device_feature;
	uint32_t driver_feature_select, driver_feature;
	uint16_t msix_config, num_queues;
	uint8_t device_status, config_generation;
	uint16_t queue_select, queue_size, queue_msix_vector, queue_enable, queue_notify_off;
	uint64_t queue_desc, queue_driver, queue_device;
};

struct virtio_dev {
	struct pci_dev *pci;
	volatile struct virtio_common_cfg *common;
	volatile uint8_t *notify;       /* the doorbells' base */
	uint32_t notify_mult, notify_len;
	volatile uint8_t *device_cfg;   /* the device type's configuration */
	uint64_t features;              /* negotiated */
};

/* Reset the device at pci and find its registers: 0 or -ENODEV. */
int virtio_pci_open(struct virtio_dev *v, struct pci_dev *pci);

/* Offer the device's features that are also in `wanted` (VERSION_1 always):
 * 0 (v->features set) or -ENODEV. */
int virtio_negotiate(struct virtio_dev *v, uint64_t wanted);

/* Set up queue `index` with q (vq_init'ed; its size at most the device's)
 * and MSI-X table entry `msix_entry`, and find its doorbell: 0 or -ENODEV. */
int virtio_queue_setup(struct virtio_dev *v, uint16_t index, struct virtq *q, uint16_t msix_entry);

/* The largest size the device allows for queue index (0: no such queue). */
uint16_t virtio_queue_max(struct virtio_dev *v, uint16_t index);

/* Ring q's doorbell (after vq_add; under the queue's lock). */
void virtio_notify(struct virtq *q);

/* Tell the device the driver is ready (DRIVER_OK). */
void virtio_ready(struct virtio_dev *v);

/* Give up on the device (FAILED): it stops using its queues. */
void virtio_fail(struct virtio_dev *v);

#endif
