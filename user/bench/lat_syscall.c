/*
 * user/bench/lat_syscall.c -- system call latency, as lmbench's lat_syscall:
 *   null     getppid()
 *   read     1-byte read of /dev/zero
 *   write    1-byte write to /dev/null
 *   null_io  the average of read and write (lmbench's "null I/O")
 * Usage: lat_syscall [--quick] [--runs N] [--ms N]
 */
#include "bench_util.h"

#include <fcntl.h>
#include <unistd.h>

/* One getppid() call. */
static void op_null(void *ctx)
{
	(void)ctx;
	(void)getppid();
}

/* One 1-byte read of the descriptor *ctx (/dev/zero). */
static void op_read(void *ctx)
{
	char c;

	if (read(*(int *)ctx, &c, 1) != 1)
		bench_die("read /dev/zero");
}

/* One 1-byte write to the descriptor *ctx (/dev/null). */
static void op_write(void *ctx)
{
	char c = 0;

	if (write(*(int *)ctx, &c, 1) != 1)
		bench_die("write /dev/null");
}

/* Measure the three calls and derive null_io. */
int main(int argc, char **argv)
{
	struct bench_stat r, w, io;
	int zero, null;

	bench_init(&argc, argv, "lat_syscall");
	zero = open("/dev/zero", O_RDONLY);
	null = open("/dev/null", O_WRONLY);
	if (zero < 0 || null < 0)
		bench_die("open /dev/zero or /dev/null");
	bench_time_op("lat_syscall", "null", op_null, NULL);
	r = bench_time_op("lat_syscall", "read", op_read, &zero);
	w = bench_time_op("lat_syscall", "write", op_write, &null);
	io.median = (r.median + w.median) / 2;
	io.min = (r.min + w.min) / 2;
	io.max = (r.max + w.max) / 2;
	io.runs = r.runs;
	bench_report_stat("lat_syscall", "null_io", "us", io);
	return bench_finish();
}
