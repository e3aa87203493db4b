/*
 * user/bench/lat_proc.c -- process creation latency, as lmbench's lat_proc:
 *   fork   fork + exit + wait
 *   exec   fork + execve of the static proc_hello + wait
 *   sh     fork + SHELL -c proc_hello + wait, SHELL from the environment
 *          variable BENCH_SH (default /bin/sh), run with argv[0] "sh" (so
 *          BENCH_SH=/bin/busybox runs busybox's sh: make bench-linux runs the
 *          same busybox on both kernels)
 * Usage: lat_proc [--quick] [--runs N] [--ms N] [HELLO]
 * HELLO defaults to "proc_hello" in the directory of this program.
 */
#include "bench_proc.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

#define PATH_LEN 512

/* fork + execve(hello). */
static void op_exec(void *ctx)
{
	char *hello = ctx;
	char *argv[] = { hello, NULL };

	bench_spawn_wait(hello, argv);
}

/* fork + $BENCH_SH -c hello (default /bin/sh). */
static void op_sh(void *ctx)
{
	const char *shell = getenv("BENCH_SH");
	char *argv[] = { "sh", "-c", ctx, NULL };

	bench_spawn_wait(shell && *shell ? shell : "/bin/sh", argv);
}

/* Measure fork, exec and sh. */
int main(int argc, char **argv)
{
	char hello[PATH_LEN];

	bench_init(&argc, argv, "lat_proc");
	if (argc > 1)
		snprintf(hello, sizeof hello, "%s", argv[1]);
	else
		bench_path_beside(hello, sizeof hello, argv[0], "proc_hello");
	bench_time_op("lat_proc", "fork", bench_fork_exit_wait, NULL);
	bench_time_op("lat_proc", "exec", op_exec, hello);
	bench_time_op("lat_proc", "sh", op_sh, hello);
	return bench_finish();
}
