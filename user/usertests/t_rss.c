/* user/usertests/t_rss.c -- RSS and PSS as Linux defines them, on Pagoda's
 * shared page tables: the zero page is not resident, MADV_WILLNEED maps no
 * anonymous memory, and the PSS of all processes adds up to the distinct
 * frames they map (zero page excluded) whatever ptshare= says. On Linux
 * (no pagoda_procinfo) the tests only exercise the calls. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* self_rss: this process's RSS in pages, or -1 on Linux. */
static long self_rss(void)
{
	struct pagoda_procinfo pi;
	return ut_procinfo(getpid(), &pi) == 0 ? (long)pi.rss_pages : -1;
}

/* rss_zero_page: reading 64 untouched pages maps the zero page 64 times
 * and adds nothing to RSS; writing 8 of them adds 8. */
void test_rss_zero_page(void)
{
	const int n = 64;
	volatile char *p = mmap(NULL, n * PAGE, RW, ANON, -1, 0);

	CHECK(p != MAP_FAILED);
	long before = self_rss();
	for (int i = 0; i < n; i++)
		CHECK(p[i * PAGE] == 0);
	long reads = self_rss();
	for (int i = 0; i < 8; i++)
		p[i * PAGE] = 1;
	long writes = self_rss();
	if (before >= 0) {
		CHECK(reads - before < 4);	/* a PT page's worth of stack at most */
		CHECK(writes - reads >= 8 && writes - reads < 12);
	}
	CHECK_OK(munmap((void *)p, n * PAGE));
}

/* madv_willneed_anon: MADV_WILLNEED on anonymous memory maps nothing (as
 * Linux: there is nothing to read ahead), so RSS stays. */
void test_madv_willneed_anon(void)
{
	const int n = 256;
	char *p = mmap(NULL, n * PAGE, RW, ANON, -1, 0);
	struct pagoda_vmquery q;

	CHECK(p != MAP_FAILED);
	long before = self_rss();
	CHECK_OK(madvise(p, n * PAGE, MADV_WILLNEED));
	if (before >= 0) {
		CHECK(self_rss() - before < 4);
		CHECK_OK(pagoda_vmquery(p + 7 * PAGE, &q));
		CHECK(!q.mapped);
	}
	CHECK_OK(munmap(p, n * PAGE));
}

/* running_other: the first process but this one that is not asleep or a
 * zombie (its pid), or 0 when every other one is. */
static pid_t running_other(void)
{
	struct pagoda_procinfo pi;
	for (long i = 0; pagoda_procinfo(i, &pi) == 0; i++)
		if (pi.pid != getpid() && pi.state == PROC_STATE_RUNNABLE)
			return pi.pid;
	return 0;
}

/* others_asleep: wait (about 5 s at most) until every other process sleeps
 * or has exited. The census adds up the processes one at a time, so one
 * that still runs meanwhile -- a child past its "ready" that breaks a COW
 * share of its stack on the way to its next read -- moves a frame from one
 * sum to the other: the check is exact only over processes that stand
 * still (it failed so once in about a hundred runs, by one page). */
static void others_asleep(void)
{
	pid_t r = 0;
	for (int i = 0; i < 5000 && (r = running_other()) != 0; i++)
		usleep(1000);
	if (r)
		ut_fail(__FILE__, __LINE__, "process %d did not go to sleep", (int)r);
}

/* pss_sum_check: sum of PSS over all processes == distinct user frames:
 * exactly (fixed point, rounded) in meminfo, and within half a page per
 * process for the per-process figures of procinfo -- once every other
 * process sleeps. */
void pss_sum_check(void)
{
	struct pagoda_meminfo m;
	struct pagoda_procinfo pi;
	uint64_t sum = 0, nproc = 0;

	others_asleep();
	CHECK_OK(pagoda_meminfo(&m));
	CHECK(m.user_frames > 0 && m.user_frames != ~0ull);
	uint64_t whole = (m.pss_total_frac + (1ull << (PAGODA_PSS_SHIFT - 1))) >> PAGODA_PSS_SHIFT;
	if (whole != m.user_frames)
		ut_fail(__FILE__, __LINE__, "PSS adds up to %llu pages, %llu frames are mapped",
			(unsigned long long)whole, (unsigned long long)m.user_frames);
	for (long i = 0; pagoda_procinfo(i, &pi) == 0; i++, nproc++)
		sum += pi.pss_pages;
	if (sum + nproc < m.user_frames || sum > m.user_frames + nproc)
		ut_fail(__FILE__, __LINE__, "ps PSS column adds up to %llu, %llu frames mapped",
			(unsigned long long)sum, (unsigned long long)m.user_frames);
}

/* pss_sum: a parent with written, zero-page and shared anonymous memory
 * forks; the child writes part of the COW memory (unsharing its PT page
 * under ptshare=fork/all: the untouched frames are then mapped by two PT
 * pages and count half to each) and waits; the sums must hold before and
 * after, with the child alive. */
void test_pss_sum(void)
{
	const int n = 256;
	char *p = mmap(NULL, n * PAGE, RW, ANON, -1, 0);
	char *s = mmap(NULL, 16 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ready[2], go[2];
	char c;

	CHECK(p != MAP_FAILED && s != MAP_FAILED);
	memset(p, 'p', n / 2 * PAGE);
	for (int i = n / 2; i < n; i++)
		CHECK(((volatile char *)p)[i * PAGE] == 0);	/* zero page */
	memset(s, 's', 16 * PAGE);
	if (pagoda_procinfo(0, &(struct pagoda_procinfo){ 0 }) != 0)
		return;	/* Linux */
	pss_sum_check();
	CHECK_OK(pipe(ready));
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {   /* holds no write end of go: a failed test ends it (EOF) */
		close(go[1]);
		close(ready[0]);
		for (int i = 0; i < 16; i++)
			p[i * PAGE] = 'c';
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	CHECK(read(ready[0], &c, 1) == 1);
	pss_sum_check();
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(ut_wait(pid) == 0);
	pss_sum_check();
	close(ready[0]);
	close(go[1]);
	CHECK_OK(munmap(p, n * PAGE));
	CHECK_OK(munmap(s, 16 * PAGE));
}
