/* user/racetests.c -- what several threads or processes do to one object
 * at the same moment: the regression tests of issue 35's review (each was
 * a kernel panic, a hang or lost data on Pagoda, and behaves on Linux).
 *
 *   exec_race         two threads of one process call execve at once: one
 *                     exec wins, the other thread dies (Linux's de_thread);
 *                     before: each killed the other and waited forever
 *   proc_fd_race      threads lseek + read one open /proc file: one offset,
 *                     one text buffer (the file's pos lock); before: the
 *                     buffer was freed twice (kfree panic)
 *   settid_lazyfree   CLONE_CHILD_SETTID into a MADV_FREE'd page: the store
 *                     dirties the page like any user store, so reclaim keeps
 *                     it; before: written through the direct map, clean, and
 *                     dropped under pressure (the tid read back 0)
 *   text_fork_pd      a text attach below a PD page shared since a fork:
 *                     before, an unshare under the text-share lock (lockdep)
 *   text_dontneed_attach  MADV_DONTNEED while another thread's fault attaches
 *                     a published text PT page in the range: before, an
 *                     allocation inside a TLB batch (panic)
 *   reclaim_fork      reclaim discarding lazy-free pages while fork shares
 *                     their PT pages: before, a leaf write into a shared PT
 *                     page (panic) or a freed page left mapped
 *   oom_unmap_churn   the OOM killer measuring every process's RSS while
 *                     others map and unmap (freeing page-table pages): each
 *                     walk under that process's address-space lock; before,
 *                     under proc_lock alone, through tables being freed
 *   file_writers      threads on every CPU pwrite interleaved stripes of one
 *                     file (neighbours share pages) and append to their own:
 *                     every byte where it was written (tmpfs, and the root)
 *   truncate_mapped   threads of two processes (sharing page tables) read
 *                     and store through a shared file mapping while a thread
 *                     shrinks and regrows the file: SIGBUS past the end,
 *                     mapping and read() agree after (tmpfs, and the root)
 *
 * Built twice, as threadtests is: bin/racetests (newlib, Pagoda's pthreads)
 * and bin/racetests-musl (static musl); both run as pid 1 on Pagoda on 2
 * and 4 CPUs (tests/suites.txt) and on the Linux host (tests/scripts.txt),
 * the reference. Each test runs in a forked child whose exit status
 * decides; the runner prints
 *     TEST user.race_NAME PASS | FAIL <why>
 * and "RACETESTS END <n> passed, <m> failed". Nothing is timed: a hang is
 * caught by an alarm in the test (SIGALRM kills it) or by the driver.
 * `racetests NAME...` runs only those tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#ifndef MADV_FREE
#define MADV_FREE 8
#endif

static const char *self_path;   /* argv[0]: what exec_race's threads run */

static void fail(int line, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void fail(int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stdout, "  racetests.c:%d: ", line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	fflush(stdout);
	_exit(1);
}

#define CHECK(c) do { if (!(c)) fail(__LINE__, "%s", #c); } while (0)

static int on_pagoda(void)
{
	struct pagoda_meminfo m;
	return pagoda_meminfo(&m) == 0;
}

/* Wait for pid; its status. */
static int wait_for(pid_t pid)
{
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	return st;
}

/* ---- exec_race ---- */

#define EXEC_DONE 42            /* the exit status of `racetests --exec-done` */
#define EXEC_ROUNDS 20
static volatile int exec_go;

static void *exec_now(void *a)
{
	(void)a;
	char *argv[] = { (char *)self_path, "--exec-done", NULL };
	while (!exec_go)
		;
	execv(self_path, argv);
	return NULL;   /* lost the race: this thread is being killed */
}

/* A process whose two threads call execve at once, the main thread
 * waiting in join: it must end as the exec'd program (status 42). An
 * alarm turns a hang into SIGALRM (timers survive exec, the program
 * exits at once). */
static void exec_race_child(void)
{
	pthread_t t[2];
	alarm(60);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, exec_now, NULL) == 0);
	exec_go = 1;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	_exit(1);   /* neither exec happened */
}

static void t_exec_race(void)
{
	for (int round = 0; round < EXEC_ROUNDS; round++) {
		fflush(stdout);
		pid_t pid = fork();
		CHECK(pid >= 0);
		if (pid == 0)
			exec_race_child();
		int st = wait_for(pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != EXEC_DONE)
			fail(__LINE__, "round %d: status %#x, want exit %d (%s)", round, st, EXEC_DONE,
			     WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? "hung" : "exec lost");
	}
}

/* ---- proc_fd_race ---- */

#define FD_THREADS 4
#define FD_ROUNDS 2000
static int race_fd;
static volatile int fd_go;

static void *fd_reader(void *a)
{
	char buf[512];
	(void)a;
	while (!fd_go)
		;
	for (int i = 0; i < FD_ROUNDS; i++) {
		if (lseek(race_fd, 0, SEEK_SET) < 0)
			return (void *)1;
		ssize_t n = read(race_fd, buf, sizeof buf);
		if (n < 0)
			return (void *)2;
	}
	return NULL;
}

/* Threads seek and read one open /proc file at once (each read may start
 * wherever another thread left the offset: that is allowed); every call
 * succeeds, and afterwards the file reads whole from the start. */
static void proc_fd_race_on(const char *path)
{
	pthread_t t[FD_THREADS];
	char buf[4096];
	race_fd = open(path, O_RDONLY);
	CHECK(race_fd >= 0);
	fd_go = 0;
	for (int i = 0; i < FD_THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, fd_reader, NULL) == 0);
	fd_go = 1;
	for (int i = 0; i < FD_THREADS; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0);
		if (r)
			fail(__LINE__, "%s: thread %d: %s failed", path, i, r == (void *)1 ? "lseek" : "read");
	}
	CHECK(lseek(race_fd, 0, SEEK_SET) == 0);
	ssize_t n = read(race_fd, buf, sizeof buf - 1);
	CHECK(n > 0);
	close(race_fd);
}

static void t_proc_fd_race(void)
{
	proc_fd_race_on("/proc/self/status");
	proc_fd_race_on("/proc/self/maps");
	proc_fd_race_on("/proc/meminfo");
}

/* ---- settid_lazyfree ---- */

#define CLONE_VM_ 0x100L
#define CLONE_VFORK_ 0x4000L
#define CLONE_CHILD_SETTID_ 0x01000000L
#define LINUX_SIGCHLD_ 17L   /* the exit signal, in Linux's numbering (newlib's SIGCHLD differs) */

/* clone(CLONE_VM | CLONE_VFORK | CLONE_CHILD_SETTID) whose child exits at
 * once without touching the stack it shares with us (one asm block: no
 * call, no spill in the child): the child's pid, stored by the kernel at
 * *tidp in our (shared) memory. */
static long clone_settid(int *tidp)
{
	long r;
	register long r10 __asm__("r10") = (long)tidp;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"      /* the child: exit(0) */
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(r)
			 : "0"((long)SYS_clone), "D"(CLONE_VM_ | CLONE_VFORK_ | CLONE_CHILD_SETTID_ | LINUX_SIGCHLD_),
			   "S"(0L), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

/* Pagoda: memory pressure until reclaim has scanned every lazy-free page
 * (a child touching memory 1 MiB at a time; it may be OOM-killed). */
static void press_memory(void)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct pagoda_meminfo m;
		for (;;) {
			if (pagoda_meminfo(&m) != 0 || m.lazyfree_pages == 0)
				_exit(0);
			char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(0);
			for (size_t k = 0; k < (1 << 20); k += 4096)
				p[k] = 1;
		}
	}
	wait_for(pid);
}

/* A page written, MADV_FREE'd (clean, lazy-free), then a vfork-like clone
 * stores the child's tid into it: the page must be dirty now (Pagoda:
 * vmquery's D), keep the tid under memory pressure, and keep its other
 * bytes (old data: the page was not dropped). */
static void t_settid_lazyfree(void)
{
	int *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	memset(page, 0x5a, 4096);
	CHECK(madvise(page, 4096, MADV_FREE) == 0);
	long child = clone_settid(&page[0]);
	if (child <= 0)
		fail(__LINE__, "clone: %ld", child);
	CHECK(wait_for((pid_t)child) == 0);
	CHECK(page[0] == (int)child);
	if (on_pagoda()) {
		struct pagoda_vmquery q;
		CHECK(pagoda_vmquery(page, &q) == 0);
		if (!(q.soft & VMQ_DIRTY))
			fail(__LINE__, "the tid store left the page clean (soft %#x)", q.soft);
		press_memory();
	}
	CHECK(page[0] == (int)child);
	CHECK(((unsigned char *)page)[4095] == 0x5a);
	munmap(page, 4096);
}

/* ---- text sharing against fork-shared tables and MADV_DONTNEED ---- */

#define GIB_BASE 0x200000000000UL   /* a 1 GiB-aligned spot of the mmap area */
#define TEXT_AT (GIB_BASE + (8UL << 20))   /* a 2 MiB chunk in the same 1 GiB */

/* Map the first len bytes of our own binary read-only at `at` (fixed). */
static char *map_self(uintptr_t at, size_t *len)
{
	int fd = open(self_path, O_RDONLY);
	CHECK(fd >= 0);
	off_t size = lseek(fd, 0, SEEK_END);
	CHECK(size > 4096);
	*len = (size_t)size & ~4095UL;
	char *p = mmap((void *)at, *len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	CHECK(p == (char *)at);
	close(fd);
	return p;
}

/* Read one byte of every page of [p, p + len). */
static unsigned read_pages(const volatile char *p, size_t len)
{
	unsigned sum = 0;
	for (size_t off = 0; off < len; off += 4096)
		sum += (unsigned char)p[off];
	return sum;
}

/* text_fork_pd: the process's 1 GiB PD page is shared since a fork (it
 * touched 4 MiB there), and a read fault in a private read-only mapping
 * of a file attaches the text PT page another process published for that
 * chunk: the attach makes the PD page private before it takes the
 * text-share lock (before: the unshare inside it, lockdep's panic, or an
 * ABBA deadlock without lockdep). Both processes read the file's bytes. */
static void t_text_fork_pd(void)
{
	char *anon = mmap((void *)GIB_BASE, 4 << 20, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(anon == (char *)GIB_BASE);
	memset(anon, 1, 4 << 20);
	size_t len;
	char *t = map_self(TEXT_AT, &len);   /* mapped, not read: no PT page yet */
	int go[2], done[2];
	CHECK(pipe(go) == 0 && pipe(done) == 0);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	char c;
	if (pid == 0) {            /* publishes the chunk, then waits */
		unsigned sum = read_pages(t, len);
		CHECK(write(done[1], &sum, sizeof sum) == sizeof sum);
		CHECK(read(go[0], &c, 1) == 1);
		_exit(read_pages(t, len) == sum ? 0 : 1);
	}
	unsigned child_sum;
	CHECK(read(done[0], &child_sum, sizeof child_sum) == sizeof child_sum);
	CHECK(read_pages(t, len) == child_sum);   /* attaches the child's PT page */
	CHECK(anon[12345] == 1);
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(wait_for(pid) == 0);
}

#define DN_ROUNDS 1500
static volatile int dn_round, dn_stop;
static char *dn_text;
static size_t dn_len;

static void *dontneed_loop(void *a)
{
	(void)a;
	while (!dn_stop)
		madvise(dn_text, dn_len, MADV_DONTNEED);   /* EINVAL/ENOMEM between maps */
	return NULL;
}

/* text_dontneed_attach: one thread MADV_DONTNEEDs a private read-only
 * file mapping over and over while another maps it again and again and
 * reads it, each first read attaching the text PT page another process
 * published: DONTNEED meets the shared table it did not unshare (before:
 * "page_alloc inside an open TLB batch", or a shared table's leaves
 * written). The bytes read are the file's every time. */
static void t_text_dontneed_attach(void)
{
	int go[2], done[2];
	unsigned sum;
	char c;
	CHECK(pipe(go) == 0 && pipe(done) == 0);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {            /* publishes the chunk and keeps it */
		char *t = map_self(TEXT_AT, &dn_len);
		sum = read_pages(t, dn_len);
		CHECK(write(done[1], &sum, sizeof sum) == sizeof sum);
		CHECK(read(go[0], &c, 1) == 1);
		_exit(0);
	}
	CHECK(read(done[0], &sum, sizeof sum) == sizeof sum);
	dn_text = map_self(TEXT_AT, &dn_len);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, dontneed_loop, NULL) == 0);
	for (int round = 0; round < DN_ROUNDS; round++) {
		CHECK(munmap(dn_text, dn_len) == 0);
		map_self(TEXT_AT, &dn_len);
		if (read_pages(dn_text, dn_len) != sum)
			fail(__LINE__, "round %d: the file reads differently", round);
	}
	dn_stop = 1;
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(wait_for(pid) == 0);
}

/* ---- reclaim against fork ---- */

#define RF_ROUNDS 2000      /* at most; Pagoda: until RF_PRESSED rounds reclaimed */
#define RF_PRESSED 8
#define RF_LINUX_ROUNDS 40
#define RF_BYTES (16UL << 20)
#define RF_AT (GIB_BASE + (1UL << 30))   /* its own 1 GiB */

/* Pagoda: a child that holds free memory just above the reclaim low
 * watermark (room for the test's own pages above it) and, while lazy-free
 * pages abound and free memory is near the mark, takes HOG_DIP pages more
 * (below the mark: its allocations reclaim) and gives them back, until
 * killed; with few lazy-free pages left it takes nothing, so that nobody
 * is OOM-killed (the OOM killer would choose the test, not the hog, just
 * after a hog restarted). */
#define HOG_DIP 512   /* pages the hog takes below the mark at a time */
static pid_t start_hog(void)
{
	struct pagoda_meminfo m;
	if (pagoda_meminfo(&m) != 0)
		return 0;
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid > 0)
		return pid;
	uint64_t low = m.total_pages / 64;   /* the reclaim low watermark */
	uint64_t room = low + RF_BYTES / 4096 + HOG_DIP / 2;   /* the test's pages fit above */
	size_t n = m.free_pages > room ? (size_t)(m.free_pages - room) : 0;
	char *held = mmap(NULL, n * 4096 + 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t k = 0; held != MAP_FAILED && k < n; k++)
		held[k * 4096] = 1;   /* held: free memory sits just above the mark */
	for (;;) {   /* while lazy-free pages exist: dip below the mark and back */
		if (pagoda_meminfo(&m) != 0)
			_exit(1);
		if (m.lazyfree_pages < 4 * HOG_DIP || m.free_pages > low + 2 * HOG_DIP) {
			sched_yield();
			continue;
		}
		char *p = mmap(NULL, HOG_DIP * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		for (size_t k = 0; k < HOG_DIP; k++)
			p[k * 4096] = 1;
		munmap(p, HOG_DIP * 4096);
	}
}

/* reclaim_fork: 16 MiB written, MADV_FREE'd, then four forks, round after
 * round (on Pagoda until reclaim discarded pages in 8 rounds; 40 on
 * Linux), while a hog keeps taking memory below the reclaim mark: reclaim discards
 * lazy-free pages while fork shares their PT pages (before: "reclaim:
 * leaf write into a shared PT page", or a freed page still mapped by a
 * child). A page reads its data or zeros, in the parent and the children
 * alike, and a rewritten page keeps its data. */
static void t_reclaim_fork(void)
{
	struct pagoda_meminfo m0, m1;
	int pagoda = pagoda_meminfo(&m0) == 0;
	pid_t hog = start_hog();
	/* a shared page in the same 1 GiB: fork shares PT pages, not the PD */
	char *p = mmap((void *)RF_AT, RF_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	char *shared = mmap((void *)(RF_AT + 2 * RF_BYTES), 4096, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(p == (char *)RF_AT && shared != MAP_FAILED);
	shared[0] = 1;
	int pressed = 0;   /* Pagoda: rounds in which reclaim discarded pages */
	for (int round = 0; round < RF_ROUNDS && pressed < RF_PRESSED; round++) {
		unsigned char v = (unsigned char)(round | 1);
		uint64_t discarded = pagoda && pagoda_meminfo(&m1) == 0 ? m1.pglazyfreed : 0;
		for (size_t off = 0; off < RF_BYTES; off += 4096)
			p[off] = (char)v;
		CHECK(madvise(p, RF_BYTES, MADV_FREE) == 0);
		p[0] = (char)v;   /* rewritten: kept */
		struct timespec nap = { 0, (round % 4) * 500 * 1000 };   /* reclaim at work */
		nanosleep(&nap, NULL);
		for (int f = 0; f < 4; f++) {
			fflush(stdout);
			pid_t c = fork();
			if (c < 0 && (errno == ENOMEM || errno == EAGAIN))
				continue;   /* memory is short: allowed to fail */
			CHECK(c >= 0);
			if (c == 0) {
				for (size_t off = 0; off < RF_BYTES; off += 4096)
					if (p[off] != (char)v && p[off] != 0)
						_exit(2);
				_exit(p[0] == (char)v ? 0 : 3);
			}
			int st = wait_for(c);
			if (st != 0)
				fail(__LINE__, "round %d fork %d: child status %#x", round, f, st);
		}
		for (size_t off = 0; off < RF_BYTES; off += 4096)
			if (p[off] != (char)v && p[off] != 0)
				fail(__LINE__, "round %d: page %zu reads %d", round, off / 4096, p[off]);
		CHECK(p[0] == (char)v);
		if (!pagoda)
			pressed += round + 1 >= RF_LINUX_ROUNDS ? RF_PRESSED : 0;
		else if (pagoda_meminfo(&m1) == 0 && m1.pglazyfreed != discarded)
			pressed++;
		if (hog && waitpid(hog, NULL, WNOHANG) == hog)
			hog = start_hog();   /* OOM-killed: press again */
	}
	if (hog) {
		kill(hog, SIGKILL);
		wait_for(hog);
	}
	if (pagoda) {   /* reclaim did discard pages meanwhile */
		CHECK(pagoda_meminfo(&m1) == 0);
		if (pressed < RF_PRESSED)
			fail(__LINE__, "reclaim discarded pages in %d rounds of %d: too little pressure "
			     "(%llu discarded)", pressed, RF_ROUNDS,
			     (unsigned long long)(m1.pglazyfreed - m0.pglazyfreed));
	}
	munmap(p, RF_BYTES);
}

/* ---- the OOM killer against munmap ---- */

#define CHURN_BYTES (4UL << 20)
#define OOM_ROUNDS 3

/* A child that maps 4 MiB in its own 1 GiB, writes every page and unmaps
 * it, until killed: page-table pages come and go all the time. */
static pid_t start_churner(int k)
{
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid > 0)
		return pid;
	char *at = (char *)(GIB_BASE + (uint64_t)(k + 3) * (1UL << 30));
	for (;;) {
		char *p = mmap(at, CHURN_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		for (size_t off = 0; off < CHURN_BYTES; off += 4096)
			p[off] = 1;
		munmap(p, CHURN_BYTES);
	}
}

/* A child that writes n pages; touched=1 written to fd once done, then it
 * sleeps (hold) or exits 0 (!hold). */
static pid_t start_toucher(size_t n, int fd, int hold)
{
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid > 0)
		return pid;
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	for (size_t k = 0; k < n; k++)
		p[k * 4096] = 1;
	if (!hold)
		_exit(0);
	if (write(fd, "t", 1) != 1)
		_exit(4);
	for (;;)
		pause();
}

/* oom_unmap_churn (Pagoda only: Linux's OOM killer chooses by its own
 * rules, and the host's memory is not to be exhausted): two churners run
 * while a hog holds 60% of memory and a grower writes another 60%. Each
 * round the hog (largest RSS) is killed, the grower finishes, the churners
 * live on, and the kernel survives the OOM killer's walks of tables the
 * churners are freeing. */
static void t_oom_unmap_churn(void)
{
	struct pagoda_meminfo m0, m1;
	if (pagoda_meminfo(&m0) != 0)
		return;
	pid_t churner[2] = { start_churner(0), start_churner(1) };
	for (int round = 0; round < OOM_ROUNDS; round++) {
		CHECK(pagoda_meminfo(&m1) == 0);
		size_t each = (size_t)(m1.free_pages + m1.lazyfree_pages) * 6 / 10;
		int ready[2];
		char c;
		CHECK(pipe(ready) == 0);
		pid_t hog = start_toucher(each, ready[1], 1);
		close(ready[1]);
		CHECK(read(ready[0], &c, 1) == 1);
		close(ready[0]);
		int gs = wait_for(start_toucher(each, -1, 0));
		int hs = wait_for(hog);
		if (gs != 0 || !WIFSIGNALED(hs) || WTERMSIG(hs) != SIGKILL)
			fail(__LINE__, "round %d: grower status %#x, hog status %#x", round, gs, hs);
		for (int k = 0; k < 2; k++)
			if (waitpid(churner[k], NULL, WNOHANG) != 0)
				fail(__LINE__, "round %d: churner %d ended", round, k);
	}
	for (int k = 0; k < 2; k++) {
		kill(churner[k], SIGKILL);
		wait_for(churner[k]);
	}
	CHECK(pagoda_meminfo(&m1) == 0);
	CHECK(m1.oom_kills == m0.oom_kills + OOM_ROUNDS);
}

/* ---- the runner ---- */

struct racetest {
	const char *name;
	void (*fn)(void);
};

/* ---- file_writers ---- */

#define FW_THREADS 4
#define FW_CHUNK 3000       /* not a page: neighbours share pages */
#define FW_ROUNDS 40
static int fw_fd;
static volatile int fw_go;

static uint8_t fw_byte(int t, int round, size_t i)
{
	return (uint8_t)(t * 61 + round * 7 + i);
}

/* Thread t writes its stripes of the shared file (chunk t, t + THREADS,
 * ...) with pwrite, then its own file whole, appending. */
static void *fw_writer(void *arg)
{
	int t = (int)(intptr_t)arg;
	uint8_t buf[FW_CHUNK];
	char own[64];
	snprintf(own, sizeof own, "/tmp/race-fw.%d.%d", (int)getpid(), t);
	int fd = open(own, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0)
		return (void *)1;
	while (!fw_go)
		;
	for (int r = 0; r < FW_ROUNDS; r++) {
		for (size_t i = 0; i < FW_CHUNK; i++)
			buf[i] = fw_byte(t, r, i);
		off_t at = (off_t)(r * FW_THREADS + t) * FW_CHUNK;
		if (pwrite(fw_fd, buf, FW_CHUNK, at) != FW_CHUNK || write(fd, buf, FW_CHUNK) != FW_CHUNK)
			return (void *)2;
	}
	close(fd);
	return NULL;
}

/* Does path hold exactly want? */
static int file_is(const char *path, const uint8_t *want, size_t n)
{
	static uint8_t got[FW_THREADS * FW_ROUNDS * FW_CHUNK + 1];
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : read(fd, got, sizeof got);
	if (fd >= 0)
		close(fd);
	return r == (ssize_t)n && !memcmp(got, want, n);
}

/* Threads on every CPU write one file (interleaved stripes that share
 * pages) and each its own (O_APPEND) at once: every byte lands where it
 * was written, in /tmp (tmpfs on Pagoda) and on the root (ext2 when the
 * root is a disk). */
static void file_writers_in(const char *dir)
{
	static uint8_t want[FW_THREADS * FW_ROUNDS * FW_CHUNK], mine[FW_ROUNDS * FW_CHUNK];
	char shared[64], own[64];
	pthread_t th[FW_THREADS];
	snprintf(shared, sizeof shared, "%s/race-fw.%d", dir, (int)getpid());
	fw_fd = open(shared, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fw_fd >= 0);
	fw_go = 0;
	for (int t = 0; t < FW_THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, fw_writer, (void *)(intptr_t)t) == 0);
	fw_go = 1;
	for (int t = 0; t < FW_THREADS; t++) {
		void *r;
		CHECK(pthread_join(th[t], &r) == 0);
		if (r)
			fail(__LINE__, "writer %d: %s failed", t, r == (void *)1 ? "open" : "write");
	}
	CHECK(fsync(fw_fd) == 0);
	close(fw_fd);
	for (int r = 0; r < FW_ROUNDS; r++)
		for (int t = 0; t < FW_THREADS; t++)
			for (size_t i = 0; i < FW_CHUNK; i++)
				want[(size_t)(r * FW_THREADS + t) * FW_CHUNK + i] = fw_byte(t, r, i);
	if (!file_is(shared, want, sizeof want))
		fail(__LINE__, "%s: the stripes are not what the threads wrote", shared);
	for (int t = 0; t < FW_THREADS; t++) {
		for (int r = 0; r < FW_ROUNDS; r++)
			for (size_t i = 0; i < FW_CHUNK; i++)
				mine[(size_t)r * FW_CHUNK + i] = fw_byte(t, r, i);
		snprintf(own, sizeof own, "/tmp/race-fw.%d.%d", (int)getpid(), t);
		if (!file_is(own, mine, sizeof mine))
			fail(__LINE__, "%s: not the appends of thread %d", own, t);
		unlink(own);
	}
	unlink(shared);
}

static void t_file_writers(void)
{
	file_writers_in("/tmp");
	if (access("/", W_OK) == 0 && on_pagoda())
		file_writers_in("");   /* the root: ext2 when booted from a disk */
}

/* ---- truncate_mapped ---- */

#define TM_PAGES 32
#define TM_THREADS 4
#define TM_ROUNDS 100
#define TM_SWEEPS 20
static int tm_fd;
static char *tm_map;
/* in a shared anonymous page: both processes see them */
static struct tm_ctl {
	volatile int go, truncated;   /* start; the truncator's rounds are over */
	volatile long sigbus;         /* accesses past the end, both processes */
} *tm;

/* An access past the end: the truncating thread grows the file again
 * soon, and returning retries the access (Linux does the same). */
static void tm_on_sigbus(int sig)
{
	(void)sig;
	__atomic_add_fetch(&tm->sigbus, 1, __ATOMIC_RELAXED);
	sched_yield();
}

/* Read every page and store into it (byte t of each page), at least
 * TM_SWEEPS times and until the truncator is done; a byte read is a
 * letter of the truncator's pattern or zero. A message when not, else
 * NULL. */
static void *tm_sweeper(void *arg)
{
	int t = (int)(intptr_t)arg;
	while (!tm->go)
		;
	for (int s = 0; s < TM_SWEEPS || !tm->truncated; s++)
		for (int p = 0; p < TM_PAGES; p++) {
			volatile char *pg = tm_map + p * 4096;
			char c = pg[100];
			if (c && (c < 'A' || c > 'Z'))
				return "a byte neither the pattern nor zero";
			pg[t] = (char)(t + 1);
		}
	return NULL;
}

/* Shrink the file to a quarter (and let the others run into its end) and
 * grow it back TM_ROUNDS times, writing the round's letter at byte 100 of
 * every page with pwrite after each. */
static void *tm_truncator(void *arg)
{
	(void)arg;
	while (!tm->go)
		;
	for (int r = 0; r < TM_ROUNDS; r++) {
		char c = (char)('A' + r % 26);
		if (ftruncate(tm_fd, TM_PAGES / 4 * 4096 + 10) != 0)
			return "ftruncate failed";
		for (int y = 0; y < 3; y++)
			sched_yield();
		if (ftruncate(tm_fd, TM_PAGES * 4096) != 0)
			return "ftruncate failed";
		for (int p = 0; p < TM_PAGES; p++)
			if (pwrite(tm_fd, &c, 1, p * 4096 + 100) != 1)
				return "pwrite failed";
	}
	tm->truncated = 1;
	return NULL;
}

/* Join sweeper threads th[0..TM_THREADS): fail with the first message. */
static void tm_join_sweepers(pthread_t *th, const char *who)
{
	for (int t = 0; t < TM_THREADS; t++) {
		void *r;
		CHECK(pthread_join(th[t], &r) == 0);
		if (r)
			fail(__LINE__, "%s: sweeper %d: %s", who, t, (char *)r);
	}
}

/* Threads on every CPU of this process and of a child forked after the
 * mapping (sharing its page tables) read and write a shared mapping of a
 * file while a thread truncates it to a quarter and grows it back, again
 * and again: accesses past the end raise SIGBUS (counted, then retried),
 * nothing panics or hangs, and at the end the mapping and read() agree on
 * every byte (one cache). In /tmp and on the root (ext2 from a disk). */
static void truncate_mapped_in(const char *dir)
{
	char path[64], buf[4096];
	pthread_t th[TM_THREADS], tr;
	snprintf(path, sizeof path, "%s/race-tm.%d", dir, (int)getpid());
	tm_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(tm_fd >= 0 && ftruncate(tm_fd, TM_PAGES * 4096) == 0);
	tm_map = mmap(NULL, TM_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, tm_fd, 0);
	tm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(tm_map != MAP_FAILED && tm != MAP_FAILED);
	memset(tm_map, 'A', TM_PAGES * 4096);
	struct sigaction sa = { .sa_handler = tm_on_sigbus };
	CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
	pid_t child = fork();   /* the same sweeps, through page tables fork shared */
	CHECK(child >= 0);
	for (int t = 0; t < TM_THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, tm_sweeper, (void *)(intptr_t)t) == 0);
	if (child == 0) {
		tm_join_sweepers(th, "child");
		_exit(0);
	}
	CHECK(pthread_create(&tr, NULL, tm_truncator, NULL) == 0);
	tm->go = 1;
	void *r;
	CHECK(pthread_join(tr, &r) == 0);
	if (r)
		fail(__LINE__, "truncator: %s", (char *)r);
	tm_join_sweepers(th, "parent");
	int st;
	CHECK(waitpid(child, &st, 0) == child);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail(__LINE__, "the child's sweeps ended with status %#x", st);
	for (int p = 0; p < TM_PAGES; p++)
		if (pread(tm_fd, buf, 4096, p * 4096) != 4096 || memcmp(buf, tm_map + p * 4096, 4096))
			fail(__LINE__, "page %d: the mapping and read() differ", p);
	signal(SIGBUS, SIG_DFL);
	printf("  truncate_mapped (%s): %ld accesses past the end retried\n",
	       dir[0] ? dir : "/", tm->sigbus);
	CHECK(munmap(tm_map, TM_PAGES * 4096) == 0 && munmap(tm, 4096) == 0);
	close(tm_fd);
	unlink(path);
}

static void t_truncate_mapped(void)
{
	truncate_mapped_in("/tmp");
	if (access("/", W_OK) == 0 && on_pagoda())
		truncate_mapped_in("");   /* the root: ext2 when booted from a disk */
}

static const struct racetest tests[] = {
	{ "exec_race", t_exec_race },
	{ "proc_fd_race", t_proc_fd_race },
	{ "settid_lazyfree", t_settid_lazyfree },
	{ "text_fork_pd", t_text_fork_pd },
	{ "text_dontneed_attach", t_text_dontneed_attach },
	{ "reclaim_fork", t_reclaim_fork },
	{ "oom_unmap_churn", t_oom_unmap_churn },
	{ "file_writers", t_file_writers },
	{ "truncate_mapped", t_truncate_mapped },
};
#define NTESTS (sizeof tests / sizeof tests[0])

static int selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	self_path = argv[0];
	if (argc == 2 && strcmp(argv[1], "--exec-done") == 0)
		return EXEC_DONE;
	printf("racetests: starting\n");
	for (size_t i = 0; i < NTESTS; i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			tests[i].fn();
			fflush(stdout);
			_exit(0);
		}
		int st = 0;
		int ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (ok)
			passed++, printf("TEST user.race_%s PASS\n", tests[i].name);
		else
			failed++, printf("TEST user.race_%s FAIL status %#x\n", tests[i].name, st);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;   /* as pid 1 we inherit orphans */
	}
	printf("RACETESTS END %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
