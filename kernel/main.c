/* kernel/main.c -- kmain(): bring the machine up in order, then run tests or
 * start user space. */
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/ktest.h"
#include "kernel/printk.h"
#include "kernel/version.h"
#include "mm/mm.h"
#include "arch/x86_64/console.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/timer.h"

void kmain(uint32_t magic, paddr_t info)
{
	serial_init();
	vga_init();
	printk("\n" PAGODA_BANNER "\n");
	multiboot_parse(magic, info);
	if (cmdline_parse(boot_info.cmdline) < 0)
		printk("cmdline: too long or too many options, ignored\n");
	boot_info_print();

	gdt_init();
	idt_init();
	pic_init();
	timer_init();
	mm_init();
	irq_enable();

	if (cmdline_has("test"))
		ktest_run_selected();

	printk("pagoda: no user space yet; idling (Ctrl-A X quits QEMU)\n");
	for (;;)
		cpu_idle();
}
