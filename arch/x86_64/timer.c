/* arch/x86_64/timer.c -- PIT channel 0 at HZ, TSC calibrated on channel 2. */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "lib/printk.h"
#include "lib/spinlock.h"

#define PIT_FREQ 1193182
#define PIT_CH0 0x40
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61          /* bit 0: channel 2 gate, bit 5: output */
#define CALIBRATE_MS 10
#define CALIBRATE_RUNS 5

static volatile uint64_t ticks;
static uint64_t khz;
static uint64_t tsc_boot;
void (*timer_tick_hook)(struct trapframe *tf);

/* Busy-wait CALIBRATE_MS on PIT channel 2 (one-shot); TSC cycles per ms. */
static uint64_t calibrate_once(void)
{
	uint16_t count = PIT_FREQ * CALIBRATE_MS / 1000;
	outb(PIT_GATE, (inb(PIT_GATE) & ~0x02) | 0x01);
	outb(PIT_CMD, 0xb0);           /* channel 2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	uint64_t t0 = rdtsc();
	while (!(inb(PIT_GATE) & 0x20))
		cpu_relax();
	return (rdtsc() - t0) / CALIBRATE_MS;
}

/* The median of CALIBRATE_RUNS measurements. Under emulation one run can be
 * far off (the host deschedules QEMU between the PIT's start and its end:
 * a loaded host once gave 21 GHz for a 2.7 GHz TSC); a median ignores up to
 * two such runs. */
static uint64_t calibrate_tsc(void)
{
	uint64_t run[CALIBRATE_RUNS];
	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t v = calibrate_once();
		int j = i;
		for (; j > 0 && run[j - 1] > v; j--)   /* insertion sort */
			run[j] = run[j - 1];
		run[j] = v;
	}
	return run[CALIBRATE_RUNS / 2];
}

static void timer_irq(struct trapframe *tf)
{
	ticks++;
	if (timer_tick_hook)
		timer_tick_hook(tf);
}

void timer_init(void)
{
	khz = calibrate_tsc();
	tsc_boot = rdtsc();
	spin_clock = tsc_read;         /* lock statistics time their waits */
	uint16_t div = PIT_FREQ / HZ;
	outb(PIT_CMD, 0x36);           /* channel 0, lo/hi, mode 3 */
	outb(PIT_CH0, div & 0xff);
	outb(PIT_CH0, div >> 8);
	irq_register(IRQ_TIMER, timer_irq);
	printk("timer: PIT at %d Hz, TSC %lu.%03lu MHz\n", HZ, khz / 1000, khz % 1000);
}

uint64_t timer_ticks(void)
{
	return ticks;
}

uint64_t tsc_khz(void)
{
	return khz;
}

uint64_t tsc_read(void)
{
	return rdtsc();
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	if (!khz)
		return 0;
	/* split to avoid both overflow and 128-bit division */
	return cycles / khz * 1000000 + cycles % khz * 1000000 / khz;
}

uint64_t clock_ns(void)
{
	return tsc_to_ns(rdtsc() - tsc_boot);
}
