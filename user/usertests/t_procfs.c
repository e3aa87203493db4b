/* user/usertests/t_procfs.c -- /proc: formats checked against Linux's,
 * figures checked against what the test itself did.
 *
 * The same binary runs on Pagoda and on the Linux host (tests/scripts.txt),
 * so the reference field lists below are checked against real Linux: on
 * both kernels every reference field must be there, in the reference order,
 * with Linux's column layout. On Pagoda no other field may appear but the
 * listed Pagoda-only ones (docs/procfs.md). Figures are exact on Pagoda; on
 * Linux, status's RSS counters are per-CPU approximations, so those few
 * checks allow Linux its documented slack (smaps figures are exact there
 * too: they come from a page walk).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "usertests.h"

#define PAGE 4096
#define KB(pages) ((long long)(pages) * (PAGE / 1024))
#define LINUX_RSS_SLACK_KB 1024   /* percpu_counter batches on Linux */

/* ---- reading files without allocating (so reads change no figure) ---- */

static char pbuf[65536];

/* The text of path in a static buffer (fails the test if unreadable). */
static const char *slurp(const char *path)
{
	memset(pbuf, 0, sizeof(pbuf));
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		ut_fail(__FILE__, __LINE__, "open %s: errno %d", path, errno);
	size_t n = 0;
	ssize_t r;
	while ((r = read(fd, pbuf + n, sizeof(pbuf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	if (r < 0)
		ut_fail(__FILE__, __LINE__, "read %s: errno %d", path, errno);
	pbuf[n] = '\0';
	return pbuf;
}

/* procfs_field of path's text, failing the test when the field is absent. */
static long long field_of(const char *path, const char *name)
{
	long long v = procfs_field(slurp(path), name);
	if (v < 0)
		ut_fail(__FILE__, __LINE__, "%s: no %s", path, name);
	return v;
}

/* ---- formats ---- */

static int in_list(const char *const list[], const char *name)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return i;
	return -1;
}

/* The name of the line at l (up to sep) into name. */
static void line_name(const char *l, char sep, char *name, size_t n)
{
	size_t len = strcspn(l, sep == ':' ? ":\n" : " \n");
	len = len < n - 1 ? len : n - 1;
	memcpy(name, l, len);
	name[len] = '\0';
}

/* Lines of text (up to a line for which stop() is true) name their fields
 * before sep: every name of ref must appear, in ref's order; on Pagoda no
 * name outside ref and extra may appear. */
static void check_fields(const char *what, const char *text, char sep,
			 const char *const ref[], const char *const extra[])
{
	int next = 0;
	char name[64];
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		if (!strchr(l, '\n'))
			break;
		line_name(l, sep, name, sizeof(name));
		int i = in_list(ref, name);
		if (i >= 0 && i < next)
			ut_fail(__FILE__, __LINE__, "%s: %s out of Linux's order", what, name);
		if (i >= 0 && i > next)
			ut_fail(__FILE__, __LINE__, "%s: %s before %s", what, name, ref[next]);
		if (i >= 0)
			next++;
		else if (!ut_on_linux() && in_list(extra, name) < 0)
			ut_fail(__FILE__, __LINE__, "%s: field %s is neither Linux's nor listed", what, name);
	}
	if (ref[next])
		ut_fail(__FILE__, __LINE__, "%s: no %s", what, ref[next]);
}

/* Every line of text whose name is in ref and ends in " kB" has Linux's
 * layout: pre (the name and colon, then padding to col characters, or a
 * tab), the value right-aligned in 8 columns, " kB". */
static void check_kb_layout(const char *what, const char *text, const char *const ref[],
			    int col)
{
	char name[64];
	for (const char *l = text; *l && strchr(l, '\n'); l = strchr(l, '\n') + 1) {
		size_t len = strcspn(l, "\n");
		line_name(l, ':', name, sizeof(name));
		if (in_list(ref, name) < 0 || len < 3 || strncmp(l + len - 3, " kB", 3))
			continue;
		size_t start = col ? (size_t)col : strlen(name) + 2;
		if (!col && l[strlen(name) + 1] != '\t')
			ut_fail(__FILE__, __LINE__, "%s: %s: no tab after the colon", what, name);
		const char *num = l + start;
		int digits = 0;
		while (num[digits] == ' ')
			num++;
		while (isdigit((unsigned char)num[digits]))
			digits++;
		if (len - 3 - start != 8 && digits <= 8)
			ut_fail(__FILE__, __LINE__, "%s: %s: value not in 8 columns", what, name);
		if (num + digits != l + len - 3)
			ut_fail(__FILE__, __LINE__, "%s: %s: malformed line", what, name);
	}
}

static const char *const meminfo_ref[] = { "MemTotal", "MemFree", "MemAvailable",
	"Buffers", "Cached", "SwapCached", "SwapTotal", "SwapFree", "Dirty", "Writeback",
	"AnonPages", "Mapped", "Shmem", "PageTables", NULL };
static const char *const meminfo_extra[] = { "Kernel", "LazyFree", "SharedPT", "SharedPD",
	"PTSaved", "ShmemSwapped", "UserFrames", "PssTotal", NULL };

static const char *const status_ref[] = { "Name", "State", "Tgid", "Ngid", "Pid", "PPid",
	"TracerPid", "Uid", "Gid", "FDSize", "Groups", "NStgid", "NSpid", "VmSize", "VmLck",
	"VmPin", "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmData", "VmStk", "VmExe",
	"VmLib", "VmPTE", "VmSwap", "HugetlbPages", "Threads", "SigPnd", "ShdPnd", "SigBlk",
	"SigIgn", "SigCgt", NULL };
static const char *const status_extra[] = { "PTPages", "PTShared", NULL };

#define SMAPS_COUNTS "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty", \
	"Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages", "ShmemPmdMapped", \
	"FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss", "Locked"
static const char *const smaps_ref[] = { "Size", "KernelPageSize", "MMUPageSize", "Rss",
	"Pss", "Pss_Dirty", SMAPS_COUNTS, "THPeligible", "VmFlags", NULL };
static const char *const rollup_ref[] = { "Rss", "Pss", "Pss_Dirty", "Pss_Anon",
	"Pss_File", "Pss_Shmem", SMAPS_COUNTS, NULL };
static const char *const none[] = { NULL };

static const char *const vmstat_ref[] = { "nr_free_pages", "nr_inactive_anon", "nr_active_anon",
	"nr_inactive_file", "nr_active_file", "workingset_refault_anon",
	"workingset_refault_file", "workingset_activate_anon", "workingset_activate_file",
	"nr_anon_pages", "nr_mapped", "nr_file_pages", "nr_page_table_pages", "pgpgin",
	"pgpgout", "pswpin", "pswpout", "pgactivate", "pgdeactivate", "pglazyfree", "pgfault",
	"pgmajfault", "pglazyfreed", "pgreuse", "pgsteal_kswapd", "pgsteal_direct",
	"pgscan_direct", "pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file",
	"slabs_scanned", "pageoutrun", "oom_kill", "swap_ra", "swap_ra_hit", NULL };
static const char *const vmstat_extra[] = { "nr_tlb_local_flush_all",
	"nr_tlb_local_flush_one", "nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"tlb_shootdown_pages", "tlb_shootdown_full", "tlb_shootdown_avoided", "pgfault_zero", "pgfault_zero_page", "pgfault_file",
	"pgfault_around",
	"pgfault_cow", "pgfault_mkwrite", "pglazyfree_reused", "reclaim_runs", "pt_fork_shared",
	"pt_fork_copied", "pt_unshare_copy", "pt_unshare_last", "pt_fork_shared_pd",
	"pd_unshare_copy", "pd_unshare_last", "pt_text_created",
	"pt_text_attached", "ptshare_mode", NULL };

/* ---- the tests ---- */

/* procfs_meminfo: Linux's fields, order and columns; sane relations. */
void test_procfs_meminfo(void)
{
	const char *t = slurp("/proc/meminfo");
	check_fields("meminfo", t, ':', meminfo_ref, meminfo_extra);
	check_kb_layout("meminfo", t, meminfo_ref, 16);
	long long total = procfs_field(t, "MemTotal"), free = procfs_field(t, "MemFree");
	CHECK(total > 0 && free > 0 && free <= total);
	CHECK(procfs_field(t, "MemAvailable") >= free || ut_on_linux());
	CHECK(procfs_field(t, "PageTables") > 0);
	long long used = procfs_field(t, "AnonPages") + procfs_field(t, "Cached") +
			 procfs_field(t, "Buffers");
	CHECK(free + used <= total);   /* what free(1) subtracts must fit */
	if (!ut_on_linux())            /* Pagoda's parts add up exactly */
		CHECK(total == free + used + procfs_field(t, "Kernel") +
		      procfs_field(t, "PageTables"));
}

/* procfs_vmstat: "name value" lines in Linux's order; touching n new
 * pages takes at least n faults. */
void test_procfs_vmstat(void)
{
	enum { N = 32 };
	const char *t = slurp("/proc/vmstat");
	check_fields("vmstat", t, ' ', vmstat_ref, vmstat_extra);
	char *m = mmap(NULL, N * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	long long before = procfs_counter(slurp("/proc/vmstat"), "pgfault"), after;
	for (int i = 0; i < N; i++)
		m[i * PAGE] = 1;
	after = procfs_counter(slurp("/proc/vmstat"), "pgfault");
	CHECK(before >= 0 && after - before >= N);
}

/* procfs_status: fields and layout; who we are; RSS grows by exactly the
 * pages touched, VmSize by the pages mapped. */
void test_procfs_status(void)
{
	enum { N = 40 };
	const char *t = slurp("/proc/self/status");
	char name[32];
	check_fields("status", t, ':', status_ref, status_extra);
	check_kb_layout("status", t, status_ref, 0);
	CHECK(procfs_field(t, "Pid") == getpid() && procfs_field(t, "Tgid") == getpid());
	CHECK(procfs_field(t, "PPid") == getppid());
	CHECK(procfs_string(t, "State", name, sizeof(name)) && !strcmp(name, "R (running)"));
	CHECK(procfs_string(t, "Name", name, sizeof(name)) && !strncmp(name, "usertests", 9));
	CHECK(procfs_field(t, "VmRSS") == procfs_field(t, "RssAnon") +
	      procfs_field(t, "RssFile") + procfs_field(t, "RssShmem"));

	long long size0 = field_of("/proc/self/status", "VmSize");
	char *m = mmap(NULL, N * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	CHECK(field_of("/proc/self/status", "VmSize") - size0 == KB(N));
	long long rss0 = field_of("/proc/self/status", "RssAnon");
	/* rollup's Anonymous: Rss would also count text pages this code faults
	 * in on first use (ptshare=off maps text on demand) */
	long long roll0 = field_of("/proc/self/smaps_rollup", "Anonymous");
	for (int i = 0; i < N; i++)
		m[i * PAGE] = 1;
	long long grew = field_of("/proc/self/status", "RssAnon") - rss0;
	CHECK(grew == KB(N) || (ut_on_linux() && llabs(grew - KB(N)) <= LINUX_RSS_SLACK_KB));
	CHECK(field_of("/proc/self/smaps_rollup", "Anonymous") - roll0 == KB(N));
	CHECK(munmap(m, N * PAGE) == 0);
	CHECK(field_of("/proc/self/status", "VmSize") == size0);

	/* shared anonymous memory is RssShmem */
	char *sh = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	long long shm0 = field_of("/proc/self/status", "RssShmem");
	for (int i = 0; i < 4; i++)
		sh[i * PAGE] = 1;
	grew = field_of("/proc/self/status", "RssShmem") - shm0;
	CHECK(grew == KB(4) || (ut_on_linux() && llabs(grew - KB(4)) <= LINUX_RSS_SLACK_KB));
	CHECK(munmap(sh, 4 * PAGE) == 0);
	if (!ut_on_linux())
		CHECK(field_of("/proc/self/status", "PTPages") > 0);
}

/* Find the pid's line in /proc's listing. */
static int proc_lists(int pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0, self = 0;
	CHECK(d != NULL);
	while ((e = readdir(d))) {
		found |= atoi(e->d_name) == pid;
		self |= !strcmp(e->d_name, "self");
	}
	closedir(d);
	CHECK(self);
	return found;
}

/* procfs_fork: a child sees its parent in PPid, the parent sees the child
 * in /proc (status and stat) until it is reaped; then it is gone. */
void test_procfs_fork(void)
{
	int go[2], ready[2];
	char path[64], c = 0;
	CHECK(pipe(go) == 0 && pipe(ready) == 0);
	pid_t parent = getpid(), pid = ut_fork();
	if (pid == 0) {
		close(go[1]);
		if (field_of("/proc/self/status", "PPid") != parent ||
		    field_of("/proc/self/status", "Pid") != getpid())
			_exit(2);
		write(ready[1], "r", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) != 1)
		ut_fail(__FILE__, __LINE__, "the child's /proc/self/status: %s",
			ut_status_str(ut_wait(pid)));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	CHECK(field_of(path, "PPid") == parent && field_of(path, "Pid") == pid);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int spid = 0, sppid = 0;
	char state = 0, comm[64];
	CHECK(sscanf(slurp(path), "%d (%63[^)]) %c %d", &spid, comm, &state, &sppid) == 4);
	CHECK(!strncmp(comm, "usertests", 9));
	CHECK(spid == pid && sppid == parent && (state == 'S' || state == 'R'));
	CHECK(proc_lists(pid));
	CHECK(write(go[1], "g", 1) == 1);
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	CHECK_ERR(open(path, O_RDONLY), ENOENT);
	CHECK(!proc_lists(pid));
}

/* The maps line for the mapping that starts at p, or NULL. */
static const char *maps_line(const char *maps, const void *p)
{
	char want[32];
	snprintf(want, sizeof(want), "%08lx-", (unsigned long)p);
	for (const char *l = maps; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, want, strlen(want)))
			return l;
	return NULL;
}

/* The path at the end of maps line l (NULL: none) into buf (n bytes). */
static const char *maps_path(const char *l, char *buf, size_t n)
{
	const char *eol = strchr(l, '\n'), *slash = strchr(l, '/');
	if (!eol || !slash || slash > eol)
		return NULL;
	snprintf(buf, n, "%.*s", (int)(eol - slash), slash);
	return buf;
}

/* exec_data_mapped: exec maps a program's writable data privately from its
 * file, as Linux's ELF loader does (copied on the first store, never at
 * exec): /proc/self/maps has an rw-p line with the program's path beside
 * its r-xp text. (Pagoda copied the data segment into anonymous memory.) */
void test_exec_data_mapped(void)
{
	const char *t = slurp("/proc/self/maps");
	char text[256] = "", p[256];
	int rw = 0;
	for (const char *l = t; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!text[0] && strstr(l, " r-xp ") && maps_path(l, p, sizeof p))
			snprintf(text, sizeof text, "%s", p);
	CHECK(text[0] != '\0');
	for (const char *l = t; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		rw |= !strncmp(strchr(l, ' ') + 1, "rw-p ", 5) && maps_path(l, p, sizeof p) &&
		      !strcmp(p, text);
	if (!rw)
		ut_fail(__FILE__, __LINE__, "no rw-p mapping of %s:\n%s", text, t);
}

/* Does the maps line at l say [start,end) perms, offset, dev, inode? */
static int maps_says(const char *l, const void *start, size_t len, const char *perms)
{
	char want[96];
	snprintf(want, sizeof(want), "%08lx-%08lx %s 00000000 00:00 0 ",
		 (unsigned long)start, (unsigned long)start + len, perms);
	return l && !strncmp(l, want, strlen(want));
}

/* The low `bytes` bytes of v. */
static unsigned long low_bits(unsigned long v, size_t bytes)
{
	return bytes >= sizeof(v) ? v : v & ((1UL << (8 * bytes)) - 1);
}

/* procfs_maps: every mapping the test makes has its line, with Linux's
 * columns; a munmap in the middle splits it; a file mapping names the file
 * at column 73, with its inode. */
void test_procfs_maps(void)
{
	char *a = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	CHECK(mprotect(a + 6 * PAGE, 2 * PAGE, PROT_READ | PROT_EXEC) == 0);
	CHECK(munmap(a + 2 * PAGE, 2 * PAGE) == 0);
	const char *maps = slurp("/proc/self/maps");
	CHECK(maps_says(maps_line(maps, a), a, 2 * PAGE, "rw-p"));
	CHECK(maps_says(maps_line(maps, a + 4 * PAGE), a + 4 * PAGE, 2 * PAGE, "rw-p"));
	CHECK(maps_says(maps_line(maps, a + 6 * PAGE), a + 6 * PAGE, 2 * PAGE, "r-xp"));
	CHECK(!maps_line(maps, a + 2 * PAGE));
	/* shared anonymous memory: Linux's name for it */
	char want[64];
	snprintf(want, sizeof(want), "%08lx-%08lx r--s 00000000 00:01 ", (unsigned long)b,
		 (unsigned long)b + 2 * PAGE);
	const char *bl = maps_line(maps, b);
	CHECK(bl && !strncmp(bl, want, strlen(want)));
	CHECK(!strncmp(bl + 73, "/dev/zero (deleted)\n", 20));
	const char *stack = strstr(maps, "[stack]\n");
	CHECK(stack && stack[-1] == ' ');
	const char *sl = stack;
	while (sl > maps && sl[-1] != '\n')
		sl--;
	CHECK(stack - sl == 73);

	char path[300];
	struct stat st;
	snprintf(path, sizeof(path), "%s/hello", ut_bindir);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	char *f = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(f != MAP_FAILED);
	close(fd);
	const char *l = maps_line(slurp("/proc/self/maps"), f);
	char perms[8];
	unsigned long off, ino;
	unsigned major, minor;
	CHECK(l && sscanf(l, "%*x-%*x %7s %lx %x:%x %lu ", perms, &off, &major, &minor, &ino) == 5);
	CHECK(!strcmp(perms, "r--p") && off == 0);
	/* newlib's dev_t and ino_t are 16 bits wide: compare what it keeps */
	unsigned long dev = (major << 8) | minor;
	CHECK(low_bits(dev, sizeof(st.st_dev)) == low_bits(st.st_dev, sizeof(st.st_dev)));
	CHECK(low_bits(ino, sizeof(st.st_ino)) == low_bits(st.st_ino, sizeof(st.st_ino)));
	CHECK(strlen(l) > 73 && l[72] == ' ' && l[73] == '/');
	CHECK(!strncmp(strchr(l, '\n') - 6, "/hello", 6));
}

/* The smaps section of the VMA starting at p (in pbuf: cut at its end). */
static const char *smaps_of(const void *p)
{
	char *l = (char *)maps_line(slurp("/proc/self/smaps"), p);
	CHECK(l != NULL);
	char *end = strstr(l, "VmFlags:");
	CHECK(end != NULL);
	end = strchr(end, '\n');
	end[1] = '\0';
	return strchr(l, '\n') + 1;
}

/* Does the VmFlags line of smaps section s name flag (two letters)? */
static int vmflag(const char *s, const char *flag)
{
	char want[8];
	snprintf(want, sizeof want, " %s ", flag);
	const char *l = strstr(s, "VmFlags:");
	return l && strstr(l, want) != NULL;
}

/* procfs_vmflags_advice: madvise's read-ahead advice is a flag of the VMA
 * that smaps shows (MADV_SEQUENTIAL "sr", MADV_RANDOM "rr", MADV_NORMAL
 * neither), on a file mapping and on anonymous memory; advice on part of
 * a VMA splits it, and NORMAL lets the parts merge again. MADV_DONTFORK
 * and MADV_WIPEONFORK show as "dc" and "wf". */
void test_procfs_vmflags_advice(void)
{
	enum { P = 4096 };
	char *m = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	CHECK_OK(madvise(m + P, P, MADV_SEQUENTIAL));
	CHECK_OK(madvise(m + 2 * P, P, MADV_RANDOM));
	CHECK(!vmflag(smaps_of(m), "sr") && !vmflag(smaps_of(m), "rr"));
	CHECK(vmflag(smaps_of(m + P), "sr") && !vmflag(smaps_of(m + P), "rr"));
	CHECK(vmflag(smaps_of(m + 2 * P), "rr") && !vmflag(smaps_of(m + 2 * P), "sr"));
	CHECK_OK(madvise(m + 2 * P, P, MADV_SEQUENTIAL));   /* one replaces the other */
	CHECK(vmflag(smaps_of(m + P), "sr") && !vmflag(smaps_of(m + P), "rr"));
	CHECK_OK(madvise(m, 4 * P, MADV_NORMAL));
	CHECK(!vmflag(smaps_of(m), "sr") && procfs_field(smaps_of(m), "Size") >= 4 * P / 1024);
	CHECK_OK(madvise(m, P, MADV_DONTFORK));
	CHECK_OK(madvise(m + P, P, MADV_WIPEONFORK));
	CHECK(vmflag(smaps_of(m), "dc") && vmflag(smaps_of(m + P), "wf"));
	CHECK_OK(munmap(m, 4 * P));
	char path[256];
	snprintf(path, sizeof(path), "%s/hello", ut_bindir);
	int fd = CHECK_OK(open(path, O_RDONLY));
	char *f = mmap(NULL, P, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(f != MAP_FAILED);
	CHECK_OK(madvise(f, P, MADV_RANDOM));
	CHECK(vmflag(smaps_of(f), "rr") && f[1] == 'E');   /* ELF */
	CHECK_OK(munmap(f, P));
	CHECK_OK(close(fd));
}

/* The sum of every VMA's Rss in /proc/self/smaps (kB). */
static long long smaps_rss_sum(void)
{
	long long sum = 0;
	const char *all = slurp("/proc/self/smaps");
	for (const char *l = strstr(all, "\nRss:"); l; l = strstr(l + 1, "\nRss:"))
		sum += strtoll(l + 5, NULL, 10);
	return sum;
}

/* procfs_smaps: per-VMA figures of an anonymous mapping follow what the
 * test did: touched pages are resident, private and dirty; after fork they
 * are shared and PSS halves; MADV_FREE shows as LazyFree; smaps_rollup is
 * the sum over all VMAs. */
void test_procfs_smaps(void)
{
	enum { N = 16, T = 10, F = 4 };
	char *m = mmap(NULL, N * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	for (int i = 0; i < T; i++)
		m[i * PAGE] = 1;
	const char *s = smaps_of(m);
	check_fields("smaps", s, ':', smaps_ref, none);
	check_kb_layout("smaps", s, smaps_ref, 16);
	CHECK(procfs_field(s, "Size") == KB(N) && procfs_field(s, "Rss") == KB(T));
	CHECK(procfs_field(s, "Pss") == KB(T) && procfs_field(s, "Private_Dirty") == KB(T));
	CHECK(procfs_field(s, "Anonymous") == KB(T) && procfs_field(s, "Shared_Dirty") == 0);

	int go[2];
	char c;
	CHECK(pipe(go) == 0);
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(go[1]);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	s = smaps_of(m);
	CHECK(procfs_field(s, "Rss") == KB(T) && procfs_field(s, "Pss") == KB(T) / 2);
	CHECK(procfs_field(s, "Shared_Dirty") == KB(T) && procfs_field(s, "Private_Dirty") == 0);
	CHECK(write(go[1], "g", 1) == 1);
	ut_wait(pid);
	CHECK(procfs_field(smaps_of(m), "Pss") == KB(T));

	CHECK(madvise(m, F * PAGE, MADV_FREE) == 0);
	/* Linux moves MADV_FREE'd pages to its lazy-free list in per-CPU
	 * batches: its LazyFree may lag behind */
	CHECK(procfs_field(smaps_of(m), "LazyFree") == KB(F) || ut_on_linux());

	const char *r = slurp("/proc/self/smaps_rollup");
	check_fields("smaps_rollup", strchr(r, '\n') + 1, ':', rollup_ref, none);
	CHECK(strstr(r, "[rollup]\n") == r + 73);
	long long rss = procfs_field(r, "Rss"), pss = procfs_field(r, "Pss");
	long long parts = procfs_field(r, "Pss_Anon") + procfs_field(r, "Pss_File") +
			  procfs_field(r, "Pss_Shmem");
	CHECK(procfs_field(r, "LazyFree") >= KB(F) || ut_on_linux());
	CHECK(pss <= rss && parts <= pss && pss - parts <= 2);
	/* Twice: the first pass faults in the program text it runs (text is
	 * mapped lazily), so that nothing changes between the second's reads. */
	long long sum = 0;
	for (int pass = 0; pass < 2; pass++) {
		rss = procfs_field(slurp("/proc/self/smaps_rollup"), "Rss");
		sum = smaps_rss_sum();
	}
	CHECK(sum == rss);
}

/* procfs_stat_statm: stat has Linux's 52 fields and agrees with status;
 * statm's pages agree with status's kB. */
void test_procfs_stat_statm(void)
{
	const char *t = slurp("/proc/self/stat");
	const char *close_paren = strrchr(t, ')');
	CHECK(close_paren && atoi(t) == getpid() && !strncmp(strchr(t, '('), "(usertests", 10));
	int fields = 2;
	for (const char *p = close_paren + 1; *p && *p != '\n'; p++)
		fields += *p == ' ' && p[1] && p[1] != '\n';
	CHECK(fields == 52);
	char state;
	int ppid;
	unsigned long vsize = 0;
	long rss = 0;
	CHECK(sscanf(close_paren + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
		     "%*d %*d %*d %*d %*d %*d %*u %lu %ld", &state, &ppid, &vsize, &rss) == 4);
	CHECK(state == 'R' && ppid == getppid());
	/* read status and statm once first (and ask ut_on_linux), so that no
	 * text page of this code is faulted in between the readings compared */
	(void)ut_on_linux();
	field_of("/proc/self/status", "VmSize");
	slurp("/proc/self/statm");
	CHECK(sscanf(strrchr(slurp("/proc/self/stat"), ')') + 2, "%c %d %*d %*d %*d %*d %*u %*u "
		     "%*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %lu %ld", &state, &ppid,
		     &vsize, &rss) == 4);
	long long vmsize = field_of("/proc/self/status", "VmSize");
	long long vmrss = field_of("/proc/self/status", "VmRSS");
	CHECK((long long)vsize / 1024 == vmsize);
	CHECK(llabs(KB(rss) - vmrss) <= (ut_on_linux() ? LINUX_RSS_SLACK_KB : 0));
	unsigned long size, res, shared, text, lib, data, dt;
	CHECK(sscanf(slurp("/proc/self/statm"), "%lu %lu %lu %lu %lu %lu %lu", &size, &res,
		     &shared, &text, &lib, &data, &dt) == 7);
	CHECK(KB(size) == vmsize);
	CHECK(llabs(KB(res) - vmrss) <= (ut_on_linux() ? LINUX_RSS_SLACK_KB : 0));
	CHECK(KB(text) == field_of("/proc/self/status", "VmExe") || ut_on_linux());
	CHECK(KB(data) == field_of("/proc/self/status", "VmData") +
	      field_of("/proc/self/status", "VmStk"));
}

/* procfs_cmdline: a program's argv, NUL after each, in /proc/self/cmdline. */
void test_procfs_cmdline(void)
{
	int out[2];
	char path[300], buf[128];
	CHECK(pipe(out) == 0);
	snprintf(path, sizeof(path), "%s/cat", ut_bindir);
	pid_t pid = ut_fork();
	if (pid == 0) {
		char *argv[] = { "cat", "/proc/self/cmdline", NULL };
		dup2(out[1], 1);
		execv(path, argv);
		_exit(127);
	}
	close(out[1]);
	ssize_t n = 0, r;
	while ((r = read(out[0], buf + n, sizeof(buf) - (size_t)n)) > 0)
		n += r;
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	static const char want[] = "cat\0/proc/self/cmdline";
	CHECK(n == sizeof(want) && !memcmp(buf, want, sizeof(want)));
}

/* procfs_misc: uptime, loadavg, /proc/self and /proc/sys/fs's cache
 * counts in Linux's formats; bad names and bad buffers get Linux's
 * errors. */
void test_procfs_misc(void)
{
	double up, idle, l1, l5, l15;
	int running, total, last;
	char end;
	CHECK(sscanf(slurp("/proc/uptime"), "%lf %lf%c", &up, &idle, &end) == 3 && end == '\n');
	CHECK(up > 0 && idle >= 0);
	CHECK(sscanf(slurp("/proc/loadavg"), "%lf %lf %lf %d/%d %d%c", &l1, &l5, &l15,
		     &running, &total, &last, &end) == 7 && end == '\n');
	CHECK(running >= 1 && total >= running && last >= getpid());
	CHECK(l1 >= 0 && l5 >= 0 && l15 >= 0);
	CHECK(field_of("/proc/self/status", "Pid") == getpid());
	CHECK_ERR(open("/proc/0/status", O_RDONLY), ENOENT);
	CHECK_ERR(open("/proc/999999999/status", O_RDONLY), ENOENT);
	CHECK_ERR(open("/proc/self/nothing", O_RDONLY), ENOENT);
	char path[32];
	snprintf(path, sizeof(path), "/proc/0%d/status", (int)getpid());
	CHECK_ERR(open(path, O_RDONLY), ENOENT);
	int fd = open("/proc/meminfo", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(read(fd, ut_addr(8), 100), EFAULT);
	close(fd);
	/* /proc/sys: the VFS's caches; drop_caches is write-only (mode 0200:
	 * Linux refuses the open even to root, Pagoda the read) */
	unsigned long d[6], in[2];
	CHECK(sscanf(slurp("/proc/sys/fs/dentry-state"), "%lu %lu %lu %lu %lu %lu%c", &d[0], &d[1],
		     &d[2], &d[3], &d[4], &d[5], &end) == 7 && end == '\n');
	CHECK(d[0] > 0 && d[1] <= d[0]);
	CHECK(sscanf(slurp("/proc/sys/fs/inode-nr"), "%lu %lu%c", &in[0], &in[1], &end) == 3 &&
	      end == '\n' && in[0] > 0 && in[1] <= in[0]);
	struct stat st;
	CHECK(stat("/proc/sys/vm/drop_caches", &st) == 0 && (st.st_mode & 07777) == 0200);
	errno = 0;
	fd = open("/proc/sys/vm/drop_caches", O_RDONLY);
	CHECK((fd < 0 ? -1 : read(fd, path, sizeof(path))) == -1 && errno == EACCES);
	if (fd >= 0)
		close(fd);
	/* vm.swappiness: 0..200; a value past that is EINVAL, the same one back is fine */
	unsigned swappiness = 999;
	CHECK(sscanf(slurp("/proc/sys/vm/swappiness"), "%u%c", &swappiness, &end) == 2 &&
	      end == '\n' && swappiness <= 200);
	fd = open("/proc/sys/vm/swappiness", O_WRONLY);
	CHECK(fd >= 0);
	CHECK_ERR(write(fd, "201\n", 4), EINVAL);
	snprintf(path, sizeof(path), "%u\n", swappiness);
	CHECK(pwrite(fd, path, strlen(path), 0) == (ssize_t)strlen(path));
	close(fd);
}

/* ps's line for pid: its columns (PID PPID S VSZ RSS PSS LAZY PT SHPT). */
struct ps_line {
	long long vsz, rss, pss, pt, shpt;
	int found;
};

static long long ps_num(const char *s)
{
	return *s == '-' ? -1 : strtoll(s, NULL, 10);
}

static struct ps_line run_ps(pid_t pid)
{
	struct ps_line r = { 0 };
	char path[300], line[256], c[9][32];
	int out[2];
	snprintf(path, sizeof(path), "%s/ps", ut_bindir);
	CHECK(pipe(out) == 0);
	fflush(stdout);
	pid_t ps = vfork();   /* no fork: see procfs_ptshare */
	CHECK(ps >= 0);
	if (ps == 0) {
		char *argv[] = { "ps", NULL };
		dup2(out[1], 1);
		execv(path, argv);
		_exit(127);
	}
	close(out[1]);
	FILE *f = fdopen(out[0], "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %31s %31s %31s %31s %31s %31s %31s %31s", c[0], c[1], c[2],
			   c[3], c[4], c[5], c[6], c[7], c[8]) == 9 && atoi(c[0]) == pid) {
			r = (struct ps_line){ ps_num(c[3]), ps_num(c[4]), ps_num(c[5]),
					      ps_num(c[7]), ps_num(c[8]), 1 };
		}
	fclose(f);
	int st = ut_wait(ps);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return r;
}

/* procfs_ptshare: on a child sharing a 2 MiB chunk's PT page with its
 * parent, /proc (status, smaps, meminfo) and ps agree with what
 * pagoda_vmquery says about the page tables (on Linux: with each other).
 * ps is started with vfork, not fork: a fork shares the parent's tables
 * with ps until it execs, and the parent's next faults replace them by
 * private copies; a replaced table is kept (mm/pt/pgtable.h's stale
 * tables) until the fault that replaced it ends, and meanwhile still counts
 * as a sharer of the PT pages below it -- so while another CPU waits in
 * that fault, ps would read a lower PSS for the child than /proc after
 * (docs/procfs.md). */
void test_procfs_ptshare(void)
{
	enum { CHUNK = 2 << 20 };
	char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < CHUNK; i += PAGE)
		p[i] = 1;
	int go[2], ready[2];
	char c, path[64];
	CHECK(pipe(go) == 0 && pipe(ready) == 0);
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(go[1]);
		write(ready[1], "r", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	CHECK(read(ready[0], &c, 1) == 1);

	const char *s = smaps_of(p);
	CHECK(procfs_field(s, "Rss") == CHUNK / 1024 && procfs_field(s, "Pss") == CHUNK / 2048);
	CHECK(procfs_field(s, "Shared_Dirty") == CHUNK / 1024);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	long long rss = field_of(path, "VmRSS");
	/* everything once first: the parent's first run of a piece of code
	 * faults its text and data in, and a page the child maps too then has
	 * one more mapper (the child's PSS drops), and the parent's writes
	 * while running ps unshare what the child shares */
	char rollup[64];
	snprintf(rollup, sizeof(rollup), "/proc/%d/smaps_rollup", (int)pid);
	run_ps(pid);
	(void)field_of(rollup, "Pss");
	long long shared_pts = procfs_field(slurp(path), "PTShared");
	struct ps_line ps = run_ps(pid);
	long long pss = field_of(rollup, "Pss");
	CHECK(ps.found && ps.rss == rss && ps.vsz == field_of(path, "VmSize"));
	CHECK(ps.shpt == shared_pts);
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if (ps.pss != pss)
		ut_fail(__FILE__, __LINE__, "ps says Pss %lld kB, %s %lld kB", ps.pss, path, pss);

	struct pagoda_vmquery q;
	if (pagoda_vmquery(p, &q) == 0) {
		/* Pagoda: the figures follow the page tables */
		const char *m = slurp("/proc/meminfo");
		CHECK(q.mapped && q.pt_present_count == CHUNK / PAGE);
		CHECK((shared_pts >= 1) == (q.pt_share_count > 1 || q.pd_share_count > 1));
		CHECK(q.pt_share_count == 1 ||
		      (procfs_field(m, "SharedPT") >= 4 && procfs_field(m, "PTSaved") >= 4));
		CHECK(q.pd_share_count <= 1 ||
		      (procfs_field(m, "SharedPD") >= 1 && procfs_field(m, "PTSaved") >= 2));
		CHECK(ps.pt >= 1 && ps.shpt <= ps.pt);
	}
	CHECK(write(go[1], "g", 1) == 1);
	ut_wait(pid);
	close(go[1]);
	close(ready[0]);
	CHECK(munmap(p, CHUNK) == 0);
}

/* procfs_links: /proc/self reads as the caller's pid and /proc/self/exe as
 * the program's path (what busybox runs its applets through); other files
 * are not links (EINVAL), missing ones ENOENT. */
void test_procfs_links(void)
{
	char buf[300], want[32];
	long n = syscall(89 /* readlink */, "/proc/self", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%d", (int)getpid());
	CHECK(n == (long)strlen(want) && !memcmp(buf, want, (size_t)n));
	n = syscall(89, "/proc/self/exe", buf, sizeof(buf) - 1);
	CHECK(n > 10);
	buf[n] = '\0';
	CHECK(buf[0] == '/' && strstr(buf, "/usertests") != NULL);
	CHECK(open("/proc/self/exe", O_RDONLY) >= 0);
	CHECK_ERR(syscall(89, "/proc/meminfo", buf, sizeof(buf)), EINVAL);
	CHECK_ERR(syscall(89, "/proc/nothing", buf, sizeof(buf)), ENOENT);
	CHECK_ERR(syscall(89, "/proc/self/exe", ut_addr(8), sizeof(buf)), EFAULT);
}

/* A child that waits to be killed. */
static pid_t idle_child(void)
{
	pid_t pid = ut_fork();
	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

/* procfs_stale: a /proc/PID file kept open after its process was reaped
 * reads as ESRCH (as on Linux), even once a new process took the old one's
 * place (Pagoda reuses the process-table slot, and with it the inodes). */
void test_procfs_stale(void)
{
	char path[64], buf[256];
	pid_t old = idle_child();

	snprintf(path, sizeof path, "/proc/%d/status", (int)old);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, buf, sizeof buf) > 0);
	CHECK_OK(kill(old, SIGKILL));
	ut_wait(old);
	pid_t next = idle_child();      /* likely in the slot old had */
	snprintf(path, sizeof path, "/proc/%d/status", (int)next);
	int fd2 = open(path, O_RDONLY);  /* (Pagoda: renames the slot's inodes) */
	CHECK(fd2 >= 0);
	CHECK(read(fd2, buf, sizeof buf) > 0);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_ERR(read(fd, buf, sizeof buf), ESRCH);
	CHECK_OK(close(fd));
	CHECK_OK(close(fd2));
	CHECK_OK(kill(next, SIGKILL));
	ut_wait(next);
}

/* wchan_of: /proc/PID/wchan's text (no newline, as Linux prints it). */
static const char *wchan_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
	return slurp(path);
}

/* tasks_line_check: procfs_print_tasks's report (into a file: on Linux it
 * lists every process of the machine) has pid's line, with its parent, its
 * name, its state and wchan w. */
static void tasks_line_check(pid_t pid, const char *w)
{
	char want[160], file[64];
	snprintf(file, sizeof file, "/tmp/ut-tasks-%d", (int)getpid());
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600), saved = dup(1);
	CHECK(fd >= 0 && saved >= 0);
	fflush(stdout);
	dup2(fd, 1);
	procfs_print_tasks("ut:");
	dup2(saved, 1);
	close(saved);
	close(fd);
	snprintf(want, sizeof want, "ut: pid %d tid %d parent %d (usertests", (int)pid, (int)pid,
		 (int)getpid());
	const char *text = slurp(file), *l = strstr(text, want);
	if (!l)
		ut_fail(__FILE__, __LINE__, "no line \"%s\" in: %.200s", want, text);
	snprintf(want, sizeof want, " S (sleeping), wchan %s\n", w);
	if (!ut_on_linux() && strncmp(strchr(l, ')') + 1, want, strlen(want)))
		ut_fail(__FILE__, __LINE__, "wanted \"%s\" in: %.120s", want, l);
	CHECK_OK(unlink(file));
}

/* procfs_wchan: where a task sleeps -- the function that waits, not the
 * scheduler's sleep or wait_on (lib/wait.h's SLEEP_TEXT): a child blocked
 * reading an empty pipe sleeps in a pipe function (Pagoda: pipe_read or
 * pipe_wait; Linux 6.1: pipe_read, later ones anon_pipe_read); a running
 * task and a zombie read "0". Linux may hide the name ("0") where its
 * unwinder cannot say, so there "0" passes too; Linux's answer also moves
 * while a task goes to sleep or exits (it unwinds the stack of a task that
 * may be switching), so the rest is Pagoda's only. The tests' report of what
 * is still running (procfs_print_tasks) names the child and its wchan. */
void test_procfs_wchan(void)
{
	int fds[2];
	char c;
	CHECK(strcmp(slurp("/proc/self/wchan"), "0") == 0);
	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);
	CHECK(ut_state_becomes(pid, 'S'));
	char w[64];
	snprintf(w, sizeof w, "%s", wchan_of(pid));
	if (!strstr(w, "pipe") && !(ut_on_linux() && !strcmp(w, "0")))
		ut_fail(__FILE__, __LINE__, "a reader of an empty pipe sleeps in \"%s\"", w);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/wchan", (int)pid, (int)pid);
	CHECK(ut_on_linux() || strcmp(slurp(path), w) == 0);
	tasks_line_check(pid, w);
	CHECK(write(fds[1], "x", 1) == 1);
	CHECK(ut_state_becomes(pid, 'Z'));
	CHECK(ut_on_linux() || strcmp(wchan_of(pid), "0") == 0);
	CHECK(ut_wait(pid) == 0);
	close(fds[1]);
}

/* mmap_populate (here for smaps_of): MAP_POPULATE faults a mapping in at
 * once, by writes where it is private and writable (its own pages: Rss and
 * Anonymous), by reads where it is read-only (the zero page: resident for
 * mincore; Pagoda leaves it out of Rss, Linux counts it there in recent
 * versions and not in 6.1, so only Pagoda's choice is asserted), not at
 * all for PROT_NONE; without it, nothing. */
void test_mmap_populate(void)
{
	enum { N = 8 };
	unsigned char vec[N];
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
	char *rw = mmap(NULL, N * PAGE, PROT_READ | PROT_WRITE, anon | MAP_POPULATE, -1, 0);
	char *ro = mmap(NULL, N * PAGE, PROT_READ, anon | MAP_POPULATE, -1, 0);
	char *none = mmap(NULL, N * PAGE, PROT_NONE, anon | MAP_POPULATE, -1, 0);
	char *lazy = mmap(NULL, N * PAGE, PROT_READ | PROT_WRITE, anon, -1, 0);
	CHECK(rw != MAP_FAILED && ro != MAP_FAILED && none != MAP_FAILED && lazy != MAP_FAILED);
	CHECK_OK(mincore(rw, N * PAGE, vec));
	for (int i = 0; i < N; i++)
		CHECK(vec[i] & 1);
	const char *s = smaps_of(rw);
	CHECK(procfs_field(s, "Rss") == KB(N) && procfs_field(s, "Anonymous") == KB(N));
	CHECK_OK(mincore(ro, N * PAGE, vec));
	for (int i = 0; i < N; i++)
		CHECK(vec[i] & 1);
	if (!ut_on_linux())   /* Linux counts the zero page in Rss from 6.x on, not in 6.1 */
		CHECK(procfs_field(smaps_of(ro), "Rss") == 0);
	CHECK_OK(mincore(none, N * PAGE, vec));
	for (int i = 0; i < N; i++)
		CHECK(!(vec[i] & 1));
	CHECK_OK(mincore(lazy, N * PAGE, vec));
	for (int i = 0; i < N; i++)
		CHECK(!(vec[i] & 1));
	CHECK(procfs_field(smaps_of(lazy), "Rss") == 0);
	munmap(rw, N * PAGE);
	munmap(ro, N * PAGE);
	munmap(none, N * PAGE);
	munmap(lazy, N * PAGE);
}

/* The "proc" line of /proc/lockstat: its acquisitions and contended ones;
 * -1 without one. */
static long long lockstat_proc(long long *contended)
{
	const char *t = slurp("/proc/lockstat");
	const char *l = strstr(t, "\nproc ");
	long long rank, acquired;
	if (!l || sscanf(l + 1, "proc %lld %lld %lld", &rank, &acquired, contended) != 3 || rank != 20)
		return -1;
	return acquired;
}

/* procfs_lockstat: Pagoda's lock statistics (Linux has /proc/lock_stat only
 * with CONFIG_LOCK_STAT, and no /proc/lockstat): a header, a line per lock
 * class; a fork and its wait take proc_lock, so its count grows. */
void test_procfs_lockstat(void)
{
	if (ut_on_linux()) {
		CHECK_ERR(open("/proc/lockstat", O_RDONLY), ENOENT);
		return;
	}
	CHECK(strncmp(slurp("/proc/lockstat"), "class ", 6) == 0);
	long long c0, c1, a0 = lockstat_proc(&c0);
	pid_t pid = ut_fork();
	if (pid == 0)
		_exit(0);
	ut_wait(pid);
	long long a1 = lockstat_proc(&c1);
	CHECK(a0 > 0 && a1 > a0 && c0 >= 0 && c1 >= c0 && c1 <= a1);
}
