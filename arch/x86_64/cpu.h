/* arch/x86_64/cpu.h -- x86-64 instructions as inline functions.
 *
 * The native_* functions are the privileged instructions themselves. Only
 * the pv_ops backends (pv_native.c, pv_checked.c) and, in a PARAVIRT=0
 * build, the pv_* wrappers of pv_ops.h use them; everybody else calls the
 * pv_* wrappers (tools/check-privileged.sh enforces it).
 */
#ifndef ARCH_X86_64_CPU_H
#define ARCH_X86_64_CPU_H

#include "lib/types.h"

#define RFLAGS_IF (1UL << 9)

#define CR0_WP (1UL << 16)
#define CR0_PG (1UL << 31)
#define CR4_PSE (1UL << 4)
#define CR4_PAE (1UL << 5)
#define CR4_PGE (1UL << 7)
#define CR4_OSFXSR (1UL << 9)
#define CR4_SMEP (1UL << 20)
#define CR4_SMAP (1UL << 21)

#define MSR_EFER 0xc0000080
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define EFER_SCE (1UL << 0)
#define EFER_NXE (1UL << 11)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void io_wait(void)
{
	outb(0x80, 0);
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t native_read_flags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

static inline void native_restore_flags(uint64_t f)
{
	__asm__ volatile("pushq %0; popfq" : : "r"(f) : "memory", "cc");
}

static inline void native_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static inline void native_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

static inline void native_safe_halt(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}

static inline void native_halt(void)
{
	__asm__ volatile("hlt" : : : "memory");
}

static inline uint64_t native_read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void native_write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t native_read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t native_read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void native_write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t native_read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void native_write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void native_invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t native_rdmsr(uint64_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"((uint32_t)msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void native_wrmsr(uint64_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"((uint32_t)msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)));
}

static inline void native_cpuid(uint64_t leaf, uint64_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"((uint32_t)leaf), "c"((uint32_t)sub));
}

/* lgdt/lidt take a struct pv_dtr (limit, base). */
static inline void native_lgdt(const void *dtr)
{
	__asm__ volatile("lgdt (%0)" : : "r"(dtr) : "memory");
}

static inline void native_lidt(const void *dtr)
{
	__asm__ volatile("lidt (%0)" : : "r"(dtr) : "memory");
}

static inline void native_ltr(uint64_t selector)
{
	__asm__ volatile("ltr %w0" : : "r"(selector) : "memory");
}

/* An entry of a page table, written in one 64-bit store (the CPU may set
 * its A/D bits concurrently: never write an entry in halves). */
static inline void native_set_entry(uint64_t *ep, uint64_t e)
{
	__atomic_store_n(ep, e, __ATOMIC_RELEASE);
}

/* Atomically store e into *ep and return what was there: a bit the MMU of
 * another CPU set up to that moment (Accessed, Dirty) is in the result. */
static inline uint64_t native_xchg_entry(uint64_t *ep, uint64_t e)
{
	return __atomic_exchange_n(ep, e, __ATOMIC_SEQ_CST);
}

/* Atomically store e into *ep if it still holds old; returns what *ep held
 * (old itself on success). */
static inline uint64_t native_cmpxchg_entry(uint64_t *ep, uint64_t old, uint64_t e)
{
	__atomic_compare_exchange_n(ep, &old, e, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}

/* Reloading CR3 drops every non-global TLB entry. */
static inline void native_flush_user(void)
{
	native_write_cr3(native_read_cr3());
}

/* Toggling CR4.PGE drops every TLB entry, global ones included. */
static inline void native_flush_all(void)
{
	uint64_t cr4 = native_read_cr4();
	if (cr4 & CR4_PGE) {
		native_write_cr4(cr4 & ~CR4_PGE);
		native_write_cr4(cr4);
	} else {
		native_flush_user();
	}
}

/* CPUID serializes: code written before it is what runs after it. */
static inline void native_serialize(void)
{
	uint32_t r[4];
	native_cpuid(0, 0, r);
}

/* The kernel stack of entries from user mode (TSS.rsp0; arch/x86_64/gdt.c). */
void native_load_sp0(uint64_t rsp0);

static inline void cpu_relax(void)
{
	__asm__ volatile("pause");
}

static inline uint64_t read_rbp(void)
{
	uint64_t v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

#endif
