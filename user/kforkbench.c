/* user/kforkbench.c -- the in-kernel fork benchmark from the shell:
 *
 *   kforkbench [-r RUNS] [-s copy,cow,share,sharepd] [MIB,MIB,...]
 *
 * asks the kernel (pagoda_forkbench, system call 1004) to time duplicating
 * and tearing down address spaces of the given sizes (default
 * 1,4,16,64,256,1024 MiB; sizes that do not fit in free memory are skipped)
 * under each fork strategy, and prints the kernel's results exactly as
 * bench=fork does: BENCH lines for tools/bench/bench.py, then a table
 * (kernel/forkbench/format.c prints both, here through printf). Exit status 0,
 * 1 if a run's check failed, 2 for bad arguments or a failed call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#define DEFAULT_SIZES "1,4,16,64,256,1024"

/* usage: print how to call us and exit 2. */
static void usage(void)
{
	fprintf(stderr, "usage: kforkbench [-r RUNS] [-s copy,cow,share,sharepd] [MIB,MIB,...]\n"
		"  sizes 1..%u MiB, at most %u; RUNS 1..%u (default 5, 3 from 512 MiB)\n",
		PAGODA_FB_MAX_MIB, PAGODA_FB_MAX_SIZES, PAGODA_FB_MAX_RUNS);
	exit(2);
}

/* parse_args: the request described by argv (usage() on a bad one). */
static void parse_args(int argc, char **argv, struct pagoda_forkbench_req *req)
{
	int c;
	memset(req, 0, sizeof(*req));
	while ((c = getopt(argc, argv, "r:s:")) != -1) {
		char *end;
		long n;
		switch (c) {
		case 'r':
			n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > PAGODA_FB_MAX_RUNS)
				usage();
			req->runs = (uint32_t)n;
			break;
		case 's':
			req->strategies = pagoda_fb_parse_strategies(optarg);
			if (!req->strategies)
				usage();
			break;
		default:
			usage();
		}
	}
	if (argc - optind > 1 ||
	    pagoda_fb_parse_sizes(optind < argc ? argv[optind] : DEFAULT_SIZES, req) < 0)
		usage();
}

int main(int argc, char **argv)
{
	struct pagoda_forkbench_req req;
	static struct pagoda_forkbench_result res;

	parse_args(argc, argv, &req);
	if (pagoda_forkbench(&req, &res) < 0) {
		fprintf(stderr, "kforkbench: pagoda_forkbench: %s\n", strerror(errno));
		return 2;
	}
	pagoda_fb_print_bench(&res, printf);
	pagoda_fb_print_table(&res, printf);
	return pagoda_fb_all_ok(&res) ? 0 : 1;
}
