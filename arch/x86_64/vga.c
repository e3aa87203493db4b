/* arch/x86_64/vga.c -- VGA text mode (80x25) mirror of the console. */
#include "arch/x86_64/vga.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memlayout.h"

#define VGA_COLS 80
#define VGA_ROWS 25
#define VGA_ATTR 0x0700   /* light grey on black */
#define VGA_CRTC 0x3d4

static uint16_t *vga_mem(void)
{
	return (uint16_t *)P2V(0xb8000);
}

static int row, col;

static void vga_cursor(void)
{
	uint16_t pos = (uint16_t)(row * VGA_COLS + col);
	outb(VGA_CRTC, 0x0f);
	outb(VGA_CRTC + 1, pos & 0xff);
	outb(VGA_CRTC, 0x0e);
	outb(VGA_CRTC + 1, pos >> 8);
}

void vga_init(void)
{
	uint16_t *m = vga_mem();
	for (int i = 0; i < VGA_COLS * VGA_ROWS; i++)
		m[i] = VGA_ATTR | ' ';
	row = col = 0;
	vga_cursor();
}

void vga_putc(char c)
{
	uint16_t *m = vga_mem();

	if (c == '\n') {
		col = 0;
		row++;
	} else if (c == '\b') {
		if (col > 0)
			m[row * VGA_COLS + --col] = VGA_ATTR | ' ';
	} else if (c == '\r') {
		col = 0;
	} else {
		m[row * VGA_COLS + col] = VGA_ATTR | (uint8_t)c;
		if (++col == VGA_COLS) {
			col = 0;
			row++;
		}
	}
	if (row == VGA_ROWS) {
		for (int i = 0; i < VGA_COLS * (VGA_ROWS - 1); i++)
			m[i] = m[i + VGA_COLS];
		for (int i = 0; i < VGA_COLS; i++)
			m[(VGA_ROWS - 1) * VGA_COLS + i] = VGA_ATTR | ' ';
		row--;
	}
	vga_cursor();
}
