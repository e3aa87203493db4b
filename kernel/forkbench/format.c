/* kernel/forkbench/format.c -- the fork benchmark's text form: size lists in,
 * BENCH lines and tables out (contracts in libc/include/pagoda/forkbench.h).
 * Compiled into the kernel (bench=fork) AND into /bin/kforkbench (user.mk),
 * so both print exactly the same thing: it uses nothing but the output
 * function it is given. */
#include "libc/include/pagoda/forkbench.h"

static const char *const strategy_names[PAGODA_FB_NSTRATEGIES] = {
	"copy", "cow", "share", "sharepd" };

int pagoda_fb_parse_sizes(const char *list, struct pagoda_forkbench_req *req)
{
	req->nsizes = 0;
	for (const char *p = list; p;) {
		uint64_t v = 0;
		const char *q = p;
		for (; *q >= '0' && *q <= '9' && v <= PAGODA_FB_MAX_MIB; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (q == p || (*q && *q != ',') || v == 0 || v > PAGODA_FB_MAX_MIB ||
		    req->nsizes == PAGODA_FB_MAX_SIZES)
			return -1;
		req->size_mib[req->nsizes++] = (uint32_t)v;
		p = *q ? q + 1 : 0;
	}
	return 0;
}

/* Does the comma-separated list word [p, p+n) equal s? */
static int word_is(const char *p, unsigned n, const char *s)
{
	unsigned i = 0;
	for (; i < n && s[i] && p[i] == s[i]; i++)
		;
	return i == n && !s[i];
}

uint32_t pagoda_fb_parse_strategies(const char *list)
{
	uint32_t mask = 0;
	for (const char *p = list; p;) {
		unsigned n = 0, s;
		while (p[n] && p[n] != ',')
			n++;
		for (s = 0; s < PAGODA_FB_NSTRATEGIES && !word_is(p, n, strategy_names[s]); s++)
			;
		if (s == PAGODA_FB_NSTRATEGIES)
			return 0;
		mask |= 1u << s;
		p = p[n] ? p + n + 1 : 0;
	}
	return mask;
}

/* One BENCH line: stat st (nanoseconds printed as microseconds, or cycles). */
static void bench_line(pagoda_fb_print_fn out, const char *bench, const char *strategy,
		       uint32_t mib, const struct pagoda_forkbench_stat *st, uint32_t runs,
		       int ns)
{
	if (ns)
		out("BENCH %s %s_%uM us median=%lu.%03lu min=%lu.%03lu max=%lu.%03lu runs=%u\n",
		    bench, strategy, mib, st->median / 1000, st->median % 1000, st->min / 1000,
		    st->min % 1000, st->max / 1000, st->max % 1000, runs);
	else
		out("BENCH %s %s_%uM cycles median=%lu min=%lu max=%lu runs=%u\n", bench, strategy,
		    mib, st->median, st->min, st->max, runs);
}

void pagoda_fb_print_start(pagoda_fb_print_fn out)
{
	out("BENCHSTART kfork\nBENCHPROG kfork\n");
}

void pagoda_fb_print_size(const struct pagoda_forkbench_result *res, uint32_t i,
			  pagoda_fb_print_fn out)
{
	for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++) {
		const struct pagoda_forkbench_cell *c = &res->cell[i][s];
		const char *name = strategy_names[s];
		uint32_t mib = res->size_mib[i];
		if (c->status == PAGODA_FB_SKIPPED || c->status == PAGODA_FB_FAILED)
			out("%s kfork %s_%uM: %s\n", c->status == PAGODA_FB_SKIPPED
			    ? "BENCHSKIP" : "BENCHFAIL", name, mib, c->note);
		if (c->status != PAGODA_FB_OK)
			continue;
		bench_line(out, "kfork", name, mib, &c->total_ns, c->runs, 1);
		bench_line(out, "kfork_fork", name, mib, &c->fork_ns, c->runs, 1);
		bench_line(out, "kfork_exit", name, mib, &c->exit_ns, c->runs, 1);
		bench_line(out, "kfork_tsc", name, mib, &c->total_cycles, c->runs, 0);
	}
}

void pagoda_fb_print_done(pagoda_fb_print_fn out)
{
	out("BENCHDONE\n");
}

void pagoda_fb_print_bench(const struct pagoda_forkbench_result *res, pagoda_fb_print_fn out)
{
	pagoda_fb_print_start(out);
	for (uint32_t i = 0; i < res->nsizes; i++)
		pagoda_fb_print_size(res, i, out);
	pagoda_fb_print_done(out);
}

/* One table cell: two medians as "a.b" with one decimal (ns -> us, or
 * cycles -> Mcycles with two), or why there is no number. */
static void table_cell(pagoda_fb_print_fn out, const struct pagoda_forkbench_cell *c,
		       int split)
{
	if (c->status == PAGODA_FB_UNASKED)
		out(" | %22s", "-");
	else if (c->status != PAGODA_FB_OK)
		out(" | %22s", c->status == PAGODA_FB_SKIPPED ? "skipped (memory)" : "FAILED");
	else if (split)
		out(" | %9lu.%01lu %8lu.%01lu", c->fork_ns.median / 1000,
		    c->fork_ns.median % 1000 / 100, c->exit_ns.median / 1000,
		    c->exit_ns.median % 1000 / 100);
	else
		out(" | %8lu.%01lu %8lu.%02lu", c->total_ns.median / 1000,
		    c->total_ns.median % 1000 / 100, c->total_cycles.median / 1000000,
		    c->total_cycles.median % 1000000 / 10000);
}

/* The header and rows of one table (split: fork and exit; else fork+exit). */
static void table(const struct pagoda_forkbench_result *res, pagoda_fb_print_fn out, int split)
{
	out("%9s", "size");
	for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
		out(" | %22s", strategy_names[s]);
	out("\n%9s", "MiB");
	for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
		out(split ? " | %11s %10s" : " | %10s %11s", split ? "fork us" : "us",
		    split ? "exit us" : "Mcycles");
	out("\n");
	for (uint32_t i = 0; i < res->nsizes; i++) {
		out("%9u", res->size_mib[i]);
		for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
			table_cell(out, &res->cell[i][s], split);
		out("\n");
	}
}

void pagoda_fb_print_table(const struct pagoda_forkbench_result *res, pagoda_fb_print_fn out)
{
	out("\nkfork: duplicate + tear down an address space with N MiB written "
	    "(medians; TSC %lu kHz)\n", res->tsc_khz);
	table(res, out, 0);
	out("\nkfork: the two halves (medians)\n");
	table(res, out, 1);
}

int pagoda_fb_all_ok(const struct pagoda_forkbench_result *res)
{
	for (uint32_t i = 0; i < res->nsizes; i++)
		for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
			if (res->cell[i][s].status == PAGODA_FB_FAILED)
				return 0;
	return 1;
}
