/*
 * user/bench/lat_proc.c -- process creation latency, as lmbench's lat_proc:
 *   fork   fork + exit + wait
 *   exec   fork + execve of the static proc_hello + wait
 *   sh     fork + /bin/sh -c proc_hello + wait
 * Usage: lat_proc [--quick] [--runs N] [--ms N] [HELLO]
 * HELLO defaults to "proc_hello" in the directory of this program.
 */
#include "bench_proc.h"
#include "bench_util.h"

#include <stdio.h>

#define PATH_LEN 512

/* fork + execve(hello). */
static void op_exec(void *ctx)
{
	char *hello = ctx;
	char *argv[] = { hello, NULL };

	bench_spawn_wait(hello, argv);
}

/* fork + /bin/sh -c hello. */
static void op_sh(void *ctx)
{
	char *argv[] = { "sh", "-c", ctx, NULL };

	bench_spawn_wait("/bin/sh", argv);
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
