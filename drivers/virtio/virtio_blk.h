/* drivers/virtio/virtio_blk.h -- the virtio block device (the virtio 1.0
 * spec's section 5.2) as disks of the block layer: /dev/vda, vdb, ...
 *
 * A request is three descriptors in the disk's one queue:
 *
 *   [ header: type, sector ] -> [ data: len bytes ] -> [ status: 1 byte ]
 *     device reads              device writes it       device writes it
 *                               for a read
 *
 * (a flush has no data). Several are in flight at once, from any CPU; the
 * device's MSI-X interrupt (on the boot CPU) completes them. Who changes
 * what: the disk's queue, its slots and the free descriptors change under
 * its lock (LOCK_RANK_BLK_QUEUE), by submitters and by the interrupt.
 */
#ifndef DRIVERS_VIRTIO_VIRTIO_BLK_H
#define DRIVERS_VIRTIO_VIRTIO_BLK_H

/* Find and start every virtio block device, registering each with the
 * block layer in PCI order (vda, vdb, ...). How many were started; one
 * that fails is reported and left out. Once, at boot, after pci_scan. */
int virtio_blk_probe(void);

#endif
