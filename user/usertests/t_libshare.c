/* user/usertests/t_libshare.c -- shared libraries' page tables shared by
 * different programs (docs/shared-libraries.md). bin/libhold-dyn (PIE) and
 * bin/libhold-dyn-nopie are two different dynamically linked programs that
 * stay alive and answer commands (user/dyn/libhold.c). Under ptshare=all the
 * kernel maps musl's libc.so at the same canonical address in both, with its
 * first writable page on a 2 MiB boundary, so both point at one PT page for
 * libc's text (share 2, pagoda_pttree); a write into the library in one
 * leaves the other's view; RSS and PSS stay exact; the shared PT page is
 * freed once whatever the exit order; a library loaded with dlopen gets its
 * canonical address too, or (slot taken) an ordinary one. Other ptshare
 * modes: the same addresses, no sharing. On Linux only the answers are
 * checked (no pagoda_* calls). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define CHUNK (2UL << 20)
#define PAGE 4096UL
#define LIB_BASE 0x7fffc0000000UL   /* arch/x86_64/memlayout.h USER_LIB_BASE */
#define LIB_END 0x7fffe0000000UL

/* A running libhold: its pid and the pipes of its stdin and stdout. */
struct hold {
	pid_t pid;
	int in, out;
};

/* Pagoda's ptshare mode: 0 off, 1 fork, 2 all, 3 pd (all and PD pages);
 * -1 on Linux. */
static int mode(void)
{
	struct pagoda_meminfo m;
	return pagoda_meminfo(&m) == 0 ? (int)m.ptshare_mode : -1;
}

static void hold_start(struct hold *h, const char *prog)
{
	int in[2], out[2];
	char path[256];
	snprintf(path, sizeof path, "%s/%s", ut_bindir, prog);
	CHECK_OK(pipe(in));
	CHECK_OK(pipe(out));
	h->pid = ut_fork();
	if (h->pid == 0) {
		char *argv[] = { (char *)prog, NULL };
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(126);
		close(in[1]);
		close(out[0]);
		execv(path, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	h->in = in[1];
	h->out = out[0];
}

/* Send one command line, read the answer line into ans (no newline). */
static void ask(struct hold *h, const char *cmd, char *ans, size_t n)
{
	size_t len = strlen(cmd), i = 0;
	char c;
	CHECK((size_t)write(h->in, cmd, len) == len && write(h->in, "\n", 1) == 1);
	while (read(h->out, &c, 1) == 1 && c != '\n')
		if (i + 1 < n)
			ans[i++] = c;
	ans[i] = '\0';
	if (i == 0)
		ut_fail(__FILE__, __LINE__, "pid %d: no answer to \"%s\"", (int)h->pid, cmd);
}

static unsigned long ask_hex(struct hold *h, const char *cmd)
{
	char ans[64];
	ask(h, cmd, ans, sizeof ans);
	return strtoul(ans, NULL, 16);
}

static long ask_dec(struct hold *h, const char *cmd)
{
	char ans[64];
	ask(h, cmd, ans, sizeof ans);
	return strtol(ans, NULL, 10);
}

/* "q", then the exit status must be 0. */
static void hold_stop(struct hold *h)
{
	CHECK(write(h->in, "q\n", 2) == 2);
	CHECK(ut_wait(h->pid) == 0);
	close(h->in);
	close(h->out);
}

/* The PT page of pid's page tables that maps va, into *n; 0 or -1. */
static int pt_of(pid_t pid, unsigned long va, struct pagoda_ptnode *n)
{
	struct pagoda_ptnode buf[8];
	unsigned long lo = va & ~(CHUNK - 1);
	long k = pagoda_pttree(pid, lo, lo + CHUNK, 4, buf, 8);
	for (long i = 0; i < k && i < 8; i++)
		if (buf[i].level == PTN_PT) {
			*n = buf[i];
			return 0;
		}
	return -1;
}

/* pid's RSS in pages (pagoda_procinfo), -1 if not found. */
static long rss_of(pid_t pid)
{
	struct pagoda_procinfo pi;
	for (long i = 0; pagoda_procinfo(i, &pi) == 0; i++)
		if (pi.pid == pid)
			return (long)pi.rss_pages;
	return -1;
}

/* Check the text and data PT pages of libc in a and b, at base / data. */
static void check_libc_pts(struct hold *a, struct hold *b, unsigned long base,
			   unsigned long data, int m)
{
	struct pagoda_ptnode ta, tb, da, db;
	CHECK(pt_of(a->pid, base, &ta) == 0 && pt_of(b->pid, base, &tb) == 0);
	CHECK(pt_of(a->pid, data, &da) == 0 && pt_of(b->pid, data, &db) == 0);
	if (m >= 2) {   /* all, pd */
		CHECK(ta.pa == tb.pa && ta.share == 2 && (ta.flags & PTN_WRPROT));
		/* published whole: every page of the read-only part is present */
		CHECK(ta.leaf_present == (data - base) / PAGE && ta.leaf_file == ta.leaf_present);
	} else {
		CHECK(ta.pa != tb.pa && ta.share == 1 && tb.share == 1);
	}
	CHECK(da.pa != db.pa && da.share == 1 && db.share == 1);   /* data: private */
}

/* libshare_libc: two different dynamic programs map libc.so at one address,
 * its data on a 2 MiB boundary; under ptshare=all they share its text PT
 * page (share 2), else each has its own; PSS adds up. */
void test_libshare_libc(void)
{
	struct hold a, b;
	int m = mode();
	hold_start(&a, "libhold-dyn");
	hold_start(&b, "libhold-dyn-nopie");
	unsigned long base = ask_hex(&a, "b"), data = ask_hex(&a, "d");
	CHECK(base != 0 && data > base && ask_dec(&a, "r 1") == 'E' && ask_dec(&b, "r 1") == 'E');
	if (m >= 0) {
		CHECK(ask_hex(&b, "b") == base && ask_hex(&b, "d") == data);
		CHECK(base >= LIB_BASE && data < LIB_END && data % CHUNK == 0);
		check_libc_pts(&a, &b, base, data, m);
		pss_sum_check();
	}
	hold_stop(&a);
	hold_stop(&b);
}

/* libshare_exec_race: four dynamic programs started at once (on several
 * CPUs their execs build libc's text PT page at the same time): under
 * ptshare=all all four end on one shared page (share 4); the ones that
 * lost the race to publish switch to the winner's. 8 rounds. */
void test_libshare_exec_race(void)
{
	enum { N = 4, ROUNDS = 8 };
	int m = mode();
	for (int round = 0; round < ROUNDS; round++) {
		struct hold h[N];
		struct pagoda_ptnode t[N];
		for (int i = 0; i < N; i++)
			hold_start(&h[i], i % 2 ? "libhold-dyn-nopie" : "libhold-dyn");
		unsigned long base = ask_hex(&h[0], "b");
		for (int i = 0; i < N; i++)   /* Linux: each its own (random) address */
			CHECK((m < 0 || ask_hex(&h[i], "b") == base) && ask_dec(&h[i], "r 1") == 'E');
		for (int i = 0; m >= 2 && i < N; i++) {
			CHECK(pt_of(h[i].pid, base, &t[i]) == 0);
			if (t[i].pa != t[0].pa || t[i].share != N)
				ut_fail(__FILE__, __LINE__, "round %d: holder %d has text PT page %#lx "
					"share %u, holder 0 %#lx", round, i, (unsigned long)t[i].pa,
					(unsigned)t[i].share, (unsigned long)t[0].pa);
		}
		for (int i = 0; i < N; i++)
			hold_stop(&h[i]);
	}
}

/* libshare_write: one process makes a page of libc's text chunk writable
 * and flips a byte (the ELF header's padding at offset 9): it gets a PT page
 * of its own and a private copy of that page; the other still reads 0 and
 * keeps the shared PT page (now share 1); neither RSS moves; PSS adds up. */
void test_libshare_write(void)
{
	struct hold a, b;
	struct pagoda_ptnode ta, tb;
	int m = mode();
	hold_start(&a, "libhold-dyn");
	hold_start(&b, "libhold-dyn-nopie");
	unsigned long base = ask_hex(&a, "b");
	CHECK(ask_dec(&a, "r 9") == 0 && ask_dec(&b, "r 9") == 0);
	long rss_a = rss_of(a.pid), rss_b = rss_of(b.pid);
	char ans[16];
	ask(&a, "w 9", ans, sizeof ans);
	CHECK(strcmp(ans, "ok") == 0);
	CHECK(ask_dec(&a, "r 9") == 255 && ask_dec(&b, "r 9") == 0);
	if (m >= 0) {
		CHECK(pt_of(a.pid, base, &ta) == 0 && pt_of(b.pid, base, &tb) == 0);
		CHECK(ta.pa != tb.pa && ta.share == 1 && tb.share == 1);
		CHECK(rss_of(a.pid) == rss_a && rss_of(b.pid) == rss_b);
		pss_sum_check();
		CHECK_OK(pagoda_vmcheck());
	}
	hold_stop(&a);
	hold_stop(&b);
}

/* libshare_exit_orders: three dynamic processes share libc's text PT page;
 * they exit in every order (first, last, middle) and the user page-table
 * page count comes back to where it was, so the shared page was freed once
 * (twice would panic in vmcheck/the allocator, never would leak it). */
void test_libshare_exit_orders(void)
{
	static const int orders[3][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 0, 2 } };
	struct pagoda_meminfo before, after;
	int m = mode();
	/* round -1 only warms up: with ptshare=pd fork shares whole PD pages, and
	 * this process's own first writes after its forks copy PT pages it keeps */
	for (int o = -1; o < 3; o++) {
		struct hold h[3];
		const int *order = orders[o < 0 ? 0 : o];
		if (m >= 0)
			CHECK_OK(pagoda_meminfo(&before));
		for (int i = 0; i < 3; i++)
			hold_start(&h[i], i == 1 ? "libhold-dyn-nopie" : "libhold-dyn");
		for (int i = 0; i < 3; i++)
			CHECK(ask_dec(&h[i], "r 1") == 'E');
		if (m >= 2) {
			CHECK_OK(pagoda_meminfo(&after));
			CHECK(after.shared_pt_pages >= 1);
		}
		for (int i = 0; i < 3; i++) {
			hold_stop(&h[order[i]]);
			if (m >= 0)
				CHECK_OK(pagoda_vmcheck());
		}
		if (m >= 0 && o >= 0) {
			CHECK_OK(pagoda_meminfo(&after));
			CHECK(after.pagetable_pages == before.pagetable_pages);
			CHECK(after.shared_pt_pages == before.shared_pt_pages);
		}
	}
}

/* libshare_dlopen: a library the loader maps with mmap (dlopen of
 * lib/libpgtest.so) lands at its canonical address in two different
 * programs, whose text PT page they share under ptshare=all; a third
 * process that maps a page at that address first still loads and runs it,
 * elsewhere (the collision rule). */
void test_libshare_dlopen(void)
{
	struct hold a, b, c;
	struct pagoda_ptnode ta, tb;
	char cmd[300], ans[64];
	const char *slash = strrchr(ut_bindir, '/');
	int m = mode(), dir = slash ? (int)(slash - ut_bindir) : 0;
	snprintf(cmd, sizeof cmd, "l %.*s/lib/libpgtest.so", dir, ut_bindir);
	hold_start(&a, "libhold-dyn");
	hold_start(&b, "libhold-dyn-nopie");
	hold_start(&c, "libhold-dyn");
	unsigned long fa, fb, fc;
	int ra = 0, rb = 0, rc = 0;
	ask(&a, cmd, ans, sizeof ans);
	CHECK(sscanf(ans, "%lx %d", &fa, &ra) == 2 && ra == 42);
	ask(&b, cmd, ans, sizeof ans);
	CHECK(sscanf(ans, "%lx %d", &fb, &rb) == 2 && rb == 42);
	snprintf(ans, sizeof ans, "m %lx", fa & ~(PAGE - 1));
	ask(&c, ans, ans, sizeof ans);
	CHECK(strcmp(ans, "ok") == 0);
	ask(&c, cmd, ans, sizeof ans);
	CHECK(sscanf(ans, "%lx %d", &fc, &rc) == 2 && rc == 42 && fc != fa);
	if (m >= 0) {
		CHECK(fa == fb && fa >= LIB_BASE && fa < LIB_END);
		CHECK(fc < LIB_BASE);   /* fell back to the ordinary mmap area */
		CHECK(pt_of(a.pid, fa, &ta) == 0 && pt_of(b.pid, fa, &tb) == 0);
		CHECK(m >= 2 ? ta.pa == tb.pa && ta.share == 2 : ta.pa != tb.pa);
		pss_sum_check();
	}
	hold_stop(&a);
	hold_stop(&b);
	hold_stop(&c);
}
