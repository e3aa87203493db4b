/* user/cachedraw.c -- draw files' page caches as a Graphviz graph.
 *
 *   cachedraw [-t TITLE] FILE... > cache.dot
 *
 * What the running kernel reports through pagoda_filecache (system call
 * 1006, libc/include/pagoda/filecache.h): per file, the tree that indexes
 * its cached pages by file offset (mm/pagecache.c: 64 slots per node),
 * drawn as its nodes, the nodes that hold pages as a grid of their 64
 * slots, one cell per page of the file:
 *
 *   FILE (size, cached, dirty) -> node level 2 [0..4095] -> node level 1 [0..63]
 *                                                           | 0| 1| 2| 3|..
 *                                                           |64|..
 *
 *   white   not cached          green   cached, clean       grey  past the end
 *   red     dirty (written, not yet on the disk; a tmpfs page for ever)
 *   orange  being written out   yellow  being read in
 *   a page with more references than the cache's own (mapped, or in use)
 *   has its number in bold and the count after it: "5 x3".
 *
 * Render on the host with `dot -Tpng cache.dot -o cache.png`. Exit status
 * 1 for a file that cannot be opened or has no page cache (message on
 * stderr), ENOSYS on Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#define SLOTS 64
#define ROW 16            /* cells per row of a grid */

static struct pagoda_cachenode nodes[PAGODA_FILECACHE_MAX];

static const char *page_colour(const struct pagoda_cachenode *p)
{
	if (p->flags & PCN_WRITEBACK)
		return "#f8c08a";
	if (p->flags & PCN_LOCKED)
		return "#fbe98c";
	if (p->flags & PCN_DIRTY)
		return "#f19a9a";
	return "#b9e0b0";
}

/* The page of node `leaf` in slot s, or NULL (searched among the pages
 * that follow the node: they come right after it, in slot order). */
static const struct pagoda_cachenode *page_in(long leaf, long n, unsigned s)
{
	for (long i = leaf + 1; i < n && nodes[i].kind == PCN_PAGE; i++)
		if (nodes[i].slot == s)
			return &nodes[i];
	return NULL;
}

/* A node that holds pages: its 64 slots as a table (those at or past
 * page `end` of the file grey). */
static void print_leaf(int f, long leaf, long n, uint64_t end)
{
	const struct pagoda_cachenode *l = &nodes[leaf];
	printf("\tf%dn%u [shape=plain, label=<<TABLE BORDER=\"1\" CELLBORDER=\"1\" CELLSPACING=\"0\">"
	       "<TR><TD COLSPAN=\"%d\" BGCOLOR=\"#dbe8f6\">node, level 1: pages %llu..%llu</TD></TR>",
	       f, l->id, ROW, (unsigned long long)l->index, (unsigned long long)l->index + SLOTS - 1);
	for (unsigned s = 0; s < SLOTS; s++) {
		const struct pagoda_cachenode *p = page_in(leaf, n, s);
		const char *colour = p ? page_colour(p) : l->index + s >= end ? "#dddddd" : "#ffffff";
		printf("%s<TD BGCOLOR=\"%s\">", s % ROW == 0 ? "<TR>" : "", colour);
		if (p && p->refs > 1)
			printf("<B>%llu x%u</B>", (unsigned long long)p->index, p->refs);
		else
			printf("%llu", (unsigned long long)(l->index + s));
		printf("</TD>%s", s % ROW == ROW - 1 ? "</TR>" : "");
	}
	printf("</TABLE>>];\n");
}

/* Counts of the pages described: cached, dirty. */
static void count_pages(long n, long *cached, long *dirty)
{
	*cached = *dirty = 0;
	for (long i = 0; i < n; i++)
		if (nodes[i].kind == PCN_PAGE) {
			++*cached;
			*dirty += (nodes[i].flags & PCN_DIRTY) != 0;
		}
}

/* Draw file number f, path; 0, or -1 after a message. */
static int draw_file(int f, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	long n = fd < 0 || fstat(fd, &st) < 0 ? -1 : pagoda_filecache(fd, nodes, PAGODA_FILECACHE_MAX);
	if (n < 0) {
		fprintf(stderr, "cachedraw: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (n > PAGODA_FILECACHE_MAX) {
		fprintf(stderr, "cachedraw: %s: %ld nodes and pages, drawing the first %d\n", path, n,
			PAGODA_FILECACHE_MAX);
		n = PAGODA_FILECACHE_MAX;
	}
	long cached, dirty;
	count_pages(n, &cached, &dirty);
	printf("\tfile%d [label=\"%s\\n%lld bytes, %lld pages\\ncached %ld, dirty %ld\", "
	       "shape=note, fillcolor=\"#ffffff\"];\n", f, path, (long long)st.st_size,
	       (long long)(st.st_size + 4095) / 4096, cached, dirty);
	for (long i = 0; i < n; i++) {
		const struct pagoda_cachenode *c = &nodes[i];
		if (c->kind != PCN_NODE)
			continue;
		if (c->parent)
			printf("\tf%dn%u -> f%dn%u [label=\"slot %u\"];\n", f, c->parent, f, c->id, c->slot);
		else
			printf("\tfile%d -> f%dn%u;\n", f, f, c->id);
		if (c->level == 1)
			print_leaf(f, i, n, ((uint64_t)st.st_size + 4095) / 4096);
		else
			printf("\tf%dn%u [label=\"node, level %u\\npages %llu..%llu\", fillcolor=\"#e4f2dc\"];\n",
			       f, c->id, c->level, (unsigned long long)c->index,
			       (unsigned long long)c->index + (1ull << (6 * c->level)) - 1);
	}
	return 0;
}

static void print_legend(void)
{
	printf("\tlegend [shape=plain, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">"
	       "<TR><TD BGCOLOR=\"#ffffff\">not cached</TD><TD BGCOLOR=\"#b9e0b0\">clean</TD>"
	       "<TD BGCOLOR=\"#f19a9a\">dirty</TD><TD BGCOLOR=\"#f8c08a\">writeback</TD>"
	       "<TD BGCOLOR=\"#fbe98c\">reading</TD><TD BGCOLOR=\"#dddddd\">past the end</TD>"
	       "<TD><B>N xR</B>: R references</TD></TR></TABLE>>];\n");
}

int main(int argc, char **argv)
{
	const char *title = NULL;
	int first = 1, status = 0;
	if (argc > 2 && !strcmp(argv[1], "-t")) {
		title = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: cachedraw [-t TITLE] FILE... > cache.dot\n");
		return 1;
	}
	printf("digraph pagecache {\n"
	       "\tgraph [rankdir=LR, ranksep=0.4, nodesep=0.15, fontname=\"Helvetica\", fontsize=12, labelloc=t];\n"
	       "\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9];\n"
	       "\tedge [fontname=\"Helvetica\", fontsize=8];\n");
	if (title)
		printf("\tlabel=\"%s\";\n", title);
	for (int i = first; i < argc; i++)
		status |= draw_file(i - first, argv[i]) < 0;
	print_legend();
	printf("}\n");
	return status;
}
