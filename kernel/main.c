/* kernel/main.c -- kmain(): bring the machine up in order, then run the
 * in-kernel tests or start user space. */
#include "kernel/fault_signal.h"
#include "kernel/forkbench/bootmode.h"
#include "arch/x86_64/bootinfo.h"
#include "lib/cmdline.h"
#include "kernel/tty.h"
#include "kernel/fs.h"
#include "kernel/ktest.h"
#include "lib/printk.h"
#include "kernel/proc.h"
#include "kernel/smp.h"
#include "kernel/syscall.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "kernel/version.h"
#include "mm/pt/kstack.h"
#include "mm/frame/phasetime.h"
#include "mm/mm.h"
#include "mm/ptshare.h"
#include "kernel/reclaimd.h"
#include "kernel/flushd.h"
#include "kernel/time.h"
#include "drivers/pci.h"
#include "drivers/virtio/virtio_blk.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/vga.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/backtrace.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/trap.h"

/* The root file system: a tmpfs with the initrd module GRUB loaded (if
 * any) unpacked into it, and the boot mounts (kernel/fs.h). */
static void load_initrd(void)
{
	struct boot_module *m = boot_info.nmodules ? &boot_info.modules[0] : NULL;
	vfs_set_epoch(boot_epoch_ns());   /* file times: the wall clock */
	int n = fs_boot(m ? m->start : 0, m ? m->end : 0, cmdline_get("root"));
	if (!m)
		printk("initrd: none loaded\n");
	else if (n < 0)
		printk("initrd: bad archive (error %d)\n", n);
	else
		printk("initrd: %d files, %lu KiB\n", n, (m->end - m->start) >> 10);
}

#define INIT_MAX_ARGS 64

/* Start /bin/init (or init=PATH, with initargs=A,B,... as its arguments) as
 * pid 1 and never come back. */
static __noreturn void start_user_space(void)
{
	static char args[CMDLINE_MAX];
	const char *path = cmdline_get_or("init", "/bin/init");
	const char *argv[INIT_MAX_ARGS + 2] = { path };
	int argc = 1;
	strlcpy(args, cmdline_get_or("initargs", ""), sizeof(args));
	char *a = args;
	while (*a && argc <= INIT_MAX_ARGS) {
		argv[argc++] = a;
		char *comma = strchr(a, ',');
		a = comma ? comma + 1 : a + strlen(a);
		if (comma)
			*comma = 0;
	}
	argv[argc] = NULL;
	if (*a)
		printk("init: more than %d initargs: \"%s\" and after are dropped\n",
		       INIT_MAX_ARGS, a);
	int pid = proc_spawn_init(path, argv);
	if (pid < 0)
		panic("cannot start %s (error %d)", path, pid);
	printk("pagoda: started %s as pid %d\n", path, pid);
	scheduler();
}

void kmain(uint32_t magic, paddr_t info)
{
	percpu_init();
	serial_init();
	printk_add_sink(serial_putc);
	vga_init();
	printk_add_sink(vga_putc);
	panic_add_hook(backtrace_on_panic);
	panic_add_hook(ktest_on_panic);
	proc_set_init_exit(ktest_init_exited);
	printk("\n" PAGODA_BANNER "\n");
	multiboot_parse(magic, info);
	if (cmdline_parse(boot_info.cmdline) < 0)
		printk("cmdline: too long or too many options, ignored\n");
	lockdep_on = strcmp(cmdline_get_or("lockdep", "on"), "off") != 0;
	boot_info_print();

	gdt_init();
	idt_init();
	pic_init();
	timer_init();
	time_init();        /* the wall clock from the RTC */
	fpu_init();
	mm_init();
	pv_init();          /* choose the pv_ops backend, patch call sites */
	ptshare_set_mode(cmdline_get_or("ptshare", ptshare_mode_name()));   /* default: mm/ptshare.c */
	if (!phasetime_set(cmdline_has("phasetime")))   /* per-phase TSC counters, /proc/phasetime */
		printk("phasetime: not in this kernel (make bench-phases builds one with PHASETIME=1)\n");
	printk("mm: page-table sharing: ptshare=%s\n", ptshare_mode_name());
	syscall_init();
	syscall_table_init();
	fault_signal_init();
	proc_init();
	tty_init();
	smp_init();         /* the other CPUs, each halting in its idle loop */
	if (kstack_set_pool(KSTACK_POOL) < 0)   /* after the idle stacks: they stay */
		panic("kmain: no memory for the pool of %d kernel stacks", KSTACK_POOL);
	reclaimd_start();   /* kreclaimd: memory kept free from outside allocations */
	pci_scan();
	virtio_blk_probe(); /* the disks: /dev/vda, vdb, ... */
	irq_enable();
	load_initrd();      /* the root (root=/dev/vda: on the disk), the initrd, /dev, /proc */
	flushd_start();     /* kflushd: dirty file pages to their disks in the background */

	if (cmdline_has("test"))
		ktest_run_selected();   /* exits QEMU unless init= asks for more */
	if (cmdline_has("bench"))
		bench_run_selected();   /* bench=fork: measure, print, exit QEMU */
	start_user_space();
}
