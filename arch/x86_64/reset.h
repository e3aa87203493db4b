/* arch/x86_64/reset.h -- power off, reboot, and a deliberate triple fault. */
#ifndef ARCH_X86_64_RESET_H
#define ARCH_X86_64_RESET_H

/* Load an empty IDT and trap: the CPU resets (a triple fault). */
void arch_triple_fault(void);

/* ACPI S5 on QEMU's PIIX4; returns if that did not work. The device acts
 * a little later (QEMU stops the machine from its main loop), so a caller
 * that must not run on afterwards halts (arch_halt). */
void arch_power_off(void);

/* Interrupts off, halt forever: what is left to do when power off or
 * reset did not stop the machine (Linux's "System halted"). */
void arch_halt(void) __attribute__((noreturn));

/* Pulse the reset line through the keyboard controller. */
void arch_reboot(void);

#endif
