/* lib/atomic.h -- the few atomic operations the kernel uses, by name.
 *
 * Thin wrappers over GCC's __atomic builtins, so call sites say what they
 * mean (atomic_inc of a reference count, stat_add of a statistic) and the
 * memory order is chosen once, here:
 *
 *   atomic_load / atomic_store      acquire / release
 *   atomic_inc / atomic_add         relaxed: a count nothing else is ordered by
 *   atomic_dec_and_test             acq_rel: the last reference frees the object,
 *                                   and every earlier write must be visible then
 *   atomic_xchg / atomic_cmpxchg    sequentially consistent (x86: lock xchg /
 *                                   lock cmpxchg either way)
 *   stat_add / stat_inc / stat_sub  relaxed add to a statistic that several
 *                                   CPUs may bump at once (never lost, never
 *                                   used to order anything)
 *
 * Every operation works on any naturally aligned integer of 1, 2, 4 or 8
 * bytes. Nothing here panics or fails.
 */
#ifndef LIB_ATOMIC_H
#define LIB_ATOMIC_H

#define atomic_load(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define atomic_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define atomic_inc(p) ((void)__atomic_add_fetch((p), 1, __ATOMIC_RELAXED))
#define atomic_add(p, v) ((void)__atomic_add_fetch((p), (v), __ATOMIC_RELAXED))
/* Add v, return the new value. */
#define atomic_add_return(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
/* Subtract one; true when the result is 0 (the caller held the last one). */
#define atomic_dec_and_test(p) (__atomic_sub_fetch((p), 1, __ATOMIC_ACQ_REL) == 0)
/* Store v, return the old value. */
#define atomic_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
/* If *p == *expected store v and return true; else copy *p to *expected
 * and return false. */
#define atomic_cmpxchg(p, expected, v) \
	__atomic_compare_exchange_n((p), (expected), (v), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#define stat_add(p, v) ((void)__atomic_add_fetch((p), (v), __ATOMIC_RELAXED))
#define stat_inc(p) stat_add((p), 1)
#define stat_sub(p, v) ((void)__atomic_sub_fetch((p), (v), __ATOMIC_RELAXED))

#endif
