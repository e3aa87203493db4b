/* user/ptpictures.c -- the scenario of `make pictures` (and of the gdb test
 * tests/gdb/ptdraw.py): run as init (init=/bin/ptpictures), it sets up
 * processes step by step and, after each step, prints the page-table trees
 * of the processes that step is about with ptdraw, between two markers:
 *
 *   #### picture 02 after-fork pids 2,3 | after fork: ...
 *   digraph pagetables { ... }               (ptdraw's output)
 *   #### end 02
 *
 * then runs the kernel's VM invariant checker (pagoda_vmcheck; the gdb test
 * stops there and draws the same processes with pg-draw). tools/pictures.py
 * splits the console output on the markers and renders each graph.
 *
 * The steps: a subject process S with a 4 MiB anonymous region (32 pages
 * written, 4 read: the zero page); S forks C (PT pages shared); C writes one
 * page (C's PT page unshared); three shells (text PT page shared by three);
 * a subject M gives 16 pages back with MADV_FREE; a memory hog makes the
 * kernel reclaim them. Subjects wait in read() on a command pipe between
 * steps, so nothing changes while a picture is taken; at the end they are
 * killed and reaped. Then, if the run has a disk (tools/pictures.sh gives
 * it an empty ext2 /dev/vda), a file's page cache drawn by cachedraw
 * (user/cachedraw.c): a 100-page file written and synced, its cache
 * dropped, then 8 pages read from the start (read-ahead brings more), one
 * read far off (only its page), one page written (dirty) and 4 pages
 * mapped by a subject (more references); then again after sync (clean);
 * then the file's first 8 pages mapped by three processes, two shared (one
 * stores) and one private (its store copies a page): their page tables and
 * the cache's references. Then, if the run has a swap area (/dev/vdb, or
 * `ptpictures swap=DEV`), a subject forks, pages its written pages out
 * (MADV_PAGEOUT: swap entries in the PT page both share) and its child
 * reads one back (the child's PT page unshared first); then the
 * replacement lists: a region of 64 pages, its last 8 MADV_FREE'd, a scan
 * of free memory and 6 MiB more reading the region's first 16 pages after
 * every MiB, drawn page by page by list (pagoda_vmquery: hot, cold, in
 * test, lazy-free, on swap) with the scan's first pages.
 * Exits 0, or 1 after a message if a step failed.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#define PAGE 4096
#define REGION (4u << 20)        /* holds one whole, 2 MiB aligned PT range */
#define CHUNK (2u << 20)
#define WRITTEN 32               /* pages written at the start of that range */
#define READ 4                   /* pages read after them: the zero page */
#define FREED 16                 /* pages MADV_FREE'd by command 'm' */
#define HOG_STEP (1u << 20)

extern char **environ;

static int reply_pipe[2];       /* subjects -> director: one int per command */

static void die(const char *what)
{
	fprintf(stderr, "ptpictures: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- subjects: processes that act on command, then wait ---- */

struct subject {
	pid_t pid;
	int cmd[2];              /* the director writes commands to cmd[1] */
};

/* The 2 MiB aligned range inside a fresh 4 MiB region, 32 pages written and
 * 4 more read. */
static volatile unsigned char *subject_region(void)
{
	unsigned char *r = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		die("mmap");
	volatile unsigned char *p = (unsigned char *)(((uintptr_t)r + CHUNK - 1) & ~(uintptr_t)(CHUNK - 1));
	for (int i = 0; i < WRITTEN; i++)
		p[i * PAGE] = (unsigned char)i;
	for (int i = WRITTEN; i < WRITTEN + READ; i++)
		(void)p[i * PAGE];
	return p;
}

static void reply(int value)
{
	if (write(reply_pipe[1], &value, sizeof value) != sizeof value)
		_exit(1);
}

/* Serve commands from fd until it closes: 'f' fork (the child serves
 * child_fd, the parent replies the child's pid), 'w' write the first page,
 * 'm' MADV_FREE FREED written pages, 'o' MADV_PAGEOUT the written pages,
 * 'r' read the first page. */
static __attribute__((noreturn)) void subject_serve(int fd, int child_fd)
{
	volatile unsigned char *p = subject_region();
	char c;
	reply(0);
	while (read(fd, &c, 1) == 1) {
		if (c == 'f') {
			pid_t pid = fork();
			if (pid == 0) {
				fd = child_fd;
				continue;
			}
			reply(pid);
		} else if (c == 'w') {
			p[0] = 0xff;
			reply(0);
		} else if (c == 'm') {
			reply(madvise((void *)(p + (WRITTEN - FREED) * PAGE), FREED * PAGE, MADV_FREE));
		} else if (c == 'o') {
			reply(madvise((void *)p, WRITTEN * PAGE, MADV_PAGEOUT));
		} else if (c == 'r') {
			reply(p[0]);
		}
	}
	_exit(0);
}

static int get_reply(void)
{
	int value;
	if (read(reply_pipe[0], &value, sizeof value) != sizeof value)
		die("subject reply");
	return value;
}

/* Send command c to s and return its reply. */
static int command(const struct subject *s, char c)
{
	if (write(s->cmd[1], &c, 1) != 1)
		die("command");
	return get_reply();
}

static void subject_start(struct subject *s, int child_fd)
{
	s->pid = fork();
	if (s->pid < 0)
		die("fork");
	if (s->pid == 0)
		subject_serve(s->cmd[0], child_fd);
	if (get_reply() != 0)
		die("subject start");
}

/* ---- pictures ---- */

/* Run argv (a drawing tool, /bin/ARGV0) and wait for it. */
static void run_tool(char **argv)
{
	char path[64];
	snprintf(path, sizeof path, "/bin/%s", argv[0]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execve(path, argv, environ);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		die(argv[0]);
}

/* ptdraw [-r RANGE] -t TITLE PIDS... (range NULL: all of user space) */
static void ptdraw(char *title, const char *range, const pid_t *pids, int n)
{
	char args[8][16];
	char *argv[14] = { "ptdraw", "-t", title };
	int k = 3;
	if (range) {
		argv[k++] = "-r";
		argv[k++] = (char *)range;
	}
	for (int i = 0; i < n && i < 8; i++) {
		snprintf(args[i], sizeof args[i], "%d", (int)pids[i]);
		argv[k++] = args[i];
	}
	run_tool(argv);
}

/* One picture: page tables of pids (of the part of user space range says,
 * NULL: all), or (file set) the page cache of file, which pids map. */
/* The marker before a picture (numbered in order) and the title line. */
static int picture_begin(const char *name, const char *title, const pid_t *pids, int n)
{
	static int number;
	char list[64] = "";
	number++;
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", (int)pids[i]);
	printf("#### picture %02d %s pids %s | %d. %s\n", number, name, list, number, title);
	return number;
}

/* The marker after picture `number`, then the kernel's invariant checker
 * (the gdb test stops there). */
static void picture_end_of(int number)
{
	printf("#### end %02d\n", number);
	fflush(stdout);
	if (pagoda_vmcheck() != 0)
		die("vmcheck");
}

static void picture_of(const char *name, const char *title, const pid_t *pids, int n,
		       const char *file, const char *range)
{
	char full[160];
	int number = picture_begin(name, title, pids, n);
	snprintf(full, sizeof full, "%d. %s", number, title);
	if (file) {
		char *argv[] = { "cachedraw", "-t", full, (char *)file, NULL };
		run_tool(argv);
	} else {
		ptdraw(full, range, pids, n);
	}
	picture_end_of(number);
}

static void picture(const char *name, const char *title, const pid_t *pids, int n)
{
	picture_of(name, title, pids, n, NULL, NULL);
}

/* ---- shells and the hog ---- */

/* Start /bin/sh reading a pipe nobody writes yet (it waits in read); its
 * output goes to another pipe, off the console. Returns its pid; *in is
 * the pipe's write end (close it to let the shell exit). */
static pid_t shell_start(int *in)
{
	int fds[2], out[2];
	if (pipe(fds) < 0 || pipe(out) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		char *argv[] = { "sh", NULL };
		execve("/bin/sh", argv, environ);
		_exit(127);
	}
	close(fds[0]);
	*in = fds[1];
	return pid;
}

/* Has process pid become `name` and gone to sleep (blocked in read)? */
static int asleep_as(pid_t pid, const char *name)
{
	struct pagoda_procinfo p;
	for (long i = 0; pagoda_procinfo(i, &p) == 0; i++)
		if (p.pid == pid)
			return p.state == PROC_STATE_SLEEPING && strcmp(p.name, name) == 0;
	return 0;
}

/* Allocate and touch memory until the kernel's lazy-free list is empty
 * (reclaim ran), or memory runs out. */
static void hog(void)
{
	struct pagoda_meminfo m;
	pid_t pid = fork();
	if (pid == 0) {
		while (pagoda_meminfo(&m) == 0 && m.lazyfree_pages) {
			unsigned char *p = mmap(NULL, HOG_STEP, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(0);
			for (unsigned i = 0; i < HOG_STEP; i += PAGE)
				p[i] = 1;
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		die("hog");
}

/* ---- a file's page cache (when there is a disk) ---- */

#define FILE_PAGES 100
#define CACHE_FILE "/mnt/data"

/* Write the file whole and sync it, then drop every clean cached page. */
static void cache_file_make(void)
{
	static unsigned char page[PAGE];
	int fd = open(CACHE_FILE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(CACHE_FILE);
	for (int i = 0; i < FILE_PAGES; i++) {
		memset(page, 'a' + i % 26, sizeof page);
		if (write(fd, page, PAGE) != PAGE)
			die("write");
	}
	if (fsync(fd) != 0)
		die("fsync");
	close(fd);
	int d = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (d < 0 || write(d, "1", 1) != 1)
		die("drop_caches");
	close(d);
}

#define MAP_AT 0x40000000UL     /* where the mappers map the file (one PT page) */
#define MAP_RANGE "0x40000000-0x40008000"

/* A subject that maps the file's first npages pages at MAP_AT (flags:
 * MAP_SHARED or MAP_PRIVATE, writable when it stores), reads them, stores
 * to page `store` (-1: none), then waits; its pid. */
static pid_t cache_mapper(int *in, int flags, int npages, int store)
{
	int go[2];
	if (pipe(go) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);   /* the director's: its close ends the wait below */
		int fd = open(CACHE_FILE, store >= 0 ? O_RDWR : O_RDONLY);
		int prot = PROT_READ | (store >= 0 ? PROT_WRITE : 0);
		volatile unsigned char *p = mmap((void *)MAP_AT, (size_t)npages * PAGE, prot,
						 flags | MAP_FIXED, fd, 0);
		if (p == MAP_FAILED)
			_exit(1);
		for (int i = 0; i < npages; i++)
			(void)p[i * PAGE];
		if (store >= 0)
			p[store * PAGE] = 'X';
		reply(0);
		char c;
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	*in = go[1];
	if (pid < 0 || get_reply() != 0)
		die("mapper");
	return pid;
}

/* The file's first 8 pages mapped shared by two processes (one stores to
 * page 2: dirty in the cache, and the other sees it) and privately by a
 * third (its store to page 5 copies that page): their PT pages, each
 * process its own (no fork between them), map the same cache frames. */
static void mapped_three(void)
{
	int in[3];
	pid_t pids[3] = { cache_mapper(&in[0], MAP_SHARED, 8, -1),
			  cache_mapper(&in[1], MAP_SHARED, 8, 2),
			  cache_mapper(&in[2], MAP_PRIVATE, 8, 5) };
	picture_of("file-mapped-tables", "a file mapped by three processes: two shared "
		   "(the second stored to page 2), one private (its store copied page 5)",
		   pids, 3, NULL, MAP_RANGE);
	picture_of("file-mapped-cache", "the same file's cache: pages 0-7 mapped three times "
		   "(x4 with the cache's own), page 5 twice (the private copy is the third's), "
		   "page 2 dirty", pids, 3, CACHE_FILE, NULL);
	for (int i = 0; i < 3; i++) {   /* (each later one holds the earlier ones' pipes) */
		close(in[i]);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

static void cache_pictures(void)
{
	struct stat st;
	if (stat("/dev/vda", &st) != 0)
		return;   /* no disk: the page-table pictures only */
	mkdir("/mnt", 0755);
	if (syscall(SYS_mount, "/dev/vda", "/mnt", "ext2", 0L, NULL) != 0)
		die("mount /dev/vda");
	cache_file_make();
	static unsigned char buf[8 * PAGE];
	int fd = open(CACHE_FILE, O_RDWR);
	if (fd < 0 || read(fd, buf, sizeof buf) != (ssize_t)sizeof buf ||
	    pread(fd, buf, PAGE, 90 * PAGE) != PAGE || pwrite(fd, buf, PAGE, 40 * PAGE) != PAGE)
		die("file reads and writes");
	int in;
	pid_t mapper = cache_mapper(&in, MAP_SHARED, 4, -1);
	picture_of("file-cache", "a file's page cache: 8 pages read (read-ahead brought more), "
		   "page 90 read, page 40 written, pages 0-3 mapped", &mapper, 1, CACHE_FILE, NULL);
	if (fsync(fd) != 0)
		die("fsync");
	picture_of("file-cache-synced", "after fsync: page 40 written back, clean", &mapper, 1,
		   CACHE_FILE, NULL);
	close(in);
	waitpid(mapper, NULL, 0);
	mapped_three();
	close(fd);
	if (syscall(SYS_umount2, "/mnt", 0L) != 0)
		die("umount");
}

/* ---- the replacement lists (when there is a swap area) ---- */

#define LIST_PAGES 64            /* the region drawn: 8 rows of 8 */
#define LIST_HOT 16              /* its first pages, read during the scan */
#define LIST_FREED 8             /* its last pages, MADV_FREE'd before it */
#define SCAN_EXTRA (6u << 20)    /* the scan: free memory and this much more */

/* A page's place as pagoda_vmquery reports it: (cell colour, short name). */
static void page_state(const volatile void *va, const char **colour, const char **name)
{
	struct pagoda_vmquery q;
	*colour = "#ffffff", *name = "-";
	if (pagoda_vmquery((const void *)va, &q) != 0)
		return;
	if (q.soft & VMQ_SWAPPED)
		*colour = "#bdbdbd", *name = "swap";
	else if (!q.mapped)
		return;
	else if (q.soft & VMQ_LAZYFREE)
		*colour = "#ece2f0", *name = "lazy";
	else if (q.soft & VMQ_HOT)
		*colour = "#f4a582", *name = "hot";
	else if (q.soft & VMQ_TEST)
		*colour = "#d1e5f0", *name = "test";
	else
		*colour = "#92c5de", *name = "cold";
}

/* One table of the picture: label, then n pages from base, `stride`
 * bytes apart, in rows of 8, each cell named by its page number (or, with
 * a stride of a MiB or more, its MiB). */
static void lists_grid(const char *label, volatile unsigned char *base, unsigned n, size_t stride)
{
	printf("<TR><TD COLSPAN=\"8\" BORDER=\"0\" ALIGN=\"LEFT\"><B>%s</B></TD></TR>\n", label);
	for (unsigned i = 0; i < n; i++) {
		const char *colour, *name;
		page_state(base + i * stride, &colour, &name);
		printf("%s<TD BGCOLOR=\"%s\">%zu%s %s</TD>%s", i % 8 ? "" : "<TR>", colour,
		       stride >= HOG_STEP ? i * stride >> 20 : i, stride >= HOG_STEP ? "M" : "", name,
		       i % 8 == 7 || i + 1 == n ? "</TR>\n" : "");
	}
}

/* The picture: the region's pages and the scan's, one per MiB, by list. */
static void lists_draw(const char *title, volatile unsigned char *region,
		       volatile unsigned char *scan, size_t scan_len)
{
	printf("digraph lists {\n\tnode [shape=plaintext, fontname=\"Helvetica\", fontsize=10];\n");
	printf("\tlists [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">\n");
	printf("<TR><TD COLSPAN=\"8\" BORDER=\"0\"><B>%s</B></TD></TR>\n", title);
	lists_grid("the region: pages 0-15 read during the scan, 56-63 MADV_FREE'd before it",
		   region, LIST_PAGES, PAGE);
	lists_grid("the scan, written once: its first page of every MiB", scan,
		   (unsigned)(scan_len / HOG_STEP), HOG_STEP);
	printf("<TR><TD BGCOLOR=\"#f4a582\">hot</TD><TD BGCOLOR=\"#92c5de\">cold</TD>"
	       "<TD BGCOLOR=\"#d1e5f0\">cold, in test</TD><TD BGCOLOR=\"#ece2f0\">lazy-free</TD>"
	       "<TD BGCOLOR=\"#bdbdbd\">on swap</TD><TD>- not mapped</TD>"
	       "<TD COLSPAN=\"2\" BORDER=\"0\"></TD></TR>\n");
	printf("</TABLE>>];\n}\n");
}

/* Free memory in bytes (pagoda_meminfo). */
static uint64_t free_bytes(void)
{
	struct pagoda_meminfo m;
	return pagoda_meminfo(&m) == 0 ? m.free_pages * PAGE : 0;
}

/* With swap on: a region of 64 pages written, its last 8 given back with
 * MADV_FREE, then a scan (free memory and 6 MiB more, written once)
 * reading the region's first 16 pages after every 1 MiB; drawn by list
 * with the scan's, one per MiB. The policy's choice shows: the lazy-free
 * pages went first, then the scan's own pages (those that came once
 * memory was full, cold), while the region stayed. */
static void lists_picture(void)
{
	volatile unsigned char *region = mmap(NULL, LIST_PAGES * PAGE, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t scan_len = (free_bytes() + SCAN_EXTRA) & ~(size_t)(HOG_STEP - 1);
	volatile unsigned char *scan = mmap(NULL, scan_len, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || scan == MAP_FAILED)
		die("mmap");
	for (unsigned i = 0; i < LIST_PAGES; i++)
		region[i * PAGE] = (unsigned char)i;
	if (madvise((void *)(region + (LIST_PAGES - LIST_FREED) * PAGE), LIST_FREED * PAGE,
		    MADV_FREE) != 0)
		die("madvise(MADV_FREE)");
	unsigned sum = 0;
	for (size_t off = 0; off < scan_len; off += PAGE) {
		scan[off] = 1;
		for (unsigned i = 0; off % HOG_STEP == 0 && i < LIST_HOT; i++)
			sum += region[i * PAGE];
	}
	char title[120], full[160];
	snprintf(title, sizeof title, "the replacement lists after a scan of %zu MiB, written once "
		 "(the region's sum %u)", scan_len >> 20, sum);
	pid_t me = getpid();
	int number = picture_begin("lists", title, &me, 1);
	snprintf(full, sizeof full, "%d. %s", number, title);
	lists_draw(full, region, scan, scan_len);
	picture_end_of(number);
	munmap((void *)scan, scan_len);
	munmap((void *)region, LIST_PAGES * PAGE);
}

/* With a swap area on swap_disk: a subject and its child sharing their PT
 * pages, the subject's written pages paged out (one swap entry in the
 * shared PT page for both), then the child reading one back (the swap-in
 * writes an entry: the child's PT page is its own first). */
static void swap_pictures(const char *swap_disk)
{
	struct subject s, c;
	if (syscall(SYS_swapon, swap_disk, 0L) != 0)
		return;   /* no swap area: no swap pictures */
	if (pipe(s.cmd) < 0 || pipe(c.cmd) < 0)
		die("pipe");
	subject_start(&s, c.cmd[0]);
	c.pid = command(&s, 'f');
	pid_t both[2] = { s.pid, c.pid };
	if (command(&s, 'o') != 0)
		die("madvise(MADV_PAGEOUT)");
	picture("swapped-out", "MADV_PAGEOUT of the parent's 32 written pages: 32 swap entries in "
		"the page tables both share, paged out once for both", both, 2);
	if (command(&c, 'r') != 0)
		die("swap-in");
	picture("child-swap-in", "the child reads page 0 back: its own PT page first, "
		"one page in, 31 still out", both, 2);
	kill(c.pid, SIGKILL);
	kill(s.pid, SIGKILL);
	while (wait(NULL) > 0)
		;
	lists_picture();
	if (syscall(SYS_swapoff, swap_disk) != 0)
		die("swapoff");
}

int main(int argc, char **argv)
{
	const char *swap_disk = argc > 1 && strncmp(argv[1], "swap=", 5) == 0 ? argv[1] + 5 : "/dev/vdb";
	struct subject s, c, m;
	if (pipe(reply_pipe) < 0 || pipe(s.cmd) < 0 || pipe(c.cmd) < 0 || pipe(m.cmd) < 0)
		die("pipe");
	subject_start(&s, c.cmd[0]);
	picture("before-fork", "before fork: one process, 32 pages written, 4 read (zero page)", &s.pid, 1);
	c.pid = command(&s, 'f');
	pid_t both[2] = { s.pid, c.pid };
	picture("after-fork", "after fork: parent and child share their PT pages", both, 2);
	command(&c, 'w');
	picture("child-write", "after the child's first write: the child has its own PT page", both, 2);

	int in[3];   /* the shells' input: open until they are killed */
	pid_t sh[3];
	for (int i = 0; i < 3; i++)
		sh[i] = shell_start(&in[i]);
	for (int i = 0; i < 3; i++)
		while (!asleep_as(sh[i], "sh"))
			sched_yield();
	picture("three-shells", "three shells share one PT page of program text", sh, 3);

	subject_start(&m, -1);
	if (command(&m, 'm') != 0)
		die("madvise");
	picture("madv-free", "MADV_FREE: 16 of 32 pages lazy-free, still mapped", &m.pid, 1);
	hog();
	picture("reclaimed", "after reclaim: the 16 clean lazy-free pages are gone", &m.pid, 1);

	pid_t all[] = { c.pid, s.pid, m.pid, sh[0], sh[1], sh[2] };
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
		kill(all[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	if (strcmp(swap_disk, "/dev/vda") != 0)
		cache_pictures();   /* (vda is an ext2 disk unless it is the swap area) */
	swap_pictures(swap_disk);
	printf("#### done\n");
	return 0;
}
