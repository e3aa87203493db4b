/* arch/x86_64/qemu_exit.c -- leave QEMU with a status (tests) or power off. */
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/cpu.h"

#define ISA_DEBUG_EXIT_PORT 0xf4

void qemu_debug_exit(uint8_t code)
{
	outb(ISA_DEBUG_EXIT_PORT, code);
}
