/* arch/x86_64/qemu_exit.h -- leaving QEMU with an exit status. */
#ifndef ARCH_X86_64_QEMU_EXIT_H
#define ARCH_X86_64_QEMU_EXIT_H

#include "lib/types.h"

/* Exit QEMU through the isa-debug-exit device (iobase 0xf4): QEMU's exit
 * status becomes (code << 1) | 1. Returns only when the device is absent. */
void qemu_debug_exit(uint8_t code);

#endif
