/* user/vmtester.c -- a model-based random tester of the virtual memory.
 *
 *   vmtester [-s SEED] [-n STEPS] [-w MIB] [-T SECONDS] [-t THREADS [-r HELPERS]]
 *            [-d DIR [-k]] [-S SWAPDEV] [-v]
 *
 * Keeps a shadow model (every byte) of a window of MIB MiB (default 4) at a
 * fixed, 1 GiB-aligned address, and runs STEPS (default 2000) seeded random
 * operations on it: mmap (private or shared anonymous, private file mappings
 * of its own binary, shared and private mappings of a scratch file,
 * MAP_FIXED, sometimes MAP_POPULATE), munmap, mprotect,
 * MADV_DONTNEED, MADV_FREE, MADV_PAGEOUT and MADV_COLD, partial-page
 * writes, reads, read()/write() of a
 * pipe into and out of the window (the kernel's own accesses), fork (mode A:
 * the child verifies everything, runs steps of its own, verifies again and
 * exits while the parent waits; mode B: the parent runs steps while the child
 * waits, then the child verifies that the parent's changes did not reach it)
 * and memory pressure (a child allocates and touches free memory down below
 * the kernel's reclaim mark, sized from pagoda_meminfo; a small fixed amount
 * on Linux). Every byte read is checked against the model, every access that
 * the model says must fault (PROT_NONE, unmapped, write to read-only) must
 * raise SIGSEGV (SIGBUS past the scratch file's end), every other must not.
 *
 * The scratch file (FILE_PAGES pages at most, in DIR, default /tmp; one per
 * worker thread; unlinked at once unless -k keeps it) is written and read
 * with pwrite() and pread() too, truncated and grown again (pages past the
 * end raise SIGBUS in every mapping, private copies included, and read
 * zeros after a regrowth), fsync'ed or msync'ed and then dropped from the
 * cache with posix_fadvise(DONTNEED), so later faults read it back from a
 * disk's file system. Its model lives in the shared store, so that both
 * sides of a fork agree on it; a private page of it reads the file until
 * it is written (copied). With -k the file stays after the run and its
 * bytes are printed as a hash for the host to compare with the disk image
 * ("KTEST EXT2-HASH vda PATH BYTES HASH", tests/qemu/disks.py).
 *
 * The model is Linux's semantics:
 * MADV_FREE'd pages read their old data or zeros until rewritten, a written
 * page is never lost, DONTNEED zero-fills private anonymous pages, reloads
 * private file pages and leaves shared ones alone.
 *
 * -S SWAPDEV (as init of a test VM only) turns that swap area on first:
 * with a window and its model larger than the RAM (suite vmtester-swap:
 * 48 MiB of RAM, a 64 MiB window), every operation then meets pages out on
 * swap -- shared PT pages of forks, COW, MADV_FREE, file mappings -- and
 * the memory-pressure step pushes more of them out.
 *
 * The random sequence depends only on the seed, never on what the kernel did,
 * so a failure (printed with its seed and step, exit status 1) replays with
 * `vmtester -s SEED -n STEP` (and -v traces every operation). -T runs seeds
 * SEED, SEED+1, ... for about SECONDS. At the end it prints one summary line:
 *   vmtester: PASS seeds S->.E steps N ops O pages-checked P faults F
 *
 * -t N: N worker threads of the one process, each running its own sequence
 * (its seed derived from SEED and its number) on its own run of MIB*256/N
 * pages of the window, so that the workers' VMAs and PT pages neighbour
 * and their faults, unmaps and protects run at once on several CPUs; -r M
 * (default 1) helper threads read, write and read()/write() random pages
 * of random workers' regions, each access between two of that worker's
 * steps (the worker holds its region's lock during a step) and checked
 * against that region's model. Memory pressure runs with every other
 * thread paused (a gate taken shared by each step, exclusively by a
 * pressure step): a hog near the reclaim mark would make the others'
 * system calls fail with ENOMEM, which the model cannot follow. The child
 * of a worker's fork checks and changes that worker's region only. Failure lines name the thread and its seed; the replay line is
 * `vmtester -s SEED -t N -r M -w MIB -n STEP+1` (the workers' sequences
 * replay exactly, the interleaving does not).
 *
 * Every operation is on: the bugs it first found (issue 14: COW through
 * mprotect, shared anonymous memory, the kernel reading PROT_NONE memory)
 * are fixed, and the gates that held them back are gone.
 *
 * Portable C: builds against newlib (Pagoda) and musl, runs on Linux too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
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
#include <pthread.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "fuzz_rand.h"

#define PAGE 4096
#define WORDS (PAGE / 8)
#define WIN_BASE 0x200000000000UL  /* 32 TiB: far from text, heap, mmap area, stack */
#define PT_PAGES 512               /* pages one PT page maps (2 MiB) */
#define KIO_LEN 64                 /* bytes of a pipe read()/write() op */
#define FILE_PAGES 64              /* the scratch file's largest size */

enum kind { K_NONE, K_ANON, K_SHARED, K_FILE, K_FSHARED, K_FPRIV };

/* What the model knows about one page of the window. */
struct vpage {
	uint8_t kind;     /* enum kind; K_NONE: unmapped */
	uint8_t prot;     /* PROT_* of the mapping */
	uint8_t lazy;     /* MADV_FREE'd, not written since: old data or zeros */
	uint8_t rofork;   /* read-only at a fork whose other side lives (for messages) */
	uint32_t sh;      /* K_SHARED: index into the shared store */
	uint32_t fpg;     /* K_FILE, K_FSHARED, K_FPRIV: page of the file */
	uint8_t copied;   /* K_FPRIV: written, a private copy (else: reads the file) */
};

/* One tester's state: its region of the window and the model of it (a
 * fork's child inherits a copy). Single-threaded there is one; with -t N
 * each worker thread owns one region, and a helper thread borrows another
 * region's state (S points at it) only while holding that region's lock. */
struct tstate {
	uint64_t seed;           /* the seed of this region's sequence */
	long step, sub;          /* sub: step inside a fork's other side, or -1 */
	int verbose, in_child, child_alive, on_pagoda;
	int index;               /* worker (region) number; 0 single-threaded */
	size_t npages, nshared;
	struct vpage *pg;
	uint64_t (*shadow)[WORDS];   /* private content, by window page */
	uint64_t (*store)[WORDS];    /* shared content, by store index */
	uint8_t *used;               /* store index in use */
	uint8_t *forkset;            /* store indices in use at a fork */
	size_t focus;                /* where the last picked range started */
	unsigned char *win;          /* the region's first page */
	int ffd;                     /* the scratch file (store indices npages.. hold it) */
	size_t fsize, fmin;          /* its size in pages; the least since the last fork */
};

/* What every tester shares: the mapped file, the whole window, the thread
 * layout of -t/-r, the gate and the region locks. */
static struct {
	unsigned char *file;         /* the mapped file's bytes */
	size_t file_pages;
	int fd;
	unsigned char *base;         /* the window */
	size_t len;
	uint64_t seed;               /* the run's seed (-s, -T's current one) */
	long mib;
	int nthreads, nhelpers;      /* -t, -r; 0: single-threaded */
	struct tstate *t;            /* per region */
	pthread_mutex_t *locks;      /* per region: held by its worker during a step */
	volatile int workers_done;
	pthread_mutex_t out_lock;
	const char *dir;             /* -d: where the scratch files live */
	int keep;                    /* -k: keep the (one) scratch file, print its hash */
	char keep_path[256];
} W;

/* The calling thread's view: the state it works on (its own region's, or
 * the one a helper borrowed), its random sequence (its own, never the
 * borrowed region's: a worker's operations depend only on its seed), what
 * it is for messages. */
static struct tstate solo;          /* single-threaded (and setup) */
static __thread struct tstate *S = &solo;
static __thread uint64_t rng;
static __thread const char *role = "";
static __thread int helper_no = -1;

struct stats {
	unsigned long ops, pages, faults, steps;
};
static __thread struct stats stats;
static struct stats total;

/* ---- random numbers (splitmix64: the sequence is the seed's alone) ---- */

static uint64_t rnd64(void)
{
	return fuzz_rand64(&rng);
}

/* rnd: uniform in [0, n); n > 0. */
static size_t rnd(size_t n)
{
	return (size_t)(rnd64() % n);
}

/* ---- reporting ---- */

/* say: append to the line being built in buf (size n, *len used so far). */
__attribute__((format(printf, 4, 5)))
static void say(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (r > 0)
		*len = *len + (size_t)r < n ? *len + (size_t)r : n - 1;
}

/* emit: write buf in one write(2), after whatever stdio holds: the lines
 * of several threads do not mix, and a fork child of a threaded run (which
 * may inherit stdio's locks held by another thread) never waits. */
static void emit(const char *buf, size_t len)
{
	if (!W.nthreads)
		fflush(stdout);
	(void)!write(1, buf, len);
}

/* who: where the failure happened, for fail (threads, fork sides). */
static void who(char *buf, size_t n, size_t *len)
{
	const char *sep = " (";

	if (W.nthreads) {
		say(buf, n, len, " (thread %d of %d, its seed %llu", S->index, W.nthreads,
		    (unsigned long long)S->seed);
		if (helper_no >= 0)
			say(buf, n, len, ", by helper %d", helper_no);
		sep = ", ";
	}
	if (S->in_child || S->sub >= 0)
		say(buf, n, len, "%s%s", sep, S->in_child ? "in the child" : "in the parent, child alive");
	if (S->sub >= 0)
		say(buf, n, len, ", its step %ld", S->sub);
	if (W.nthreads || S->in_child || S->sub >= 0)
		say(buf, n, len, ")");
}

/* fail: print what went wrong with the seed and step that replay it, and
 * exit 1 (the whole process: a child's exit status tells its parent). */
__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	char msg[400], out[1000];
	size_t len = 0;
	uint64_t seed = W.nthreads ? W.seed : S->seed;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!S->in_child)
		say(out, sizeof out, &len, "TEST vmtester.seed_%llu FAIL step %ld\n",
		    (unsigned long long)seed, S->step);
	say(out, sizeof out, &len, "vmtester: FAIL seed %llu step %ld", (unsigned long long)seed,
	    S->step);
	who(out, sizeof out, &len);
	say(out, sizeof out, &len, ": %s\nvmtester: replay: vmtester -s %llu", msg,
	    (unsigned long long)seed);
	if (W.nthreads)
		say(out, sizeof out, &len, " -t %d -r %d -w %ld", W.nthreads, W.nhelpers, W.mib);
	say(out, sizeof out, &len, " -n %ld\n", S->step + 1);
	emit(out, len);
	_exit(1);
}

/* trace: with -v, print one operation before it runs. */
__attribute__((format(printf, 1, 2)))
static void trace(const char *fmt, ...)
{
	char out[300];
	size_t len = 0;
	va_list ap;

	if (!S->verbose)
		return;
	say(out, sizeof out, &len, "[%s%ld%s] ", role, S->step,
	    S->in_child ? " child" : S->child_alive ? " parent" : "");
	va_start(ap, fmt);
	int r = vsnprintf(out + len, sizeof out - len - 1, fmt, ap);
	va_end(ap);
	len = r > 0 && (size_t)r < sizeof out - len - 1 ? len + (size_t)r : sizeof out - 2;
	out[len++] = '\n';
	emit(out, len);
}

/* ---- faults: SIGSEGV/SIGBUS while probing jump back to the probe ---- */

static __thread jmp_buf probe_env;
static __thread volatile sig_atomic_t probing;

static void on_fault(int sig)
{
	sigset_t s;

	if (!probing) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	probing = 0;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	longjmp(probe_env, sig);
}

static void install_fault_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- the model ---- */

static uint64_t *page_addr(size_t i)
{
	return (uint64_t *)(S->win + i * PAGE);
}

/* fslot: the store index of page fpg of the scratch file. */
static size_t fslot(size_t fpg)
{
	return S->npages + fpg;
}

static int is_scratch(size_t i)
{
	return S->pg[i].kind == K_FSHARED || S->pg[i].kind == K_FPRIV;
}

/* content: the model's bytes of window page i (shared pages live in the
 * store, so that both sides of a fork see one copy; so does the scratch
 * file, which a private page reads until it is copied). */
static uint64_t *content(size_t i)
{
	const struct vpage *v = &S->pg[i];
	if (v->kind == K_SHARED)
		return S->store[v->sh];
	if (v->kind == K_FSHARED || (v->kind == K_FPRIV && !v->copied))
		return S->store[fslot(v->fpg)];
	return S->shadow[i];
}

/* content_to_write: content(i), for a store that just went through: a
 * private page of the scratch file becomes its copy first. */
static uint64_t *content_to_write(size_t i)
{
	struct vpage *v = &S->pg[i];
	if (v->kind == K_FPRIV && !v->copied) {
		memcpy(S->shadow[i], S->store[fslot(v->fpg)], PAGE);
		v->copied = 1;
	}
	return content(i);
}

/* inside_file: not a scratch-file page past the file's end (SIGBUS). */
static int inside_file(size_t i)
{
	return !is_scratch(i) || S->pg[i].fpg < S->fsize;
}

static int readable(size_t i)
{
	return S->pg[i].kind != K_NONE && S->pg[i].prot != PROT_NONE && inside_file(i);
}

static int writable(size_t i)
{
	return S->pg[i].kind != K_NONE && (S->pg[i].prot & PROT_WRITE) && inside_file(i);
}

static void load_file_page(size_t i)
{
	memcpy(S->shadow[i], W.file + (size_t)S->pg[i].fpg * PAGE, PAGE);
}

/* store_collect: mark free every store index no page of the model refers
 * to. Only when no other process of this run can refer to one. */
static void store_collect(void)
{
	memset(S->used, 0, S->nshared);
	memset(S->used + S->npages, 1, FILE_PAGES);   /* the scratch file's, for good */
	for (size_t i = 0; i < S->npages; i++)
		if (S->pg[i].kind == K_SHARED)
			S->used[S->pg[i].sh] = 1;
}

/* store_reserve: are n free store indices available (collecting first if
 * allowed)? */
static int store_reserve(size_t n)
{
	size_t nfree = 0;

	if (!S->in_child && !S->child_alive)
		store_collect();
	for (size_t k = 0; k < S->nshared; k++)
		nfree += !S->used[k];
	return nfree >= n;
}

/* store_alloc: a free store index, zero-filled; store_reserve said so. */
static uint32_t store_alloc(void)
{
	size_t k = 0;

	while (S->used[k])
		k++;
	S->used[k] = 1;
	memset(S->store[k], 0, PAGE);
	return (uint32_t)k;
}

/* model_map: pages [a, a+n) now hold a new mapping (for K_SHARED, the
 * caller reserved n store indices). */
static void model_map(size_t a, size_t n, int kind, int prot, size_t fpg)
{
	for (size_t i = a; i < a + n; i++) {
		struct vpage v = { (uint8_t)kind, (uint8_t)prot, 0, 0, 0, (uint32_t)(fpg + i - a), 0 };
		if (kind == K_SHARED)
			v.sh = store_alloc();
		S->pg[i] = v;
		if (kind == K_FILE)
			load_file_page(i);
		else if (kind == K_ANON)
			memset(S->shadow[i], 0, PAGE);
	}
}

/* ---- checking real memory against the model ---- */

/* word_ok: may a word read from page i at word w hold x? */
static int word_ok(size_t i, size_t w, uint64_t x)
{
	return x == content(i)[w] || (S->pg[i].lazy && x == 0);
}

/* read_page: compare page i with the model; returns the signal that the
 * first access raised (0: none) and in *bad the first wrong word or -1. */
static int read_page(size_t i, long *bad)
{
	volatile uint64_t *p = page_addr(i);
	int sig;

	*bad = -1;
	probing = 1;
	if ((sig = setjmp(probe_env)) != 0)
		return sig;
	for (size_t w = 0; w < WORDS; w++)
		if (!word_ok(i, w, p[w])) {
			*bad = (long)w;
			break;
		}
	probing = 0;
	return 0;
}

static const char *kind_name(int k)
{
	static const char *const names[] = { "unmapped", "private anon", "shared anon", "private file",
					     "shared scratch file", "private scratch file" };
	return names[k];
}

/* describe: the model's view of page i, for failure messages. */
static const char *describe(size_t i)
{
	static __thread char buf[120];
	const struct vpage *v = &S->pg[i];

	snprintf(buf, sizeof buf, "page %zu (%p: %s, prot %d%s%s%s)", i, (void *)page_addr(i),
		 kind_name(v->kind), v->prot, v->lazy ? ", lazy-free" : "",
		 v->rofork ? ", read-only at fork" : "",
		 !is_scratch(i) ? "" : !inside_file(i) ? ", past the file's end" :
		 v->copied ? ", copied" : "");
	return buf;
}

/* check_page: page i must read exactly as the model says, or fault when the
 * model says it is not readable. */
static void check_page(size_t i)
{
	long bad;
	int sig = read_page(i, &bad);

	stats.pages++;
	if (sig && readable(i))
		fail("read of %s raised signal %d", describe(i), sig);
	if (!sig && !readable(i))
		fail("read of %s did not fault", describe(i));
	if (sig) {
		stats.faults++;
		return;
	}
	if (bad >= 0)
		fail("%s word %ld reads %#llx, model has %#llx", describe(i), bad,
		     (unsigned long long)page_addr(i)[bad], (unsigned long long)content(i)[bad]);
}

static void check_range(size_t a, size_t n)
{
	for (size_t i = a; i < a + n; i++)
		check_page(i);
}

static void check_all(void)
{
	check_range(0, S->npages);
}

/* ---- operations ---- */

/* pick_range: a random range of the window: mostly a few pages, sometimes
 * up to a PT page's worth, sometimes a whole aligned 2 MiB; half of the
 * ranges start near the previous one, so that operations meet each other. */
static void pick_range(size_t *a, size_t *n)
{
	size_t r = rnd(10), near = S->focus + rnd(33);

	if (r < 6)
		*n = 1 + rnd(8);
	else if (r < 9)
		*n = 1 + rnd(PT_PAGES);
	else
		*n = PT_PAGES;
	if (*n > S->npages)
		*n = S->npages;
	*a = rnd(S->npages - *n + 1);
	if (r == 9)
		*a = S->npages >= PT_PAGES ? PT_PAGES * rnd(S->npages / PT_PAGES) : 0;
	else if (rnd(2) && near >= 16 && near - 16 + *n <= S->npages)
		*a = near - 16;
	S->focus = *a;
}

/* mapped_run: from a random mapped page, the longest run of at most n pages
 * that every page satisfies keep(); 0 if the chosen page is unmapped. */
static size_t mapped_run(size_t *a, size_t n, int (*keep)(size_t))
{
	size_t start = *a, len = 0;

	while (start < S->npages && !keep(start) && start < *a + n)
		start++;
	while (start + len < S->npages && len < n && keep(start + len))
		len++;
	*a = start;
	return len;
}

static int is_mapped(size_t i)
{
	return S->pg[i].kind != K_NONE;
}

static int is_anon(size_t i)
{
	return S->pg[i].kind == K_ANON;
}

static int random_prot(void)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_WRITE, PROT_WRITE, PROT_READ | PROT_EXEC };
	return prots[rnd(sizeof prots / sizeof prots[0])];
}

static void expect_ok(long r, const char *what)
{
	stats.ops++;
	if (r == -1)
		fail("%s failed: %s", what, strerror(errno));
}

/* no_exec: prot without PROT_EXEC for scratch-file pages (DIR may be
 * mounted noexec). */
static int no_exec(int prot, int kind)
{
	return kind == K_FSHARED || kind == K_FPRIV ? prot & ~PROT_EXEC : prot;
}

static void op_mmap(void)
{
	size_t a, n, fpg = 0;
	int kind = (int)(1 + rnd(5)), prot = no_exec(random_prot(), kind), flags = MAP_FIXED;
	int fd = -1;

	pick_range(&a, &n);
	if (kind == K_FILE) {
		n = n > W.file_pages ? W.file_pages : n;
		fpg = rnd(W.file_pages - n + 1);
		fd = W.fd;
	} else if (kind == K_FSHARED || kind == K_FPRIV) {   /* maybe past its end */
		n = n > FILE_PAGES ? FILE_PAGES : n;
		fpg = rnd(FILE_PAGES - n + 1);
		fd = S->ffd;
	}
	flags |= kind == K_SHARED ? MAP_SHARED | MAP_ANONYMOUS : kind == K_FSHARED ? MAP_SHARED :
		 MAP_PRIVATE;
	flags |= kind == K_ANON ? MAP_ANONYMOUS : 0;
	flags |= rnd(8) == 0 ? MAP_POPULATE : 0;
	if (kind == K_SHARED && !store_reserve(n))
		return;     /* the store is full: skip */
	model_map(a, n, kind, prot, fpg);
	/* populating a private writable mapping writes (breaks COW), as Linux's */
	for (size_t i = a; i < a + n && (flags & MAP_POPULATE) && kind == K_FPRIV &&
	     (prot & PROT_WRITE) && inside_file(i); i++)
		(void)content_to_write(i);
	trace("mmap %zu+%zu %s prot %d%s", a, n, kind_name(kind), prot,
	      flags & MAP_POPULATE ? " populate" : "");
	void *p = mmap(page_addr(a), n * PAGE, prot, flags, fd, (off_t)fpg * PAGE);
	expect_ok(p == MAP_FAILED ? -1 : 0, "mmap");
	if (p != page_addr(a))
		fail("mmap MAP_FIXED at %p returned %p", (void *)page_addr(a), p);
}

static void op_munmap(void)
{
	size_t a, n;

	pick_range(&a, &n);
	trace("munmap %zu+%zu", a, n);
	for (size_t i = a; i < a + n; i++)
		S->pg[i].kind = K_NONE;
	expect_ok(munmap(page_addr(a), n * PAGE), "munmap");
}

static void protect(size_t a, size_t n, int prot);

static void op_mprotect(void)
{
	size_t a, n;

	pick_range(&a, &n);
	if ((n = mapped_run(&a, n, is_mapped)))
		protect(a, n, random_prot());
}

static void op_dontneed(void)
{
	size_t a, n;

	pick_range(&a, &n);
	if (!(n = mapped_run(&a, n, is_mapped)))
		return;
	trace("madvise %zu+%zu DONTNEED", a, n);
	for (size_t i = a; i < a + n; i++) {
		S->pg[i].lazy = 0;
		S->pg[i].copied = 0;   /* a private scratch page reads the file again */
		if (S->pg[i].kind == K_ANON)
			memset(S->shadow[i], 0, PAGE);
		else if (S->pg[i].kind == K_FILE)
			load_file_page(i);
	}
	expect_ok(madvise(page_addr(a), n * PAGE, MADV_DONTNEED), "madvise(MADV_DONTNEED)");
}

static int not_anon(size_t i)
{
	return is_mapped(i) && !is_anon(i);
}

/* op_free: MADV_FREE of private anonymous pages (their data may now read
 * as zeros), or of other mappings, which must fail with EINVAL. */
static void op_free(void)
{
	size_t a, n;
	int reject = rnd(8) == 0;

	pick_range(&a, &n);
	if (!(n = mapped_run(&a, n, reject ? not_anon : is_anon)))
		return;
	trace("madvise %zu+%zu FREE%s", a, n, reject ? " (must fail)" : "");
	long r = madvise(page_addr(a), n * PAGE, MADV_FREE);
	if (reject) {
		stats.ops++;
		if (r != -1 || errno != EINVAL)
			fail("MADV_FREE of %s returned %ld (%s), want EINVAL", describe(a), r,
			     r ? strerror(errno) : "no error");
		return;
	}
	for (size_t i = a; i < a + n; i++)
		S->pg[i].lazy = 1;
	expect_ok(r, "madvise(MADV_FREE)");
}

/* op_pageout: MADV_PAGEOUT or MADV_COLD of mapped pages of any kind: the
 * anonymous ones swapped out now or aged (with swap: -S), the others left;
 * nothing a program can see changes (the model stays). */
static void op_pageout(void)
{
	size_t a, n;
	int cold = rnd(2);

	pick_range(&a, &n);
	if (!(n = mapped_run(&a, n, is_mapped)))
		return;
	trace("madvise %zu+%zu %s", a, n, cold ? "COLD" : "PAGEOUT");
	expect_ok(madvise(page_addr(a), n * PAGE, cold ? MADV_COLD : MADV_PAGEOUT),
		  cold ? "madvise(MADV_COLD)" : "madvise(MADV_PAGEOUT)");
}

/* write_words: store the pattern of base into words [w0, w1) of page i;
 * the signal the first store raised, or 0. */
static uint64_t pattern(uint64_t base, size_t w)
{
	return (base + w * 0x9e3779b97f4a7c15ULL) | 1;
}

static int write_words(size_t i, size_t w0, size_t w1, uint64_t base)
{
	volatile uint64_t *p = page_addr(i);
	int sig;

	probing = 1;
	if ((sig = setjmp(probe_env)) != 0)
		return sig;
	for (size_t w = w0; w < w1; w++)
		p[w] = pattern(base, w);
	probing = 0;
	return 0;
}

/* settle: words [w0, w1) of lazy-free page i were just written; the rest
 * of the page now holds for good either all its old data or all zeros
 * (reclaim took it before the write). Learn which, and the page is no
 * longer lazy. */
static void settle(size_t i, size_t w0, size_t w1)
{
	const volatile uint64_t *p = page_addr(i);
	uint64_t *m = content(i);
	int old = 1, zero = 1;

	for (size_t w = 0; w < WORDS; w++)
		if (w < w0 || w >= w1) {
			old &= p[w] == m[w];
			zero &= p[w] == 0;
		}
	if (!old && !zero)
		fail("%s: after a write, the rest is neither its old data nor zeros", describe(i));
	if (!old)
		for (size_t w = 0; w < WORDS; w++)
			if (w < w0 || w >= w1)
				m[w] = 0;
	S->pg[i].lazy = 0;
}

/* write_page: write a random part of page i: it must fault exactly when the
 * model says the page is not writable. */
static void write_page(size_t i)
{
	size_t w0 = rnd(WORDS), w1 = w0 + 1 + rnd(WORDS - w0);
	uint64_t base = rnd64();
	int sig = write_words(i, w0, w1, base);

	stats.ops++;
	if (sig && writable(i))
		fail("write of %s raised signal %d", describe(i), sig);
	if (!sig && !writable(i))
		fail("write of %s did not fault", describe(i));
	if (sig) {
		stats.faults++;
		return;
	}
	uint64_t *m = content_to_write(i);
	for (size_t w = w0; w < w1; w++)
		m[w] = pattern(base, w);
	if (S->pg[i].lazy)
		settle(i, w0, w1);
}

static void op_write(void)
{
	size_t a, n;

	pick_range(&a, &n);
	n = n > 16 ? 16 : n;
	trace("write %zu+%zu", a, n);
	for (size_t i = a; i < a + n; i++)
		write_page(i);
}

/* protect: mprotect pages [a, a+n), all mapped, in the model too. */
static void protect(size_t a, size_t n, int prot)
{
	for (size_t i = a; i < a + n; i++)
		prot = no_exec(prot, S->pg[i].kind);
	trace("mprotect %zu+%zu prot %d", a, n, prot);
	for (size_t i = a; i < a + n; i++)
		S->pg[i].prot = (uint8_t)prot;
	expect_ok(mprotect(page_addr(a), n * PAGE, prot), "mprotect");
}

/* op_protect_write: what programs do: unlock a few pages, write them; or
 * write them, then lock them read-only. */
static void op_protect_write(void)
{
	size_t a, n;
	int unlock = (int)rnd(2);

	pick_range(&a, &n);
	if (!(n = mapped_run(&a, n > 8 ? 8 : n, is_mapped)))
		return;
	if (unlock)
		protect(a, n, PROT_READ | PROT_WRITE);
	trace("write %zu+%zu", a, n);
	for (size_t i = a; i < a + n; i++)
		write_page(i);
	if (!unlock)
		protect(a, n, rnd(2) ? PROT_READ : PROT_NONE);
}

static void op_read(void)
{
	size_t a, n;

	pick_range(&a, &n);
	trace("read %zu+%zu", a, n);
	check_range(a, n);
}

/* ---- the kernel's accesses: read() into and write() out of the window ---- */

static __thread int kio_pipe[2];

static void drain_pipe(void)
{
	char buf[KIO_LEN];

	while (read(kio_pipe[0], buf, sizeof buf) > 0)
		;
}

/* kio_into: read() KIO_LEN bytes from the pipe into page i at word w: it
 * must succeed when the page is writable, else fail with EFAULT. */
static void kio_into(size_t i, size_t w)
{
	uint64_t data[KIO_LEN / 8], base = rnd64();
	long r;

	for (size_t k = 0; k < KIO_LEN / 8; k++)
		data[k] = pattern(base, w + k);
	if (write(kio_pipe[1], data, sizeof data) != (ssize_t)sizeof data)
		fail("write to the pipe failed: %s", strerror(errno));
	r = read(kio_pipe[0], page_addr(i) + w, KIO_LEN);
	stats.ops++;
	if (r != (writable(i) ? KIO_LEN : -1) || (r == -1 && errno != EFAULT))
		fail("read() into %s word %zu returned %ld (%s)", describe(i), w, r,
		     r == -1 ? strerror(errno) : "no error");
	drain_pipe();
	if (r == -1)
		return;
	memcpy(content_to_write(i) + w, data, sizeof data);
	if (S->pg[i].lazy)
		settle(i, w, w + KIO_LEN / 8);
}

/* kio_from: write() KIO_LEN bytes of page i at word w into the pipe: it
 * must succeed with the model's data when the page is readable, else fail
 * with EFAULT (PROT_NONE and unmapped pages). */
static void kio_from(size_t i, size_t w)
{
	uint64_t data[KIO_LEN / 8];
	long r;

	r = write(kio_pipe[1], page_addr(i) + w, KIO_LEN);
	stats.ops++;
	if (r != (readable(i) ? KIO_LEN : -1) || (r == -1 && errno != EFAULT))
		fail("write() from %s word %zu returned %ld (%s)", describe(i), w, r,
		     r == -1 ? strerror(errno) : "no error");
	if (r == -1)
		return;
	if (read(kio_pipe[0], data, sizeof data) != (ssize_t)sizeof data)
		fail("read from the pipe failed: %s", strerror(errno));
	for (size_t k = 0; k < KIO_LEN / 8; k++)
		if (!word_ok(i, w + k, data[k]))
			fail("write() from %s word %zu sent %#llx, model has %#llx", describe(i),
			     w + k, (unsigned long long)data[k], (unsigned long long)content(i)[w + k]);
}

/* op_kio_page: a read() into or write() from page i at a random word. */
static void op_kio_page(size_t i)
{
	size_t w = rnd(WORDS - KIO_LEN / 8 + 1);
	int into = (int)rnd(2);

	trace("%s page %zu word %zu", into ? "read() into" : "write() from", i, w);
	if (into)
		kio_into(i, w);
	else
		kio_from(i, w);
}

static void op_kio(void)
{
	op_kio_page(rnd(S->npages));
}

/* ---- memory pressure ---- */

/* hog_pages: how much a hog allocates: on Pagoda all free memory down to
 * below the reclaim mark (1/64 of RAM) but above 1/128 of it; on Linux a
 * small fixed amount (the developer's machine is not to be squeezed). */
static size_t hog_pages(void)
{
	struct pagoda_meminfo m;
	uint64_t keep;

	if (pagoda_meminfo(&m) != 0)
		return 4096;
	keep = m.total_pages / 128 + 64;
	return m.free_pages > keep ? (size_t)(m.free_pages - keep) : 0;
}

/* hog_main: the memory hog (a child): drop the window, allocate and touch
 * hog_pages(); with ready >= 0, then tell the parent and hold the memory
 * until it closes the other end of release. */
static void hog_main(int ready, int release)
{
	size_t n = hog_pages();
	char *p, c;

	munmap(W.base, W.len);
	p = mmap(NULL, n * PAGE + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(0);
	for (size_t k = 0; k < n; k++)
		p[k * PAGE] = 1;
	if (ready >= 0 && write(ready, "r", 1) == 1)
		(void)!read(release, &c, 1);
	_exit(0);
}

/* reap: wait for pid; it must have exited 0 (or, for a hog, been killed
 * for lack of memory: SIGKILL). */
static void reap(pid_t pid, const char *who, int hog)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		fail("waitpid(%s) failed: %s", who, strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (hog && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return;
	if (WIFEXITED(st))
		fail("the %s exited with status %d", who, WEXITSTATUS(st));
	fail("the %s was killed by signal %d", who, WTERMSIG(st));
}

static pid_t fork_or_fail(void)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) < 0)
		fail("fork failed: %s", strerror(errno));
	return pid;
}

/* Threads: does this thread hold the gate exclusively (op_pressure runs
 * only then: a hog takes memory down to the reclaim mark, and the other
 * testers' system calls would fail with ENOMEM, which the model cannot
 * follow). Inherited by a fork child. */
static __thread int gate_excl;

/* A memory hog held across a fork (op_pressure); released right after. */
static __thread pid_t hog_pid;
static __thread int hog_release_fd = -1;

static void hog_release(void)
{
	close(hog_release_fd);
	reap(hog_pid, "memory hog", 1);
	hog_pid = 0;
}

/* fork_held: fork for the fork operations. With a hog held, the fork itself
 * runs short of memory (and may fail with ENOMEM: then the hog goes and the
 * fork is retried); right after it the parent releases the hog, and the
 * child starts only then, so that the steps after the fork have memory. */
static pid_t fork_held(void)
{
	int go[2];
	char c;

	if (!hog_pid)
		return fork_or_fail();
	if (pipe(go) < 0)
		fail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0 && errno == ENOMEM) {
		hog_release();
		pid = fork_or_fail();
	}
	if (pid < 0)
		fail("fork failed: %s", strerror(errno));
	if (pid == 0) {
		if (hog_pid)
			close(hog_release_fd);
		hog_pid = 0;
		close(go[1]);
		(void)!read(go[0], &c, 1);
		close(go[0]);
		return 0;
	}
	if (hog_pid)
		hog_release();
	close(go[0]);
	close(go[1]);       /* end of file: the child may go */
	return pid;
}

static void op_fork(void);

/* op_pressure: a memory hog runs to completion; or (top level only) holds
 * its memory across a fork (fork_held), so that fork meets reclaim and the
 * lazy-free pages. */
static void op_pressure(void)
{
	int ready[2] = { -1, -1 }, release[2] = { -1, -1 };
	char c;

	if (W.nthreads && !gate_excl)
		return;   /* threads: only with every other tester paused (gate) */
	int hold = !S->in_child && !S->child_alive && rnd(2);
	trace("pressure%s", hold ? " held across a fork" : "");
	stats.ops++;
	if (hold && (pipe(ready) < 0 || pipe(release) < 0))
		fail("pipe: %s", strerror(errno));
	pid_t pid = fork_or_fail();
	if (pid == 0) {
		close(ready[0]);
		close(release[1]);
		hog_main(ready[1], release[0]);
	}
	if (!hold) {
		reap(pid, "memory hog", 1);
		return;
	}
	close(ready[1]);
	close(release[0]);
	(void)!read(ready[0], &c, 1);     /* ready, or EOF: killed for lack of memory */
	close(ready[0]);
	hog_pid = pid;
	hog_release_fd = release[1];
	op_fork();
}

/* ---- the scratch file ---- */

/* file_shrunk: the scratch file was n pages long at some point: private
 * copies of pages past that are gone (truncation takes them out of every
 * mapping, as Linux's), so those pages read the file again. */
static void file_shrunk(size_t n)
{
	for (size_t i = 0; i < S->npages; i++)
		if (S->pg[i].kind == K_FPRIV && S->pg[i].fpg >= n)
			S->pg[i].copied = 0;
}

/* op_fwrite: pwrite() a random part of a page of the scratch file, inside
 * its size: every shared mapping of it sees the bytes, and every private
 * page not yet copied. */
static void op_fwrite(void)
{
	if (!S->fsize)
		return;
	size_t fpg = rnd(S->fsize), w0 = rnd(WORDS), w1 = w0 + 1 + rnd(WORDS - w0);
	uint64_t base = rnd64(), buf[WORDS], *m = S->store[fslot(fpg)];
	for (size_t w = w0; w < w1; w++)
		buf[w - w0] = pattern(base, w);
	trace("pwrite file page %zu words %zu..%zu", fpg, w0, w1);
	ssize_t r = pwrite(S->ffd, buf, (w1 - w0) * 8, (off_t)(fpg * PAGE + w0 * 8));
	expect_ok(r == (ssize_t)((w1 - w0) * 8) ? 0 : -1, "pwrite of the scratch file");
	memcpy(m + w0, buf, (w1 - w0) * 8);
}

/* op_fread: pread() of a page of the scratch file reads the model (nothing
 * past the end). */
static void op_fread(void)
{
	size_t fpg = rnd(FILE_PAGES);
	uint64_t buf[WORDS];
	trace("pread file page %zu", fpg);
	ssize_t r = pread(S->ffd, buf, PAGE, (off_t)(fpg * PAGE));
	stats.ops++;
	if (r != (fpg < S->fsize ? PAGE : 0))
		fail("pread of scratch-file page %zu (of %zu) returned %ld (%s)", fpg, S->fsize,
		     (long)r, r < 0 ? strerror(errno) : "no error");
	for (size_t w = 0; w < WORDS && r == PAGE; w++)
		if (buf[w] != S->store[fslot(fpg)][w])
			fail("pread of scratch-file page %zu word %zu reads %#llx, model has %#llx",
			     fpg, w, (unsigned long long)buf[w],
			     (unsigned long long)S->store[fslot(fpg)][w]);
}

/* op_ftruncate: the scratch file to a random number of pages: past a
 * shrink every mapping of it raises SIGBUS; grown again, it reads zeros. */
static void op_ftruncate(void)
{
	size_t n = rnd(FILE_PAGES + 1);
	trace("ftruncate file to %zu pages (from %zu)", n, S->fsize);
	for (size_t k = n; k < S->fsize; k++)
		memset(S->store[fslot(k)], 0, PAGE);
	if (n < S->fsize)
		file_shrunk(n);
	S->fsize = n;
	S->fmin = n < S->fmin ? n : S->fmin;
	expect_ok(ftruncate(S->ffd, (off_t)(n * PAGE)), "ftruncate of the scratch file");
}

static int is_fshared(size_t i)
{
	return S->pg[i].kind == K_FSHARED;
}

/* op_fsync: msync(MS_SYNC) of shared pages of the scratch file, or fsync
 * of it; then posix_fadvise(DONTNEED) drops its clean pages that nobody
 * maps, so that they come back from the disk (a disk's file system). */
static void op_fsync(void)
{
	size_t a, n;
	pick_range(&a, &n);
	if ((n = mapped_run(&a, n, is_fshared)) && rnd(2)) {
		trace("msync %zu+%zu", a, n);
		expect_ok(msync(page_addr(a), n * PAGE, MS_SYNC), "msync");
	} else {
		trace("fsync file");
		expect_ok(fsync(S->ffd), "fsync of the scratch file");
	}
	expect_ok(syscall(221 /* fadvise64 */, S->ffd, 0L, 0L, 4L /* DONTNEED */),
		  "posix_fadvise(DONTNEED)");
}

/* ---- fork ---- */

static void mark_fork(void)
{
	memset(S->forkset, 0, S->nshared);
	memset(S->forkset + S->npages, 1, FILE_PAGES);   /* the scratch file: any may change */
	S->fmin = S->fsize;
	for (size_t i = 0; i < S->npages; i++) {
		if (S->pg[i].kind == K_SHARED)
			S->forkset[S->pg[i].sh] = 1;
		else if (S->pg[i].kind != K_NONE && !(S->pg[i].prot & PROT_WRITE))
			S->pg[i].rofork = 1;
	}
}

static void file_shrunk(size_t n);

/* xfer: send (out) or receive the store's pages in the fork set, then the
 * scratch file's size and the least it had since the fork; the receiver
 * takes them (its private copies past that least size are gone). */
static void xfer(int fd, int out)
{
	size_t sizes[2] = { S->fsize, S->fmin };
	for (size_t k = 0; k < S->nshared; k++) {
		if (!S->forkset[k])
			continue;
		for (size_t done = 0; done < PAGE;) {
			ssize_t r = out ? write(fd, (char *)S->store[k] + done, PAGE - done)
					: read(fd, (char *)S->store[k] + done, PAGE - done);
			if (r <= 0)
				fail("shared-store %s failed: %s", out ? "send" : "receive",
				     r ? strerror(errno) : "end of file");
			done += (size_t)r;
		}
	}
	if ((out ? write(fd, sizes, sizeof sizes) : read(fd, sizes, sizeof sizes)) !=
	    (ssize_t)sizeof sizes)
		fail("file size %s failed", out ? "send" : "receive");
	if (!out) {
		file_shrunk(sizes[1]);
		S->fsize = sizes[0];
	}
	close(fd);
}

static void step_once(int nested);
static void window_reset(void);

/* sub_steps: 1..24 steps of the other side of a fork (no nested fork). */
static void sub_steps(void)
{
	long k = 1 + (long)rnd(24);

	for (S->sub = 0; S->sub < k; S->sub++)
		step_once(1);
	S->sub = -1;
}

static void clear_rofork(void)
{
	for (size_t i = 0; i < S->npages; i++)
		S->pg[i].rofork = 0;
}

/* fork_child_runs: mode A. The child checks everything, runs steps of its
 * own, checks again, sends back the shared pages and exits; the parent waits,
 * takes the shared pages and checks that nothing else changed. */
static void fork_child_runs(void)
{
	int fds[2];

	if (pipe(fds) < 0)
		fail("pipe: %s", strerror(errno));
	pid_t pid = fork_held();
	if (pid == 0) {
		close(fds[0]);
		S->in_child = 1;
		rng ^= 0x6b43a9b5d1e0f3c7ULL;
		check_all();
		sub_steps();
		check_all();
		xfer(fds[1], 1);
		_exit(0);
	}
	close(fds[1]);
	xfer(fds[0], 0);
	reap(pid, "fork child", 0);
	clear_rofork();
	check_all();
}

/* fork_parent_runs: mode B. The child waits while the parent runs steps,
 * then gets the shared pages and checks that the parent's private changes
 * did not reach it. */
static void fork_parent_runs(void)
{
	int fds[2];

	if (pipe(fds) < 0)
		fail("pipe: %s", strerror(errno));
	pid_t pid = fork_held();
	if (pid == 0) {
		close(fds[1]);
		S->in_child = 1;
		xfer(fds[0], 0);
		check_all();
		_exit(0);
	}
	close(fds[0]);
	S->child_alive = 1;
	sub_steps();
	xfer(fds[1], 1);
	reap(pid, "fork child", 0);
	S->child_alive = 0;
	clear_rofork();
	check_all();
}

static void op_fork(void)
{
	int mode_b = (int)rnd(2);

	trace("fork (%s)", mode_b ? "parent runs" : "child runs");
	stats.ops++;
	mark_fork();
	if (mode_b)
		fork_parent_runs();
	else
		fork_child_runs();
}

/* ---- the run ---- */

struct op {
	void (*fn)(void);
	int weight;
	int top_only;     /* not inside a fork's other side */
};

static const struct op ops[] = {
	{ op_mmap, 12, 0 }, { op_munmap, 5, 0 }, { op_mprotect, 10, 0 },
	{ op_dontneed, 5, 0 }, { op_free, 6, 0 }, { op_write, 22, 0 },
	{ op_read, 10, 0 }, { op_protect_write, 6, 0 }, { op_kio, 6, 0 }, { op_fork, 5, 1 }, { op_pressure, 1, 0 },
	{ op_fwrite, 4, 0 }, { op_fread, 3, 0 }, { op_ftruncate, 2, 0 }, { op_fsync, 2, 0 },
	{ op_pageout, 3, 0 },
};
#define NOPS (sizeof ops / sizeof ops[0])

/* pick_op: the next operation of the sequence (a nested step, inside a
 * fork's other side, does not fork again). */
static size_t pick_op(int nested)
{
	int total_w = 0, r;
	size_t k;

	for (k = 0; k < NOPS; k++)
		total_w += ops[k].weight;
	r = (int)rnd((size_t)total_w);
	for (k = 0; r >= ops[k].weight; k++)
		r -= ops[k].weight;
	if (nested && ops[k].top_only)
		k = 0;
	return k;
}

static void step_once(int nested)
{
	ops[pick_op(nested)].fn();
}

/* ---- threads (-t N -r M) ---- */

/* The gate: every step of a worker and of a helper passes it shared, a
 * pressure step exclusively (writers first, so that one gets in). Taken
 * before a region lock, never while holding one. */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int readers, writer, want;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 };

static void gate_enter(int excl)
{
	pthread_mutex_lock(&gate.m);
	if (excl) {
		gate.want++;
		while (gate.writer || gate.readers)
			pthread_cond_wait(&gate.c, &gate.m);
		gate.want--;
		gate.writer = 1;
	} else {
		while (gate.writer || gate.want)
			pthread_cond_wait(&gate.c, &gate.m);
		gate.readers++;
	}
	gate_excl = excl;
	pthread_mutex_unlock(&gate.m);
}

static void gate_leave(int excl)
{
	pthread_mutex_lock(&gate.m);
	if (excl)
		gate.writer = 0;
	else
		gate.readers--;
	gate_excl = 0;
	pthread_cond_broadcast(&gate.c);
	pthread_mutex_unlock(&gate.m);
}

/* worker_locked: fn on the worker's region, through the gate (exclusively
 * if excl) and under its region's lock, so that helpers see the region only
 * between a worker's steps. Everything a worker does to its region or its
 * model goes through here: the reset before the first step and the check
 * after the last too (unlocked, a helper's write between its store and its
 * model update failed that final check, 2 runs in 300 of
 * `-n 8 -w 2 -t 3 -r 6` on Linux: "shared anon ... reads X, model has 0"). */
static void worker_locked(void (*fn)(void), int excl)
{
	gate_enter(excl);
	pthread_mutex_lock(&W.locks[S->index]);
	fn();
	pthread_mutex_unlock(&W.locks[S->index]);
	gate_leave(excl);
}

static __thread size_t step_op;   /* the op worker_step picked */

/* step_and_check: the picked op, every 32 steps a check of the region. */
static void step_and_check(void)
{
	ops[step_op].fn();
	if (S->step % 32 == 31)
		check_all();
}

/* worker_step: one top-level step of a worker thread (worker_locked). */
static void worker_step(void)
{
	step_op = pick_op(0);
	worker_locked(step_and_check, ops[step_op].fn == op_pressure);
}

/* helper_op: one access of a helper thread to a random page of a random
 * worker's region, between that worker's steps (its lock held): a check of
 * a few pages, a write, or the kernel's read()/write() of it, all against
 * that region's model (S borrowed), with the helper's own random numbers.
 * Half of the pages are near where the worker's last range started, so that
 * the helper's TLB holds entries of pages the worker is changing. */
static void helper_op(void)
{
	int k = (int)rnd((size_t)W.nthreads), what = (int)rnd(4);

	gate_enter(0);
	pthread_mutex_lock(&W.locks[k]);
	S = &W.t[k];
	size_t i = rnd(2) ? rnd(S->npages) : (S->focus + rnd(24)) % S->npages, n = 1 + rnd(8);
	trace("helper %d: %s page %zu", helper_no, what == 0 ? "read" : what == 1 ? "write" :
	      "kernel access of", i);
	if (what == 0)
		check_range(i, i + n <= S->npages ? n : S->npages - i);
	else if (what == 1)
		write_page(i);
	else
		op_kio_page(i);
	S = &solo;
	pthread_mutex_unlock(&W.locks[k]);
	gate_leave(0);
}

/* thread_seed: the seed of worker or helper k of the run's seed. */
static uint64_t thread_seed(uint64_t seed, int k)
{
	uint64_t x = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1));

	return fuzz_rand64(&x);
}

static void stats_add(void)
{
	pthread_mutex_lock(&W.out_lock);
	total.ops += stats.ops;
	total.pages += stats.pages;
	total.faults += stats.faults;
	total.steps += stats.steps;
	pthread_mutex_unlock(&W.out_lock);
	memset(&stats, 0, sizeof stats);
}

static void open_kio_pipe(void)
{
	if (pipe2(kio_pipe, O_NONBLOCK) < 0)
		fail("pipe: %s", strerror(errno));
}

static long run_steps;   /* -n */

/* worker_main: worker k runs its region's sequence (its seed) to the end. */
static void *worker_main(void *arg)
{
	int k = (int)(intptr_t)arg;
	char name[16];

	S = &W.t[k];
	snprintf(name, sizeof name, "t%d ", k);
	role = name;
	open_kio_pipe();
	S->seed = rng = thread_seed(W.seed, k);
	S->sub = -1;
	S->step = 0;
	worker_locked(window_reset, 0);
	for (S->step = 0; S->step < run_steps; S->step++)
		worker_step();
	worker_locked(check_all, 0);
	stats.steps += (unsigned long)run_steps;
	stats_add();
	close(kio_pipe[0]);
	close(kio_pipe[1]);
	return NULL;
}

/* helper_main: helper h accesses the workers' regions until they finish. */
static void *helper_main(void *arg)
{
	char name[16];

	helper_no = (int)(intptr_t)arg;
	snprintf(name, sizeof name, "h%d ", helper_no);
	role = name;
	rng = thread_seed(W.seed, 1000 + helper_no);
	open_kio_pipe();
	while (!W.workers_done)
		helper_op();
	stats_add();
	close(kio_pipe[0]);
	close(kio_pipe[1]);
	return NULL;
}

/* run_threads: one seed with W.nthreads workers and W.nhelpers helpers. */
static void run_threads(uint64_t seed)
{
	pthread_t t[64], h[64];

	W.seed = seed;
	W.workers_done = 0;
	fflush(stdout);
	for (int k = 0; k < W.nthreads; k++)
		if (pthread_create(&t[k], NULL, worker_main, (void *)(intptr_t)k) != 0)
			fail("pthread_create failed");
	for (int k = 0; k < W.nhelpers; k++)
		if (pthread_create(&h[k], NULL, helper_main, (void *)(intptr_t)k) != 0)
			fail("pthread_create failed");
	for (int k = 0; k < W.nthreads; k++)
		pthread_join(t[k], NULL);
	__atomic_store_n(&W.workers_done, 1, __ATOMIC_SEQ_CST);
	for (int k = 0; k < W.nhelpers; k++)
		pthread_join(h[k], NULL);
	printf("TEST vmtester.seed_%llu PASS\n", (unsigned long long)seed);
	fflush(stdout);
}

/* window_reset: nothing mapped in the region (the model agrees); the
 * scratch file FILE_PAGES pages of zeros. */
static void window_reset(void)
{
	if (munmap(S->win, S->npages * PAGE) != 0)
		fail("munmap of the window: %s", strerror(errno));
	memset(S->pg, 0, S->npages * sizeof *S->pg);
	memset(S->used, 0, S->nshared);
	memset(S->used + S->npages, 1, FILE_PAGES);
	memset(S->store[fslot(0)], 0, FILE_PAGES * PAGE);
	S->fsize = S->fmin = FILE_PAGES;
	if (ftruncate(S->ffd, 0) != 0 || ftruncate(S->ffd, FILE_PAGES * PAGE) != 0)
		fail("ftruncate of the scratch file: %s", strerror(errno));
}

static void run_seed(uint64_t seed, long steps)
{
	S->seed = rng = seed;
	S->sub = -1;
	window_reset();
	for (S->step = 0; S->step < steps; S->step++) {
		step_once(0);
		if (S->step % 32 == 31)
			check_all();
	}
	check_all();
	stats.steps += (unsigned long)steps;
	stats_add();
	printf("TEST vmtester.seed_%llu PASS\n", (unsigned long long)seed);
	fflush(stdout);
}

/* open_file: the program's own binary, read into memory for the model. */
static void open_file(const char *argv0)
{
	const char *names[] = { argv0, "/proc/self/exe", "/bin/vmtester" };
	off_t size = -1;

	for (size_t k = 0; k < 3 && size <= 0; k++)
		if ((W.fd = open(names[k], O_RDONLY)) >= 0)
			size = lseek(W.fd, 0, SEEK_END);
	if (size <= 0)
		fail("cannot open my own binary to map it");
	W.file_pages = ((size_t)size + PAGE - 1) / PAGE;
	W.file = calloc(W.file_pages, PAGE);
	if (!W.file || lseek(W.fd, 0, SEEK_SET) != 0)
		fail("cannot read my own binary");
	for (off_t done = 0; done < size;) {
		ssize_t r = read(W.fd, W.file + done, (size_t)(size - done));
		if (r <= 0)
			fail("cannot read my own binary: %s", r ? strerror(errno) : "short file");
		done += r;
	}
}

/* state_init: state t for the npages pages at win, its model empty. */
static void state_init(struct tstate *t, int index, size_t npages, unsigned char *win)
{
	t->index = index;
	t->verbose = solo.verbose;
	t->on_pagoda = solo.on_pagoda;
	t->npages = npages;
	t->nshared = npages + FILE_PAGES;
	t->win = win;
	t->sub = -1;
	t->pg = calloc(npages, sizeof *t->pg);
	t->shadow = calloc(npages, PAGE);
	t->store = calloc(t->nshared, PAGE);
	t->used = calloc(t->nshared, 1);
	t->forkset = calloc(t->nshared, 1);
	if (!t->pg || !t->shadow || !t->store || !t->used || !t->forkset)
		fail("out of memory for the model");
	char path[sizeof W.keep_path];
	size_t dl = strlen(W.dir);
	snprintf(path, sizeof path, "%s%svmtester-%d-%d", W.dir,
		 dl && W.dir[dl - 1] == '/' ? "" : "/", (int)getpid(), index);
	if ((t->ffd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		fail("cannot create the scratch file %s: %s", path, strerror(errno));
	if (W.keep)
		memcpy(W.keep_path, path, sizeof path);
	else
		unlink(path);   /* open, it lives until the end */
}

/* keep_report: the kept scratch file on its store (fsync), and the hash
 * of its bytes by the model (FNV-1a, 64 bits) for the host. */
static void keep_report(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *b = (const unsigned char *)solo.store[solo.npages];
	for (size_t k = 0; k < solo.fsize * PAGE; k++)
		h = (h ^ b[k]) * 0x100000001b3ULL;
	if (fsync(solo.ffd) != 0)
		fail("fsync of the scratch file: %s", strerror(errno));
	printf("KTEST EXT2-HASH vda %s %zu %016llx\n", W.keep_path, solo.fsize * PAGE,
	       (unsigned long long)h);
}

/* setup: the window (which must be free), the models of its regions (one,
 * or one per worker: the window split into nthreads equal runs of pages,
 * so that neighbours share PT pages), the fault handler. */
static void setup(size_t mib, const char *argv0)
{
	W.mib = (long)mib;
	W.base = (unsigned char *)WIN_BASE;
	W.len = mib << 20;
	pthread_mutex_init(&W.out_lock, NULL);
	void *p = mmap(W.base, W.len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != W.base)
		fail("the window at %p is not free (%s)", (void *)W.base, strerror(errno));
	open_file(argv0);
	install_fault_handler();
	solo.on_pagoda = pagoda_vmcheck() == 0;
	if (!W.nthreads) {
		state_init(&solo, 0, W.len / PAGE, W.base);
		open_kio_pipe();
		return;
	}
	size_t per = W.len / PAGE / (size_t)W.nthreads;
	W.t = calloc((size_t)W.nthreads, sizeof *W.t);
	W.locks = calloc((size_t)W.nthreads, sizeof *W.locks);
	if (!W.t || !W.locks)
		fail("out of memory for the model");
	for (int k = 0; k < W.nthreads; k++) {
		state_init(&W.t[k], k, per, W.base + (size_t)k * per * PAGE);
		pthread_mutex_init(&W.locks[k], NULL);
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: vmtester [-s SEED] [-n STEPS] [-w MIB] [-T SECONDS] "
		"[-t THREADS [-r HELPERS]] [-d DIR [-k]] [-S SWAPDEV] [-v]\n");
	exit(2);
}

/* print_events: what the kernel counted during the run (Pagoda only). */
static void print_events(const struct pagoda_meminfo *m0)
{
	struct pagoda_meminfo m1;

	if (pagoda_meminfo(&m1) != 0)
		return;
	printf("vmtester: kernel events: cow faults %llu, PT unshares %llu, "
	       "PD pages shared by fork %llu, lazy-free pages reclaimed %llu\n",
	       (unsigned long long)(m1.cow_faults - m0->cow_faults),
	       (unsigned long long)(m1.pt_unshares - m0->pt_unshares),
	       (unsigned long long)(m1.fork_shared_pd - m0->fork_shared_pd),
	       (unsigned long long)(m1.pglazyfreed - m0->pglazyfreed));
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	long seconds = 0, mib = 4, threads = 0, helpers = -1;
	int c;

	const char *swapdev = NULL;
	run_steps = 2000;
	W.dir = "/tmp";
	while ((c = getopt(argc, argv, "s:n:w:T:t:r:d:kS:v")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': run_steps = strtol(optarg, NULL, 0); break;
		case 'w': mib = strtol(optarg, NULL, 0); break;
		case 'T': seconds = strtol(optarg, NULL, 0); break;
		case 't': threads = strtol(optarg, NULL, 0); break;
		case 'r': helpers = strtol(optarg, NULL, 0); break;
		case 'd': W.dir = optarg; break;
		case 'k': W.keep = 1; break;
		case 'S': swapdev = optarg; break;
		case 'v': solo.verbose = 1; break;
		default: usage();
		}
	}
	if (mib < 2 || mib % 2 || mib > 64 || run_steps < 0 || threads < 0 || threads > 64 ||
	    helpers > 64 || (helpers >= 0 && !threads) || (threads && mib * 256 / threads < 16) ||
	    (W.keep && threads))
		usage();
	if (swapdev && getpid() != 1)
		fail("-S %s: turns swap on: only as init of a test VM", swapdev);
	if (swapdev && syscall(SYS_swapon, swapdev, 0) != 0)
		fail("swapon %s: %s", swapdev, strerror(errno));
	W.nthreads = (int)threads;
	W.nhelpers = threads ? (helpers < 0 ? 1 : (int)helpers) : 0;
	setup((size_t)mib, argv[0]);
	printf("vmtester: seed %llu, %ld steps, window %ld MiB at %p%s\n",
	       (unsigned long long)seed, run_steps, mib, (void *)W.base,
	       seconds ? ", repeating with the next seeds" : "");
	if (threads)
		printf("vmtester: %d worker threads on regions of %zu pages, %d helper threads\n",
		       W.nthreads, W.t[0].npages, W.nhelpers);
	fflush(stdout);
	struct pagoda_meminfo m0;
	int have_mi = pagoda_meminfo(&m0) == 0;
	double end = now() + (double)seconds;
	uint64_t s = seed;
	do {
		if (threads)
			run_threads(s++);
		else
			run_seed(s++, run_steps);
	} while (seconds && now() < end);
	if (solo.on_pagoda && pagoda_vmcheck() != 0)
		fail("pagoda_vmcheck: %s", strerror(errno));
	if (have_mi)
		print_events(&m0);
	if (swapdev)
		printf("vmtester: swap: %lld pages written, %lld read\n", procfs_vmstat("pswpout"),
		       procfs_vmstat("pswpin"));
	if (W.keep)
		keep_report();
	printf("vmtester: PASS seeds %llu..%llu steps %lu ops %lu pages-checked %lu faults %lu\n",
	       (unsigned long long)seed, (unsigned long long)(s - 1), total.steps, total.ops,
	       total.pages, total.faults);
	return 0;
}
