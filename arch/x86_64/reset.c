/* arch/x86_64/reset.c -- ways to stop the machine. */
#include "arch/x86_64/reset.h"
#include "arch/x86_64/cpu.h"

#define ACPI_PM1A_CNT_QEMU 0x604   /* QEMU's PIIX4 PM control block */
#define ACPI_SLP_EN_S5 0x2000
#define KBC_CMD 0x64
#define KBC_RESET 0xfe

void arch_triple_fault(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed empty = { 0, 0 };
	__asm__ volatile("lidt %0; int3" : : "m"(empty));
}

void arch_power_off(void)
{
	outw(ACPI_PM1A_CNT_QEMU, ACPI_SLP_EN_S5);
}

void arch_reboot(void)
{
	outb(KBC_CMD, KBC_RESET);
}
