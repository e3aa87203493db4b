/* arch/x86_64/serial.c -- 16550 UART on COM1, the main console. */
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"

#define COM1 0x3f8
#define UART_DATA 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20

/* 115200 8N1, FIFOs on, receive interrupt enabled (IRQ 4). */
void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80);     /* DLAB */
	outb(COM1 + UART_DATA, 0x01);    /* divisor 1 = 115200 */
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x03);     /* 8N1 */
	outb(COM1 + UART_FCR, 0x07);     /* FIFOs on and cleared, interrupt at 1 byte */
	outb(COM1 + UART_MCR, 0x0b);     /* DTR, RTS, OUT2 (IRQ enable) */
	outb(COM1 + UART_IER, 0x01);     /* data-ready interrupt */
}

void serial_putc(char c)
{
	if (c == '\n')
		serial_putc('\r');
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
		cpu_relax();
	outb(COM1 + UART_DATA, (uint8_t)c);
}

/* A received byte, or -1 if none is waiting. */
int serial_getc(void)
{
	if (!(inb(COM1 + UART_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + UART_DATA);
}
