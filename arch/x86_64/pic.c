/* arch/x86_64/pic.c -- 8259 PIC pair, remapped above the exceptions. */
#include "arch/x86_64/pic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1
#define PIC_EOI 0x20
#define PIC_READ_ISR 0x0b
#define ICW1_INIT_ICW4 0x11
#define ICW4_8086 0x01
#define PIC_CASCADE_IRQ 2

void pic_init(void)
{
	outb(PIC1_CMD, ICW1_INIT_ICW4); io_wait();
	outb(PIC2_CMD, ICW1_INIT_ICW4); io_wait();
	outb(PIC1_DATA, T_IRQ0); io_wait();
	outb(PIC2_DATA, T_IRQ0 + 8); io_wait();
	outb(PIC1_DATA, 1 << PIC_CASCADE_IRQ); io_wait();
	outb(PIC2_DATA, PIC_CASCADE_IRQ); io_wait();
	outb(PIC1_DATA, ICW4_8086); io_wait();
	outb(PIC2_DATA, ICW4_8086); io_wait();
	outb(PIC1_DATA, 0xff & ~(1 << PIC_CASCADE_IRQ));
	outb(PIC2_DATA, 0xff);
}

void pic_unmask(int irq)
{
	uint16_t port = irq < 8 ? PIC1_DATA : PIC2_DATA;
	outb(port, inb(port) & ~(1 << (irq & 7)));
}

void pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

bool pic_spurious(int irq)
{
	if (irq != 7 && irq != 15)
		return false;
	uint16_t cmd = irq == 7 ? PIC1_CMD : PIC2_CMD;
	outb(cmd, PIC_READ_ISR);
	if (inb(cmd) & 0x80)
		return false;
	if (irq == 15)
		outb(PIC1_CMD, PIC_EOI);   /* the cascade line was real */
	return true;
}
