/* arch/x86_64/reset.h -- power off, reboot, and a deliberate triple fault. */
#ifndef ARCH_X86_64_RESET_H
#define ARCH_X86_64_RESET_H

/* Load an empty IDT and trap: the CPU resets (a triple fault). */
void arch_triple_fault(void);

/* ACPI S5 on QEMU's PIIX4; returns if that did not work. */
void arch_power_off(void);

/* Pulse the reset line through the keyboard controller. */
void arch_reboot(void);

#endif
