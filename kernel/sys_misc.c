/* kernel/sys_misc.c -- time, identity, TLS, reboot. */
#include "kernel/syscall.h"
#include "fs/file.h"
#include "kernel/fs.h"
#include "lib/errno.h"
#include "kernel/ktest.h"
#include "lib/printk.h"
#include "kernel/proc.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "kernel/version.h"
#include "libc/include/pagoda/abi-linux.h"
#include "mm/memstat.h"
#include "mm/uaccess.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/reset.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/memlayout.h"

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

static long sys_uname(const uint64_t a[6])
{
	char u[6][65];
	memset(u, 0, sizeof(u));
	strlcpy(u[0], "Pagoda", 65);
	strlcpy(u[1], "pagoda", 65);
	strlcpy(u[2], PAGODA_VERSION, 65);
	strlcpy(u[3], "#1 " __DATE__, 65);
	strlcpy(u[4], "x86_64", 65);
	strlcpy(u[5], "(none)", 65);
	return copyout(a[0], u, sizeof(u));
}

/* getcpu(cpu, node, cache): the CPU the caller runs on (node 0: one NUMA
 * node); NULL pointers are skipped, the cache argument is unused (Linux). */
static long sys_getcpu(const uint64_t a[6])
{
	uint32_t cpu = (uint32_t)this_cpu()->id, node = 0;
	if (a[0] && copyout(a[0], &cpu, sizeof(cpu)) < 0)
		return -EFAULT;
	if (a[1] && copyout(a[1], &node, sizeof(node)) < 0)
		return -EFAULT;
	return 0;
}

/* sysinfo(2): Linux's struct sysinfo (what busybox free and uptime read). */
struct linux_sysinfo {
	int64_t uptime;             /* seconds since boot */
	uint64_t loads[3];          /* 1, 5, 15 min load, fixed point 1 << 16 */
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;          /* the unit of the sizes: bytes */
	char reserved[4];
};
_Static_assert(sizeof(struct linux_sysinfo) == 112, "Linux's struct sysinfo");

static long sys_sysinfo(const uint64_t a[6])
{
	struct linux_sysinfo si;
	struct mm_meminfo m;
	unsigned long avg[3];
	int running, total;
	memset(&si, 0, sizeof(si));
	mm_meminfo(&m);
	sched_loadavg(avg);
	proc_count(&running, &total);
	si.uptime = (int64_t)(clock_ns() / NSEC_PER_SEC);   /* as /proc/uptime: the TSC, not ticks */
	for (int i = 0; i < 3; i++)
		si.loads[i] = avg[i] * 65536 / 100;
	si.totalram = m.total;
	si.freeram = m.free;
	si.procs = (uint16_t)total;
	si.mem_unit = PAGE_SIZE;
	return copyout(a[0], &si, sizeof(si));
}

static long sys_clock_gettime(const uint64_t a[6])
{
	uint64_t ns = clock_ns();
	switch (a[0]) {
	case LINUX_CLOCK_REALTIME:
		ns += boot_epoch_ns();
		break;
	case LINUX_CLOCK_MONOTONIC:
	case LINUX_CLOCK_MONOTONIC_RAW:
	case LINUX_CLOCK_BOOTTIME:
		break;
	case LINUX_CLOCK_PROCESS_CPUTIME_ID: {
		struct group_times t;
		proc_group_times(current_proc(), &t);
		ns = (t.utime + t.stime) * (NSEC_PER_SEC / HZ);
		break;
	}
	default:
		return -EINVAL;
	}
	struct k_timespec ts = ns_to_timespec(ns);
	return copyout(a[1], &ts, sizeof(ts));
}

static long sys_gettimeofday(const uint64_t a[6])
{
	uint64_t ns = clock_ns() + boot_epoch_ns();
	int64_t tv[2] = { (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC / 1000) };
	return a[0] ? copyout(a[0], tv, sizeof(tv)) : 0;
}

static long sys_time(const uint64_t a[6])
{
	int64_t t = (int64_t)((clock_ns() + boot_epoch_ns()) / NSEC_PER_SEC);
	if (a[0] && copyout(a[0], &t, sizeof(t)) < 0)
		return -EFAULT;
	return t;
}

static long sys_times(const uint64_t a[6])
{
	struct group_times t;
	proc_group_times(current_proc(), &t);
	int64_t tms[4] = { (int64_t)t.utime, (int64_t)t.stime, (int64_t)t.cutime, (int64_t)t.cstime };
	if (a[0] && copyout(a[0], tms, sizeof(tms)) < 0)
		return -EFAULT;
	return (long)timer_ticks();
}

/* Sleep until deadline (clock_ns's scale) or a signal: 0, or -EINTR with
 * the time left written to rem if it is not 0 (-EFAULT if it cannot be). */
static long sleep_until(uint64_t deadline, uint64_t rem)
{
	sleep_until_ns(deadline);
	if (!signal_interrupted(current_proc()))
		return 0;
	uint64_t now = clock_ns(), left = deadline > now ? deadline - now : 0;
	struct k_timespec ts = ns_to_timespec(left);
	if (rem && copyout(rem, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	return -EINTR;
}

static long sys_nanosleep(const uint64_t a[6])
{
	uint64_t ns;
	int r = timespec_from_user(a[0], &ns);
	return r < 0 ? r : sleep_until(deadline_after(ns), a[1]);
}

/* clock_nanosleep(clock, flags, req, rem): the realtime clock is the
 * monotonic one plus the boot epoch, so a deadline on either becomes one
 * on clock_ns(). Linux's errors: -EINVAL for a clock that cannot sleep
 * (the CPU-time clocks here), -EOPNOTSUPP for MONOTONIC_RAW; a deadline
 * (TIMER_ABSTIME) leaves rem alone. */
static long sys_clock_nanosleep(const uint64_t a[6])
{
	enum time_clock c = TIME_MONOTONIC;
	uint64_t ns;
	switch (a[0]) {
	case LINUX_CLOCK_REALTIME:
		c = TIME_REALTIME;
		break;
	case LINUX_CLOCK_MONOTONIC:
	case LINUX_CLOCK_BOOTTIME:
		break;
	case LINUX_CLOCK_MONOTONIC_RAW:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	int r = timespec_from_user(a[2], &ns);
	if (r < 0)
		return r;
	if (a[1] & LINUX_TIMER_ABSTIME)
		return sleep_until(deadline_at(ns, c), 0);
	return sleep_until(deadline_after(ns), a[3]);
}

static long sys_arch_prctl(const uint64_t a[6])
{
	struct proc *p = current_proc();
	switch (a[0]) {
	case ARCH_SET_FS:
		if (a[1] >= USER_TOP)
			return -EPERM;
		p->fs_base = a[1];
		arch_set_fs_base(a[1]);
		return 0;
	case ARCH_GET_FS:
		return copyout(a[1], &p->fs_base, sizeof(p->fs_base));
	default:
		return -EINVAL;
	}
}

static long sys_set_tid_address(const uint64_t a[6])
{
	current_proc()->clear_child_tid = a[0];
	return current_proc()->pid;
}

static long sys_zero_id(const uint64_t a[6])
{
	(void)a;
	return 0;   /* everyone is root */
}

static long sys_reboot(const uint64_t a[6])
{
	if (a[0] != LINUX_REBOOT_MAGIC1)
		return -EINVAL;
	switch ((uint32_t)a[2]) {
	case LINUX_REBOOT_CMD_POWER_OFF:
	case LINUX_REBOOT_CMD_HALT:
		(void)vfs_sync_all(true);   /* (Linux leaves the sync to poweroff(8)): always clean */
		printk("pagoda: power off\n");
		ktest_exit(KTEST_EXIT_PASS);
		arch_power_off();
		break;
	case LINUX_REBOOT_CMD_RESTART:
		arch_reboot();
		arch_triple_fault();   /* no keyboard controller: reset anyway */
		break;
	default:
		return -EINVAL;
	}
	/* As on Linux, a successful reboot(2) does not return: the device
	 * acts a moment later, and a return would let the caller print an
	 * error first (poweroff said "I/O error" under make debug). */
	arch_halt();
}

/* getrandom(2): from /dev/urandom's generator (fs/chrdev.c), which
 * never blocks; unknown flags: -EINVAL. */
static long sys_getrandom(const uint64_t a[6])
{
	if (a[2] & ~7ull)    /* GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE */
		return -EINVAL;
	return random_to_user(a[0], MIN(a[1], 0x7fffffffull));
}

const struct syscall_entry sys_misc_table[] = {
	{ SYS_getrandom, "getrandom", sys_getrandom },
	{ SYS_uname, "uname", sys_uname },
	{ SYS_getcpu, "getcpu", sys_getcpu },
	{ SYS_sysinfo, "sysinfo", sys_sysinfo },
	{ SYS_clock_gettime, "clock_gettime", sys_clock_gettime },
	{ SYS_gettimeofday, "gettimeofday", sys_gettimeofday },
	{ SYS_time, "time", sys_time },
	{ SYS_times, "times", sys_times },
	{ SYS_nanosleep, "nanosleep", sys_nanosleep },
	{ SYS_clock_nanosleep, "clock_nanosleep", sys_clock_nanosleep },
	{ SYS_arch_prctl, "arch_prctl", sys_arch_prctl },
	{ SYS_set_tid_address, "set_tid_address", sys_set_tid_address },
	{ SYS_getuid, "getuid", sys_zero_id },
	{ SYS_geteuid, "geteuid", sys_zero_id },
	{ SYS_getgid, "getgid", sys_zero_id },
	{ SYS_getegid, "getegid", sys_zero_id },
	{ SYS_reboot, "reboot", sys_reboot },
	{ 0, NULL, NULL },
};
