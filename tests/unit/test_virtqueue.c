/* tests/unit/test_virtqueue.c -- the split virtqueue (drivers/virtio/
 * virtqueue.c) driven by a fake device: the ring layout the virtio 1.0
 * spec asks for, chains as the device sees them, the free list through
 * random out-of-order completions (seeded; a failure prints the seed),
 * full queues, and a device that names descriptors it was never given. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/virtio/virtqueue.h"
#include "lib/errno.h"

static _Alignas(4096) unsigned char mem[4096];
static struct virtq q;
#define PA 0x100000   /* where the "device" believes the ring lives */

static void setup(uint16_t size)
{
	memset(mem, 0, sizeof(mem));
	vq_init(&q, size, mem, PA);
}

/* The device: the chain at head as (flags, len) pairs; returns its length. */
static int chain(uint16_t head, struct vq_desc *out)
{
	int n = 0;
	for (uint16_t i = head;; i = q.desc[i].next) {
		out[n++] = q.desc[i];
		if (!(q.desc[i].flags & VQ_DESC_NEXT) || n == q.size)
			return n;
	}
}

/* The device finishes request head, having written len bytes. */
static void device_done(uint16_t head, uint32_t len)
{
	q.used->ring[q.used->idx & (q.size - 1)].id = head;
	q.used->ring[q.used->idx & (q.size - 1)].len = len;
	q.used->idx++;
}

START_TEST(test_layout)
{
	ck_assert_uint_le(vq_mem_size(VQ_MAX_SIZE), 4096);
	setup(VQ_MAX_SIZE);
	ck_assert_uint_eq(q.desc_pa, PA);
	ck_assert_uint_eq(q.avail_pa - PA, 16 * VQ_MAX_SIZE);
	ck_assert_uint_eq(q.used_pa % 4, 0);
	ck_assert_uint_ge(q.used_pa - q.avail_pa, 4 + 2 * VQ_MAX_SIZE + 2);   /* + used_event */
	ck_assert_ptr_eq((void *)q.used, mem + (q.used_pa - PA));
	ck_assert_uint_eq(q.num_free, VQ_MAX_SIZE);
}
END_TEST

START_TEST(test_add_chain)
{
	setup(8);
	struct vq_buf b[3] = { { 0x1000, 16, false }, { 0x2000, 4096, true }, { 0x3000, 1, true } };
	int token;
	ck_assert_int_eq(vq_add(&q, b, 3, &token), 0);
	ck_assert_uint_eq(q.avail->idx, 1);
	ck_assert_uint_eq(q.num_free, 5);
	struct vq_desc d[8];
	ck_assert_int_eq(chain(q.avail->ring[0], d), 3);
	ck_assert_uint_eq(d[0].addr, 0x1000);
	ck_assert_uint_eq(d[0].flags, VQ_DESC_NEXT);
	ck_assert_uint_eq(d[1].len, 4096);
	ck_assert_uint_eq(d[1].flags, VQ_DESC_NEXT | VQ_DESC_WRITE);
	ck_assert_uint_eq(d[2].flags, VQ_DESC_WRITE);   /* the end of the chain */
	uint32_t len = 0;
	ck_assert_ptr_null(vq_pop(&q, &len));           /* not finished yet */
	device_done(q.avail->ring[0], 4097);
	ck_assert_ptr_eq(vq_pop(&q, &len), &token);
	ck_assert_uint_eq(len, 4097);
	ck_assert_uint_eq(q.num_free, 8);
	ck_assert_ptr_null(vq_pop(&q, &len));
}
END_TEST

START_TEST(test_full_and_bad_sizes)
{
	setup(4);
	struct vq_buf b[5] = { { 0x1000, 1, false } };
	int t1, t2;
	ck_assert_int_eq(vq_add(&q, b, 0, &t1), -EINVAL);
	ck_assert_int_eq(vq_add(&q, b, 5, &t1), -EINVAL);
	ck_assert_int_eq(vq_add(&q, b, 3, &t1), 0);
	ck_assert_int_eq(vq_add(&q, b, 2, &t2), -ENOSPC);   /* one left */
	ck_assert_uint_eq(q.avail->idx, 1);                 /* nothing done */
	ck_assert_uint_eq(q.num_free, 1);
	ck_assert_int_eq(vq_add(&q, b, 1, &t2), 0);
	ck_assert_uint_eq(q.num_free, 0);
}
END_TEST

START_TEST(test_device_names_unknown_descriptor)
{
	setup(8);
	struct vq_buf b[2] = { { 0x1000, 1, false }, { 0x2000, 1, true } };
	int token;
	ck_assert_int_eq(vq_add(&q, b, 2, &token), 0);
	uint16_t head = q.avail->ring[0];
	device_done(200, 1);                       /* no such descriptor */
	device_done((uint16_t)(head + 1), 1);      /* not a head in flight */
	device_done(head, 7);
	uint32_t len;
	ck_assert_ptr_eq(vq_pop(&q, &len), &token);
	ck_assert_uint_eq(len, 7);
	ck_assert_uint_eq(q.bad_used, 2);
	ck_assert_uint_eq(q.num_free, 8);
}
END_TEST

/* Random requests of 1..4 buffers, finished in random order: every token
 * comes back once, with its length, and the free list never loses or
 * duplicates a descriptor (all of them free at the end, the queue then
 * fillable to the last descriptor). */
START_TEST(test_random_out_of_order)
{
	unsigned seed = getenv("VQ_SEED") ? (unsigned)atoi(getenv("VQ_SEED")) : 12345u;
	srand(seed);
	setup(32);
	enum { N = 5000 };
	static int tokens[N];
	int in_flight[32], nfl = 0, next = 0, popped = 0;
	uint16_t seen_avail = 0;
	while (popped < N) {
		int n = 1 + rand() % 4;
		struct vq_buf b[4] = { { 0, 1, false }, { 0, 2, true }, { 0, 3, true }, { 0, 4, true } };
		if (next < N && rand() % 2 && vq_add(&q, b, n, &tokens[next]) == 0)
			next++;
		for (; seen_avail != q.avail->idx; seen_avail++)   /* the device takes them */
			in_flight[nfl++] = q.avail->ring[seen_avail & 31];
		if (nfl && rand() % 2) {                             /* finishes one, any */
			int k = rand() % nfl;
			struct vq_desc d[32];
			device_done((uint16_t)in_flight[k], (uint32_t)chain((uint16_t)in_flight[k], d));
			in_flight[k] = in_flight[--nfl];
		}
		uint32_t len;
		int *t;
		while ((t = vq_pop(&q, &len))) {
			ck_assert_msg(*t == 0, "token %ld returned twice (seed %u)", (long)(t - tokens), seed);
			*t = 1;
			popped++;
		}
	}
	ck_assert_msg(q.num_free == 32 && nfl == 0, "%u free (seed %u)", q.num_free, seed);
	struct vq_buf one = { 0, 1, false };
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(vq_add(&q, &one, 1, &tokens[i]), 0);
	ck_assert_int_eq(vq_add(&q, &one, 1, &tokens[0]), -ENOSPC);
}
END_TEST

static Suite *vq_suite(void)
{
	Suite *s = suite_create("virtqueue");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_add_chain);
	tcase_add_test(tc, test_full_and_bad_sizes);
	tcase_add_test(tc, test_device_names_unknown_descriptor);
	tcase_add_test(tc, test_random_out_of_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vq_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
