/* kernel/tty.h -- the terminal: output to serial/VGA, cooked input. */
#ifndef KERNEL_TTY_H
#define KERNEL_TTY_H

#include "lib/types.h"

/* Start receiving keyboard input from the serial port. */
void tty_init(void);

/* Read up to n bytes of input into user memory: blocks until a whole line
 * (or ^D) is available, like a tty in canonical mode. */
long tty_read(vaddr_t ubuf, uint64_t n);

/* One received character (from the serial interrupt): echo, edit, buffer. */
void tty_input(char c);

#endif
