/* drivers/pci.h -- the PCI bus: the functions found at boot, their memory
 * BARs, capabilities and MSI-X interrupts.
 *
 * pci_scan walks every bus/device/function through the configuration
 * ports (arch/x86_64/pci_cfg.h) once at boot and records what answers;
 * drivers then find their devices with pci_find. The firmware (SeaBIOS
 * under QEMU) has already placed every BAR; Pagoda keeps its choice.
 *
 *   configuration space of one function (256 bytes)
 *   0x00 vendor | device     0x04 command | status    0x08 class, revision
 *   0x10..0x24 BAR0..BAR5    0x34 first capability -> [id | next | ...] -> ...
 *
 * Who changes what: pci_scan fills the table before any driver runs (one
 * CPU); after that it is read-only. A driver owns its function's command
 * register and MSI-X table.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include "lib/types.h"

#define PCI_MAX_DEVICES 32
#define PCI_CAP_MSIX 0x11
#define PCI_CAP_VENDOR 0x09

struct pci_dev {
	uint32_t bdf;                 /* arch/x86_64/pci_cfg.h's PCI_BDF */
	uint16_t vendor, device;
	uint8_t class, subclass;
	paddr_t bar[6];               /* memory BARs' addresses (0: none, or I/O) */
	uint64_t bar_size[6];
};

/* Find every PCI function (once, at boot): how many. */
int pci_scan(void);

/* The index-th function found (0, 1, ... in bus order), or NULL. */
struct pci_dev *pci_get(int index);

/* The index-th function (0, 1, ...) with this vendor and device id, or NULL. */
struct pci_dev *pci_find(uint16_t vendor, uint16_t device, int index);

/* Configuration registers of d (any width; off aligned to it). */
uint8_t pci_read8(const struct pci_dev *d, unsigned off);
uint16_t pci_read16(const struct pci_dev *d, unsigned off);
uint32_t pci_read32(const struct pci_dev *d, unsigned off);
void pci_write16(const struct pci_dev *d, unsigned off, uint16_t v);
void pci_write32(const struct pci_dev *d, unsigned off, uint32_t v);

/* The offset of d's first capability with this id after offset `after`
 * (0: from the start), or 0 when there is none. */
unsigned pci_cap_next(const struct pci_dev *d, uint8_t id, unsigned after);

/* A pointer to bytes [off, off + len) of memory BAR bar, or NULL when the
 * BAR is not memory, is too small, or lies outside the direct map. */
volatile void *pci_bar_ptr(const struct pci_dev *d, int bar, uint64_t off, uint64_t len);

/* Let d decode its memory BARs and master the bus (DMA). */
void pci_enable(const struct pci_dev *d);

/* Enable d's MSI-X with table entry `entry` sending `vector` to the CPU
 * with APIC id `apic_id` (every other entry masked). 0, or -ENODEV when d
 * has no MSI-X or its table is out of reach, -EINVAL for a bad entry. */
int pci_msix_route(const struct pci_dev *d, unsigned entry, int vector, uint32_t apic_id);

#endif
