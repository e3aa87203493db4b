/* user/usertests/t_ptshare.c -- fork with shared page tables, as a user
 * sees it: isolation both ways on big regions, fork chains, partial munmap
 * and mprotect of a shared 2 MiB range, read() into a COW-shared buffer,
 * every exit order, many children, exec after fork, a 256 MiB process whose
 * PD page fork shares (ptshare=pd), and (on Pagoda) the
 * sharing state itself through pagoda_vmquery. The same assertions hold on
 * Linux and under every ptshare= setting; only the vmquery checks depend on
 * the setting (pagoda_meminfo says which). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "usertests.h"

#define MB (1024UL * 1024)
#define CHUNK (2 * MB)          /* what one PT page maps */
#define PAGE 4096UL

/* A 2 MiB-aligned anonymous region of len bytes (len a multiple of 2 MiB). */
static unsigned char *region(size_t len)
{
	unsigned char *p = mmap(NULL, len + CHUNK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	uintptr_t a = ((uintptr_t)p + CHUNK - 1) & ~(CHUNK - 1);
	return (unsigned char *)a;
}

/* Fill one byte per page with a value derived from seed; check it. */
static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i += PAGE)
		p[i] = (unsigned char)(seed + i / PAGE);
}

static int holds(const unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i += PAGE)
		if (p[i] != (unsigned char)(seed + i / PAGE))
			return 0;
	return 1;
}

/* Pagoda's ptshare mode: 0 off, 1 fork, 2 all, 3 pd; -1 on Linux. */
static int ptshare_mode(void)
{
	struct pagoda_meminfo m;
	return pagoda_meminfo(&m) == 0 ? (int)m.ptshare_mode : -1;
}

static void wait_ok(pid_t pid)
{
	int st = ut_wait(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "child: %s", ut_status_str(st));
}

static void sync_byte(int fd, int write_side)
{
	char c = 's';
	if ((write_side ? write(fd, &c, 1) : read(fd, &c, 1)) != 1)
		ut_fail(__FILE__, __LINE__, "sync pipe");
}

/* ptshare_isolation: 64 MiB written before fork; the child's writes stay in
 * the child, the parent's in the parent, both ways. */
void test_ptshare_isolation(void)
{
	size_t len = 64 * MB;
	unsigned char *p = region(len);
	int go[2];
	fill(p, len, 1);
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {
		CHECK(holds(p, len, 1));
		fill(p, len / 2, 7);              /* child writes the first half */
		sync_byte(go[0], 0);              /* parent has written its half */
		CHECK(holds(p, len / 2, 7) && holds(p + len / 2, len / 2, 1 + len / 2 / PAGE));
		_exit(0);
	}
	fill(p + len / 2, len / 2, 9);            /* parent writes the second half */
	sync_byte(go[1], 1);
	wait_ok(pid);
	CHECK(holds(p, len / 2, 1) && holds(p + len / 2, len / 2, 9));
}

/* ptshare_vmquery: after fork, parent and child map a touched chunk through
 * the same PT page (share 2) when sharing is on; the child's first write
 * gives it a PT page of its own. */
void test_ptshare_vmquery(void)
{
	int mode = ptshare_mode();
	if (mode < 0)
		return;                           /* Linux: no vmquery */
	unsigned char *p = region(CHUNK);
	struct pagoda_vmquery before, next, q;
	fill(p, CHUNK, 3);
	CHECK_OK(pagoda_vmquery(p, &before));
	CHECK_OK(pagoda_vmquery(p + PAGE, &next));
	CHECK(before.mapped && before.pt_share_count == 1 && before.pt_present_count == 512);
	pid_t pid = ut_fork();
	if (pid == 0) {
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK(q.mapped && q.pa == before.pa);
		if (mode == 3 && q.pd_share_count == 2) {   /* the whole PD page */
			CHECK(q.pt_pa == before.pt_pa && q.pt_share_count == 1);
			CHECK((q.soft & VMQ_PD_WRPROT) && !(q.soft & VMQ_PT_WRPROT));
			CHECK(q.frame_refcount == 1);
		} else if (mode > 0) {
			CHECK(q.pt_pa == before.pt_pa && q.pt_share_count == 2);
			CHECK(q.soft & VMQ_PT_WRPROT);
			CHECK(q.frame_refcount == 1);   /* one reference per PT page */
		} else {
			CHECK(q.pt_pa != before.pt_pa && q.frame_refcount == 2);
		}
		p[0] = 42;                        /* the write unshares / copies */
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK(q.pt_pa != before.pt_pa && q.pt_share_count == 1);
		CHECK(q.pa != before.pa && (q.prot & VMQ_WRITE));
		CHECK_OK(pagoda_vmquery(p + PAGE, &q));
		CHECK(q.pa == next.pa && (q.soft & VMQ_COW));   /* not copied */
		CHECK_OK(pagoda_vmcheck());
		_exit(0);
	}
	wait_ok(pid);
	CHECK_OK(pagoda_vmquery(p, &q));
	CHECK(q.pt_pa == before.pt_pa && q.pa == before.pa && p[0] == 3);
}

/* pttree: pagoda_pttree describes another process's page-table pages as
 * vmquery sees them from inside: after fork, the child's tree over a touched
 * 2 MiB chunk is PML4 -> PDPT -> PD -> PT, and its PT page is the parent's
 * (same pa, share 2, write-protected PD entry) when sharing is on; counts
 * agree with vmquery's. Bad arguments get ESRCH, EINVAL, EFAULT. */
static void pttree_errors(pid_t pid, struct pagoda_ptnode *n, uintptr_t lo)
{
	CHECK_ERR(pagoda_pttree(-7, lo, lo + CHUNK, 4, n, 8), ESRCH);
	CHECK_ERR(pagoda_pttree(pid, lo + 1, lo + CHUNK, 4, n, 8), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo + CHUNK, lo, 4, n, 8), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo, 1UL << 48, 4, n, 8), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo, lo + CHUNK, 0, n, 8), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo, lo + CHUNK, 5, n, 8), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo, lo + CHUNK, 4, n, -1), EINVAL);
	CHECK_ERR(pagoda_pttree(pid, lo, lo + CHUNK, 4, (void *)8, 8), EFAULT);
}

void test_pttree(void)
{
	int mode = ptshare_mode();
	if (mode < 0)
		return;                           /* Linux: no pagoda_pttree */
	unsigned char *p = region(CHUNK);
	struct pagoda_ptnode n[8];
	struct pagoda_vmquery q;
	int go[2];
	uintptr_t lo = (uintptr_t)p;
	fill(p, 8 * PAGE, 5);
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {
		char c;
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	CHECK_OK(pagoda_vmquery(p, &q));
	memset(n, 0xab, sizeof n);
	CHECK(pagoda_pttree(pid, lo, lo + CHUNK, 4, n, 1) == 4);
	CHECK(n[0].level == PTN_PML4 && n[0].parent_pa == 0 && n[1].level == 0xabababab);
	CHECK(pagoda_pttree(pid, lo, lo + CHUNK, 4, n, 8) == 4);
	CHECK(n[1].level == PTN_PDPT && n[1].parent_pa == n[0].pa);
	CHECK(n[2].level == PTN_PD && n[2].parent_pa == n[1].pa);
	CHECK(n[3].level == PTN_PT && n[3].parent_pa == n[2].pa && n[3].va == lo);
	CHECK(n[3].leaf_present == 8 && n[3].present == 8 && n[3].leaf_file == 0);
	CHECK(n[3].present == q.pt_present_count);
	if (mode == 3 && n[2].share == 2)   /* the PD page shared whole */
		CHECK(n[3].pa == q.pt_pa && n[3].share == 1 && (n[2].flags & PTN_WRPROT));
	else if (mode > 0)
		CHECK(n[3].pa == q.pt_pa && n[3].share == 2 && (n[3].flags & PTN_WRPROT));
	else
		CHECK(n[3].pa != q.pt_pa && n[3].share == 1 && !(n[3].flags & PTN_WRPROT));
	CHECK(pagoda_pttree(pid, lo, lo + CHUNK, 3, n, 8) == 3 && n[2].level == PTN_PD);
	CHECK(pagoda_pttree(pid, lo, lo + CHUNK, 1, n, 8) == 1);
	pttree_errors(pid, n, lo);
	CHECK(write(go[1], "g", 1) == 1);
	wait_ok(pid);
	CHECK_ERR(pagoda_pttree(pid, lo, lo + CHUNK, 4, n, 8), ESRCH);   /* reaped */
	close(go[0]);
	close(go[1]);
}

/* ptshare_chain3: a fork chain three deep; level L writes the pages i with
 * i % 4 == L in a scrambled order before forking level L+1. Every level
 * sees its ancestors' writes and its own, never its descendants'. */
static void chain_check(const unsigned char *p, size_t pages, int level)
{
	for (size_t i = 0; i < pages; i++) {
		size_t k = i % 4;
		unsigned char want = k >= 1 && k <= (size_t)level ? (unsigned char)(100 + k)
								   : (unsigned char)i;
		if (p[i * PAGE] != want)
			ut_fail(__FILE__, __LINE__, "level %d page %zu: %u, want %u", level, i,
				p[i * PAGE], want);
	}
}

static void chain(unsigned char *p, size_t pages, int level)
{
	for (size_t k = 0; level > 0 && k < pages / 4; k++) {
		size_t i = (k * 2654435761u) % (pages / 4) * 4 + (size_t)level;
		p[i * PAGE] = (unsigned char)(100 + level);
	}
	chain_check(p, pages, level);
	if (level == 3)
		return;
	pid_t pid = ut_fork();
	if (pid == 0) {
		chain(p, pages, level + 1);
		_exit(0);
	}
	wait_ok(pid);
	chain_check(p, pages, level);
}

void test_ptshare_chain3(void)
{
	size_t len = 8 * MB;
	unsigned char *p = region(len);
	for (size_t i = 0; i < len / PAGE; i++)
		p[i * PAGE] = (unsigned char)i;
	chain(p, len / PAGE, 0);
}

/* ptshare_munmap_half: the child unmaps half of a shared 2 MiB range and
 * write-protects a quarter while the parent reads and writes all of its
 * own copy. */
void test_ptshare_munmap_half(void)
{
	unsigned char *p = region(CHUNK);
	int go[2], done[2];
	fill(p, CHUNK, 5);
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(done));
	pid_t pid = ut_fork();
	if (pid == 0) {
		CHECK_OK(munmap(p, CHUNK / 2));
		CHECK_OK(mprotect(p + CHUNK / 2, CHUNK / 4, PROT_READ));
		sync_byte(go[1], 1);
		CHECK(holds(p + CHUNK / 2, CHUNK / 2, 5 + CHUNK / 2 / PAGE));
		sync_byte(done[0], 0);            /* the parent has written */
		CHECK(holds(p + CHUNK / 2, CHUNK / 2, 5 + CHUNK / 2 / PAGE));
		p[CHUNK - PAGE] = 77;             /* still writable: last quarter */
		_exit(0);
	}
	sync_byte(go[0], 0);
	CHECK(holds(p, CHUNK, 5));                /* nothing vanished here */
	fill(p, CHUNK, 8);
	sync_byte(done[1], 1);
	wait_ok(pid);
	CHECK(holds(p, CHUNK, 8));
}

/* ptshare_munmap_faults: in the child, the unmapped half really is gone
 * (SIGSEGV) and the read-only quarter refuses writes, while the parent's
 * mapping of the same shared range is untouched. */
static void poke(void *addr)
{
	*(volatile unsigned char *)addr = 1;
}

void test_ptshare_munmap_faults(void)
{
	unsigned char *p = region(CHUNK);
	fill(p, CHUNK, 2);
	pid_t pid = ut_fork();
	if (pid == 0) {
		CHECK_OK(munmap(p, CHUNK / 2));
		CHECK_OK(mprotect(p + CHUNK / 2, CHUNK / 4, PROT_READ));
		ut_expect_signal(SIGSEGV, poke, p);
		ut_expect_signal(SIGSEGV, poke, p + CHUNK / 2);
		_exit(0);
	}
	wait_ok(pid);
	CHECK(holds(p, CHUNK, 2));
	p[0] = 1;
}

/* ptshare_pipe_read: read() into a buffer that is COW-shared with a child
 * (the kernel's write must take the fault path), in both processes. */
void test_ptshare_pipe_read(void)
{
	unsigned char *p = region(CHUNK);
	int fds[2];
	fill(p, CHUNK, 4);
	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		CHECK(read(fds[0], p + 3 * PAGE, 5) == 5);
		CHECK(memcmp(p + 3 * PAGE, "child", 5) == 0);
		CHECK(holds(p + 4 * PAGE, CHUNK - 4 * PAGE, 4 + 4));
		_exit(0);
	}
	CHECK(write(fds[1], "child", 5) == 5);
	wait_ok(pid);
	CHECK(p[3 * PAGE] == (unsigned char)(4 + 3));   /* the child's read stayed there */
	CHECK(write(fds[1], "paren", 5) == 5);
	CHECK(read(fds[0], p + 5 * PAGE, 5) == 5);
	CHECK(memcmp(p + 5 * PAGE, "paren", 5) == 0);
}

/* ptshare_exit_orders: three sharers of one region (parent, two children)
 * exit in each of the orders below; the survivors keep their data. */
void test_ptshare_exit_orders(void)
{
	static const int orders[][2] = { { 0, 1 }, { 1, 0 } };
	unsigned char *p = region(4 * MB);
	fill(p, 4 * MB, 6);
	for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
		int go[2][2];
		pid_t kid[2];
		for (int k = 0; k < 2; k++) {
			CHECK_OK(pipe(go[k]));
			kid[k] = ut_fork();
			if (kid[k] == 0) {
				sync_byte(go[k][0], 0);
				_exit(holds(p, 4 * MB, 6) ? 0 : 1);
			}
		}
		for (int i = 0; i < 2; i++) {
			int k = orders[o][i];
			sync_byte(go[k][1], 1);
			wait_ok(kid[k]);
			CHECK(holds(p, 4 * MB, 6));
		}
	}
	/* and the parent leaving first: a grandchild outlives it; it reports
	 * through a pipe whose end of file also says it has exited */
	int go[2], res[2];
	char verdict = 0;
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(res));
	pid_t mid = ut_fork();
	if (mid == 0) {
		pid_t grandchild = ut_fork();
		if (grandchild == 0) {
			close(res[0]);
			sync_byte(go[0], 0);          /* its parent is gone by now */
			char v = holds(p, 4 * MB, 6) ? 'y' : 'n';
			(void)!write(res[1], &v, 1);
			_exit(0);
		}
		_exit(0);
	}
	close(res[1]);
	wait_ok(mid);
	sync_byte(go[1], 1);
	CHECK(read(res[0], &verdict, 1) == 1 && verdict == 'y');
	CHECK(read(res[0], &verdict, 1) == 0);    /* it has exited */
	CHECK(holds(p, 4 * MB, 6));
}

/* ptshare_children64: 64 live children of a big parent, each checking and
 * writing a page of its own. */
void test_ptshare_children64(void)
{
	struct pagoda_meminfo m;
	size_t len = 256 * MB;
	if (pagoda_meminfo(&m) == 0 && m.free_pages * PAGE / 2 < len)
		len = (m.free_pages * PAGE / 2) & ~(CHUNK - 1);   /* small machines */
	if (ut_on_linux())
		len = 16 * MB;   /* the host run checks semantics, not scale */
	unsigned char *p = region(len);
	int go[2];
	pid_t kids[64];
	fill(p, len, 3);
	CHECK_OK(pipe(go));
	for (int k = 0; k < 64; k++) {
		kids[k] = ut_fork();
		if (kids[k] == 0) {
			char c;
			if (read(go[0], &c, 1) != 1)
				_exit(2);
			p[(size_t)k * PAGE] = (unsigned char)k;
			_exit(holds(p + 64 * PAGE, len - 64 * PAGE, 3 + 64) ? 0 : 1);
		}
	}
	for (int k = 0; k < 64; k++)
		sync_byte(go[1], 1);
	for (int k = 0; k < 64; k++)
		wait_ok(kids[k]);
	CHECK(holds(p, len, 3));
}

/* ptshare_exec_after_fork: a big parent forks and the child execs at once
 * (the shared page tables are dropped without ever being copied). */
void test_ptshare_exec_after_fork(void)
{
	size_t len = 64 * MB;
	unsigned char *p = region(len);
	char path[300];
	fill(p, len, 1);
	snprintf(path, sizeof path, "%s/true", ut_bindir);
	pid_t pid = ut_fork();
	if (pid == 0) {
		char *argv[] = { "true", NULL }, *envp[] = { NULL };
		execve(path, argv, envp);
		_exit(127);
	}
	wait_ok(pid);
	CHECK(holds(p, len, 1));
}


/* ---- ptshare_pd_big: fork of a 256 MiB process, one PD page shared ---- */

#define PD_BASE 0x100000000000UL   /* 16 TiB: a 1 GiB of its own */
#define PD_LEN (256 * MB)

/* Every page of [p, p + len) holds its index + seed in its first word
 * (the other side of the fork changed nothing). */
static int holds_words(const unsigned char *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len / PAGE; i++)
		if (*(const uint64_t *)(p + i * PAGE) != i + seed)
			return 0;
	return 1;
}

/* VmRSS of this process in KiB. */
static long long rss_kb(void)
{
	static char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		ut_fail(__FILE__, __LINE__, "read /proc/self/status");
	buf[n] = '\0';
	return procfs_field(buf, "VmRSS");
}

/* The child: sees every page, RSS counts all of it, and (ptshare=pd) maps
 * it through the parent's PD page until its first write, which unshares
 * the PD page and then the one PT page written; the other PT pages stay
 * shared with the parent. */
static void pd_big_child(unsigned char *p, const struct pagoda_vmquery *q0, int mode)
{
	struct pagoda_vmquery q;
	CHECK(holds_words(p, PD_LEN, 1));
	CHECK(rss_kb() >= (long long)(PD_LEN / 1024));
	if (mode == 3) {
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK(q.pd_share_count == 2 && (q.soft & VMQ_PD_WRPROT) && q.pt_pa == q0->pt_pa);
	}
	p[PD_LEN / 2 + 8] = 0x5a;                 /* a leaf write below the shared PD */
	if (mode == 3) {
		CHECK_OK(pagoda_vmquery(p + PD_LEN / 2, &q));
		CHECK(q.pd_share_count == 1 && q.pt_share_count == 1 && (q.prot & VMQ_WRITE));
		CHECK_OK(pagoda_vmquery(p, &q));       /* another chunk: PT page still shared */
		CHECK(q.pt_pa == q0->pt_pa && q.pt_share_count == 2 && (q.soft & VMQ_PT_WRPROT));
	}
	CHECK(holds_words(p, PD_LEN, 1));
	CHECK_OK(pagoda_vmcheck());
	_exit(0);
}

/* The parent, in a process of its own so that every frame it and its child
 * used can be counted back by the caller. */
static void pd_big(void *arg)
{
	int mode = *(int *)arg;
	unsigned char *p = mmap((void *)PD_BASE, PD_LEN, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(p == (unsigned char *)PD_BASE);
	for (size_t i = 0; i < PD_LEN / PAGE; i++)
		*(uint64_t *)(p + i * PAGE) = i + 1;
	struct pagoda_vmquery q0, q;
	struct pagoda_meminfo m0, m1;
	CHECK_OK(pagoda_vmquery(p, &q0));
	CHECK_OK(pagoda_meminfo(&m0));
	pid_t pid = ut_fork();
	if (pid == 0)
		pd_big_child(p, &q0, mode);
	wait_ok(pid);
	CHECK_OK(pagoda_meminfo(&m1));
	CHECK(mode != 3 || m1.fork_shared_pd > m0.fork_shared_pd);
	CHECK(holds_words(p, PD_LEN, 1) && p[PD_LEN / 2 + 8] == 0);
	CHECK_OK(pagoda_vmquery(p + PD_LEN / 2, &q));
	CHECK(q.pd_share_count <= 1 && q.pt_share_count == 1);
	CHECK_OK(pagoda_vmcheck());
	CHECK_OK(munmap(p, PD_LEN));
	_exit(0);
}

/* ptshare_pd_big: fork of a process with 256 MiB written (one PD page under
 * ptshare=pd): contents on both sides, RSS, the sharing state, and every
 * frame and page-table page back once both are gone. */
void test_ptshare_pd_big(void)
{
	int mode = ptshare_mode();
	struct pagoda_meminfo m0, m1;
	if (mode < 0)
		return;                           /* Linux: no vmquery, no meminfo */
	if (pagoda_meminfo(&m0) == 0 && m0.free_pages * PAGE / 3 < PD_LEN)
		return;                           /* too small a machine */
	int st = ut_run(pd_big, &mode);       /* once to warm up: this process's own */
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);   /* writes after a fork copy tables */
	CHECK_OK(pagoda_meminfo(&m0));
	st = ut_run(pd_big, &mode);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_OK(pagoda_meminfo(&m1));
	CHECK(m1.free_pages == m0.free_pages && m1.pagetable_pages == m0.pagetable_pages);
}

/* ptshare_pd_gib: a 1 GiB mmap is placed on a 1 GiB boundary, so under
 * ptshare=pd fork shares its PD page whole (the child maps it through the
 * parent's PD page until its first write). Pagoda machines of 1.2 GiB and
 * more only (mmap refuses one request above RAM). */
void test_ptshare_pd_gib(void)
{
	const size_t gib = 1024 * MB;
	struct pagoda_meminfo m;
	int mode = ptshare_mode();
	if (mode < 0 || pagoda_meminfo(&m) != 0 || m.total_pages * PAGE < gib + gib / 8)
		return;
	unsigned char *p = mmap(NULL, gib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK((uintptr_t)p % gib == 0);
	p[0] = 1;
	p[gib - 1] = 2;
	pid_t pid = ut_fork();
	if (pid == 0) {
		struct pagoda_vmquery q;
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK(mode != 3 || q.pd_share_count == 2);
		CHECK(p[0] == 1 && p[gib - 1] == 2);
		_exit(0);
	}
	wait_ok(pid);
	CHECK_OK(munmap(p, gib));
}
