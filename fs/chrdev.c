/* fs/chrdev.c -- character devices by number, and the memory devices.
 *
 *   node (S_IFCHR, rdev) --open--> chrdev_ops(rdev) --> the driver's file_ops
 *
 *   major 1 (Linux's "mem"):  3 null   5 zero   7 full   8 random   9 urandom
 *   major 5:                  0 tty    1 console        (kernel/tty.c registers them)
 *
 * random and urandom are one generator here (a 64-bit mixing function
 * over a counter, seeded from the clock at boot): unpredictable enough
 * for mktemp and hash seeds, not for keys -- Pagoda has no entropy pool.
 * The table changes only at boot, before any open.
 */
#include "fs/file.h"
#include "arch/x86_64/timer.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/uaccess.h"

#define MAX_CHRDEVS 16

static struct {
	uint32_t rdev;
	const struct file_ops *ops;
} chrdevs[MAX_CHRDEVS];

void chrdev_register(uint32_t rdev, const struct file_ops *ops)
{
	for (int i = 0; i < MAX_CHRDEVS; i++)
		if (!chrdevs[i].ops) {
			chrdevs[i].rdev = rdev;
			chrdevs[i].ops = ops;
			return;
		}
}

const struct file_ops *chrdev_ops(uint32_t rdev)
{
	for (int i = 0; i < MAX_CHRDEVS && chrdevs[i].ops; i++)
		if (chrdevs[i].rdev == rdev)
			return chrdevs[i].ops;
	return NULL;
}

static long null_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return 0;
}

static long null_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf;
	return (long)n;
}

static long zero_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	int r = clear_user(ubuf, n);
	return r < 0 ? r : (long)n;
}

static long full_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return -ENOSPC;
}

static uint64_t rng_state;

/* splitmix64: the next 64 random-looking bits. */
static uint64_t rng_next(void)
{
	uint64_t z = __atomic_add_fetch(&rng_state, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static long random_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	return random_to_user(ubuf, n);
}

long random_to_user(vaddr_t ubuf, uint64_t n)
{
	uint64_t done = 0;
	while (done < n) {
		uint64_t v[8];
		for (int i = 0; i < 8; i++)
			v[i] = rng_next();
		uint64_t chunk = MIN(n - done, sizeof(v));
		if (copyout(ubuf + done, v, chunk) < 0)
			return done ? (long)done : -EFAULT;
		done += chunk;
	}
	return (long)done;
}

static const struct file_ops null_ops = { .read = null_read, .write = null_write };
static const struct file_ops zero_ops = { .read = zero_read, .write = null_write };
static const struct file_ops full_ops = { .read = zero_read, .write = full_write };
static const struct file_ops random_ops = { .read = random_read, .write = null_write };

void memdev_init(void)
{
	rng_state = clock_ns() * 0x2545f4914f6cdd1dull ^ (uint64_t)&rng_state;
	chrdev_register(MKDEV(1, 3), &null_ops);
	chrdev_register(MKDEV(1, 5), &zero_ops);
	chrdev_register(MKDEV(1, 7), &full_ops);
	chrdev_register(MKDEV(1, 8), &random_ops);
	chrdev_register(MKDEV(1, 9), &random_ops);
}
