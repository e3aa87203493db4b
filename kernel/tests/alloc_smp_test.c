/* kernel/tests/alloc_smp_test.c -- test=alloc_smp: the frame allocator and
 * kmalloc under load from every CPU at once (ipi_call_here_too), with a leak
 * check and the buddy invariants afterwards.
 *
 * Each CPU allocates frames of mixed orders and kmalloc objects of every
 * size class, writes a pattern naming itself, the round and the slot into
 * each, and checks it before freeing: a frame or object handed to two CPUs
 * at once is overwritten by the other one (or corrupts a free list, which
 * buddy_check or the allocator's own checks then catch). And every CPU
 * gives shared libraries their slots at once (the text-share lock). Nothing
 * is timed. */
#include "kernel/ktest.h"
#include "lib/string.h"
#include "mm/frame/buddy.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/ptshare.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"

#define ROUNDS 400
#define SLOTS 24
#define MAX_TEST_ORDER 3
#define NSIZES 10   /* 16 .. 2048 (every small class), then 4 and 8 KiB */

struct load {
	struct page *pg[SLOTS];
	unsigned order[SLOTS];
	uint64_t *obj[SLOTS];
	size_t size[SLOTS];
	uint64_t frames_got, objs_got;   /* successful allocations */
	uint64_t failed;                 /* allocations that returned NULL */
	uint64_t bad;                    /* patterns found changed */
};

static struct load loads[MAX_CPUS];

static uint64_t pattern(int cpu, int round, int slot, uint64_t i)
{
	return ((uint64_t)cpu << 56) | ((uint64_t)round << 32) | ((uint64_t)slot << 16) | i;
}

/* The words of a block the test writes: the first, middle and last of each
 * frame (a whole 32 KiB block per slot would make the run slow under TCG). */
static uint64_t *frame_word(struct page *pg, uint64_t f, int which)
{
	uint64_t *w = (uint64_t *)page_va(pg + f);
	return &w[which * (PAGE_SIZE / sizeof(uint64_t) - 1) / 2];
}

static void fill_frames(struct load *l, int cpu, int round, int s)
{
	for (uint64_t f = 0; f < (1UL << l->order[s]); f++)
		for (int which = 0; which < 3; which++)
			*frame_word(l->pg[s], f, which) = pattern(cpu, round, s, f * 3 + which);
}

static void check_frames(struct load *l, int cpu, int round, int s)
{
	for (uint64_t f = 0; f < (1UL << l->order[s]); f++)
		for (int which = 0; which < 3; which++)
			l->bad += *frame_word(l->pg[s], f, which) != pattern(cpu, round, s, f * 3 + which);
}

/* Every word of the object. */
static void fill_obj(struct load *l, int cpu, int round, int s)
{
	for (uint64_t i = 0; i < l->size[s] / sizeof(uint64_t); i++)
		l->obj[s][i] = pattern(cpu, round, s, i);
}

static void check_obj(struct load *l, int cpu, int round, int s)
{
	for (uint64_t i = 0; i < l->size[s] / sizeof(uint64_t); i++)
		l->bad += l->obj[s][i] != pattern(cpu, round, s, i);
}

/* Slot s of round r: odd slots order 0 (the per-CPU caches), even ones of
 * order 1..MAX_TEST_ORDER (the shared lists); sizes cycle through every
 * class and two large ones. */
static void pick(struct load *l, int round, int s)
{
	l->order[s] = s % 2 ? 0 : 1 + (unsigned)(round + s / 2) % MAX_TEST_ORDER;
	unsigned k = (unsigned)(round + s) % NSIZES;
	l->size[s] = 16UL << k;
}

static void alloc_slot(struct load *l, int cpu, int round, int s)
{
	pick(l, round, s);
	l->pg[s] = page_alloc(l->order[s], 0);
	l->obj[s] = kmalloc(l->size[s]);
	if (l->pg[s]) {
		l->frames_got++;
		fill_frames(l, cpu, round, s);
	} else {
		l->failed++;
	}
	if (l->obj[s]) {
		l->objs_got++;
		fill_obj(l, cpu, round, s);
	} else {
		l->failed++;
	}
}

static void free_slot(struct load *l, int cpu, int round, int s)
{
	if (l->pg[s]) {
		check_frames(l, cpu, round, s);
		page_free(l->pg[s], l->order[s]);
	}
	if (l->obj[s]) {
		check_obj(l, cpu, round, s);
		kfree(l->obj[s]);
	}
}

/* One CPU's share (run on every CPU at once): alloc SLOTS, free them in an
 * order that differs from the allocation's, ROUNDS times. */
static void load_cpu(void *arg)
{
	(void)arg;
	int cpu = this_cpu()->id;
	struct load *l = &loads[cpu];
	memset(l, 0, sizeof(*l));
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < SLOTS; s++)
			alloc_slot(l, cpu, r, s);
		for (int s = 0; s < SLOTS; s++)
			free_slot(l, cpu, r, (s * 7 + r) % SLOTS);
	}
}

KTEST(alloc_smp, every_cpu_allocates_at_once)
{
	struct mm_stats before = mm_stats;
	uint64_t live0 = kmalloc_live(), free0 = buddy_check();
	KEXPECT_EQ(ipi_call_here_too(~0UL, load_cpu, NULL), ncpus - 1);
	uint64_t frames_got = 0, bad = 0;
	for (int i = 0; i < ncpus; i++) {
		printk("alloc_smp: CPU %d: %lu frames, %lu objects, %lu failed, %lu bad words\n",
		       i, loads[i].frames_got, loads[i].objs_got, loads[i].failed, loads[i].bad);
		KEXPECT_EQ(loads[i].failed, 0);
		KEXPECT_EQ(loads[i].frames_got, ROUNDS * SLOTS);
		KEXPECT_EQ(loads[i].objs_got, ROUNDS * SLOTS);
		frames_got += loads[i].frames_got;
		bad += loads[i].bad;
	}
	KEXPECT_EQ(bad, 0);
	/* the leak check: every frame and object is back */
	KEXPECT_EQ(kmalloc_live(), live0);
	KEXPECT_EQ(buddy_check(), free0);
	KEXPECT_EQ(mm_stats.free, before.free);
	KEXPECT_EQ(mm_stats.by_type[PG_KERNEL], before.by_type[PG_KERNEL]);
	/* exact counters: each of the test's page_allocs counted once (kmalloc
	 * made slabs too: those it freed again, so allocs and frees match) */
	KEXPECT(mm_stats.allocs - before.allocs >= frames_got);
	KEXPECT_EQ(mm_stats.allocs - before.allocs, mm_stats.frees - before.frees);
	KEXPECT_EQ(mm_stats.failed, before.failed);
}

/* A few frames freed on every other CPU wait in their caches; this CPU then
 * takes every free frame: the allocation that finds the lists empty drains
 * all the caches, so exhaustion still gets all of them. */
static void cache_some(void *arg)
{
	(void)arg;
	struct page *p[PCP_BATCH];
	for (int i = 0; i < PCP_BATCH; i++)
		p[i] = page_alloc(0, 0);
	for (int i = 0; i < PCP_BATCH; i++)
		if (p[i])
			page_free(p[i], 0);
}

KTEST(alloc_smp, exhaustion_drains_every_cache)
{
	uint64_t free0 = buddy_check();
	ipi_call_here_too(~cpumask_of(this_cpu()->id), cache_some, NULL);
	for (int i = 1; i < ncpus && frame_cache_on; i++)
		KEXPECT(cpus[i].pcp.n > 0);
	struct page *held = NULL;
	uint64_t n = 0;
	for (struct page *pg; (pg = page_alloc(0, 0)) != NULL; n++) {
		*(struct page **)page_va(pg) = held;   /* chain them in the frames */
		held = pg;
	}
	KEXPECT_EQ(n, free0);
	KEXPECT_EQ(mm_stats.cached, 0);
	while (held) {
		struct page *next = *(struct page **)page_va(held);
		page_free(held, 0);
		held = next;
	}
	KEXPECT_EQ(buddy_check(), free0);
}

/* ---- library slots (mm/ptshare_text.c) placed from every CPU at once ---- */

#define LIB_FILES 16   /* per CPU: 8 CPUs x 16 x 4 MiB fill the 512 MiB area */
#define LIB_SLOT_LEN (2 * LARGE_PAGE_SIZE)   /* each fake file's slot: two chunks */

static char fake_files[MAX_CPUS][LIB_FILES];   /* only their addresses are used */
static vaddr_t lib_addr[MAX_CPUS][LIB_FILES];
static struct addrspace lib_as;                /* no VMAs: no slot is taken */

/* One read-only page, then one writable page: two chunks of the area. */
static const struct lib_span lib_span = { 0, PAGE_SIZE, 2 * PAGE_SIZE };

static void place_libs(void *arg)
{
	(void)arg;
	int cpu = this_cpu()->id;
	for (int i = 0; i < LIB_FILES; i++)
		lib_addr[cpu][i] = ptshare_lib_place(&lib_as,
			(struct vmobject *)&fake_files[cpu][i], &lib_span);
}

/* Every CPU gives LIB_FILES new files their slots at once: each gets one
 * of its own (the look-up and the new slot under the text-share lock), and
 * asking again gives the same address. */
KTEST(alloc_smp, lib_slots_distinct)
{
	ipi_call_here_too(~0UL, place_libs, NULL);
	int n = ncpus * LIB_FILES, clash = 0;
	vaddr_t *a = &lib_addr[0][0];
	for (int i = 0; i < n; i++) {
		KEXPECT(a[i] >= USER_LIB_BASE && a[i] < USER_LIB_END);
		for (int j = 0; j < i; j++)
			clash += (a[i] > a[j] ? a[i] - a[j] : a[j] - a[i]) < LIB_SLOT_LEN;
	}
	KEXPECT_EQ(clash, 0);
	KEXPECT_EQ(ptshare_lib_place(&lib_as, (struct vmobject *)&fake_files[0][3], &lib_span),
		   lib_addr[0][3]);
}
