/* arch/x86_64/trap.c -- IDT setup and the dispatcher for all vectors. */
#include "arch/x86_64/trap.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/pv_checked.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/backtrace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/setjmp.h"
#include "lib/printk.h"

struct idt_gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __packed;

#define GATE_INTERRUPT 0x8e   /* present, DPL 0, 64-bit interrupt gate */

extern const uint64_t trap_vectors[T_NVEC];
extern const struct extable_entry _extable_start[], _extable_end[];

static struct idt_gate idt[256];
static irq_handler_t irq_handlers[16];
static irq_handler_t vector_handlers[T_NVEC];
pf_handler_t page_fault_hook;
user_fault_handler_t user_fault_hook;
struct fault_catcher *fault_catcher;
user_return_hook_t user_return_hook;

static const char *const exc_names[T_NEXC] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range", "invalid opcode", "device not available",
	"double fault", "coprocessor overrun", "invalid TSS",
	"segment not present", "stack fault", "general protection",
	"page fault", "reserved", "x87 FP error", "alignment check",
	"machine check", "SIMD FP error", "virtualization", "control protection",
};

const char *trap_name(uint64_t v)
{
	if (v < T_NEXC && exc_names[v])
		return exc_names[v];
	return v < T_NVEC ? "interrupt" : "unknown";
}

static void set_gate(int v, uint64_t handler, int ist)
{
	idt[v] = (struct idt_gate){
		.off_lo = handler & 0xffff,
		.sel = SEG_KCODE,
		.ist = (uint8_t)ist,
		.type = GATE_INTERRUPT,
		.off_mid = (handler >> 16) & 0xffff,
		.off_hi = handler >> 32,
	};
}

void idt_init(void)
{
	for (int v = 0; v < T_NVEC; v++)
		set_gate(v, trap_vectors[v], 0);
	set_gate(T_DF, trap_vectors[T_DF], IST_DOUBLE_FAULT);
	set_gate(T_NMI, trap_vectors[T_NMI], IST_NMI);
	idt_load();
}

void idt_load(void)
{
	struct pv_dtr r = { sizeof(idt) - 1, (uint64_t)idt };
	pv_load_idt(&r);
}

void irq_register(int irq, irq_handler_t h)
{
	irq_handlers[irq] = h;
	pic_unmask(irq);
}

void vector_register(int vec, irq_handler_t h)
{
	vector_handlers[vec] = h;
}

int vector_alloc(irq_handler_t h)
{
	for (int v = T_DEVICE_FIRST; v <= T_DEVICE_LAST; v++) {
		irq_handler_t none = NULL;
		if (__atomic_compare_exchange_n(&vector_handlers[v], &none, h, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return v;
	}
	return -1;
}

void trapframe_print(const struct trapframe *tf)
{
	printk("  rip %016lx  cs %04lx  rflags %016lx\n", tf->rip, tf->cs, tf->rflags);
	printk("  rsp %016lx  ss %04lx  error  %016lx\n", tf->rsp, tf->ss, tf->error);
	printk("  rax %016lx  rbx %016lx  rcx %016lx\n", tf->rax, tf->rbx, tf->rcx);
	printk("  rdx %016lx  rsi %016lx  rdi %016lx\n", tf->rdx, tf->rsi, tf->rdi);
	printk("  rbp %016lx  r8  %016lx  r9  %016lx\n", tf->rbp, tf->r8, tf->r9);
	printk("  r10 %016lx  r11 %016lx  r12 %016lx\n", tf->r10, tf->r11, tf->r12);
	printk("  r13 %016lx  r14 %016lx  r15 %016lx\n", tf->r13, tf->r14, tf->r15);
	printk("  cr2 %016lx  cr3 %016lx\n", pv_read_cr2(), pv_read_cr3());
}

bool trap_extable_fixup(struct trapframe *tf, long err)
{
	for (const struct extable_entry *e = _extable_start; e < _extable_end; e++) {
		if (tf->rip >= e->start && tf->rip < e->end) {
			tf->rip = e->fixup;
			tf->rax = (uint64_t)err;
			return true;
		}
	}
	return false;
}

/* An unrecoverable fault in kernel mode: report everything and stop. */
static __noreturn void kernel_fault(struct trapframe *tf, uint64_t cr2)
{
	const char *what = trap_name(tf->vector);
	if (tf->vector == T_DF && kstack_guard_hit(tf->rsp, cr2))
		what = "kernel stack overflow (guard page hit)";
	printk("\nKERNEL FAULT: %s (vector %lu, error %#lx) at rip %016lx",
	       what, tf->vector, tf->error, tf->rip);
	print_symbol(tf->rip);
	printk("\n");
	if (tf->vector == T_PF)
		pv_checked_report_fault(cr2, tf->rip, tf->error & PF_WRITE);
	if (tf->vector == T_PF)
		printk("  fault address %016lx (%s, %s, %s)\n", cr2,
		       tf->error & PF_PRESENT ? "protection" : "not present",
		       tf->error & PF_WRITE ? "write" : "read",
		       tf->error & PF_INSTR ? "instruction fetch" : "data");
	trapframe_print(tf);
	backtrace_from(tf->rip, tf->rbp);
	panic("unhandled %s in kernel mode", what);
}

static void handle_exception(struct trapframe *tf)
{
	/* a double fault keeps CR2 of the page fault it came from */
	uint64_t cr2 = tf->vector == T_PF || tf->vector == T_DF ? pv_read_cr2() : 0;

	/* Exceptions enter through interrupt gates (IF=0). Resolving a page fault
	 * can take long (zeroing, copying, reclaim): with CR2 saved, let the timer
	 * in again if the faulting code had it on, so those ticks count as system
	 * time of the process instead of landing on its next user instruction. */
	if (tf->vector == T_PF && (tf->rflags & RFLAGS_IF))
		irq_enable();
	if (tf->vector == T_PF && page_fault_hook && page_fault_hook(tf, cr2))
		return;
	if (trap_from_user(tf) && user_fault_hook) {
		user_fault_hook(tf, cr2);
		return;
	}
	if (!trap_from_user(tf) && trap_extable_fixup(tf, -14 /* -EFAULT */))
		return;
	if (!trap_from_user(tf) && fault_catcher) {
		/* resume in arch_longjmp(catcher, 1) */
		struct fault_catcher *c = fault_catcher;
		fault_catcher = NULL;
		c->vector = tf->vector;
		c->addr = cr2;
		tf->rip = (uint64_t)arch_longjmp;
		tf->rdi = (uint64_t)&c->jb;
		tf->rsi = 1;
		return;
	}
	kernel_fault(tf, cr2);
}

static void handle_irq(struct trapframe *tf)
{
	int irq = (int)(tf->vector - T_IRQ0);
	if (pic_spurious(irq))
		return;
	pic_eoi(irq);
	if (irq_handlers[irq])
		irq_handlers[irq](tf);
}

static void handle_lapic(struct trapframe *tf)
{
	lapic_eoi();
	vector_handlers[tf->vector](tf);
}

void trap_dispatch(struct trapframe *tf)
{
	if (tf->vector < T_NEXC)
		handle_exception(tf);
	else if (tf->vector < T_IRQ0 + 16)
		handle_irq(tf);
	else if (tf->vector < T_NVEC && vector_handlers[tf->vector])
		handle_lapic(tf);
	else if (tf->vector != T_LAPIC_SPURIOUS)
		printk("trap: unexpected vector %lu\n", tf->vector);
	if (trap_from_user(tf) && user_return_hook)
		user_return_hook(tf);
}
