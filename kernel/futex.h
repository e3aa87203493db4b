/* kernel/futex.h -- fast user-space mutexes: futex(2) and the wake at a
 * thread's exit.
 *
 * A futex is a 32-bit word of user memory. FUTEX_WAIT sleeps if the word
 * still holds the value the caller saw; FUTEX_WAKE wakes sleepers of the
 * same word. A word is named by its key: (address space, address) for
 * private memory (and for FUTEX_PRIVATE_FLAG), (backing object, offset) for
 * MAP_SHARED memory, so that processes mapping the same page at different
 * addresses meet. The check of the word and the enqueue happen under the
 * futex lock, and so does every wake: a wake between a waiter's check and
 * its sleep cannot be lost (docs/smp-and-locking.md, "Threads").
 */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include "lib/types.h"

struct proc;

/* futex(2) operations and flags: LINUX_FUTEX_* (shared with libc). */
#include "libc/include/pagoda/abi-linux.h"
#define FUTEX_BITSET_MATCH_ANY 0xffffffffU

/* Wake at most n waiters of the word at uaddr in the current address space
 * whose bitset meets bitset; private: FUTEX_PRIVATE_FLAG's key. The number
 * woken, or -EFAULT / -EINVAL for a bad or misaligned address. */
long futex_wake(vaddr_t uaddr, int n, uint32_t bitset, bool private);

/* The exit of thread p (current): its robust list (set_robust_list) is
 * walked, every futex word it still owns marked FUTEX_OWNER_DIED and one
 * waiter of each woken; then, if it has a clear_child_tid address and
 * shares its memory with another thread, 0 is written there and one
 * waiter woken (pthread_join). Errors are ignored, as on Linux. */
void futex_exit_notify(struct proc *p);

/* execve of thread p (current): its robust list is walked as at exit and
 * forgotten (the new program has none). */
void futex_exec_notify(struct proc *p);

#endif
