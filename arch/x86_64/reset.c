/* arch/x86_64/reset.c -- ways to stop the machine. */
#include "arch/x86_64/reset.h"
#include "arch/x86_64/pv_ops.h"

#define ACPI_PM1A_CNT_QEMU 0x604   /* QEMU's PIIX4 PM control block */
#define ACPI_SLP_EN_S5 0x2000
#define KBC_CMD 0x64
#define KBC_RESET 0xfe

void arch_triple_fault(void)
{
	struct pv_dtr empty = { 0, 0 };
	pv_load_idt(&empty);
	__asm__ volatile("int3");
}

void arch_power_off(void)
{
	outw(ACPI_PM1A_CNT_QEMU, ACPI_SLP_EN_S5);
}

void arch_halt(void)
{
	pv_irq_disable();
	for (;;)
		pv_halt();
}

void arch_reboot(void)
{
	outb(KBC_CMD, KBC_RESET);
}
