/* arch/x86_64/pci_cfg.c -- PCI configuration ports (see pci_cfg.h). */
#include "arch/x86_64/pci_cfg.h"
#include "arch/x86_64/cpu.h"
#include "lib/spinlock.h"

#define CFG_ADDRESS 0xcf8
#define CFG_DATA 0xcfc

static struct spinlock cfg_lock = SPINLOCK_INIT("pci-cfg", LOCK_RANK_PCI_CFG);

static uint32_t address(uint32_t bdf, unsigned off)
{
	return 1u << 31 | bdf << 8 | (off & 0xfc);
}

uint32_t pci_cfg_read32(uint32_t bdf, unsigned off)
{
	spin_lock(&cfg_lock);
	outl(CFG_ADDRESS, address(bdf, off));
	uint32_t v = inl(CFG_DATA);
	spin_unlock(&cfg_lock);
	return v;
}

void pci_cfg_write32(uint32_t bdf, unsigned off, uint32_t v)
{
	spin_lock(&cfg_lock);
	outl(CFG_ADDRESS, address(bdf, off));
	outl(CFG_DATA, v);
	spin_unlock(&cfg_lock);
}
