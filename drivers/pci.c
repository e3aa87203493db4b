/* drivers/pci.c -- the PCI bus (see drivers/pci.h). */
#include "drivers/pci.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pci_cfg.h"
#include "lib/errno.h"
#include "mm/pt/kvm.h"
#include "lib/printk.h"

#define PCI_COMMAND 0x04
#define PCI_COMMAND_MEMORY 0x2
#define PCI_COMMAND_MASTER 0x4
#define PCI_STATUS_CAPS 0x10          /* in the status word (0x06) */
#define PCI_HEADER_TYPE 0x0e
#define PCI_BAR0 0x10
#define PCI_CAP_PTR 0x34
#define MSIX_ENABLE (1u << 15)        /* message control, bits 16-31 of the cap's dword */
#define MSIX_MASK_ALL (1u << 14)

static struct pci_dev devices[PCI_MAX_DEVICES];
static int ndevices;

uint32_t pci_read32(const struct pci_dev *d, unsigned off)
{
	return pci_cfg_read32(d->bdf, off);
}

uint16_t pci_read16(const struct pci_dev *d, unsigned off)
{
	return (uint16_t)(pci_cfg_read32(d->bdf, off) >> (8 * (off & 2)));
}

uint8_t pci_read8(const struct pci_dev *d, unsigned off)
{
	return (uint8_t)(pci_cfg_read32(d->bdf, off) >> (8 * (off & 3)));
}

void pci_write32(const struct pci_dev *d, unsigned off, uint32_t v)
{
	pci_cfg_write32(d->bdf, off, v);
}

void pci_write16(const struct pci_dev *d, unsigned off, uint16_t v)
{
	unsigned shift = 8 * (off & 2);
	uint32_t old = pci_cfg_read32(d->bdf, off);
	pci_cfg_write32(d->bdf, off, (old & ~(0xffffu << shift)) | (uint32_t)v << shift);
}

/* The size of BAR i (its address bits that do not stick when written as
 * ones), with decoding off meanwhile; 0 for an I/O BAR. Returns how many
 * BAR slots it uses (2 for a 64-bit BAR). */
static int bar_probe(struct pci_dev *d, int i)
{
	unsigned off = PCI_BAR0 + 4 * i;
	uint32_t lo = pci_read32(d, off);
	if (lo & 1)
		return 1;   /* I/O space: not used by Pagoda's drivers */
	bool wide = ((lo >> 1) & 3) == 2 && i < 5;
	uint32_t hi = wide ? pci_read32(d, off + 4) : 0;
	pci_write32(d, off, ~0u);
	uint64_t mask = pci_read32(d, off) & ~0xfu;
	pci_write32(d, off, lo);
	if (wide) {
		pci_write32(d, off + 4, ~0u);
		mask |= (uint64_t)pci_read32(d, off + 4) << 32;
		pci_write32(d, off + 4, hi);
	} else {
		mask |= 0xffffffff00000000ull;
	}
	d->bar[i] = ((uint64_t)hi << 32 | lo) & ~0xfull;
	d->bar_size[i] = mask ? ~mask + 1 : 0;
	return wide ? 2 : 1;
}

/* Record function bdf (its vendor id read already). */
static void add(uint32_t bdf, uint32_t id)
{
	if (ndevices == PCI_MAX_DEVICES) {
		printk("pci: more than %d functions, %02x:%02x.%x ignored\n", PCI_MAX_DEVICES,
		       bdf >> 8, (bdf >> 3) & 31, bdf & 7);
		return;
	}
	struct pci_dev *d = &devices[ndevices++];
	*d = (struct pci_dev){ .bdf = bdf, .vendor = id & 0xffff, .device = id >> 16 };
	uint32_t class = pci_read32(d, 0x08);
	d->class = class >> 24, d->subclass = (class >> 16) & 0xff;
	uint16_t cmd = pci_read16(d, PCI_COMMAND);
	pci_write16(d, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);   /* no decoding while sized */
	for (int i = 0; i < 6; i += bar_probe(d, i))
		;
	pci_write16(d, PCI_COMMAND, cmd);
}

/* Record the functions of device dev on bus (function 0 says whether
 * there are others). */
static void scan_slot(unsigned bus, unsigned dev)
{
	for (unsigned fn = 0; fn < 8; fn++) {
		uint32_t bdf = PCI_BDF(bus, dev, fn);
		uint32_t id = pci_cfg_read32(bdf, 0);
		if ((id & 0xffff) == 0xffff) {
			if (fn == 0)
				return;   /* no device here */
			continue;
		}
		add(bdf, id);
		if (fn == 0 && !(pci_cfg_read32(bdf, PCI_HEADER_TYPE & ~3) >> 16 & 0x80))
			return;   /* a single-function device */
	}
}

int pci_scan(void)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++)
			scan_slot(bus, dev);
	printk("pci: %d functions\n", ndevices);
	return ndevices;
}

struct pci_dev *pci_get(int index)
{
	return index >= 0 && index < ndevices ? &devices[index] : NULL;
}

struct pci_dev *pci_find(uint16_t vendor, uint16_t device, int index)
{
	for (int i = 0; i < ndevices; i++)
		if (devices[i].vendor == vendor && devices[i].device == device && index-- == 0)
			return &devices[i];
	return NULL;
}

unsigned pci_cap_next(const struct pci_dev *d, uint8_t id, unsigned after)
{
	if (!(pci_read16(d, 0x06) & PCI_STATUS_CAPS))
		return 0;
	unsigned off = after ? pci_read8(d, after + 1) : pci_read8(d, PCI_CAP_PTR);
	for (int hops = 0; off >= 0x40 && hops < 48; hops++) {   /* a loop in the list ends */
		off &= 0xfc;
		if (pci_read8(d, off) == id)
			return off;
		off = pci_read8(d, off + 1);
	}
	return 0;
}

volatile void *pci_bar_ptr(const struct pci_dev *d, int bar, uint64_t off, uint64_t len)
{
	if (bar < 0 || bar > 5 || !d->bar[bar] || off + len < off || off + len > d->bar_size[bar])
		return NULL;
	paddr_t pa = d->bar[bar] + off;
	if (!kvm_dmap_covers(pa + len))
		return NULL;
	return P2V(pa);
}

void pci_enable(const struct pci_dev *d)
{
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

int pci_msix_route(const struct pci_dev *d, unsigned entry, int vector, uint32_t apic_id)
{
	unsigned cap = pci_cap_next(d, PCI_CAP_MSIX, 0);
	if (!cap)
		return -ENODEV;
	uint32_t ctl = pci_read32(d, cap), table = pci_read32(d, cap + 4);
	unsigned n = ((ctl >> 16) & 0x7ff) + 1;
	if (entry >= n)
		return -EINVAL;
	volatile uint32_t *t = pci_bar_ptr(d, table & 7, table & ~7u, 16ull * n);
	if (!t)
		return -ENODEV;
	for (unsigned i = 0; i < n; i++)
		t[4 * i + 3] = 1;                 /* masked */
	uint64_t addr = lapic_msi_address(apic_id);
	t[4 * entry + 0] = (uint32_t)addr;
	t[4 * entry + 1] = (uint32_t)(addr >> 32);
	t[4 * entry + 2] = (uint32_t)vector;
	t[4 * entry + 3] = 0;                     /* unmasked */
	pci_write32(d, cap, (ctl | MSIX_ENABLE << 16) & ~(MSIX_MASK_ALL << 16));
	return 0;
}
