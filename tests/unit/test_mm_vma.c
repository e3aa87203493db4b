/* tests/unit/test_mm_vma.c -- VMA lookup through the sorted index
 * (mm/vma.c, issue 19): vma_find agrees with a plain model of the ranges
 * after every insert, delete, split and merge, in a fixed case and in
 * thousands of random operations; the index is freed with the last VMA;
 * when memory for the index runs out, lookups still answer (list walk). */
#include <check.h>
#include <stdlib.h>
#include "tests/unit/host_mm.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/vma.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(16)
#define BASE 0x400000UL
#define SLOTS 256                 /* the model: page slots BASE + i * 4 KiB */

static void setup(void) { host_mm_setup(RAM, false); }

/* model[i]: the start of the VMA covering slot i, or 0. */
static vaddr_t model[SLOTS];

static vaddr_t slot_va(int i) { return BASE + (vaddr_t)i * PAGE_SIZE; }

/* Every slot (and the addresses around them) looks up as the model says. */
static void check_all(struct addrspace *as)
{
	for (int i = 0; i < SLOTS; i++) {
		struct vma *v = vma_find(as, slot_va(i) + (i % 7) * 512);
		if (!model[i]) {
			ck_assert_ptr_null(v);
			continue;
		}
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->start, model[i]);
		ck_assert(v->start <= slot_va(i) && slot_va(i) < v->end);
	}
	ck_assert_ptr_null(vma_find(as, BASE - 1));
	ck_assert_ptr_null(vma_find(as, slot_va(SLOTS)));
	ck_assert_ptr_null(vma_find(as, 0));
}

/* Insert [slot a, slot b) and record it in the model. */
static void add(struct addrspace *as, int a, int b, unsigned prot)
{
	struct vma *v = vma_new(slot_va(a), slot_va(b), prot, VM_ANON, NULL, 0);
	ck_assert_ptr_nonnull(v);
	vma_insert(as, v);
	for (int i = a; i < b; i++)
		model[i] = slot_va(a);
}

/* Delete the VMA at slot i (there is one) and clear it in the model. */
static void del(struct addrspace *as, int i)
{
	struct vma *v = vma_find(as, slot_va(i));
	for (int j = 0; j < SLOTS; j++)
		if (model[j] == v->start)
			model[j] = 0;
	vma_delete(as, v);
}

/* Split the VMA at slot i at slot cut (inside it). */
static void split(struct addrspace *as, int i, int cut)
{
	struct vma *v = vma_find(as, slot_va(i));
	ck_assert_ptr_nonnull(vma_split(as, v, slot_va(cut)));
	for (int j = cut; j < SLOTS && model[j] == v->start; j++)
		model[j] = slot_va(cut);
}

/* The model after vma_merge: neighbours with equal prot become one. */
static void merge(struct addrspace *as)
{
	vma_merge(as);
	for (struct vma *v = as->vmas; v; v = v->next)
		for (vaddr_t va = v->start; va < v->end; va += PAGE_SIZE)
			model[(va - BASE) / PAGE_SIZE] = v->start;
}

static void destroy(struct addrspace *as)
{
	while (as->vmas)
		vma_delete(as, as->vmas);
	ck_assert_ptr_null(as->vidx.v);          /* the last VMA freed the index */
	memset(model, 0, sizeof(model));
}

START_TEST(test_find_fixed)
{
	struct addrspace as = { 0 };
	check_all(&as);
	add(&as, 10, 20, VM_READ);
	add(&as, 0, 5, VM_READ);
	add(&as, 20, 21, VM_READ | VM_WRITE);
	add(&as, 100, 256, VM_READ);
	check_all(&as);
	ck_assert_uint_eq(as.vidx.n, 4);
	split(&as, 150, 150);
	check_all(&as);
	del(&as, 0);
	check_all(&as);
	merge(&as);                               /* [10,20) stays apart from [20,21) */
	check_all(&as);
	ck_assert_uint_eq(as.vidx.n, 3);
	destroy(&as);
	host_assert_no_leak();
}
END_TEST

/* A free run of slots [a, b) at random, or false. */
static bool free_run(int *a, int *b)
{
	int s = rand() % SLOTS, len = 1 + rand() % 12;
	if (model[s])
		return false;
	int e = s;
	while (e < SLOTS && e - s < len && !model[e])
		e++;
	*a = s;
	*b = e;
	return true;
}

/* A random slot that some VMA covers, or -1. */
static int used_slot(void)
{
	for (int tries = 0; tries < 64; tries++) {
		int s = rand() % SLOTS;
		if (model[s])
			return s;
	}
	return -1;
}

START_TEST(test_find_random_against_model)
{
	struct addrspace as = { 0 };
	srand(19);
	for (int step = 0; step < 4000; step++) {
		int a, b, s, op = rand() % 10;
		if (op < 5 && free_run(&a, &b))
			add(&as, a, b, rand() % 2 ? VM_READ : VM_READ | VM_WRITE);
		else if (op < 7 && (s = used_slot()) >= 0)
			del(&as, s);
		else if (op < 9 && (s = used_slot()) >= 0) {
			struct vma *v = vma_find(&as, slot_va(s));
			int lo = (int)((v->start - BASE) / PAGE_SIZE), hi = (int)((v->end - BASE) / PAGE_SIZE);
			if (hi - lo > 1)
				split(&as, s, lo + 1 + rand() % (hi - lo - 1));
		} else if (op == 9)
			merge(&as);
		if (step % 8 == 0 || step > 3900)
			check_all(&as);
		else {                                /* a lookup or two between changes */
			int i = rand() % SLOTS;
			struct vma *v = vma_find(&as, slot_va(i));
			ck_assert_uint_eq(v ? v->start : 0, model[i]);
		}
	}
	check_all(&as);
	destroy(&as);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_find_without_memory_for_the_index)
{
	struct addrspace as = { 0 };
	struct vma *spare[40];
	add(&as, 0, 1, VM_READ);
	check_all(&as);                           /* an index of 16 */
	for (int i = 0; i < 40; i++)
		ck_assert_ptr_nonnull(spare[i] = vma_new(slot_va(2 + 2 * i), slot_va(3 + 2 * i),
							  VM_READ, VM_ANON, NULL, 0));
	struct list held;
	host_exhaust(&held);
	void *more[4096];
	int nmore = 0;
	while (nmore < 4096 && (more[nmore] = kmalloc(41 * sizeof(void *))))
		nmore++;                              /* the heap too */
	for (int i = 0; i < 40; i++) {
		vma_insert(&as, spare[i]);
		model[2 + 2 * i] = slot_va(2 + 2 * i);
	}
	check_all(&as);                           /* 41 > 16: no memory to grow */
	ck_assert(as.vidx.stale);                 /* so the list was walked */
	while (nmore)
		kfree(more[--nmore]);
	host_release_all(&held);
	check_all(&as);
	ck_assert(!as.vidx.stale);
	destroy(&as);
	host_assert_no_leak();
}
END_TEST

static Suite *vma_suite(void)
{
	Suite *s = suite_create("mm_vma");
	TCase *tc = host_tcase(s, "core", setup, host_mm_teardown);
	tcase_add_test(tc, test_find_fixed);
	tcase_add_test(tc, test_find_random_against_model);
	tcase_add_test(tc, test_find_without_memory_for_the_index);
	return s;
}

int main(void)
{
	return host_run_suite(vma_suite());
}
