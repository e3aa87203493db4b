/* user/usertests/usertests.h -- the user-level test suite, xv6 shape.
 *
 * Each test is a function run in its own forked child: it returns (or
 * exits 0) to pass and calls ut_fail (through the CHECK macros) to fail with
 * a reason. The runner (main.c) waits for the child, decides by its exit
 * status, and prints one line per test:
 *     TEST user.NAME PASS
 *     TEST user.NAME FAIL <why>
 * then "USERTESTS END <n> passed, <m> failed". Portable C: the same files
 * build against newlib (Pagoda) and musl (usertests-musl), and run on Linux.
 */
#ifndef USERTESTS_H
#define USERTESTS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* Tests that read siginfo: musl only (newlib's struct sigaction has no
 * SA_SIGINFO), so usertests-musl runs them, on Pagoda and on Linux. */
#ifdef SA_SIGINFO
#define UT_SIGINFO_TESTS(X) X(sig_segv_codes) X(sig_frame_fpu_tail)
#else
#define UT_SIGINFO_TESTS(X)
#endif

/* Every test, in the order they run. X(name) defines user.name. */
#define USERTESTS(X)                                                          \
	X(exit_status) X(fork_wait) X(wait_nochild) X(getppid) X(exec_echo)      \
	X(exec_errors) X(exec_dynamic) X(exec_loader_cmd) X(exec_badelf)         \
	X(libshare_libc) X(libshare_exec_race) X(libshare_write) X(libshare_exit_orders) X(libshare_dlopen) \
	X(kill_child) X(kill_zombie) X(children64) X(clone_fork) X(vfork_waits)                          \
	X(smp_fork_stress) X(smp_spread) X(shm_fault_race)                                  \
	X(fault_null) X(fault_prot_none) X(fault_rodata) X(fault_text)           \
	X(fault_mprotect_ro) X(fault_munmapped)                                  \
	X(cow_child_write) X(cow_parent_write) X(cow_large) X(cow_mprotect)      \
	X(pipe_basic) X(pipe_large) X(pipe_eof) X(pipe_closed_reader)            \
	X(pipe_atomic) X(pipe_fault_keeps)                                       \
	X(files_create_rw) X(files_errors) X(files_mkdir_rmdir) X(files_rename)  \
	X(files_links) X(files_unlink_open) X(files_readdir) X(files_truncate)   \
	X(files_truncate_mapped) X(files_punch_hole) X(files_punch_exec)          \
	X(files_fault_around)                                                    \
	X(files_fadvise) X(procfs_vmflags_advice) X(exec_data_mapped)          \
	X(files_cwd) X(files_mmap_shared) X(files_devices) X(files_mounts)       \
	X(files_times) X(files_statx) X(files_fallocate) X(files_locks)         \
	X(files_flock) X(files_filecache) X(files_msync) X(files_mprotect_shared) X(files_lock_wait) X(files_rename_exchange)               \
	X(pipe2_flags) X(dup_fds) X(fd_cloexec) X(exec_cloexec) X(fd_status_flags)      \
	X(efault_read) X(efault_write) X(efault_open) X(efault_misc)             \
	X(efault_prot_none)                                                      \
	X(mmap_anon) X(mmap_fixed) X(mmap_shared) X(munmap_split)                \
	X(mmap_private_file) X(zero_page) X(zero_page_65536)                     \
	X(shm_lazy) X(shm_dontneed) X(shm_remove_everywhere) X(shm_readonly) X(shm_is_shmem) X(mremap_file)                              \
	X(mmap_hint_unaligned) X(mmap_shared_validate) X(mmap_wronly) X(mmap_procfs)           \
	X(mmap_eoverflow) X(mmap_sigbus) X(munmap_mprotect_overflow) X(mmap_populate)           \
	X(munmap_low_madvise_top) X(madv_fork) X(madv_advices)                   \
	X(rss_zero_page) X(madv_willneed_anon) X(pss_sum)                        \
	X(mremap_in_place) X(mremap_move) X(mremap_shared) X(mremap_errors)      \
	X(realloc_large) X(mincore_basic)                                        \
	X(mprotect_basic) X(madvise_dontneed) X(mmap_errors) X(munmap_errors)    \
	X(mprotect_errors) X(madvise_errors) X(madvise_read_lock)                                   \
	X(madv_free_rewrite) X(madv_free_dontneed) X(madv_free_errors)           \
	X(madv_free_fork) X(madv_free_exit) X(madv_free_pressure) X(madv_free_background)                \
	X(brk_grow_shrink) X(sbrk_huge) X(malloc_many)                           \
	X(malloc_patterns) X(malloc_purge_counts) X(malloc_purge)                \
	X(clock_realtime) X(clock_sleep) X(clock_nanosleep) X(times_faults) X(uname_ids) X(cwd) X(tcgets_size)        \
	X(ptshare_isolation) X(ptshare_vmquery) X(pttree) X(ptshare_chain3)      \
	X(ptshare_munmap_half) X(ptshare_munmap_faults) X(ptshare_pipe_read)     \
	X(ptshare_exit_orders) X(ptshare_children64) X(ptshare_exec_after_fork)  \
	X(ptshare_pd_big) X(ptshare_pd_gib)                                       \
	X(sig_handler) X(sig_default) X(sig_mask) X(sig_errors)                  \
	X(sig_segv_handler) UT_SIGINFO_TESTS(X) X(sig_regs_preserved) X(sig_pause) \
	X(sig_bad_sigreturn) X(sig_chld_suspend)                                 \
	X(itimer_alarm) X(itimer_interval) X(itimer_fork) X(itimer_errors)       \
	X(timeout_saturates)                                                     \
	X(forkbench_errors) X(forkbench_run)                                    \
	X(procfs_meminfo) X(procfs_vmstat) X(procfs_status) X(procfs_fork)      \
	X(procfs_maps) X(procfs_smaps) X(procfs_stat_statm) X(procfs_cmdline)   \
	X(procfs_misc) X(procfs_ptshare) X(procfs_links) X(procfs_stale)        \
	X(procfs_lockstat) X(procfs_wchan)                                      \
	X(forkbomb) X(oom) X(oom_victim) X(oom_syscall)

#define UT_DECLARE(name) void test_##name(void);
USERTESTS(UT_DECLARE)

/* ut_fail: report why the current test failed (file:line: message) to the
 * runner and exit the test's process with status 1. printf-style. */
void ut_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/* CHECK(cond): fail with the condition's text unless cond holds. */
#define CHECK(cond) \
	do { if (!(cond)) ut_fail(__FILE__, __LINE__, "%s", #cond); } while (0)

/* CHECK_ERR(expr, err): expr must evaluate to -1 with errno == err. */
#define CHECK_ERR(expr, err) \
	ut_check_err((long)(expr), (err), #expr, #err, __FILE__, __LINE__)
void ut_check_err(long r, int want, const char *expr, const char *wname,
		  const char *file, int line);

/* CHECK_OK(expr): expr must not be -1; on -1 fail naming errno. */
#define CHECK_OK(expr) ut_check_ok((long)(expr), #expr, __FILE__, __LINE__)
long ut_check_ok(long r, const char *expr, const char *file, int line);

/* CHECK_MAP_ERR(mmap(...), err): the mmap must fail with errno err. */
#define CHECK_MAP_ERR(call, err) CHECK_ERR((call) == MAP_FAILED ? -1 : 0, err)

/* ut_fork: fork for tests (use it instead of fork): flushes stdio first
 * and, in the child, closes the runner's report pipe so that only the test
 * process itself holds it. Fails the test if fork fails. */
pid_t ut_fork(void);

/* ut_fork_try: like ut_fork, but returns -1 (errno set) instead of failing. */
pid_t ut_fork_try(void);

/* ut_wait: wait for pid and return its raw status; fails the test if
 * waitpid fails or reaps another process. */
int ut_wait(pid_t pid);

/* ut_run: run fn(arg) in a forked child that then exits 0; its status. */
int ut_run(void (*fn)(void *), void *arg);

/* ut_expect_signal: fn(arg) in a child must be killed by signal sig. */
#define ut_expect_signal(sig, fn, arg) \
	ut_expect_signal_at((sig), #sig, (fn), (arg), #fn, __FILE__, __LINE__)
void ut_expect_signal_at(int sig, const char *sname, void (*fn)(void *), void *arg,
			 const char *fname, const char *file, int line);

/* ut_poke, ut_peek: write / read one byte at p, for real (volatile): the
 * bodies that ut_expect_signal runs to prove an address faults. */
void ut_poke(void *p);
void ut_peek(void *p);

/* ut_state_becomes: does /proc/PID/stat's state field become c (polling,
 * about 5 s at most)? 1 or 0. */
int ut_state_becomes(pid_t pid, char c);

/* ut_procinfo: pid's entry of the process table (pagoda_procinfo) into
 * *pi: 0, or -1 when no live process has that pid or the kernel has no
 * such call (Linux). */
struct pagoda_procinfo;
int ut_procinfo(pid_t pid, struct pagoda_procinfo *pi);

/* ut_map_anon: a fresh private anonymous read-write mapping of len bytes;
 * a failed mmap fails the test. */
void *ut_map_anon(size_t len);

/* ut_status_str: "exit 3" / "signal 11" / ... for a wait status. */
const char *ut_status_str(int status);

/* ut_bindir: the directory holding the test programs ("/bin" on Pagoda,
 * where usertests itself was started from on Linux). */
extern const char *ut_bindir;

/* pss_sum_check (t_rss.c): the PSS of all processes adds up to the distinct
 * user frames mapped (Pagoda only: pagoda_meminfo/procinfo); fails else. */
void pss_sum_check(void);

/* ut_on_linux: true when running on Linux rather than Pagoda (uname). */
int ut_on_linux(void);

/* ut_vmstat: counter name of /proc/vmstat; fails the test (and returns
 * -1) when there is none. */
long long ut_vmstat(const char *name);

/* ut_addr: the address v as a pointer the compiler cannot see through (so
 * deliberately bad pointers do not trip its static checks). */
static inline void *ut_addr(uintptr_t v)
{
	__asm__("" : "+r"(v));
	return (void *)v;
}

/* Where ut_fail writes its reason; -1 outside a test child. */
extern int ut_report_fd;

#endif
