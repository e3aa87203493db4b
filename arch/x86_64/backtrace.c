/* arch/x86_64/backtrace.c -- walk saved frame pointers (-fno-omit-frame-pointer).
 *
 * Each frame starts with [rbp] = caller's rbp, [rbp+8] = return address.
 * The walk stops at rbp == 0 (entry code clears it), at a misaligned or
 * non-kernel pointer, or after BT_MAX frames.
 */
#include "arch/x86_64/backtrace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memlayout.h"
#include "lib/ksyms.h"
#include "lib/printk.h"

#define BT_MAX 24

void print_symbol(uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);
	if (name)
		printk(" (%s+%#lx)", name, off);
}

static bool plausible_frame(uint64_t rbp)
{
	return rbp >= DIRECT_MAP_BASE && IS_ALIGNED(rbp, 8);
}

void backtrace_from(uint64_t rip, uint64_t rbp)
{
	printk("backtrace:\n");
	printk("  %016lx", rip);
	print_symbol(rip);
	printk("\n");
	for (int i = 0; i < BT_MAX && plausible_frame(rbp); i++) {
		uint64_t *frame = (uint64_t *)rbp;
		uint64_t ret = frame[1];
		if (ret < KERNEL_VMA)
			break;
		printk("  %016lx", ret);
		print_symbol(ret - 1);   /* the call, not the next instruction */
		printk("\n");
		rbp = frame[0];
	}
}

uint64_t backtrace_first_outside(uint64_t rbp, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < BT_MAX && plausible_frame(rbp); i++) {
		uint64_t *frame = (uint64_t *)rbp;
		uint64_t ret = frame[1];
		if (ret < KERNEL_VMA)
			return 0;
		if (ret < lo || ret >= hi)
			return ret;
		rbp = frame[0];
	}
	return 0;
}

void backtrace_here(void)
{
	uint64_t rbp = read_rbp();
	uint64_t *frame = (uint64_t *)rbp;
	backtrace_from(frame[1], frame[0]);
}

/* The fault address lies in the guard of a kstack slot, and the stack
 * pointer in that same slot (guard or stack): the stack ran into its guard. */
bool kstack_guard_hit(uint64_t rsp, uint64_t addr)
{
	uint64_t end = KSTACK_BASE + KSTACK_SLOTS * KSTACK_SLOT;
	if (addr < KSTACK_BASE || addr >= end || rsp < KSTACK_BASE || rsp >= end)
		return false;
	uint64_t slot = (addr - KSTACK_BASE) / KSTACK_SLOT;
	return (addr - KSTACK_BASE) % KSTACK_SLOT < KSTACK_GUARD &&
	       (rsp - KSTACK_BASE) / KSTACK_SLOT == slot;
}

void backtrace_on_panic(enum panic_stage stage)
{
	if (stage == PANIC_DUMP)
		backtrace_here();
}
