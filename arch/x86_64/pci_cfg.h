/* arch/x86_64/pci_cfg.h -- PCI configuration space through the legacy I/O
 * ports 0xCF8/0xCFC (PCI "configuration mechanism #1", which QEMU's i440fx
 * and q35 machines both have): 256 bytes per function.
 *
 *   0xCF8  <-  1 << 31 | bus << 16 | device << 11 | function << 8 | offset
 *   0xCFC  <-> the 32-bit register at that offset
 *
 * A function is named by its bdf: bus << 8 | device << 3 | function. Each
 * access is one address write and one data access under a lock, so CPUs
 * may use it at once. Errors: none (a missing function reads all ones).
 */
#ifndef ARCH_X86_64_PCI_CFG_H
#define ARCH_X86_64_PCI_CFG_H

#include "lib/types.h"

#define PCI_BDF(bus, dev, fn) ((uint32_t)(bus) << 8 | (uint32_t)(dev) << 3 | (uint32_t)(fn))

/* The 32-bit register at offset off & ~3 of function bdf. */
uint32_t pci_cfg_read32(uint32_t bdf, unsigned off);

/* Write the 32-bit register at offset off & ~3 of function bdf. */
void pci_cfg_write32(uint32_t bdf, unsigned off, uint32_t v);

#endif
