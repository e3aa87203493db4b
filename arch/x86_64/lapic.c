/* arch/x86_64/lapic.c -- xAPIC registers, the APIC timer, IPIs. */
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"

#define LAPIC_ID 0x020
#define LAPIC_TPR 0x080
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_COUNT 0x390
#define LAPIC_TIMER_DIV 0x3e0

#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define TIMER_DIV_16 0x3
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_PENDING (1u << 12)
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)
#define CALIBRATE_US 10000
#define ICR_WAIT_US 100000

static volatile uint32_t *regs;
void (*lapic_tick_hook)(struct trapframe *tf);
static uint64_t timer_per_sec;   /* APIC timer counts per second (divide 16) */

static uint32_t rd(unsigned reg)
{
	return regs[reg / 4];
}

static void wr(unsigned reg, uint32_t v)
{
	regs[reg / 4] = v;
}

/* Busy-wait us microseconds on the TSC. */
static void udelay(uint64_t us)
{
	uint64_t end = tsc_read() + tsc_khz() * us / 1000;
	while (tsc_read() < end)
		cpu_relax();
}

void lapic_set_base(paddr_t pa)
{
	regs = P2V(pa);
}

bool lapic_present(void)
{
	return regs != NULL;
}

void lapic_init_cpu(void)
{
	wr(LAPIC_TPR, 0);
	wr(LAPIC_SVR, SVR_ENABLE | T_LAPIC_SPURIOUS);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
}

uint32_t lapic_id(void)
{
	return rd(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

void lapic_timer_calibrate(void)
{
	wr(LAPIC_TIMER_DIV, TIMER_DIV_16);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INIT, 0xffffffffu);
	udelay(CALIBRATE_US);
	uint32_t used = 0xffffffffu - rd(LAPIC_TIMER_COUNT);
	wr(LAPIC_TIMER_INIT, 0);
	timer_per_sec = (uint64_t)used * (1000000 / CALIBRATE_US);
}

static void lapic_timer_irq(struct trapframe *tf)
{
	this_cpu()->lapic_ticks++;
	if (lapic_tick_hook)
		lapic_tick_hook(tf);
}

void lapic_timer_start(unsigned hz)
{
	vector_register(T_LAPIC_TIMER, lapic_timer_irq);
	uint64_t count = timer_per_sec / hz;
	wr(LAPIC_TIMER_DIV, TIMER_DIV_16);
	wr(LAPIC_LVT_TIMER, LVT_PERIODIC | T_LAPIC_TIMER);
	wr(LAPIC_TIMER_INIT, count ? (uint32_t)MIN(count, 0xffffffffu) : 1);
}

/* Write the ICR (destination first: the low half sends) and wait until the
 * APIC has delivered it. Interrupts off meanwhile: a handler on this CPU
 * sending its own IPI between the two writes would change the destination. */
static bool send_icr(uint32_t dest, uint32_t lo)
{
	uint64_t flags = irq_save();
	wr(LAPIC_ICR_HI, dest << 24);
	wr(LAPIC_ICR_LO, lo);
	bool sent = false;
	for (uint64_t us = 0; us < ICR_WAIT_US && !sent; us++) {
		sent = !(rd(LAPIC_ICR_LO) & ICR_PENDING);
		if (!sent)
			udelay(1);
	}
	irq_restore(flags);
	return sent;
}

void lapic_send_ipi(uint32_t dest, uint8_t vector)
{
	if (!send_icr(dest, vector))
		panic("lapic: IPI %#x to APIC id %u never delivered", vector, dest);
}

bool lapic_start_ap(uint32_t dest, uint8_t page)
{
	if (!send_icr(dest, ICR_INIT | ICR_ASSERT | ICR_LEVEL))
		return false;
	udelay(10000);
	for (int i = 0; i < 2; i++) {
		if (!send_icr(dest, ICR_STARTUP | page))
			return false;
		udelay(200);
	}
	return true;
}
