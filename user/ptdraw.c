/* user/ptdraw.c -- draw processes' page-table trees as a Graphviz graph.
 *
 *   ptdraw [-r LO-HI] [-d DEPTH] [-t TITLE] [PID...] > pt.dot
 *
 * What the running kernel reports through pagoda_pttree (system call 1005,
 * libc/include/pagoda/pttree.h), written in the format of gdb's pg-draw
 * (tools/gdb/pagoda/draw.py; the test tests/gdb/ptdraw.py compares the
 * two): a node per process, a node per page-table page drawn ONCE however
 * many of the processes point at it (level, physical address, present and
 * share count; PT pages add their leaf entries: cow, lazy-free, file, zero
 * page, and swap entries when there are some), an edge per table entry labelled with the first address it maps,
 * dashed when the entry is write-protected. PIDs default to every process
 * but ptdraw itself; -r limits the picture to the tables mapping part of
 * [LO, HI) (default: all of user space), -d to DEPTH levels (4: PML4 to PT,
 * 1: PML4). Render on the host with `dot -Tpng pt.dot -o pt.png` (in
 * Pagoda's shell the graph goes to the console: the initrd is read-only).
 * Exit status 1 for an unknown pid or bad arguments (message on stderr,
 * nothing on stdout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#define USER_END 0x800000000000ull   /* the end of the user half */
#define MAX_PIDS 64
#define MAX_DRAWN 4096

static const char *const level_name[] = { "", "PT", "PD", "PDPT", "PML4" };
static const char *const level_colour[] = { "", "#ffffff", "#fdf3cf", "#e4f2dc", "#dbe8f6" };
#define SHARED_COLOUR "#f8c08a"

static struct pagoda_ptnode nodes[PAGODA_PTTREE_MAX];
static uint64_t drawn[MAX_DRAWN];              /* table pages already written */
static uint64_t edges[MAX_DRAWN][2];           /* (parent, child) already written */
static size_t ndrawn, nedges;

struct options {
	uint64_t lo, hi;
	int depth;
	const char *title;
	int pids[MAX_PIDS];
	char names[MAX_PIDS][PAGODA_PROC_NAME_MAX];
	int npids;
};

static void usage(void)
{
	fprintf(stderr, "usage: ptdraw [-r LO-HI] [-d DEPTH] [-t TITLE] [PID...] > pt.dot\n");
	exit(1);
}

/* 1 the first time table page pa is asked about, then 0. */
static int new_table(uint64_t pa)
{
	for (size_t i = 0; i < ndrawn; i++)
		if (drawn[i] == pa)
			return 0;
	if (ndrawn < MAX_DRAWN)
		drawn[ndrawn++] = pa;
	return 1;
}

/* 1 the first time the edge parent -> child is asked about, then 0. */
static int new_edge(uint64_t parent, uint64_t child)
{
	for (size_t i = 0; i < nedges; i++)
		if (edges[i][0] == parent && edges[i][1] == child)
			return 0;
	if (nedges < MAX_DRAWN) {
		edges[nedges][0] = parent;
		edges[nedges++][1] = child;
	}
	return 1;
}

static void print_node(const struct pagoda_ptnode *n)
{
	printf("\tt%llx [label=\"%s 0x%llx\\npresent %u, share %u", (unsigned long long)n->pa,
	       level_name[n->level], (unsigned long long)n->pa, n->present, n->share);
	if (n->level == PTN_PT)
		printf("\\ncow %u, lazy-free %u, file %u, zero %u", n->leaf_cow, n->leaf_lazyfree,
		       n->leaf_file, n->leaf_zero);
	if (n->level == PTN_PT && n->leaf_swap)
		printf("\\nswap %u", n->leaf_swap);
	printf("\", fillcolor=\"%s\"];\n", n->share > 1 ? SHARED_COLOUR : level_colour[n->level]);
}

static void print_process(int pid, const char *name, uint64_t root)
{
	printf("\tpid%d [label=\"pid %d\\n%s\", shape=ellipse, fillcolor=\"#ffffff\"];\n", pid, pid,
	       name);
	printf("\tpid%d -> t%llx;\n", pid, (unsigned long long)root);
}

/* Copy the program name of pid (procinfo) to name; 0, or -1 with errno
 * (ESRCH: no such process; ENOSYS: not Pagoda). */
static int process_name(int pid, char *name)
{
	struct pagoda_procinfo p;
	for (long i = 0; pagoda_procinfo(i, &p) == 0; i++)
		if (p.pid == pid) {
			memcpy(name, p.name, sizeof p.name);
			return 0;
		}
	return -1;
}

/* Write the tree of process i of o; 0, or -1 after a message. */
static int draw_process(int i, const struct options *o)
{
	int pid = o->pids[i];
	const char *name = o->names[i];
	long n = pagoda_pttree(pid, o->lo, o->hi, o->depth, nodes, PAGODA_PTTREE_MAX);
	if (n < 0) {
		fprintf(stderr, "ptdraw: pid %d: %s\n", pid, strerror(errno));
		return -1;
	}
	if (n > PAGODA_PTTREE_MAX)
		fprintf(stderr, "ptdraw: pid %d: %ld table pages, drawing the first %d\n", pid, n,
			PAGODA_PTTREE_MAX);
	for (long i = 0; i < n && i < PAGODA_PTTREE_MAX; i++) {
		const struct pagoda_ptnode *t = &nodes[i];
		if (!t->parent_pa)
			print_process(pid, name, t->pa);
		else if (new_edge(t->parent_pa, t->pa))
			printf("\tt%llx -> t%llx [label=\"0x%llx\"%s];\n", (unsigned long long)t->parent_pa,
			       (unsigned long long)t->pa, (unsigned long long)t->va,
			       t->flags & PTN_WRPROT ? ", style=dashed" : "");
		if (new_table(t->pa))
			print_node(t);
	}
	return 0;
}

static uint64_t number(const char *s)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage();
	return v;
}

static void parse_range(char *arg, struct options *o)
{
	char *dash = strchr(arg, '-');
	if (!dash)
		usage();
	*dash = 0;
	o->lo = number(arg);
	o->hi = number(dash + 1);
}

/* Every process but this one, in process-table order. */
static void all_pids(struct options *o)
{
	struct pagoda_procinfo p;
	for (long i = 0; pagoda_procinfo(i, &p) == 0 && o->npids < MAX_PIDS; i++)
		if (p.pid != getpid() && p.state != PROC_STATE_ZOMBIE)
			o->pids[o->npids++] = p.pid;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && i + 1 < argc && strlen(argv[i]) == 2 && strchr("rdt", argv[i][1])) {
			char opt = argv[i++][1];
			if (opt == 'r')
				parse_range(argv[i], o);
			else if (opt == 'd')
				o->depth = (int)number(argv[i]);
			else
				o->title = argv[i];
		} else if (o->npids < MAX_PIDS && argv[i][0] != '-') {
			o->pids[o->npids++] = (int)number(argv[i]);
		} else {
			usage();
		}
	}
	if (o->depth < 1 || o->depth > 4 || o->lo >= o->hi || o->hi > USER_END)
		usage();
	if (!o->npids)
		all_pids(o);
}

int main(int argc, char **argv)
{
	struct options o = { .lo = 0, .hi = USER_END, .depth = 4 };
	int status = 0;

	parse_args(argc, argv, &o);
	for (int i = 0; i < o.npids; i++)
		if (process_name(o.pids[i], o.names[i]) < 0) {
			fprintf(stderr, "ptdraw: pid %d: %s\n", o.pids[i], strerror(errno));
			return 1;
		}
	printf("digraph pagetables {\n"
	       "\tgraph [rankdir=LR, ranksep=0.45, nodesep=0.12, fontname=\"Helvetica\", fontsize=12, labelloc=t];\n"
	       "\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9];\n"
	       "\tedge [fontname=\"Helvetica\", fontsize=8];\n");
	if (o.title)
		printf("\tlabel=\"%s\";\n", o.title);
	for (int i = 0; i < o.npids; i++)
		status |= draw_process(i, &o) < 0;
	printf("}\n");
	return status;
}
