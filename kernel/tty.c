/* kernel/tty.c -- canonical-mode terminal input on the serial console.
 *
 * Characters are echoed and collected in a ring buffer; backspace erases,
 * ^U kills the line, ^D ends input (read returns what is there, or 0), ^C
 * sends SIGINT, and Enter makes the line readable. Reader processes sleep until a line is
 * committed.
 */
#include "kernel/tty.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "mm/uaccess.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "kernel/proc.h"
#include "mm/uaccess.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/trap.h"

#define INPUT_SIZE 256
#define CTRL(c) ((c) - '@')

static struct {
	struct spinlock lock;
	char buf[INPUT_SIZE];
	uint64_t r, w, e;   /* read, committed (write), edit positions */
} in = { .lock = SPINLOCK_INIT("console", LOCK_RANK_CONSOLE) };

static void echo(char c)
{
	if (c == '\b')
		printk_write("\b \b", 3);
	else
		printk_write(&c, 1);
}

/* ^C: throw away the line being typed and send SIGINT to every process but
 * init. There are no process groups: the shell ignores SIGINT and so do the
 * jobs it starts in the background, so only the foreground job dies. */
static void interrupt(void)
{
	spin_lock(&in.lock);
	in.e = in.w;
	printk_write("^C\n", 3);
	spin_unlock(&in.lock);
	proc_signal_all(SIGINT);
}

void tty_input(char c)
{
	if (c == CTRL('C')) {
		interrupt();
		return;
	}
	spin_lock(&in.lock);
	if (c == '\r')
		c = '\n';
	switch (c) {
	case CTRL('U'):
		while (in.e != in.w && in.buf[(in.e - 1) % INPUT_SIZE] != '\n') {
			in.e--;
			echo('\b');
		}
		break;
	case '\b':
	case 0x7f:
		if (in.e != in.w) {
			in.e--;
			echo('\b');
		}
		break;
	default:
		if (c == 0 || in.e - in.r >= INPUT_SIZE)
			break;
		in.buf[in.e++ % INPUT_SIZE] = c;
		if (c != CTRL('D'))
			echo(c);
		if (c == '\n' || c == CTRL('D') || in.e - in.r == INPUT_SIZE) {
			in.w = in.e;
			wakeup(&in.r);
		}
	}
	spin_unlock(&in.lock);
}

long tty_read(vaddr_t ubuf, uint64_t n)
{
	uint64_t done = 0;
	spin_lock(&in.lock);
	while (done < n) {
		while (in.r == in.w) {
			if (signal_interrupted(current_proc())) {
				spin_unlock(&in.lock);
				return -EINTR;
			}
			sleep_on_signal(&in.r, &in.lock);
		}
		char c = in.buf[in.r++ % INPUT_SIZE];
		if (c == CTRL('D')) {
			if (done > 0)
				in.r--;     /* keep ^D for the next read: it returns 0 */
			break;
		}
		spin_unlock(&in.lock);
		int r = copyout(ubuf + done, &c, 1);
		spin_lock(&in.lock);
		if (r < 0) {
			spin_unlock(&in.lock);
			return done ? (long)done : -EFAULT;
		}
		done++;
		if (c == '\n')
			break;
	}
	spin_unlock(&in.lock);
	return (long)done;
}

static void serial_irq(struct trapframe *tf)
{
	(void)tf;
	int c;
	while ((c = serial_getc()) >= 0)
		tty_input((char)c);
}

/* ---- the console's device file (/dev/console, /dev/tty) ---- */

static long console_file_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	return tty_read(ubuf, n);
}

#define BOUNCE 512            /* bytes copied through the kernel at a time */

static long console_file_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	char buf[BOUNCE];
	uint64_t done = 0;
	while (done < n) {
		uint64_t chunk = MIN(n - done, BOUNCE);
		if (copyin(buf, ubuf + done, chunk) < 0)
			return done ? (long)done : -EFAULT;
		printk_write(buf, chunk);
		done += chunk;
	}
	return (long)done;
}

static const struct file_ops console_ops = {
	.read = console_file_read, .write = console_file_write,
};

void tty_init(void)
{
	irq_register(IRQ_COM1, serial_irq);
	chrdev_register(MKDEV(5, 1), &console_ops);   /* /dev/console */
	chrdev_register(MKDEV(5, 0), &console_ops);   /* /dev/tty: the one terminal */
}
