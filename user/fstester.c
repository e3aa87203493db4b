/* user/fstester.c -- the model-based file-system tester.
 *
 *   fstester [-s SEED] [-n OPS] [-S SEEDS] [-T SECONDS] [-d DIR] [-P PROCS] [-v]
 *
 * Random sequences of create, write, truncate, rename, unlink, mkdir,
 * rmdir, link and fsync in a scratch directory (DIR/fst.PID, default
 * DIR /tmp), each checked against an in-memory model of the tree: the
 * result or errno of every call, and after every few calls a check of a
 * file's bytes, a name's stat (type, size, links) or a directory's
 * listing. Names come from a small pool ("a".."e", three levels deep), so
 * calls meet existing names, missing parents, files used as directories,
 * non-empty directories and moves into a directory's own subtree.
 *
 * The model says what Linux says: the same binary runs on the Linux host
 * (any file system that counts directory links; one that does not, such
 * as btrfs, skips that check), where a disagreement is a bug of the model,
 * and on Pagoda (tmpfs, ext2), where it is a bug of the kernel. A run is
 * a function of its seed: a failure prints the seed and the step, and
 * "fstester -s SEED -n STEP -v" replays it, printing every call.
 * Prints "fstester: PASS seeds A..B ops N checks N" (tools/fuzz.py reads it).
 *
 * With -P PROCS, that many processes run at once in the same file system
 * (each its own scratch directory and model, the seeds dealt out in turn:
 * process k runs SEED+k, SEED+k+PROCS, ...): one tree's bitmaps, inode
 * tables, parent directory and caches changed from several CPUs. A seed
 * replays alone (its result does not depend on the others).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_rand.h"

#define MAXNODES 48
#define MAXENTRIES 96
#define MAXSIZE 40000
#define NAMES "abcde"
#define DEPTH 3

enum { T_FREE, T_FILE, T_DIR };

/* The model: nodes (inodes) and entries (names in a directory). Node 0 is
 * the scratch directory. */
static struct node {
	int type, nlink;
	size_t size;
	uint8_t data[MAXSIZE];
} nodes[MAXNODES];

static struct entry {
	int used, dir, node;
	char name;
} entries[MAXENTRIES];

static uint64_t rng;
static int verbose, count_dir_links;
static long ops, checks, step;
static uint64_t seed_now;
static char top[256];
static const char *scratch_parent = "/tmp";   /* -d */

static uint64_t below(uint64_t n)
{
	return fuzz_rand64(&rng) % n;
}

static void fail(const char *fmt, const char *a, const char *b, long want, long got)
{
	printf("fstester: FAIL seed %llu step %ld: ", (unsigned long long)seed_now, step);
	printf(fmt, a, b);
	printf(": model says %ld, the kernel %ld\n", want, got);
	printf("fstester: replay: fstester -s %llu -n %ld -v\n", (unsigned long long)seed_now, step + 1);
	exit(1);
}

/* ---- the model ---- */

static int find_entry(int dir, char name)
{
	for (int i = 0; i < MAXENTRIES; i++)
		if (entries[i].used && entries[i].dir == dir && entries[i].name == name)
			return i;
	return -1;
}

static int new_node(int type)
{
	for (int i = 1; i < MAXNODES; i++)
		if (nodes[i].type == T_FREE) {
			nodes[i].type = type, nodes[i].nlink = type == T_DIR ? 2 : 1, nodes[i].size = 0;
			return i;
		}
	return -1;
}

/* Has the model room for one more name (and node)? */
static int room(void)
{
	int node = 0, entry = 0;
	for (int i = 1; i < MAXNODES; i++)
		node |= nodes[i].type == T_FREE;
	for (int i = 0; i < MAXENTRIES; i++)
		entry |= !entries[i].used;
	return node && entry;
}

static int add_entry(int dir, char name, int node)
{
	for (int i = 0; i < MAXENTRIES; i++)
		if (!entries[i].used) {
			entries[i] = (struct entry){ 1, dir, node, name };
			return i;
		}
	return -1;
}

static int entries_in(int dir)
{
	int n = 0;
	for (int i = 0; i < MAXENTRIES; i++)
		n += entries[i].used && entries[i].dir == dir;
	return n;
}

static int parent_of(int dir)   /* a directory's one entry's directory */
{
	for (int i = 0; i < MAXENTRIES; i++)
		if (entries[i].used && entries[i].node == dir)
			return entries[i].dir;
	return -1;
}

/* Is a (a directory) ancestor of or equal to b? */
static int is_ancestor(int a, int b)
{
	for (; b > 0; b = parent_of(b))
		if (a == b)
			return 1;
	return a == b;
}

static void drop_link(int node)
{
	if (--nodes[node].nlink == 0 || nodes[node].type == T_DIR)
		nodes[node].type = T_FREE;
}

/* A path: components (names), the last one the target. */
struct path {
	char comp[DEPTH];
	int n;
	char text[16];
};

/* Resolve all but the last component: the parent directory node, or -errno. */
static int resolve_parent(const struct path *p)
{
	int dir = 0;
	for (int i = 0; i < p->n - 1; i++) {
		int e = find_entry(dir, p->comp[i]);
		if (e < 0)
			return -ENOENT;
		if (nodes[entries[e].node].type != T_DIR)
			return -ENOTDIR;
		dir = entries[e].node;
	}
	return dir;
}

/* A random path: mostly through existing directories, sometimes not. */
static void random_path(struct path *p)
{
	int dir = 0;
	p->n = 0;
	while (p->n < DEPTH - 1 && below(3) != 0) {
		char c = NAMES[below(5)];
		int e = find_entry(dir, c);
		if ((e < 0 || nodes[entries[e].node].type != T_DIR) && below(4) != 0)
			break;   /* mostly existing directories */
		p->comp[p->n++] = c;
		if (e < 0 || nodes[entries[e].node].type != T_DIR)
			break;
		dir = entries[e].node;
	}
	p->comp[p->n++] = NAMES[below(5)];
	int k = 0;
	for (int i = 0; i < p->n; i++) {
		if (i)
			p->text[k++] = '/';
		p->text[k++] = p->comp[i];
	}
	p->text[k] = 0;
}

/* ---- checking a call against the model ---- */

static long sys_result(long r)
{
	return r < 0 ? -errno : r;
}

static void expect(const char *what, const struct path *a, const struct path *b, long want, long got)
{
	ops++;
	if (verbose)
		printf("%ld: %s %s %s -> %ld\n", step, what, a->text, b ? b->text : "", got);
	if (want != got)
		fail("%s %s", what, a->text, want, got);
}

static void do_create(const struct path *p)
{
	int dir = resolve_parent(p);
	long want = dir < 0 ? dir : find_entry(dir, p->comp[p->n - 1]) >= 0 ? -EEXIST : 0;
	if (!room())
		return;   /* the model is full: skip */
	int fd = open(p->text, O_WRONLY | O_CREAT | O_EXCL, 0644);
	long got = sys_result(fd);
	if (fd >= 0)
		close(fd), got = 0;
	if (want == 0) {
		int n = new_node(T_FILE);
		add_entry(dir, p->comp[p->n - 1], n);
	}
	expect("create", p, NULL, want, got);
}

static void do_mkdir(const struct path *p)
{
	int dir = resolve_parent(p);
	long want = dir < 0 ? dir : find_entry(dir, p->comp[p->n - 1]) >= 0 ? -EEXIST : 0;
	if (!room())
		return;
	long got = sys_result(mkdir(p->text, 0755));
	if (want == 0) {
		add_entry(dir, p->comp[p->n - 1], new_node(T_DIR));
		nodes[dir].nlink++;
	}
	expect("mkdir", p, NULL, want, got);
}

/* The node a path names, or -errno. */
static int lookup(const struct path *p)
{
	int dir = resolve_parent(p);
	if (dir < 0)
		return dir;
	int e = find_entry(dir, p->comp[p->n - 1]);
	return e < 0 ? -ENOENT : entries[e].node;
}

static void fill(uint8_t *b, size_t n, unsigned s)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(s + i * 7 + (i >> 8));
}

static void do_write(const struct path *p)
{
	int node = lookup(p);
	long want = node < 0 ? node : nodes[node].type == T_DIR ? -EISDIR : 0;
	size_t off = below(4) ? below(MAXSIZE / 2) : nodes[node > 0 ? node : 0].size;
	size_t len = 1 + below(MAXSIZE / 4);
	if (off + len > MAXSIZE)
		len = MAXSIZE - off;
	static uint8_t buf[MAXSIZE];
	fill(buf, len, (unsigned)below(256));
	int fd = open(p->text, O_WRONLY);
	long got = sys_result(fd);
	if (fd >= 0) {
		got = sys_result(pwrite(fd, buf, len, (off_t)off));
		got = got == (long)len ? 0 : got;
		close(fd);
	}
	if (want == 0) {
		struct node *n = &nodes[node];
		if (off > n->size)
			memset(n->data + n->size, 0, off - n->size);
		memcpy(n->data + off, buf, len);
		n->size = off + len > n->size ? off + len : n->size;
	}
	expect("write", p, NULL, want, got);
}

static void do_truncate(const struct path *p)
{
	int node = lookup(p);
	long want = node < 0 ? node : nodes[node].type == T_DIR ? -EISDIR : 0;
	size_t size = below(MAXSIZE);
	long got = sys_result(truncate(p->text, (off_t)size));
	if (want == 0) {
		struct node *n = &nodes[node];
		if (size > n->size)
			memset(n->data + n->size, 0, size - n->size);
		n->size = size;
	}
	expect("truncate", p, NULL, want, got);
}

static void do_unlink(const struct path *p)
{
	int dir = resolve_parent(p);
	int e = dir < 0 ? -1 : find_entry(dir, p->comp[p->n - 1]);
	long want = dir < 0 ? dir : e < 0 ? -ENOENT : nodes[entries[e].node].type == T_DIR ? -EISDIR : 0;
	long got = sys_result(unlink(p->text));
	if (want == 0) {
		entries[e].used = 0;
		drop_link(entries[e].node);
	}
	expect("unlink", p, NULL, want, got);
}

static void do_rmdir(const struct path *p)
{
	int dir = resolve_parent(p);
	int e = dir < 0 ? -1 : find_entry(dir, p->comp[p->n - 1]);
	int node = e < 0 ? -1 : entries[e].node;
	long want = dir < 0 ? dir : e < 0 ? -ENOENT : nodes[node].type != T_DIR ? -ENOTDIR :
		    entries_in(node) ? -ENOTEMPTY : 0;
	long got = sys_result(rmdir(p->text));
	if (want == 0) {
		entries[e].used = 0;
		nodes[dir].nlink--;
		drop_link(node);
	}
	expect("rmdir", p, NULL, want, got);
}

static void do_link(const struct path *a, const struct path *b)
{
	int node = lookup(a), ndir = resolve_parent(b);
	long want = node < 0 ? node : ndir < 0 ? ndir :
		    find_entry(ndir, b->comp[b->n - 1]) >= 0 ? -EEXIST :
		    nodes[node].type == T_DIR ? -EPERM : 0;
	if (!room())
		return;
	long got = sys_result(link(a->text, b->text));
	if (want == 0) {
		add_entry(ndir, b->comp[b->n - 1], node);
		nodes[node].nlink++;
	}
	expect("link", a, b, want, got);
}

/* rename's answer in the model (Linux's order of checks). */
static long rename_result(const struct path *a, const struct path *b, int odir, int ndir,
			  int oe, int ne)
{
	if (odir < 0)
		return odir;
	if (ndir < 0)
		return ndir;
	if (oe < 0)
		return -ENOENT;
	int on = entries[oe].node, nn = ne < 0 ? -1 : entries[ne].node;
	int odir_is = nodes[on].type == T_DIR;
	(void)a, (void)b;
	if (odir_is && is_ancestor(on, ndir))
		return -EINVAL;          /* into its own subtree */
	if (nn >= 0 && nodes[nn].type == T_DIR && is_ancestor(nn, odir))
		return -ENOTEMPTY;       /* over an ancestor of the source */
	if (nn == on)
		return 0;                /* the same file: nothing happens */
	if (nn >= 0 && odir_is && nodes[nn].type != T_DIR)
		return -ENOTDIR;
	if (nn >= 0 && !odir_is && nodes[nn].type == T_DIR)
		return -EISDIR;
	if (nn >= 0 && nodes[nn].type == T_DIR && entries_in(nn))
		return -ENOTEMPTY;
	return 1;                        /* a real move */
}

static void do_rename(const struct path *a, const struct path *b)
{
	int odir = resolve_parent(a), ndir = resolve_parent(b);
	int oe = odir < 0 ? -1 : find_entry(odir, a->comp[a->n - 1]);
	int ne = ndir < 0 ? -1 : find_entry(ndir, b->comp[b->n - 1]);
	long want = rename_result(a, b, odir, ndir, oe, ne);
	long got = sys_result(rename(a->text, b->text));
	if (want == 1) {
		int on = entries[oe].node;
		if (ne >= 0) {
			int nn = entries[ne].node;
			entries[ne].used = 0;
			if (nodes[nn].type == T_DIR)
				nodes[ndir].nlink--;
			drop_link(nn);
		}
		entries[oe].dir = ndir, entries[oe].name = b->comp[b->n - 1];
		if (nodes[on].type == T_DIR)
			nodes[odir].nlink--, nodes[ndir].nlink++;
		want = 0;
	}
	expect("rename", a, b, want, got);
}

static void do_fsync(const struct path *p)
{
	int node = lookup(p);
	long want = node < 0 ? node : 0;
	int fd = open(p->text, O_RDONLY);
	long got = sys_result(fd);
	if (fd >= 0) {
		got = sys_result(fsync(fd));
		close(fd);
	}
	expect("fsync", p, NULL, want, got);
}

/* ---- checks of state ---- */

static void check_stat(const struct path *p)
{
	struct stat st;
	int node = lookup(p);
	long got = sys_result(lstat(p->text, &st));
	checks++;
	if (node < 0 || got < 0) {
		if (node != got)
			fail("stat %s%s", p->text, "", node, got);
		return;
	}
	struct node *n = &nodes[node];
	if ((n->type == T_DIR) != !!S_ISDIR(st.st_mode))
		fail("stat %s%s: is a directory", p->text, "", n->type == T_DIR, S_ISDIR(st.st_mode));
	if (n->type == T_FILE && (long)n->size != (long)st.st_size)
		fail("stat %s%s: size", p->text, "", (long)n->size, (long)st.st_size);
	if ((n->type == T_FILE || count_dir_links) && n->nlink != (long)st.st_nlink)
		fail("stat %s%s: links", p->text, "", n->nlink, (long)st.st_nlink);
}

static void check_bytes(const struct path *p)
{
	static uint8_t got[MAXSIZE + 1];
	int node = lookup(p);
	if (node < 0 || nodes[node].type != T_FILE)
		return;
	checks++;
	int fd = open(p->text, O_RDONLY);
	if (fd < 0)
		fail("open %s%s to read", p->text, "", 0, -errno);
	long n = 0, r;
	while ((r = read(fd, got + n, sizeof(got) - (size_t)n)) > 0)
		n += r;
	close(fd);
	if (n != (long)nodes[node].size)
		fail("read %s%s: bytes", p->text, "", (long)nodes[node].size, n);
	for (long i = 0; i < n; i++)
		if (got[i] != nodes[node].data[i]) {
			char at[32];
			snprintf(at, sizeof(at), " at offset %ld", i);
			fail("read %s: the byte%s", p->text, at, nodes[node].data[i], got[i]);
		}
}

static void check_listing(const struct path *p)
{
	int node = lookup(p);
	const char *path = p->text;
	if (p->n == 1 && below(2))
		node = 0, path = ".";
	if (node < 0 || nodes[node].type != T_DIR)
		return;
	checks++;
	DIR *d = opendir(path);
	if (!d)
		fail("opendir %s%s", path, "", 0, -errno);
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strlen(e->d_name) != 1 || find_entry(node, e->d_name[0]) < 0)
			fail("readdir %s%s: a name the model lacks", path, "", 0, e->d_name[0]);
		seen++;
	}
	closedir(d);
	if (seen != entries_in(node))
		fail("readdir %s%s: names", path, "", entries_in(node), seen);
}

/* ---- the run ---- */

static void one_step(void)
{
	struct path a, b;
	random_path(&a);
	random_path(&b);
	switch (below(20)) {
	case 0: case 1: case 2: do_create(&a); break;
	case 3: case 4: case 5: do_write(&a); break;
	case 6: do_truncate(&a); break;
	case 7: case 8: do_mkdir(&a); break;
	case 9: do_rmdir(&a); break;
	case 10: case 11: do_unlink(&a); break;
	case 12: do_link(&a, &b); break;
	case 13: case 14: case 15: do_rename(&a, &b); break;
	case 16: do_fsync(&a); break;
	case 17: check_stat(&a); break;
	case 18: check_bytes(&a); break;
	default: check_listing(&a); break;
	}
}

/* rm -r of the scratch tree (the model's names only exist there). */
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
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				remove_tree(sub);
			}
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void run_seed(uint64_t seed, long n)
{
	memset(nodes, 0, sizeof(nodes));
	memset(entries, 0, sizeof(entries));
	nodes[0].type = T_DIR, nodes[0].nlink = 2;
	rng = seed_now = seed;
	if (chdir("/") != 0 || mkdir(top, 0755) != 0 || chdir(top) != 0) {
		printf("fstester: FAIL cannot make %s: %s\n", top, strerror(errno));
		exit(1);
	}
	struct stat st;
	count_dir_links = stat(".", &st) == 0 && st.st_nlink == 2;   /* btrfs says 1 */
	for (step = 0; step < n; step++)
		one_step();
	if (chdir("/") != 0)
		exit(1);
	remove_tree(top);
}

/* Run the seeds first, first + stride, ... (below last, or until `end`
 * when it is set) in this process: the last seed run. */
static uint64_t run_seeds(uint64_t first, uint64_t last, uint64_t stride, time_t end, long n)
{
	uint64_t s = first;
	snprintf(top, sizeof(top), "%s/fst.%d", scratch_parent, (int)getpid());
	for (; end ? time(NULL) < end : s < last; s += stride) {
		run_seed(s, n);
		printf("TEST fstester.seed_%llu PASS\n", (unsigned long long)s);
	}
	return s - stride;
}

/* -P: procs processes each run_seeds their share; their ops and checks
 * come back through a pipe. 0 when all passed. */
static int run_processes(int procs, uint64_t seed, uint64_t last, time_t end, long n,
			 uint64_t *highest)
{
	int fds[2], failed = 0;
	if (pipe(fds) != 0)
		return 1;
	for (int k = 0; k < procs; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			uint64_t hi = run_seeds(seed + (uint64_t)k, last, (uint64_t)procs, end, n);
			long out[3] = { ops, checks, (long)hi };
			_exit(write(fds[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
		}
		if (pid < 0)
			failed = 1;
	}
	close(fds[1]);
	long in[3];
	while (read(fds[0], in, sizeof(in)) == sizeof(in)) {
		ops += in[0], checks += in[1];
		*highest = (uint64_t)in[2] > *highest ? (uint64_t)in[2] : *highest;
	}
	int st;
	while (wait(&st) > 0)
		failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	return failed;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	long n = 2000, nseeds = 1, seconds = 0, procs = 1;
	int opt;
	while ((opt = getopt(argc, argv, "s:n:S:T:d:P:v")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': n = strtol(optarg, NULL, 0); break;
		case 'S': nseeds = strtol(optarg, NULL, 0); break;
		case 'T': seconds = strtol(optarg, NULL, 0); break;
		case 'd': scratch_parent = optarg; break;
		case 'P': procs = strtol(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: fstester [-s SEED] [-n OPS] [-S SEEDS] [-T SECONDS] "
				"[-d DIR] [-P PROCS] [-v]\n");
			return 2;
		}
	}
	if (procs < 1 || procs > 64) {
		fprintf(stderr, "fstester: -P takes 1..64 processes\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	time_t end = seconds ? time(NULL) + seconds : 0;
	uint64_t last = seed + (uint64_t)nseeds, highest = seed;
	if (procs == 1)
		highest = run_seeds(seed, last, 1, end, n);
	else if (run_processes((int)procs, seed, last, end, n, &highest)) {
		printf("fstester: FAIL a process failed (its seed is above)\n");
		return 1;
	}
	printf("fstester: PASS seeds %llu..%llu ops %ld checks %ld\n", (unsigned long long)seed,
	       (unsigned long long)highest, ops, checks);
	return 0;
}
