/* arch/x86_64/vga.h -- the VGA text screen (80x25 at 0xb8000): a second
 * console output sink. */
#ifndef ARCH_X86_64_VGA_H
#define ARCH_X86_64_VGA_H

/* Clear the screen and home the cursor. Once, at boot. */
void vga_init(void);

/* Print c at the cursor (newline, backspace; scrolls at the bottom). */
void vga_putc(char c);

#endif
