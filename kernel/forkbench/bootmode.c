/* kernel/forkbench/bootmode.c -- bench=fork: the fork benchmark from the kernel
 * command line (see kernel/forkbench/bootmode.h), before any user process runs. */
#include "kernel/forkbench/bootmode.h"
#include "lib/cmdline.h"
#include "lib/errno.h"
#include "kernel/forkbench/measure.h"
#include "kernel/ktest.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"

#define DEFAULT_SIZES "1,4,16,64,256,1024"

/* The request the bench_* options describe; false (and a printed reason)
 * for a bad option. */
static bool bench_fork_req(struct pagoda_forkbench_req *req)
{
	const char *sizes = cmdline_get_or("bench_sizes", DEFAULT_SIZES);
	uint64_t runs = cmdline_get_u64("bench_runs", 0);
	memset(req, 0, sizeof(*req));
	if (pagoda_fb_parse_sizes(sizes, req) < 0) {
		printk("bench: bad bench_sizes=%s (MiB, 1..%u, at most %u of them)\n", sizes,
		       PAGODA_FB_MAX_MIB, PAGODA_FB_MAX_SIZES);
		return false;
	}
	if (runs > PAGODA_FB_MAX_RUNS) {
		printk("bench: bad bench_runs=%lu (at most %u)\n", runs, PAGODA_FB_MAX_RUNS);
		return false;
	}
	req->runs = (uint32_t)runs;
	if (cmdline_has("bench_strategies")) {
		const char *list = cmdline_get("bench_strategies");
		req->strategies = pagoda_fb_parse_strategies(list);
		if (!req->strategies) {
			printk("bench: bad bench_strategies=%s (copy,cow,share,sharepd)\n", list);
			return false;
		}
	}
	return true;
}

/* forkbench_run's size_done: print size i's lines as soon as it is done. */
static void print_size(const struct pagoda_forkbench_result *res, uint32_t i)
{
	pagoda_fb_print_size(res, i, printk);
}

/* bench=fork: run, print, and say whether every check held. */
static bool bench_fork(void)
{
	struct pagoda_forkbench_req req;
	struct pagoda_forkbench_result *res = kmalloc(sizeof(*res));
	pagoda_fb_print_start(printk);
	if (!res || !bench_fork_req(&req)) {
		printk("BENCHFAIL kfork: %s\n", res ? "bad options" : "out of memory");
		kfree(res);
		return false;
	}
	int r = forkbench_run(&req, res, print_size);
	pagoda_fb_print_done(printk);
	if (r == -EINVAL) {
		printk("BENCHFAIL kfork: bad request\n");
		kfree(res);
		return false;
	}
	pagoda_fb_print_table(res, printk);
	bool ok = pagoda_fb_all_ok(res);
	kfree(res);
	return ok;
}

void bench_run_selected(void)
{
	const char *name = cmdline_get("bench");
	bool ok = false;
	if (strcmp(name, "fork") == 0)
		ok = bench_fork();
	else
		printk("bench: unknown benchmark \"%s\" (known: fork)\n", name);
	ktest_exit(ok ? KTEST_EXIT_PASS : KTEST_EXIT_FAIL);
	panic("bench: QEMU did not exit");
}
