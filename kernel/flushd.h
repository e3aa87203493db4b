/* kernel/flushd.h -- kflushd, the kernel thread that writes dirty file
 * pages and inodes out in the background (Linux's flusher threads), so a
 * file written and not fsync'd reaches its disk within a bounded time:
 *
 *   every 5 s: what was dirtied more than dirty_expire ago (boot options
 *              dirty_writeback=MS, default 5000, and dirty_expire=MS,
 *              default 30000: Linux's dirty_writeback and dirty_expire)
 *   every 1 s: everything, when more than a sixteenth of memory is dirty
 *              (Linux's dirty_background_ratio)
 *
 * The work is the VFS's (vfs_flush_old, fs/vfs.h); this layer has the
 * scheduler and the clock. Writers past an eighth of memory dirty still
 * write back themselves (fs/read_write.c), as Linux's balance_dirty_pages.
 */
#ifndef KERNEL_FLUSHD_H
#define KERNEL_FLUSHD_H

/* Start the thread (kmain, once the root is mounted); panics if it cannot. */
void flushd_start(void);

#endif
