/* user/usertests/t_files.c -- files and names: create, write, read,
 * mkdir, unlink, rename, link, symlink, truncate, directories, devices.
 *
 * Every test works in its own scratch directory under /tmp (a tmpfs on
 * Pagoda; whatever /tmp is on the Linux host, the reference), removed at
 * the end. Errors are Linux's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "usertests.h"

static char scratch[64];

/* A fresh scratch directory, made the current directory. */
static void enter_scratch(const char *name)
{
	snprintf(scratch, sizeof scratch, "/tmp/ut-%s.%d", name, (int)getpid());
	CHECK_OK(mkdir(scratch, 0755));
	CHECK_OK(chdir(scratch));
}

/* rm -r of path (files, links and directories only). */
static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char sub[512];
		while (d && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			remove_tree(sub);
		}
		if (d)
			closedir(d);
		CHECK_OK(rmdir(path));
	} else {
		CHECK_OK(unlink(path));
	}
}

static void leave_scratch(void)
{
	CHECK_OK(chdir("/"));
	remove_tree(scratch);
}

static void write_text(const char *path, const char *text)
{
	int fd = CHECK_OK(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	CHECK_OK(close(fd));
}

/* path's whole text must be want. */
static void check_text(const char *path, const char *want)
{
	char buf[256];
	int fd = CHECK_OK(open(path, O_RDONLY));
	ssize_t n = read(fd, buf, sizeof buf - 1);
	CHECK_OK(close(fd));
	CHECK(n >= 0);
	buf[n] = '\0';
	if (strcmp(buf, want))
		ut_fail(__FILE__, __LINE__, "%s holds \"%s\", want \"%s\"", path, buf, want);
}

/* files_create_rw: O_CREAT/O_EXCL/O_TRUNC/O_APPEND, read back, sizes. */
void test_files_create_rw(void)
{
	char buf[64];
	struct stat st;
	enter_scratch("create");
	int fd = CHECK_OK(open("a", O_RDWR | O_CREAT | O_EXCL, 0640));
	CHECK_ERR(open("a", O_RDWR | O_CREAT | O_EXCL, 0640), EEXIST);
	CHECK(write(fd, "hello, world", 12) == 12);
	CHECK(lseek(fd, 7, SEEK_SET) == 7);
	CHECK(read(fd, buf, sizeof buf) == 5 && !memcmp(buf, "world", 5));
	CHECK(read(fd, buf, sizeof buf) == 0);
	CHECK_OK(fstat(fd, &st));
	CHECK(S_ISREG(st.st_mode) && st.st_size == 12 && st.st_nlink == 1);
	CHECK((st.st_mode & 0777) == (0640 & ~022) || (st.st_mode & 0777) == 0640);
	CHECK(pwrite(fd, "W", 1, 7) == 1);
	CHECK_OK(close(fd));
	check_text("a", "hello, World");
	fd = CHECK_OK(open("a", O_WRONLY | O_APPEND));
	CHECK(write(fd, "!", 1) == 1);
	CHECK_OK(close(fd));
	check_text("a", "hello, World!");
	fd = CHECK_OK(open("a", O_WRONLY | O_TRUNC));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 0);
	CHECK_OK(close(fd));
	CHECK(lseek(fd, 0, SEEK_SET) == -1);
	leave_scratch();
}

/* files_errors: the errno of each wrong use of a name. */
void test_files_errors(void)
{
	char longname[300];
	enter_scratch("errors");
	write_text("f", "x");
	CHECK_OK(mkdir("d", 0755));
	CHECK_ERR(open("", O_RDONLY), ENOENT);
	CHECK_ERR(open("missing", O_RDONLY), ENOENT);
	CHECK_ERR(open("missing/x", O_RDONLY | O_CREAT, 0644), ENOENT);
	CHECK_ERR(open("f/x", O_RDONLY), ENOTDIR);
	CHECK_ERR(open("f", O_RDONLY | O_DIRECTORY), ENOTDIR);
	CHECK_ERR(open("d", O_WRONLY), EISDIR);
	CHECK_ERR(open("d", O_RDWR | O_CREAT, 0644), EISDIR);
	memset(longname, 'n', 299);
	longname[299] = '\0';
	CHECK_ERR(open(longname, O_RDONLY | O_CREAT, 0644), ENAMETOOLONG);
	CHECK_ERR(mkdir("f", 0755), EEXIST);
	CHECK_ERR(mkdir("d", 0755), EEXIST);
	CHECK_ERR(unlink("d"), EISDIR);
	CHECK_ERR(rmdir("f"), ENOTDIR);
	CHECK_ERR(rmdir("."), EINVAL);
	CHECK_ERR(unlink("missing"), ENOENT);
	CHECK_ERR(link("d", "d2"), EPERM);
	leave_scratch();
}

/* files_mkdir_rmdir: directories, their link counts, and emptiness. */
void test_files_mkdir_rmdir(void)
{
	struct stat st;
	enter_scratch("mkdir");
	CHECK_OK(mkdir("d", 0755));
	CHECK_OK(mkdir("d/e", 0755));
	CHECK_OK(stat("d", &st));
	CHECK(S_ISDIR(st.st_mode) && st.st_nlink == 3);
	write_text("d/e/f", "x");
	CHECK_ERR(rmdir("d"), ENOTEMPTY);
	CHECK_ERR(rmdir("d/e"), ENOTEMPTY);
	CHECK_OK(unlink("d/e/f"));
	CHECK_OK(rmdir("d/e"));
	CHECK_OK(stat("d", &st));
	CHECK(st.st_nlink == 2);
	CHECK_OK(rmdir("d"));
	CHECK_ERR(stat("d", &st), ENOENT);
	leave_scratch();
}

/* files_rename: moves, replacements, and the moves Linux refuses. */
void test_files_rename(void)
{
	enter_scratch("rename");
	write_text("a", "A");
	write_text("b", "B");
	CHECK_OK(mkdir("d", 0755));
	CHECK_OK(mkdir("e", 0755));
	write_text("e/x", "X");
	CHECK_OK(rename("a", "d/a2"));
	CHECK_ERR(open("a", O_RDONLY), ENOENT);
	check_text("d/a2", "A");
	CHECK_OK(rename("b", "d/a2"));             /* replaces */
	check_text("d/a2", "B");
	CHECK_ERR(rename("d", "d/sub"), EINVAL);   /* into itself */
	CHECK_ERR(rename("d", "e"), ENOTEMPTY);
	CHECK_ERR(rename("d/a2", "e"), EISDIR);
	CHECK_ERR(rename("e", "d/a2"), ENOTDIR);
	CHECK_ERR(rename("missing", "z"), ENOENT);
	CHECK_OK(rename("d/a2", "d/a2"));           /* the same file: nothing */
	CHECK_OK(rename("e", "d/e"));
	check_text("d/e/x", "X");
	CHECK_OK(mkdir("empty", 0755));
	CHECK_OK(rename("d/e", "empty"));           /* a directory over an empty one */
	check_text("empty/x", "X");
	leave_scratch();
}

/* files_links: hard links share the file; symlinks name a path. */
void test_files_links(void)
{
	struct stat st, lst;
	char buf[64];
	enter_scratch("links");
	write_text("f", "data");
	CHECK_OK(link("f", "g"));
	CHECK_OK(stat("f", &st));
	CHECK(st.st_nlink == 2);
	CHECK_OK(unlink("f"));
	check_text("g", "data");
	CHECK_OK(stat("g", &st));
	CHECK(st.st_nlink == 1);
	CHECK_OK(symlink("g", "s"));
	CHECK(readlink("s", buf, sizeof buf) == 1 && buf[0] == 'g');
	CHECK_OK(stat("s", &st));
	CHECK_OK(lstat("s", &lst));
	CHECK(S_ISREG(st.st_mode) && S_ISLNK(lst.st_mode) && lst.st_size == 1);
	check_text("s", "data");
	CHECK_ERR(readlink("g", buf, sizeof buf), EINVAL);
	CHECK_OK(symlink("nowhere", "dangling"));
	CHECK_ERR(open("dangling", O_RDONLY), ENOENT);
	CHECK_OK(symlink("loop", "loop"));
	CHECK_ERR(open("loop", O_RDONLY), ELOOP);
	CHECK_ERR(open("s", O_RDONLY | O_NOFOLLOW), ELOOP);
	CHECK_OK(mkdir("d", 0755));
	CHECK_OK(symlink("d", "sd"));
	write_text("sd/through", "t");
	check_text("d/through", "t");
	CHECK_ERR(symlink("x", "g"), EEXIST);
	leave_scratch();
}

/* files_unlink_open: an unlinked file lives on while it is open. */
void test_files_unlink_open(void)
{
	char buf[8];
	struct stat st;
	enter_scratch("unlinkopen");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	CHECK(write(fd, "abc", 3) == 3);
	CHECK_OK(unlink("f"));
	CHECK_ERR(stat("f", &st), ENOENT);
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_nlink == 0 && st.st_size == 3);
	CHECK(pread(fd, buf, 3, 0) == 3 && !memcmp(buf, "abc", 3));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_readdir: every name made is listed once, with "." and "..". */
void test_files_readdir(void)
{
	enum { N = 70 };
	char name[32];
	int seen[N] = { 0 }, dots = 0, others = 0;
	enter_scratch("readdir");
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "file-%d", i);
		write_text(name, "x");
	}
	CHECK_OK(unlink("file-5"));
	DIR *d = opendir(".");
	CHECK(d != NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		int i;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			dots++;
		else if (sscanf(e->d_name, "file-%d", &i) == 1 && i >= 0 && i < N)
			seen[i]++;
		else
			others++;
	}
	closedir(d);
	CHECK(dots == 2 && others == 0);
	for (int i = 0; i < N; i++)
		if (seen[i] != (i != 5))
			ut_fail(__FILE__, __LINE__, "file-%d listed %d times", i, seen[i]);
	leave_scratch();
}

/* files_truncate: growing reads zeros, shrinking forgets the tail. */
void test_files_truncate(void)
{
	char buf[9000];
	struct stat st;
	enter_scratch("truncate");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	memset(buf, 'x', sizeof buf);
	CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	CHECK_OK(ftruncate(fd, 100));
	CHECK_OK(ftruncate(fd, 8192));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 8192);
	CHECK(pread(fd, buf, sizeof buf, 0) == 8192);
	for (int i = 0; i < 8192; i++)
		if (buf[i] != (i < 100 ? 'x' : 0))
			ut_fail(__FILE__, __LINE__, "byte %d is %d after the truncates", i, buf[i]);
	CHECK_OK(truncate("f", 0));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 0);
	CHECK_ERR(ftruncate(fd, -1), EINVAL);
	CHECK_OK(close(fd));
	fd = CHECK_OK(open("f", O_RDONLY));
	CHECK_ERR(ftruncate(fd, 10), EINVAL);
	CHECK_OK(close(fd));
	leave_scratch();
}

/* A child forked before a truncation (sharing its parent's page tables
 * where fork shares them): it waits for the parent's word on fd, checks
 * page 0 still reads want0, then reads *at, which must kill it (SIGBUS). */
static pid_t reader_after_truncate(int fd, const char *p0, char want0, const char *at)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char c;
		if (read(fd, &c, 1) != 1 || *(volatile const char *)p0 != want0)
			_exit(2);
		(void)*(volatile const char *)at;
		_exit(3);   /* still mapped: the truncation did not reach this process */
	}
	return pid;
}

/* The status of child pid, which must have been killed by SIGBUS. */
static void expect_sigbus(pid_t pid)
{
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
		ut_fail(__FILE__, __LINE__, "child ended with %s, want killed by SIGBUS",
			ut_status_str(st));
}

/* files_truncate_mapped: ftruncate of a mapped file takes the pages past
 * the new end out of every process that mapped them (Linux's semantics):
 * the parent and two children forked before the truncation (which share
 * its page tables) get SIGBUS there, from a shared mapping and from a
 * private page the parent had copied (written) before; the page holding
 * the new end stays, zeros past it; grown again, the file reads zeros. */
void test_files_truncate_mapped(void)
{
	enum { P = 4096 };
	char buf[4 * P];
	int go[2];
	enter_scratch("truncmap");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	for (int i = 0; i < 4; i++)
		memset(buf + i * P, 'a' + i, P);
	CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	char *sh = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *pr = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(sh != MAP_FAILED && pr != MAP_FAILED);
	for (int i = 0; i < 4; i++)
		CHECK(sh[i * P] == 'a' + i && pr[i * P + 1] == 'a' + i);   /* all mapped */
	sh[2 * P] = 'S';   /* a store through the shared mapping */
	pr[3 * P] = 'X';   /* a private copy of page 3 */
	CHECK_OK(pipe(go));
	pid_t a = reader_after_truncate(go[0], sh, 'a', sh + 2 * P);
	pid_t b = reader_after_truncate(go[0], pr, 'a', pr + 3 * P);
	CHECK_OK(ftruncate(fd, P + 100));
	CHECK(write(go[1], "gg", 2) == 2);
	expect_sigbus(a);
	expect_sigbus(b);
	CHECK(sh[P + 99] == 'b' && sh[P + 100] == 0 && pr[P + 99] == 'b');
	ut_expect_signal(SIGBUS, ut_peek, sh + 2 * P);
	ut_expect_signal(SIGBUS, ut_poke, sh + 3 * P);
	ut_expect_signal(SIGBUS, ut_peek, pr + 3 * P);   /* the private copy went too */
	CHECK_OK(ftruncate(fd, 4 * P));
	CHECK(sh[2 * P] == 0 && sh[3 * P + 7] == 0 && pr[3 * P] == 0 && pr[2 * P] == 0);
	sh[3 * P] = 'n';
	CHECK(pread(fd, buf, 1, 3 * P) == 1 && buf[0] == 'n');
	CHECK_OK(munmap(sh, 4 * P));
	CHECK_OK(munmap(pr, 4 * P));
	CHECK_OK(close(go[0]));
	CHECK_OK(close(go[1]));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_cwd: relative names, getcwd, "..", fchdir. */
void test_files_cwd(void)
{
	char cwd[256], want[256];
	enter_scratch("cwd");
	CHECK_OK(mkdir("sub", 0755));
	int dfd = CHECK_OK(open(".", O_RDONLY | O_DIRECTORY));
	CHECK_OK(chdir("sub"));
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(want, sizeof want, "%s/sub", scratch);
	CHECK(!strcmp(cwd, want));
	write_text("../top", "T");
	check_text("../top", "T");
	CHECK_OK(fchdir(dfd));
	check_text("top", "T");
	CHECK_OK(close(dfd));
	CHECK_ERR(chdir("top"), ENOTDIR);
	leave_scratch();
}

/* files_mmap_shared: a shared mapping and read()/write() see one file. */
void test_files_mmap_shared(void)
{
	char buf[8];
	enter_scratch("mmap");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	CHECK_OK(ftruncate(fd, 8192));
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	memcpy(m + 4096, "mapped", 6);
	CHECK(pread(fd, buf, 6, 4096) == 6 && !memcmp(buf, "mapped", 6));
	CHECK(pwrite(fd, "WRITE", 5, 10) == 5);
	CHECK(!memcmp(m + 10, "WRITE", 5));
	CHECK_OK(munmap(m, 8192));
	CHECK(pread(fd, buf, 6, 4096) == 6 && !memcmp(buf, "mapped", 6));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_filecache: pagoda_filecache describes a file's page cache as its
 * writes made it (tmpfs: written pages dirty for good): pages 0, 1 and
 * 70 under a two-level tree, parents before children; a mapping adds a
 * reference; only max entries are written but all are counted; bad
 * arguments get EBADF, EINVAL, EFAULT. Linux has no such call (ENOSYS). */
void test_files_filecache(void)
{
	static char page[4096];
	struct pagoda_cachenode n[8];
	int pipefd[2];
	enter_scratch("fcache");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	memset(page, 'p', sizeof page);
	for (int i = 0; i < 3; i++)
		CHECK(pwrite(fd, page, sizeof page, (off_t)(i < 2 ? i : 70) * 4096) == 4096);
	long r = pagoda_filecache(fd, n, 8);
	if (r < 0 && errno == ENOSYS) {   /* Linux */
		CHECK_OK(close(fd));
		leave_scratch();
		return;
	}
	CHECK(r == 6);
	CHECK(n[0].kind == PCN_NODE && n[0].id == 1 && n[0].parent == 0 && n[0].level == 2);
	CHECK(n[1].kind == PCN_NODE && n[1].parent == 1 && n[1].slot == 0 && n[1].level == 1);
	CHECK(n[2].kind == PCN_PAGE && n[2].parent == n[1].id && n[2].index == 0 && n[2].pa &&
	      n[2].flags == (PCN_UPTODATE | PCN_DIRTY) && n[2].refs == 1 && n[2].dirty_sectors == 0xff);
	CHECK(n[3].kind == PCN_PAGE && n[3].index == 1 && n[3].slot == 1);
	CHECK(n[4].kind == PCN_NODE && n[4].parent == 1 && n[4].slot == 1 && n[4].index == 64);
	CHECK(n[5].kind == PCN_PAGE && n[5].parent == n[4].id && n[5].index == 70 && n[5].slot == 6);
	volatile char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
	CHECK(m != MAP_FAILED && m[0] == 'p');
	CHECK(pagoda_filecache(fd, n, 8) == 6 && n[3].refs == 2);
	CHECK_OK(munmap((void *)m, 4096));
	memset(n, 0xab, sizeof n);
	CHECK(pagoda_filecache(fd, n, 2) == 6 && n[1].id == 2 && n[2].id == 0xabababab);
	CHECK_ERR(pagoda_filecache(-1, n, 8), EBADF);
	CHECK_ERR(pagoda_filecache(fd, n, -1), EINVAL);
	CHECK_ERR(pagoda_filecache(fd, (void *)8, 8), EFAULT);
	CHECK_OK(pipe(pipefd));
	CHECK_ERR(pagoda_filecache(pipefd[0], n, 8), EINVAL);
	CHECK_OK(close(pipefd[0]));
	CHECK_OK(close(pipefd[1]));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_msync: msync's errnos as Linux's (unaligned, unknown flags,
 * MS_ASYNC with MS_SYNC: EINVAL; a range with a hole: ENOMEM), and
 * MS_SYNC of a shared file mapping and of private memory succeeds, the
 * file's bytes those the mapping wrote. */
void test_files_msync(void)
{
	char buf[8];
	enter_scratch("msync");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	CHECK_OK(ftruncate(fd, 3 * 4096));
	char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	memcpy(m + 4096, "synced", 6);
	CHECK_OK(msync(m, 3 * 4096, MS_SYNC));
	CHECK_OK(msync(m + 4096, 10, MS_ASYNC));
	CHECK_OK(msync(m, 4096, MS_INVALIDATE));
	CHECK(pread(fd, buf, 6, 4096) == 6 && !memcmp(buf, "synced", 6));
	CHECK_ERR(msync(m + 1, 4096, MS_SYNC), EINVAL);
	CHECK_ERR(msync(m, 4096, 8), EINVAL);
	CHECK_ERR(msync(m, 4096, MS_ASYNC | MS_SYNC), EINVAL);
	CHECK_OK(munmap(m + 4096, 4096));   /* a hole in the middle */
	CHECK_ERR(msync(m, 3 * 4096, MS_SYNC), ENOMEM);
	CHECK_OK(msync(m, 0, MS_SYNC));
	char *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	CHECK_OK(msync(anon, 4096, MS_SYNC));
	CHECK_OK(munmap(anon, 4096));
	CHECK_OK(munmap(m, 4096));
	CHECK_OK(munmap(m + 2 * 4096, 4096));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_mprotect_shared: mprotect may make a shared file mapping writable
 * only when the file is open for writing (Linux's VM_MAYWRITE: EACCES
 * otherwise); once writable, stores reach the file. A private mapping of a
 * read-only file may become writable (its stores are its own). */
void test_files_mprotect_shared(void)
{
	char buf[8];
	enter_scratch("mprot");
	write_text("f", "0123456789");
	int ro = CHECK_OK(open("f", O_RDONLY)), rw = CHECK_OK(open("f", O_RDWR));
	char *a = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 0);
	char *b = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rw, 0);
	char *c = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, ro, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED && c != MAP_FAILED);
	CHECK(a[0] == '0' && b[1] == '1');   /* mapped read-only first */
	CHECK_ERR(mprotect(a, 4096, PROT_READ | PROT_WRITE), EACCES);
	CHECK_OK(mprotect(b, 4096, PROT_READ | PROT_WRITE));
	memcpy(b + 2, "ab", 2);
	CHECK(pread(rw, buf, 4, 0) == 4 && !memcmp(buf, "01ab", 4));
	CHECK(a[2] == 'a');                  /* one page: every mapping sees it */
	CHECK_OK(mprotect(b, 4096, PROT_READ));
	CHECK_OK(mprotect(b, 4096, PROT_READ | PROT_WRITE));
	b[4] = 'c';
	CHECK(pread(rw, buf, 1, 4) == 1 && buf[0] == 'c');
	CHECK_OK(mprotect(c, 4096, PROT_READ | PROT_WRITE));
	c[0] = 'P';                          /* a private copy */
	CHECK(pread(ro, buf, 1, 0) == 1 && buf[0] == '0');
	CHECK_OK(munmap(a, 4096));
	CHECK_OK(munmap(b, 4096));
	CHECK_OK(munmap(c, 4096));
	CHECK_OK(close(ro));
	CHECK_OK(close(rw));
	leave_scratch();
}

/* files_devices: /dev/null, zero, full, urandom as on Linux. */
void test_files_devices(void)
{
	char buf[64];
	int fd = CHECK_OK(open("/dev/null", O_RDWR));
	CHECK(write(fd, "x", 1) == 1 && read(fd, buf, sizeof buf) == 0);
	CHECK_OK(close(fd));
	fd = CHECK_OK(open("/dev/zero", O_RDONLY));
	memset(buf, 1, sizeof buf);
	CHECK(read(fd, buf, sizeof buf) == (ssize_t)sizeof buf && buf[0] == 0 && buf[63] == 0);
	CHECK_OK(close(fd));
	fd = CHECK_OK(open("/dev/full", O_WRONLY));
	CHECK_ERR(write(fd, "x", 1), ENOSPC);
	CHECK_OK(close(fd));
	fd = CHECK_OK(open("/dev/urandom", O_RDONLY));
	memset(buf, 0, sizeof buf);
	CHECK(read(fd, buf, 32) == 32);
	int nonzero = 0;
	for (int i = 0; i < 32; i++)
		nonzero += buf[i] != 0;
	CHECK(nonzero > 8);
	CHECK_OK(close(fd));
	struct stat st;
	CHECK_OK(stat("/dev/null", &st));
	CHECK(S_ISCHR(st.st_mode) && st.st_rdev == 0x103);
}

/* files_mounts: /proc/mounts has six fields a line and a proc mount.
 * (Where exactly is not asked: in a chroot, Linux lists the mounts with
 * the host's paths.) */
void test_files_mounts(void)
{
	char line[512], dev[128], dir[256], type[64], opts[128];
	int a, b, lines = 0, proc = 0;
	FILE *f = fopen("/proc/mounts", "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof line, f)) {
		CHECK(sscanf(line, "%127s %255s %63s %127s %d %d", dev, dir, type, opts, &a, &b) == 6);
		CHECK(!strncmp(opts, "rw", 2) || !strncmp(opts, "ro", 2));
		proc += !strcmp(type, "proc");
		lines++;
	}
	fclose(f);
	CHECK(lines >= 2 && proc >= 1);
}

#define L_AT_FDCWD (-100)   /* Linux's (newlib's AT_FDCWD is its own number) */

/* files_times: utimensat sets, omits and nows the times; futimens too. */
void test_files_times(void)
{
	struct stat st;
	enter_scratch("times");
	write_text("f", "x");
	struct timespec ts[2] = { { 1000000000, 5 }, { 1234567890, 0 } };
	CHECK_OK(syscall(280, L_AT_FDCWD, "f", ts, 0));
	CHECK_OK(stat("f", &st));
	CHECK(st.st_atime == 1000000000 && st.st_mtime == 1234567890);
	ts[0].tv_nsec = (1l << 30) - 2;   /* UTIME_OMIT */
	ts[1].tv_sec = 1300000000;
	CHECK_OK(syscall(280, L_AT_FDCWD, "f", ts, 0));
	CHECK_OK(stat("f", &st));
	CHECK(st.st_atime == 1000000000 && st.st_mtime == 1300000000);
	int fd = CHECK_OK(open("f", O_RDWR));
	CHECK_OK(syscall(280, fd, NULL, NULL, 0));   /* futimens(fd, NULL): now */
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_mtime > 1700000000);
	ts[1].tv_nsec = 1000000000;
	CHECK_ERR(syscall(280, fd, NULL, ts, 0), EINVAL);
	CHECK_OK(close(fd));
	CHECK_ERR(syscall(280, L_AT_FDCWD, "missing", NULL, 0), ENOENT);
	leave_scratch();
}

/* files_statx: statx agrees with stat. */
void test_files_statx(void)
{
	struct stat st;
	uint8_t x[256];
	enter_scratch("statx");
	write_text("f", "twelve bytes");
	CHECK_OK(stat("f", &st));
	CHECK_OK(syscall(332, L_AT_FDCWD, "f", 0, 0x7ff, x));
	uint32_t mask, nlink;
	uint16_t mode;
	uint64_t ino, size;
	memcpy(&mask, x, 4), memcpy(&nlink, x + 16, 4), memcpy(&mode, x + 28, 2);
	memcpy(&ino, x + 32, 8), memcpy(&size, x + 40, 8);
	CHECK((mask & 0x7ff) == 0x7ff && nlink == 1 && S_ISREG(mode) && size == 12);
	CHECK((ino & 0xffff) == (st.st_ino & 0xffff));
	CHECK_ERR(syscall(332, L_AT_FDCWD, "missing", 0, 0x7ff, x), ENOENT);
	CHECK_ERR(syscall(332, L_AT_FDCWD, "f", 0, 0x80000000u, x), EINVAL);
	leave_scratch();
}

/* files_fallocate: the file grows (zeros), KEEP_SIZE leaves its size. */
void test_files_fallocate(void)
{
	struct stat st;
	char buf[100];
	enter_scratch("fallocate");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	CHECK(write(fd, "abc", 3) == 3);
	CHECK_OK(syscall(285, fd, 0, 0L, 20000L));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 20000);
	CHECK(pread(fd, buf, sizeof buf, 10000) == (ssize_t)sizeof buf);
	for (size_t i = 0; i < sizeof buf; i++)
		CHECK(buf[i] == 0);
	CHECK(pread(fd, buf, 3, 0) == 3 && !memcmp(buf, "abc", 3));
	CHECK_OK(syscall(285, fd, 1 /* KEEP_SIZE */, 0L, 50000L));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 20000);
	CHECK_ERR(syscall(285, fd, 0, -1L, 10L), EINVAL);
	CHECK_ERR(syscall(285, fd, 0, 0L, 0L), EINVAL);
	CHECK_OK(close(fd));
	fd = CHECK_OK(open("f", O_RDONLY));
	CHECK_ERR(syscall(285, fd, 0, 0L, 10L), EBADF);
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_punch_hole: fallocate(PUNCH_HOLE | KEEP_SIZE) in the middle of a
 * mapped file: the range reads zeros through read(), the shared mapping,
 * a child's (forked before, sharing page tables) and the private mapping
 * where it still shows the file; a private copy made before stays; the
 * size stays; PUNCH_HOLE alone is EOPNOTSUPP. MADV_REMOVE of a shared
 * mapping's page punches it; of a private mapping: EACCES. */
void test_files_punch_hole(void)
{
	enum { P = 4096, PUNCH = 2, KEEP = 1 };
	char buf[4 * P];
	struct stat st;
	int go[2];
	enter_scratch("punch");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	for (int i = 0; i < 4; i++)
		memset(buf + i * P, 'a' + i, P);
	CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	char *sh = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *pr = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(sh != MAP_FAILED && pr != MAP_FAILED);
	for (int i = 0; i < 4; i++)
		CHECK(sh[i * P] == 'a' + i && pr[i * P + 1] == 'a' + i);
	pr[2 * P] = 'X';   /* a private copy of page 2 */
	CHECK_OK(pipe(go));
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {   /* sees the hole through page tables it shared */
		char c;
		_exit(read(go[0], &c, 1) == 1 && sh[2 * P] == 0 && sh[P + 10] == 0 &&
		      sh[P + 9] == 'b' && sh[3 * P + 20] == 'd' ? 0 : 1);
	}
	CHECK_ERR(syscall(285, fd, PUNCH, (long)P, (long)P), EOPNOTSUPP);
	CHECK_OK(syscall(285, fd, PUNCH | KEEP, (long)P + 10, 2L * P + 10));
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(pread(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf);
	for (int i = 0; i < 4 * P; i++) {
		char want = i >= P + 10 && i < 3 * P + 20 ? 0 : 'a' + i / P;
		if (buf[i] != want || sh[i] != want)
			ut_fail(__FILE__, __LINE__, "byte %d: read %d, mapped %d, want %d", i,
				buf[i], sh[i], want);
	}
	CHECK(pr[2 * P] == 'X' && pr[P + 10] == 0 && pr[3 * P + 19] == 0 && pr[3 * P + 20] == 'd');
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_size == 4 * P);
	int status;
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_OK(madvise(sh, P, MADV_REMOVE));
	CHECK(sh[0] == 0 && sh[P - 1] == 0 && pread(fd, buf, 1, 0) == 1 && buf[0] == 0);
	CHECK_ERR(madvise(pr, P, MADV_REMOVE), EACCES);
	CHECK_OK(munmap(sh, 4 * P));
	CHECK_OK(munmap(pr, 4 * P));
	CHECK_OK(close(go[0]));
	CHECK_OK(close(go[1]));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* Copy open file `in` (closed after) to `to` (mode 0755). */
static void copy_file(int in, const char *to)
{
	char buf[4096];
	ssize_t n;
	int out = CHECK_OK(open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755));
	while ((n = read(in, buf, sizeof buf)) > 0)
		CHECK(write(out, buf, (size_t)n) == n);
	CHECK(n == 0);
	CHECK_OK(close(in));
	CHECK_OK(close(out));
}

/* Run program path to its end: its wait status. */
static int run_program(const char *path)
{
	pid_t pid = ut_fork();
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };
		execv(path, argv);
		_exit(127);
	}
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	return status;
}

/* files_punch_exec: a hole punched over a program's code (after it ran:
 * no ETXTBSY) is zeros for the next exec too, which cannot run it. On
 * Pagoda the first exec published the program's text page table (ptshare
 * all or pd); the punch must take it away with the pages -- it kept the
 * dropped pages, and the second run attached it and ran the old code. */
void test_files_punch_exec(void)
{
	enum { P = 4096, PUNCH = 2, KEEP = 1 };
	char from[300];
	struct stat st;
	snprintf(from, sizeof from, "%s/true", ut_bindir);   /* may be relative */
	int in = CHECK_OK(open(from, O_RDONLY));
	enter_scratch("punchexec");
	copy_file(in, "t");
	int status = run_program("./t");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	int fd = CHECK_OK(open("t", O_RDWR));
	CHECK_OK(fstat(fd, &st));
	CHECK_OK(syscall(285, fd, PUNCH | KEEP, (long)P, (long)st.st_size - P));   /* the ELF header stays */
	CHECK_OK(close(fd));
	status = run_program("./t");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ut_fail(__FILE__, __LINE__, "a program whose code is a hole ran to exit 0");
	CHECK_OK(unlink("t"));
	leave_scratch();
}

/* Byte i of files_fault_around's file. */
static char around_byte(long i)
{
	return (char)('A' + i / 4096 % 26);
}

/* mmap of fd at a 64 KiB-aligned address (fault-around's windows are
 * aligned in the address space, and mmap's addresses need not be). */
static char *map_aligned(size_t len, int prot, int flags, int fd, off_t off)
{
	enum { ALIGN = 16 * 4096 };
	char *r = mmap(NULL, len + ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return r;
	char *at = (char *)(((uintptr_t)r + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
	char *m = mmap(at, len, prot, flags | MAP_FIXED, fd, off);
	if (at > r)
		CHECK_OK(munmap(r, (size_t)(at - r)));
	CHECK_OK(munmap(at + len, (size_t)(r + ALIGN - at)));
	return m;
}

/* files_fault_around: a read fault of a cached file's page maps its ready
 * neighbours too, inside the VMA only (Pagoda: its 16-page window costs
 * one fault, and pgfault_around counts the neighbours; Linux maps around
 * as well, by a window its configuration sets, so only the bytes are
 * checked there). A neighbour is mapped as a read fault maps it: a store
 * to one in a private mapping copies (the file keeps its bytes), one in a
 * shared mapping reaches the file, also from a child sharing the page
 * tables; a private page not yet written shows the file's new bytes. */
void test_files_fault_around(void)
{
	enum { P = 4096, N = 64 };
	static char buf[N * P];
	int pagoda = !ut_on_linux(), status;
	char c;
	enter_scratch("around");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	for (long i = 0; i < N * P; i++)
		buf[i] = around_byte(i);
	CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);   /* all of it cached */
	char *pr = map_aligned(N * P, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	char *sh = map_aligned(N * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *mid = map_aligned(3 * P, PROT_READ, MAP_PRIVATE, fd, 41 * P);
	CHECK(pr != MAP_FAILED && sh != MAP_FAILED && mid != MAP_FAILED);
	long long around = pagoda ? ut_vmstat("pgfault_around") : 0, flt = procfs_self_stat(10);
	CHECK(pr[17 * P] == around_byte(17 * P));   /* window 16..31 */
	long long one = procfs_self_stat(10);
	for (long i = 16 * P; i < 32 * P; i += 512)
		CHECK(pr[i] == around_byte(i));
	if (pagoda)
		CHECK(one == flt + 1 && procfs_self_stat(10) == one &&
		      ut_vmstat("pgfault_around") >= around + 15);
	flt = procfs_self_stat(10);
	CHECK(mid[0] == around_byte(41 * P) && mid[P] == around_byte(42 * P) &&
	      mid[3 * P - 1] == around_byte(44 * P - 1));
	if (pagoda)   /* clipped to the VMA: 3 pages, one fault */
		CHECK(procfs_self_stat(10) == flt + 1);
	pr[20 * P] = 'x';   /* a neighbour mapped around: still copy-on-write */
	CHECK(pread(fd, &c, 1, 20 * P) == 1 && c == around_byte(20 * P) && pr[20 * P] == 'x');
	CHECK(sh[33 * P] == around_byte(33 * P));   /* window 32..47 of the shared mapping */
	sh[40 * P] = 'y';
	CHECK(pread(fd, &c, 1, 40 * P) == 1 && c == 'y' && pr[40 * P] == 'y');
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {   /* the page tables it shares at first, then its own */
		int ok = pr[49 * P] == around_byte(49 * P);
		pr[50 * P] = 'z';
		sh[51 * P] = 'w';
		ok = ok && pread(fd, &c, 1, 50 * P) == 1 && c == around_byte(50 * P);
		_exit(ok && pread(fd, &c, 1, 51 * P) == 1 && c == 'w' ? 0 : 1);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(pr[50 * P] == around_byte(50 * P) && pr[51 * P] == 'w' && sh[51 * P] == 'w');
	CHECK_OK(munmap(pr, N * P));
	CHECK_OK(munmap(sh, N * P));
	CHECK_OK(munmap(mid, 3 * P));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_fadvise: posix_fadvise (fadvise64, raw: newlib has no wrapper)
 * with Linux's checks -- a bad descriptor EBADF, a pipe ESPIPE, an unknown
 * advice or a negative length EINVAL -- and every advice taken on a file,
 * whose bytes read back the same after WILLNEED and DONTNEED; madvise
 * WILLNEED of a file mapping (and of anonymous memory) is taken too. */
void test_files_fadvise(void)
{
	enum { P = 4096, FADVISE64 = 221, WILLNEED = 3, DONTNEED = 4 };
	static char buf[4 * P];
	int pfd[2];
	enter_scratch("fadvise");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	memset(buf, 'q', sizeof buf);
	CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	CHECK_ERR(syscall(FADVISE64, 999, 0L, 0L, 0L), EBADF);
	CHECK_OK(pipe(pfd));
	CHECK_ERR(syscall(FADVISE64, pfd[0], 0L, 0L, 0L), ESPIPE);
	CHECK_ERR(syscall(FADVISE64, fd, 0L, 0L, 99L), EINVAL);
	CHECK_ERR(syscall(FADVISE64, fd, 0L, -1L, 0L), EINVAL);
	for (long advice = 0; advice <= 5; advice++)
		CHECK_OK(syscall(FADVISE64, fd, 0L, 0L, advice));
	CHECK_OK(syscall(FADVISE64, fd, (long)P, (long)P, (long)DONTNEED));
	CHECK_OK(syscall(FADVISE64, fd, (long)P, 100L * P, (long)WILLNEED));   /* past the end too */
	memset(buf, 0, sizeof buf);
	CHECK(pread(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf);
	CHECK(buf[0] == 'q' && buf[P] == 'q' && buf[4 * P - 1] == 'q');
	char *m = mmap(NULL, 4 * P, PROT_READ, MAP_SHARED, fd, 0);
	char *anon = mmap(NULL, P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED && anon != MAP_FAILED);
	CHECK_OK(madvise(m, 4 * P, MADV_WILLNEED));
	CHECK_OK(madvise(anon, P, MADV_WILLNEED));
	CHECK(m[0] == 'q' && m[3 * P] == 'q' && anon[0] == 0);
	CHECK_OK(munmap(m, 4 * P));
	CHECK_OK(munmap(anon, P));
	CHECK_OK(close(pfd[0]));
	CHECK_OK(close(pfd[1]));
	CHECK_OK(close(fd));
	leave_scratch();
}

/* ---- advisory locks: raw Linux calls (newlib's F_SETLK and struct flock
 * are BSD's), the same on Pagoda, musl and the Linux host ---- */

struct lx_flock {
	short l_type, l_whence;
	long l_start, l_len;
	int l_pid;
};

enum { LX_F_GETLK = 5, LX_F_SETLK = 6, LX_F_SETLKW = 7, LX_OFD_GETLK = 36, LX_OFD_SETLK = 37,
       LX_RD = 0, LX_WR = 1, LX_UN = 2, LX_LOCK_SH = 1, LX_LOCK_EX = 2, LX_LOCK_NB = 4,
       LX_LOCK_UN = 8 };

/* fcntl(fd, cmd, {type, SEEK_SET, start, len}): its result; *out the struct after. */
static long lock_call(int fd, int cmd, int type, long start, long len, struct lx_flock *out)
{
	struct lx_flock fl = { (short)type, 0, start, len, 0 };
	long r = syscall(72, fd, cmd, &fl);
	if (out)
		*out = fl;
	return r;
}

/* Fork a child that runs fn(fd) and exits with its result; its status. */
static int in_child(int (*fn)(int), int fd)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(fd));
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static int child_sees_lock(int fd)
{
	struct lx_flock fl;
	if (lock_call(fd, LX_F_GETLK, LX_WR, 50, 10, &fl) != 0)
		return 1;
	if (fl.l_type != LX_WR || fl.l_start != 0 || fl.l_len != 100 || fl.l_pid != getppid())
		return 2;
	if (lock_call(fd, LX_F_SETLK, LX_WR, 99, 1, NULL) != -1 || errno != EAGAIN)
		return 3;
	if (lock_call(fd, LX_F_SETLK, LX_RD, 100, 100, NULL) != 0)   /* next to it: free */
		return 4;
	if (lock_call(fd, LX_F_GETLK, LX_WR, 0, 50, &fl) != 0 || fl.l_type != LX_WR)
		return 5;
	return 0;
}

static int child_after_unlock(int fd)
{
	struct lx_flock fl;
	if (lock_call(fd, LX_F_GETLK, LX_WR, 0, 50, &fl) != 0 || fl.l_type != LX_UN)
		return 1;   /* the parent unlocked [0, 50) */
	if (lock_call(fd, LX_F_GETLK, LX_RD, 50, 0, &fl) != 0 || fl.l_type != LX_WR ||
	    fl.l_start != 50 || fl.l_len != 50)
		return 2;   /* [50, 100) left, and a read lock conflicts with it */
	return 0;
}

static int child_after_close(int fd)
{
	return lock_call(fd, LX_F_SETLK, LX_WR, 0, 0, NULL) == 0 ? 0 : 1;   /* all gone */
}

/* files_locks: fcntl record locks between processes: F_GETLK says who
 * holds what, F_SETLK's EAGAIN, unlocking a part, POSIX's rule that any
 * close of the file drops the process's locks, and the errnos. */
void test_files_locks(void)
{
	enter_scratch("locks");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	struct lx_flock fl;
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_WR, 0, 100, NULL));
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_RD, 10, 5, NULL));   /* own locks never conflict */
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_WR, 10, 5, NULL));
	CHECK_OK(lock_call(fd, LX_F_GETLK, LX_WR, 0, 0, &fl));
	CHECK(fl.l_type == LX_UN);                                  /* ...nor show in F_GETLK */
	CHECK(in_child(child_sees_lock, fd) == 0);
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_UN, 0, 50, NULL));
	CHECK(in_child(child_after_unlock, fd) == 0);
	int other = CHECK_OK(open("f", O_RDONLY));
	CHECK_OK(close(other));                                     /* drops every lock of ours */
	CHECK(in_child(child_after_close, fd) == 0);
	/* the errnos */
	int ro = CHECK_OK(open("f", O_RDONLY));
	CHECK_ERR(lock_call(ro, LX_F_SETLK, LX_WR, 0, 1, NULL), EBADF);
	CHECK_OK(lock_call(ro, LX_F_SETLK, LX_RD, 0, 1, NULL));
	CHECK_ERR(lock_call(fd, LX_F_SETLK, 7, 0, 1, NULL), EINVAL);
	CHECK_ERR(lock_call(fd, LX_F_SETLK, LX_WR, -5, 1, NULL), EINVAL);
	CHECK_ERR(lock_call(fd, LX_F_SETLK, LX_WR, 5, -10, NULL), EINVAL);
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_WR, 5, -5, NULL));    /* [0, 5) */
	CHECK_ERR(lock_call(fd, LX_F_GETLK, LX_UN, 0, 1, NULL), EINVAL);
	struct lx_flock bad = { LX_WR, 9, 0, 1, 0 };
	CHECK_ERR(syscall(72, fd, LX_F_SETLK, &bad), EINVAL);
	CHECK_ERR(syscall(72, fd, LX_F_SETLK, (void *)8), EFAULT);
	CHECK_ERR(syscall(72, 999, LX_F_SETLK, &bad), EBADF);
	CHECK_OK(close(ro));
	CHECK_OK(close(fd));
	leave_scratch();
}

static int child_flock(int fd)
{
	int mine = open("f", O_RDONLY);
	if (mine < 0)
		return 1;
	if (syscall(73, mine, LX_LOCK_EX | LX_LOCK_NB) != -1 || errno != EWOULDBLOCK)
		return 2;   /* the parent's open file holds it */
	if (syscall(73, fd, LX_LOCK_EX | LX_LOCK_NB) != 0)
		return 3;   /* the same open file (inherited): its own lock */
	return 0;
}

/* files_flock: flock(2) belongs to the open file: a second open
 * conflicts, a dup or a child's inherited descriptor shares it; the last
 * close of the open file drops it; LOCK_SH is shared; OFD locks conflict
 * between two opens in one process. */
void test_files_flock(void)
{
	enter_scratch("flock");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	int second = CHECK_OK(open("f", O_RDONLY));
	CHECK_OK(syscall(73, fd, LX_LOCK_EX));
	CHECK_ERR(syscall(73, second, LX_LOCK_SH | LX_LOCK_NB), EWOULDBLOCK);
	CHECK(in_child(child_flock, fd) == 0);
	int d = CHECK_OK(dup(fd));
	CHECK_OK(close(fd));                                          /* d keeps the open file */
	CHECK_ERR(syscall(73, second, LX_LOCK_EX | LX_LOCK_NB), EWOULDBLOCK);
	CHECK_OK(close(d));                                           /* its last close: gone */
	CHECK_OK(syscall(73, second, LX_LOCK_SH | LX_LOCK_NB));
	fd = CHECK_OK(open("f", O_RDWR));
	CHECK_OK(syscall(73, fd, LX_LOCK_SH | LX_LOCK_NB));          /* shared */
	CHECK_ERR(syscall(73, fd, LX_LOCK_EX | LX_LOCK_NB), EWOULDBLOCK);
	CHECK_OK(syscall(73, second, LX_LOCK_UN));
	CHECK_OK(syscall(73, fd, LX_LOCK_EX | LX_LOCK_NB));          /* upgraded */
	CHECK_ERR(syscall(73, fd, 3), EINVAL);
	CHECK_ERR(syscall(73, fd, 0), EINVAL);
	CHECK_ERR(syscall(73, 999, LX_LOCK_SH), EBADF);
	CHECK_OK(close(fd));
	CHECK_OK(close(second));
	/* OFD locks: owned by the open file */
	fd = CHECK_OK(open("f", O_RDWR));
	second = CHECK_OK(open("f", O_RDWR));
	struct lx_flock fl = { LX_WR, 0, 0, 10, 1 };
	CHECK_ERR(syscall(72, fd, LX_OFD_SETLK, &fl), EINVAL);       /* l_pid must be 0 */
	CHECK_OK(lock_call(fd, LX_OFD_SETLK, LX_WR, 0, 10, NULL));
	CHECK_ERR(lock_call(second, LX_OFD_SETLK, LX_WR, 5, 1, NULL), EAGAIN);
	CHECK_OK(lock_call(second, LX_OFD_GETLK, LX_RD, 0, 0, &fl));
	CHECK(fl.l_type == LX_WR && fl.l_pid == -1 && fl.l_len == 10);
	CHECK_ERR(lock_call(second, LX_F_SETLK, LX_RD, 0, 1, NULL), EAGAIN);   /* POSIX vs OFD */
	CHECK_OK(close(fd));
	CHECK_OK(lock_call(second, LX_OFD_SETLK, LX_WR, 5, 1, NULL));
	CHECK_OK(close(second));
	leave_scratch();
}

static volatile int lock_alarms;

static void on_lock_alarm(int sig)
{
	(void)sig;
	lock_alarms++;
}

/* Hold [0, 10) of fd's file and [20, 30) until the pipe says go. */
static pid_t child_holding(int fd, int go[2], int ready[2])
{
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		if (lock_call(fd, LX_F_SETLK, LX_WR, 20, 10, NULL) != 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		/* wait for [0, 10) (the parent's), or report a deadlock */
		long r = lock_call(fd, LX_F_SETLKW, LX_WR, 0, 10, NULL);
		int dead = r == -1 && errno == EDEADLK;
		if (dead)
			lock_call(fd, LX_F_SETLK, LX_UN, 20, 10, NULL);   /* let the parent in */
		if (write(ready[1], dead ? "d" : "g", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	return pid;
}

/* files_lock_wait: F_SETLKW sleeps until the lock is free; two processes
 * each waiting for the other: one of them gets EDEADLK (whichever asked
 * last) and the other its lock; a signal ends the wait with EINTR. */
void test_files_lock_wait(void)
{
	enter_scratch("lockwait");
	int fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0644));
	int go[2], ready[2];
	char c;
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(ready));
	CHECK_OK(lock_call(fd, LX_F_SETLK, LX_WR, 0, 10, NULL));
	pid_t pid = child_holding(fd, go, ready);
	CHECK(read(ready[0], &c, 1) == 1 && c == 'r');
	usleep(100000);   /* (the child is most likely asleep in F_SETLKW now) */
	long r = lock_call(fd, LX_F_SETLKW, LX_WR, 20, 10, NULL);
	int parent_dead = r == -1 && errno == EDEADLK;
	if (parent_dead)
		CHECK_OK(lock_call(fd, LX_F_SETLK, LX_UN, 0, 10, NULL));   /* let the child in */
	else
		CHECK_OK(r);   /* the child saw the deadlock and let go */
	CHECK(read(ready[0], &c, 1) == 1);
	CHECK(parent_dead ? c == 'g' : c == 'd');
	CHECK(write(go[1], "g", 1) == 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* a signal ends the wait */
	pid = fork();
	if (pid == 0) {
		if (lock_call(fd, LX_F_SETLK, LX_WR, 50, 10, NULL) != 0 || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	CHECK(read(ready[0], &c, 1) == 1 && c == 'r');
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = on_lock_alarm;   /* no SA_RESTART */
	sigemptyset(&a.sa_mask);
	CHECK_OK(sigaction(SIGALRM, &a, NULL));
	alarm(1);
	r = lock_call(fd, LX_F_SETLKW, LX_WR, 55, 1, NULL);
	CHECK(r == -1 && errno == EINTR && lock_alarms == 1);
	signal(SIGALRM, SIG_DFL);
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_OK(lock_call(fd, LX_F_SETLKW, LX_WR, 0, 0, NULL));   /* all free again */
	close(go[0]), close(go[1]), close(ready[0]), close(ready[1]);
	CHECK_OK(close(fd));
	leave_scratch();
}

/* files_rename_exchange: renameat2's RENAME_EXCHANGE on tmpfs (Linux's
 * shmem has it; a host /tmp of another kind may not: then only the
 * errors are checked): a file and a directory trade places. */
void test_files_rename_exchange(void)
{
	uint64_t sf[15];   /* struct statfs: f_type first (newlib has no statfs) */
	char buf[8];
	enter_scratch("exchange");
	CHECK_OK(syscall(137, ".", sf));
	int tmpfs = sf[0] == 0x01021994;
	CHECK_OK(mkdir("dir", 0755));
	int fd = CHECK_OK(open("file", O_WRONLY | O_CREAT, 0644));
	CHECK(write(fd, "abc", 3) == 3);
	CHECK_OK(close(fd));
	CHECK_ERR(syscall(316, L_AT_FDCWD, "file", L_AT_FDCWD, "none", 2L), ENOENT);
	CHECK_ERR(syscall(316, L_AT_FDCWD, "file", L_AT_FDCWD, "dir", 3L), EINVAL);
	if (tmpfs) {
		CHECK_OK(syscall(316, L_AT_FDCWD, "file", L_AT_FDCWD, "dir", 2L));
		struct stat st;
		CHECK_OK(stat("file", &st));
		CHECK(S_ISDIR(st.st_mode));
		fd = CHECK_OK(open("dir", O_RDONLY));
		CHECK(read(fd, buf, sizeof buf) == 3 && !memcmp(buf, "abc", 3));
		CHECK_OK(close(fd));
	}
	CHECK_ERR(syscall(316, L_AT_FDCWD, "file", L_AT_FDCWD, ".", 2L), EBUSY);
	CHECK_ERR(rename("file", ".."), EBUSY);
	CHECK_ERR(rename(".", "x"), EBUSY);
	CHECK_ERR(syscall(316, L_AT_FDCWD, "file", L_AT_FDCWD, "..", 1L), EEXIST);
	leave_scratch();
}
